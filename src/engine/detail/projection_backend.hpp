/// @file projection_backend.hpp
/// Backend implementations of the projection ops (include/gpbandit/engine/projection.hpp): CPU in
/// src/engine/cpu/projection.cpp, CUDA in src/engine/cuda/projection_cuda.cpp. Inputs already
/// validated.
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <vector>

#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/projection.hpp"

namespace gpb::detail {

std::vector<double> random_uniform_cpu(std::uint64_t seed, std::uint32_t run, std::uint32_t stream,
                                       std::uint64_t start, std::size_t count);
std::vector<double> random_normal_cpu(std::uint64_t seed, std::uint32_t run, std::uint32_t stream,
                                      std::uint64_t start, std::size_t count);
Eigen::MatrixXd project_cpu(const Eigen::Ref<const Eigen::MatrixXd>& X,
                            const Eigen::Ref<const Eigen::MatrixXd>& M, double scale);
/// The d×d Gram matrix XᵀX (both triangles).
Eigen::MatrixXd gram_cpu(const Eigen::Ref<const Eigen::MatrixXd>& X);
/// Spectrum from a Gram matrix G (d×d) of an n-row X: eigen-decomposition, descending, top p.
SingularSpectrum spectrum_from_gram_cpu(const Eigen::MatrixXd& G, int n);

std::vector<double> random_uniform_cuda(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                        std::uint32_t stream, std::uint64_t start,
                                        std::size_t count);
std::vector<double> random_normal_cuda(const Context& ctx, std::uint64_t seed, std::uint32_t run,
                                       std::uint32_t stream, std::uint64_t start,
                                       std::size_t count);
Eigen::MatrixXd project_cuda(const Context& ctx, const Eigen::Ref<const Eigen::MatrixXd>& X,
                             const Eigen::Ref<const Eigen::MatrixXd>& M, double scale);
SingularSpectrum singular_spectrum_cuda(const Context& ctx,
                                        const Eigen::Ref<const Eigen::MatrixXd>& X);

}  // namespace gpb::detail
