// The CPU FinitePosterior backend: exact GP posterior over a finite domain (or this rank's slice
// of it) for R runs, incremental (V kept) or recompute-and-stream (only L and α kept). See
// include/gpbandit/engine/posterior.hpp; the facade in src/engine/posterior.cpp validates arguments
// and picks this backend on Backend::Cpu. The state and its updates are in cpu/posterior_state.hpp,
// the UCB argmax over the slice in cpu/posterior_argmax.cpp.
#include <memory>

#include "engine/cpu/block_products.hpp"
#include "engine/cpu/posterior_argmax.hpp"
#include "engine/cpu/posterior_state.hpp"
#include "engine/detail/posterior_backend.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {

class CpuPosterior final : public detail::PosteriorBackend {
 public:
  CpuPosterior(const Context& ctx, const Kernel& kernel, const Domain& domain, int runs,
               const PosteriorOptions& options)
      : s_(ctx, kernel, domain, runs, options) {
    detail::CpuState& s = s_;
    const double bytes =
        FinitePosterior::incremental_bytes(runs, s.n, options.capacity) * (s.mixed ? 0.5 : 1.0);
    s.recompute = options.mode == PosteriorMode::Recompute || s.streamed() ||
                  (options.mode == PosteriorMode::Auto &&
                   bytes > static_cast<double>(ctx.memory_budget_bytes()));
    if (!s.recompute && options.lazy && s.kernel.type() != KernelType::Precomputed &&
        !s.kernel.fingerprint() &&  // packed words have no coordinates to split on
        s.blocks > 2) {
      s.reorder();
    }
    s.kdiag = s.diagonal();
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
  int size() const override { return s_.shard.total; }
  int rows() const override { return s_.rows; }
  int pending() const override { return s_.pending; }
  bool recompute_mode() const override { return s_.recompute; }
  double noise_variance() const override { return s_.lambda; }

  void observe(const int* index, const double* y, const double* noise) override {
    s_.append(index, y, noise);
  }

  void observe_batch(int q, const int* index, const double* y, const double* noise) override {
    s_.append_block(q, index, y, noise);
  }

  void add_pending(const int* index, const double* noise) override {
    s_.append(index, nullptr, noise);
    ++s_.pending;
  }

  void resolve_pending(const double* y) override {
    s_.resolve_last(s_.pending, y);
    s_.pending = 0;
  }

  void add_candidates(const Eigen::Ref<const Eigen::MatrixXd>& points) override {
    s_.add_points(points);
  }

  const double* mean(int run) const override {
    if (s_.recompute) {  // K(D, X_t)·β: O(N·t), no V (cpu/posterior_mean.cpp)
      s_.refresh_mean();
      return over_domain(s_.mu_direct.data() + static_cast<std::size_t>(run) * s_.ncap,
                         s_.gathered_mu);
    }
    bring_up_to_date();
    return over_domain(s_.to_candidate_order(s_.mu, s_.mu_ext, run), s_.gathered_mu);
  }
  const double* variance(int run) const override {
    bring_up_to_date();
    return over_domain(s_.to_candidate_order(s_.sigma2, s_.s2_ext, run), s_.gathered_s2);
  }

  std::vector<UcbChoice> ucb_argmax(const double* width, const std::uint8_t* excluded,
                                    std::vector<Rng>* tiebreak) const override {
    const detail::CpuState& s = s_;
    s.refresh();
    const int R = s.num_runs();
    std::vector<detail::UcbRecord> local(static_cast<std::size_t>(R));
    std::vector<std::vector<int>> ties(static_cast<std::size_t>(R));
    for (int r = 0; r < R; ++r) {
      local[static_cast<std::size_t>(r)] = detail::local_ucb_record(
          s, r, width[r], mask_of(excluded, r), ties[static_cast<std::size_t>(r)]);
    }
    const detail::KthTie kth = [&](int r, double score, int k) {
      return detail::local_kth_tie(s, r, width[r], mask_of(excluded, r), score, k,
                                   local[static_cast<std::size_t>(r)],
                                   ties[static_cast<std::size_t>(r)]);
    };
    return detail::reduce_ucb_choices(s.shard, local, width, tiebreak, kth);  // kth reads local
  }

  Eigen::MatrixXd rows_at(int run, const std::vector<int>& candidates) const override {
    bring_up_to_date();
    const detail::CpuState& s = s_;
    const int t = s.rows, m = static_cast<int>(candidates.size()), w = t + 1 + s.d;
    std::vector<double> cols(static_cast<std::size_t>(m) * w, 0.0);
    for (int i = 0; i < m; ++i) {
      const int a = candidates[static_cast<std::size_t>(i)];
      if (s.shard.owns(a)) s.owned_column(run, s.local(a), cols.data() + static_cast<long>(i) * w);
    }
    detail::share_owned(s.shard, cols.data(), m * w, "rows_at");
    Eigen::MatrixXd out(t, m);
    for (int i = 0; i < m; ++i) {
      for (int p = 0; p < t; ++p) out(p, i) = cols[static_cast<std::size_t>(i) * w + p];
    }
    return out;
  }

  Eigen::MatrixXd apply_rows(int run, const Eigen::Ref<const Eigen::MatrixXd>& B) const override {
    bring_up_to_date();
    const detail::CpuState& s = s_;
    const int t = s.rows, n = s.n;
    Eigen::MatrixXd internal(n, B.cols());
    if (!s.recompute) {
      // V's rows are ncap apart (≥ n once candidates were added).
      if (s.mixed) {
        const Eigen::Map<const Eigen::MatrixXf, 0, Eigen::OuterStride<>> v(
            s.vrow<float>(run, 0), n, t, Eigen::OuterStride<>(s.ncap));
        internal.noalias() = v.cast<double>() * B;
      } else {  // −(0 − V·B): the block update's parallel product (block_products.hpp)
        internal.setZero();
        const Eigen::MatrixXd b = B;
        detail::block_sub_product(n, t, static_cast<int>(b.cols()), s.vrow<double>(run, 0), s.ncap,
                                  b.data(), t, internal.data(), n,
                                  s.threads_for(2.0 * n * t * static_cast<double>(b.cols())));
        internal = -internal;
      }
    } else {  // rebuild V chunk by chunk (the recompute mode's rows), multiply, drop
      const detail::RunRows& rr = s.runs[static_cast<std::size_t>(run)];
      const int chunk = s.chunk;
      Eigen::MatrixXd w(chunk, std::max(t, 1));
      std::vector<double> acc(static_cast<std::size_t>(chunk));
      std::vector<double*> ptrs(static_cast<std::size_t>(t));
      Eigen::MatrixXd buf;  // a streamed chunk's encodings
      for (int j0 = 0; j0 < n; j0 += chunk) {
        const int len = std::min(chunk, n - j0);
        for (int q = 0; q < t; ++q)
          ptrs[static_cast<std::size_t>(q)] = w.data() + static_cast<long>(q) * chunk;
        const double* x = t > 0 ? s.chunk_points(j0, len, buf) : nullptr;  // x = candidate j0
        detail::rows_over_block(s.eval, x, s.d, rr, 0, t, 0, len, ptrs.data(), acc.data());
        internal.middleRows(j0, len).noalias() = w.topRows(len).leftCols(t) * B;
      }
    }
    if (s.order.empty()) return internal;
    Eigen::MatrixXd out(n, B.cols());
    for (int i = 0; i < n; ++i) out.row(s.order[static_cast<std::size_t>(i)]) = internal.row(i);
    return out;
  }

  double info_gain(int run) const override {
    return s_.runs[static_cast<std::size_t>(run)].info_gain();
  }

  const std::vector<int>& history(int run) const override {
    return s_.history_ext[static_cast<std::size_t>(run)];
  }

  const detail::RunRows& run_rows(int run) const override {
    return s_.runs[static_cast<std::size_t>(run)];
  }

 private:
  /// Run r's row of the R × n mask of the candidates held (null stays null).
  const std::uint8_t* mask_of(const std::uint8_t* excluded, int r) const {
    return excluded == nullptr ? nullptr : excluded + static_cast<std::size_t>(r) * s_.n;
  }
  void bring_up_to_date() const {
    s_.refresh();
    if (s_.lazy) s_.catch_up_all(s_.rows);
  }
  /// The slice's values in candidate order, gathered over every rank into `all` when sharded.
  const double* over_domain(const double* slice, std::vector<double>& all) const {
    if (!s_.shard.sharded()) return slice;
    detail::gather_slices(s_.shard, slice, all);
    return all.data();
  }

  detail::CpuState s_;
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
