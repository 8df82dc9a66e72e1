/// @file config.hpp
/// The optimizer config as JSON (internal): parsing with extra allowed top-level keys (the CLI's
/// command objective adds its own) and the inverse, used for saved states.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "gpbandit/optimizer/optimizer.hpp"

namespace gpb::detail {

/// parse_optimizer_config on parsed JSON; `extra_keys` are top-level keys the caller handles.
/// @throws InvalidArgument "<source>: <field>: <what>".
OptimizerOptions parse_optimizer_json(const nlohmann::json& root, const std::string& source,
                                      const std::string& base_dir,
                                      const std::set<std::string>& extra_keys);

/// The config that parse_optimizer_json turns back into `o` (point sets embedded; the engine's
/// threads and memory budget are left out).
nlohmann::json options_to_json(const OptimizerOptions& o);

/// What defines an optimizer for a resumed run (experiment/config_identity.hpp): options_to_json
/// without the backend, a point set replaced by its size and a hash of its coordinates.
nlohmann::json optimizer_identity(const OptimizerOptions& o);

}  // namespace gpb::detail
