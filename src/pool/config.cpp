// The pool family's config reader and the library it loads (config.hpp).
#include "pool/config.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "experiment/config_common.hpp"
#include "experiment/fingerprint_domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::pool::detail {

namespace {

using gpb::detail::Checker;
using gpb::detail::ConfigObject;
using nlohmann::json;

/// Philox stream of the subset draw.
constexpr std::uint32_t kSubsetStream = 0x5053;  // "PS"

/// A fraction of N (0 < x < 1: ⌊x·N⌋, at least 1) or a count (x ≥ 1, an integer).
int size_of(const ConfigObject& top, const std::string& key, double def, long long n) {
  const double x = top.num(key, def);
  if (!(x > 0)) top.fail(key, "must be > 0 (a fraction of the library below 1, or a count)");
  if (x < 1) return static_cast<int>(std::max(1.0, std::floor(x * static_cast<double>(n))));
  if (x != std::floor(x)) top.fail(key, "a count must be an integer, got " + std::to_string(x));
  if (x > static_cast<double>(n))
    top.fail(key, "larger than the library (" + std::to_string(n) + ")");
  return static_cast<int>(x);
}

/// The subset of `n` rows drawn without replacement (sorted), keyed by seed.
std::vector<long long> draw_subset(long long total, long long n, std::uint64_t seed) {
  std::vector<long long> idx(static_cast<std::size_t>(total));
  std::iota(idx.begin(), idx.end(), 0LL);
  Rng rng(seed, 0, kSubsetStream);
  for (long long i = 0; i < n; ++i) {  // partial Fisher–Yates
    const long long j =
        i + static_cast<long long>(rng.below(static_cast<std::uint64_t>(total - i)));
    std::swap(idx[static_cast<std::size_t>(i)], idx[static_cast<std::size_t>(j)]);
  }
  idx.resize(static_cast<std::size_t>(n));
  std::sort(idx.begin(), idx.end());
  return idx;
}

std::shared_ptr<Library> load_library(const Checker& c, const json& root, long long subset,
                                      std::uint64_t subset_seed, const json& top_k) {
  const json& domain = root.at("domain");
  if (!gpb::detail::is_fingerprint_domain(domain)) {
    c.fail("domain.type",
           "the pool family takes fingerprint candidates: molecules or "
           "fingerprints");
  }
  Domain whole = gpb::detail::load_fingerprint_domain(c, domain, "domain");
  std::vector<double> reward =
      gpb::detail::load_lookup_rewards(c, root.at("objective"), domain, "objective", whole.size());
  auto lib = std::make_shared<Library>();
  const long long total = whole.size();
  if (subset > 0) {
    if (subset > total) {
      c.fail("subset", "larger than the library (" + std::to_string(total) + " candidates)");
    }
    lib->rows = draw_subset(total, subset, subset_seed);
    const Fingerprints fp = whole.fingerprints_of(0, total).select(lib->rows);
    lib->domain = Domain::fingerprints(fp);
    for (const long long r : lib->rows) lib->reward.push_back(reward[static_cast<std::size_t>(r)]);
  } else {
    lib->rows.resize(static_cast<std::size_t>(total));
    std::iota(lib->rows.begin(), lib->rows.end(), 0LL);
    lib->domain = std::move(whole);
    lib->reward = std::move(reward);
  }
  const long long n = lib->domain.size();
  long long k = static_cast<long long>(std::max(1.0, std::floor(0.01 * static_cast<double>(n))));
  if (!top_k.is_null()) {
    if (!top_k.is_number_integer() || top_k.get<long long>() < 1 || top_k.get<long long>() > n) {
      c.fail("top_k", "must be an integer in [1, " + std::to_string(n) + "]");
    }
    k = top_k.get<long long>();
  }
  lib->k = static_cast<int>(k);
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return lib->reward[static_cast<std::size_t>(a)] > lib->reward[static_cast<std::size_t>(b)];
  });
  lib->top.assign(static_cast<std::size_t>(n), 0);
  for (long long i = 0; i < k; ++i) {
    lib->top[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = 1;
    lib->top_values.push_back(
        lib->reward[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])]);
  }
  return lib;
}

AcquisitionSpec parse_policy(const Checker& c, const json& o, const std::string& path,
                             const Library& lib) {
  const RegistryEntry& e = c.typed_entry(o, "acquisition", path);
  c.check_keys(o, e, path, true);
  const ConfigObject p(c, o, path);
  AcquisitionSpec a;
  a.type = e.name;
  a.label = p.str("label", a.type);
  a.beta = p.num("beta", 2.0);
  if (!(a.beta >= 0)) p.fail("beta", "must be >= 0");
  a.features = static_cast<int>(p.integer("features", 1024));
  if (a.features < 1 || a.features > 65536) p.fail("features", "must be in [1, 65536]");
  a.prior = p.choice("prior", "auto", {"auto", "exact", "features"});
  a.exact_limit = p.integer("exact_limit", 4096);
  if (a.exact_limit < 1) p.fail("exact_limit", "must be >= 1");
  if (a.type == "thompson") {
    const long long n = lib.domain.size();
    const bool exact = a.prior == "exact" || (a.prior == "auto" && n <= a.exact_limit);
    if (exact && n > 20000) {
      p.fail("prior", "an exact prior draw over " + std::to_string(n) +
                          " candidates needs an N x N Cholesky factor; use prior \"features\"");
    }
  }
  return a;
}

}  // namespace

