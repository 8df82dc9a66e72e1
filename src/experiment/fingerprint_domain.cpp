// Fingerprint domains and lookup objectives in configs (see fingerprint_domain.hpp).
#include "experiment/fingerprint_domain.hpp"

#include <filesystem>
#include <fstream>

#include "experiment/config_common.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/experiment/molecules.hpp"
#include "io/atomic_file.hpp"
#include "io/table.hpp"

namespace gpb::detail {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kReq = kRequired;

FingerprintSpec parse_fingerprint(const Checker& c, const json& o, const std::string& field) {
  const RegistryEntry& e = c.typed_entry(o, "fingerprint", field);
  c.check_keys(o, e, field, true);
  const ConfigObject f(c, o, field);
  FingerprintSpec s;
  s.type = e.name;
  s.bits = static_cast<int>(f.integer("bits", 2048));
  if (s.bits < 1 || s.bits > (1 << 20)) f.fail("bits", "must be in [1, 1048576]");
  s.counts = f.boolean("counts", false);
  if (s.type == "morgan") {
    s.radius = static_cast<int>(f.integer("radius", 2));
    if (s.radius < 0 || s.radius > 10) f.fail("radius", "must be in [0, 10]");
    s.chirality = f.boolean("chirality", true);
  } else {
    s.min_length = static_cast<int>(f.integer("min_length", 1));
    s.max_length = static_cast<int>(f.integer("max_length", 3));
    if (s.min_length < 1) f.fail("min_length", "must be >= 1");
    if (s.max_length < s.min_length || s.max_length > 30) {
      f.fail("max_length", "must be in [min_length, 30]");
    }
  }
  return s;
}

}  // namespace

std::string FingerprintSpec::tag() const {
  std::string t = type + "-" + std::to_string(bits);
  if (type == "morgan") {
    t += "-r" + std::to_string(radius) + (chirality ? "-chiral" : "");
  } else {
    t += "-l" + std::to_string(min_length) + "-" + std::to_string(max_length);
  }
  return t + (counts ? "-counts" : "-bits");
}

json FingerprintSpec::to_json() const {
  json j = {{"type", type}, {"bits", bits}, {"counts", counts}};
  if (type == "morgan") {
    j["radius"] = radius;
    j["chirality"] = chirality;
  } else {
    j["min_length"] = min_length;
    j["max_length"] = max_length;
  }
  return j;
}

std::string MoleculesSpec::cache_npy() const {
  return (fs::path(cache_dir) /
          (fs::path(file).filename().string() + "." + fingerprint.tag() + ".npy"))
      .string();
}

std::string MoleculesSpec::cache_json() const {
  return (fs::path(cache_dir) /
          (fs::path(file).filename().string() + "." + fingerprint.tag() + ".json"))
      .string();
}

std::string featurize_command(const std::string& config_source) {
  return "python3 -m gpbandit.chem featurize " + config_source +
         " (RDKit: pip install rdkit, or apt-get install python3-rdkit; from a build tree, "
         "PYTHONPATH=build/python)";
}

void add_fingerprint_entries(std::vector<RegistryEntry>& r) {
  r.push_back({"domain",
               "fingerprints",
               "packed molecular fingerprints from a .npy file (Tanimoto / MinMax kernels)",
               {{"path", "path", kReq,
                 ".npy: uint64 packed words (N x W) or dense 0/1 or counts (N x bits)"},
                {"kind", "string", "\"bits\"", "bits (tanimoto) | counts (minmax)"},
                {"bits", "integer", "0", "positions per fingerprint (0: from the array)"}}});
  r.push_back({"domain",
               "molecules",
               "a CSV (or .csv.gz) of SMILES, featurised once by `python3 -m gpbandit.chem "
               "featurize CONFIG` (RDKit) into a cache",
               {{"file", "path", kReq, "library table with a header line"},
                {"smiles", "string", "\"smiles\"", "column of SMILES strings"},
                {"fingerprint", "object", R"({"type":"atom_pair"})",
                 "RDKit fingerprint (fingerprint types: atom_pair, morgan)"},
                {"cache", "path", "\"fingerprints\"",
                 "folder of the featurised cache (relative: to the config's folder)"}}});
  r.push_back({"fingerprint",
               "atom_pair",
               "hashed atom-pair fingerprint (RDKit; MolPAL's default: 2048 bits, lengths 1-3)",
               {{"bits", "integer", "2048", "folded length"},
                {"min_length", "integer", "1", "shortest topological distance (>= 1)"},
                {"max_length", "integer", "3", "longest topological distance"},
                {"counts", "boolean", "false", "counts (minmax kernel) instead of bits"}}});
  r.push_back({"fingerprint",
               "morgan",
               "Morgan / ECFP fingerprint (RDKit)",
               {{"bits", "integer", "2048", "folded length"},
                {"radius", "integer", "2", "radius (2 = ECFP4)"},
                {"chirality", "boolean", "true", "include chirality (as MolPAL)"},
                {"counts", "boolean", "false", "counts (minmax kernel) instead of bits"}}});
  r.push_back({"kernel",
               "tanimoto",
               "v * |a and b| / |a or b| on bit fingerprints (fingerprint domains)",
               {{"variance", "number", "1", "v (> 0)"}}});
  r.push_back({"kernel",
               "minmax",
               "v * sum min / sum max on count fingerprints (fingerprint domains)",
               {{"variance", "number", "1", "v (> 0)"}}});
  r.push_back({"objective",
               "lookup",
               "values looked up in a table column (e.g. docking scores), one per candidate",
               {{"file", "path", "the molecules domain's file", "table with a header line"},
                {"column", "string", "\"score\"", "numeric column, one row per candidate"},
                {"minimize", "boolean", "false",
                 "smaller values are better (rewards are then the negated values)"}}});
}

