// The CUDA posterior does not stream a parameter space (Domain::streamed_space): it refuses one
// with a single error naming the backend and what to do, and an Optimizer on Backend::Auto over
// a streamed space runs on the CPU instead. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda_test_support.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/optimizer/optimizer.hpp"
#include "test_support.hpp"

namespace {

std::shared_ptr<const gpb::ParameterSpace> small_space() {
  return std::make_shared<const gpb::ParameterSpace>(std::vector<gpb::Parameter>{
      gpb::Parameter::categorical("a", {"x", "y", "z"}), gpb::Parameter::integer("n", 1, 5)});
}

TEST(CudaSpaceStreaming, CudaPosteriorRefusesAStreamedDomain) {
  GPB_REQUIRE_CUDA_DEVICE();
  const auto cuda = gpb::test::cuda_context();
  const gpb::Domain dom = gpb::Domain::streamed_space(small_space());
  const std::string msg = gpb::test::invalid_argument_of(
      [&] { gpb::FinitePosterior p(*cuda, gpb::Kernel::se(1.0), dom, 1); });
  EXPECT_TRUE(gpb::test::contains(msg, "the CUDA backend does not stream")) << msg;
  EXPECT_TRUE(gpb::test::contains(msg, "Backend::Cpu")) << msg;
}

TEST(CudaSpaceStreaming, AutoOptimizerStreamsOnTheCpu) {
  GPB_REQUIRE_CUDA_DEVICE();
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::parameters(small_space());
  o.context.backend = gpb::Backend::Auto;
  o.context.memory_budget_bytes = 1;  // streams
  gpb::Optimizer opt(o);
  EXPECT_TRUE(opt.streams());
  EXPECT_EQ(opt.context().backend(), gpb::Backend::Cpu);
  EXPECT_EQ(opt.ask(1).indices.size(), 1u);
}

}  // namespace
