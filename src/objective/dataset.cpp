// Objective factory (stub; implementation in progress).
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

std::unique_ptr<Objective> make_dataset_objective(Eigen::MatrixXd, bool, const std::string&) {
  throw Error("not implemented yet");
}

}  // namespace gpb
