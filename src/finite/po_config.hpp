/// @file po_config.hpp
/// Config pieces of the PO-GP-UCB experiments (specs/po-gp-ucb.md): the "po_data" objective and
/// the "po_gp_ucb" policy's parameters, kept out of config.cpp / registry.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "gpbandit/engine/domain.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/policy/po_gp_ucb.hpp"

namespace gpb::detail {

/// Registry rows: the "po_data" objective and the "po_gp_ucb" policy.
std::vector<RegistryEntry> po_registry_entries();

/// Builds the po_data objective (data set + spec §2 pipeline) from its parameter object (keys
/// and types already checked). Relative paths resolve against `base_dir`. @throws
/// InvalidArgument "<source>: objective.<field>: <what>" (or the data file's file:line).
std::shared_ptr<const Objective> build_po_data_objective(const nlohmann::json& obj,
                                                         const std::string& source,
                                                         const std::string& base_dir);

/// Validates a po_gp_ucb parameter object (keys and types already checked) against the domain:
/// epsilon required (> 0) unless "curator" is false, delta in (0, 1), r in [0, N], n_init in
/// [0, N], omega_form, calibrate_to > 0, and the domain not rank-deficient after centring.
/// @throws InvalidArgument "<source>: <path>.<field>: <what>".
void check_po_gp_ucb_params(const nlohmann::json& params, const std::string& path,
                            const std::string& source, const Domain& domain);

/// PoGpUcbOptions from a validated parameter object. `beta` is the parsed schedule, if given.
PoGpUcbOptions parse_po_gp_ucb(const nlohmann::json& params, const std::string& label);

}  // namespace gpb::detail
