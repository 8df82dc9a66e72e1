// The CUDA FinitePosterior backend. V (R × cap × N, run dimension first, double or float) and μ, σ²
// (R × N) live on the device; the small factor state (L rows, α, history: detail::RunRows) lives
// on the host, exactly as in the CPU backend, and each observation uploads one row of L per run.
//
// Per observation (incremental mode): gather L[t, 0..t−1] = V[r, :, a_r] and σ²[r, a_r] (one small
// kernel + one transfer of R·(t+1) doubles), finish the factor row on the host, then one fused
// kernel computes v_t for every run and candidate and updates σ² (and μ). Recompute mode (V over
// the budget, or cudaMalloc out of memory) keeps only the host factor and rebuilds μ, σ² chunk by
// chunk on the device when they are next needed. Both follow the CPU's per-element operation order
// (kernels/posterior_rows.cuh), so CPU and CUDA agree up to the last-ulp differences of exp().
// The exclusion mask stays on the device between ucb_argmax calls (only changed bytes are sent),
// and the host mirrors of μ, σ² exist only for the runs whose mean()/variance() is read.
//
// Sharded (a Communicator of K ranks on the Context, one GPU per rank): the device holds only this
// rank's slice of the domain (points, V, μ, σ², mask); the host factor state is replicated. The
// owner of an observed candidate sends its column (L row, σ², k(x_a, x_a), x_a) to every rank
// (detail::share_owned), so the kernels take the rows' coordinates, never a candidate index from
// another slice; ucb_argmax reduces the ranks' local device argmaxes (detail::reduce_ucb_choices).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "engine/cpu/kernel_eval.hpp"
#include "engine/cpu/posterior_rows.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/matrix_cache.hpp"
#include "engine/cuda/ops_cuda.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/detail/mask_delta.hpp"
#include "engine/detail/posterior_backend.hpp"
#include "engine/detail/shard.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
namespace {

using cuda::DeviceBuffer;

class CudaPosterior final : public detail::PosteriorBackend {
 public:
  CudaPosterior(const Context& ctx, const Kernel& kernel, const Domain& domain, int runs,
                const PosteriorOptions& options)
      : ctx_(&ctx),
        shard_(detail::make_shard(ctx.communicator(), domain)),
        kernel_(kernel),
        eval_(kernel_),
        points_(detail::shard_points(shard_, domain)),
        d_(domain.dim()),
        n_(shard_.local_size()),
        runs_(static_cast<std::size_t>(runs)),
        lambda_(options.noise_variance),
        chunk_(options.chunk),
        mixed_(ctx.options().precision == Precision::Mixed) {
    GPB_EXPECTS(runs <= 65535, "posterior (cuda): runs must be <= 65535, got " << runs);
    cuda::set_device(ctx);
    cudaStream_t s = stream();
    const std::size_t nn = static_cast<std::size_t>(n_), total = nn * runs_.size();
    points_d_ = cuda::upload(points_.data(), static_cast<std::size_t>(points_.size()), s);
    kernel_d_ = cuda::upload_kernel(ctx, kernel_, s);  // matrix shared with the Context's other ops
    args_.f = kernel_d_.formula;
    args_.points = points_d_.data();
    args_.d = d_;
    args_.n = n_;
    args_.runs = runs;
    kdiag_d_.allocate(nn);
    cuda::launch_kernel_diag(ctx, args_.f, points_d_.data(), d_, n_, d_, kdiag_d_.data());
    mu_d_.allocate(total);
    s2_d_.allocate(total);
    GPB_CUDA_TRY(cudaMemsetAsync(mu_d_.data(), 0, total * sizeof(double), s));
    cuda::launch_fill_runs(ctx, kdiag_d_.data(), n_, runs, s2_d_.data());  // σ² = prior, all runs
    width_d_.allocate(runs_.size());
    anchor_d_.allocate(runs_.size());
    mu_h_.resize(runs_.size());  // host mirrors: allocated per run on first read (sync_host)
    s2_h_.resize(runs_.size());
    fresh_.assign(runs_.size(), 0);
    const double bytes = static_cast<double>(value_bytes()) * static_cast<double>(total) *
                         static_cast<double>(options.capacity);
    recompute_ = options.mode == PosteriorMode::Recompute ||
                 (options.mode == PosteriorMode::Auto &&
                  bytes > static_cast<double>(ctx.memory_budget_bytes()));
    if (!recompute_) {
      if (v_d_.try_allocate(value_bytes() * total * static_cast<std::size_t>(options.capacity))) {
        cap_ = options.capacity;
      } else {
        recompute_ = true;  // out of device memory: stream instead of storing V
      }
    }
    args_.cap = cap_;
  }

