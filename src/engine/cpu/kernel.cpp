// Kernel factories with validation, names, description and single-pair evaluation.
#include "gpbandit/engine/kernel.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "engine/cpu/kernel_eval.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {
struct NamedType {
  const char* name;
  KernelType type;
};
constexpr NamedType kKernelNames[] = {
    {"se", KernelType::SE},
    {"matern12", KernelType::Matern12},
    {"matern32", KernelType::Matern32},
    {"matern52", KernelType::Matern52},
    {"linear", KernelType::Linear},
    {"polynomial", KernelType::Polynomial},
    {"precomputed", KernelType::Precomputed},
    {"tanimoto", KernelType::Tanimoto},
    {"minmax", KernelType::MinMax},
    {"product", KernelType::Product},
    {"sum", KernelType::Sum},
};

void check_positive(double value, const char* field) {
  GPB_EXPECTS(std::isfinite(value) && value > 0,
              "kernel." << field << " must be > 0 and finite, got " << value);
}
void check_offset(double offset) {
  GPB_EXPECTS(std::isfinite(offset) && offset >= 0,
              "kernel.offset must be >= 0 and finite, got " << offset);
}
}  // namespace

KernelType parse_kernel_type(const std::string& name) {
  for (const auto& nt : kKernelNames) {
    if (name != nt.name) continue;
    GPB_EXPECTS(nt.type != KernelType::Product && nt.type != KernelType::Sum,
                "kernel '" << name << "' is composite: give its parts (kernel.combine = \"" << name
                           << "\" and kernel.parts; Kernel::" << name << "())");
    return nt.type;
  }
  std::ostringstream os;
  os << "unknown kernel '" << name << "'; expected one of:";
  for (const auto& nt : kKernelNames) os << " " << nt.name;
  throw InvalidArgument(os.str());
}

const char* kernel_type_name(KernelType t) {
  for (const auto& nt : kKernelNames) {
    if (nt.type == t) return nt.name;
  }
  return "unknown";
}

Kernel Kernel::se(double lengthscale, double variance) {
  return matern(KernelType::SE, lengthscale, variance);
}

Kernel Kernel::matern(KernelType type, double lengthscale, double variance) {
  return ard(type, Eigen::VectorXd::Constant(1, lengthscale), variance);
}

Kernel Kernel::ard(KernelType type, const Eigen::VectorXd& lengthscales, double variance) {
  GPB_EXPECTS(type == KernelType::SE || type == KernelType::Matern12 ||
                  type == KernelType::Matern32 || type == KernelType::Matern52,
              "kernel.type must be se, matern12, matern32 or matern52 for a stationary kernel, got "
                  << kernel_type_name(type));
  GPB_EXPECTS(lengthscales.size() >= 1, "kernel.lengthscale must not be an empty array");
  const bool many = lengthscales.size() > 1;
  Eigen::VectorXd inverse(lengthscales.size());
  for (Eigen::Index i = 0; i < lengthscales.size(); ++i) {
    const double l = lengthscales[i];
    const std::string field =
        many ? "lengthscale[" + std::to_string(i) + "]" : std::string("lengthscale");
    check_positive(l, field.c_str());
    GPB_EXPECTS(std::isfinite(1.0 / l),
                "kernel." << field
                          << " must be at least 1/DBL_MAX (~5.6e-309) so that its inverse is "
                             "finite, got "
                          << l);
    inverse[i] = 1.0 / l;
  }
  check_positive(variance, "variance");
  Kernel k;
  k.type_ = type;
  k.lengthscales_ = std::make_shared<const Eigen::VectorXd>(lengthscales);
  k.inverse_lengthscales_ = std::make_shared<const Eigen::VectorXd>(std::move(inverse));
  k.variance_ = variance;
  return k;
}

double Kernel::lengthscale() const {
  GPB_EXPECTS(!composite(),
              "kernel " << describe() << " is composite: its lengthscales are in parts()");
  GPB_EXPECTS(!is_ard(),
              "kernel " << describe() << " has one lengthscale per axis (ARD); use lengthscales()");
  return (*lengthscales_)[0];
}

Kernel Kernel::linear(double variance, double offset) {
  check_positive(variance, "variance");
  check_offset(offset);
  Kernel k;
  k.type_ = KernelType::Linear;
  k.variance_ = variance;
  k.offset_ = offset;
  return k;
}

Kernel Kernel::polynomial(int degree, double variance, double offset) {
  GPB_EXPECTS(degree >= 1, "kernel.degree must be >= 1, got " << degree);
  check_positive(variance, "variance");
  check_offset(offset);
  Kernel k;
  k.type_ = KernelType::Polynomial;
  k.degree_ = degree;
  k.variance_ = variance;
  k.offset_ = offset;
  return k;
}

Kernel Kernel::tanimoto(double variance) {
  check_positive(variance, "variance");
  Kernel k;
  k.type_ = KernelType::Tanimoto;
  k.variance_ = variance;
  return k;
}

Kernel Kernel::minmax(double variance) {
  check_positive(variance, "variance");
  Kernel k;
  k.type_ = KernelType::MinMax;
  k.variance_ = variance;
  return k;
}

