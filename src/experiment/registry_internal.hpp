/// @file registry_internal.hpp
/// Look-ups into the registry() table shared by the config validator and `gpbandit list`.
#pragma once

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "gpbandit/experiment/experiment.hpp"

namespace gpb::detail {

/// Marker in ParamDoc::default_value for a parameter that must be given.
inline constexpr const char* kRequired = "(required)";

/// `a` followed by `b`: a family's keys built from shared lists.
inline std::vector<ParamDoc> with(std::vector<ParamDoc> a, const std::vector<ParamDoc>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// The entry of `kind` named `name`, or nullptr.
const RegistryEntry* find_registry_entry(const std::string& kind, const std::string& name);
/// Names of every entry of `kind`, in table order.
std::vector<std::string> registry_names(const std::string& kind);
/// The config keys every family shares ("finite", "dp-gibo", "fed-pne"), with its defaults.
std::vector<ParamDoc> common_params(const std::string& family);
/// Appends the finite-domain family's entries (finite/registry.cpp): its top-level keys,
/// policies, objectives, kernels, noise models and domains.
void add_finite_entries(std::vector<RegistryEntry>& r);
/// Appends the pool family's entries (pool/registry.cpp): its top-level keys and acquisitions.
void add_pool_entries(std::vector<RegistryEntry>& r);
/// Appends the DP-GIBO family's entries: its top-level keys, tasks and methods.
void add_dpgibo_entries(std::vector<RegistryEntry>& r);
/// Appends the X-armed family's entries: its top-level keys, objective and methods.
void add_xarmed_entries(std::vector<RegistryEntry>& r);
/// Appends the optimizer config's entries (optimizer/registry_entries.cpp): its top-level keys, a
/// command-objective run's keys, the objective, acquisitions, fit and domain types.
void add_optimizer_entries(std::vector<RegistryEntry>& r);
/// The parameter names of the entry of `kind` named `name` (empty when there is none).
std::set<std::string> registry_keys(const std::string& kind, const std::string& name);
/// HeavyTailedOptions from a validated policy parameter object of a tgp/ata/moma (± ldp_) type.
HeavyTailedOptions parse_heavy(const nlohmann::json& params, const std::string& type);

}  // namespace gpb::detail
