// `gpbandit list [policies|objectives|kernels|noise|domains|config|dp-gibo|fed-pne|optimizer|
// command]`: everything a config can name, printed from gpb::registry() (the same table the
// config validators use).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"

namespace gpb::cli {
namespace {

struct Section {
  const char* arg;                 // `list <arg>`
  const char* title;               // heading
  std::vector<std::string> kinds;  // "kind", or "kind:name" for one entry of a kind
};

const std::vector<Section>& sections() {
  static const std::vector<Section> s = {
      {"config", "config keys (top level, by family)", {"experiment"}},
      {"policies", "policies", {"policy", "beta"}},
      {"objectives", "objectives", {"objective"}},
      {"kernels", "kernels", {"kernel"}},
      {"noise", "noise models", {"noise"}},
      {"domains", "domains", {"domain", "fingerprint"}},
      {"dp-gibo", "dp-gibo tasks and methods", {"dpgibo_task", "dpgibo_method"}},
      {"fed-pne", "fed-pne objective and methods", {"xarmed_objective", "xarmed_method"}},
      {"optimizer",
       "optimizer config (gpbandit init / ask / tell; Python Optimizer.from_config)",
       {"optimizer:optimizer", "acquisition", "optimizer_fit", "optimizer_refine",
        "optimizer_domain"}},
      {"command",
       "command-objective config (gpbandit run: an optimizer config plus these keys)",
       {"optimizer:command", "optimizer_objective"}},
  };
  return s;
}

void print_entry(const RegistryEntry& e) {
  if (e.kind == "beta") {
    std::printf("  beta: %s\n      %s\n", e.name.c_str(), e.doc.c_str());
  } else if (e.kind == "experiment" || e.kind == "optimizer") {
    std::printf("  %s: %s\n", e.name.c_str(), e.doc.c_str());
  } else {
    std::printf("  %s\n      %s\n", e.name.c_str(), e.doc.c_str());
  }
  for (const auto& p : e.params) {
    std::printf("      %-16s %-9s default %-22s %s\n", p.name.c_str(), p.type.c_str(),
                p.default_value.c_str(), p.doc.c_str());
  }
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, std::string& what) {
  CLI::App* cmd = app.add_subcommand(
      "list", "list policies, objectives, kernels, noise models and domains with parameters");
  cmd->add_option("what", what,
                  "policies | objectives | kernels | noise | domains | config | dp-gibo | fed-pne "
                  "| optimizer | command");
  return cmd;
}

int list_command(const std::string& what) {
  bool found = what.empty();
  std::string allowed;
  for (const auto& s : sections()) {
    found = found || what == s.arg;
    allowed += (allowed.empty() ? "" : ", ") + std::string(s.arg);
  }
  if (!found)
    throw InvalidArgument("list: unknown category '" + what + "' (allowed: " + allowed + ")");
  const auto table = registry();
  bool first = true;
  for (const auto& s : sections()) {
    if (!what.empty() && what != s.arg) continue;
    std::printf("%s%s:\n", first ? "" : "\n", s.title);
    first = false;
    for (const std::string& k : s.kinds) {
      const auto colon = k.find(':');
      for (const auto& e : table) {
        const bool match = colon == std::string::npos
                               ? e.kind == k
                               : e.kind == k.substr(0, colon) && e.name == k.substr(colon + 1);
        if (match) print_entry(e);
      }
    }
  }
  return 0;
}

}  // namespace gpb::cli
