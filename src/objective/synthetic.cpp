// Synthetic benchmark objectives (stub; implementation in progress).
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

std::unique_ptr<Objective> make_branin_objective() {
  throw Error("not implemented yet");
}
std::unique_ptr<Objective> make_hartmann6_objective() {
  throw Error("not implemented yet");
}

}  // namespace gpb
