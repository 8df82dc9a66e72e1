/// @file config_identity.hpp
/// What makes two configs "the same run" for --resume: the keys that define the experiment (or
/// the optimizer), not the config's text. Comments, whitespace, key order, the name, the
/// description and the engine's resources (threads, lockstep, memory budget) may change between
/// an interrupted run and its --resume; anything that changes the results may not, and a refusal
/// names the first key that differs with its two values.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpb::detail {

/// The identity of a pipeline run: its config (parsed; comments and whitespace gone) without
/// name, description, threads, lockstep, memory_budget_mb, runs and seed, then the resolved
/// runs, seed and --backend override.
nlohmann::json experiment_identity(const std::string& config_json, int runs, std::uint64_t seed,
                                   const std::string& backend_flag);

/// One key whose value differs between two identities.
struct IdentityDifference {
  std::string key;     ///< dotted path, e.g. "policies[0].beta.value" ("" = the whole value)
  std::string before;  ///< its value in the first identity (JSON, shortened), or "(absent)"
  std::string now;     ///< its value in the second
};

/// The first key (in sorted key order, depth first) whose value differs, or nothing when equal.
std::optional<IdentityDifference> first_difference(const nlohmann::json& before,
                                                   const nlohmann::json& now);

/// "KEY: BEFORE in <where>, NOW now", the phrase every refusal uses.
std::string describe_difference(const IdentityDifference& d, const std::string& where);

}  // namespace gpb::detail
