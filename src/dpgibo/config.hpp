/// @file config.hpp
/// Parsed DP-GIBO experiment configs (internal; format documented in src/dpgibo/config.cpp).
#pragma once

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/config_checker.hpp"
#include "gpbandit/dpgibo/algorithms.hpp"
#include "gpbandit/dpgibo/task.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::dpgibo::detail {

/// One entry of "methods".
struct MethodSpec {
  std::string type;           ///< dp_gibo | gibo | dp_gd | gd | random_search | ucb_bo
  std::string label;          ///< unique
  GiboOptions gibo;           ///< dp_gibo, gibo, dp_gd, gd
  UcbBoOptions ucb;           ///< ucb_bo
  int evaluations = 0;        ///< random_search, ucb_bo (0 when matched)
  int match = -1;             ///< index of the method whose evaluations are matched
  double eval_noise_sd = -1;  ///< per-method σ override (−1: the config's)
  bool privat() const { return type == "dp_gibo" || type == "dp_gd"; }
};

/// A validated config.
struct Config {
  ExperimentSettings settings;  ///< the keys every family shares (name, seed, runs, …)
  std::string source;           ///< the config file (messages)
  std::optional<double> budget_mu;
  std::vector<double> report_eps{1.0, 2.0};
  std::vector<double> report_delta;  ///< empty = {1/n}
  double eval_noise_sd = 0;
  bool eval_noise_shared = false;    ///< "eval_noise": "shared_per_point" (spec §7 decision 6)
  std::string theta0_mode = "zero";  ///< zero | uniform | given
  Eigen::VectorXd theta0;            ///< when given
  nlohmann::json task;
  int dim = 0, users = 0;
  std::vector<MethodSpec> methods;
};

/// Validates the family keys of a config whose shared keys are in `settings` (read_settings()).
/// @throws InvalidArgument "source: field: problem".
Config parse_config(const gpb::detail::Checker& chk, const nlohmann::json& root,
                    ExperimentSettings settings);
/// Builds the task the config names (data drawn from `seed`).
std::unique_ptr<Task> make_task(const Config& cfg, std::uint64_t seed);

}  // namespace gpb::dpgibo::detail
