// Parsing and validating X-armed (Fed-PNE) experiment configs.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/experiment.hpp"

namespace gpb::xarmed {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& src, const std::string& field, const std::string& msg) {
  throw InvalidArgument(src + ": " + field + ": " + msg);
}

void only_keys(const json& j, const std::set<std::string>& allowed, const std::string& src,
               const std::string& where) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!allowed.count(it.key())) {
      bad(src, where.empty() ? it.key() : where + "." + it.key(), "unknown key");
    }
  }
}

double num(const json& j, const char* key, double def, const std::string& src,
           const std::string& where) {
  if (!j.contains(key)) return def;
  const std::string f = where.empty() ? key : where + "." + key;
  if (!j[key].is_number()) bad(src, f, "must be a number");
  const double v = j[key].get<double>();
  if (!std::isfinite(v)) bad(src, f, "must be finite");
  return v;
}

long long integer(const json& j, const char* key, long long def, const std::string& src,
                  const std::string& where) {
  if (!j.contains(key)) return def;
  const std::string f = where.empty() ? key : where + "." + key;
  if (!j[key].is_number_integer()) bad(src, f, "must be an integer");
  return j[key].get<long long>();
}

std::string str(const json& j, const char* key, const std::string& def, const std::string& src,
                const std::string& where) {
  if (!j.contains(key)) return def;
  if (!j[key].is_string()) bad(src, where.empty() ? key : where + "." + key, "must be a string");
  return j[key].get<std::string>();
}

void check(bool ok, const std::string& src, const std::string& field, const std::string& msg) {
  if (!ok) bad(src, field, msg);
}

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

