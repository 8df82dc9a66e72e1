// FinitePosterior's CPU arithmetic with the candidates split across MPI ranks.
#include "gpbandit/mpi/sharded_posterior.hpp"

#include <mpi.h>

#include <cmath>

#include "cpu/posterior_rows.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::mpi {

struct ShardedPosterior::Impl {
  Impl(const Kernel& k, const Domain& dom, double lam)
      : kernel(k), eval(kernel), points(dom.points()), d(dom.dim()), n(dom.size()), lambda(lam) {
    const xarmed::mpi::World w = xarmed::mpi::init();
    rank = w.rank;
    ranks = w.size;
    GPB_EXPECTS(lam > 0 && std::isfinite(lam), "sharded posterior: noise variance must be > 0");
    GPB_EXPECTS(n >= ranks, "sharded posterior: N = " << n << " < " << ranks << " ranks");
    lo = static_cast<int>(static_cast<long long>(n) * rank / ranks);
    hi = static_cast<int>(static_cast<long long>(n) * (rank + 1) / ranks);
    const int len = hi - lo;
    mu.assign(static_cast<std::size_t>(len), 0.0);
    s2.resize(static_cast<std::size_t>(len));
    for (int i = 0; i < len; ++i) {
      const double* x = points.data() + static_cast<long>(lo + i) * d;
      s2[static_cast<std::size_t>(i)] = eval(x, x, d);
    }
  }
  int owner(int a) const {
    for (int q = 0; q < ranks; ++q) {
      if (a < static_cast<int>(static_cast<long long>(n) * (q + 1) / ranks)) return q;
    }
    return ranks - 1;
  }
  std::vector<double> gather(const std::vector<double>& part) const {
    std::vector<int> counts(static_cast<std::size_t>(ranks)),
        displs(static_cast<std::size_t>(ranks));
    for (int q = 0; q < ranks; ++q) {
      const int a = static_cast<int>(static_cast<long long>(n) * q / ranks);
      const int b = static_cast<int>(static_cast<long long>(n) * (q + 1) / ranks);
      counts[static_cast<std::size_t>(q)] = b - a;
      displs[static_cast<std::size_t>(q)] = a;
    }
    std::vector<double> all(static_cast<std::size_t>(n));
    MPI_Allgatherv(part.data(), hi - lo, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    return all;
  }

  Kernel kernel;
  detail::KernelEval eval;
  Eigen::MatrixXd points;
  int d, n;
  double lambda;
  int rank = 0, ranks = 1, lo = 0, hi = 0;
  detail::RunRows run;
  std::vector<std::vector<double>> V;  // V[q] = v_q over the slice
  std::vector<double> mu, s2;
};

ShardedPosterior::ShardedPosterior(const Kernel& kernel, const Domain& domain, double lambda)
    : impl_(std::make_unique<Impl>(kernel, domain, lambda)) {}
ShardedPosterior::~ShardedPosterior() = default;
ShardedPosterior::ShardedPosterior(ShardedPosterior&&) noexcept = default;

void ShardedPosterior::observe(int a, double y) {
  Impl& s = *impl_;
  GPB_EXPECTS(a >= 0 && a < s.n, "sharded posterior: candidate " << a << " out of range");
  GPB_EXPECTS(std::isfinite(y), "sharded posterior: reward must be finite");
  const int t = static_cast<int>(s.V.size());
  // The owner sends L[t, 0..t−1] = v_p[a] and σ²_{t−1}[a].
  std::vector<double> row(static_cast<std::size_t>(t) + 1);
  const int own = s.owner(a);
  if (s.rank == own) {
    for (int p = 0; p < t; ++p)
      row[static_cast<std::size_t>(p)] =
          s.V[static_cast<std::size_t>(p)][static_cast<std::size_t>(a - s.lo)];
    row[static_cast<std::size_t>(t)] = s.s2[static_cast<std::size_t>(a - s.lo)];
  }
  MPI_Bcast(row.data(), t + 1, MPI_DOUBLE, own, MPI_COMM_WORLD);
  const double var = row[static_cast<std::size_t>(t)];
  row[static_cast<std::size_t>(t)] = std::sqrt(s.lambda + var);
  s.run.history.push_back(a);
  s.run.L.push_back(row);
  s.run.pivot_var.push_back(var);
  s.run.alpha.push_back(0.0);
  s.run.resolved.push_back(0);
  const double m = detail::mean_at_row(s.run, t);
  s.run.alpha[static_cast<std::size_t>(t)] = (y - m) / row[static_cast<std::size_t>(t)];
  s.run.resolved[static_cast<std::size_t>(t)] = 1;
  // v_t over the slice, then σ² and μ — the same per-element steps as FinitePosterior.
  const int len = s.hi - s.lo;
  s.V.emplace_back(static_cast<std::size_t>(len));
  std::vector<double*> ptrs(static_cast<std::size_t>(t) + 1);
  for (int q = 0; q <= t; ++q)
    ptrs[static_cast<std::size_t>(q)] = s.V[static_cast<std::size_t>(q)].data();
  std::vector<double> acc(static_cast<std::size_t>(len));
  detail::rows_over_block(s.eval, s.points.data(), s.d, s.run, t, t + 1, s.lo, len, ptrs.data(),
                          acc.data());
  const double alpha = s.run.alpha[static_cast<std::size_t>(t)];
  const std::vector<double>& vt = s.V.back();
  for (int i = 0; i < len; ++i) {
    s.s2[static_cast<std::size_t>(i)] =
        detail::var_step(s.s2[static_cast<std::size_t>(i)], vt[static_cast<std::size_t>(i)]);
    s.mu[static_cast<std::size_t>(i)] = detail::mean_step(s.mu[static_cast<std::size_t>(i)], alpha,
                                                          vt[static_cast<std::size_t>(i)]);
  }
}

UcbChoice ShardedPosterior::ucb_argmax(double width) const {
  const Impl& s = *impl_;
  struct {
    double score;
    int index;
  } local{-INFINITY, s.lo}, global{};
  for (int i = 0; i < s.hi - s.lo; ++i) {
    const double sc = detail::ucb_score(s.mu[static_cast<std::size_t>(i)],
                                        s.s2[static_cast<std::size_t>(i)], width);
    GPB_EXPECTS(!std::isnan(sc), "sharded posterior: NaN UCB score");
    if (sc > local.score) {
      local.score = sc;
      local.index = s.lo + i;
    }
  }
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  UcbChoice c;
  c.index = global.index;
  c.score = global.score;
  return c;
}

std::vector<double> ShardedPosterior::gather_mean() const {
  return impl_->gather(impl_->mu);
}
std::vector<double> ShardedPosterior::gather_variance() const {
  return impl_->gather(impl_->s2);
}
std::pair<int, int> ShardedPosterior::slice() const {
  return {impl_->lo, impl_->hi};
}
int ShardedPosterior::size() const {
  return impl_->n;
}

}  // namespace gpb::mpi