  ~CudaPosterior() override {
    // Queued kernels may still use the buffers freed below; errors cannot be thrown from here.
    cudaStreamSynchronize(stream());
  }
  CudaPosterior(const CudaPosterior&) = delete;
  CudaPosterior& operator=(const CudaPosterior&) = delete;

  int runs() const override { return static_cast<int>(runs_.size()); }
  int size() const override { return shard_.total; }
  int rows() const override { return rows_; }
  int pending() const override { return pending_; }
  bool recompute_mode() const override { return recompute_; }
  double noise_variance() const override { return lambda_; }

  void observe(const int* index, const double* y, const double* noise) override {
    append(index, y, noise);
  }

  void add_pending(const int* index, const double* noise) override {
    append(index, nullptr, noise);
    ++pending_;
  }

  void resolve_pending(const double* y) override {
    cuda::set_device(*ctx_);
    cudaStream_t s = stream();
    const int pend = pending_, begin = rows_ - pending_;
    std::vector<double> alphas(runs_.size() * static_cast<std::size_t>(pend));
    for (std::size_t r = 0; r < runs_.size(); ++r) {
      for (int i = 0; i < pend; ++i) {
        const std::size_t k = r * pend + i;
        resolve_row(runs_[r], begin + i, y[k]);
        alphas[k] = runs_[r].alpha[static_cast<std::size_t>(begin + i)];
      }
    }
    if (recompute_) {
      stale_ = true;
    } else {
      alpha_d_.reserve_discard(alphas.size(), s);
      cuda::copy_to_device(alpha_d_.data(), alphas.data(), alphas.size(), s);
      cuda::launch_add_rows_to_mean(*ctx_, args_, v_d_.data(), mixed_, begin, pend, alpha_d_.data(),
                                    mu_d_.data());
    }
    pending_ = 0;
    invalidate_host();
  }

  /// New candidates: their columns, μ and σ² from the host factor (detail::grown_column, the
  /// steps of the CPU), then points, k(x, x), μ, σ² and V moved on the device to the new width.
  void add_candidates(const Eigen::Ref<const Eigen::MatrixXd>& pts) override {
    cuda::set_device(*ctx_);
    cudaStream_t s = stream();
    const int m = static_cast<int>(pts.cols()), n0 = n_, n1 = n_ + m, t = recompute_ ? 0 : rows_;
    const std::size_t R = runs_.size(), mm = static_cast<std::size_t>(m), vb = value_bytes();
    points_.conservativeResize(Eigen::NoChange, n1);
    points_.middleCols(n0, m) = pts;
    std::vector<double> kd(mm), mu(R * mm, 0.0), s2(R * mm);
    std::vector<unsigned char> cols(R * static_cast<std::size_t>(t) * mm * vb);
    for (std::size_t r = 0; r < R; ++r) {
      for (std::size_t i = 0; i < mm; ++i) {
        const double* x = points_.col(n0 + static_cast<long>(i)).data();
        kd[i] = eval_(x, x, d_);
        const std::size_t e = r * mm + i, at = (r * t * mm + i) * vb;
        s2[e] = kd[i];
        if (mixed_) {
          detail::grown_column(eval_, x, d_, runs_[r], t, reinterpret_cast<float*>(&cols[at]), mm,
                               mu[e], s2[e]);
        } else {
          detail::grown_column(eval_, x, d_, runs_[r], t, reinterpret_cast<double*>(&cols[at]), mm,
                               mu[e], s2[e]);
        }
      }
    }
    const auto widen = [&](auto& buf, std::size_t height, std::size_t elem, const void* fresh) {
      std::remove_reference_t<decltype(buf)> grown;  // a DeviceBuffer of the same type
      grown.allocate(height * static_cast<std::size_t>(n1) * elem / sizeof(*buf.data()));
      const std::size_t w0 = static_cast<std::size_t>(n0) * elem, w1 = n1 * elem;
      auto* dst = reinterpret_cast<unsigned char*>(grown.data());
      GPB_CUDA_TRY(
          cudaMemcpy2DAsync(dst, w1, buf.data(), w0, w0, height, cudaMemcpyDeviceToDevice, s));
      if (fresh != nullptr) {
        GPB_CUDA_TRY(cudaMemcpy2DAsync(dst + w0, w1, fresh, mm * elem, mm * elem, height,
                                       cudaMemcpyHostToDevice, s));
      }
      GPB_CUDA_TRY(cudaStreamSynchronize(s));  // before the old buffer is freed
      buf = std::move(grown);
    };
    widen(points_d_, 1, d_ * sizeof(double), points_.col(n0).data());
    widen(kdiag_d_, 1, sizeof(double), kd.data());
    widen(mu_d_, R, sizeof(double), recompute_ && rows_ > 0 ? nullptr : mu.data());
    widen(s2_d_, R, sizeof(double), recompute_ && rows_ > 0 ? nullptr : s2.data());
    if (!recompute_) {
      // V: R·cap rows of n0 values become rows of n1; the new columns hold rows [0, t) of each run.
      const std::size_t w0 = static_cast<std::size_t>(n0) * vb,
                        w1 = static_cast<std::size_t>(n1) * vb;
      DeviceBuffer<unsigned char> grown;
      if (grown.try_allocate(w1 * R * static_cast<std::size_t>(cap_))) {
        GPB_CUDA_TRY(cudaMemcpy2DAsync(grown.data(), w1, v_d_.data(), w0, w0,
                                       R * static_cast<std::size_t>(cap_), cudaMemcpyDeviceToDevice,
                                       s));
        for (std::size_t r = 0; r < R && t > 0; ++r) {
          GPB_CUDA_TRY(cudaMemcpy2DAsync(grown.data() + r * cap_ * w1 + w0, w1,
                                         cols.data() + r * t * mm * vb, mm * vb, mm * vb,
                                         static_cast<std::size_t>(t), cudaMemcpyHostToDevice, s));
        }
        GPB_CUDA_TRY(cudaStreamSynchronize(s));
        v_d_ = std::move(grown);
      } else {  // out of device memory: keep only the factor from now on
        v_d_.reset();
        cap_ = 0;
        recompute_ = true;
      }
    }
    if (recompute_ && rows_ > 0) stale_ = true;
    n_ = n1;
    shard_.end += m;
    shard_.total += m;
    args_.points = points_d_.data();
    args_.n = n1;
    args_.cap = cap_;
    excluded_shadow_.clear();  // the device mask is re-sent whole at the new width
    kdiag_h_.clear();
    invalidate_host();
  }