MethodSpec parse_method(const json& j, const std::string& src, const std::string& w, int M,
                        bool seeded, std::uint64_t partition_seed) {
  if (!j.is_object()) bad(src, w, "must be an object");
  MethodSpec m;
  m.type = str(j, "type", "", src, w);
  m.label = str(j, "label", m.type, src, w);
  if (m.type == "fed-pne" || m.type == "dp-fed-pne") {
    std::set<std::string> keys{"type",         "label",  "k",     "nu",
                               "rho",          "c",      "c1",    "delta_conf",
                               "depth_offset", "preset", "order", "pull_point"};
    const bool dp = m.type == "dp-fed-pne";
    if (dp) keys.insert({"dp_epsilon", "dp_delta", "dp_affine"});
    only_keys(j, keys, src, w);
    FedPneParams& p = m.fed;
    const std::string preset = str(j, "preset", "practical", src, w);
    check(preset == "practical" || preset == "theory", src, w + ".preset",
          "must be \"practical\" or \"theory\", got \"" + preset + "\"");
    if (preset == "theory") {
      p.c = 2.0;
      p.c1 = std::pow(2.0 * M, 0.125);
    }
    p.k = static_cast<int>(integer(j, "k", 2, src, w));
    p.nu = num(j, "nu", 1.0, src, w);
    p.rho = num(j, "rho", 0.5, src, w);
    p.c = num(j, "c", p.c, src, w);
    p.c1 = num(j, "c1", p.c1, src, w);
    p.delta_conf = num(j, "delta_conf", 0.0, src, w);
    p.depth_offset = static_cast<int>(integer(j, "depth_offset", 0, src, w));
    p.partition_seed = partition_seed;
    const std::string order = str(j, "order", "node_major", src, w);
    check(order == "node_major" || order == "round_robin", src, w + ".order",
          "must be \"node_major\" or \"round_robin\", got \"" + order + "\"");
    p.round_robin = order == "round_robin";
    const std::string pp = str(j, "pull_point", "centre", src, w);
    check(pp == "centre" || pp == "uniform", src, w + ".pull_point",
          "must be \"centre\" or \"uniform\", got \"" + pp + "\"");
    p.uniform_point = pp == "uniform";
    p.dp = dp;
    p.privacy_seeded = seeded;
    if (dp) {
      p.dp_epsilon = num(j, "dp_epsilon", 1.0, src, w);
      p.dp_delta = num(j, "dp_delta", 0.01, src, w);
      if (j.contains("dp_affine")) {
        const json& a = j["dp_affine"];
        check(a.is_array() && a.size() == 2 && a[0].is_number() && a[1].is_number(), src,
              w + ".dp_affine", "must be [scale, shift]");
        p.dp_scale = a[0].get<double>();
        p.dp_shift = a[1].get<double>();
      }
    }
    // Range checks with the config path in the message.
    check(p.k >= 2 && p.k <= 16, src, w + ".k", "must lie in [2, 16], got " + std::to_string(p.k));
    check(p.nu > 0, src, w + ".nu", "must be > 0, got " + fmt(p.nu));
    check(p.rho > 0 && p.rho < 1, src, w + ".rho", "must lie in (0, 1), got " + fmt(p.rho));
    check(p.c > 0, src, w + ".c", "must be > 0, got " + fmt(p.c));
    check(p.c1 > 0, src, w + ".c1", "must be > 0, got " + fmt(p.c1));
    check(p.delta_conf == 0 || (p.delta_conf > 0 && p.delta_conf < 1), src, w + ".delta_conf",
          "must lie in (0, 1), got " + fmt(p.delta_conf));
    check(p.depth_offset == 0 || p.depth_offset == 1, src, w + ".depth_offset", "must be 0 or 1");
    if (dp) {
      check(p.dp_epsilon > 0, src, w + ".dp_epsilon", "must be > 0, got " + fmt(p.dp_epsilon));
      check(p.dp_delta > 0 && p.dp_delta < 1, src, w + ".dp_delta",
            "must lie in (0, 1), got " + fmt(p.dp_delta));
    }
  } else if (m.type == "hct") {
    only_keys(j, {"type", "label", "k", "nu", "rho", "c", "delta", "c1", "reexpand"}, src, w);
    HctParams& p = m.hct;
    const std::string re = str(j, "reexpand", "keep", src, w);
    check(re == "keep" || re == "rebuild", src, w + ".reexpand",
          "must be \"keep\" or \"rebuild\" (PyXAB), got \"" + re + "\"");
    p.rebuild = re == "rebuild";
    p.k = static_cast<int>(integer(j, "k", 2, src, w));
    p.nu = num(j, "nu", 1.0, src, w);
    p.rho = num(j, "rho", 0.75, src, w);
    p.c = num(j, "c", 0.1, src, w);
    p.delta = num(j, "delta", 0.01, src, w);
    p.c1 = num(j, "c1", 0.0, src, w);
    p.partition_seed = partition_seed;
    check(p.k >= 2 && p.k <= 16, src, w + ".k", "must lie in [2, 16]");
    check(p.nu > 0, src, w + ".nu", "must be > 0, got " + fmt(p.nu));
    check(p.rho > 0 && p.rho < 1, src, w + ".rho", "must lie in (0, 1), got " + fmt(p.rho));
    check(p.c > 0, src, w + ".c", "must be > 0");
    check(p.delta > 0 && p.delta < 1, src, w + ".delta", "must lie in (0, 1)");
  } else if (m.type == "fed1-ucb") {
    only_keys(j, {"type", "label", "mesh", "kappa"}, src, w);
    m.fed1.mesh = static_cast<int>(integer(j, "mesh", 100, src, w));
    m.fed1.kappa = num(j, "kappa", 1.0, src, w);
    check(m.fed1.mesh >= 2, src, w + ".mesh", "must be >= 2");
    check(m.fed1.kappa > 0, src, w + ".kappa", "must be > 0");
  } else if (m.type == "gp-ucb") {
    only_keys(j, {"type", "label", "mesh", "lengthscale", "noise_variance", "delta", "kernel"}, src,
              w);
    GpUcbParams& p = m.gp;
    p.mesh = static_cast<int>(integer(j, "mesh", 100, src, w));
    p.lengthscale = num(j, "lengthscale", 1.0, src, w);
    p.noise_variance = num(j, "noise_variance", 1e-3, src, w);
    p.delta = num(j, "delta", 0.1, src, w);
    const std::string k = str(j, "kernel", "laplace", src, w);
    check(k == "laplace" || k == "se", src, w + ".kernel", "must be \"laplace\" or \"se\"");
    p.se = k == "se";
    check(p.mesh >= 2, src, w + ".mesh", "must be >= 2");
    check(p.lengthscale > 0, src, w + ".lengthscale", "must be > 0");
    check(p.noise_variance > 0, src, w + ".noise_variance", "must be > 0");
    check(p.delta > 0 && p.delta < 1, src, w + ".delta", "must lie in (0, 1)");
  } else if (m.type == "random") {
    only_keys(j, {"type", "label"}, src, w);
  } else {
    bad(src, w + ".type",
        "unknown method '" + m.type + "' (fed-pne, dp-fed-pne, hct, fed1-ucb, gp-ucb, random)");
  }
  return m;
}

}  // namespace

