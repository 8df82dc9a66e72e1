/// @file posterior_state.hpp
/// The state of the CPU FinitePosterior over one rank's slice of the domain (internal; shared by
/// src/engine/cpu/posterior.cpp and src/engine/cpu/posterior_argmax.cpp). See
/// include/gpbandit/posterior.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "engine/cpu/block_order.hpp"
#include "engine/cpu/ops_cpu.hpp"
#include "engine/cpu/posterior_rows.hpp"
#include "engine/detail/shard.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/posterior.hpp"

namespace gpb::detail {

/// Candidates per block of the incremental row update and of the lazy blocks.
constexpr int kBlock = 512;
/// Smallest chunk of a streamed domain's recompute mode: each chunk's encodings start with one
/// ParameterSpace::raw_of (a scan of up to one index block, ~√raw combinations), so chunks far
/// larger than that keep the scan a small part of the encoding.
constexpr int kStreamChunk = 32768;
/// Candidates a streamed domain's capacity grows by when extras are added (add_points).
constexpr int kStreamExtraStep = 64;

/// The CPU posterior's state over this rank's slice of the domain (the whole domain on one rank).
struct CpuState {
  CpuState(const Context& ctx, const Kernel& k, const Domain& domain, int r,
           const PosteriorOptions& options)
      : shard(make_shard(ctx.communicator(), domain)),
        kernel(k),
        eval(kernel),
        points(shard_points(shard, domain)),
        space(domain.streams_points() ? domain.shared_space() : nullptr),
        d(domain.dim()),
        n(shard.local_size()),
        ncap(n),
        runs(static_cast<std::size_t>(r)),
        lambda(options.noise_variance),
        chunk(space ? std::max(options.chunk, kStreamChunk) : options.chunk),
        threads(Threads::of(ctx)),
        mixed(ctx.options().precision == Precision::Mixed),
        blocks((n + kBlock - 1) / kBlock),
        alpha2(runs.size(), std::vector<double>(1, 0.0)),
        history_ext(runs.size()) {
    if (space) nspace = n;
  }

  Shard shard;  // this rank's candidates [shard.begin, shard.end) of N
  Kernel kernel;
  KernelEval eval;         // reads kernel's shared matrix, which never moves
  Eigen::MatrixXd points;  // d × ncap, the slice (the first n columns hold candidates); when
                           // streamed only the extras: d × (ncap − nspace)
  std::shared_ptr<const ParameterSpace> space;  // streamed domain: points computed per chunk
  int nspace = 0;  // streamed: candidates [0, nspace) come from the space, the rest are extras
                   // (add_points), held in `points`
  int d = 0;
  int n = 0;     // candidates held (N on one rank)
  int ncap = 0;  // candidate capacity: the stride of V's rows and of μ, σ² per run (≥ n)
  std::vector<RunRows> runs;
  double lambda = 0;
  int chunk = 0;
  Threads threads;
  bool mixed = false;  // V stored in float (Precision::Mixed), sums in double
  bool recompute = false;
  Eigen::VectorXd kdiag;  // ncap entries (the first n are the candidates')
  int rows = 0;
  int pending = 0;
  int cap = 0;                  // rows V has room for (incremental)
  std::unique_ptr<double[]> v;  // R×cap×ncap, run-major (run, row, candidate); incremental only
  std::unique_ptr<float[]> vf;  // the same in float when mixed (v is then empty)
  mutable std::vector<double> mu;      // R×ncap
  mutable std::vector<double> sigma2;  // R×ncap
  mutable bool stale = false;          // recompute mode: μ, σ² out of date
  // Recompute mode: μ = K(D, X_t)·β for mean() (R×ncap, allocated by the first mean()), and
  // whether it is out of date. refresh() rebuilds V for σ² and the μ ucb_argmax reads (the same
  // operations as incremental mode) and fills this one from the same kernel rows once it is held;
  // mean() alone computes only this one, O(N·t) (cpu/posterior_mean.cpp).
  mutable std::vector<double> mu_direct;
  mutable bool mean_stale = false;
  bool lazy = false;                        // incremental mode with lazy blocks
  int blocks = 0;                           // ⌈N / kBlock⌉
  mutable std::vector<int> block_rows;      // R×blocks: rows applied to each block's V, μ, σ²
  std::vector<std::vector<double>> alpha2;  // per run: Σ_{q<i} α_q² for i = 0..rows
  // Lazy mode with a spatial order (block_order.hpp): internal position i holds the slice's
  // candidate order[i] (slice-relative: global index shard.begin + order[i]); position[a] is where
  // slice candidate a sits. Empty: identity. Everything inside CpuState (points, kdiag, μ, σ², V,
  // RunRows::history) is in internal positions; the facade sees global candidate indices.
  std::vector<int> order, position;
  std::vector<std::vector<int>> history_ext;   // per run: candidate indices, in row order
  mutable std::vector<double> mu_ext, s2_ext;  // per run: μ, σ² in candidate order (on request)
  // One run's μ and one run's σ² over all N (sharded, on request): separate, so that a mean()
  // pointer survives a variance() call.
  mutable std::vector<double> gathered_mu, gathered_s2;
  mutable std::vector<std::uint8_t> excluded_int;  // one run's mask in internal positions

