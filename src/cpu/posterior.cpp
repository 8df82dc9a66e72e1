// The CPU FinitePosterior backend: exact GP posterior over a finite domain for R runs, incremental
// (V kept) or recompute-and-stream (only L and α kept). See include/gpbandit/posterior.hpp; the
// facade in src/posterior.cpp validates arguments and picks this backend on Backend::Cpu.
#include "detail/posterior_backend.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "cpu/ops_cpu.hpp"
#include "cpu/posterior_rows.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {
/// Candidates per block in the incremental row update (the acc buffer lives on the stack).
constexpr int kBlock = 512;
}  // namespace

namespace {

/// The existing CPU implementation, unchanged apart from its name and the interface below.
struct CpuState {
  CpuState(const Context& ctx, const Kernel& k, const Domain& domain, int r,
           const PosteriorOptions& options)
      : kernel(k),
        eval(kernel),
        points(domain.points()),
        d(domain.dim()),
        n(domain.size()),
        runs(static_cast<std::size_t>(r)),
        lambda(options.noise_variance),
        chunk(options.chunk),
        threads(ctx.threads()),
        mixed(ctx.options().precision == Precision::Mixed) {}

  Kernel kernel;
  detail::KernelEval eval;  // reads kernel's shared matrix, which never moves
  Eigen::MatrixXd points;
  int d = 0;
  int n = 0;
  std::vector<detail::RunRows> runs;
  double lambda = 0;
  int chunk = 0;
  int threads = 1;
  bool mixed = false;  // V stored in float (Precision::Mixed), sums in double
  bool recompute = false;
  Eigen::VectorXd kdiag;
  int rows = 0;
  int pending = 0;
  int cap = 0;                     // rows V has room for (incremental)
  std::unique_ptr<double[]> v;     // R×cap×N, run-major (run, row, candidate); incremental only
  std::unique_ptr<float[]> vf;     // the same in float when mixed (v is then empty)
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
  template <class VT>
  VT* vbase() const {
    if constexpr (std::is_same_v<VT, float>) {
      return vf.get();
    } else {
      return v.get();
    }
  }
  template <class VT>
  VT* vrow(int r, int q) const {
    return vbase<VT>() + (static_cast<std::size_t>(r) * cap + q) * static_cast<std::size_t>(n);
  }
  /// v_q[a] of run r as a double, whatever the storage.
  double v_at(int r, int q, int a) const {
    return mixed ? static_cast<double>(vrow<float>(r, q)[a]) : vrow<double>(r, q)[a];
  }
  void allocate_v(std::size_t count) {
    if (mixed) {
      vf.reset(new float[count]);
    } else {
      v.reset(new double[count]);
    }
  }
  double* mu_of(int r) const { return mu.data() + static_cast<std::size_t>(r) * n; }
  double* s2_of(int r) const { return sigma2.data() + static_cast<std::size_t>(r) * n; }

  template <class VT>
  void grow_storage(std::unique_ptr<VT[]>& buf, int new_cap) {
    std::unique_ptr<VT[]> grown(
        new VT[static_cast<std::size_t>(num_runs()) * new_cap * static_cast<std::size_t>(n)]);
    for (int r = 0; r < num_runs(); ++r) {
      const VT* src = buf.get() + static_cast<std::size_t>(r) * cap * n;
      std::copy(src, src + static_cast<std::size_t>(rows) * n,
                grown.get() + static_cast<std::size_t>(r) * new_cap * n);
    }
    buf.swap(grown);
  }
  void grow() {
    const int new_cap = std::max(2 * cap, 1);
    if (mixed) {
      grow_storage(vf, new_cap);
    } else {
      grow_storage(v, new_cap);
    }
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
      for (int p = 0; p < t; ++p) row[static_cast<std::size_t>(p)] = v_at(r, p, a);
      s = s2_of(r)[a];
    }
    row[static_cast<std::size_t>(t)] = detail::pivot(lambda, s, kdiag[a]);
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

