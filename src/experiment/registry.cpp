// Policy factory and the registry of everything a config can name (stub).
#include "gpbandit/error.hpp"
#include "gpbandit/experiment.hpp"

namespace gpb {

std::unique_ptr<Policy> make_policy(const PolicySpec& spec, const PolicyEnv& env) {
  (void)spec;
  (void)env;
  throw Error("not implemented yet");
}

std::vector<RegistryEntry> registry() { return {}; }

}  // namespace gpb
