// CUDA Nyström embedding (NYS) and approximate DTC posterior (APX), specs/ldp-bo.md §3.2–3.3: the
// same steps as src/engine/cpu/nystrom.cpp with the kernel matrices, GEMMs and the m×m symmetric
// eigen-decompositions on the device. Never forms an N×N matrix, and never holds an m×N one on the
// device either: K[D,:], Φ and G pass through in column chunks sized from the Context's budget.
#include <algorithm>
#include <cmath>
#include <string>

#include "engine/cuda/features_cuda.hpp"
#include "engine/cuda/launch.hpp"
#include "engine/cuda/matrix_cache.hpp"
#include "engine/cuda/ops_cuda.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/detail/column_chunks.hpp"
#include "engine/detail/solver_info.hpp"
#include "gpbandit/error.hpp"

namespace gpb::cuda {

namespace {

/// In-place eigen-decomposition of the symmetric m×m device matrix `a` (lower triangle read):
/// eigenvalues ascending into `w` (device), eigenvectors into the columns of `a`.
/// @throws NumericalError when DSYEVD does not converge; CudaError when it reports an invalid
/// parameter (devInfo < 0).
void eigh(const Context& ctx, double* a, int m, double* w, const char* what) {
  detail::CudaResources& res = resources(ctx);
  int lwork = 0;
  GPB_CUSOLVER_TRY(cusolverDnDsyevd_bufferSize(res.cusolver.get(), CUSOLVER_EIG_MODE_VECTOR,
                                               CUBLAS_FILL_MODE_LOWER, m, a, m, w, &lwork));
  double* work = workspace(ctx, static_cast<std::size_t>(std::max(lwork, 1)));
  GPB_CUSOLVER_TRY(cusolverDnDsyevd(res.cusolver.get(), CUSOLVER_EIG_MODE_VECTOR,
                                    CUBLAS_FILL_MODE_LOWER, m, a, m, w, work, lwork,
                                    res.info.data()));
  int info = 0;
  copy_to_host(&info, res.info.data(), 1, res.stream.get());
  if (detail::check_solver_info(info, "cusolverDnDsyevd") != 0) {
    throw NumericalError(std::string(what) +
                         ": the symmetric eigen-decomposition did not converge (devInfo = " +
                         std::to_string(info) + ")");
  }
}

/// out = Q diag(f) Qᵀ for the m×m device matrix Q and the host vector f; `scratch` holds m×m.
void spectral(const Context& ctx, const double* q, const Eigen::VectorXd& f, int m, double* scratch,
              double* out) {
  cublasHandle_t h = resources(ctx).cublas.get();
  const DeviceBuffer<double> fd = upload(f.data(), static_cast<std::size_t>(m), stream_of(ctx));
  GPB_CUBLAS_TRY(cublasDdgmm(h, CUBLAS_SIDE_RIGHT, m, m, q, m, fd.data(), 1, scratch, m));
  const double one = 1.0, zero = 0.0;
  GPB_CUBLAS_TRY(
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, m, m, &one, scratch, m, q, m, &zero, out, m));
  GPB_CUDA_TRY(cudaStreamSynchronize(stream_of(ctx)));  // fd is freed on return
}

}  // namespace

