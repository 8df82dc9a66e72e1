// The lookup objective: f given as one value per candidate (a table column, e.g. docking scores).
#include <utility>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

namespace {

class LookupObjective final : public Objective {
 public:
  explicit LookupObjective(std::vector<double> values)
      : values_(Eigen::Map<const Eigen::VectorXd>(values.data(),
                                                  static_cast<Eigen::Index>(values.size()))) {}

  std::string name() const override { return "lookup"; }

  /// The given values (the domain must have one candidate per value; a slice gets its part).
  Eigen::VectorXd values(const Context&, const Domain& domain, std::uint64_t,
                         std::uint32_t) const override {
    GPB_EXPECTS(domain.size() == values_.size(), "lookup: the domain has "
                                                     << domain.size() << " candidates but the "
                                                     << "table " << values_.size() << " values");
    return values_.segment(domain.slice_begin(), domain.points().cols());
  }

 private:
  Eigen::VectorXd values_;
};

}  // namespace

std::unique_ptr<Objective> make_lookup_objective(std::vector<double> values) {
  GPB_EXPECTS(!values.empty(), "lookup: no values");
  return std::make_unique<LookupObjective>(std::move(values));
}

}  // namespace gpb
