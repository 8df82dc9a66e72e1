// Composite kernels: products and sums of stationary parts on contiguous feature ranges
// (Kernel::product, Kernel::sum; the formula is in detail/kernel_formula.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/error.hpp"

namespace gpb {

namespace {

bool stationary_type(KernelType t) {
  return t == KernelType::SE || t == KernelType::Matern12 || t == KernelType::Matern32 ||
         t == KernelType::Matern52;
}

/// Checks one part; `field` is "kernel.parts[i]".
void check_part(const KernelPart& p, const std::string& field, bool product) {
  GPB_EXPECTS(stationary_type(p.type), field << ".type must be se, matern12, matern32 or matern52, "
                                             << "got " << kernel_type_name(p.type));
  GPB_EXPECTS(p.begin >= 0 && p.size >= 1, field << " must cover a non-empty feature range, got "
                                                 << "begin " << p.begin << ", size " << p.size);
  const Eigen::Index n = p.lengthscales.size();
  GPB_EXPECTS(n == 1 || n == p.size, field << ".lengthscale must have 1 or " << p.size
                                           << " values (one per feature), got " << n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double l = p.lengthscales[i];
    GPB_EXPECTS(std::isfinite(l) && l > 0 && std::isfinite(1.0 / l),
                field << ".lengthscale must be > 0 with a finite inverse, got " << l);
  }
  if (product) {
    GPB_EXPECTS(p.variance == 1.0, field << ".variance must be 1 in a product (a product has one "
                                         << "overall variance), got " << p.variance);
  } else {
    GPB_EXPECTS(std::isfinite(p.variance) && p.variance > 0,
                field << ".variance must be > 0 and finite, got " << p.variance);
  }
}

}  // namespace

Kernel Kernel::product(std::vector<KernelPart> parts, double variance) {
  GPB_EXPECTS(std::isfinite(variance) && variance > 0,
              "kernel.variance must be > 0 and finite, got " << variance);
  return composite_of(KernelType::Product, std::move(parts), variance);
}

Kernel Kernel::sum(std::vector<KernelPart> parts) {
  return composite_of(KernelType::Sum, std::move(parts), 0.0);
}

Kernel Kernel::composite_of(KernelType type, std::vector<KernelPart> parts, double variance) {
  const bool product = type == KernelType::Product;
  GPB_EXPECTS(!parts.empty(), "kernel.parts must not be empty");
  int dim = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    check_part(parts[i], "kernel.parts[" + std::to_string(i) + "]", product);
    dim = std::max(dim, parts[i].begin + parts[i].size);
  }
  // Every feature in exactly one part.
  std::vector<int> owner(static_cast<std::size_t>(dim), -1);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (int f = parts[i].begin; f < parts[i].begin + parts[i].size; ++f) {
      int& o = owner[static_cast<std::size_t>(f)];
      GPB_EXPECTS(o < 0, "kernel.parts[" << i << "] overlaps kernel.parts[" << o << "] at feature "
                                         << f << " (each feature belongs to one part)");
      o = static_cast<int>(i);
    }
  }
  for (int f = 0; f < dim; ++f) {
    GPB_EXPECTS(owner[static_cast<std::size_t>(f)] >= 0,
                "kernel.parts cover no part of feature "
                    << f << " of " << dim << " (the parts must cover every feature)");
  }
  Eigen::VectorXd ls(dim), inv(dim);
  std::vector<double> prog{static_cast<double>(parts.size())};
  double total = 0.0;  // a sum's k(x, x), accumulated as the formula does
  for (const KernelPart& p : parts) {
    const Eigen::Index n = p.lengthscales.size();
    prog.insert(prog.end(), {static_cast<double>(p.type), static_cast<double>(p.begin),
                             static_cast<double>(p.size), p.variance, static_cast<double>(n)});
    for (Eigen::Index i = 0; i < n; ++i) prog.push_back(1.0 / p.lengthscales[i]);
    for (int j = 0; j < p.size; ++j) {
      ls[p.begin + j] = p.lengthscales[n == 1 ? 0 : j];
      inv[p.begin + j] = 1.0 / ls[p.begin + j];
    }
    total = total + p.variance * 1.0;
  }
  Kernel k;
  k.type_ = type;
  k.variance_ = product ? variance : total;
  k.lengthscales_ = std::make_shared<const Eigen::VectorXd>(std::move(ls));
  k.inverse_lengthscales_ = std::make_shared<const Eigen::VectorXd>(std::move(inv));
  k.parts_ = std::make_shared<const std::vector<KernelPart>>(std::move(parts));
  k.program_ = std::make_shared<const Eigen::VectorXd>(
      Eigen::Map<const Eigen::VectorXd>(prog.data(), static_cast<Eigen::Index>(prog.size())));
  return k;
}

const std::vector<KernelPart>& Kernel::parts() const {
  static const std::vector<KernelPart> kNone;
  return parts_ ? *parts_ : kNone;
}

}  // namespace gpb