NystromEmbedding nystrom_embedding(const Context& ctx, const Kernel& kernel, const Domain& domain,
                                   const std::vector<int>& candidates, const Eigen::VectorXd& s2,
                                   double q, Rng& rng, double tau) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  const int n = domain.size(), d = domain.dim();
  NystromEmbedding emb;
  // 1. Bernoulli dictionary on the host: one draw per member of P, ascending (as the CPU).
  for (int a : candidates) {
    const double u = rng.uniform();
    const double p = std::min(q * s2[a], 1.0);
    if (u < p) emb.dictionary.push_back(a);
  }
  const int m = static_cast<int>(emb.dictionary.size());
  if (m == 0) {
    emb.phi.resize(0, n);
    return emb;
  }
  const Eigen::MatrixXd& points = domain.points();
  Eigen::MatrixXd xd(d, m);
  for (int i = 0; i < m; ++i) xd.col(i) = points.col(emb.dictionary[static_cast<std::size_t>(i)]);
  const DeviceBuffer<double> pts =
      upload(points.data(), static_cast<std::size_t>(points.size()), s);
  const DeviceBuffer<double> xdd = upload(xd.data(), static_cast<std::size_t>(xd.size()), s);
  const DeviceKernel dk = upload_kernel(ctx, kernel, s);
  const detail::KernelFormula& f = dk.formula;
  // 2. W = (K_DD^{1/2})^† from eigh(K_DD), eigenvalues ≤ τ·max dropped.
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  DeviceBuffer<double> kdd(mm), ev_d(static_cast<std::size_t>(m)), scratch(mm), wmat(mm);
  launch_kernel_matrix(ctx, f, xdd.data(), d, m, xdd.data(), d, m, d, kdd.data(), m);
  eigh(ctx, kdd.data(), m, ev_d.data(), "nystrom_embedding: K[D,D]");
  Eigen::VectorXd ev(m);
  copy_to_host(ev.data(), ev_d.data(), static_cast<std::size_t>(m), s);
  const double top = ev.maxCoeff();
  Eigen::VectorXd w = Eigen::VectorXd::Zero(m);
  if (top > 0) {
    for (int i = 0; i < m; ++i) {
      if (ev[i] > tau * top) w[i] = 1.0 / std::sqrt(ev[i]);
    }
  }
  spectral(ctx, kdd.data(), w, m, scratch.data(), wmat.data());
  // 3. Φ = W·K[D,:], chunked over candidates (two m×chunk blocks live: K[D,chunk] and Φ chunk).
  emb.phi.resize(m, n);
  const int chunk = detail::column_chunk(n, m, 2, ctx.memory_budget_bytes());
  DeviceBuffer<double> kdc(static_cast<std::size_t>(m) * chunk),
      phic(static_cast<std::size_t>(m) * chunk);
  const double one = 1.0, zero = 0.0;
  for (int c0 = 0; c0 < n; c0 += chunk) {
    const int len = std::min(chunk, n - c0);
    launch_kernel_matrix(ctx, f, xdd.data(), d, m, pts.data() + static_cast<std::size_t>(c0) * d, d,
                         len, d, kdc.data(), m);
    GPB_CUBLAS_TRY(cublasDgemm(resources(ctx).cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, len, m,
                               &one, wmat.data(), m, kdc.data(), m, &zero, phic.data(), m));
    copy_to_host(emb.phi.data() + static_cast<std::size_t>(c0) * m, phic.data(),
                 static_cast<std::size_t>(m) * len, s);
  }
  return emb;
}

