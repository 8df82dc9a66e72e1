/// @file config_checker.hpp
/// The config validator's building blocks shared by config.cpp and config_ldp.cpp (internal):
/// Checker (one document, every failure as InvalidArgument "<source>: <field>: <what>"), the
/// instance facts known at load time, and the LDP / heavy-tailed parameter checks.
#pragma once

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "experiment/registry_internal.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

using nlohmann::json;

/// "a, b, c".
inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// "string", "boolean", "number 2.5", ...
inline std::string describe_value(const json& v) {
  if (v.is_number()) return "number " + v.dump();
  return v.type_name();
}

/// Validates one config document; every failure throws InvalidArgument "<source>: ...".
class Checker {
 public:
  Checker(std::string source, std::string base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InvalidArgument(source_ + ": " + field + ": " + what);
  }
  [[noreturn]] void fail_plain(const std::string& what) const {
    throw InvalidArgument(source_ + ": " + what);
  }

  /// The registry entry an object with a "type" key names (kind "policy", "kernel", ...).
  const RegistryEntry& typed_entry(const json& obj, const std::string& kind,
                                   const std::string& path) const {
    if (!obj.is_object()) fail(path, "expected an object, got " + describe_value(obj));
    const auto names = detail::registry_names(kind);
    if (!obj.contains("type")) fail(path + ".type", "required (one of: " + join(names) + ")");
    const json& t = obj["type"];
    if (!t.is_string()) fail(path + ".type", "expected a string, got " + describe_value(t));
    const RegistryEntry* e = detail::find_registry_entry(kind, t.get<std::string>());
    if (e == nullptr) {
      fail(path + ".type",
           "unknown " + kind + " '" + t.get<std::string>() + "' (allowed: " + join(names) + ")");
    }
    return *e;
  }

  /// Unknown keys, value types and required keys of `obj` against `e`.
  void check_keys(const json& obj, const RegistryEntry& e, const std::string& path,
                  bool typed) const {
    std::vector<std::string> allowed;
    if (typed) allowed.push_back("type");
    for (const auto& p : e.params) allowed.push_back(p.name);
    const std::string prefix = path.empty() ? "" : path + ".";
    for (const auto& [key, value] : obj.items()) {
      if (typed && key == "type") continue;
      const ParamDoc* doc = nullptr;
      for (const auto& p : e.params) {
        if (p.name == key) doc = &p;
      }
      if (doc == nullptr) {
        fail_plain("unknown key '" + key + "' " + (path.empty() ? "at top level" : "in " + path) +
                   " (allowed: " + join(allowed) + ")");
      }
      check_type(value, doc->type, prefix + key);
    }
    for (const auto& p : e.params) {
      if (p.default_value == detail::kRequired && !obj.contains(p.name)) {
        fail(prefix + p.name, "required");
      }
    }
  }

  void check_type(const json& v, const std::string& type, const std::string& field) const {
    const auto expect = [&](bool ok, const std::string& what) {
      if (!ok) fail(field, "expected " + what + ", got " + describe_value(v));
    };
    if (type == "number") {
      expect(v.is_number(), "a number");
    } else if (type == "integer") {
      expect(v.is_number_integer(), "an integer");
    } else if (type == "boolean") {
      expect(v.is_boolean(), "a boolean");
    } else if (type == "string" || type == "path") {
      expect(v.is_string(), "a string");
    } else if (type == "object" || type == "beta") {
      expect(v.is_object(), "an object");
    } else if (type == "array") {
      expect(v.is_array(), "an array");
    } else if (type == "number|number[]") {
      if (!v.is_array()) {
        expect(v.is_number(), "a number or an array of numbers");
      } else {
        expect(!v.empty(), "a number or a non-empty array of numbers");
        for (std::size_t i = 0; i < v.size(); ++i) {
          check_type(v[i], "number", field + "[" + std::to_string(i) + "]");
        }
      }
    } else if (type == "number[]" || type == "integer[]") {
      expect(v.is_array(), "an array");
      const std::string elem = type.substr(0, type.size() - 2);
      for (std::size_t i = 0; i < v.size(); ++i) {
        check_type(v[i], elem, field + "[" + std::to_string(i) + "]");
      }
    }
  }