bool is_xarmed_config(const std::string& path) {
  try {
    std::ifstream in(path);
    if (!in) return false;
    const json j = json::parse(in, nullptr, true, true);
    return j.is_object() && j.contains("experiment") && j["experiment"] == "fed-pne";
  } catch (...) {
    return false;
  }
}

XConfig load_xarmed_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot read config");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_xarmed_config(ss.str(), path);
}

XConfig parse_xarmed_config(const std::string& text, const std::string& src) {
  json j;
  try {
    j = json::parse(text, nullptr, true, true);
  } catch (const json::parse_error& e) {
    throw InvalidArgument(src + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw InvalidArgument(src + ": config must be a JSON object");
  only_keys(j,
            {"experiment", "name", "seed", "runs", "horizon", "clients", "noise", "partition_seed",
             "mpi_timeout_s", "privacy_noise", "objective", "methods", "comment"},
            src, "");
  XConfig c;
  c.source = src;
  c.config_json = j.dump();
  c.name = str(j, "name", "fed-pne", src, "");
  c.seed = static_cast<std::uint64_t>(integer(j, "seed", 0, src, ""));
  c.runs = static_cast<int>(integer(j, "runs", 10, src, ""));
  c.horizon = integer(j, "horizon", 1000, src, "");
  c.clients = static_cast<int>(integer(j, "clients", 10, src, ""));
  c.noise = num(j, "noise", 0.1, src, "");
  c.mpi_timeout_s = num(j, "mpi_timeout_s", 120, src, "");
  const auto pseed = static_cast<std::uint64_t>(integer(j, "partition_seed", 0, src, ""));
  const std::string pn = str(j, "privacy_noise", "secure", src, "");
  check(pn == "secure" || pn == "seeded", src, "privacy_noise", "must be \"secure\" or \"seeded\"");
  check(c.clients >= 1, src, "clients", "M must be >= 1, got " + std::to_string(c.clients));
  check(c.runs >= 1, src, "runs", "must be >= 1, got " + std::to_string(c.runs));
  check(c.horizon >= 1 && c.horizon <= 100000000, src, "horizon", "must lie in [1, 1e8]");
  check(c.noise >= 0, src, "noise", "must be >= 0");
  check(c.mpi_timeout_s > 0, src, "mpi_timeout_s", "must be > 0");
  if (!j.contains("objective") || !j["objective"].is_object()) {
    bad(src, "objective", "required object {\"type\": ...}");
  }
  const json& o = j["objective"];
  only_keys(o, {"type", "perturbed", "slope", "peak", "shift", "fstar"}, src, "objective");
  const std::string fs = str(o, "fstar", "exact", src, "objective");
  check(fs == "exact" || fs == "pyxab", src, "objective.fstar",
        "must be \"exact\" or \"pyxab\", got \"" + fs + "\"");
  c.objective.fstar_pyxab = fs == "pyxab";
  c.objective.type = str(o, "type", "", src, "objective");
  if (o.contains("perturbed")) {
    check(o["perturbed"].is_boolean(), src, "objective.perturbed", "must be true or false");
    c.objective.perturbed = o["perturbed"].get<bool>();
  }
  c.objective.slope = num(o, "slope", 1.0, src, "objective");
  c.objective.peak = num(o, "peak", c.objective.peak, src, "objective");
  c.objective.shift = num(o, "shift", 0.0, src, "objective");
  c.objective.seed = c.seed;
  try {
    (void)make_objective(c.objective);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(src + ": " + e.what());
  }
  if (!j.contains("methods") || !j["methods"].is_array() || j["methods"].empty()) {
    bad(src, "methods", "required non-empty array");
  }
  std::set<std::string> labels;
  for (std::size_t i = 0; i < j["methods"].size(); ++i) {
    const std::string w = "methods[" + std::to_string(i) + "]";
    c.methods.push_back(parse_method(j["methods"][i], src, w, c.clients, pn == "seeded", pseed));
    check(labels.insert(c.methods.back().label).second, src, w + ".label",
          "duplicate label '" + c.methods.back().label + "'");
  }
  return c;
}

}  // namespace gpb::xarmed
