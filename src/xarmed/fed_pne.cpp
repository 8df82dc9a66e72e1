// Fed-PNE server, client and the lockstep driver shared by both runtimes.
#include "gpbandit/xarmed/fed_pne.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpbandit/error.hpp"
#include "gpbandit/privacy/gdp.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::xarmed {

void FedPneParams::validate(const std::string& w) const {
  GPB_EXPECTS(k >= 2 && k <= 16, w << ".k: must lie in [2, 16], got " << k);
  GPB_EXPECTS(std::isfinite(nu) && nu > 0, w << ".nu: must be > 0, got " << nu);
  GPB_EXPECTS(std::isfinite(rho) && rho > 0 && rho < 1,
              w << ".rho: must lie in (0, 1), got " << rho);
  GPB_EXPECTS(std::isfinite(c) && c > 0, w << ".c: must be > 0, got " << c);
  GPB_EXPECTS(std::isfinite(c1) && c1 > 0, w << ".c1: must be > 0, got " << c1);
  GPB_EXPECTS(delta_conf == 0 || (delta_conf > 0 && delta_conf < 1),
              w << ".delta_conf: must lie in (0, 1), got " << delta_conf);
  GPB_EXPECTS(depth_offset == 0 || depth_offset == 1,
              w << ".depth_offset: must be 0 or 1, got " << depth_offset);
  GPB_EXPECTS(std::isfinite(noise) && noise >= 0, w << ".noise: must be >= 0, got " << noise);
  if (dp) {
    GPB_EXPECTS(std::isfinite(dp_epsilon) && dp_epsilon > 0,
                w << ".dp_epsilon: must be > 0, got " << dp_epsilon);
    GPB_EXPECTS(dp_delta > 0 && dp_delta < 1,
                w << ".dp_delta: must lie in (0, 1), got " << dp_delta);
    GPB_EXPECTS(std::isfinite(dp_scale) && std::isfinite(dp_shift),
                w << ".dp_affine: must be finite");
  }
}

namespace {
std::uint64_t pull_counter(std::uint32_t phase, std::uint64_t n, std::uint64_t s) {
  return (static_cast<std::uint64_t>(phase) << 56) | (n << 32) | s;
}
}  // namespace

std::vector<double> fed_pne_pull_point(const Partition& part, int depth, std::uint64_t node,
                                       std::uint64_t seed, std::uint32_t run, int m,
                                       std::uint32_t phase, std::uint64_t n, std::uint64_t s) {
  const Box cell = part.cell(depth, node);
  Rng rng(seed, run, 0x7400000u + static_cast<std::uint32_t>(m), pull_counter(phase, n, s));
  std::vector<double> x(cell.lo.size());
  for (std::size_t a = 0; a < x.size(); ++a) x[a] = rng.uniform(cell.lo[a], cell.hi[a]);
  return x;
}

double dp_sigma(double epsilon, double delta) {
  return std::sqrt(2 * std::log(1.25 / delta)) / epsilon;
}

double dp_fed_pne_release(double reward, const FedPneParams& p, double sigma,
                          privacy::NoiseSource& source) {
  return std::clamp(p.dp_scale * reward + p.dp_shift, 0.0, 1.0) +
         privacy::gaussian_noise(sigma, source);
}

double fed_pne_tau(double c, double c1, double nu, double rho, double delta, int M, long long T,
                   int h) {
  (void)M;
  const double v =
      c * c * std::log(c1 * static_cast<double>(T) / delta) / (nu * nu) * std::pow(rho, -2.0 * h);
  return std::ceil(v);
}

// ------------------------------------------------------------------ server

FedPneServer::FedPneServer(const FedPneParams& p, int M, long long T) : p_(p), M_(M), T_(T) {
  GPB_EXPECTS(M >= 1, "clients: must be >= 1, got " << M);
  GPB_EXPECTS(T >= 1, "horizon: must be >= 1, got " << T);
  p_.validate("fed-pne");
  delta_ = p.delta_conf > 0 ? p.delta_conf : 1.0 / M;
  c_eff_ = p.c;
  if (p.dp) {
    const double s = dp_sigma(p.dp_epsilon, p.dp_delta);
    c_eff_ = p.c * std::sqrt(1 + 4 * s * s);
  }
}

