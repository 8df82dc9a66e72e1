/// @file experiment.hpp
/// X-armed (Fed-PNE family) experiments: a config with "experiment": "fed-pne" → runs.csv,
/// phases.csv, summary.json, regret.png. Reached from `gpbandit run CONFIG.json [--mpi]`.
///
/// Config keys (all but "experiment" and "objective" optional):
///   experiment "fed-pne"; name; seed (0); runs (10); horizon T (1000); clients M (10);
///   noise (0.1: U(−noise, noise) per evaluation); partition_seed (0); mpi_timeout_s (120);
///   privacy_noise "secure" (default) | "seeded";
///   objective {type: garland|doublesine|himmelblau|linear|seir, perturbed (false), slope, peak,
///              shift};
///   methods [ {type: fed-pne|dp-fed-pne|hct|fed1-ucb|gp-ucb|random, label, ...} ] with
///     fed-pne / dp-fed-pne: k (2), nu (1), rho (0.5), c (0.1), c1 (1), delta_conf (1/M),
///       depth_offset (0), preset "practical"|"theory"; dp-fed-pne also dp_epsilon (1),
///       dp_delta (0.01), dp_affine [scale, shift] ([1, 0]);
///     hct: k, nu (1), rho (0.75), c (0.1), delta (0.01), c1 ((ρ/3ν)^{1/8});
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
  std::string type, label;
  FedPneParams fed;
  HctParams hct;
  Fed1UcbParams fed1;
  GpUcbParams gp;
};

/// A parsed and validated X-armed config.
struct XConfig {
  std::string name = "fed-pne", source;
  std::uint64_t seed = 0;
  int runs = 10, clients = 10;
  long long horizon = 1000;
  double noise = 0.1, mpi_timeout_s = 120;
  ObjectiveSpec objective;
  std::vector<MethodSpec> methods;
  std::string config_json;
};

/// True when the JSON file has "experiment": "fed-pne" (false for other configs or bad JSON;
/// the regular loader reports those). @throws nothing.
bool is_xarmed_config(const std::string& path);
/// Reads and validates. Every problem throws InvalidArgument "file: field: message".
XConfig load_xarmed_config(const std::string& path);
XConfig parse_xarmed_config(const std::string& json_text, const std::string& source);

/// Options of one invocation.
struct XRunOptions {
  std::string out_dir;  ///< default results/<name>
  std::optional<int> runs;
  std::optional<std::uint64_t> seed;
  bool plot = true, progress = true, mpi = false;
};

/// Runs every method (Fed-PNE methods through MPI when options.mpi: rank 0 serves, the other
/// ranks host clients; baselines run on rank 0) and writes the outputs atomically (rank 0).
/// Prints the results table on rank 0. Returns the exit code; in MPI mode an error on any rank is
/// printed once and the job is aborted (MPI_Abort), never left hanging.
int run_xarmed_command(const std::string& config_path, const XRunOptions& options);

}  // namespace gpb::xarmed