Kernel Kernel::with_variance(double v) const {
  check_positive(v, "variance");
  if (type_ == KernelType::Sum) {  // every part scaled by v / Σ v_p
    std::vector<KernelPart> scaled = parts();
    for (KernelPart& p : scaled) p.variance *= v / variance_;
    return sum(std::move(scaled));
  }
  Kernel k = *this;
  k.variance_ = v;
  return k;
}

void check_positive_semidefinite(const Eigen::MatrixXd& K, const std::string& what) {
  GPB_EXPECTS(K.rows() == K.cols() && K.rows() > 0,
              what << ": expected a square matrix, got " << K.rows() << "x" << K.cols());
  const double scale = std::max(K.cwiseAbs().maxCoeff(), 1e-300);
  const double tol = 1e-8 * scale;
  Eigen::MatrixXd shifted = K;
  shifted.diagonal().array() += 2.0 * tol;
  if (Eigen::LLT<Eigen::MatrixXd>(shifted).info() == Eigen::Success) return;
  const double lmin =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K, Eigen::EigenvaluesOnly).eigenvalues()(0);
  if (lmin >= -tol) return;
  std::ostringstream os;
  os.precision(6);
  os << what << " is not positive semi-definite: smallest eigenvalue " << lmin << " (tolerance "
     << -tol << "); a kernel matrix must be a covariance matrix";
  throw InvalidArgument(os.str());
}

Kernel Kernel::precomputed(Eigen::MatrixXd matrix) {
  GPB_EXPECTS(
      matrix.rows() > 0 && matrix.rows() == matrix.cols(),
      "kernel.matrix must be square and non-empty, got " << matrix.rows() << "x" << matrix.cols());
  const Eigen::Index n = matrix.rows();
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      GPB_EXPECTS(std::isfinite(matrix(i, j)),
                  "kernel.matrix has a non-finite entry at (" << i << ", " << j << ")");
    }
  }
  const double scale = matrix.cwiseAbs().maxCoeff();
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = j + 1; i < n; ++i) {
      GPB_EXPECTS(std::abs(matrix(i, j) - matrix(j, i)) <= 1e-10 * scale,
                  "kernel.matrix is not symmetric: entry ("
                      << i << ", " << j << ") = " << matrix(i, j) << " but (" << j << ", " << i
                      << ") = " << matrix(j, i));
    }
  }
  Kernel k;
  k.type_ = KernelType::Precomputed;
  k.matrix_ = std::make_shared<const Eigen::MatrixXd>(std::move(matrix));
  return k;
}

bool Kernel::stationary() const {
  return type_ == KernelType::SE || type_ == KernelType::Matern12 ||
         type_ == KernelType::Matern32 || type_ == KernelType::Matern52;
}

std::string Kernel::describe() const {
  std::ostringstream os;
  os << kernel_type_name(type_) << "(";
  if (composite()) {  // e.g. product(matern52[0:1](l=0.3), se[1:5](l=[0.2, ...]), v=1)
    for (const KernelPart& p : parts()) {
      os << kernel_type_name(p.type) << "[" << p.begin << ":" << p.begin + p.size << "](l=";
      if (p.lengthscales.size() == 1) {
        os << p.lengthscales[0];
      } else {
        for (Eigen::Index i = 0; i < p.lengthscales.size(); ++i) {
          os << (i > 0 ? ", " : "[") << p.lengthscales[i];
        }
        os << "]";
      }
      if (type_ == KernelType::Sum) os << ", v=" << p.variance;
      os << "), ";
    }
    os << "v=" << variance_ << ")";
    return os.str();
  }
  switch (type_) {
    case KernelType::Linear:
      os << "v=" << variance_ << ", c=" << offset_;
      break;
    case KernelType::Polynomial:
      os << "p=" << degree_ << ", v=" << variance_ << ", c=" << offset_;
      break;
    case KernelType::Precomputed:
      os << "n=" << matrix_->rows();
      break;
    case KernelType::Tanimoto:
    case KernelType::MinMax:
      os << "v=" << variance_;
      break;
    default:
      if (is_ard()) {
        os << "l=[";
        for (Eigen::Index i = 0; i < lengthscales_->size(); ++i) {
          os << (i > 0 ? ", " : "") << (*lengthscales_)[i];
        }
        os << "], v=" << variance_;
      } else {
        os << "l=" << (*lengthscales_)[0] << ", v=" << variance_;
      }
  }
  os << ")";
  return os.str();
}

double Kernel::operator()(const double* x, const double* y, int d) const {
  GPB_EXPECTS(input_dim() == 0 || d == input_dim(),
              "kernel " << describe() << " has "
                        << (composite() ? "parts over " + std::to_string(input_dim()) + " features"
                                        : std::to_string(ard_dim()) + " lengthscales")
                        << " but the points have " << d << " coordinates");
  if (type_ == KernelType::Precomputed) {
    const double n = static_cast<double>(matrix_->rows());
    for (const double v : {x[0], y[0]}) {
      GPB_EXPECTS(v >= 0 && v < n && v == std::floor(v),
                  "precomputed kernel index " << v << " is not an integer in [0, " << n << ")");
    }
  }
  return detail::KernelEval(*this)(x, y, d);
}

}  // namespace gpb