  /// Incremental mode: computes v_t for every run and applies σ² (and μ when observed) with the
  /// unrounded v_t (identical to the stored row in double precision).
  void update_new_row(bool observed) {
    if (mixed) {
      update_new_row_t<float>(observed);
    } else {
      update_new_row_t<double>(observed);
    }
  }
  template <class VT>
  void update_new_row_t(bool observed) {
    const int t = rows;
    const int blocks = (n + kBlock - 1) / kBlock;
    const int tasks = num_runs() * blocks;
    const int nt = threads_for(static_cast<double>(tasks) * kBlock * (t + 8));
#pragma omp parallel num_threads(nt)
    {
      std::vector<VT*> ptrs(static_cast<std::size_t>(t) + 1);
      double acc[kBlock];
#pragma omp for schedule(static)
      for (int task = 0; task < tasks; ++task) {
        const int r = task / blocks, j0 = (task % blocks) * kBlock;
        const int len = std::min(kBlock, n - j0);
        const detail::RunRows& run = runs[static_cast<std::size_t>(r)];
        for (int p = 0; p <= t; ++p) ptrs[static_cast<std::size_t>(p)] = vrow<VT>(r, p) + j0;
        detail::rows_over_block(eval, points.data(), d, run, t, t + 1, j0, len, ptrs.data(), acc);
        double* s2 = s2_of(r) + j0;  // acc holds v_t (unrounded in Mixed)
        for (int i = 0; i < len; ++i) s2[i] = detail::var_step(s2[i], acc[i]);
        if (observed) {
          const double alpha = run.alpha[static_cast<std::size_t>(t)];
          double* m = mu_of(r) + j0;
          for (int i = 0; i < len; ++i) m[i] = detail::mean_step(m[i], alpha, acc[i]);
        }
      }
    }
  }

  /// Incremental mode: adds α_q v_q to μ for the rows [begin, end), in row order.
  void add_rows_to_mean(int begin, int end) {
    if (mixed) {
      add_rows_to_mean_t<float>(begin, end);
    } else {
      add_rows_to_mean_t<double>(begin, end);
    }
  }
  template <class VT>
  void add_rows_to_mean_t(int begin, int end) {
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
        const VT* vq = vrow<VT>(r, q) + j0;
        for (int i = 0; i < len; ++i) m[i] = detail::mean_step(m[i], alpha, double(vq[i]));
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

class CpuPosterior final : public detail::PosteriorBackend {
 public:
  CpuPosterior(const Context& ctx, const Kernel& kernel, const Domain& domain, int runs,
               const PosteriorOptions& options)
      : s_(ctx, kernel, domain, runs, options) {
    CpuState& s = s_;
    const double bytes =
        FinitePosterior::incremental_bytes(runs, s.n, options.capacity) * (s.mixed ? 0.5 : 1.0);
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
      s.allocate_v(static_cast<std::size_t>(s.cap) * total);
    }
  }

  int runs() const override { return s_.num_runs(); }
  int size() const override { return s_.n; }
  int rows() const override { return s_.rows; }
  int pending() const override { return s_.pending; }
  bool recompute_mode() const override { return s_.recompute; }
  double noise_variance() const override { return s_.lambda; }

  void observe(const int* index, const double* y) override { s_.append(index, y); }

  void add_pending(const int* index) override {
    s_.append(index, nullptr);
    ++s_.pending;
  }

  void resolve_pending(const double* y) override {
    CpuState& s = s_;
    const int pend = s.pending;
    const int begin = s.rows - pend;
    for (int r = 0; r < s.num_runs(); ++r) {
      detail::RunRows& run = s.runs[static_cast<std::size_t>(r)];
      for (int i = 0; i < pend; ++i) {
        CpuState::resolve_row(run, begin + i, y[static_cast<std::size_t>(r) * pend + i]);
      }
    }
    if (s.recompute) {
      s.stale = true;
    } else {
      s.add_rows_to_mean(begin, s.rows);
    }
    s.pending = 0;
  }

  const double* mean(int run) const override {
    s_.refresh();
    return s_.mu_of(run);
  }
  const double* variance(int run) const override {
    s_.refresh();
    return s_.s2_of(run);
  }

  std::vector<UcbChoice> ucb_argmax(const double* width, const std::uint8_t* excluded,
                                    std::vector<Rng>* tiebreak) const override {
    const CpuState& s = s_;
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

  double info_gain(int run) const override {
    const detail::RunRows& rr = s_.runs[static_cast<std::size_t>(run)];
    double g = 0;
    for (const double v : rr.pivot_var) g += 0.5 * std::log1p(v / s_.lambda);
    return g;
  }

  const std::vector<int>& history(int run) const override {
    return s_.runs[static_cast<std::size_t>(run)].history;
  }

 private:
  CpuState s_;
};

}  // namespace

namespace detail {
std::unique_ptr<PosteriorBackend> make_cpu_posterior(const Context& ctx, const Kernel& kernel,
                                                     const Domain& domain, int runs,
                                                     const PosteriorOptions& options) {
  return std::make_unique<CpuPosterior>(ctx, kernel, domain, runs, options);
}
}  // namespace detail

}  // namespace gpb
