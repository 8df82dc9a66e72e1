// Experiment config parsing and validation (stub; filled in below).
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"

namespace gpb {

ExperimentConfig load_experiment_config(const std::string& path) {
  (void)path;
  throw Error("not implemented yet");
}

ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::string& base_dir) {
  (void)json_text;
  (void)source;
  (void)base_dir;
  throw Error("not implemented yet");
}

}  // namespace gpb
