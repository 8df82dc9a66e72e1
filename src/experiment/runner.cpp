// The experiment runner (stub).
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"

namespace gpb {

ExperimentResult run_experiment(const ExperimentConfig& config, const RunOptions& options) {
  (void)config;
  (void)options;
  throw Error("not implemented yet");
}

}  // namespace gpb