  const double* mean(int run) const override {
    sync_host(run);
    return mu_h_[static_cast<std::size_t>(run)].data();
  }
  const double* variance(int run) const override {
    sync_host(run);
    return s2_h_[static_cast<std::size_t>(run)].data();
  }

  std::vector<UcbChoice> ucb_argmax(const double* width, const std::uint8_t* excluded,
                                    std::vector<Rng>* tiebreak) const override {
    cuda::set_device(*ctx_);
    refresh();
    cudaStream_t s = stream();
    cuda::copy_to_device(width_d_.data(), width, runs_.size(), s);
    const std::uint8_t* ex = excluded != nullptr ? device_mask(excluded) : nullptr;
    if (shard_.sharded()) return sharded_choices(width, ex, tiebreak);
    std::vector<Rng*> tb;
    if (tiebreak != nullptr) {
      for (Rng& g : *tiebreak) tb.push_back(&g);
    }
    return cuda::ucb_choices(*ctx_, mu_d_.data(), s2_d_.data(), n_, runs(), width_d_.data(), width,
                             ex, tb);
  }

  Eigen::MatrixXd rows_at(int run, const std::vector<int>& candidates) const override {
    cuda::set_device(*ctx_);
    const int t = rows_, m = static_cast<int>(candidates.size());
    std::vector<double> cols(static_cast<std::size_t>(m) * t, 0.0);
    std::vector<float> colf(static_cast<std::size_t>(t));
    const detail::RunRows& rr = runs_[static_cast<std::size_t>(run)];
    for (int i = 0; i < m; ++i) {
      const int a = candidates[static_cast<std::size_t>(i)];
      if (!shard_.owns(a) || t == 0) continue;
      const int j = a - shard_.begin;
      double* out = cols.data() + static_cast<std::size_t>(i) * t;
      if (recompute_) {
        detail::column_of_rows(eval_, points_.data(), d_, rr, t, j, out);
        continue;
      }
      const std::size_t vb = value_bytes(), nn = static_cast<std::size_t>(n_);
      const unsigned char* src =
          v_d_.data() + (static_cast<std::size_t>(run) * cap_ * nn + j) * vb;  // v_0[j] of run
      void* dst = mixed_ ? static_cast<void*>(colf.data()) : static_cast<void*>(out);
      GPB_CUDA_TRY(cudaMemcpy2DAsync(dst, vb, src, nn * vb, vb, static_cast<std::size_t>(t),
                                     cudaMemcpyDeviceToHost, stream()));
      GPB_CUDA_TRY(cudaStreamSynchronize(stream()));
      if (mixed_) std::copy(colf.begin(), colf.end(), out);
    }
    detail::share_owned(shard_, cols.data(), m * t, "rows_at");
    return Eigen::Map<const Eigen::MatrixXd>(cols.data(), t, m);
  }

