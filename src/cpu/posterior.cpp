// FinitePosterior: exact GP posterior over a finite domain for R runs, incremental (V kept) or
// recompute-and-stream (only L and α kept). See include/gpbandit/posterior.hpp.
#include "gpbandit/posterior.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "cpu/ops_cpu.hpp"
#include "cpu/posterior_rows.hpp"
#include "detail/context_backend.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {
/// Candidates per block in the incremental row update (the acc buffer lives on the stack).
constexpr int kBlock = 512;
}  // namespace

struct FinitePosterior::Impl {
  Impl(const Context& ctx, const Kernel& k, const Domain& domain, int r,
       const PosteriorOptions& options)
      : kernel(k),
        eval(kernel),
        points(domain.points()),
        d(domain.dim()),
        n(domain.size()),
        runs(static_cast<std::size_t>(r)),
        lambda(options.noise_variance),
        chunk(options.chunk),
        threads(ctx.threads()) {}

  Kernel kernel;
  detail::KernelEval eval;  // reads kernel's shared matrix, which never moves
  Eigen::MatrixXd points;
  int d = 0;
  int n = 0;
  std::vector<detail::RunRows> runs;
  double lambda = 0;
  int chunk = 0;
  int threads = 1;
  bool recompute = false;
  Eigen::VectorXd kdiag;
  int rows = 0;
  int pending = 0;
  int cap = 0;                     // rows V has room for (incremental)
  std::unique_ptr<double[]> v;     // R×cap×N, run-major (run, row, candidate); incremental only
  mutable std::vector<double> mu;  // R×N
  mutable std::vector<double> sigma2;  // R×N
  mutable bool stale = false;          // recompute mode: μ, σ² out of date

  int num_runs() const { return static_cast<int>(runs.size()); }
  /// Threads worth starting for about `flops` operations (small updates run serially: waking a
  /// team costs more than it saves, especially on a loaded machine).
  int threads_for(double flops) const {
    const double per_thread = 1 << 17;
    return static_cast<int>(std::max(1.0, std::min<double>(threads, flops / per_thread)));
  }
  double* vrow(int r, int q) const {
    return v.get() + (static_cast<std::size_t>(r) * cap + q) * static_cast<std::size_t>(n);
  }
  double* mu_of(int r) const { return mu.data() + static_cast<std::size_t>(r) * n; }
  double* s2_of(int r) const { return sigma2.data() + static_cast<std::size_t>(r) * n; }

  void check_indices(const int* index, const char* what) const {
    GPB_EXPECTS(index != nullptr, what << ": index array is null");
    for (int r = 0; r < num_runs(); ++r) {
      GPB_EXPECTS(index[r] >= 0 && index[r] < n, what << ": index[" << r << "] = " << index[r]
                                                      << " is out of range [0, " << n << ")");
    }
  }
  static void check_rewards(const double* y, int count, const char* what) {
    GPB_EXPECTS(y != nullptr || count == 0, what << ": reward array is null");
    for (int i = 0; i < count; ++i) {
      GPB_EXPECTS(std::isfinite(y[i]), what << ": y[" << i << "] = " << y[i] << " is not finite");
    }
  }

  void grow() {
    const int new_cap = std::max(2 * cap, 1);
    std::unique_ptr<double[]> grown(
        new double[static_cast<std::size_t>(num_runs()) * new_cap * static_cast<std::size_t>(n)]);
    const int old_cap = cap;
    for (int r = 0; r < num_runs(); ++r) {
      const double* src = v.get() + static_cast<std::size_t>(r) * old_cap * n;
      std::copy(src, src + static_cast<std::size_t>(rows) * n,
                grown.get() + static_cast<std::size_t>(r) * new_cap * n);
    }
    v.swap(grown);
    cap = new_cap;
  }

