// Objective factory (stub; implementation in progress).
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

std::unique_ptr<Objective> make_rkhs_objective(const Kernel&, int, bool) {
  throw Error("not implemented yet");
}

}  // namespace gpb
