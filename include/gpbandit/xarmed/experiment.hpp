/// @file experiment.hpp
/// X-armed (Fed-PNE family) experiments: a config with "experiment": "fed-pne" → runs.csv,
/// phases.csv, summary.json, regret.png. Reached from `gpbandit run CONFIG.json [--mpi]`.
///
/// Config keys (all but "experiment" and "objective" optional):
///   experiment "fed-pne"; name; seed (0); runs (10); horizon T (1000); clients M (10);
///   noise (0.1: U(−noise, noise) per evaluation); partition_seed (0); mpi_timeout_s (120);
///   privacy_noise "secure" (default) | "seeded";
///   objective {type: garland|doublesine|himmelblau|linear|seir, perturbed (false), slope, peak,
///              shift, fstar "exact" | "pyxab" (Garland f* = 1)};
///   methods [ {type: fed-pne|dp-fed-pne|hct|fed1-ucb|gp-ucb|random, label, ...} ] with
///     fed-pne / dp-fed-pne: k (2), nu (1), rho (0.5), c (0.1), c1 (1), delta_conf (1/M),
///       depth_offset (0), preset "practical"|"theory", order "node_major"|"round_robin",
///       pull_point "centre"|"uniform"; dp-fed-pne also dp_epsilon (1),
///       dp_delta (0.01), dp_affine [scale, shift] ([1, 0]);
///     hct: k, nu (1), rho (0.75), c (0.1), delta (0.01), c1 ((ρ/3ν)^{1/8}), reexpand
///       (keep | rebuild: PyXAB 0.3.0 replaces the children of a node that reaches τ_h again);
///     fed1-ucb: mesh (100), kappa (1);  gp-ucb: mesh (100), lengthscale (1),
///       noise_variance (0.001), delta (0.1), kernel "laplace"|"se";  random: none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/// A parsed and validated X-armed config.
struct XConfig {
  std::string name = "fed-pne";     ///< experiment name (default output folder results/NAME)
  std::string source;               ///< the config's path (or label), used in error messages
  std::uint64_t seed = 0;           ///< master seed (noise streams and objective perturbations)
  int runs = 10;                    ///< independent runs R ≥ 1
  int clients = 10;                 ///< clients M ≥ 1
  long long horizon = 1000;         ///< rounds T per run, in [1, 1e8]
  double noise = 0.1;               ///< observation noise U(−noise, noise) per evaluation, ≥ 0
  double mpi_timeout_s = 120;       ///< seconds the MPI server waits for a client rank, > 0
  ObjectiveSpec objective;          ///< the objective (its seed is `seed`)
  std::vector<MethodSpec> methods;  ///< methods in config order (non-empty)
  std::string config_json;          ///< the config as parsed, re-serialised for summary.json
};

/// True when the JSON file has "experiment": "fed-pne" (false for other configs or bad JSON;
/// the regular loader reports those). @throws nothing.
bool is_xarmed_config(const std::string& path);
/// Reads and validates. Every problem throws InvalidArgument "file: field: message".
XConfig load_xarmed_config(const std::string& path);
/// Parses and validates config text; `source` names it in messages (XConfig::source).
/// @throws InvalidArgument "source: field: message" for invalid JSON or any invalid field.
XConfig parse_xarmed_config(const std::string& json_text, const std::string& source);

/// Options of one invocation.
struct XRunOptions {
  std::string out_dir;                ///< output folder; empty → results/NAME (XConfig::name)
  std::optional<int> runs;            ///< overrides XConfig::runs when set
  std::optional<std::uint64_t> seed;  ///< overrides XConfig::seed (and the objective's) when set
  std::optional<int> threads;         ///< CPU threads (0 or unset = all cores)
  bool plot = true;                   ///< draw regret.png (only when T ≤ 20000)
  bool progress = true;               ///< print a line per finished method on stderr
  bool mpi = false;                   ///< run through the MPI runtime (mpi_runtime.hpp)
};

/// Runs every method (Fed-PNE methods through MPI when options.mpi: rank 0 serves, the other
/// ranks host clients; baselines run on rank 0) and writes the outputs atomically (rank 0).
/// Prints the results table on rank 0. Returns the exit code; in MPI mode an error on any rank is
/// printed once and the job is aborted (MPI_Abort), never left hanging.
int run_xarmed_command(const std::string& config_path, const XRunOptions& options);

}  // namespace gpb::xarmed