  /// Appends row t = rows for run r at candidate a: L[t, 0..t], the pivot variance and, when
  /// observed, α_t.
  void append_factor_row(int r, int a, const double* y) {
    detail::RunRows& run = runs[static_cast<std::size_t>(r)];
    const int t = rows;
    std::vector<double> row(static_cast<std::size_t>(t) + 1);
    double s = 0;
    run.history.push_back(a);
    if (recompute) {  // the row recurrence restricted to column a (reads history[p], p < t)
      detail::column_of_rows(eval, points.data(), d, run, t, a, row.data());
      s = kdiag[a];
      for (int p = 0; p < t; ++p) s = detail::var_step(s, row[static_cast<std::size_t>(p)]);
    } else {  // the same values, already stored: L[t,p] = v_p[a], σ²_{t−1}[a]
      for (int p = 0; p < t; ++p) row[static_cast<std::size_t>(p)] = vrow(r, p)[a];
      s = s2_of(r)[a];
    }
    row[static_cast<std::size_t>(t)] = std::sqrt(lambda + s);
    run.L.push_back(std::move(row));
    run.pivot_var.push_back(s);
    run.alpha.push_back(0.0);
    run.resolved.push_back(0);
    if (y != nullptr) resolve_row(run, t, y[r]);
  }

  static void resolve_row(detail::RunRows& run, int q, double y) {
    const double m = detail::mean_at_row(run, q);
    run.alpha[static_cast<std::size_t>(q)] = (y - m) / run.L[static_cast<std::size_t>(q)][q];
    run.resolved[static_cast<std::size_t>(q)] = 1;
  }

  /// Incremental mode: computes v_t for every run and applies σ² (and μ when observed).
  void update_new_row(bool observed) {
    const int t = rows;
    const int blocks = (n + kBlock - 1) / kBlock;
    const int tasks = num_runs() * blocks;
    const int nt = threads_for(static_cast<double>(tasks) * kBlock * (t + 8));
#pragma omp parallel num_threads(nt)
    {
      std::vector<double*> ptrs(static_cast<std::size_t>(t) + 1);
      double acc[kBlock];
#pragma omp for schedule(static)
      for (int task = 0; task < tasks; ++task) {
        const int r = task / blocks, j0 = (task % blocks) * kBlock;
        const int len = std::min(kBlock, n - j0);
        const detail::RunRows& run = runs[static_cast<std::size_t>(r)];
        for (int p = 0; p <= t; ++p) ptrs[static_cast<std::size_t>(p)] = vrow(r, p) + j0;
        detail::rows_over_block(eval, points.data(), d, run, t, t + 1, j0, len, ptrs.data(), acc);
        const double* vt = ptrs[static_cast<std::size_t>(t)];
        double* s2 = s2_of(r) + j0;
        for (int i = 0; i < len; ++i) s2[i] = detail::var_step(s2[i], vt[i]);
        if (observed) {
          const double alpha = run.alpha[static_cast<std::size_t>(t)];
          double* m = mu_of(r) + j0;
          for (int i = 0; i < len; ++i) m[i] = detail::mean_step(m[i], alpha, vt[i]);
        }
      }
    }
  }