double FedPneServer::tau(int h) const {
  return fed_pne_tau(c_eff_, p_.c1, p_.nu, p_.rho, delta_, M_, T_, h + p_.depth_offset);
}

const PhaseRequest& FedPneServer::next() {
  GPB_EXPECTS(!done(), "fed-pne server: next() after the horizon");
  // Line 4: expand while |K|·τ ≤ M or τ ≤ 1.
  while (static_cast<double>(frontier_.size()) * tau(depth_) <= M_ || tau(depth_) <= 1) {
    std::vector<std::uint64_t> kids;
    kids.reserve(frontier_.size() * static_cast<std::size_t>(p_.k));
    for (std::uint64_t i : frontier_) {
      for (int s = 1; s <= p_.k; ++s)
        kids.push_back(static_cast<std::uint64_t>(p_.k) * (i - 1) + s);
    }
    frontier_.swap(kids);
    ++depth_;
    GPB_EXPECTS(depth_ < 60, "fed-pne: depth limit reached");
  }
  const double tau_h = tau(depth_);
  const auto t_m = static_cast<std::uint64_t>(std::ceil(tau_h / M_));
  cur_ = PhaseRequest{};
  cur_.phase = static_cast<std::uint32_t>(phases_.size() + 1);
  cur_.depth = static_cast<std::uint32_t>(depth_);
  cur_.t_m = t_m;
  cur_.rounds_left = static_cast<std::uint64_t>(T_ - t_);
  cur_.nodes = frontier_;
  const double len = static_cast<double>(frontier_.size()) * static_cast<double>(t_m);
  cur_.truncated = static_cast<double>(t_) + len > static_cast<double>(T_);
  width_ = c_eff_ * std::sqrt(std::log(p_.c1 * static_cast<double>(T_) / delta_) /
                              (static_cast<double>(M_) * static_cast<double>(t_m)));
  return cur_;
}

void FedPneServer::complete(const std::vector<double>& means) {
  PhaseRecord rec;
  rec.phase = cur_.phase;
  rec.depth = cur_.depth;
  rec.nodes = cur_.nodes.size();
  rec.t_m = cur_.t_m;
  rec.truncated = cur_.truncated;
  const std::uint64_t K = cur_.nodes.size();
  rec.bytes_down = static_cast<std::uint64_t>(M_) * (32 + 8 * K);
  if (cur_.truncated) {
    rec.rounds = cur_.rounds_left;
    rec.survivors = 0;
    t_ = T_;
    phases_.push_back(rec);
    return;
  }
  GPB_EXPECTS(means.size() == static_cast<std::size_t>(M_) * K,
              "fed-pne server: expected " << M_ * K << " means, got " << means.size());
  rec.bytes_up = static_cast<std::uint64_t>(M_) * 8 * K;
  rec.rounds = K * cur_.t_m;
  std::vector<double> mu(K, 0.0);
  for (std::uint64_t n = 0; n < K; ++n) {
    double s = 0;
    for (int m = 0; m < M_; ++m) s += means[static_cast<std::size_t>(m) * K + n];
    mu[n] = s / M_;
  }
  std::size_t best = 0;
  for (std::size_t n = 1; n < K; ++n) {
    if (mu[n] > mu[best]) best = n;
  }
  const double b = width_;
  const double slack = p_.nu * std::pow(p_.rho, static_cast<double>(depth_));
  std::vector<std::uint64_t> kept;
  for (std::size_t n = 0; n < K; ++n) {
    if (!(mu[n] + b + slack < mu[best] - b)) kept.push_back(cur_.nodes[n]);
  }
  rec.survivors = kept.size();
  std::vector<std::uint64_t> kids;
  for (std::uint64_t i : kept) {
    for (int s = 1; s <= p_.k; ++s) kids.push_back(static_cast<std::uint64_t>(p_.k) * (i - 1) + s);
  }
  frontier_.swap(kids);
  ++depth_;
  t_ += static_cast<long long>(rec.rounds);
  ++rounds_;
  info_ += static_cast<long long>(K);
  phases_.push_back(rec);
}

