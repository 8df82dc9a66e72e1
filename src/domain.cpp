// Finite domains (stub; implementation in progress).
#include "gpbandit/domain.hpp"

#include "gpbandit/error.hpp"

namespace gpb {

Domain::Domain(Eigen::MatrixXd points) : points_(std::move(points)) {}

Domain Domain::grid(const std::vector<double>&, const std::vector<double>&,
                    const std::vector<int>&) {
  throw Error("not implemented yet");
}
Domain Domain::from_rows(const Eigen::MatrixXd&) {
  throw Error("not implemented yet");
}
Domain Domain::from_csv(const std::string&) {
  throw Error("not implemented yet");
}
Domain Domain::indices(int) {
  throw Error("not implemented yet");
}

}  // namespace gpb