  /// Whether the points are computed per chunk from the space (Domain::streamed_space).
  bool streamed() const { return space != nullptr; }
  /// Coordinates of a held point: candidate j (internal position) of a materialised domain, or
  /// extra j ≥ nspace of a streamed one.
  const double* held_point(int j) const {
    return points.data() + static_cast<long>(streamed() ? j - nspace : j) * d;
  }
  /// The d×len coordinates of the slice's candidates [j0, j0 + len) (internal positions, which
  /// are the slice's own order when streamed): a pointer into `points`, or, for a streamed
  /// domain, into `buf`, filled from the space (the same values bit for bit) and, past nspace,
  /// from the extras.
  const double* chunk_points(int j0, int len, Eigen::MatrixXd& buf) const {
    if (!streamed() || j0 >= nspace) return held_point(j0);
    const long long g = static_cast<long long>(shard.begin) + j0;
    const int from_space = std::min(len, nspace - j0);
    if (from_space == len) {
      buf = space->encode_range(g, g + len);
      return buf.data();
    }
    buf.resize(d, len);  // the chunk reaches past the space into the extras
    buf.leftCols(from_space) = space->encode_range(g, g + from_space);
    buf.rightCols(len - from_space) = points.leftCols(len - from_space);
    return buf.data();
  }
  /// k(x, x) over the slice, computed chunk by chunk when streamed. A stationary kernel's k(x, x)
  /// is its variance (r = 0: exp(−0) = 1 and the Matérn factor 1 + 0, exactly), so no point is
  /// read or encoded: the very value kernel_diag_cpu computes, in O(N) stores.
  Eigen::VectorXd diagonal() const {
    if (kernel.constant_diagonal()) return Eigen::VectorXd::Constant(n, kernel.variance());
    if (!streamed()) return kernel_diag_cpu(kernel, points, threads);
    Eigen::VectorXd out(n);
    Eigen::MatrixXd buf;
    for (int j0 = 0; j0 < n; j0 += kStreamChunk) {
      const int len = std::min(kStreamChunk, n - j0);
      chunk_points(j0, len, buf);
      out.segment(j0, len) = kernel_diag_cpu(kernel, buf, threads);
    }
    return out;
  }

