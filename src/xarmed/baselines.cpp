// HCT, Fed1-UCB, GP-UCB on a mesh, random (specs/fed-pne.md §7).
#include "gpbandit/xarmed/baselines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/policy/policy.hpp"
#include "gpbandit/rng.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"
#include "gpbandit/xarmed/partition.hpp"
#include "xarmed/gp_ucb_mesh_loop.hpp"

namespace gpb::xarmed {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kMeshStream = 0x6100000u, kRandomStream = 0x6200000u,
                        kFed1Noise = 0x6300000u, kCentralDraws = 0x6400000u;
using detail::kCentralNoise;

struct HctNode {
  HctNode(int h, std::uint64_t i) : depth(h), index(i) {}
  int depth;
  std::uint64_t index;
  long long count = 0;
  double mean = 0, U = kInf, B = kInf;
  double f_obs = std::numeric_limits<double>::quiet_NaN(), regret = 0;  // cached at the centre
  int parent = -1;
  std::vector<int> kids;
};
}  // namespace

BaselineRun run_hct(const FedObjective& f, const HctParams& p, int M, long long T, double noise,
                    std::uint64_t seed, std::uint32_t run) {
  GPB_EXPECTS(p.rho > 0 && p.rho < 1, "hct.rho: must lie in (0, 1), got " << p.rho);
  GPB_EXPECTS(p.nu > 0, "hct.nu: must be > 0, got " << p.nu);
  const Partition part(f.box(), p.k, p.partition_seed);
  const double c1 = p.c1 > 0 ? p.c1 : std::pow(p.rho / (3 * p.nu), 1.0 / 8);
  std::vector<HctNode> tree;
  tree.emplace_back(0, 1);
  auto expand = [&](int id) {
    for (int s = 1; s <= p.k; ++s) {
      HctNode kid(tree[static_cast<std::size_t>(id)].depth + 1,
                  part.child(tree[static_cast<std::size_t>(id)].index, s));
      kid.parent = id;
      tree.push_back(kid);
      tree[static_cast<std::size_t>(id)].kids.push_back(static_cast<int>(tree.size()) - 1);
    }
  };
  expand(0);  // τ_0 = 0: the root is expanded at once
  auto tau = [&](int h, double tplus) {
    if (h == 0) return 0.0;
    return std::ceil(p.c * p.c * std::log(1 / std::min(0.5, c1 * p.delta / tplus)) *
                     std::pow(p.rho, -2.0 * h) / (p.nu * p.nu));
  };
  auto u_of = [&](const HctNode& n, double tplus) {
    if (n.count == 0) return kInf;
    const double dt = std::min(1.0, c1 * p.delta / tplus);
    return n.mean + p.nu * std::pow(p.rho, n.depth) +
           std::sqrt(p.c * p.c * std::log(1 / dt) / static_cast<double>(n.count));
  };
  auto b_of = [&](const HctNode& n) {
    if (n.kids.empty()) return n.U;
    double mx = -kInf;
    for (int k : n.kids) mx = std::max(mx, tree[static_cast<std::size_t>(k)].B);
    return std::min(n.U, mx);
  };
  BaselineRun out;
  out.regret.reserve(static_cast<std::size_t>(T));
  Rng rng(seed, run, kCentralNoise);
  bool full_pass = false;  // set by a rebuild: the next update recomputes every B (as PyXAB)
  for (long long t = 1; t <= T; ++t) {
    const double tplus = std::exp2(std::ceil(std::log2(static_cast<double>(t))));
    int id = 0;
    while (static_cast<double>(tree[static_cast<std::size_t>(id)].count) >=
               tau(tree[static_cast<std::size_t>(id)].depth, tplus) &&
           !tree[static_cast<std::size_t>(id)].kids.empty()) {
      int best = -1;
      double bb = -kInf;
      for (int k : tree[static_cast<std::size_t>(id)].kids) {
        if (tree[static_cast<std::size_t>(k)].B >= bb) {  // ties → the last such child
          bb = tree[static_cast<std::size_t>(k)].B;
          best = k;
        }
      }
      id = best;
    }
    HctNode& cur = tree[static_cast<std::size_t>(id)];
    if (std::isnan(cur.f_obs)) {  // deterministic objectives: evaluate each centre once
      const std::vector<double> x = part.centre(cur.depth, cur.index);
      cur.f_obs = f.mean_local(run, M, x.data());
      cur.regret = f.fstar() - f.global(run, M, x.data());
    }
    const double y = cur.f_obs + noise * (2 * rng.uniform() - 1);
    out.regret.push_back(cur.regret);
    if (static_cast<double>(t) == tplus) {
      for (auto& n : tree) n.U = u_of(n, tplus);
      for (std::size_t q = tree.size(); q-- > 0;)
        tree[q].B = b_of(tree[q]);  // children after parents
    }
    HctNode& n = tree[static_cast<std::size_t>(id)];
    n.count += 1;
    n.mean += (y - n.mean) / static_cast<double>(n.count);
    n.U = u_of(n, tplus);
    if (full_pass) {  // a rebuild changed the tree: PyXAB's full bottom-up pass
      for (std::size_t q = tree.size(); q-- > 0;) tree[q].B = b_of(tree[q]);
      full_pass = false;
    } else {
      for (int a = id; a >= 0; a = tree[static_cast<std::size_t>(a)].parent) {
        tree[static_cast<std::size_t>(a)].B = b_of(tree[static_cast<std::size_t>(a)]);
      }
    }
    HctNode& e = tree[static_cast<std::size_t>(id)];
    if (static_cast<double>(e.count) >= tau(e.depth, tplus) && (e.kids.empty() || p.rebuild)) {
      if (!e.kids.empty()) {  // PyXAB 0.3.0: new children replace the old ones and their stats
        for (int k : e.kids) tree[static_cast<std::size_t>(k)].parent = -1;
        e.kids.clear();
        full_pass = true;
        ++out.rebuilds;
      }
      ++out.expansions;
      expand(id);
    }
  }
  return out;
}

