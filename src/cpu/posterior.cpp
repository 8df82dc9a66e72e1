// The CPU FinitePosterior backend: exact GP posterior over a finite domain for R runs, incremental
// (V kept) or recompute-and-stream (only L and α kept). See include/gpbandit/posterior.hpp; the
// facade in src/posterior.cpp validates arguments and picks this backend on Backend::Cpu.
#include "detail/posterior_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include "cpu/block_order.hpp"
#include "cpu/ops_cpu.hpp"
#include "cpu/posterior_rows.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {
/// Candidates per block of the incremental row update and of the lazy blocks.
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
        threads(detail::Threads::of(ctx)),
        mixed(ctx.options().precision == Precision::Mixed),
        blocks((n + kBlock - 1) / kBlock),
        alpha2(runs.size(), std::vector<double>(1, 0.0)),
        history_ext(runs.size()) {}

  Kernel kernel;
  detail::KernelEval eval;  // reads kernel's shared matrix, which never moves
  Eigen::MatrixXd points;
  int d = 0;
  int n = 0;
  std::vector<detail::RunRows> runs;
  double lambda = 0;
  int chunk = 0;
  detail::Threads threads;
  bool mixed = false;  // V stored in float (Precision::Mixed), sums in double
  bool recompute = false;
  Eigen::VectorXd kdiag;
  int rows = 0;
  int pending = 0;
  int cap = 0;                     // rows V has room for (incremental)
  std::unique_ptr<double[]> v;     // R×cap×N, run-major (run, row, candidate); incremental only
  std::unique_ptr<float[]> vf;     // the same in float when mixed (v is then empty)
  mutable std::vector<double> mu;  // R×N
  mutable std::vector<double> sigma2;       // R×N
  mutable bool stale = false;               // recompute mode: μ, σ² out of date
  bool lazy = false;                        // incremental mode with lazy blocks
  int blocks = 0;                           // ⌈N / kBlock⌉
  mutable std::vector<int> block_rows;      // R×blocks: rows applied to each block's V, μ, σ²
  std::vector<std::vector<double>> alpha2;  // per run: Σ_{q<i} α_q² for i = 0..rows
  // Lazy mode with a spatial order (block_order.hpp): internal position i holds candidate
  // order[i]; position[a] is where candidate a sits. Empty: identity. Everything inside CpuState
  // (points, kdiag, μ, σ², V, RunRows::history) is in internal positions; the facade sees
  // candidate indices.
  std::vector<int> order, position;
  std::vector<std::vector<int>> history_ext;   // per run: candidate indices, in row order
  mutable std::vector<double> mu_ext, s2_ext;  // per run: μ, σ² in candidate order (on request)
  mutable std::vector<std::uint8_t> excluded_int;  // one run's mask in internal positions

  int internal(int a) const { return order.empty() ? a : position[static_cast<std::size_t>(a)]; }
  int external(int i) const { return order.empty() ? i : order[static_cast<std::size_t>(i)]; }
  /// Puts the candidates in spatial block order (constructor only, before kdiag is computed).
  void reorder() {
    order = detail::spatial_block_order(points, kBlock);
    position.resize(order.size());
    Eigen::MatrixXd moved(points.rows(), points.cols());
    for (int i = 0; i < n; ++i) {
      position[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
      moved.col(i) = points.col(order[static_cast<std::size_t>(i)]);
    }
    points.swap(moved);
  }
  /// Run r's array `in` (internal positions) in candidate order, in `out` (R×N).
  const double* to_candidate_order(const std::vector<double>& in, std::vector<double>& out,
                                   int r) const {
    const std::size_t base = static_cast<std::size_t>(r) * n;
    if (order.empty()) return in.data() + base;
    out.resize(in.size());
    for (int i = 0; i < n; ++i) out[base + order[static_cast<std::size_t>(i)]] = in[base + i];
    return out.data() + base;
  }

  int num_runs() const { return static_cast<int>(runs.size()); }
  /// Threads worth starting for about `flops` operations (small updates run serially: waking a
  /// team costs more than it saves, especially on a loaded machine).
  int threads_for(double flops) const { return threads.for_work(flops); }
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

  int& rows_of_block(int r, int b) const {
    return block_rows[static_cast<std::size_t>(r) * blocks + b];
  }

  /// Incremental mode: brings block b of run r up to `upto` rows: computes v_q over the block for
  /// every row q it has not applied, in row order, and applies σ² and (resolved rows) μ with the
  /// unrounded v_q, exactly as the eager update of each row would. `ptrs` has room for `upto`
  /// pointers, `acc` for detail::kCatchUpGroup·kBlock doubles.
  template <class VT>
  void catch_up_block(int r, int b, int upto, VT** ptrs, double* acc) const {
    int& done = rows_of_block(r, b);
    if (done >= upto) return;
    const int j0 = b * kBlock, len = std::min(kBlock, n - j0);
    const detail::RunRows& run = runs[static_cast<std::size_t>(r)];
    for (int p = 0; p < upto; ++p) ptrs[p] = vrow<VT>(r, p) + j0;
    detail::catch_up_rows(eval, points.data(), d, run, done, upto, j0, len, ptrs, acc,
                          s2_of(r) + j0, mu_of(r) + j0);
    done = upto;
  }

  /// Brings the listed (run, block) tasks (run·blocks + block) up to `upto` rows, in parallel.
  void catch_up(const std::vector<int>& tasks, int upto) const {
    if (mixed) {
      catch_up_t<float>(tasks, upto);
    } else {
      catch_up_t<double>(tasks, upto);
    }
  }
  template <class VT>
  void catch_up_t(const std::vector<int>& tasks, int upto) const {
    double work = 0;
    for (const int task : tasks) {
      const int behind = upto - block_rows[static_cast<std::size_t>(task)];
      work += static_cast<double>(kBlock) * behind * (upto + 8);
    }
    const int count = static_cast<int>(tasks.size());
    const int nt = std::min(threads_for(work), std::max(count, 1));
#pragma omp parallel num_threads(nt)
    {
      std::vector<VT*> ptrs(static_cast<std::size_t>(upto));
      std::vector<double> acc(static_cast<std::size_t>(detail::kCatchUpGroup) * kBlock);
#pragma omp for schedule(dynamic)
      for (int i = 0; i < count; ++i) {
        const int task = tasks[static_cast<std::size_t>(i)];
        catch_up_block<VT>(task / blocks, task % blocks, upto, ptrs.data(), acc.data());
      }
    }
  }

  /// Brings every block of every run up to `upto` rows (the eager update when upto = rows + 1).
  void catch_up_all(int upto) const {
    std::vector<int> tasks;
    for (int task = 0; task < num_runs() * blocks; ++task) {
      if (block_rows[static_cast<std::size_t>(task)] < upto) tasks.push_back(task);
    }
    if (!tasks.empty()) catch_up(tasks, upto);
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

  /// Whether an observed row is left to the lazy catch-up: not for pending rows, nor while the
  /// domain has few blocks and V is small (there the eager update streams V from cache and the
  /// bounds and batches would cost more than they save; measured in bench/RESULTS.md).
  bool defers(bool observed) const {
    return lazy && observed &&
           (blocks >= 32 || static_cast<double>(n) * static_cast<double>(rows) >= 4e6);
  }

  /// Appends one row per run (observed when y is non-null, pending otherwise).
  void append(const int* candidate, const double* y) {
    std::vector<int> index(static_cast<std::size_t>(num_runs()));
    for (int r = 0; r < num_runs(); ++r) {
      index[static_cast<std::size_t>(r)] = internal(candidate[r]);
      history_ext[static_cast<std::size_t>(r)].push_back(candidate[r]);
    }
    if (!recompute && rows == cap) {
      catch_up_all(rows);  // grow() copies the rows of every block
      grow();
    }
    if (!recompute && lazy) {  // the observed candidate's block must know v_p[a] and σ²[a]
      std::vector<int> tasks;
      for (int r = 0; r < num_runs(); ++r) tasks.push_back(r * blocks + index[r] / kBlock);
      catch_up(tasks, rows);
    }
    const int nt = recompute ? threads_for(0.5 * rows * rows * num_runs()) : 1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int r = 0; r < num_runs(); ++r) append_factor_row(r, index[r], y);
    for (int r = 0; r < num_runs(); ++r) {
      const double a = runs[static_cast<std::size_t>(r)].alpha.back();
      alpha2[static_cast<std::size_t>(r)].push_back(alpha2[static_cast<std::size_t>(r)].back() +
                                                    a * a);
    }
    if (recompute) {
      stale = true;
    } else if (!defers(y != nullptr)) {  // pending rows reach every block at once
      catch_up_all(rows + 1);
    }
    ++rows;
  }

  /// Lazy mode: an upper bound of the UCB score any candidate of stale block b of run r (not
  /// excluded) reaches once brought up to `t` rows (see the header's "Lazy blocks"); NaN when a
  /// stored value is NaN (the block is then brought up to date and the NaN reported). `lower`
  /// receives a lower bound of the best such score (μ_t ≥ μ_s − A·σ_s; −∞ when all excluded).
  double block_bound(int r, int b, int t, double width, const std::uint8_t* excluded,
                     double& lower) const {
    const std::vector<double>& a2 = alpha2[static_cast<std::size_t>(r)];
    const int done = rows_of_block(r, b);
    const double gap = a2[static_cast<std::size_t>(t)] - a2[static_cast<std::size_t>(done)];
    const double c = std::max(width, 0.0) +
                     std::sqrt(std::max(gap, 0.0) + 1e-10 * a2[static_cast<std::size_t>(t)]);
    const int j0 = b * kBlock, end = std::min(n, j0 + kBlock);
    const double* m = mu_of(r);
    const double* s2 = s2_of(r);
    const double c_low = c - std::max(width, 0.0) + std::max(-width, 0.0);
    double ub = -std::numeric_limits<double>::infinity(), lb = ub;
    for (int j = j0; j < end; ++j) {
      if (excluded != nullptr && excluded[j] != 0) continue;
      const double sd = std::sqrt(std::max(s2[j], 0.0) + 1e-9 * kdiag[j]);
      const double u = m[j] + c * sd + 1e-9 * (std::abs(m[j]) + c * sd);
      const double l = m[j] - c_low * sd - 1e-9 * (std::abs(m[j]) + c_low * sd);
      if (std::isnan(u) || std::isnan(s2[j])) return std::numeric_limits<double>::quiet_NaN();
      ub = std::max(ub, u);
      lb = std::max(lb, l);
    }
    lower = lb;
    return ub;
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
    if (!s.recompute && options.lazy && s.kernel.type() != KernelType::Precomputed &&
        s.blocks > 2) {
      s.reorder();
    }
    s.kdiag = detail::kernel_diag_cpu(s.kernel, s.points, s.threads);
    const std::size_t total = static_cast<std::size_t>(runs) * static_cast<std::size_t>(s.n);
    s.mu.assign(total, 0.0);
    s.sigma2.resize(total);
    for (int r = 0; r < runs; ++r) std::copy(s.kdiag.data(), s.kdiag.data() + s.n, s.s2_of(r));
    if (!s.recompute) {
      s.cap = options.capacity;
      s.allocate_v(static_cast<std::size_t>(s.cap) * total);
      s.lazy = options.lazy;
      s.block_rows.assign(static_cast<std::size_t>(runs) * s.blocks, 0);
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
    bring_up_to_date();
    return s_.to_candidate_order(s_.mu, s_.mu_ext, run);
  }
  const double* variance(int run) const override {
    bring_up_to_date();
    return s_.to_candidate_order(s_.sigma2, s_.s2_ext, run);
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
          s.lazy ? lazy_ucb_argmax(r, width[r], ex, tb)
                 : detail::ucb_argmax_cpu(s.mu_of(r), s.s2_of(r), s.n, width[r], ex, tb, s.threads);
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
    return s_.history_ext[static_cast<std::size_t>(run)];
  }

 private:
  void bring_up_to_date() const {
    s_.refresh();
    if (s_.lazy) s_.catch_up_all(s_.rows);
  }

  /// The UCB argmax of run r over lazy blocks (see the header's "Lazy blocks"): exact scores of
  /// the blocks already up to date, bounds for the others; stale blocks are brought up to date in
  /// decreasing order of their bound, in batches that double, until no bound reaches the best
  /// exact score. The choice and its tie count are those of ucb_argmax_cpu over the whole domain.
  UcbChoice lazy_ucb_argmax(int r, double width, const std::uint8_t* excluded,
                            Rng* tiebreak) const {
    const CpuState& s = s_;
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const int t = s.rows, nb = s.blocks;
    const std::uint8_t* ex = excluded;
    if (excluded != nullptr && !s.order.empty()) {  // the mask in internal positions
      s.excluded_int.resize(static_cast<std::size_t>(s.n));
      for (int i = 0; i < s.n; ++i)
        s.excluded_int[static_cast<std::size_t>(i)] = excluded[s.external(i)];
      ex = s.excluded_int.data();
    }
    const double* m = s.mu_of(r);
    const double* s2 = s.s2_of(r);
    std::vector<detail::UcbBest> part(static_cast<std::size_t>(nb));
    std::vector<double> bound(static_cast<std::size_t>(nb));
    std::vector<double> lower(static_cast<std::size_t>(nb), -kInf);
    const auto scan_block = [&](int b) {
      part[static_cast<std::size_t>(b)] =
          detail::scan_ucb(m, s2, b * kBlock, std::min(s.n, (b + 1) * kBlock), width, ex);
    };
    const int nt = s.threads_for(detail::kUcbWorkPerCandidate * s.n);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int b = 0; b < nb; ++b) {
      if (s.rows_of_block(r, b) == t) {
        scan_block(b);
      } else {
        bound[static_cast<std::size_t>(b)] =
            s.block_bound(r, b, t, width, ex, lower[static_cast<std::size_t>(b)]);
      }
    }
    double best = -std::numeric_limits<double>::infinity();
    std::vector<int> stale;
    for (int b = 0; b < nb; ++b) {
      if (s.rows_of_block(r, b) == t) {
        if (part[static_cast<std::size_t>(b)].index >= 0)
          best = std::max(best, part[static_cast<std::size_t>(b)].score);
      } else {
        stale.push_back(b);
      }
    }
    const auto key = [&](int b) {  // NaN bounds first: they must be brought up to date
      const double u = bound[static_cast<std::size_t>(b)];
      return std::isnan(u) ? std::numeric_limits<double>::infinity() : u;
    };
    std::sort(stale.begin(), stale.end(), [&](int a, int b) { return key(a) > key(b); });
    // The first batch: every stale block whose bound reaches the best lower bound (some candidate
    // scores at least that much, so no other block can win); later batches (rarely needed) double.
    double floor = best;
    for (const int b : stale) floor = std::max(floor, lower[static_cast<std::size_t>(b)]);
    std::size_t next = 0, batch = stale.size();
    std::vector<int> tasks;
    while (next < stale.size() && !(key(stale[next]) < best)) {
      tasks.clear();
      do {
        tasks.push_back(r * nb + stale[next++]);
      } while (next < stale.size() && tasks.size() < batch && !(key(stale[next]) < floor));
      s.catch_up(tasks, t);
#pragma omp parallel for schedule(static) num_threads(std::min <int>(nt, tasks.size()))
      for (std::size_t i = 0; i < tasks.size(); ++i) scan_block(tasks[i] % nb);
      for (const int task : tasks) {
        const detail::UcbBest& p = part[static_cast<std::size_t>(task % nb)];
        if (p.index >= 0) best = std::max(best, p.score);
      }
      floor = best;
      batch = batch == stale.size() ? static_cast<std::size_t>(std::max(2 * s.threads.max, 4))
                                    : 2 * batch;
    }
    // Every block that can reach `best` is now up to date; the others score strictly below it.
    detail::UcbBest all;
    for (int b = 0; b < nb; ++b) {
      if (s.rows_of_block(r, b) == t) detail::merge_best(all, part[static_cast<std::size_t>(b)]);
    }
    detail::check_ucb_best(all, m, s2, s.n, width, s.order.empty() ? nullptr : s.order.data());
    // The ties in candidate order (they all sit in up-to-date blocks); the choice is the k-th.
    std::vector<int> ties;
    if (all.ties > 1) {
      for (int b = all.index / kBlock; b < nb; ++b) {
        if (s.rows_of_block(r, b) != t) continue;
        for (int j = std::max(b * kBlock, all.index); j < std::min(s.n, (b + 1) * kBlock); ++j) {
          if ((ex == nullptr || ex[j] == 0) && detail::ucb_score(m[j], s2[j], width) == all.score)
            ties.push_back(s.external(j));
        }
      }
      std::sort(ties.begin(), ties.end());
    }
    const int k = detail::tie_rank(all, tiebreak);
    UcbChoice choice{ties.empty() ? s.external(all.index) : ties[static_cast<std::size_t>(k)],
                     all.score, all.ties};
    return choice;
  }

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
