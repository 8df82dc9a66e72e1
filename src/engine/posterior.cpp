// FinitePosterior facade: validates every argument, then forwards to the backend the Context
// selects (detail::PosteriorBackend: CPU in src/engine/cpu/posterior.cpp, CUDA in
// src/engine/cuda/posterior_cuda.cpp). See include/gpbandit/engine/posterior.hpp for the contract.
#include "gpbandit/engine/posterior.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "engine/cpu/ops_cpu.hpp"
#include "engine/cpu/posterior_rows.hpp"
#include "engine/detail/posterior_backend.hpp"
#include "engine/detail/quiet_recompute.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/io/log.hpp"

namespace gpb {

namespace detail {
namespace {
thread_local int g_quiet_recompute = 0;
}  // namespace
QuietRecompute::QuietRecompute() {
  ++g_quiet_recompute;
}
QuietRecompute::~QuietRecompute() {
  --g_quiet_recompute;
}
bool recompute_quiet() {
  return g_quiet_recompute > 0;
}
}  // namespace detail

namespace {

/// The warning of a posterior that Auto mode put in recompute mode (see PosteriorMode::Auto).
void warn_recompute(const Context& ctx, int runs, int n, const PosteriorOptions& o) {
  std::ostringstream os;
  os.precision(3);
  os << "posterior: V for " << runs << (runs == 1 ? " run" : " runs") << " × N = " << n
     << " candidates × capacity " << o.capacity << " rows needs "
     << FinitePosterior::incremental_bytes(runs, n, o.capacity) / 1e6
     << " MB, more than the memory budget of "
     << static_cast<double>(ctx.memory_budget_bytes()) / 1e6
     << " MB: recompute mode (K(X_t, D) rebuilt for every update, about t/2 times the work); "
        "raise ContextOptions::memory_budget_bytes (config memory_budget_mb) or lower the "
        "capacity";
  warn(WarningKind::Performance, os.str());
}

}  // namespace

struct FinitePosterior::Impl {
  std::unique_ptr<detail::PosteriorBackend> backend;
  std::pair<int, int> slice;  // this rank's candidates [begin, end)
  int dim = 0;                // dimension of the candidates
  bool precomputed = false;   // points are indices into a fixed matrix (the domain cannot grow)
  bool streamed = false;      // a streamed domain: points computed per chunk (extras held)
  // Sharded or sparse exclusions: the R × (slice size) mask handed to the backend, all zeros
  // between calls (allocated on first use).
  mutable std::vector<std::uint8_t> mask;

  int held() const { return slice.second - slice.first; }
  std::uint8_t* zeroed_mask() const {
    mask.resize(static_cast<std::size_t>(backend->runs()) * static_cast<std::size_t>(held()), 0);
    return mask.data();
  }
  /// Checks the arguments, then the backend's argmax; `held_mask`: R × held() or null.
  std::vector<UcbChoice> argmax(const double* width, const std::uint8_t* held_mask,
                                std::vector<Rng>* tiebreak) const {
    const int R = backend->runs();
    GPB_EXPECTS(width != nullptr, "posterior.ucb_argmax: width array is null");
    GPB_EXPECTS(
        tiebreak == nullptr || static_cast<int>(tiebreak->size()) == R,
        "posterior.ucb_argmax: " << R << " tie-break streams expected, got " << tiebreak->size());
    for (int r = 0; r < R; ++r) {
      GPB_EXPECTS(!std::isnan(width[r]), "posterior.ucb_argmax: width[" << r << "] is NaN");
    }
    return backend->ucb_argmax(width, held_mask, tiebreak);
  }