// ------------------------------------------------------------------ client

std::unique_ptr<privacy::NoiseSource> make_client_privacy(const FedPneParams& p, std::uint64_t seed,
                                                          std::uint32_t run, int m) {
  if (!p.dp) return nullptr;
  if (p.privacy_seeded) {
    return privacy::make_seeded_source(seed, run, 0xd90000u + static_cast<std::uint32_t>(m));
  }
  return privacy::make_secure_source();
}

FedPneClient::FedPneClient(const FedPneParams& p, std::shared_ptr<const FedObjective> f,
                           std::shared_ptr<const Partition> part, std::uint64_t seed,
                           std::uint32_t run, int m, int M,
                           std::unique_ptr<privacy::NoiseSource> privacy)
    : p_(p),
      f_(std::move(f)),
      part_(std::move(part)),
      seed_(seed),
      run_(run),
      m_(m),
      M_(M),
      privacy_(std::move(privacy)) {
  if (p_.dp) {
    GPB_EXPECTS(privacy_ != nullptr, "fed-pne client: DP needs a privacy noise source");
    sigma_dp_ = dp_sigma(p_.dp_epsilon, p_.dp_delta);
  }
}

std::vector<double> FedPneClient::play(const PhaseRequest& req) {
  if (req.truncated) return {};
  const std::size_t K = req.nodes.size();
  GPB_EXPECTS(req.phase < 256 && K < (1u << 24) && req.t_m < (std::uint64_t{1} << 32),
              "fed-pne client: phase too large for the noise counter");
  std::vector<double> out(K);
  const std::uint32_t stream = 0x7000000u + static_cast<std::uint32_t>(m_);
  for (std::size_t n = 0; n < K; ++n) {
    const int h = static_cast<int>(req.depth);
    const std::vector<double> x = part_->centre(h, req.nodes[n]);
    const double fx = f_->local(run_, m_, M_, x.data());  // deterministic: evaluate once
    const std::uint64_t base = pull_counter(req.phase, n, 0);
    double sum = 0;
    for (std::uint64_t s = 0; s < req.t_m; ++s) {
      double r = fx;
      if (p_.uniform_point) {
        const std::vector<double> u =
            fed_pne_pull_point(*part_, h, req.nodes[n], p_.pull_seed, run_, m_, req.phase, n, s);
        r = f_->local(run_, m_, M_, u.data());
      }
      if (p_.noise > 0) {
        const double u = detail::u64_to_open01(detail::philox_u64(seed_, run_, stream, base + s));
        r += p_.noise * (2 * u - 1);
      }
      if (p_.dp) r = dp_fed_pne_release(r, p_, sigma_dp_, *privacy_);
      sum += r;
    }
    out[n] = sum / static_cast<double>(req.t_m);
  }
  return out;
}

// ------------------------------------------------------------------ in-process pool

InProcessPool::InProcessPool(const FedPneParams& p, std::shared_ptr<const FedObjective> f, int M,
                             std::uint64_t seed, const std::vector<std::uint32_t>& runs,
                             int threads)
    : M_(M), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  auto part = std::make_shared<const Partition>(f->box(), p.k, p.partition_seed);
  for (std::uint32_t r : runs) {
    for (int m = 0; m < M; ++m) {
      clients_.push_back(std::make_unique<FedPneClient>(p, f, part, seed, r, m, M,
                                                        make_client_privacy(p, seed, r, m)));
    }
  }
}

std::string InProcessPool::privacy_description() const {
  if (clients_.empty() || clients_[0]->privacy() == nullptr) return "none";
  return clients_[0]->privacy()->describe();
}

