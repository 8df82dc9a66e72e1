/// @file posterior_backend.hpp
/// The seam behind FinitePosterior: one implementation per backend (CPU in
/// src/engine/cpu/posterior.cpp, CUDA in src/engine/cuda/posterior_cuda.cpp), chosen by the
/// Context. The facade (src/engine/posterior.cpp) validates every argument first; backends receive
/// checked inputs only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpbandit/engine/posterior.hpp"

namespace gpb::detail {

struct RunRows;  // cpu/posterior_rows.hpp: one run's factor rows, α, flags, history

/// State and updates of FinitePosterior (see posterior.hpp for the contract of each member).
class PosteriorBackend {
 public:
  virtual ~PosteriorBackend() = default;
  virtual int runs() const = 0;
  virtual int size() const = 0;
  virtual int rows() const = 0;
  virtual int pending() const = 0;
  virtual bool recompute_mode() const = 0;
  virtual double noise_variance() const = 0;
  /// index, y: R entries each, already checked (indices in range, y finite, nothing pending);
  /// noise: R row noise variances (finite, > 0), or null for λ.
  virtual void observe(const int* index, const double* y, const double* noise) = 0;
  /// index, y, noise (may be null): R×q run-major, checked. Default: q observe() calls, column by
  /// column.
  virtual void observe_batch(int q, const int* index, const double* y, const double* noise) {
    const int R = runs();
    std::vector<int> idx(static_cast<std::size_t>(R));
    std::vector<double> val(static_cast<std::size_t>(R)), lam(static_cast<std::size_t>(R));
    for (int i = 0; i < q; ++i) {
      for (int r = 0; r < R; ++r) {
        const std::size_t e = static_cast<std::size_t>(r) * q + i;
        idx[static_cast<std::size_t>(r)] = index[e];
        val[static_cast<std::size_t>(r)] = y[e];
        if (noise != nullptr) lam[static_cast<std::size_t>(r)] = noise[e];
      }
      observe(idx.data(), val.data(), noise != nullptr ? lam.data() : nullptr);
    }
  }
  /// noise: R row noise variances, or null for λ.
  virtual void add_pending(const int* index, const double* noise) = 0;
  /// y: R×P run-major, finite; P = pending() ≥ 1.
  virtual void resolve_pending(const double* y) = 0;
  /// points: d×m, checked (dimension, finite; not sharded, not precomputed), m ≥ 1.
  virtual void add_candidates(const Eigen::Ref<const Eigen::MatrixXd>& points) = 0;
  /// Host pointers valid until the next update.
  virtual const double* mean(int run) const = 0;
  virtual const double* variance(int run) const = 0;
  /// excluded: R × (this rank's slice size) run-major over the candidates held, or null.
  virtual std::vector<UcbChoice> ucb_argmax(const double* width, const std::uint8_t* excluded,
                                            std::vector<Rng>* tiebreak) const = 0;
  /// Columns of V at global candidate indices (checked), t × m (collective when sharded).
  virtual Eigen::MatrixXd rows_at(int run, const std::vector<int>& candidates) const = 0;
  /// Vᵀ B over the held candidates, in candidate order; B is t × b (checked).
  virtual Eigen::MatrixXd apply_rows(int run, const Eigen::Ref<const Eigen::MatrixXd>& B) const = 0;
  virtual double info_gain(int run) const = 0;
  virtual const std::vector<int>& history(int run) const = 0;
  /// Run r's factor state (RunRows::history may hold internal positions: use history()).
  virtual const RunRows& run_rows(int run) const = 0;
};

/// The CPU posterior (Eigen/OpenMP). Arguments already validated by the facade.
std::unique_ptr<PosteriorBackend> make_cpu_posterior(const Context& ctx, const Kernel& kernel,
                                                     const Domain& domain, int runs,
                                                     const PosteriorOptions& options);
/// The CUDA posterior (V on the device). Only in CUDA builds (GPB_HAS_CUDA).
std::unique_ptr<PosteriorBackend> make_cuda_posterior(const Context& ctx, const Kernel& kernel,
                                                      const Domain& domain, int runs,
                                                      const PosteriorOptions& options);

}  // namespace gpb::detail