  Eigen::MatrixXd apply_rows(int run, const Eigen::Ref<const Eigen::MatrixXd>& B) const override {
    cuda::set_device(*ctx_);
    const int t = rows_, b = static_cast<int>(B.cols());
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(n_, b);
    if (t == 0 || b == 0) return out;
    if (recompute_ || mixed_) {  // V is not kept in double: rebuild it on the host, chunk by chunk
      const detail::RunRows& rr = runs_[static_cast<std::size_t>(run)];
      Eigen::MatrixXd w(chunk_, t);
      std::vector<double> acc(static_cast<std::size_t>(chunk_));
      std::vector<double*> ptrs(static_cast<std::size_t>(t));
      for (int j0 = 0; j0 < n_; j0 += chunk_) {
        const int len = std::min(chunk_, n_ - j0);
        for (int q = 0; q < t; ++q)
          ptrs[static_cast<std::size_t>(q)] = w.data() + static_cast<long>(q) * chunk_;
        detail::rows_over_block(eval_, points_.data(), d_, rr, 0, t, j0, len, ptrs.data(),
                                acc.data());
        out.middleRows(j0, len).noalias() = w.topRows(len) * B;
      }
      return out;
    }
    cudaStream_t s = stream();
    const Eigen::MatrixXd Bc = B;  // contiguous t×b
    DeviceBuffer<double> b_d = cuda::upload(Bc.data(), static_cast<std::size_t>(Bc.size()), s);
    DeviceBuffer<double> out_d;
    out_d.allocate(static_cast<std::size_t>(n_) * b);
    const double one = 1.0, zero = 0.0;
    const double* v = reinterpret_cast<const double*>(v_d_.data()) +
                      static_cast<std::size_t>(run) * cap_ * static_cast<std::size_t>(n_);
    GPB_CUBLAS_TRY(cublasDgemm(cuda::resources(*ctx_).cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n_, b,
                               t, &one, v, n_, b_d.data(), t, &zero, out_d.data(), n_));
    cuda::copy_to_host(out.data(), out_d.data(), static_cast<std::size_t>(out.size()), s);
    return out;
  }

  double info_gain(int run) const override {
    return runs_[static_cast<std::size_t>(run)].info_gain();
  }

  const std::vector<int>& history(int run) const override {
    return runs_[static_cast<std::size_t>(run)].history;
  }

  const detail::RunRows& run_rows(int run) const override {
    return runs_[static_cast<std::size_t>(run)];
  }

 private:
  const Context* ctx_;
  detail::Shard shard_;  // this rank's candidates [begin, end) of N (all of them on one rank)
  Kernel kernel_;
  detail::KernelEval eval_;  // host twin, for recompute-mode factor rows
  Eigen::MatrixXd points_;   // d × n_: the slice
  int d_ = 0, n_ = 0;        // n_: candidates held (N on one rank)
  std::vector<detail::RunRows> runs_;
  double lambda_ = 0;
  int chunk_ = 0;
  bool mixed_ = false;
  bool recompute_ = false;
  int cap_ = 0;
  int rows_ = 0, pending_ = 0;
  mutable bool stale_ = false;  // recompute mode: device μ, σ² out of date