std::vector<double> fed1_mesh(const Box& box, int K, std::uint64_t seed, std::uint32_t run) {
  GPB_EXPECTS(K >= 2, "mesh: must be >= 2, got " << K);
  const int D = box.dim();
  double total = 1;
  for (int a = 0; a < D; ++a) total *= K;
  GPB_EXPECTS(total <= 1e6, "mesh: K^D = " << total << " arms is too many (at most 1e6)");
  std::vector<std::vector<double>> axes(static_cast<std::size_t>(D));
  Rng rng(seed, run, kMeshStream);
  for (int a = 0; a < D; ++a) {
    const double lo = box.lo[a], hi = box.hi[a], w = hi - lo;
    auto& ax = axes[static_cast<std::size_t>(a)];
    ax.push_back(lo + w / K * rng.uniform());
    for (int j = 0; j < K - 1; ++j) {
      ax.push_back(K == 2 ? hi : lo + w / K + (hi - lo - w / K) * j / (K - 2));
    }
  }
  const auto N = static_cast<std::size_t>(total);
  std::vector<double> pts(N * static_cast<std::size_t>(D));
  for (std::size_t n = 0; n < N; ++n) {
    std::size_t r = n;
    for (int a = 0; a < D; ++a) {
      pts[n * static_cast<std::size_t>(D) + static_cast<std::size_t>(a)] =
          axes[static_cast<std::size_t>(a)][r % static_cast<std::size_t>(K)];
      r /= static_cast<std::size_t>(K);
    }
  }
  return pts;
}

BaselineRun run_fed1_ucb(const FedObjective& f, const Fed1UcbParams& p, int M, long long T,
                         double noise, std::uint64_t seed, std::uint32_t run) {
  const int D = f.box().dim();
  const std::vector<double> pts = fed1_mesh(f.box(), p.mesh, seed, run);
  const std::size_t N = pts.size() / static_cast<std::size_t>(D);
  const long long fp =
      std::max(1LL, static_cast<long long>(std::floor(p.kappa * std::log(static_cast<double>(T)))));
  std::vector<double> reg(N), local(N * static_cast<std::size_t>(M)),
      sums(N * static_cast<std::size_t>(M), 0.0);
  for (std::size_t a = 0; a < N; ++a) {
    const double* x = pts.data() + a * static_cast<std::size_t>(D);
    reg[a] = f.fstar() - f.global(run, M, x);
    for (int m = 0; m < M; ++m)
      local[a * static_cast<std::size_t>(M) + static_cast<std::size_t>(m)] = f.local(run, m, M, x);
  }
  std::vector<std::size_t> active(N);
  for (std::size_t a = 0; a < N; ++a) active[a] = a;
  BaselineRun out;
  long long n_per = 0;  // per-client pulls of every active arm
  std::vector<Rng> rngs;
  for (int m = 0; m < M; ++m)
    rngs.emplace_back(seed, run, kFed1Noise + static_cast<std::uint32_t>(m));
  const double sigma_f = 0.5;
  while (static_cast<long long>(out.regret.size()) < T) {
    if (active.size() == 1) {
      while (static_cast<long long>(out.regret.size()) < T) out.regret.push_back(reg[active[0]]);
      break;
    }
    bool truncated = false;
    for (std::size_t a : active) {
      for (long long s = 0; s < fp; ++s) {
        if (static_cast<long long>(out.regret.size()) >= T) {
          truncated = true;
          break;
        }
        out.regret.push_back(reg[a]);
        for (int m = 0; m < M; ++m) {
          sums[a * static_cast<std::size_t>(M) + static_cast<std::size_t>(m)] +=
              local[a * static_cast<std::size_t>(M) + static_cast<std::size_t>(m)] +
              noise * (2 * rngs[static_cast<std::size_t>(m)].uniform() - 1);
        }
      }
      if (truncated) break;
    }
    if (truncated) break;
    n_per += fp;
    ++out.rounds;
    std::vector<double> mu(active.size());
    double best = -kInf;
    for (std::size_t q = 0; q < active.size(); ++q) {
      double s = 0;
      for (int m = 0; m < M; ++m)
        s += sums[active[q] * static_cast<std::size_t>(M) + static_cast<std::size_t>(m)] /
             static_cast<double>(n_per);
      mu[q] = s / M;
      best = std::max(best, mu[q]);
    }
    const double conf = std::sqrt(4 * sigma_f * sigma_f * std::log(static_cast<double>(T)) /
                                  (static_cast<double>(M) * static_cast<double>(n_per)));
    std::vector<std::size_t> kept;
    for (std::size_t q = 0; q < active.size(); ++q) {
      if (!(mu[q] + conf < best - conf)) kept.push_back(active[q]);
    }
    active.swap(kept);
  }
  return out;
}

