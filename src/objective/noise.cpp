// Observation noise models (stub; implementation in progress).
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {

void NoiseModel::validate() const {
  throw Error("not implemented yet");
}
double NoiseModel::sample(Rng&) const {
  throw Error("not implemented yet");
}
std::string NoiseModel::describe() const {
  throw Error("not implemented yet");
}
NoiseModel::Kind parse_noise_kind(const std::string&) {
  throw Error("not implemented yet");
}
const char* noise_kind_name(NoiseModel::Kind) {
  throw Error("not implemented yet");
}

}  // namespace gpb