  cuda::RowArgs args_;
  cuda::DeviceKernel kernel_d_;  // the Context's cached precomputed matrix, ARD lengthscales
  DeviceBuffer<double> points_d_, kdiag_d_;
  mutable DeviceBuffer<double> mu_d_, s2_d_;  // R × N; rebuilt by refresh() in recompute mode
  DeviceBuffer<unsigned char> v_d_;  // R × cap × N values of VT (double, or float when mixed)
  DeviceBuffer<double> lrows_d_, alpha_d_, gather_d_, xa_d_;
  DeviceBuffer<int> anchor_d_;
  mutable DeviceBuffer<double> width_d_;
  // The exclusion mask on the device (R × n_) and the host copy of what it holds; each
  // ucb_argmax call sends only the entries that changed (device_mask).
  mutable DeviceBuffer<std::uint8_t> excluded_d_;
  mutable std::vector<std::uint8_t> excluded_shadow_;
  mutable DeviceBuffer<long long> delta_pos_d_;
  mutable DeviceBuffer<unsigned char> delta_val_d_;
  // Recompute-mode device copies of the factor state and the scratch W.
  mutable DeviceBuffer<double> hx_d_, lpacked_d_, alphas_all_d_, w_d_;
  mutable DeviceBuffer<unsigned char> resolved_d_;
  // Host mirrors of μ, σ² over all N: one vector per run, allocated and copied (gathered over
  // the ranks when sharded) on its first read.
  mutable std::vector<std::vector<double>> mu_h_, s2_h_;
  mutable std::vector<double> slice_h_;  // sharded: one run's slice on its way to the gather
  mutable std::vector<char> fresh_;

  cudaStream_t stream() const { return cuda::stream_of(*ctx_); }
  std::size_t value_bytes() const { return mixed_ ? sizeof(float) : sizeof(double); }
  void invalidate_host() { std::fill(fresh_.begin(), fresh_.end(), 0); }

  static void resolve_row(detail::RunRows& run, int q, double y) {
    const double m = detail::mean_at_row(run, q);
    run.alpha[static_cast<std::size_t>(q)] = (y - m) / run.L[static_cast<std::size_t>(q)][q];
    run.resolved[static_cast<std::size_t>(q)] = 1;
  }

  void sync_host(int run) const {
    cuda::set_device(*ctx_);
    refresh();
    const std::size_t r = static_cast<std::size_t>(run);
    if (fresh_[r] != 0) return;
    const std::size_t off = r * n_, nn = static_cast<std::size_t>(n_);
    if (shard_.sharded()) {  // collective: every rank reads the same runs in the same order
      slice_h_.resize(nn);
      cuda::copy_to_host(slice_h_.data(), mu_d_.data() + off, nn, stream());
      detail::gather_slices(shard_, slice_h_.data(), mu_h_[r]);
      cuda::copy_to_host(slice_h_.data(), s2_d_.data() + off, nn, stream());
      detail::gather_slices(shard_, slice_h_.data(), s2_h_[r]);
    } else {
      mu_h_[r].resize(nn);
      s2_h_[r].resize(nn);
      GPB_CUDA_TRY(cudaMemcpyAsync(mu_h_[r].data(), mu_d_.data() + off, nn * sizeof(double),
                                   cudaMemcpyDeviceToHost, stream()));
      cuda::copy_to_host(s2_h_[r].data(), s2_d_.data() + off, nn, stream());
    }
    fresh_[r] = 1;
  }

  /// Sharded ucb_argmax: each run's best over the slice on the device (global indices), then one
  /// reduction over the ranks with the one-rank tie semantics; a later tie, when drawn, is found
  /// on the device of the rank that holds it.
  std::vector<UcbChoice> sharded_choices(const double* width, const std::uint8_t* ex,
                                         std::vector<Rng>* tiebreak) const {
    const int R = runs();
    std::vector<cuda::DeviceBest> best(static_cast<std::size_t>(R));
    cuda::device_ucb_argmax(*ctx_, mu_d_.data(), s2_d_.data(), n_, R, width_d_.data(), ex,
                            best.data());
    std::vector<detail::UcbRecord> local(static_cast<std::size_t>(R));
    for (int r = 0; r < R; ++r) {
      const cuda::DeviceBest& b = best[static_cast<std::size_t>(r)];
      detail::UcbRecord& rec = local[static_cast<std::size_t>(r)];
      if (b.index >= 0) {
        rec.score = b.score;
        rec.index = shard_.begin + b.index;
        rec.ties = b.ties;
      }
      if (b.nan_index >= 0) {  // the inputs of the lowest NaN score, for the message
        const std::size_t e = static_cast<std::size_t>(r) * n_ + b.nan_index;
        rec.nan_index = shard_.begin + b.nan_index;
        cuda::copy_to_host(&rec.nan_mean, mu_d_.data() + e, 1, stream());
        cuda::copy_to_host(&rec.nan_var, s2_d_.data() + e, 1, stream());
      }
    }
    const detail::KthTie kth = [&](int r, double score, int k) {
      int chosen = -1;
      cuda::device_select_ties(*ctx_, mu_d_.data(), s2_d_.data(), n_, width_d_.data(), ex, 1, &r,
                               &score, &k, &chosen);
      return shard_.begin + chosen;
    };
    return detail::reduce_ucb_choices(shard_, std::move(local), width, tiebreak, kth);
  }

