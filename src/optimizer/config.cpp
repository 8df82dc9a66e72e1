// The optimizer config format (parse_optimizer_config; format in
// include/gpbandit/optimizer/optimizer.hpp), its inverse (options_to_json, used for saved states)
// and DomainSpec.
#include "optimizer/config.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <filesystem>
#include <set>

#include "experiment/checkpoint.hpp"
#include "experiment/config_checker.hpp"
#include "experiment/config_common.hpp"
#include "experiment/kernel_config.hpp"
#include "experiment/registry_internal.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/error.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "optimizer/space_config.hpp"

namespace gpb {

namespace {

using detail::Checker;
using nlohmann::json;

/// The keys of registry entry (kind, name) and "type" (optimizer/registry_entries.cpp).
std::set<std::string> typed_keys(const std::string& kind, const std::string& name) {
  std::set<std::string> k = detail::registry_keys(kind, name);
  k.insert("type");
  return k;
}

/// Fails on any key of `o` outside `allowed` (checks that `o` is an object first).
void allow(const Checker& c, const json& o, const std::string& path,
           const std::set<std::string>& allowed) {
  if (!o.is_object()) c.fail(path, "expected an object, got " + detail::describe_value(o));
  for (const auto& [key, value] : o.items()) {
    (void)value;
    if (allowed.count(key) == 0) {
      c.fail_plain("unknown key '" + key + "' in " + path +
                   " (allowed: " + detail::join({allowed.begin(), allowed.end()}) + ")");
    }
  }
}

std::string str(const Checker& c, const json& o, const std::string& key, const std::string& path,
                const std::string& fallback) {
  if (!o.contains(key)) return fallback;
  c.check_type(o[key], "string", path + key);
  return o[key].get<std::string>();
}

double num(const Checker& c, const json& o, const std::string& key, const std::string& path,
           double fallback) {
  if (!o.contains(key)) return fallback;
  c.check_type(o[key], "number", path + key);
  return o[key].get<double>();
}

long long integer(const Checker& c, const json& o, const std::string& key, const std::string& path,
                  long long fallback, long long lo, long long hi) {
  if (!o.contains(key)) return fallback;
  c.check_type(o[key], "integer", path + key);
  return c.integer(o, key, path + key, lo, hi);
}

bool boolean(const Checker& c, const json& o, const std::string& key, const std::string& path,
             bool fallback) {
  if (!o.contains(key)) return fallback;
  c.check_type(o[key], "boolean", path + key);
  return o[key].get<bool>();
}

std::vector<double> numbers(const Checker& c, const json& o, const std::string& key,
                            const std::string& path) {
  if (!o.contains(key)) c.fail(path + key, "required");
  c.check_type(o[key], "number[]", path + key);
  return o[key].get<std::vector<double>>();
}

/// 64-bit FNV-1a digest of packed fingerprints' bytes (a state's check that its file is
/// unchanged).
std::string fingerprint_digest(const Fingerprints& fp) {
  return detail::fnv1a_hex(std::string_view(reinterpret_cast<const char*>(fp.row(0)),
                                            static_cast<std::size_t>(fp.size() * fp.words()) * 8));
}

/// A fingerprint domain: a .npy file ("path": packed uint64 words or 0/1 / count values; "kind",
/// "bits") or, in a state, the words themselves ("words": one array of W unsigned numbers per
/// fingerprint); "digest" (written by states) must match what was read.
DomainSpec parse_fingerprints(const Checker& c, const json& o) {
  allow(c, o, "domain", typed_keys("optimizer_domain", "fingerprints"));
  const std::string kind_name = str(c, o, "kind", "domain.", "bits");
  const FingerprintKind kind =
      c.guarded("domain.kind", [&] { return parse_fingerprint_kind(kind_name); });
  const int bits = static_cast<int>(integer(c, o, "bits", "domain.", 0, 0, 1 << 24));
  if (o.contains("path") == o.contains("words"))
    c.fail("domain.path", "give exactly one of path (a .npy file) and words");
  std::shared_ptr<const Fingerprints> fp;
  std::string source;
  if (o.contains("path")) {
    c.check_type(o["path"], "path", "domain.path");
    source = c.data_path(o, "path", "domain.path");
    fp = c.guarded("domain.path", [&] {
      return std::make_shared<const Fingerprints>(Fingerprints::from_npy(source, kind, bits));
    });
  } else {
    const json& rows = o["words"];
    if (!rows.is_array() || rows.empty() || !rows[0].is_array())
      c.fail("domain.words", "expected a non-empty array of arrays of unsigned integers");
    std::vector<std::uint64_t> words;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!rows[i].is_array() || rows[i].size() != rows[0].size())
        c.fail("domain.words[" + std::to_string(i) + "]",
               "expected " + std::to_string(rows[0].size()) + " unsigned integers");
      for (const json& w : rows[i]) {
        if (!w.is_number_unsigned() && !(w.is_number_integer() && w.get<long long>() >= 0))
          c.fail("domain.words[" + std::to_string(i) + "]", "expected unsigned integers");
        words.push_back(w.get<std::uint64_t>());
      }
    }
    const auto n = static_cast<long long>(rows.size());
    fp = c.guarded("domain.words", [&] {
      return std::make_shared<const Fingerprints>(
          Fingerprints::from_words(std::move(words), n, bits, kind));
    });
  }
  if (o.contains("digest") && str(c, o, "digest", "domain.", "") != fingerprint_digest(*fp)) {
    c.fail("domain.digest", "the fingerprints read (" + (source.empty() ? "words" : source) +
                                ") are not those the state was saved with");
  }
  DomainSpec spec = c.guarded("domain", [&] { return DomainSpec::from_fingerprints(fp); });
  // absolute: a state saved elsewhere still finds the file
  if (!source.empty()) spec.source = std::filesystem::absolute(source).lexically_normal().string();
  return spec;
}

