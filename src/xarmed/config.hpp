/// @file config.hpp
/// Validated X-armed (Fed-PNE family) configs (internal). Keys: `gpbandit list fed-pne` (the
/// registry), examples in examples/fed-pne/.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/config_checker.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/xarmed/baselines.hpp"
#include "gpbandit/xarmed/fed_pne.hpp"
#include "gpbandit/xarmed/objective.hpp"

namespace gpb::xarmed {

/// One method of an X-armed config.
struct MethodSpec {
  std::string type;    ///< fed-pne | dp-fed-pne | hct | fed1-ucb | gp-ucb | random
  std::string label;   ///< unique label in the outputs (default: type)
  FedPneParams fed;    ///< parameters when type is fed-pne or dp-fed-pne
  HctParams hct;       ///< parameters when type is hct
  Fed1UcbParams fed1;  ///< parameters when type is fed1-ucb
  GpUcbParams gp;      ///< parameters when type is gp-ucb
};

/// A validated X-armed config.
struct XConfig {
  ExperimentSettings settings;      ///< the keys every family shares (name, seed, runs, …)
  int clients = 10;                 ///< clients M ≥ 1
  long long horizon = 1000;         ///< rounds T per run, in [1, 1e8]
  double noise = 0.1;               ///< observation noise U(−noise, noise) per evaluation, ≥ 0
  double mpi_timeout_s = 120;       ///< seconds the MPI server waits for a client rank, > 0
  ObjectiveSpec objective;          ///< the objective (its seed: the run's seed)
  std::vector<MethodSpec> methods;  ///< methods in config order (non-empty)
};

/// Validates the family keys of a config whose shared keys are in `settings`.
/// @throws InvalidArgument "source: field: message".
XConfig parse_config(const gpb::detail::Checker& chk, const nlohmann::json& root,
                     ExperimentSettings settings);

/// Reads a whole X-armed config from JSON text with the one reader (shared keys, then family
/// keys); `source` names it in messages. @throws InvalidArgument "source: field: message".
XConfig parse_xarmed_config(const std::string& json_text, const std::string& source);

/// Whether the method is Fed-PNE or DP-Fed-PNE.
/// GP-UCB or GP-TS on the Fed1-UCB mesh (one posterior, sharded over the ranks under MPI).
inline bool is_gp_mesh(const MethodSpec& m) {
  return m.type == "gp-ucb" || m.type == "gp-ts";
}

inline bool is_fed_pne(const MethodSpec& m) {
  return m.type == "fed-pne" || m.type == "dp-fed-pne";
}

}  // namespace gpb::xarmed
