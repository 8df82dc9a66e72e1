/// @file kernel_formula.hpp
/// The one per-element formula of k(x, y), callable from host and device code (GPB_HD). The CPU
/// (cpu/kernel_eval.hpp) and the CUDA kernels (kernels/*.cuh) both evaluate exactly this code, so
/// they perform the same floating-point operations in the same order; with -ffp-contract=off on
/// the host and -fmad=false on the device the only remaining difference is the last-ulp accuracy
/// of exp() in the two math libraries (sqrt and division are correctly rounded on both).
#pragma once

#include <cmath>
#include <cstring>

#include "gpbandit/engine/kernel_type.hpp"

#include "gpbandit/detail/host_device.hpp"

namespace gpb::detail {

/// The 64 bits of a fingerprint word stored in a double (Domain::fingerprints keeps packed words in
/// the d×N point matrix bit for bit; they are never read as numbers).
GPB_HD inline unsigned long long word_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned long long>(__double_as_longlong(x));
#else
  unsigned long long w;
  std::memcpy(&w, &x, sizeof w);
  return w;
#endif
}

/// Number of set bits of a 64-bit word (__popcll on the device, the POPCNT instruction or its
/// portable fallback on the host).
GPB_HD inline int popcount64(unsigned long long w) {
#if defined(__CUDA_ARCH__)
  return __popcll(w);
#else
  return __builtin_popcountll(w);
#endif
}

/// Σ min and Σ max over the 8 byte counts of two words (MinMax on count fingerprints).
GPB_HD inline void byte_min_max(unsigned long long a, unsigned long long b, long long& lo,
                                long long& hi) {
  for (int k = 0; k < 8; ++k) {
    const int x = static_cast<int>((a >> (8 * k)) & 0xffu),
              y = static_cast<int>((b >> (8 * k)) & 0xffu);
    lo += x < y ? x : y;
    hi += x < y ? y : x;
  }
}

/// v·num/den with the convention 0/0 = 1 (two empty fingerprints are identical), the last
/// operations of the Tanimoto and MinMax kernels on every code path (integer counts are exact in a
/// double, so every path agrees bit for bit).
GPB_HD inline double similarity(double variance, long long num, long long den) {
  if (den == 0) return variance;
  return variance * (static_cast<double>(num) / static_cast<double>(den));
}

/// v·κ(r2) of a stationary kernel (SE, Matérn ½, 3/2, 5/2) at the squared scaled distance
/// r2 = Σ ((x_i − y_i)/l_i)²: the one shape formula of the engine. The kernel matrix
/// (KernelFormula::stationary, with the kernel's variance), the parts of composite kernels (v = 1;
/// multiplying by 1 is exact), the input gradient and the marginal-likelihood fit all evaluate
/// it, so they agree bit for bit. With `slope` not null it also stores g = −κ′(ρ)/ρ (variance 1,
/// ρ = √r2), the factor of every lengthscale derivative (∂κ/∂ln l_j = g·(Δ_j/l_j)²) and input
/// derivative (∂κ/∂x_j = −g·Δ_j/l_j²); for Matérn ½, g = e^{−ρ}/ρ is unbounded at ρ = 0.
/// Matérn 3/2 and 5/2 at an overflowing scaled distance (tiny lengthscales): the polynomial factor
/// is +inf and exp(−a) is 0; the limit of the product is 0, not inf·0 = NaN (any a > 1e150 gives
/// exactly 0 anyway: exp(−a) underflows from a ≈ 745 on), and so is g.
GPB_HD inline double stationary_shape(KernelType t, double r2, double v, double* slope = nullptr) {
  switch (t) {
    case KernelType::SE: {
      const double e = std::exp(-0.5 * r2);
      if (slope != nullptr) *slope = e;
      return v * e;
    }
    case KernelType::Matern12: {
      const double rho = std::sqrt(r2), e = std::exp(-rho);
      if (slope != nullptr) *slope = e / rho;
      return v * e;
    }
    case KernelType::Matern32: {
      const double a = std::sqrt(3.0 * r2);
      if (a > 1e150) {
        if (slope != nullptr) *slope = 0.0;
        return 0.0;
      }
      const double e = std::exp(-a);
      if (slope != nullptr) *slope = 3.0 * e;
      return v * (1.0 + a) * e;
    }
    default: {  // Matern52
      const double a = std::sqrt(5.0 * r2);
      if (a > 1e150) {
        if (slope != nullptr) *slope = 0.0;
        return 0.0;
      }
      const double e = std::exp(-a);
      if (slope != nullptr) *slope = (5.0 / 3.0) * (1.0 + a) * e;
      return v * (1.0 + a + (5.0 / 3.0) * r2) * e;
    }
  }
}

