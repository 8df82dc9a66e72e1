// The registry: the one table of everything a config can name, behind both the config validator
// (allowed keys, their types and defaults) and `gpbandit list`. This file holds the keys every
// family shares and the look-ups; each family appends its own entries (finite/registry.cpp,
// dpgibo/registry_entries.cpp, xarmed/registry_entries.cpp), through the add_*_entries
// functions declared in registry_internal.hpp.
#include "experiment/registry_internal.hpp"

#include "experiment/fingerprint_domain.hpp"

namespace gpb::detail {

namespace {

const std::string kReq = kRequired;

}  // namespace

std::vector<ParamDoc> common_params(const std::string& family) {
  const bool finite = family == "finite" || family == "pool";
  std::vector<ParamDoc> p = {
      {"experiment", "string", "\"finite\"", "family: finite | pool | dp-gibo | fed-pne"},
      {"name", "string", "file stem", "output folder name, [A-Za-z0-9._-]+"},
      {"description", "string", "\"\"", "free text, ignored"},
      {"seed", "integer", "0", "master seed of every simulation stream, in [0, 2^64 - 1]"},
      {"runs", "integer", family == "pool" ? "5" : (finite || family == "fed-pne" ? "10" : "3"),
       "independent runs per policy (>= 1)"},
      {"lockstep", "integer", "0",
       "runs advanced together (a checkpoint after each group); 0 = as many as fit the memory "
       "budget and about 2 minutes of work"},
      {"threads", "integer", "0",
       "CPU threads, 0 = the idle cores (minus the load average and the threads of other gpbandit "
       "runs)"}};
  if (family != "fed-pne") {
    p.push_back({"backend", "string", finite ? "\"auto\"" : "\"cpu\"", "auto | cpu | cuda"});
  }
  if (finite) {
    p.push_back({"precision", "string", "\"double\"",
                 "double | mixed: V stored in double, or in float with double accumulation (the "
                 "block update's GEMM and triangular solve in single precision; mu and sigma^2 "
                 "within about 1e-5 of double); the memory plan still counts 8 B per entry"});
    p.push_back({"memory_budget_mb", "number", "auto",
                 "engine budget for the posterior buffers (> 0): V = R·N·T·8 B for R runs in "
                 "lockstep; larger groups are split, and one run over it uses recompute mode; "
                 "auto: 75% of the available memory on the CPU, of the free device memory on "
                 "CUDA"});
  }
  p.push_back({"privacy_noise", "string", "\"secure\"",
               "secure | seeded: source of privacy noise; seeded = reproducible simulation, NOT "
               "private (summary.json says so)"});
  return p;
}

namespace {

/// Every family's entries, in the order `gpbandit list` prints them.
std::vector<RegistryEntry> build_registry() {
  std::vector<RegistryEntry> r;
  add_finite_entries(r);
  add_fingerprint_entries(r);
  add_pool_entries(r);
  add_dpgibo_entries(r);
  add_xarmed_entries(r);
  add_optimizer_entries(r);
  return r;
}

}  // namespace

const RegistryEntry* find_registry_entry(const std::string& kind, const std::string& name) {
  static const std::vector<RegistryEntry> table = build_registry();
  for (const auto& e : table) {
    if (e.kind == kind && e.name == name) return &e;
  }
  return nullptr;
}

std::set<std::string> registry_keys(const std::string& kind, const std::string& name) {
  std::set<std::string> out;
  if (const RegistryEntry* e = find_registry_entry(kind, name)) {
    for (const ParamDoc& p : e->params) out.insert(p.name);
  }
  return out;
}

std::vector<std::string> registry_names(const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& e : build_registry()) {
    if (e.kind == kind) out.push_back(e.name);
  }
  return out;
}

}  // namespace gpb::detail

namespace gpb {

std::vector<RegistryEntry> registry() {
  return detail::build_registry();
}

}  // namespace gpb
