#include "gpbandit/posterior.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
struct FinitePosterior::Impl {};
FinitePosterior::FinitePosterior(const Context&, const Kernel&, const Domain&, int,
                                 const PosteriorOptions&) {
  throw Error("not implemented yet");
}
FinitePosterior::~FinitePosterior() = default;
FinitePosterior::FinitePosterior(FinitePosterior&&) noexcept = default;
FinitePosterior& FinitePosterior::operator=(FinitePosterior&&) noexcept = default;
int FinitePosterior::runs() const {
  throw Error("not implemented yet");
}
int FinitePosterior::size() const {
  throw Error("not implemented yet");
}
int FinitePosterior::rows() const {
  throw Error("not implemented yet");
}
int FinitePosterior::pending() const {
  throw Error("not implemented yet");
}
bool FinitePosterior::recompute_mode() const {
  throw Error("not implemented yet");
}
double FinitePosterior::noise_variance() const {
  throw Error("not implemented yet");
}
void FinitePosterior::observe(const int*, const double*) {
  throw Error("not implemented yet");
}
void FinitePosterior::add_pending(const int*) {
  throw Error("not implemented yet");
}
void FinitePosterior::resolve_pending(const double*) {
  throw Error("not implemented yet");
}
const double* FinitePosterior::mean(int) const {
  throw Error("not implemented yet");
}
const double* FinitePosterior::variance(int) const {
  throw Error("not implemented yet");
}
std::vector<UcbChoice> FinitePosterior::ucb_argmax(const double*, const std::uint8_t*,
                                                   std::vector<Rng>*) const {
  throw Error("not implemented yet");
}
double FinitePosterior::info_gain(int) const {
  throw Error("not implemented yet");
}
const std::vector<int>& FinitePosterior::history(int) const {
  throw Error("not implemented yet");
}
double FinitePosterior::incremental_bytes(int, int, int) {
  throw Error("not implemented yet");
}
}  // namespace gpb
