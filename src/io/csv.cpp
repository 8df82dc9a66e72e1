// CSV reader (stub; implementation in progress).
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

Eigen::MatrixXd read_csv_matrix(const std::string&, bool*, int) {
  throw Error("not implemented yet");
}

}  // namespace gpb
