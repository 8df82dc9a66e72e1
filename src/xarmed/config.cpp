// Validating X-armed (Fed-PNE family) configs: the family's keys (registry: `gpbandit list
// fed-pne`) on top of the keys every family shares (experiment/config_common.cpp).
#include "xarmed/config.hpp"

#include <cmath>
#include <set>
#include <sstream>

#include "experiment/config_common.hpp"
#include "gpbandit/error.hpp"
#include "xarmed/family.hpp"

namespace gpb::xarmed {

using nlohmann::json;
using Reader = gpb::detail::ConfigObject;

namespace {

std::string fmt(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

MethodSpec parse_method(const Reader& r, int M, bool seeded, std::uint64_t partition_seed) {
  MethodSpec m;
  m.type = r.choice("type", "",
                    {"fed-pne", "dp-fed-pne", "hct", "fed1-ucb", "gp-ucb", "gp-ts", "random"});
  r.keys("xarmed_method", m.type);
  m.label = r.str("label", m.type);
  if (m.type == "fed-pne" || m.type == "dp-fed-pne") {
    const bool dp = m.type == "dp-fed-pne";
    FedPneParams& p = m.fed;
    const std::string preset = r.str("preset", "practical");
    if (!(preset == "practical" || preset == "theory"))
      r.fail("preset", "must be \"practical\" or \"theory\", got \"" + preset + "\"");
    if (preset == "theory") {
      p.c = 2.0;
      p.c1 = std::pow(2.0 * M, 0.125);
    }
    p.k = static_cast<int>(r.integer("k", 2));
    p.nu = r.num("nu", 1.0);
    p.rho = r.num("rho", 0.5);
    p.c = r.num("c", p.c);
    p.c1 = r.num("c1", p.c1);
    p.delta_conf = r.num("delta_conf", 0.0);
    p.depth_offset = static_cast<int>(r.integer("depth_offset", 0));
    p.partition_seed = partition_seed;
    const std::string order = r.str("order", "node_major");
    if (!(order == "node_major" || order == "round_robin"))
      r.fail("order", "must be \"node_major\" or \"round_robin\", got \"" + order + "\"");
    p.round_robin = order == "round_robin";
    const std::string pp = r.str("pull_point", "centre");
    if (!(pp == "centre" || pp == "uniform"))
      r.fail("pull_point", "must be \"centre\" or \"uniform\", got \"" + pp + "\"");
    p.uniform_point = pp == "uniform";
    p.dp = dp;
    p.privacy_seeded = seeded;
    if (dp) {
      p.dp_epsilon = r.num("dp_epsilon", 1.0);
      p.dp_delta = r.num("dp_delta", 0.01);
      if (r.has("dp_affine")) {
        const json& a = r.raw("dp_affine");
        if (!(a.is_array() && a.size() == 2 && a[0].is_number() && a[1].is_number())) {
          r.fail("dp_affine", "must be [scale, shift]");
        }
        p.dp_scale = a[0].get<double>();
        p.dp_shift = a[1].get<double>();
      }
    }
    // Range checks with the config path in the message.
    if (!(p.k >= 2 && p.k <= 16)) r.fail("k", "must lie in [2, 16], got " + std::to_string(p.k));
    if (!(p.nu > 0)) r.fail("nu", "must be > 0, got " + fmt(p.nu));
    if (!(p.rho > 0 && p.rho < 1)) r.fail("rho", "must lie in (0, 1), got " + fmt(p.rho));
    if (!(p.c > 0)) r.fail("c", "must be > 0, got " + fmt(p.c));
    if (!(p.c1 > 0)) r.fail("c1", "must be > 0, got " + fmt(p.c1));
    if (!(p.delta_conf == 0 || (p.delta_conf > 0 && p.delta_conf < 1)))
      r.fail("delta_conf", "must lie in (0, 1), got " + fmt(p.delta_conf));
    if (!(p.depth_offset == 0 || p.depth_offset == 1)) r.fail("depth_offset", "must be 0 or 1");
    if (dp) {
      if (!(p.dp_epsilon > 0)) r.fail("dp_epsilon", "must be > 0, got " + fmt(p.dp_epsilon));
      if (!(p.dp_delta > 0 && p.dp_delta < 1))
        r.fail("dp_delta", "must lie in (0, 1), got " + fmt(p.dp_delta));
    }
  } else if (m.type == "hct") {
    HctParams& p = m.hct;
    const std::string re = r.str("reexpand", "keep");
    if (!(re == "keep" || re == "rebuild"))
      r.fail("reexpand", "must be \"keep\" or \"rebuild\" (PyXAB), got \"" + re + "\"");
    p.rebuild = re == "rebuild";
    p.k = static_cast<int>(r.integer("k", 2));
    p.nu = r.num("nu", 1.0);
    p.rho = r.num("rho", 0.75);
    p.c = r.num("c", 0.1);
    p.delta = r.num("delta", 0.01);
    p.c1 = r.num("c1", 0.0);
    p.partition_seed = partition_seed;
    if (!(p.k >= 2 && p.k <= 16)) r.fail("k", "must lie in [2, 16]");
    if (!(p.nu > 0)) r.fail("nu", "must be > 0, got " + fmt(p.nu));
    if (!(p.rho > 0 && p.rho < 1)) r.fail("rho", "must lie in (0, 1), got " + fmt(p.rho));
    if (!(p.c > 0)) r.fail("c", "must be > 0");
    if (!(p.delta > 0 && p.delta < 1)) r.fail("delta", "must lie in (0, 1)");
  } else if (m.type == "fed1-ucb") {
    m.fed1.mesh = static_cast<int>(r.integer("mesh", 100));
    m.fed1.kappa = r.num("kappa", 1.0);
    if (!(m.fed1.mesh >= 2)) r.fail("mesh", "must be >= 2");
    if (!(m.fed1.kappa > 0)) r.fail("kappa", "must be > 0");
  } else if (is_gp_mesh(m)) {
    GpUcbParams& p = m.gp;
    p.thompson = m.type == "gp-ts";
    p.mesh = static_cast<int>(r.integer("mesh", 100));
    p.lengthscale = r.num("lengthscale", 1.0);
    p.noise_variance = r.num("noise_variance", 1e-3);
    if (p.thompson) {
      p.nu = r.num("nu", 1.0);
      if (!(p.nu > 0)) r.fail("nu", "must be > 0, got " + fmt(p.nu));
    } else {
      p.delta = r.num("delta", 0.1);
    }
    const std::string k = r.str("kernel", "laplace");
    if (!(k == "laplace" || k == "se")) r.fail("kernel", "must be \"laplace\" or \"se\"");
    p.se = k == "se";
    if (!(p.mesh >= 2)) r.fail("mesh", "must be >= 2");
    if (!(p.lengthscale > 0)) r.fail("lengthscale", "must be > 0");
    if (!(p.noise_variance > 0)) r.fail("noise_variance", "must be > 0");
    if (!(p.delta > 0 && p.delta < 1)) r.fail("delta", "must lie in (0, 1)");
  }
  return m;
}

ObjectiveSpec parse_objective(const Reader& top, std::uint64_t seed) {
  if (!top.has("objective")) top.fail("objective", "required object {\"type\": ...}");
  const Reader o(top.checker(), top.raw("objective"), "objective");
  o.keys("xarmed_objective", "objective", false);
  ObjectiveSpec spec;
  spec.fstar_pyxab = o.choice("fstar", "exact", {"exact", "pyxab"}) == "pyxab";
  spec.type = o.str("type", "");
  spec.perturbed = o.boolean("perturbed", false);
  spec.slope = o.num("slope", 1.0);
  spec.peak = o.num("peak", spec.peak);
  spec.shift = o.num("shift", 0.0);
  spec.seed = seed;
  try {
    (void)make_objective(spec);
  } catch (const InvalidArgument& e) {
    o.checker().fail_plain(e.what());
  }
  return spec;
}

}  // namespace

XConfig parse_config(const gpb::detail::Checker& chk, const json& j, ExperimentSettings settings) {
  XConfig c;
  c.settings = std::move(settings);
  const Reader top(chk, j, "");
  c.horizon = top.integer("horizon", 1000);
  c.clients = static_cast<int>(top.integer("clients", 10));
  c.noise = top.num("noise", 0.1);
  c.mpi_timeout_s = top.num("mpi_timeout_s", 120);
  const auto pseed = static_cast<std::uint64_t>(top.integer("partition_seed", 0));
  if (top.integer("partition_seed", 0) < 0) top.fail("partition_seed", "must be >= 0");
  if (c.clients < 1) top.fail("clients", "M must be >= 1, got " + std::to_string(c.clients));
  if (!(c.horizon >= 1 && c.horizon <= 100000000)) top.fail("horizon", "must lie in [1, 1e8]");
  if (!(c.noise >= 0)) top.fail("noise", "must be >= 0");
  if (!(c.mpi_timeout_s > 0)) top.fail("mpi_timeout_s", "must be > 0");
  c.objective = parse_objective(top, c.settings.seed);
  if (!top.has("methods") || !j["methods"].is_array() || j["methods"].empty()) {
    top.fail("methods", "required non-empty array");
  }
  std::set<std::string> labels;
  for (std::size_t i = 0; i < j["methods"].size(); ++i) {
    const Reader r(chk, j["methods"][i], "methods[" + std::to_string(i) + "]");
    c.methods.push_back(parse_method(r, c.clients, c.settings.privacy_seeded, pseed));
    if (!labels.insert(c.methods.back().label).second) {
      r.fail("label", "duplicate label '" + c.methods.back().label + "'");
    }
  }
  return c;
}

XConfig parse_xarmed_config(const std::string& json_text, const std::string& source) {
  const gpb::detail::Checker chk(source, ".");
  const json root = gpb::detail::parse_json_text(json_text, source);
  if (!root.is_object()) chk.fail_plain("expected a JSON object at top level");
  if (gpb::detail::family_of(chk, root) != "fed-pne") chk.fail("experiment", "must be \"fed-pne\"");
  return parse_config(chk, root, gpb::detail::read_settings(chk, root, "fed-pne"));
}

}  // namespace gpb::xarmed

namespace gpb::detail {

std::shared_ptr<const Family> make_xarmed_family(const Checker& c, const nlohmann::json& root,
                                                 ExperimentSettings settings) {
  return std::make_shared<xarmed::XArmedFamily>(xarmed::parse_config(c, root, std::move(settings)));
}

}  // namespace gpb::detail