void InProcessPool::exchange(const std::vector<const PhaseRequest*>& reqs,
                             std::vector<std::vector<double>>& means) {
  const long long R = static_cast<long long>(reqs.size());
  means.assign(reqs.size(), {});
  for (std::size_t j = 0; j < reqs.size(); ++j) {
    if (reqs[j] && !reqs[j]->truncated)
      means[j].resize(static_cast<std::size_t>(M_) * reqs[j]->nodes.size());
  }
  // One batched call: every (run, client) of the phase in parallel.
#pragma omp parallel for schedule(dynamic) num_threads(threads_)
  for (long long jm = 0; jm < R * M_; ++jm) {
    const std::size_t j = static_cast<std::size_t>(jm / M_);
    const int m = static_cast<int>(jm % M_);
    const PhaseRequest* q = reqs[j];
    if (!q || q->truncated) continue;
    const std::vector<double> mu =
        clients_[j * static_cast<std::size_t>(M_) + static_cast<std::size_t>(m)]->play(*q);
    std::copy(mu.begin(), mu.end(), means[j].begin() + static_cast<std::ptrdiff_t>(m * mu.size()));
  }
}

// ------------------------------------------------------------------ driver

namespace {
/// Appends the per-client regret of one phase's rounds (cut at rounds_left) in the phase's pull
/// order: node-major (t_m rounds per node) or round-robin (round r plays node r mod K).
void phase_regret(const FedPneParams& p, const FedObjective& f, const Partition& part, int M,
                  std::uint32_t run, const PhaseRequest& q, std::vector<double>& out) {
  const int h = static_cast<int>(q.depth);
  const std::uint64_t K = q.nodes.size();
  std::vector<double> centre_regret(K);
  for (std::uint64_t n = 0; n < K; ++n) {
    const std::vector<double> x = part.centre(h, q.nodes[n]);
    centre_regret[n] = f.fstar() - f.global(run, M, x.data());
  }
  const std::uint64_t len = std::min<std::uint64_t>(K * q.t_m, q.rounds_left);
  for (std::uint64_t r = 0; r < len; ++r) {
    const std::uint64_t n = p.round_robin ? r % K : r / q.t_m;
    const std::uint64_t s = p.round_robin ? r / K : r % q.t_m;
    if (!p.uniform_point) {
      out.push_back(centre_regret[n]);
      continue;
    }
    double sum = 0;
    for (int m = 0; m < M; ++m) {
      const std::vector<double> x =
          fed_pne_pull_point(part, h, q.nodes[n], p.pull_seed, run, m, q.phase, n, s);
      sum += f.fstar() - f.global(run, M, x.data());
    }
    out.push_back(sum / M);
  }
}
}  // namespace

std::vector<FedPneRun> run_fed_pne(const FedPneParams& p, const FedObjective& f, int M, long long T,
                                   const std::vector<std::uint32_t>& runs, ClientPool& pool) {
  const Partition part(f.box(), p.k, p.partition_seed);
  std::vector<FedPneServer> servers;
  std::vector<FedPneRun> out(runs.size());
  for (std::size_t j = 0; j < runs.size(); ++j) {
    servers.emplace_back(p, M, T);
    out[j].run = runs[j];
    out[j].regret.reserve(static_cast<std::size_t>(T));
  }
  std::vector<const PhaseRequest*> reqs(runs.size());
  std::vector<std::vector<double>> means;
  for (;;) {
    bool any = false;
    for (std::size_t j = 0; j < runs.size(); ++j) {
      reqs[j] = servers[j].done() ? nullptr : &servers[j].next();
      any = any || reqs[j] != nullptr;
    }
    if (!any) break;
    pool.exchange(reqs, means);
    for (std::size_t j = 0; j < runs.size(); ++j) {
      const PhaseRequest* q = reqs[j];
      if (!q) continue;
      phase_regret(p, f, part, M, runs[j], *q, out[j].regret);
      servers[j].complete(means[j]);
    }
  }
  for (std::size_t j = 0; j < runs.size(); ++j) {
    out[j].phases = servers[j].phases();
    out[j].rounds = servers[j].rounds();
    out[j].broadcasts = servers[j].broadcasts();
    out[j].info_per_client = servers[j].info_per_client();
    for (const PhaseRecord& r : out[j].phases) {
      out[j].bytes_down += r.bytes_down;
      out[j].bytes_up += r.bytes_up;
    }
  }
  return out;
}

}  // namespace gpb::xarmed
