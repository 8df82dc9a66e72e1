// Clipping, Laplace sampling (inverse CDF and Mironov's snapping) and the CTL mechanism.
#include "gpbandit/privacy/laplace.hpp"

#include "gpbandit/error.hpp"

namespace gpb::privacy {

double clip(double, double) { throw Error("clip: not implemented yet"); }
double laplace_inverse_cdf(double, NoiseSource&) {
  throw Error("laplace_inverse_cdf: not implemented yet");
}
double laplace_snapping(double, double, double, NoiseSource&) {
  throw Error("laplace_snapping: not implemented yet");
}
CtlMechanism::CtlMechanism(double B, double R, double epsilon, bool clip, LaplaceSampler sampler)
    : B_(B), R_(R), epsilon_(epsilon), scale_(0.0), clip_(clip), sampler_(sampler) {
  throw Error("CtlMechanism: not implemented yet");
}
double CtlMechanism::privatize(double, NoiseSource&) const {
  throw Error("CtlMechanism::privatize: not implemented yet");
}
std::string CtlMechanism::guarantee() const {
  throw Error("CtlMechanism::guarantee: not implemented yet");
}

}  // namespace gpb::privacy