Domain gp_mesh_domain(const Box& box, const std::vector<double>& mesh) {
  const int D = box.dim();
  const int N = static_cast<int>(mesh.size() / static_cast<std::size_t>(D));
  Eigen::MatrixXd rows(N, D);
  for (int n = 0; n < N; ++n) {
    for (int a = 0; a < D; ++a) {
      rows(n, a) =
          (mesh[static_cast<std::size_t>(n) * D + a] - box.lo[a]) / (box.hi[a] - box.lo[a]);
    }
  }
  return Domain::from_rows(rows);
}

Domain gp_mesh_domain(const Box& box, const GpUcbParams& p, std::uint64_t seed, std::uint32_t run) {
  return gp_mesh_domain(box, fed1_mesh(box, p.mesh, seed, run));
}

BaselineRun run_gp_ucb_mesh(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                            double noise, std::uint64_t seed, std::uint32_t run,
                            const Communicator& comm) {
  const std::vector<double> pts = fed1_mesh(f.box(), p.mesh, seed, run);
  ContextOptions co;
  co.backend = Backend::Cpu;
  co.threads = 1;
  co.communicator = comm;
  const Context ctx(co);
  const Kernel kern =
      p.se ? Kernel::se(p.lengthscale) : Kernel::matern(KernelType::Matern12, p.lengthscale);
  PosteriorOptions po;
  po.noise_variance = p.noise_variance;
  po.capacity = static_cast<int>(std::min<long long>(T, 1 << 20));
  const Domain dom = gp_mesh_domain(f.box(), pts);
  FinitePosterior post(ctx, kern, dom, 1, po);
  Rng draws(seed, run, kCentralDraws);  // the same draws on every rank of a sharded run
  const auto thompson = [&] {
    const double* mu = post.mean(0);
    const double* var = post.variance(0);
    int best = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (int a = 0; a < post.size(); ++a) {
      const double v = mu[a] + p.nu * std::sqrt(std::max(var[a], 0.0)) * draws.normal();
      if (v > top) top = v, best = a;
    }
    return best;
  };
  return detail::gp_ucb_mesh_loop(
      f, pts, p, M, T, noise, seed, run,
      [&](double w) {
        return p.thompson ? thompson() : post.ucb_argmax(&w, nullptr, nullptr)[0].index;
      },
      [&](int a, double y) { post.observe(&a, &y); });
}

namespace mpi {
BaselineRun run_gp_ucb_mesh_sharded(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                                    double noise, std::uint64_t seed, std::uint32_t run) {
  return run_gp_ucb_mesh(f, p, M, T, noise, seed, run, Communicator::world());
}
}  // namespace mpi

BaselineRun run_random(const FedObjective& f, int M, long long T, std::uint64_t seed,
                       std::uint32_t run) {
  const Box& box = f.box();
  const int D = box.dim();
  Rng rng(seed, run, kRandomStream);
  BaselineRun out;
  std::vector<double> x(static_cast<std::size_t>(D));
  for (long long t = 0; t < T; ++t) {
    double s = 0;
    for (int m = 0; m < M; ++m) {
      for (int a = 0; a < D; ++a)
        x[static_cast<std::size_t>(a)] = rng.uniform(box.lo[a], box.hi[a]);
      s += f.fstar() - f.global(run, M, x.data());
    }
    out.regret.push_back(s / M);
  }
  return out;
}

}  // namespace gpb::xarmed
