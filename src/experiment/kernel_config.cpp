// Composite kernels in a config (src/experiment/kernel_config.hpp).
#include "experiment/kernel_config.hpp"

#include <set>
#include <string>
#include <vector>

#include "gpbandit/engine/space_kernel.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {

using nlohmann::json;

void allow_keys(const Checker& c, const json& o, const std::string& path,
                const std::set<std::string>& allowed) {
  if (!o.is_object()) c.fail(path, "expected an object, got " + describe_value(o));
  for (const auto& [key, value] : o.items()) {
    (void)value;
    if (allowed.count(key) == 0) {
      c.fail_plain("unknown key '" + key + "' in " + path +
                   " (allowed: " + join({allowed.begin(), allowed.end()}) + ")");
    }
  }
}

KernelType part_type(const Checker& c, const json& o, const std::string& path, KernelType dflt) {
  if (!o.contains("type")) return dflt;
  c.check_type(o["type"], "string", path + "type");
  return c.guarded(path + "type", [&] { return parse_kernel_type(o["type"].get<std::string>()); });
}

Eigen::VectorXd part_lengthscales(const Checker& c, const json& o, const std::string& path) {
  if (!o.contains("lengthscale")) return Eigen::VectorXd();
  c.check_type(o["lengthscale"], "number|number[]", path + "lengthscale");
  return lengthscales(c, o, path + "lengthscale");
}

double part_variance(const Checker& c, const json& o, const std::string& path) {
  if (!o.contains("variance")) return 0.0;
  c.check_type(o["variance"], "number", path + "variance");
  return o["variance"].get<double>();
}

int part_ard(const Checker& c, const json& o, const std::string& path) {
  if (!o.contains("ard")) return -1;
  c.check_type(o["ard"], "boolean", path + "ard");
  return o["ard"].get<bool>() ? 1 : 0;
}

/// The engine's message (already naming kernel.…) under the config's source.
template <class F>
Kernel engine_checked(const Checker& c, F&& f) {
  try {
    return f();
  } catch (const InvalidArgument& e) {
    c.fail_plain(e.what());
  }
}

}  // namespace

bool is_composite_kernel_json(const json& o) {
  return o.is_object() && (o.contains("combine") || o.contains("parts"));
}

Kernel parse_composite_kernel(const Checker& c, const json& o, const ParameterSpace* space,
                              long long dim) {
  allow_keys(c, o, "kernel", {"combine", "parts", "type", "variance"});
  std::string combine = "product";
  if (o.contains("combine")) {
    c.check_type(o["combine"], "string", "kernel.combine");
    combine = o["combine"].get<std::string>();
  }
  if (combine != "product" && combine != "sum") {
    c.fail("kernel.combine", "must be \"product\" or \"sum\", got \"" + combine + "\"");
  }
  const bool sum = combine == "sum";
  const KernelType dflt = part_type(c, o, "kernel.", KernelType::Matern52);
  double variance = 1.0;
  if (o.contains("variance")) {
    if (sum)
      c.fail("kernel.variance", "a sum has one variance per part (kernel.parts[i].variance)");
    c.check_type(o["variance"], "number", "kernel.variance");
    variance = o["variance"].get<double>();
  }
  if (!o.contains("parts")) c.fail("kernel.parts", "required with kernel.combine");
  const json& parts = o["parts"];
  if (!parts.is_array()) c.fail("kernel.parts", "expected an array, got " + describe_value(parts));
  if (parts.empty()) c.fail("kernel.parts", "must not be empty (name the parameters of each part)");
  const bool by_name = parts[0].is_object() && parts[0].contains("parameters");
  std::vector<SpaceKernelPart> named;
  std::vector<KernelPart> ranged;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string path = "kernel.parts[" + std::to_string(i) + "]";
    const json& p = parts[i];
    allow_keys(c, p, path, {"parameters", "features", "type", "lengthscale", "variance", "ard"});
    const std::string pre = path + ".";
    if (p.contains("parameters") == p.contains("features")) {
      c.fail(path,
             "give either parameters (names) or features ([begin, end)), not both or neither");
    }
    if (p.contains("parameters") != by_name) {
      c.fail(path, "every part must name parameters, or every part give features, not a mix");
    }
    if (by_name) {
      if (space == nullptr) {
        c.fail(pre + "parameters",
               "the domain has no named parameters (only a domain of type parameters has); "
               "give features [begin, end) instead");
      }
      c.check_type(p["parameters"], "array", pre + "parameters");
      for (std::size_t j = 0; j < p["parameters"].size(); ++j) {
        c.check_type(p["parameters"][j], "string", pre + "parameters[" + std::to_string(j) + "]");
      }
      SpaceKernelPart sp;
      sp.parameters = p["parameters"].get<std::vector<std::string>>();
      sp.type = part_type(c, p, pre, dflt);
      sp.lengthscales = part_lengthscales(c, p, pre);
      sp.variance = part_variance(c, p, pre);
      sp.ard = part_ard(c, p, pre);
      named.push_back(std::move(sp));
      continue;
    }
    c.check_type(p["features"], "integer[]", pre + "features");
    const std::vector<long long> f = p["features"].get<std::vector<long long>>();
    if (f.size() != 2 || !(0 <= f[0] && f[0] < f[1] && f[1] <= dim)) {
      c.fail(pre + "features",
             "must be [begin, end) with 0 <= begin < end <= " + std::to_string(dim) +
                 " (the domain's dimension), got " + p["features"].dump());
    }
    KernelPart kp;
    kp.type = part_type(c, p, pre, dflt);
    kp.begin = static_cast<int>(f[0]);
    kp.size = static_cast<int>(f[1] - f[0]);
    const Eigen::VectorXd l = part_lengthscales(c, p, pre);
    if (l.size() > 0) kp.lengthscales = l;
    const double v = part_variance(c, p, pre);
    kp.variance = v != 0.0 ? v : sum ? 1.0 / static_cast<double>(parts.size()) : 1.0;
    kp.ard = part_ard(c, p, pre) != 0;
    ranged.push_back(std::move(kp));
  }
  const KernelType comb = sum ? KernelType::Sum : KernelType::Product;
  if (by_name) {
    return engine_checked(c, [&] { return space_kernel(*space, comb, named, dflt, variance); });
  }
  const Kernel k = engine_checked(c, [&] {
    return sum ? Kernel::sum(std::move(ranged)) : Kernel::product(std::move(ranged), variance);
  });
  if (k.input_dim() != dim) {
    c.fail("kernel.parts", "cover features [0, " + std::to_string(k.input_dim()) +
                               ") but the domain has dimension " + std::to_string(dim));
  }
  return k;
}

json composite_kernel_json(const Kernel& k) {
  const bool sum = k.type() == KernelType::Sum;
  json parts = json::array();
  for (const KernelPart& p : k.parts()) {
    json j{{"features", {p.begin, p.begin + p.size}},
           {"type", kernel_type_name(p.type)},
           {"ard", p.ard}};
    if (p.lengthscales.size() == 1) {
      j["lengthscale"] = p.lengthscales[0];
    } else {
      j["lengthscale"] =
          std::vector<double>(p.lengthscales.data(), p.lengthscales.data() + p.lengthscales.size());
    }
    if (sum) j["variance"] = p.variance;
    parts.push_back(std::move(j));
  }
  json out{{"combine", sum ? "sum" : "product"}, {"parts", std::move(parts)}};
  if (!sum) out["variance"] = k.variance();
  return out;
}

}  // namespace gpb::detail