bool is_fingerprint_domain(const json& domain) {
  if (!domain.is_object() || !domain.contains("type") || !domain["type"].is_string()) return false;
  const std::string t = domain["type"].get<std::string>();
  return t == "fingerprints" || t == "molecules";
}

MoleculesSpec parse_molecules(const Checker& c, const json& domain, const std::string& field) {
  const ConfigObject d(c, domain, field);
  d.keys("domain", "molecules");
  MoleculesSpec m;
  m.file = c.data_path(domain, "file", d.field("file"));
  m.smiles = d.str("smiles", "smiles");
  if (d.has("fingerprint")) {
    m.fingerprint = parse_fingerprint(c, domain["fingerprint"], d.field("fingerprint"));
  }
  const json cache = domain.contains("cache") ? domain["cache"] : json("fingerprints");
  m.cache_dir = c.data_path(json{{"cache", cache}}, "cache", d.field("cache"), false);
  return m;
}

Domain load_fingerprint_domain(const Checker& c, const json& domain, const std::string& field) {
  const std::string type = domain.at("type").get<std::string>();
  if (type == "fingerprints") {
    const ConfigObject d(c, domain, field);
    d.keys("domain", "fingerprints");
    const std::string path = c.data_path(domain, "path", d.field("path"));
    const FingerprintKind kind = d.choice("kind", "bits", {"bits", "counts"}) == "bits"
                                     ? FingerprintKind::Bits
                                     : FingerprintKind::Counts;
    const long long bits = d.integer("bits", 0);
    if (bits < 0 || bits > (1 << 20)) d.fail("bits", "must be in [0, 1048576]");
    return c.guarded(d.field("path"), [&] {
      return Domain::fingerprints(Fingerprints::from_npy(path, kind, static_cast<int>(bits)));
    });
  }
  const MoleculesSpec m = parse_molecules(c, domain, field);
  const std::string npy = m.cache_npy(), meta_path = m.cache_json();
  const std::string again = "; featurise the library with: " + featurize_command(c.source());
  std::error_code ec;
  if (!fs::exists(npy, ec) || !fs::exists(meta_path, ec)) {
    c.fail(field, "no fingerprint cache " + npy + " for " + m.file + again);
  }
  json meta;
  try {
    meta = json::parse(read_whole_file(meta_path));
  } catch (const std::exception& e) {
    c.fail(field, meta_path + ": unreadable metadata (" + e.what() + ")" + again);
  }
  const auto size = fs::file_size(m.file, ec);
  if (meta.value("source_bytes", -1LL) != static_cast<long long>(size)) {
    c.fail(field, "the cache " + npy + " was made from another version of " + m.file +
                      " (size differs)" + again);
  }
  if (meta.value("smiles", std::string()) != m.smiles ||
      meta.value("fingerprint", json()) != m.fingerprint.to_json()) {
    c.fail(field, "the cache " + npy + " holds other fingerprints (" +
                      meta.value("fingerprint", json()).dump() + ")" + again);
  }
  const FingerprintKind kind =
      m.fingerprint.counts ? FingerprintKind::Counts : FingerprintKind::Bits;
  Domain dom = c.guarded(field, [&] {
    return Domain::fingerprints(Fingerprints::from_npy(npy, kind, m.fingerprint.bits));
  });
  if (meta.value("rows", -1LL) != dom.size()) {
    c.fail(field, "the cache " + npy + " has " + std::to_string(dom.size()) +
                      " rows but its metadata says " + meta.value("rows", json()).dump() + again);
  }
  return dom;
}

std::vector<double> load_lookup_rewards(const Checker& c, const json& objective, const json& domain,
                                        const std::string& field, long long n) {
  const ConfigObject o(c, objective, field);
  o.keys("objective", "lookup");
  std::string file;
  if (o.has("file")) {
    file = c.data_path(objective, "file", o.field("file"));
  } else if (domain.is_object() && domain.value("type", std::string()) == "molecules") {
    file = c.data_path(domain, "file", "domain.file");
  } else {
    o.fail("file", "required unless the domain is of type molecules");
  }
  const std::string column = o.str("column", "score");
  const bool minimize = o.boolean("minimize", false);
  std::vector<double> v =
      c.guarded(o.field("file"), [&] { return read_table_column(file, column); });
  if (static_cast<long long>(v.size()) != n) {
    o.fail("file", file + " has " + std::to_string(v.size()) + " data rows for " +
                       std::to_string(n) + " candidates (one row per candidate, in order)");
  }
  if (minimize) {
    for (double& x : v) x = -x;
  }
  return v;
}

}  // namespace gpb::detail

namespace gpb {

std::vector<MoleculeCache> molecule_caches(const std::string& path) {
  const std::string text = detail::read_whole_file(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const detail::Checker c(path, dir.empty() ? "." : dir);
  const nlohmann::json root = detail::parse_json_text(text, path);
  std::vector<MoleculeCache> out;
  if (!root.is_object() || !root.contains("domain")) return out;
  const nlohmann::json& d = root["domain"];
  if (!d.is_object() || d.value("type", std::string()) != "molecules") return out;
  const detail::MoleculesSpec m = detail::parse_molecules(c, d, "domain");
  out.push_back({m.file, m.smiles, m.fingerprint.to_json().dump(), m.cache_npy(), m.cache_json()});
  return out;
}

}  // namespace gpb