ApproxPosterior approx_posterior(const Context& ctx, const NystromEmbedding& emb,
                                 const Eigen::VectorXd& weights, const Eigen::VectorXd& kdiag,
                                 double lambda) {
  set_device(ctx);
  cudaStream_t s = stream_of(ctx);
  cublasHandle_t h = resources(ctx).cublas.get();
  const int m = static_cast<int>(emb.phi.rows());
  const int n = static_cast<int>(weights.size());
  ApproxPosterior out;
  // m ≥ 1 here: src/engine/features.cpp returns the prior for an empty dictionary. Φ (m×N) and G
  // (m×N) stream through the device in column chunks, as in nystrom_embedding: two m×chunk blocks
  // are live (Φ's chunk, and S's or G's), never a whole m×N array.
  const std::size_t mm = static_cast<std::size_t>(m) * m;
  const int chunk = detail::column_chunk(n, m, 2, ctx.memory_budget_bytes());
  const std::size_t cm = static_cast<std::size_t>(m) * chunk;
  DeviceBuffer<double> phic(cm), work(cm), swd(static_cast<std::size_t>(chunk));
  int loaded = -1;  // first column of the Φ chunk now in phic
  const auto load = [&](int c0, int len) {
    if (c0 == loaded) return;
    copy_to_device(phic.data(), emb.phi.data() + static_cast<std::size_t>(c0) * m,
                   static_cast<std::size_t>(m) * len, s);
    loaded = c0;
  };
  // 1. Ṽ = λI + Σ_a w_a φ̃_a φ̃_aᵀ: per chunk S = Φ diag(√w) (w_a = 0 columns vanish), Ṽ += S Sᵀ
  //    (DSYRK, accumulated over the chunks).
  Eigen::VectorXd sw(n);
  for (int a = 0; a < n; ++a) sw[a] = weights[a] > 0 ? std::sqrt(weights[a]) : 0.0;
  const Eigen::MatrixXd lam = Eigen::MatrixXd::Identity(m, m) * lambda;
  DeviceBuffer<double> v = upload(lam.data(), mm, s);
  const double one = 1.0, zero = 0.0;
  for (int c0 = 0; c0 < n; c0 += chunk) {
    const int len = std::min(chunk, n - c0);
    load(c0, len);
    copy_to_device(swd.data(), sw.data() + c0, static_cast<std::size_t>(len), s);
    GPB_CUBLAS_TRY(
        cublasDdgmm(h, CUBLAS_SIDE_RIGHT, m, len, phic.data(), m, swd.data(), 1, work.data(), m));
    GPB_CUBLAS_TRY(cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, m, len, &one, work.data(), m,
                               &one, v.data(), m));
  }
  // 2. Symmetric inverse root and inverse from eigh(Ṽ).
  DeviceBuffer<double> om_d(static_cast<std::size_t>(m)), scratch(mm), vis(mm), vinv(mm);
  eigh(ctx, v.data(), m, om_d.data(), "approx_posterior: V");
  Eigen::VectorXd om(m);
  copy_to_host(om.data(), om_d.data(), static_cast<std::size_t>(m), s);
  if (!(om.minCoeff() > 0)) {
    throw NumericalError("approx_posterior: V has a non-positive eigenvalue " +
                         std::to_string(om.minCoeff()));
  }
  spectral(ctx, v.data(), om.array().sqrt().inverse().matrix(), m, scratch.data(), vis.data());
  spectral(ctx, v.data(), om.array().inverse().matrix(), m, scratch.data(), vinv.data());
  out.v_inv_sqrt.resize(m, m);
  out.v_inv.resize(m, m);
  copy_to_host(out.v_inv_sqrt.data(), vis.data(), mm, s);
  copy_to_host(out.v_inv.data(), vinv.data(), mm, s);
  // 3. G = Ṽ^{−1/2}Φ, chunk by chunk from the last one (still loaded after step 1).
  out.g.resize(m, n);
  for (int c0 = (n - 1) / chunk * chunk; c0 >= 0; c0 -= chunk) {
    const int len = std::min(chunk, n - c0);
    load(c0, len);
    GPB_CUBLAS_TRY(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, len, m, &one, vis.data(), m,
                               phic.data(), m, &zero, work.data(), m));
    copy_to_host(out.g.data() + static_cast<std::size_t>(c0) * m, work.data(),
                 static_cast<std::size_t>(m) * len, s);
  }
  // 4. σ̃² = max(k(a,a) − ‖φ̃_a‖² + λ‖G[:,a]‖², 0) (O(m·N) on the host, as the CPU).
  out.variance.resize(n);
  for (int a = 0; a < n; ++a) {
    const double var =
        kdiag[a] - emb.phi.col(a).squaredNorm() + lambda * out.g.col(a).squaredNorm();
    out.variance[a] = std::max(var, 0.0);
  }
  return out;
}

}  // namespace gpb::cuda