  int internal(int a) const { return order.empty() ? a : position[static_cast<std::size_t>(a)]; }
  int external(int i) const { return order.empty() ? i : order[static_cast<std::size_t>(i)]; }
  /// Internal position of held candidate a (global index).
  int local(int a) const { return internal(a - shard.begin); }
  /// Global candidate index of internal position i.
  int global(int i) const { return shard.begin + external(i); }
  /// Puts the candidates in spatial block order (constructor only, before kdiag is computed).
  void reorder() {
    order = spatial_block_order(points, kBlock);
    position.resize(order.size());
    Eigen::MatrixXd moved(points.rows(), points.cols());
    for (int i = 0; i < n; ++i) {
      position[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
      moved.col(i) = points.col(order[static_cast<std::size_t>(i)]);
    }
    points.swap(moved);
  }
  /// Run r's array `in` (internal positions, R×ncap) in candidate order, in `out` (R×ncap).
  const double* to_candidate_order(const std::vector<double>& in, std::vector<double>& out,
                                   int r) const {
    const std::size_t base = static_cast<std::size_t>(r) * ncap;
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
    return vbase<VT>() + (static_cast<std::size_t>(r) * cap + q) * static_cast<std::size_t>(ncap);
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
  double* mu_of(int r) const { return mu.data() + static_cast<std::size_t>(r) * ncap; }
  double* s2_of(int r) const { return sigma2.data() + static_cast<std::size_t>(r) * ncap; }

  template <class VT>
  void grow_storage(std::unique_ptr<VT[]>& buf, int new_cap) {
    const std::size_t stride = static_cast<std::size_t>(ncap);
    std::unique_ptr<VT[]> grown(new VT[static_cast<std::size_t>(num_runs()) * new_cap * stride]);
    for (int r = 0; r < num_runs(); ++r) {
      const VT* src = buf.get() + static_cast<std::size_t>(r) * cap * stride;
      std::copy(src, src + static_cast<std::size_t>(rows) * stride,
                grown.get() + static_cast<std::size_t>(r) * new_cap * stride);
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

  /// Run r's column at its held candidate (internal position i) for the next row t = rows, as
  /// every rank needs it: out[0..t−1] = L[t, p] = v_p[a], out[t] = σ²_{t−1}[a], out[t+1..t+d] =
  /// x_a. Incremental mode reads the stored values; recompute mode runs the row recurrence
  /// restricted to column i (the same values).
  void owned_column(int r, int i, double* out) const {
    const int t = rows;
    if (recompute) {  // owned_columns' recurrence, for one column
      std::vector<double> scratch;
      owned_columns(r, &i, 1, out, t + 1 + d, scratch);
      return;
    }
    Eigen::MatrixXd buf;
    const double* x = chunk_points(i, 1, buf);  // candidate i's coordinates
    for (int p = 0; p < t; ++p) out[p] = v_at(r, p, i);
    out[t] = s2_of(r)[i];
    std::copy(x, x + d, out + t + 1);
  }

  /// owned_column for the m candidates at internal positions idx[0..m) of run r, into
  /// out[c·w ..]; in recompute mode their v-columns go through the recurrence together
  /// (columns_of_rows: the same values as m owned_column calls, bit for bit, several times
  /// faster), else each is read from V. `scratch` is the caller's (one per thread).
  void owned_columns(int r, const int* idx, int m, double* out, long w,
                     std::vector<double>& scratch) const {
    if (!recompute) {
      for (int c = 0; c < m; ++c) owned_column(r, idx[c], out + static_cast<long>(c) * w);
      return;
    }
    const RunRows& run = runs[static_cast<std::size_t>(r)];
    const int t = rows;
    Eigen::MatrixXd xs(d, m), buf;
    for (int c = 0; c < m; ++c) {
      const double* x = chunk_points(idx[c], 1, buf);
      std::copy(x, x + d, xs.col(c).data());
    }
    std::vector<double> vcols(static_cast<std::size_t>(m) * t);
    columns_of_rows(eval, xs.data(), d, run, t, m, vcols.data(), static_cast<std::size_t>(t),
                    scratch);
    for (int c = 0; c < m; ++c) {
      double* o = out + static_cast<long>(c) * w;
      const double* v = vcols.data() + static_cast<std::size_t>(c) * t;
      std::copy(v, v + t, o);
      double s = kdiag[idx[c]];
      for (int p = 0; p < t; ++p) s = var_step(s, o[p]);
      o[t] = s;
      std::copy(xs.col(c).data(), xs.col(c).data() + d, o + t + 1);
    }
  }

  /// Appends row t = rows for run r from its column `col` (owned_column's layout, shared by the
  /// owner): L[t, 0..t] with the row's noise variance `lam`, the pivot variance, x_a and, when
  /// observed, α_t. `i` is the candidate's internal position, or −1 when another rank holds it.
  void append_factor_row(int r, int i, const double* col, const double* y, double lam) {
    RunRows& run = runs[static_cast<std::size_t>(r)];
    const int t = rows;
    const double* x = col + t + 1;
    std::vector<double> row(col, col + t + 1);
    row[static_cast<std::size_t>(t)] = pivot(lam, col[t], eval(x, x, d));  // eval: kdiag[a]
    run.history.push_back(i);
    run.xs.insert(run.xs.end(), x, x + d);
    run.L.push_back(std::move(row));
    run.pivot_var.push_back(col[t]);
    run.noise.push_back(lam);
    run.alpha.push_back(0.0);
    run.resolved.push_back(0);
    if (y != nullptr) resolve_row(run, t, y[r]);
  }

  static void resolve_row(RunRows& run, int q, double y) {
    const double m = mean_at_row(run, q);
    run.alpha[static_cast<std::size_t>(q)] = (y - m) / run.L[static_cast<std::size_t>(q)][q];
    run.resolved[static_cast<std::size_t>(q)] = 1;
  }

  int& rows_of_block(int r, int b) const {
    return block_rows[static_cast<std::size_t>(r) * blocks + b];
  }

  /// Incremental mode: brings block b of run r up to `upto` rows: computes v_q over the block for
  /// every row q it has not applied, in row order, and applies σ² and (resolved rows) μ with the
  /// unrounded v_q, exactly as the eager update of each row would. `ptrs` has room for `upto`
  /// pointers, `acc` for kCatchUpGroup·kBlock doubles.
  template <class VT>
  void catch_up_block(int r, int b, int upto, VT** ptrs, double* acc) const {
    int& done = rows_of_block(r, b);
    if (done >= upto) return;
    const int j0 = b * kBlock, len = std::min(kBlock, n - j0);
    const RunRows& run = runs[static_cast<std::size_t>(r)];
    for (int p = 0; p < upto; ++p) ptrs[p] = vrow<VT>(r, p) + j0;
    catch_up_rows(eval, points.data(), d, run, done, upto, j0, len, ptrs, acc, s2_of(r) + j0,
                  mu_of(r) + j0);
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
      std::vector<double> acc(static_cast<std::size_t>(kCatchUpGroup) * kBlock);
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

  /// Incremental mode: adds α_q v_q to μ for the rows [begin, end), in row order, over the blocks
  /// that have applied them (lazy mode: a block behind row q applies α_q v_q when it catches up,
  /// as the row is resolved by then).
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
      const RunRows& run = runs[static_cast<std::size_t>(r)];
      double* m = mu_of(r) + j0;
      const int upto = lazy ? std::min(end, rows_of_block(r, task % blocks)) : end;
      for (int q = begin; q < upto; ++q) {
        const double alpha = run.alpha[static_cast<std::size_t>(q)];
        const VT* vq = vrow<VT>(r, q) + j0;
        for (int i = 0; i < len; ++i) m[i] = mean_step(m[i], alpha, double(vq[i]));
      }
    }
  }

  /// Recompute mode: μ = K(x_j, X_t)·β, β = L⁻ᵀα (pending rows α = 0), into mu_direct for the
  /// held candidates [j0, j1) of every run: O((j1 − j0)·t) kernel values, no V
  /// (cpu/posterior_mean.cpp).
  void mean_direct(int j0, int j1) const;
  /// Recompute mode: brings mu_direct up to date (allocating it on first use).
  void refresh_mean() const;
  /// mean_weights of every run (what mean_direct and refresh's μ pass need).
  std::vector<MeanWeights> all_mean_weights() const {
    std::vector<MeanWeights> w;
    for (const RunRows& run : runs) w.push_back(mean_weights(run));
    return w;
  }

  /// Recompute mode: rebuilds μ and σ² over the domain chunk by chunk (no V kept), and mean()'s
  /// μ = K(D, X_t)·β from the same kernel rows when it is held and out of date.
  void refresh() const {
    if (!stale) return;
    const int t = rows;
    const int chunks = (n + chunk - 1) / chunk;
    const int tasks = num_runs() * chunks;
    const double flops = static_cast<double>(num_runs()) * n * (0.5 * t * t + 8.0 * t + 1.0);
    const bool fill_mean = mean_stale && !mu_direct.empty();
    const std::vector<MeanWeights> mw =
        fill_mean ? all_mean_weights() : std::vector<MeanWeights>(runs.size());
#pragma omp parallel num_threads(std::min(threads_for(flops), tasks))
    {
      std::vector<double> w(static_cast<std::size_t>(std::max(t, 1)) * chunk);
      std::vector<double> acc(static_cast<std::size_t>(chunk));
      std::vector<double*> ptrs(static_cast<std::size_t>(t));
      Eigen::MatrixXd buf;  // a streamed chunk's encodings
#pragma omp for schedule(dynamic)
      for (int task = 0; task < tasks; ++task) {
        const int r = task / chunks, j0 = (task % chunks) * chunk;
        const int len = std::min(chunk, n - j0);
        const RunRows& run = runs[static_cast<std::size_t>(r)];
        for (int q = 0; q < t; ++q)
          ptrs[static_cast<std::size_t>(q)] = w.data() + static_cast<std::size_t>(q) * len;
        const double* x = t > 0 ? chunk_points(j0, len, buf) : nullptr;  // x = candidate j0
        double* md =
            fill_mean ? mu_direct.data() + static_cast<std::size_t>(r) * ncap + j0 : nullptr;
        if (md != nullptr) std::fill(md, md + len, 0.0);
        const MeanWeights& w_r = mw[static_cast<std::size_t>(r)];
        rows_over_block(eval, x, d, run, 0, t, 0, len, ptrs.data(), acc.data(), w_r.beta.data(),
                        w_r.rows, md);
        double* s2 = s2_of(r) + j0;
        double* m = mu_of(r) + j0;
        for (int i = 0; i < len; ++i) {
          s2[i] = kdiag[j0 + i];
          m[i] = 0.0;
        }
        for (int q = 0; q < t; ++q) {
          const double* vq = ptrs[static_cast<std::size_t>(q)];
          for (int i = 0; i < len; ++i) s2[i] = var_step(s2[i], vq[i]);
          if (run.resolved[static_cast<std::size_t>(q)] == 0) continue;
          const double alpha = run.alpha[static_cast<std::size_t>(q)];
          for (int i = 0; i < len; ++i) m[i] = mean_step(m[i], alpha, vq[i]);
        }
      }
    }
    stale = false;
    if (fill_mean) mean_stale = false;
  }

  /// Whether a new row is left to the lazy catch-up: not while the domain has few blocks and V is
  /// small (there the eager update streams V from cache and the bounds and batches would cost
  /// more than they save; measured in bench/RESULTS.md), nor a pending row when V is stored in
  /// float (resolving it adds α v_q with v_q as stored, a catch-up adds the unrounded v_q).
  /// A pending row only lowers σ² (α = 0 adds nothing to the bound's A²), so GP-BUCB's
  /// hallucinated points reach only the blocks whose bound still reaches the batch's best score.
  bool defers(bool observed) const {
    return lazy && (observed || !mixed) &&
           (blocks >= 32 || static_cast<double>(n) * static_cast<double>(rows) >= 4e6);
  }

  /// Resolves the `pending` last rows of every run with y (R×pending, run-major): α of each row,
  /// the running sums Σ α_q² of the lazy bounds, and μ over the blocks that hold the rows.
  void resolve_last(int pending_rows, const double* y) {
    const int begin = rows - pending_rows;
    for (int r = 0; r < num_runs(); ++r) {
      RunRows& run = runs[static_cast<std::size_t>(r)];
      std::vector<double>& a2 = alpha2[static_cast<std::size_t>(r)];
      for (int i = 0; i < pending_rows; ++i) {
        const int q = begin + i;
        resolve_row(run, q, y[static_cast<std::size_t>(r) * pending_rows + i]);
        const double a = run.alpha[static_cast<std::size_t>(q)];
        a2[static_cast<std::size_t>(q) + 1] = a2[static_cast<std::size_t>(q)] + a * a;
      }
    }
    if (recompute) {
      stale = mean_stale = true;
    } else {
      add_rows_to_mean(begin, rows);
    }
  }

  /// Appends one row per run (observed when y is non-null, pending otherwise) with noise variance
  /// noise[r] (λ when null): the owner of each run's candidate provides its column (t + 1 + d
  /// doubles), every rank appends the same factor row and applies it to its slice.
  void append(const int* candidate, const double* y, const double* noise) {
    const int R = num_runs(), t = rows, w = t + 1 + d;
    std::vector<int> index(static_cast<std::size_t>(R), -1);  // internal position, −1: not held
    for (int r = 0; r < R; ++r) {
      if (shard.owns(candidate[r])) index[static_cast<std::size_t>(r)] = local(candidate[r]);
      history_ext[static_cast<std::size_t>(r)].push_back(candidate[r]);
    }
    if (!recompute && rows == cap) {
      catch_up_all(rows);  // grow() copies the rows of every block
      grow();
    }
    if (!recompute && lazy) {  // the observed candidate's block must know v_p[a] and σ²[a]
      std::vector<int> tasks;
      for (int r = 0; r < R; ++r) {
        if (index[r] >= 0) tasks.push_back(r * blocks + index[r] / kBlock);
      }
      catch_up(tasks, rows);
    }
    std::vector<double> cols(static_cast<std::size_t>(R) * w, 0.0);
    const int nt = recompute ? threads_for(0.5 * rows * rows * R) : 1;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int r = 0; r < R; ++r) {
      if (index[r] >= 0) owned_column(r, index[r], cols.data() + static_cast<std::size_t>(r) * w);
    }
    share_owned(shard, cols.data(), R * w, y != nullptr ? "observe" : "add_pending");
    for (int r = 0; r < R; ++r) {
      append_factor_row(r, index[r], cols.data() + static_cast<std::size_t>(r) * w, y,
                        noise != nullptr ? noise[r] : lambda);
    }
    for (int r = 0; r < R; ++r) {
      const double a = runs[static_cast<std::size_t>(r)].alpha.back();
      alpha2[static_cast<std::size_t>(r)].push_back(alpha2[static_cast<std::size_t>(r)].back() +
                                                    a * a);
    }
    if (recompute) {
      stale = mean_stale = true;
    } else if (!defers(y != nullptr)) {  // the row reaches every block at once
      catch_up_all(rows + 1);
    }
    ++rows;
  }

  /// Appends the d×m `pts` as candidates n, …, n + m − 1 (unsharded only; see
  /// FinitePosterior::add_candidates): brings every block up to date, widens the candidate
  /// capacity when needed (doubling), then computes each new column of V, σ² and μ by the row
  /// recurrence restricted to it. Defined in cpu/posterior_grow.cpp.
  void add_points(const Eigen::Ref<const Eigen::MatrixXd>& pts);
  /// add_points' per-candidate work for V stored as VT.
  template <class VT>
  void new_columns(int first, int count);
  /// Widens the candidate capacity to at least `need`, keeping every stored value.
  void widen(int need);
  /// Appends q observed rows per run (candidate, y and noise: R×q, run-major; noise null: λ for
  /// every row) as one block update
  /// (cpu/posterior_block.cpp; FinitePosterior::observe_batch): incremental mode updates V by a
  /// GEMM and a TRSM (in float when V is); recompute mode appends the factor rows q observe()
  /// calls would, bit for bit, computed in groups and tiles.
  void append_block(int q, const int* candidate, const double* y, const double* noise);

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

}  // namespace gpb::detail