  /// `obj` with every omitted parameter that has a JSON default filled in.
  static json with_defaults(json obj, const RegistryEntry& e) {
    for (const auto& p : e.params) {
      if (obj.contains(p.name)) continue;
      json d = json::parse(p.default_value, nullptr, false);
      if (!d.is_discarded()) obj[p.name] = d;
    }
    return obj;
  }

  /// An integer field checked against [lo, hi].
  long long integer(const json& obj, const std::string& key, const std::string& field, long long lo,
                    long long hi) const {
    const json& v = obj.at(key);
    if (v.is_number_unsigned() &&
        v.get<unsigned long long>() > static_cast<unsigned long long>(hi)) {
      fail(field, "must be <= " + std::to_string(hi) + ", got " + v.dump());
    }
    const long long x = v.get<long long>();
    if (x < lo) fail(field, "must be >= " + std::to_string(lo) + ", got " + v.dump());
    if (x > hi) fail(field, "must be <= " + std::to_string(hi) + ", got " + v.dump());
    return x;
  }

  /// A number field with an optional strict/non-strict lower bound.
  static double number(const json& obj, const std::string& key) {
    return obj.at(key).get<double>();
  }
  double positive(const json& obj, const std::string& key, const std::string& field) const {
    const double x = number(obj, key);
    if (!(x > 0)) fail(field, "must be > 0, got " + obj.at(key).dump());
    return x;
  }
  double non_negative(const json& obj, const std::string& key, const std::string& field) const {
    const double x = number(obj, key);
    if (!(x >= 0)) fail(field, "must be >= 0, got " + obj.at(key).dump());
    return x;
  }

  /// A data file path resolved against the config's directory; must exist (when `here`: false for
  /// a file another process reads).
  std::string data_path(const json& obj, const std::string& key, const std::string& field,
                        bool here = true) const {
    std::filesystem::path p = obj.at(key).get<std::string>();
    if (p.empty()) fail(field, "must not be empty");
    if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
    if (!here) return p.lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) fail(field, "data file not found: " + p.string());
    if (std::filesystem::is_directory(p, ec))
      fail(field, "is a directory, not a data file: " + p.string());
    return p.lexically_normal().string();
  }

  /// Runs a library call, re-throwing its InvalidArgument / IoError with the field prefix.
  template <class F>
  auto guarded(const std::string& field, F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const InvalidArgument& e) {
      fail(field, e.what());
    } catch (const IoError& e) {
      fail(field, e.what());
    }
  }

  const std::string& source() const { return source_; }
  /// The directory relative paths resolve against (the config file's).
  const std::string& base_dir() const { return base_dir_; }

 private:
  std::string source_;
  std::string base_dir_;
};

/// A kernel's "lengthscale": one number > 0 (isotropic) or an array of numbers > 0 (ARD, one per
/// axis; its length is checked against the domain by the caller). Type already checked.
inline Eigen::VectorXd lengthscales(const Checker& c, const json& o, const std::string& field) {
  const json& v = o.at("lengthscale");
  if (!v.is_array()) return Eigen::VectorXd::Constant(1, c.positive(o, "lengthscale", field));
  Eigen::VectorXd l(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    l[static_cast<Eigen::Index>(i)] = v[i].get<double>();
    if (!(l[static_cast<Eigen::Index>(i)] > 0)) {
      c.fail(field + "[" + std::to_string(i) + "]", "must be > 0, got " + v[i].dump());
    }
  }
  return l;
}