  void check_indices(const int* index, const char* what) const {
    GPB_EXPECTS(index != nullptr, what << ": index array is null");
    const int n = backend->size();
    for (int r = 0; r < backend->runs(); ++r) {
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
  /// Row noise variances: null (λ), or `count` values, each finite and > 0.
  static void check_noise(const double* noise, int count, const char* what) {
    if (noise == nullptr) return;
    for (int i = 0; i < count; ++i) {
      GPB_EXPECTS(std::isfinite(noise[i]) && noise[i] > 0,
                  what << ": noise[" << i << "] = " << noise[i] << " must be > 0 and finite");
    }
  }
};

FinitePosterior::FinitePosterior(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                 int runs, const PosteriorOptions& options) {
  GPB_EXPECTS(runs >= 1, "posterior: runs must be >= 1, got " << runs);
  GPB_EXPECTS(domain.size() >= 1, "posterior: the domain has no candidates");
  GPB_EXPECTS(std::isfinite(options.noise_variance) && options.noise_variance > 0,
              "posterior.noise_variance must be > 0 and finite, got " << options.noise_variance);
  GPB_EXPECTS(options.capacity >= 1, "posterior.capacity must be >= 1, got " << options.capacity);
  GPB_EXPECTS(options.chunk >= 1, "posterior.chunk must be >= 1, got " << options.chunk);
  detail::check_kernel_domain(kernel, domain, "posterior: domain points");
  impl_ = std::make_unique<Impl>();
  const Communicator& comm = ctx.communicator();
  GPB_EXPECTS(comm.size() <= domain.size(),
              "posterior: " << comm.size() << " ranks for a domain of " << domain.size()
                            << " candidates; every rank needs at least one candidate (run with at "
                            << "most " << domain.size() << " ranks)");
  const auto [begin, end] = comm.slice(domain.size());
  impl_->slice = {static_cast<int>(begin), static_cast<int>(end)};
  impl_->dim = domain.dim();
  impl_->precomputed = kernel.type() == KernelType::Precomputed;
  impl_->streamed = domain.streams_points();
  GPB_EXPECTS(!impl_->streamed || options.mode != PosteriorMode::Incremental,
              "posterior: a streamed domain (Domain::streamed_space) runs in recompute mode (V "
              "would need the encodings of every candidate); use PosteriorMode::Auto or Recompute");
#if GPB_HAS_CUDA
  GPB_EXPECTS(!impl_->streamed || ctx.backend() != Backend::Cuda,
              "posterior: the CUDA backend does not stream a parameter space's candidates "
              "(Domain::streamed_space); use the CPU backend (Backend::Cpu), or Domain::from_space "
              "when the encodings fit in GPU memory");
  if (ctx.backend() == Backend::Cuda) {
    impl_->backend = detail::make_cuda_posterior(ctx, kernel, domain, runs, options);
  }
#endif
  if (!impl_->backend)
    impl_->backend = detail::make_cpu_posterior(ctx, kernel, domain, runs, options);
  if (options.mode == PosteriorMode::Auto && impl_->backend->recompute_mode() && !impl_->streamed &&
      !detail::recompute_quiet()) {  // a streamed domain always recomputes
    warn_recompute(ctx, runs, domain.size(), options);
  }
}

FinitePosterior::~FinitePosterior() = default;
FinitePosterior::FinitePosterior(FinitePosterior&&) noexcept = default;
FinitePosterior& FinitePosterior::operator=(FinitePosterior&&) noexcept = default;

int FinitePosterior::runs() const {
  return impl_->backend->runs();
}
int FinitePosterior::size() const {
  return impl_->backend->size();
}
int FinitePosterior::rows() const {
  return impl_->backend->rows();
}
int FinitePosterior::pending() const {
  return impl_->backend->pending();
}
bool FinitePosterior::recompute_mode() const {
  return impl_->backend->recompute_mode();
}
double FinitePosterior::noise_variance() const {
  return impl_->backend->noise_variance();
}
std::pair<int, int> FinitePosterior::slice() const {
  return impl_->slice;
}

void FinitePosterior::observe(const int* index, const double* y, const double* noise) {
  Impl& s = *impl_;
  GPB_EXPECTS(
      s.backend->pending() == 0,
      "posterior.observe: " << s.backend->pending() << " pending row(s) must be resolved first");
  s.check_indices(index, "posterior.observe");
  Impl::check_rewards(y, s.backend->runs(), "posterior.observe");
  Impl::check_noise(noise, s.backend->runs(), "posterior.observe");
  s.backend->observe(index, y, noise);
}

void FinitePosterior::observe_batch(int q, const int* index, const double* y, const double* noise) {
  Impl& s = *impl_;
  GPB_EXPECTS(q >= 1, "posterior.observe_batch: q must be >= 1, got " << q);
  GPB_EXPECTS(s.backend->pending() == 0,
              "posterior.observe_batch: " << s.backend->pending()
                                          << " pending row(s) must be resolved first");
  GPB_EXPECTS(index != nullptr, "posterior.observe_batch: index array is null");
  const int R = s.backend->runs(), n = s.backend->size();
  for (int e = 0; e < R * q; ++e) {
    GPB_EXPECTS(index[e] >= 0 && index[e] < n, "posterior.observe_batch: index["
                                                   << e << "] = " << index[e]
                                                   << " is out of range [0, " << n << ")");
  }
  Impl::check_rewards(y, R * q, "posterior.observe_batch");
  Impl::check_noise(noise, R * q, "posterior.observe_batch");
  s.backend->observe_batch(q, index, y, noise);
}

void FinitePosterior::add_pending(const int* index, const double* noise) {
  impl_->check_indices(index, "posterior.add_pending");
  Impl::check_noise(noise, runs(), "posterior.add_pending");
  impl_->backend->add_pending(index, noise);
}

void FinitePosterior::resolve_pending(const double* y) {
  const int pend = impl_->backend->pending();
  if (pend == 0) return;
  Impl::check_rewards(y, runs() * pend, "posterior.resolve_pending");
  impl_->backend->resolve_pending(y);
}

void FinitePosterior::add_candidates(const Eigen::Ref<const Eigen::MatrixXd>& points) {
  Impl& s = *impl_;
  GPB_EXPECTS(s.held() == s.backend->size(),
              "posterior.add_candidates: a sharded posterior cannot grow (its slices are fixed)");
  const Eigen::Index m = points.cols();
  if (m == 0) return;
  const int n = s.backend->size();
  GPB_EXPECTS(m <= static_cast<Eigen::Index>(INT_MAX) - n,
              "posterior.add_candidates: " << m << " more candidates overflow the index range");
  GPB_EXPECTS(!s.precomputed,
              "posterior.add_candidates: a precomputed kernel's domain cannot "
              "grow (its points are indices into a fixed matrix)");
  GPB_EXPECTS(points.rows() == s.dim, "posterior.add_candidates: points have dimension "
                                          << points.rows() << ", the domain has " << s.dim);
  GPB_EXPECTS(points.allFinite(), "posterior.add_candidates: a coordinate is not finite");
  s.backend->add_candidates(points);
  s.slice.second = s.backend->size();
  s.mask.clear();
}

const double* FinitePosterior::mean(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(),
              "posterior.mean: run " << run << " out of range [0, " << runs() << ")");
  return impl_->backend->mean(run);
}

const double* FinitePosterior::variance(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(),
              "posterior.variance: run " << run << " out of range [0, " << runs() << ")");
  return impl_->backend->variance(run);
}

std::vector<UcbChoice> FinitePosterior::ucb_argmax(const double* width,
                                                   const std::uint8_t* excluded,
                                                   std::vector<Rng>* tiebreak) const {
  const Impl& s = *impl_;
  if (excluded == nullptr || s.held() == s.backend->size()) {
    return s.argmax(width, excluded, tiebreak);  // the whole domain is held: the mask as given
  }
  std::uint8_t* m = s.zeroed_mask();  // this rank's slice of every run's mask
  const std::size_t n = static_cast<std::size_t>(s.backend->size()), h = s.held();
  for (std::size_t r = 0; r < static_cast<std::size_t>(runs()); ++r) {
    std::copy_n(excluded + r * n + s.slice.first, h, m + r * h);
  }
  struct Clear {  // leaves the mask zeroed, also when the argmax throws
    std::vector<std::uint8_t>& m;
    ~Clear() { std::fill(m.begin(), m.end(), 0); }
  } clear{s.mask};
  return s.argmax(width, m, tiebreak);
}

std::vector<UcbChoice> FinitePosterior::ucb_argmax(const double* width,
                                                   const std::vector<std::vector<int>>& excluded,
                                                   std::vector<Rng>* tiebreak) const {
  const Impl& s = *impl_;
  const int R = runs(), n = size();
  GPB_EXPECTS(
      static_cast<int>(excluded.size()) == R,
      "posterior.ucb_argmax: " << R << " exclusion lists expected, got " << excluded.size());
  for (int r = 0; r < R; ++r) {
    for (std::size_t i = 0; i < excluded[r].size(); ++i) {
      const int a = excluded[r][i];
      GPB_EXPECTS(a >= 0 && a < n, "posterior.ucb_argmax: excluded["
                                       << r << "][" << i << "] = " << a << " is out of range [0, "
                                       << n << ")");
    }
  }
  struct Marks {  // sets the listed held entries of the zeroed mask; clears just those again
    const Impl& s;
    const std::vector<std::vector<int>>& lists;
    void set(std::uint8_t value) const {
      const std::size_t h = s.held();
      for (std::size_t r = 0; r < lists.size(); ++r) {
        for (const int a : lists[r]) {
          if (a >= s.slice.first && a < s.slice.second) s.mask[r * h + (a - s.slice.first)] = value;
        }
      }
    }
    ~Marks() { set(0); }
  } marks{s, excluded};
  s.zeroed_mask();
  marks.set(1);
  return s.argmax(width, s.mask.data(), tiebreak);
}

Eigen::MatrixXd FinitePosterior::rows_at(int run, const std::vector<int>& candidates) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.rows_at: run " << run << " out of range");
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    GPB_EXPECTS(candidates[i] >= 0 && candidates[i] < size(),
                "posterior.rows_at: candidates[" << i << "] = " << candidates[i]
                                                 << " is out of range [0, " << size() << ")");
  }
  return impl_->backend->rows_at(run, candidates);
}

