// Public projection ops: validate, then dispatch on the Context's backend.
#include "gpbandit/engine/projection.hpp"

#include <cmath>

#include "engine/detail/projection_backend.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

#if GPB_HAS_CUDA
namespace {
bool on_cuda(const Context& ctx) {
  return ctx.backend() == Backend::Cuda;
}
}  // namespace
#endif

std::vector<double> random_uniform(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                   std::uint32_t stream, std::uint64_t start, std::size_t count) {
#if GPB_HAS_CUDA
  if (on_cuda(ctx)) return detail::random_uniform_cuda(ctx, seed, run, stream, start, count);
#endif
  (void)ctx;
  return detail::random_uniform_cpu(seed, run, stream, start, count);
}

std::vector<double> random_normal(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                  std::uint32_t stream, std::uint64_t start, std::size_t count) {
#if GPB_HAS_CUDA
  if (on_cuda(ctx)) return detail::random_normal_cuda(ctx, seed, run, stream, start, count);
#endif
  (void)ctx;
  return detail::random_normal_cpu(seed, run, stream, start, count);
}

Eigen::MatrixXd gaussian_matrix(const Context& ctx, int rows, int cols, std::uint64_t seed,
                                std::uint32_t run, std::uint32_t stream) {
  GPB_EXPECTS(rows >= 0 && cols >= 0,
              "gaussian_matrix: shape must be non-negative, got " << rows << "x" << cols);
  const std::vector<double> z = random_normal(
      ctx, seed, run, stream, 0, static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  return Eigen::Map<const Eigen::MatrixXd>(z.data(), rows, cols);
}

Eigen::MatrixXd project(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                        const Eigen::Ref<const Eigen::MatrixXd>& M, double scale) {
  GPB_EXPECTS(X.cols() == M.rows(), "project: X is " << X.rows() << "x" << X.cols() << " but M is "
                                                     << M.rows() << "x" << M.cols());
  GPB_EXPECTS(std::isfinite(scale), "project: scale must be finite, got " << scale);
#if GPB_HAS_CUDA
  if (on_cuda(ctx)) return detail::project_cuda(ctx, X, M, scale);
#endif
  (void)ctx;
  return detail::project_cpu(X, M, scale);
}

RandomProjection random_projection(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                                   int r, std::uint64_t seed, std::uint32_t run,
                                   std::uint32_t stream) {
  GPB_EXPECTS(r >= 1, "random_projection: r must be >= 1, got " << r);
  GPB_EXPECTS(X.size() > 0, "random_projection: X is empty");
  RandomProjection out;
  out.m = gaussian_matrix(ctx, static_cast<int>(X.cols()), r, seed, run, stream);
  out.z = project(ctx, X, out.m, 1.0 / std::sqrt(static_cast<double>(r)));
  return out;
}

SingularSpectrum singular_spectrum(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X) {
  GPB_EXPECTS(X.size() > 0, "singular_spectrum: X is empty");
  GPB_EXPECTS(X.allFinite(), "singular_spectrum: X has a non-finite entry");
#if GPB_HAS_CUDA
  if (on_cuda(ctx)) return detail::singular_spectrum_cuda(ctx, X);
#endif
  (void)ctx;
  return detail::spectrum_from_gram_cpu(detail::gram_cpu(X), static_cast<int>(X.rows()));
}

}  // namespace gpb
