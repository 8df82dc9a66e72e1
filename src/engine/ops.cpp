// Public engine ops: validate shapes, then dispatch on the Context's backend (a CUDA context exists
// only in CUDA builds: in a CPU-only build constructing one throws NoCudaBuildError).
#include "gpbandit/engine/ops.hpp"

#include "engine/cpu/ops_cpu.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/error.hpp"
#if GPB_HAS_CUDA
#include "engine/cuda/ops_cuda.hpp"
#endif

namespace gpb {

Eigen::MatrixXd kernel_matrix(const Context& ctx, const Kernel& k,
                              const Eigen::Ref<const Eigen::MatrixXd>& A,
                              const Eigen::Ref<const Eigen::MatrixXd>& B) {
  GPB_EXPECTS(A.rows() == B.rows(),
              "kernel_matrix: A has dimension " << A.rows() << " but B has dimension " << B.rows());
  detail::check_kernel_points(k, A, "kernel_matrix: A");
  detail::check_kernel_points(k, B, "kernel_matrix: B");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) return cuda::kernel_matrix(ctx, k, A, B);
#endif
  return detail::kernel_matrix_cpu(k, A, B, detail::Threads::of(ctx));
}

Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k, const Domain& domain) {
  detail::check_kernel_domain(k, domain, "kernel_diag: domain points");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) return cuda::kernel_diag(ctx, k, domain.points());
#endif
  return detail::kernel_diag_cpu(k, domain.points(), detail::Threads::of(ctx));
}

Eigen::VectorXd kernel_diag(const Context& ctx, const Kernel& k,
                            const Eigen::Ref<const Eigen::MatrixXd>& points) {
  detail::check_kernel_points(k, points, "kernel_diag: points");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) return cuda::kernel_diag(ctx, k, points);
#endif
  return detail::kernel_diag_cpu(k, points, detail::Threads::of(ctx));
}

UcbChoice ucb_argmax(const Context& ctx, const double* mean, const double* variance, int n,
                     double width, const std::uint8_t* excluded, Rng* tiebreak) {
  GPB_EXPECTS(n >= 1, "ucb_argmax: n must be >= 1, got " << n);
  GPB_EXPECTS(mean != nullptr && variance != nullptr,
              "ucb_argmax: mean and variance must not be null");
  GPB_EXPECTS(!std::isnan(width), "ucb_argmax: width is NaN");
#if GPB_HAS_CUDA
  if (ctx.backend() == Backend::Cuda) {
    return cuda::ucb_argmax(ctx, mean, variance, n, width, excluded, tiebreak);
  }
#endif
  return detail::ucb_argmax_cpu(mean, variance, n, width, excluded, tiebreak,
                                detail::Threads::of(ctx));
}

}  // namespace gpb
