// libFuzzer target: the JSON experiment-config reader of every family (gpb::parse_experiment,
// and gpb::parse_experiment_config for finite-domain configs), i.e. comment stripping, JSON
// parsing, strict key/type validation against the registry and construction of the domain,
// kernel, objective and policy specs (or the DP-GIBO task and methods, the X-armed methods).
// Relative paths resolve against GPB_FUZZ_DATA_DIR (small CSV files the corpus refers to). Oracle:
// only InvalidArgument/IoError may escape; an accepted config has a non-empty domain, a positive
// horizon and at least one policy.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "gpbandit/experiment/experiment.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1 << 16) return 0;  // configs are small; keep executions fast
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpb::fuzz::expect_clean_rejection([&] {
    const gpb::Experiment e = gpb::parse_experiment(text, "fuzz.json", GPB_FUZZ_DATA_DIR);
    gpb::fuzz::check(e.settings().runs >= 1, "accepted config with runs < 1");
    if (e.settings().family != "finite") return;
    const gpb::ExperimentConfig cfg =
        gpb::parse_experiment_config(text, "fuzz.json", GPB_FUZZ_DATA_DIR);
    gpb::fuzz::check(cfg.domain.size() >= 1, "accepted config with an empty domain");
    gpb::fuzz::check(cfg.horizon >= 1 && cfg.runs >= 1, "accepted config with T or runs < 1");
    gpb::fuzz::check(!cfg.policies.empty() && cfg.objective != nullptr,
                     "accepted config without policies or objective");
  });
  return 0;
}