  /// Incremental mode: adds α_q v_q to μ for the rows [begin, end), in row order.
  void add_rows_to_mean(int begin, int end) {
    const int blocks = (n + kBlock - 1) / kBlock;
    const int tasks = num_runs() * blocks;
    const int nt = threads_for(static_cast<double>(tasks) * kBlock * (end - begin));
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int task = 0; task < tasks; ++task) {
      const int r = task / blocks, j0 = (task % blocks) * kBlock;
      const int len = std::min(kBlock, n - j0);
      const detail::RunRows& run = runs[static_cast<std::size_t>(r)];
      double* m = mu_of(r) + j0;
      for (int q = begin; q < end; ++q) {
        const double alpha = run.alpha[static_cast<std::size_t>(q)];
        const double* vq = vrow(r, q) + j0;
        for (int i = 0; i < len; ++i) m[i] = detail::mean_step(m[i], alpha, vq[i]);
      }
    }
  }

  /// Recompute mode: rebuilds μ and σ² over the domain chunk by chunk (no V kept).
  void refresh() const {
    if (!stale) return;
    const int t = rows;
    const int chunks = (n + chunk - 1) / chunk;
    const int tasks = num_runs() * chunks;
    const double flops = static_cast<double>(num_runs()) * n * (0.5 * t * t + 8.0 * t + 1.0);
#pragma omp parallel num_threads(std::min(threads_for(flops), tasks))
    {
      std::vector<double> w(static_cast<std::size_t>(std::max(t, 1)) * chunk);
      std::vector<double> acc(static_cast<std::size_t>(chunk));
      std::vector<double*> ptrs(static_cast<std::size_t>(t));
#pragma omp for schedule(dynamic)
      for (int task = 0; task < tasks; ++task) {
        const int r = task / chunks, j0 = (task % chunks) * chunk;
        const int len = std::min(chunk, n - j0);
        const detail::RunRows& run = runs[static_cast<std::size_t>(r)];
        for (int q = 0; q < t; ++q)
          ptrs[static_cast<std::size_t>(q)] = w.data() + static_cast<std::size_t>(q) * len;
        detail::rows_over_block(eval, points.data(), d, run, 0, t, j0, len, ptrs.data(),
                                acc.data());
        double* s2 = s2_of(r) + j0;
        double* m = mu_of(r) + j0;
        for (int i = 0; i < len; ++i) {
          s2[i] = kdiag[j0 + i];
          m[i] = 0.0;
        }
        for (int q = 0; q < t; ++q) {
          const double* vq = ptrs[static_cast<std::size_t>(q)];
          for (int i = 0; i < len; ++i) s2[i] = detail::var_step(s2[i], vq[i]);
          if (run.resolved[static_cast<std::size_t>(q)] == 0) continue;
          const double alpha = run.alpha[static_cast<std::size_t>(q)];
          for (int i = 0; i < len; ++i) m[i] = detail::mean_step(m[i], alpha, vq[i]);
        }
      }
    }
    stale = false;
  }

  /// Appends one row per run (observed when y is non-null, pending otherwise).
  void append(const int* index, const double* y) {
    if (!recompute && rows == cap) grow();
    const int nt = recompute ? threads_for(0.5 * rows * rows * num_runs()) : 1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int r = 0; r < num_runs(); ++r) append_factor_row(r, index[r], y);
    if (recompute) {
      stale = true;
    } else {
      update_new_row(y != nullptr);
    }
    ++rows;
  }
};

FinitePosterior::FinitePosterior(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                 int runs, const PosteriorOptions& options) {
  if (ctx.backend() == Backend::Cuda) detail::throw_cuda_op_unimplemented("FinitePosterior");
  GPB_EXPECTS(runs >= 1, "posterior: runs must be >= 1, got " << runs);
  GPB_EXPECTS(domain.size() >= 1, "posterior: the domain has no candidates");
  GPB_EXPECTS(std::isfinite(options.noise_variance) && options.noise_variance > 0,
              "posterior.noise_variance must be > 0 and finite, got " << options.noise_variance);
  GPB_EXPECTS(options.capacity >= 1, "posterior.capacity must be >= 1, got " << options.capacity);
  GPB_EXPECTS(options.chunk >= 1, "posterior.chunk must be >= 1, got " << options.chunk);
  detail::check_kernel_points(kernel, domain.points(), "posterior: domain points");
  impl_ = std::make_unique<Impl>(ctx, kernel, domain, runs, options);
  Impl& s = *impl_;
  const double bytes = incremental_bytes(runs, s.n, options.capacity);
  s.recompute = options.mode == PosteriorMode::Recompute ||
                (options.mode == PosteriorMode::Auto &&
                 bytes > static_cast<double>(ctx.memory_budget_bytes()));
  s.kdiag = detail::kernel_diag_cpu(s.kernel, s.points, s.threads);
  const std::size_t total = static_cast<std::size_t>(runs) * static_cast<std::size_t>(s.n);
  s.mu.assign(total, 0.0);
  s.sigma2.resize(total);
  for (int r = 0; r < runs; ++r) std::copy(s.kdiag.data(), s.kdiag.data() + s.n, s.s2_of(r));
  if (!s.recompute) {
    s.cap = options.capacity;
    s.v.reset(new double[static_cast<std::size_t>(s.cap) * total]);
  }
}

FinitePosterior::~FinitePosterior() = default;
FinitePosterior::FinitePosterior(FinitePosterior&&) noexcept = default;
FinitePosterior& FinitePosterior::operator=(FinitePosterior&&) noexcept = default;