Config parse_config(const Checker& c, const json& root, ExperimentSettings settings) {
  Config cfg;
  cfg.settings = std::move(settings);
  const ConfigObject top(c, root, "");
  const long long subset = top.integer("subset", 0);
  if (subset < 0) top.fail("subset", "must be >= 0 (0 = the whole library)");
  const std::uint64_t subset_seed = static_cast<std::uint64_t>(top.integer("subset_seed", 0));
  cfg.library = load_library(c, root, subset, subset_seed,
                             root.contains("top_k") ? root.at("top_k") : json());
  const Library& lib = *cfg.library;
  const long long n = lib.domain.size();
  // Kernel: tanimoto for bits, minmax for counts (the default follows the candidates).
  const bool counts = lib.domain.fingerprint_kind() == FingerprintKind::Counts;
  json kernel =
      root.contains("kernel") ? root.at("kernel") : json{{"type", counts ? "minmax" : "tanimoto"}};
  const ConfigObject k(c, kernel, "kernel");
  const std::string kt = k.choice("type", counts ? "minmax" : "tanimoto", {"tanimoto", "minmax"});
  for (const auto& [key, value] : kernel.items()) {
    if (key != "type" && key != "variance") {
      c.fail_plain("unknown key '" + key + "' in kernel (allowed: type, variance)");
    }
  }
  const double variance = k.num("variance", 1.0);
  if (!(variance > 0)) k.fail("variance", "must be > 0");
  cfg.kernel = kt == "tanimoto" ? Kernel::tanimoto(variance) : Kernel::minmax(variance);
  if ((kt == "minmax") != counts) {
    k.fail("type", kt + " needs " + (counts ? std::string("bit") : std::string("count")) +
                       " fingerprints; the candidates are " + (counts ? "counts" : "bits"));
  }
  cfg.fit = top.choice("fit", "initial", {"initial", "every_batch", "none"});
  cfg.noise_variance = top.num("noise_variance", 0.01);
  if (!(cfg.noise_variance > 0)) top.fail("noise_variance", "must be > 0");
  cfg.n_init = size_of(top, "init", 0.01, n);
  cfg.batch = size_of(top, "batch", 0.01, n);
  cfg.batches = static_cast<int>(top.integer("batches", 5));
  if (cfg.batches < 1) top.fail("batches", "must be >= 1");
  if (static_cast<long long>(cfg.n_init) + static_cast<long long>(cfg.batches) * cfg.batch > n) {
    top.fail("batches",
             "init + batches x batch = " + std::to_string(cfg.n_init + cfg.batches * cfg.batch) +
                 " evaluations exceed the library (" + std::to_string(n) + ")");
  }
  const json& pol = root.at("policies");
  if (!pol.is_array() || pol.empty()) top.fail("policies", "must be a non-empty array");
  for (std::size_t i = 0; i < pol.size(); ++i) {
    const std::string path = "policies[" + std::to_string(i) + "]";
    AcquisitionSpec a = parse_policy(c, pol[i], path, lib);
    for (const AcquisitionSpec& b : cfg.policies) {
      if (b.label == a.label) c.fail(path + ".label", "duplicate label '" + a.label + "'");
    }
    cfg.policies.push_back(std::move(a));
  }
  return cfg;
}

FoundFractions found_fractions(const Library& lib, const std::vector<int>& acquired) {
  FoundFractions f;
  std::vector<double> got;
  got.reserve(acquired.size());
  int molecules = 0;
  f.best = -INFINITY;
  for (const int a : acquired) {
    const double r = lib.reward[static_cast<std::size_t>(a)];
    got.push_back(r);
    f.best = std::max(f.best, r);
    molecules += lib.top[static_cast<std::size_t>(a)];
  }
  std::sort(got.begin(), got.end(), std::greater<double>());
  if (static_cast<int>(got.size()) > lib.k) got.resize(static_cast<std::size_t>(lib.k));
  // Multiset intersection of the k best acquired and the true top-k values (both descending).
  int matched = 0;
  std::size_t i = 0, j = 0;
  while (i < got.size() && j < lib.top_values.size()) {
    if (got[i] == lib.top_values[j]) {
      ++matched;
      ++i;
      ++j;
    } else if (got[i] > lib.top_values[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  f.scores = static_cast<double>(matched) / lib.k;
  f.molecules = static_cast<double>(molecules) / lib.k;
  return f;
}

}  // namespace gpb::pool::detail