/// One object of a config at `path`, read through a Checker: key checks against the registry
/// and typed reads with defaults; every failure is "<source>: <path>.<key>: <what>".
class ConfigObject {
 public:
  /// @throws InvalidArgument when `obj` is not an object.
  ConfigObject(const Checker& c, const json& obj, std::string path)
      : c_(c), obj_(obj), path_(std::move(path)) {
    if (!obj.is_object()) c_.fail(path_.empty() ? "(top level)" : path_, "must be an object");
  }
  /// Checks the keys and value types against the registry entry (kind, name); `typed`: the
  /// object's "type" key names the entry (allowed besides the entry's parameters).
  void keys(const std::string& kind, const std::string& name, bool typed = true) const {
    const RegistryEntry* e = find_registry_entry(kind, name);
    if (e == nullptr) throw Error("registry has no " + kind + " '" + name + "'");
    c_.check_keys(obj_, *e, path_, typed);
  }
  /// "path.key".
  std::string field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    c_.fail(key.empty() ? path_ : field(key), what);
  }
  bool has(const std::string& k) const { return obj_.contains(k); }
  const json& raw(const std::string& k) const { return obj_.at(k); }
  /// A finite number (or `def` when absent).
  double num(const std::string& k, double def) const {
    if (!has(k)) return def;
    if (!raw(k).is_number()) fail(k, "expected a number, got " + describe_value(raw(k)));
    const double v = raw(k).get<double>();
    if (!std::isfinite(v)) fail(k, "must be finite");
    return v;
  }
  /// A number or "inf" (+∞).
  double num_or_inf(const std::string& k, double def) const {
    if (has(k) && raw(k).is_string() && raw(k).get<std::string>() == "inf") return INFINITY;
    return num(k, def);
  }
  long long integer(const std::string& k, long long def) const {
    if (!has(k)) return def;
    if (!raw(k).is_number_integer()) fail(k, "expected an integer, got " + describe_value(raw(k)));
    if (raw(k).is_number_unsigned() && raw(k).get<unsigned long long>() > LLONG_MAX) {
      fail(k, "too large, got " + raw(k).dump());
    }
    return raw(k).get<long long>();
  }
  std::string str(const std::string& k, const std::string& def) const {
    if (!has(k)) return def;
    if (!raw(k).is_string()) fail(k, "expected a string, got " + describe_value(raw(k)));
    return raw(k).get<std::string>();
  }
  /// One of `allowed` (or `def` when absent).
  std::string choice(const std::string& k, const std::string& def,
                     const std::vector<std::string>& allowed) const {
    const std::string v = str(k, def);
    for (const auto& a : allowed) {
      if (v == a) return v;
    }
    fail(k, "must be one of " + join(allowed) + ", got '" + v + "'");
  }
  bool boolean(const std::string& k, bool def) const {
    if (!has(k)) return def;
    if (!raw(k).is_boolean()) fail(k, "expected a boolean, got " + describe_value(raw(k)));
    return raw(k).get<bool>();
  }
  std::vector<double> numbers(const std::string& k, std::vector<double> def) const {
    if (!has(k)) return def;
    if (!raw(k).is_array()) fail(k, "expected an array of numbers");
    std::vector<double> out;
    for (const json& x : raw(k)) {
      if (!x.is_number()) fail(k, "expected an array of numbers");
      out.push_back(x.get<double>());
    }
    return out;
  }
  const Checker& checker() const { return c_; }
  const std::string& path() const { return path_; }

 private:
  const Checker& c_;
  const json& obj_;
  std::string path_;
};

/// One of a fixed set of strings.
inline void check_choice(const Checker& c, const json& o, const std::string& key,
                         const std::string& path, const std::vector<std::string>& allowed) {
  if (!o.contains(key)) return;
  const std::string v = o[key].get<std::string>();
  for (const auto& a : allowed) {
    if (v == a) return;
  }
  c.fail(path + "." + key, "must be one of " + join(allowed) + ", got '" + v + "'");
}

/// What the runner will know of the instance, for checks at load time.
struct InstanceInfo {
  int horizon = 1;
  double noise_bound = 0;  ///< R of the instance (0 or ∞: unknown for LDP)
  const Domain* domain = nullptr;
};

/// Ranges of the heavy-tailed / LDP parameters of a TGP/ATA/MoMA policy object `o` at `path`
/// (specs/ldp-bo.md §4–5). @throws InvalidArgument through `c`.
void check_heavy(const Checker& c, const json& o, const std::string& path, const std::string& type,
                 const InstanceInfo& info);
/// The "ldp" object of a gp_ucb policy at `path`. @throws InvalidArgument through `c`.
void check_gp_ucb_ldp(const Checker& c, const json& l, const std::string& path,
                      const InstanceInfo& info);

}  // namespace gpb::detail