/// Kernel parameters flattened for the hot loop (trivially copyable: passed to CUDA kernels by
/// value). `matrix` points at the column-major n×n precomputed matrix and `inv_lengthscales` at
/// the d inverse lengthscales of an ARD kernel, in the memory space of the code that evaluates
/// them (host for the CPU, device for CUDA).
struct KernelFormula {
  KernelType type = KernelType::SE;
  double inv_lengthscale = 1.0;              ///< 1/l of an isotropic stationary kernel
  const double* inv_lengthscales = nullptr;  ///< 1/l_i per axis (ARD), d entries; null: isotropic
  double variance = 1.0;
  double offset = 0.0;
  int degree = 1;
  const double* matrix = nullptr;  ///< column-major n×n data (precomputed only)
  long n = 0;                      ///< matrix order (precomputed only)
  /// A composite kernel's parts (Kernel::program(): the count, then per part type, begin, size,
  /// variance, lengthscale count m and m inverse lengthscales); null otherwise.
  const double* program = nullptr;

  /// k(x, y). For a precomputed kernel x[0], y[0] are indices already checked to be in range.
  GPB_HD double operator()(const double* x, const double* y, int d) const {
    switch (type) {
      case KernelType::SE:
      case KernelType::Matern12:
      case KernelType::Matern32:
      case KernelType::Matern52:
        return stationary(x, y, d);
      case KernelType::Linear:
        return variance * (dot(x, y, d) + offset);
      case KernelType::Polynomial: {
        const double base = dot(x, y, d) + offset;
        double p = base;
        for (int i = 1; i < degree; ++i) p = p * base;
        return variance * p;
      }
      case KernelType::Precomputed:
        return matrix[static_cast<long>(y[0]) * n + static_cast<long>(x[0])];
      case KernelType::Tanimoto: {  // d packed words of bits: v·|a ∧ b| / |a ∨ b|
        long long both = 0, either = 0;
        for (int i = 0; i < d; ++i) {
          const unsigned long long a = word_bits(x[i]), b = word_bits(y[i]);
          both += popcount64(a & b);
          either += popcount64(a | b);
        }
        return similarity(variance, both, either);
      }
      case KernelType::MinMax: {  // d packed words of byte counts: v·Σ min / Σ max
        long long lo = 0, hi = 0;
        for (int i = 0; i < d; ++i) byte_min_max(word_bits(x[i]), word_bits(y[i]), lo, hi);
        return similarity(variance, lo, hi);
      }
      case KernelType::Product:
      case KernelType::Sum:
        return composite(x, y);
    }
    return 0.0;
  }

 private:
  GPB_HD static double dot(const double* x, const double* y, int d) {
    double s = 0.0;
    for (int i = 0; i < d; ++i) s = s + x[i] * y[i];
    return s;
  }

  /// Product: v·Π_p u_p; sum: Σ_p v_p·u_p, each part on its own features (Kernel::product).
  GPB_HD double composite(const double* x, const double* y) const {
    const bool product = type == KernelType::Product;
    const int parts = static_cast<int>(program[0]);
    const double* p = program + 1;
    double acc = product ? 1.0 : 0.0;
    for (int k = 0; k < parts; ++k) {
      const auto t = static_cast<KernelType>(static_cast<int>(p[0]));
      const int begin = static_cast<int>(p[1]), size = static_cast<int>(p[2]);
      const int m = static_cast<int>(p[4]);
      const double* inv = p + 5;
      double r2 = 0.0;
      for (int i = 0; i < size; ++i) {
        const double diff = (x[begin + i] - y[begin + i]) * inv[m == 1 ? 0 : i];
        r2 = r2 + diff * diff;
      }
      const double u = stationary_shape(t, r2, 1.0);
      acc = product ? acc * u : acc + p[3] * u;
      p += 5 + m;
    }
    return product ? variance * acc : acc;
  }

  GPB_HD double stationary(const double* x, const double* y, int d) const {
    double r2 = 0.0;
    if (inv_lengthscales == nullptr) {
      for (int i = 0; i < d; ++i) {
        const double diff = (x[i] - y[i]) * inv_lengthscale;
        r2 = r2 + diff * diff;
      }
    } else {  // ARD: the same operations with a per-axis scale
      for (int i = 0; i < d; ++i) {
        const double diff = (x[i] - y[i]) * inv_lengthscales[i];
        r2 = r2 + diff * diff;
      }
    }
    return stationary_shape(type, r2, variance);
  }
};

}  // namespace gpb::detail