  /// The device copy of the R × n_ mask `excluded` (host): uploaded whole on first use or when more
  /// than 1/16 of it changed, otherwise only the changed bytes (positions and values, then one
  /// scatter kernel).
  const std::uint8_t* device_mask(const std::uint8_t* excluded) const {
    cudaStream_t s = stream();
    const std::size_t total = runs_.size() * static_cast<std::size_t>(n_);
    if (excluded_shadow_.empty()) {
      excluded_d_.allocate(total);
      excluded_shadow_.assign(excluded, excluded + total);
      cuda::copy_to_device(excluded_d_.data(), excluded_shadow_.data(), total, s);
      return excluded_d_.data();
    }
    std::vector<std::int64_t> pos;
    std::vector<std::uint8_t> val;
    if (!detail::mask_delta(excluded_shadow_.data(), excluded, total, total / 16, &pos, &val)) {
      cuda::copy_to_device(excluded_d_.data(), excluded_shadow_.data(), total, s);
    } else if (!pos.empty()) {
      delta_pos_d_.reserve_discard(pos.size(), s);
      delta_val_d_.reserve_discard(val.size(), s);
      static_assert(sizeof(long long) == sizeof(std::int64_t), "64-bit positions");
      cuda::copy_to_device(delta_pos_d_.data(), reinterpret_cast<const long long*>(pos.data()),
                           pos.size(), s);
      cuda::copy_to_device(delta_val_d_.data(), val.data(), val.size(), s);
      cuda::launch_scatter_bytes(*ctx_, delta_pos_d_.data(), delta_val_d_.data(),
                                 static_cast<long long>(pos.size()), excluded_d_.data());
    }
    return excluded_d_.data();
  }

  /// Doubles the row capacity of V, keeping the rows so far; on out-of-memory switches to
  /// recompute mode (the host factor holds everything needed).
  void grow() {
    const int new_cap = std::max(2 * cap_, 1);
    const std::size_t nn = static_cast<std::size_t>(n_), vb = value_bytes();
    DeviceBuffer<unsigned char> grown;
    if (!grown.try_allocate(vb * runs_.size() * nn * static_cast<std::size_t>(new_cap))) {
      v_d_.reset();
      cap_ = 0;
      recompute_ = true;
      stale_ = true;
      return;
    }
    const std::size_t row_bytes = nn * vb;
    for (std::size_t r = 0; r < runs_.size(); ++r) {  // one copy per run: no 2-D pitch limits
      GPB_CUDA_TRY(cudaMemcpyAsync(
          grown.data() + r * row_bytes * new_cap, v_d_.data() + r * row_bytes * cap_,
          row_bytes * static_cast<std::size_t>(rows_), cudaMemcpyDeviceToDevice, stream()));
    }
    GPB_CUDA_TRY(cudaStreamSynchronize(stream()));  // before the old buffer is freed
    v_d_ = std::move(grown);
    cap_ = new_cap;
    args_.cap = cap_;
  }

  /// Run r's column at its held candidate (slice position j) for the next row t = rows_, laid
  /// out as every rank needs it: out[0..t−1] = L[t, p], out[t] = σ²_{t−1}[a], out[t+1] =
  /// k(x_a, x_a), out[t+2..t+1+d] = x_a. `gathered` (incremental mode) holds V[r, :t, j] and
  /// σ²[r, j]; recompute mode runs the row recurrence restricted to column j on the host.
  void owned_column(int r, int j, const double* gathered, double* out) const {
    const int t = rows_;
    if (recompute_) {
      const detail::RunRows& run = runs_[static_cast<std::size_t>(r)];
      detail::column_of_rows(eval_, points_.data(), d_, run, t, j, out);
      double sv = kdiag_host(j);
      for (int p = 0; p < t; ++p) sv = detail::var_step(sv, out[p]);
      out[t] = sv;
    } else {
      std::copy(gathered, gathered + t + 1, out);
    }
    out[t + 1] = kdiag_host(j);
    std::copy(points_.col(j).data(), points_.col(j).data() + d_, out + t + 2);
  }

