/// @file config_common.hpp
/// The one config reader's shared parts (internal): JSON text with comments and exact error
/// positions, the keys every family shares, and the family dispatch of load_experiment().
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "experiment/config_checker.hpp"
#include "experiment/family.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

/// Parses config text (// and /* */ comments allowed, duplicate keys rejected).
/// @throws InvalidArgument "<source>:<line>:<column>: JSON syntax error: ...".
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

/// The family a config names ("experiment": absent → "finite"). @throws InvalidArgument.
std::string family_of(const Checker& c, const nlohmann::json& root);

/// Checks the top-level keys of `root` against the registry entry of `family` and reads the keys
/// every family shares (name, seed, runs, lockstep, threads, backend, memory_budget_mb,
/// privacy_noise); config_json and source are filled too. @throws InvalidArgument naming the key.
ExperimentSettings read_settings(const Checker& c, const nlohmann::json& root,
                                 const std::string& family);

/// The budget a domain is checked against at validation (before any Context exists):
/// memory_budget_mb when given; else, automatic, 4 GiB on the CPU backend and, with a CUDA device
/// possible (auto, cuda), the host's physical memory (the points, f, μ and σ² of every candidate
/// are held on the host whatever the backend).
std::size_t validation_budget(const ExperimentSettings& s);

/// The DP-GIBO family from a validated top level (src/dpgibo/config.cpp).
std::shared_ptr<const Family> make_dpgibo_family(const Checker& c, const nlohmann::json& root,
                                                 ExperimentSettings settings);
/// The pool family from a validated top level (src/pool/config.cpp).
std::shared_ptr<const Family> make_pool_family(const Checker& c, const nlohmann::json& root,
                                               ExperimentSettings settings);
/// The X-armed family from a validated top level (src/xarmed/config.cpp).
std::shared_ptr<const Family> make_xarmed_family(const Checker& c, const nlohmann::json& root,
                                                 ExperimentSettings settings);

}  // namespace gpb::detail
