// Per-parameter kernels on a parameter space (include/gpbandit/engine/space_kernel.hpp).
#include "gpbandit/engine/space_kernel.hpp"

#include <algorithm>
#include <sstream>

#include "gpbandit/error.hpp"

namespace gpb {

namespace {

bool one_hot(const Parameter& p) {
  return p.type == Parameter::Type::Categorical && p.descriptors.size() == 0;
}

std::string names(const ParameterSpace& s) {
  std::ostringstream os;
  for (std::size_t i = 0; i < s.parameters().size(); ++i) {
    os << (i > 0 ? ", " : "") << s.parameters()[i].name;
  }
  return os.str();
}

}  // namespace

Kernel space_kernel(const ParameterSpace& space, KernelType combine,
                    const std::vector<SpaceKernelPart>& parts, KernelType default_type,
                    double variance) {
  GPB_EXPECTS(combine == KernelType::Product || combine == KernelType::Sum,
              "kernel.combine must be product or sum, got " << kernel_type_name(combine));
  GPB_EXPECTS(!parts.empty(), "kernel.parts must not be empty (name the parameters of each part)");
  const std::vector<Parameter>& ps = space.parameters();
  std::vector<int> first(ps.size() + 1, 0);  // first feature of parameter p
  for (std::size_t p = 0; p < ps.size(); ++p) first[p + 1] = first[p] + ps[p].encoded_dim();
  std::vector<int> owner(ps.size(), -1);
  const bool sum = combine == KernelType::Sum;
  std::vector<KernelPart> out;
  const auto add = [&](KernelType type, int lo, int hi, const Eigen::VectorXd& l, double v,
                       bool ard) {
    KernelPart kp;
    kp.type = type;
    kp.begin = first[static_cast<std::size_t>(lo)];
    kp.size = first[static_cast<std::size_t>(hi) + 1] - kp.begin;
    kp.lengthscales = l.size() == 0 ? Eigen::VectorXd::Ones(1) : l;
    kp.variance = v;
    kp.ard = ard;
    out.push_back(std::move(kp));
  };
  const std::size_t total = parts.size() + [&] {
    std::size_t named = 0;
    for (const auto& p : parts) named += p.parameters.size();
    return ps.size() > named ? ps.size() - named : 0;
  }();  // an upper bound of the part count, exact when the names are valid
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const SpaceKernelPart& sp = parts[i];
    const std::string field = "kernel.parts[" + std::to_string(i) + "]";
    GPB_EXPECTS(!sp.parameters.empty(), field << ".parameters must name at least one parameter");
    int lo = static_cast<int>(ps.size()), hi = -1;
    bool all_one_hot = true;
    for (std::size_t j = 0; j < sp.parameters.size(); ++j) {
      const std::string& name = sp.parameters[j];
      const auto it =
          std::find_if(ps.begin(), ps.end(), [&](const Parameter& p) { return p.name == name; });
      GPB_EXPECTS(it != ps.end(), field << ".parameters[" << j << "]: unknown parameter '" << name
                                        << "' (the space's: " << names(space) << ")");
      const auto p = static_cast<std::size_t>(it - ps.begin());
      GPB_EXPECTS(owner[p] < 0, field << ".parameters[" << j << "]: '" << name
                                      << "' is already in kernel.parts[" << owner[p]
                                      << "] (each parameter belongs to one part)");
      owner[p] = static_cast<int>(i);
      lo = std::min(lo, static_cast<int>(p));
      hi = std::max(hi, static_cast<int>(p));
      all_one_hot = all_one_hot && one_hot(*it);
    }
    GPB_EXPECTS(hi - lo + 1 == static_cast<int>(sp.parameters.size()),
                field << ".parameters must be adjacent in the space's order (" << names(space)
                      << "), so that their features are one range");
    const bool ard = sp.ard < 0 ? !all_one_hot : sp.ard != 0;
    double v = sp.variance;
    if (v == 0.0) v = sum ? 1.0 / static_cast<double>(total) : 1.0;
    GPB_EXPECTS(sum || v == 1.0, field << ".variance: a product has one overall variance "
                                       << "(kernel.variance), not one per part");
    add(sp.type, lo, hi, sp.lengthscales, v, ard);
  }
  for (std::size_t p = 0; p < ps.size(); ++p) {  // a default part per parameter not named
    if (owner[p] >= 0) continue;
    add(default_type, static_cast<int>(p), static_cast<int>(p), Eigen::VectorXd(),
        sum ? 1.0 / static_cast<double>(total) : 1.0, !one_hot(ps[p]));
  }
  return sum ? Kernel::sum(std::move(out)) : Kernel::product(std::move(out), variance);
}

}  // namespace gpb