int FinitePosterior::runs() const {
  return impl_->num_runs();
}
int FinitePosterior::size() const {
  return impl_->n;
}
int FinitePosterior::rows() const {
  return impl_->rows;
}
int FinitePosterior::pending() const {
  return impl_->pending;
}
bool FinitePosterior::recompute_mode() const {
  return impl_->recompute;
}
double FinitePosterior::noise_variance() const {
  return impl_->lambda;
}

void FinitePosterior::observe(const int* index, const double* y) {
  Impl& s = *impl_;
  GPB_EXPECTS(s.pending == 0,
              "posterior.observe: " << s.pending << " pending row(s) must be resolved first");
  s.check_indices(index, "posterior.observe");
  Impl::check_rewards(y, s.num_runs(), "posterior.observe");
  s.append(index, y);
}

void FinitePosterior::add_pending(const int* index) {
  Impl& s = *impl_;
  s.check_indices(index, "posterior.add_pending");
  s.append(index, nullptr);
  ++s.pending;
}

void FinitePosterior::resolve_pending(const double* y) {
  Impl& s = *impl_;
  const int pend = s.pending;
  if (pend == 0) return;
  Impl::check_rewards(y, s.num_runs() * pend, "posterior.resolve_pending");
  const int begin = s.rows - pend;
  for (int r = 0; r < s.num_runs(); ++r) {
    detail::RunRows& run = s.runs[static_cast<std::size_t>(r)];
    for (int i = 0; i < pend; ++i) {
      Impl::resolve_row(run, begin + i, y[static_cast<std::size_t>(r) * pend + i]);
    }
  }
  if (s.recompute) {
    s.stale = true;
  } else {
    s.add_rows_to_mean(begin, s.rows);
  }
  s.pending = 0;
}

const double* FinitePosterior::mean(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(),
              "posterior.mean: run " << run << " out of range [0, " << runs() << ")");
  impl_->refresh();
  return impl_->mu_of(run);
}

const double* FinitePosterior::variance(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(),
              "posterior.variance: run " << run << " out of range [0, " << runs() << ")");
  impl_->refresh();
  return impl_->s2_of(run);
}

std::vector<UcbChoice> FinitePosterior::ucb_argmax(const double* width,
                                                   const std::uint8_t* excluded,
                                                   std::vector<Rng>* tiebreak) const {
  const Impl& s = *impl_;
  GPB_EXPECTS(width != nullptr, "posterior.ucb_argmax: width array is null");
  GPB_EXPECTS(tiebreak == nullptr || static_cast<int>(tiebreak->size()) == s.num_runs(),
              "posterior.ucb_argmax: " << s.num_runs() << " tie-break streams expected, got "
                                       << tiebreak->size());
  for (int r = 0; r < s.num_runs(); ++r) {
    GPB_EXPECTS(!std::isnan(width[r]), "posterior.ucb_argmax: width[" << r << "] is NaN");
  }
  s.refresh();
  std::vector<UcbChoice> out(static_cast<std::size_t>(s.num_runs()));
  for (int r = 0; r < s.num_runs(); ++r) {
    const std::uint8_t* ex =
        excluded != nullptr ? excluded + static_cast<std::size_t>(r) * s.n : nullptr;
    Rng* tb = tiebreak != nullptr ? &(*tiebreak)[static_cast<std::size_t>(r)] : nullptr;
    out[static_cast<std::size_t>(r)] =
        detail::ucb_argmax_cpu(s.mu_of(r), s.s2_of(r), s.n, width[r], ex, tb, s.threads);
  }
  return out;
}

double FinitePosterior::info_gain(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.info_gain: run " << run << " out of range");
  const detail::RunRows& rr = impl_->runs[static_cast<std::size_t>(run)];
  double g = 0;
  for (const double s : rr.pivot_var) g += 0.5 * std::log1p(s / impl_->lambda);
  return g;
}

const std::vector<int>& FinitePosterior::history(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.history: run " << run << " out of range");
  return impl_->runs[static_cast<std::size_t>(run)].history;
}

double FinitePosterior::incremental_bytes(int runs, int n, int capacity) {
  return 8.0 * static_cast<double>(runs) * static_cast<double>(n) * static_cast<double>(capacity);
}

}  // namespace gpb