Eigen::MatrixXd FinitePosterior::apply_rows(int run,
                                            const Eigen::Ref<const Eigen::MatrixXd>& B) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.apply_rows: run " << run << " out of range");
  GPB_EXPECTS(B.rows() == rows(), "posterior.apply_rows: B has " << B.rows() << " rows, the "
                                                                 << "posterior " << rows());
  GPB_EXPECTS(B.allFinite(), "posterior.apply_rows: B is not finite");
  return impl_->backend->apply_rows(run, B);
}

double FinitePosterior::info_gain(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.info_gain: run " << run << " out of range");
  return impl_->backend->info_gain(run);
}

const std::vector<int>& FinitePosterior::history(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.history: run " << run << " out of range");
  return impl_->backend->history(run);
}

PosteriorFactor FinitePosterior::factor(int run) const {
  GPB_EXPECTS(run >= 0 && run < runs(), "posterior.factor: run " << run << " out of range");
  const detail::RunRows& rr = impl_->backend->run_rows(run);
  const int t = static_cast<int>(rr.L.size());
  PosteriorFactor f;
  f.L = Eigen::MatrixXd::Zero(t, t);
  for (int q = 0; q < t; ++q) {
    for (int p = 0; p <= q; ++p) f.L(q, p) = rr.L[static_cast<std::size_t>(q)][p];
  }
  f.alpha = Eigen::Map<const Eigen::VectorXd>(rr.alpha.data(), t);
  f.noise = Eigen::Map<const Eigen::VectorXd>(rr.noise.data(), t);
  f.resolved = rr.resolved;
  for (int q = 0; q < t; ++q) {
    if (f.resolved[static_cast<std::size_t>(q)] == 0) f.alpha[q] = 0.0;
  }
  f.history = impl_->backend->history(run);
  return f;
}

double FinitePosterior::incremental_bytes(int runs, int n, int capacity) {
  return 8.0 * static_cast<double>(runs) * static_cast<double>(n) * static_cast<double>(capacity);
}

}  // namespace gpb
