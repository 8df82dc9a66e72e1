#include "gpbandit/kernel.hpp"
#include "gpbandit/error.hpp"

namespace gpb {
KernelType parse_kernel_type(const std::string&) {
  throw Error("not implemented yet");
}
const char* kernel_type_name(KernelType) {
  throw Error("not implemented yet");
}
Kernel Kernel::se(double, double) {
  throw Error("not implemented yet");
}
Kernel Kernel::matern(KernelType, double, double) {
  throw Error("not implemented yet");
}
Kernel Kernel::linear(double, double) {
  throw Error("not implemented yet");
}
Kernel Kernel::polynomial(int, double, double) {
  throw Error("not implemented yet");
}
Kernel Kernel::precomputed(Eigen::MatrixXd) {
  throw Error("not implemented yet");
}
bool Kernel::stationary() const {
  throw Error("not implemented yet");
}
std::string Kernel::describe() const {
  throw Error("not implemented yet");
}
double Kernel::operator()(const double*, const double*, int) const {
  throw Error("not implemented yet");
}
}  // namespace gpb