DomainSpec parse_domain(const Checker& c, const json& o) {
  const std::string type = str(c, o, "type", "domain.", "");
  if (type == "grid") {
    allow(c, o, "domain", typed_keys("optimizer_domain", "grid"));
    if (!o.contains("counts")) c.fail("domain.counts", "required");
    c.check_type(o["counts"], "integer[]", "domain.counts");
    std::vector<int> counts;
    for (const json& v : o["counts"]) {
      const long long k = v.get<long long>();
      if (k < 1 || k > INT_MAX)
        c.fail("domain.counts", "each count must be in [1, 2^31), got " + v.dump());
      counts.push_back(static_cast<int>(k));
    }
    return DomainSpec::grid(numbers(c, o, "lower", "domain."), numbers(c, o, "upper", "domain."),
                            counts);
  }
  if (type == "sobol") {
    allow(c, o, "domain", typed_keys("optimizer_domain", "sobol"));
    if (!o.contains("count")) c.fail("domain.count", "required");
    const int count = static_cast<int>(integer(c, o, "count", "domain.", 0, 1, INT_MAX));
    const auto seed = static_cast<std::uint64_t>(integer(c, o, "seed", "domain.", 0, 0, LLONG_MAX));
    return DomainSpec::sobol(numbers(c, o, "lower", "domain."), numbers(c, o, "upper", "domain."),
                             count, seed);
  }
  if (type == "box") {
    allow(c, o, "domain", typed_keys("optimizer_domain", "box"));
    const int count = static_cast<int>(integer(c, o, "candidates", "domain.", 4096, 1, INT_MAX));
    const auto seed = static_cast<std::uint64_t>(integer(c, o, "seed", "domain.", 0, 0, LLONG_MAX));
    DomainSpec spec = DomainSpec::box(numbers(c, o, "lower", "domain."),
                                      numbers(c, o, "upper", "domain."), count, seed);
    if (o.contains("integer")) {
      c.check_type(o["integer"], "integer[]", "domain.integer");
      spec.integer_axes = o["integer"].get<std::vector<int>>();
    }
    if (o.contains("log_integer")) {
      c.check_type(o["log_integer"], "integer[]", "domain.log_integer");
      spec.log_integer_axes = o["log_integer"].get<std::vector<int>>();
    }
    if (o.contains("onehot")) {
      c.check_type(o["onehot"], "array", "domain.onehot");
      for (const json& g : o["onehot"]) {
        if (!g.is_array() || g.size() != 2 || !g[0].is_number_integer() ||
            !g[1].is_number_integer()) {
          c.fail("domain.onehot", "each group must be [first axis, k], got " + g.dump());
        }
        spec.onehot_groups.emplace_back(g[0].get<int>(), g[1].get<int>());
      }
    }
    c.guarded("domain", [&] {
      spec.validate();
      return 0;
    });
    return spec;
  }
  if (type == "csv" || type == "npy") {
    allow(c, o, "domain", typed_keys("optimizer_domain", type));
    if (!o.contains("path")) c.fail("domain.path", "required");
    c.check_type(o["path"], "path", "domain.path");
    const std::string path = c.data_path(o, "path", "domain.path");
    return c.guarded("domain.path", [&] { return DomainSpec::from_file(path); });
  }
  if (type == "points") {
    allow(c, o, "domain", typed_keys("optimizer_domain", "points"));
    if (!o.contains("points") || !o["points"].is_array() || o["points"].empty()) {
      c.fail("domain.points", "required: a non-empty array of points (arrays of numbers)");
    }
    const json& p = o["points"];
    const std::size_t dim = p[0].is_array() ? p[0].size() : 0;
    Eigen::MatrixXd rows(static_cast<Eigen::Index>(p.size()), static_cast<Eigen::Index>(dim));
    for (std::size_t i = 0; i < p.size(); ++i) {
      const std::string f = "domain.points[" + std::to_string(i) + "]";
      c.check_type(p[i], "number[]", f);
      if (p[i].size() != dim || dim == 0) {
        c.fail(f, "has " + std::to_string(p[i].size()) + " coordinates, expected " +
                      std::to_string(dim) + " (as points[0])");
      }
      for (std::size_t j = 0; j < dim; ++j)
        rows(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = p[i][j].get<double>();
    }
    DomainSpec spec = DomainSpec::from_rows(std::move(rows));
    spec.source = str(c, o, "source", "domain.", "");
    return spec;
  }
  if (type == "parameters") {
    allow(c, o, "domain", typed_keys("optimizer_domain", "parameters"));
    return DomainSpec::parameters(detail::parse_parameter_space(c, o));
  }
  if (type == "fingerprints") return parse_fingerprints(c, o);
  c.fail("domain.type",
         "must be one of grid, sobol, box, csv, npy, points, parameters, "
         "fingerprints, got '" +
             type + "'");
}

Kernel parse_kernel(const Checker& c, const json& o) {
  const std::string type = str(c, o, "type", "kernel.", "matern52");
  if (type == "linear" || type == "polynomial") {
    allow(c, o, "kernel", {"type", "variance", "offset", "degree"});
    const double v = num(c, o, "variance", "kernel.", 1.0);
    const double off = num(c, o, "offset", "kernel.", type == "linear" ? 0.0 : 1.0);
    if (type == "linear") return c.guarded("kernel", [&] { return Kernel::linear(v, off); });
    const int deg = static_cast<int>(integer(c, o, "degree", "kernel.", 2, 1, 64));
    return c.guarded("kernel", [&] { return Kernel::polynomial(deg, v, off); });
  }
  if (type == "tanimoto" || type == "minmax") {  // fingerprint kernels: a variance only
    allow(c, o, "kernel", {"type", "variance"});
    const double v = num(c, o, "variance", "kernel.", 1.0);
    return c.guarded("kernel",
                     [&] { return type == "tanimoto" ? Kernel::tanimoto(v) : Kernel::minmax(v); });
  }
  allow(c, o, "kernel", {"type", "lengthscale", "variance"});
  const KernelType t = c.guarded("kernel.type", [&] { return parse_kernel_type(type); });
  if (t == KernelType::Precomputed) c.fail("kernel.type", "precomputed kernels are not supported");
  json withl = o;
  if (!withl.contains("lengthscale")) withl["lengthscale"] = 1.0;
  c.check_type(withl["lengthscale"], "number|number[]", "kernel.lengthscale");
  const Eigen::VectorXd l = detail::lengthscales(c, withl, "kernel.lengthscale");
  const double v = num(c, o, "variance", "kernel.", 1.0);
  return c.guarded("kernel", [&] { return Kernel::ard(t, l, v); });
}

BetaSchedule parse_beta(const Checker& c, const json& o) {
  allow(c, o, "acquisition.beta", {"type", "delta", "value", "B", "R", "scale"});
  BetaSchedule b;
  const std::string type = str(c, o, "type", "acquisition.beta.", "srinivas");
  try {
    b.kind = BetaSchedule::parse_kind(type);
  } catch (const InvalidArgument& e) {
    c.fail_plain(std::string("acquisition.") + e.what());  // "acquisition.beta.type: ..."
  }
  const std::string p = "acquisition.beta.";
  b.delta = num(c, o, "delta", p, b.delta);
  b.value = num(c, o, "value", p, b.value);
  b.rkhs_bound = num(c, o, "B", p, b.rkhs_bound);
  b.subgaussian = num(c, o, "R", p, b.subgaussian);
  b.scale = num(c, o, "scale", p, b.scale);
  c.guarded("acquisition.beta", [&] {
    b.validate();
    return 0;
  });
  return b;
}

AcquisitionOptions parse_acquisition(const Checker& c, const json& o) {
  std::set<std::string> keys = {"type"};
  for (const std::string& name : detail::registry_names("acquisition")) {
    const auto k = detail::registry_keys("acquisition", name);
    keys.insert(k.begin(), k.end());
  }
  allow(c, o, "acquisition", keys);
  AcquisitionOptions a;
  const std::string type = str(c, o, "type", "acquisition.", "ucb");
  a.kind = c.guarded("acquisition.type", [&] { return parse_acquisition_kind(type); });
  if (o.contains("beta")) a.beta = parse_beta(c, o["beta"]);
  a.xi = num(c, o, "xi", "acquisition.", a.xi);
  if (!(a.xi >= 0)) c.fail("acquisition.xi", "must be >= 0, got " + o["xi"].dump());
  a.exact_max =
      static_cast<int>(integer(c, o, "exact_max", "acquisition.", a.exact_max, 1, INT_MAX));
  a.features = static_cast<int>(integer(c, o, "features", "acquisition.", a.features, 1, 1 << 24));
  return a;
}

RefineOptions parse_refine(const Checker& c, const json& o) {
  allow(c, o, "refine", detail::registry_keys("optimizer_refine", "refine"));
  RefineOptions r;
  r.enabled = boolean(c, o, "enabled", "refine.", r.enabled);
  r.local_points =
      static_cast<int>(integer(c, o, "local_points", "refine.", r.local_points, 0, 1 << 24));
  r.centres = static_cast<int>(integer(c, o, "centres", "refine.", r.centres, 0, 1 << 16));
  r.starts = static_cast<int>(integer(c, o, "starts", "refine.", r.starts, 0, 1 << 16));
  r.iterations = static_cast<int>(integer(c, o, "iterations", "refine.", r.iterations, 1, 1 << 20));
  r.coordinate_points = static_cast<int>(
      integer(c, o, "coordinate_points", "refine.", r.coordinate_points, 0, 1 << 24));
  r.face_tolerance = num(c, o, "face_tolerance", "refine.", r.face_tolerance);
  if (!(std::isfinite(r.face_tolerance) && r.face_tolerance >= 0)) {
    c.fail("refine.face_tolerance",
           "must be a finite number >= 0, got " + o["face_tolerance"].dump());
  }
  return r;
}

FitOptions parse_fit(const Checker& c, const json& o) {
  allow(c, o, "fit", detail::registry_keys("optimizer_fit", "fit"));
  FitOptions f;
  f.every = static_cast<int>(integer(c, o, "every", "fit.", f.every, 0, INT_MAX));
  f.min_observations =
      static_cast<int>(integer(c, o, "min_observations", "fit.", f.min_observations, 2, INT_MAX));
  f.ard = boolean(c, o, "ard", "fit.", f.ard);
  f.restarts = static_cast<int>(integer(c, o, "restarts", "fit.", f.restarts, 0, 1000));
  f.max_rows = static_cast<int>(integer(c, o, "max_rows", "fit.", f.max_rows, 2, 100000));
  f.normalize = boolean(c, o, "normalize", "fit.", f.normalize);
  f.warp = boolean(c, o, "warp", "fit.", f.warp);
  f.warp_select = boolean(c, o, "warp_select", "fit.", f.warp_select);
  f.warp_knee = num(c, o, "warp_knee", "fit.", f.warp_knee);
  if (!(f.warp_knee > 0 && f.warp_knee < 1))
    c.fail("fit.warp_knee", "must be in (0, 1), got " + o["warp_knee"].dump());
  f.unit_inputs = boolean(c, o, "unit_inputs", "fit.", f.unit_inputs);
  f.prior = boolean(c, o, "prior", "fit.", f.prior);
  f.lengthscale_prior_loc = num(c, o, "lengthscale_prior_loc", "fit.", f.lengthscale_prior_loc);
  if (!std::isfinite(f.lengthscale_prior_loc) || std::abs(f.lengthscale_prior_loc) > 20)
    c.fail("fit.lengthscale_prior_loc",
           "must be finite, in [-20, 20], got " + o["lengthscale_prior_loc"].dump());
  f.lengthscale_prior_log_d =
      num(c, o, "lengthscale_prior_log_d", "fit.", f.lengthscale_prior_log_d);
  if (!std::isfinite(f.lengthscale_prior_log_d) || std::abs(f.lengthscale_prior_log_d) > 10)
    c.fail("fit.lengthscale_prior_log_d",
           "must be finite, in [-10, 10], got " + o["lengthscale_prior_log_d"].dump());
  f.lengthscale_prior_scale =
      num(c, o, "lengthscale_prior_scale", "fit.", f.lengthscale_prior_scale);
  if (!(f.lengthscale_prior_scale > 0 && f.lengthscale_prior_scale <= 100))
    c.fail("fit.lengthscale_prior_scale",
           "must be in (0, 100], got " + o["lengthscale_prior_scale"].dump());
  f.lengthscale_prior_select =
      boolean(c, o, "lengthscale_prior_select", "fit.", f.lengthscale_prior_select);
  f.kernel_select = boolean(c, o, "kernel_select", "fit.", f.kernel_select);
  f.noise_floor = num(c, o, "noise_floor", "fit.", f.noise_floor);
  if (!(f.noise_floor > 0 && f.noise_floor < 0.5))
    c.fail("fit.noise_floor", "must be in (0, 0.5), got " + o["noise_floor"].dump());
  f.mean_shift = num(c, o, "mean_shift", "fit.", f.mean_shift);
  if (!(std::isfinite(f.mean_shift) && f.mean_shift >= 0 && f.mean_shift <= 10))
    c.fail("fit.mean_shift", "must be in [0, 10], got " + o["mean_shift"].dump());
  f.warm_start = boolean(c, o, "warm_start", "fit.", f.warm_start);
  f.restarts_every =
      static_cast<int>(integer(c, o, "restarts_every", "fit.", f.restarts_every, 1, INT_MAX));
  return f;
}

void parse_engine(const Checker& c, const json& root, OptimizerOptions& o) {
  const std::string backend = str(c, root, "backend", "", "auto");
  o.context.backend = c.guarded("backend", [&] { return parse_backend(backend); });
  o.context.threads = static_cast<int>(integer(c, root, "threads", "", 0, 0, 4096));
  if (!root.contains("memory_budget_mb")) return;  // 0: the backend's automatic budget
  const double mb = num(c, root, "memory_budget_mb", "", 0.0);
  if (!(mb > 0 && mb <= 1e12))
    c.fail("memory_budget_mb", "must be in (0, 1e12], got " + std::to_string(mb));
  o.context.memory_budget_bytes = static_cast<std::size_t>(mb * 1024.0 * 1024.0);
}

json kernel_json(const Kernel& k) {
  if (k.composite()) return detail::composite_kernel_json(k);
  json j{{"type", kernel_type_name(k.type())}, {"variance", k.variance()}};
  if (k.fingerprint()) return j;
  if (k.type() == KernelType::Linear || k.type() == KernelType::Polynomial) {
    j["offset"] = k.offset();
    if (k.type() == KernelType::Polynomial) j["degree"] = k.degree();
  } else if (k.is_ard()) {
    j["lengthscale"] = std::vector<double>(k.lengthscales().data(),
                                           k.lengthscales().data() + k.lengthscales().size());
  } else {
    j["lengthscale"] = k.lengthscale();
  }
  return j;
}

json beta_json(const BetaSchedule& b) {
  switch (b.kind) {
    case BetaSchedule::Kind::IgpUcb:
      return {{"type", "igp_ucb"},
              {"delta", b.delta},
              {"B", b.rkhs_bound},
              {"R", b.subgaussian},
              {"scale", b.scale}};
    case BetaSchedule::Kind::Constant:
      return {{"type", "constant"}, {"value", b.value}, {"scale", b.scale}};
    default:
      return {{"type", "srinivas"}, {"delta", b.delta}, {"scale", b.scale}};
  }
}

json domain_json(const DomainSpec& s) {
  switch (s.kind) {
    case DomainSpec::Kind::Fingerprints: {  // the file it came from, else the words themselves
      const Fingerprints& fp = *s.fingerprints;
      json j{{"type", "fingerprints"},
             {"kind", fingerprint_kind_name(fp.kind())},
             {"bits", fp.bits()},
             {"digest", fingerprint_digest(fp)}};
      if (!s.source.empty()) {
        j["path"] = s.source;
        return j;
      }
      json rows = json::array();
      for (long long i = 0; i < fp.size(); ++i)
        rows.push_back(std::vector<std::uint64_t>(fp.row(i), fp.row(i) + fp.words()));
      j["words"] = std::move(rows);
      return j;
    }
    case DomainSpec::Kind::Parameters:
      return detail::parameter_space_json(*s.space);
    case DomainSpec::Kind::Grid:
      return {{"type", "grid"}, {"lower", s.lower}, {"upper", s.upper}, {"counts", s.counts}};
    case DomainSpec::Kind::Sobol:
      return {{"type", "sobol"},
              {"lower", s.lower},
              {"upper", s.upper},
              {"count", s.count},
              {"seed", s.seed}};
    case DomainSpec::Kind::Box: {
      json groups = json::array();
      for (const auto& [first, k] : s.onehot_groups) groups.push_back(json::array({first, k}));
      return {{"type", "box"},
              {"lower", s.lower},
              {"upper", s.upper},
              {"candidates", s.count},
              {"seed", s.seed},
              {"integer", s.integer_axes},
              {"log_integer", s.log_integer_axes},
              {"onehot", groups}};
    }
    default: {
      json pts = json::array();
      for (Eigen::Index i = 0; i < s.points.rows(); ++i) {
        json row = json::array();
        for (Eigen::Index j = 0; j < s.points.cols(); ++j) row.push_back(s.points(i, j));
        pts.push_back(std::move(row));
      }
      json j{{"type", "points"}, {"points", std::move(pts)}};
      if (!s.source.empty()) j["source"] = s.source;
      return j;
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- acquisition names

AcquisitionKind parse_acquisition_kind(const std::string& name) {
  std::string low = name;
  std::transform(low.begin(), low.end(), low.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (low == "ucb" || low == "lcb") return AcquisitionKind::Ucb;
  if (low == "ts") return AcquisitionKind::Thompson;
  if (low == "ei" || low == "logei") return AcquisitionKind::ExpectedImprovement;
  if (low == "pi") return AcquisitionKind::ProbabilityOfImprovement;
  if (low == "random") return AcquisitionKind::Random;
  throw InvalidArgument("unknown acquisition '" + name +
                        "'; expected one of: ei (logei), ucb (lcb), pi, ts, random (any case)");
}

const char* acquisition_kind_name(AcquisitionKind kind) {
  switch (kind) {
    case AcquisitionKind::Thompson:
      return "ts";
    case AcquisitionKind::ExpectedImprovement:
      return "ei";
    case AcquisitionKind::ProbabilityOfImprovement:
      return "pi";
    case AcquisitionKind::Random:
      return "random";
    default:
      return "ucb";
  }
}

// ---------------------------------------------------------------- config

namespace detail {

OptimizerOptions parse_optimizer_json(const json& root, const std::string& source,
                                      const std::string& base_dir,
                                      const std::set<std::string>& extra_keys) {
  const Checker c(source, base_dir);
  std::set<std::string> keys = registry_keys("optimizer", "optimizer");
  keys.insert(extra_keys.begin(), extra_keys.end());
  allow(c, root, "the top level", keys);
  OptimizerOptions o;
  if (!root.contains("domain")) c.fail("domain", "required");
  o.domain = parse_domain(c, root["domain"]);
  json kernel = root.contains("kernel") ? root["kernel"] : json::object();
  if (o.domain.kind == DomainSpec::Kind::Fingerprints && !kernel.contains("type")) {
    // fingerprints' default: Tanimoto on bits, MinMax on counts
    kernel["type"] =
        o.domain.fingerprints->kind() == FingerprintKind::Counts ? "minmax" : "tanimoto";
  }
  o.kernel =
      detail::is_composite_kernel_json(kernel)
          ? detail::parse_composite_kernel(
                c, kernel,
                o.domain.kind == DomainSpec::Kind::Parameters ? o.domain.space.get() : nullptr,
                o.domain.dim())
          : parse_kernel(c, kernel);
  if (o.kernel.is_ard() && o.kernel.ard_dim() != o.domain.dim()) {
    c.fail("kernel.lengthscale", "has " + std::to_string(o.kernel.ard_dim()) +
                                     " values (ARD) but the domain has dimension " +
                                     std::to_string(o.domain.dim()));
  }
  o.noise_variance = num(c, root, "noise_variance", "", o.noise_variance);
  if (!(o.noise_variance > 0))
    c.fail("noise_variance", "must be > 0, got " + root["noise_variance"].dump());
  if (root.contains("acquisition")) o.acquisition = parse_acquisition(c, root["acquisition"]);
  const std::string goal = str(c, root, "goal", "", "maximize");
  if (goal != "maximize" && goal != "minimize")
    c.fail("goal", "must be maximize or minimize, got '" + goal + "'");
  o.minimize = goal == "minimize";
  o.initial_points = static_cast<int>(integer(c, root, "initial_points", "", 0, 0, INT_MAX));
  const std::string design = str(c, root, "initial_design", "", "sobol");
  if (design != "sobol" && design != "random")
    c.fail("initial_design", "must be sobol or random, got '" + design + "'");
  o.sobol_design = design == "sobol";
  if (root.contains("refine")) o.refine = parse_refine(c, root["refine"]);
  o.distinct = boolean(c, root, "distinct", "", true);
  o.exclude_observed = boolean(c, root, "exclude_observed", "", false);
  const std::string ties = str(c, root, "tie_break", "", "random");
  if (ties != "random" && ties != "lowest")
    c.fail("tie_break", "must be random or lowest, got '" + ties + "'");
  o.random_ties = ties == "random";
  o.seed = static_cast<std::uint64_t>(integer(c, root, "seed", "", 0, 0, LLONG_MAX));
  // A box's Sobol candidates are scrambled by the optimizer's seed unless the domain names its own,
  // so that seeds differ in their candidate sets too.
  if (o.domain.kind == DomainSpec::Kind::Box && !root["domain"].contains("seed"))
    o.domain.seed = o.seed;
  o.capacity = static_cast<int>(integer(c, root, "capacity", "", o.capacity, 1, 1 << 24));
  if (root.contains("fit")) o.fit = parse_fit(c, root["fit"]);
  o.allow_outside = boolean(c, root, "allow_outside", "", false);
  o.match_tolerance = num(c, root, "match_tolerance", "", o.match_tolerance);
  if (!(o.match_tolerance >= 0 && o.match_tolerance < 1))
    c.fail("match_tolerance", "must be in [0, 1), got " + root["match_tolerance"].dump());
  parse_engine(c, root, o);
  return o;
}

json options_to_json(const OptimizerOptions& o) {
  json a{{"type", acquisition_kind_name(o.acquisition.kind)}};
  if (o.acquisition.kind == AcquisitionKind::Ucb) a["beta"] = beta_json(o.acquisition.beta);
  if (o.acquisition.kind == AcquisitionKind::ExpectedImprovement ||
      o.acquisition.kind == AcquisitionKind::ProbabilityOfImprovement) {
    a["xi"] = o.acquisition.xi;
  }
  if (o.acquisition.kind == AcquisitionKind::Thompson) {
    a["exact_max"] = o.acquisition.exact_max;
    a["features"] = o.acquisition.features;
  }
  const FitOptions& f = o.fit;
  json j = {{"domain", domain_json(o.domain)},
            {"kernel", kernel_json(o.kernel)},
            {"noise_variance", o.noise_variance},
            {"acquisition", a},
            {"goal", o.minimize ? "minimize" : "maximize"},
            {"initial_points", o.initial_points},
            {"initial_design", o.sobol_design ? "sobol" : "random"},
            {"refine",
             {{"enabled", o.refine.enabled},
              {"local_points", o.refine.local_points},
              {"centres", o.refine.centres},
              {"starts", o.refine.starts},
              {"iterations", o.refine.iterations},
              {"coordinate_points", o.refine.coordinate_points},
              {"face_tolerance", o.refine.face_tolerance}}},
            {"distinct", o.distinct},
            {"tie_break", o.random_ties ? "random" : "lowest"},
            {"seed", o.seed},
            {"capacity", o.capacity},
            {"allow_outside", o.allow_outside},
            {"match_tolerance", o.match_tolerance},
            {"fit",
             {{"every", f.every},
              {"min_observations", f.min_observations},
              {"ard", f.ard},
              {"restarts", f.restarts},
              {"max_rows", f.max_rows},
              {"normalize", f.normalize},
              {"warp", f.warp},
              {"warp_select", f.warp_select},
              {"warp_knee", f.warp_knee},
              {"unit_inputs", f.unit_inputs},
              {"prior", f.prior},
              {"lengthscale_prior_loc", f.lengthscale_prior_loc},
              {"lengthscale_prior_log_d", f.lengthscale_prior_log_d},
              {"lengthscale_prior_scale", f.lengthscale_prior_scale},
              {"lengthscale_prior_select", f.lengthscale_prior_select},
              {"kernel_select", f.kernel_select},
              {"noise_floor", f.noise_floor},
              {"mean_shift", f.mean_shift},
              {"warm_start", f.warm_start},
              {"restarts_every", f.restarts_every}}},
            {"backend", backend_name(o.context.backend)}};
  if (o.exclude_observed) j["exclude_observed"] = true;  // absent = false: older states read alike
  return j;
}

json optimizer_identity(const OptimizerOptions& o) {
  json j = options_to_json(o);
  j.erase("backend");
  json& dom = j["domain"];
  if (dom.value("type", "") == "points") {
    dom.erase("source");  // where the points came from does not matter, only which they are
    dom["points"] = {{"rows", o.domain.points.rows()}, {"fnv", fnv1a_hex(dom["points"].dump())}};
  }
  return j;
}

}  // namespace detail

OptimizerOptions parse_optimizer_config(const std::string& json_text, const std::string& source,
                                        const std::string& base_dir) {
  return detail::parse_optimizer_json(detail::parse_json_text(json_text, source), source, base_dir,
                                      {});
}

std::string config_kind(const std::string& json_text) {
  const json root = json::parse(json_text, nullptr, false, true);
  if (root.is_discarded() || !root.is_object()) return "experiment";
  if (root.contains("policies") || root.contains("experiment")) return "experiment";
  if (root.contains("objective")) {
    const json& o = root["objective"];
    const bool command = o.is_object() && (o.contains("cmd") || o.value("type", "") == "command");
    if (command) return "command";
  }
  for (const char* key : {"acquisition", "goal", "initial_points", "distinct", "exclude_observed",
                          "tie_break", "capacity", "fit", "allow_outside", "match_tolerance"}) {
    if (root.contains(key)) return root.contains("objective") ? "command" : "optimizer";
  }
  // A domain and nothing to run on it (no objective, policies or experiment): the smallest
  // optimizer config, {"domain": ...}.
  if (root.contains("domain") && !root.contains("objective") && !root.contains("task") &&
      !root.contains("methods")) {
    return "optimizer";
  }
  return "experiment";
}

OptimizerOptions load_optimizer_config(const std::string& path) {
  const std::string text = detail::read_whole_file(path);
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_optimizer_config(text, path, base.empty() ? "." : base);
}

}  // namespace gpb