  /// The columns (owned_column's layout, R × (t + 2 + d)) of every run's candidate `index[r]`
  /// (global), each from the rank that holds it: the others read zeros, then share_owned.
  std::vector<double> factor_columns(const int* index, bool observed) {
    const int t = rows_;
    const std::size_t R = runs_.size(), w = static_cast<std::size_t>(t) + 2 + d_;
    std::vector<int> local(R, -1);  // slice position, −1: another rank holds it
    for (std::size_t r = 0; r < R; ++r) {
      if (shard_.owns(index[r])) local[r] = index[r] - shard_.begin;
    }
    std::vector<double> gathered;
    if (!recompute_) {  // the stored values L[t,p] = v_p[a], σ²_{t−1}[a] (anchor 0 if not held)
      std::vector<int> anchor(R);
      for (std::size_t r = 0; r < R; ++r) anchor[r] = std::max(local[r], 0);
      cudaStream_t s = stream();
      cuda::copy_to_device(anchor_d_.data(), anchor.data(), R, s);
      const std::size_t g = static_cast<std::size_t>(t) + 1;
      gather_d_.reserve_discard(R * g, s);
      cuda::launch_gather_factor_row(*ctx_, args_, v_d_.data(), mixed_, t, anchor_d_.data(),
                                     s2_d_.data(), gather_d_.data());
      gathered.resize(R * g);
      cuda::copy_to_host(gathered.data(), gather_d_.data(), R * g, s);
    }
    std::vector<double> cols(R * w, 0.0);
    for (std::size_t r = 0; r < R; ++r) {
      if (local[r] < 0) continue;
      const double* g =
          recompute_ ? nullptr : gathered.data() + r * (static_cast<std::size_t>(t) + 1);
      owned_column(static_cast<int>(r), local[r], g, cols.data() + r * w);
    }
    detail::share_owned(shard_, cols.data(), static_cast<int>(R * w),
                        observed ? "observe" : "add_pending");
    return cols;
  }

  /// Appends one row per run (observed when y is non-null, pending otherwise), with the noise
  /// variance noise[r] (λ when null).
  void append(const int* index, const double* y, const double* noise) {
    cuda::set_device(*ctx_);
    cudaStream_t s = stream();
    if (!recompute_ && rows_ == cap_) grow();
    const int t = rows_;
    const std::size_t R = runs_.size(), w = static_cast<std::size_t>(t) + 2 + d_;
    const std::size_t l = static_cast<std::size_t>(t) + 1, dd = static_cast<std::size_t>(d_);
    const std::vector<double> cols = factor_columns(index, y != nullptr);
    std::vector<double> lrows(R * l), xa(R * dd), alpha(R, 0.0);
    for (std::size_t r = 0; r < R; ++r) {
      const double* c = cols.data() + r * w;
      detail::RunRows& run = runs_[r];
      const double sv = c[t];
      std::copy(c, c + t, lrows.begin() + static_cast<long>(r * l));
      const double lam = noise != nullptr ? noise[r] : lambda_;
      lrows[r * l + t] = detail::pivot(lam, sv, c[t + 1]);
      std::copy(c + t + 2, c + t + 2 + d_, xa.begin() + static_cast<long>(r * dd));
      run.history.push_back(index[r]);  // global candidate indices
      run.xs.insert(run.xs.end(), c + t + 2, c + t + 2 + d_);
      run.L.emplace_back(lrows.begin() + static_cast<long>(r * l),
                         lrows.begin() + static_cast<long>((r + 1) * l));
      run.pivot_var.push_back(sv);
      run.noise.push_back(lam);
      run.alpha.push_back(0.0);
      run.resolved.push_back(0);
      if (y != nullptr) {
        resolve_row(run, t, y[r]);
        alpha[r] = run.alpha[static_cast<std::size_t>(t)];
      }
    }
    if (recompute_) {
      stale_ = true;
    } else {
      lrows_d_.reserve_discard(R * l, s);
      cuda::copy_to_device(lrows_d_.data(), lrows.data(), R * l, s);
      xa_d_.reserve_discard(R * dd, s);
      cuda::copy_to_device(xa_d_.data(), xa.data(), R * dd, s);
      if (y != nullptr) {
        alpha_d_.reserve_discard(R, s);
        cuda::copy_to_device(alpha_d_.data(), alpha.data(), R, s);
      }
      cuda::launch_append_row(*ctx_, args_, v_d_.data(), mixed_, t, lrows_d_.data(), xa_d_.data(),
                              y != nullptr ? alpha_d_.data() : nullptr, mu_d_.data(), s2_d_.data());
    }
    ++rows_;
    invalidate_host();
  }

