// The identity of a config for --resume (config_identity.hpp).
#include "experiment/config_identity.hpp"

#include <set>

namespace gpb::detail {

using nlohmann::json;

json experiment_identity(const std::string& config_json, int runs, std::uint64_t seed,
                         const std::string& backend_flag) {
  json config = json::parse(config_json);
  static const std::set<std::string> kFree = {
      "name", "description", "threads", "lockstep", "memory_budget_mb", "runs", "seed"};
  if (config.is_object()) {
    for (const std::string& key : kFree) config.erase(key);
  }
  return {{"config", config}, {"runs", runs}, {"seed", seed}, {"backend_flag", backend_flag}};
}

namespace {

std::string shorten(const json& v) {
  std::string s = v.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string join_key(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::optional<IdentityDifference> diff(const json& a, const json& b, const std::string& path) {
  if (a == b) return std::nullopt;
  if (a.is_object() && b.is_object()) {
    // Another "type" is the difference that explains the others (their parameters differ too).
    if (a.contains("type") && b.contains("type") && a["type"] != b["type"]) {
      return IdentityDifference{join_key(path, "type"), shorten(a["type"]), shorten(b["type"])};
    }
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const std::string& k : keys) {
      if (!a.contains(k)) return IdentityDifference{join_key(path, k), "(absent)", shorten(b[k])};
      if (!b.contains(k)) return IdentityDifference{join_key(path, k), shorten(a[k]), "(absent)"};
      if (auto d = diff(a[k], b[k], join_key(path, k))) return d;
    }
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (auto d = diff(a[i], b[i], path + "[" + std::to_string(i) + "]")) return d;
    }
  }
  return IdentityDifference{path, shorten(a), shorten(b)};
}

}  // namespace

std::optional<IdentityDifference> first_difference(const json& before, const json& now) {
  return diff(before, now, "");
}

std::string describe_difference(const IdentityDifference& d, const std::string& where) {
  return (d.key.empty() ? std::string("the config") : d.key) + ": " + d.before + " in " + where +
         ", " + d.now + " now";
}

}  // namespace gpb::detail
