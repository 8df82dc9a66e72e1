// The LDP and heavy-tailed parameter checks of the config validator (see config_checker.hpp;
// the config format itself is documented at the top of config.cpp).
#include "experiment/config_checker.hpp"
#include "policy/ldp_presets.hpp"

namespace gpb::detail {

void check_heavy(const Checker& c, const json& o, const std::string& path, const std::string& type,
                 const InstanceInfo& info) {
  check_choice(c, o, "preset", path, {"practical", "theory"});
  check_choice(c, o, "moment_source", path, {"auto", "empirical", "bound"});
  check_choice(c, o, "gamma", path, {"info_gain", "log_t"});
  check_choice(c, o, "ata_level", path, {"current", "per_sample"});
  check_choice(c, o, "median", path, {"lower", "midpoint"});
  check_choice(c, o, "moma_exponent", path, {"arxiv", "aaai"});
  for (const char* key : {"delta", "eps_nys"}) {
    if (!o.contains(key)) continue;
    const double x = o[key].get<double>();
    if (!(x > 0 && x < 1)) c.fail(path + "." + key, "must be in (0, 1), got " + o[key].dump());
  }
  if (o.contains("alpha")) {
    const double a = o["alpha"].get<double>();
    if (!(a > 0 && a <= 1)) c.fail(path + ".alpha", "must be in (0, 1], got " + o["alpha"].dump());
  }
  for (const char* key : {"epsilon", "B", "R", "v", "c", "width_scale", "level_scale"}) {
    if (o.contains(key)) c.positive(o, key, path + "." + key);
  }
  const bool ldp = type.rfind("ldp_", 0) == 0;
  if (ldp && !o.contains("R") && !(info.noise_bound > 0 && std::isfinite(info.noise_bound))) {
    c.fail(path + ".R", "required: the noise model has no finite bound R > 0 (give R)");
  }
  if (type.find("moma") != std::string::npos) {
    const long long kg =
        o.contains("k_groups") ? c.integer(o, "k_groups", path + ".k_groups", 0, INT_MAX) : 0;
    const auto preset = o.value("preset", std::string("practical")) == "theory"
                            ? HeavyTailedOptions::Preset::Theory
                            : HeavyTailedOptions::Preset::Practical;
    const double delta = o.value("delta", 0.1);
    const long long k = kg > 0 ? kg : moma_groups(preset, info.horizon, delta);
    if (info.horizon < k) {
      c.fail(path, "T = " + std::to_string(info.horizon) + " is smaller than MoMA's k = " +
                       std::to_string(k) + " (k_groups; one epoch needs k plays)");
    }
  }
}

void check_gp_ucb_ldp(const Checker& c, const json& l, const std::string& path,
                      const InstanceInfo& info) {
  if (!l.is_object()) c.fail(path, "expected an object");
  for (const auto& [key, value] : l.items()) {
    if (key == "clip") {
      if (!value.is_boolean()) c.fail(path + ".clip", "expected a boolean");
    } else if (key == "epsilon" || key == "B" || key == "R") {
      if (!value.is_number()) c.fail(path + "." + key, "expected a number");
      c.positive(l, key, path + "." + key);
    } else {
      c.fail_plain("unknown key '" + key + "' in " + path + " (allowed: epsilon, B, R, clip)");
    }
  }
  if (!l.contains("epsilon")) c.fail(path + ".epsilon", "required");
  if (!l.contains("R") && !(info.noise_bound > 0 && std::isfinite(info.noise_bound))) {
    c.fail(path + ".R", "required: the noise model has no finite bound R > 0 (give R)");
  }
}

}  // namespace gpb::detail