  mutable std::vector<double> kdiag_h_;
  double kdiag_host(int a) const {
    if (kdiag_h_.empty()) {
      kdiag_h_.resize(static_cast<std::size_t>(n_));
      cuda::copy_to_host(kdiag_h_.data(), kdiag_d_.data(), kdiag_h_.size(), stream());
    }
    return kdiag_h_[static_cast<std::size_t>(a)];
  }

  /// Recompute mode: rebuilds μ, σ² on the device in chunks of candidates (no V kept).
  void refresh() const {
    if (!stale_) return;
    cudaStream_t s = stream();
    const int t = rows_;
    const std::size_t R = runs_.size(), tt = static_cast<std::size_t>(t);
    const std::size_t dd = static_cast<std::size_t>(d_);
    std::vector<double> hx(R * tt * dd), alpha(R * tt), lpacked(R * tt * (tt + 1) / 2);
    std::vector<unsigned char> resolved(R * tt);
    for (std::size_t r = 0; r < R; ++r) {
      const detail::RunRows& run = runs_[r];
      double* lp = lpacked.data() + r * tt * (tt + 1) / 2;
      std::copy(run.xs.begin(), run.xs.begin() + static_cast<long>(tt * dd),
                hx.begin() + static_cast<long>(r * tt * dd));
      for (std::size_t q = 0; q < tt; ++q) {
        alpha[r * tt + q] = run.alpha[q];
        resolved[r * tt + q] = run.resolved[q];
        std::copy(run.L[q].begin(), run.L[q].end(), lp + q * (q + 1) / 2);
      }
    }
    hx_d_.reserve_discard(hx.size(), s);
    alphas_all_d_.reserve_discard(alpha.size(), s);
    resolved_d_.reserve_discard(resolved.size(), s);
    lpacked_d_.reserve_discard(lpacked.size(), s);
    cuda::copy_to_device(hx_d_.data(), hx.data(), hx.size(), s);
    cuda::copy_to_device(alphas_all_d_.data(), alpha.data(), alpha.size(), s);
    cuda::copy_to_device(resolved_d_.data(), resolved.data(), resolved.size(), s);
    cuda::copy_to_device(lpacked_d_.data(), lpacked.data(), lpacked.size(), s);
    // Chunk length: the scratch W (R·t·len doubles) stays within a quarter of the budget (at
    // least 64 MiB); halve it while cudaMalloc reports out-of-memory.
    const double scratch =
        std::max(static_cast<double>(ctx_->memory_budget_bytes()) / 4.0, 64.0 * (1 << 20));
    const double per_candidate = 8.0 * static_cast<double>(R) * static_cast<double>(std::max(t, 1));
    long len =
        static_cast<long>(std::min<double>(n_, std::max<double>(chunk_, scratch / per_candidate)));
    len = std::max(1L, len);
    const std::size_t need = R * tt;
    if (w_d_.size() < need * static_cast<std::size_t>(len)) {
      GPB_CUDA_TRY(cudaStreamSynchronize(s));  // the old scratch may still be in use
      while (!w_d_.try_allocate(need * static_cast<std::size_t>(len))) {
        GPB_EXPECTS(len > 1, "posterior (cuda): out of device memory for the recompute scratch");
        len = std::max(1L, len / 2);
      }
    } else {
      len = static_cast<long>(need == 0 ? n_ : std::min<std::size_t>(n_, w_d_.size() / need));
    }
    for (long j0 = 0; j0 < n_; j0 += len) {
      const int l = static_cast<int>(std::min<long>(len, n_ - j0));
      cuda::launch_recompute_chunk(*ctx_, args_, static_cast<int>(j0), l, t, hx_d_.data(),
                                   lpacked_d_.data(), alphas_all_d_.data(), resolved_d_.data(),
                                   kdiag_d_.data(), w_d_.data(), mu_d_.data(), s2_d_.data());
    }
    stale_ = false;
    std::fill(fresh_.begin(), fresh_.end(), 0);
  }
};

}  // namespace

namespace detail {
std::unique_ptr<PosteriorBackend> make_cuda_posterior(const Context& ctx, const Kernel& kernel,
                                                      const Domain& domain, int runs,
                                                      const PosteriorOptions& options) {
  return std::make_unique<CudaPosterior>(ctx, kernel, domain, runs, options);
}
}  // namespace detail

}  // namespace gpb
