/// @file fingerprint_domain.hpp
/// Fingerprint candidates in configs (internal; shared by the finite-domain and pool families):
/// the domain types "fingerprints" (a .npy of packed or dense fingerprints) and "molecules" (a
/// CSV of SMILES, featurised by RDKit through `python3 -m gpbandit.chem featurize CONFIG` into a
/// cache the CLI reads), and the objective "lookup" (a table column, e.g. docking scores).
///
/// Why a Python featurisation step rather than RDKit's C++ library: one featuriser for the CLI,
/// the Python module and the examples (the same bits everywhere, recorded with RDKit's version in
/// the cache's metadata), RDKit from PyPI works with any Python while Debian 12's librdkit-dev
/// (2022.09) lags PyPI by years and pulls Boost into the build; featurising is a one-off per
/// library (seconds per 10⁴ molecules), cached next to the config (docs/pools.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "experiment/config_checker.hpp"
#include "gpbandit/engine/domain.hpp"

namespace gpb::detail {

/// An RDKit fingerprint as gpbandit.chem computes it.
struct FingerprintSpec {
  std::string type = "atom_pair";  ///< atom_pair (hashed, MolPAL's default) | morgan (ECFP)
  int bits = 2048;                 ///< folded length
  int radius = 2;                  ///< morgan: radius (ECFP4 = 2)
  int min_length = 1;              ///< atom_pair: shortest path length
  int max_length = 3;              ///< atom_pair: longest path length
  bool counts = false;             ///< count fingerprint (MinMax kernel) instead of bits
  bool chirality = true;           ///< morgan: use chirality (as MolPAL)
  /// The cache file tag, e.g. "atom_pair-2048-l1-3-bits" or "morgan-2048-r2-chiral-counts".
  std::string tag() const;
  /// The spec as the cache metadata records it.
  nlohmann::json to_json() const;
};

/// A "molecules" domain: the library file, its SMILES column, the fingerprint and the cache.
struct MoleculesSpec {
  std::string file;               ///< the CSV (or .csv.gz) of the library
  std::string smiles = "smiles";  ///< the column of SMILES strings
  FingerprintSpec fingerprint;
  std::string cache_dir;  ///< where the featuriser writes (default: <config dir>/fingerprints)
  /// <cache_dir>/<file name>.<tag>.npy: the packed fingerprints (uint64 words for bits, uint8
  /// counts for counts), row i = the library's data row i.
  std::string cache_npy() const;
  /// The metadata beside it (.json): source file and size, rows, SMILES column, spec, RDKit.
  std::string cache_json() const;
};

/// Registry entries: domains "fingerprints" and "molecules", objective "lookup".
void add_fingerprint_entries(std::vector<RegistryEntry>& r);

/// Whether a domain object names a fingerprint type ("fingerprints" or "molecules").
bool is_fingerprint_domain(const nlohmann::json& domain);

/// A validated "molecules" object at `field`. @throws InvalidArgument through `c`.
MoleculesSpec parse_molecules(const Checker& c, const nlohmann::json& domain,
                              const std::string& field);

/// The candidates of a "fingerprints" or "molecules" domain object at `field`. Molecules: reads
/// the cache after checking its metadata against the library file (size) and the spec; a missing
/// or stale cache fails with the featurisation command to run. @throws InvalidArgument through
/// `c` (exit code 2 in the CLI).
Domain load_fingerprint_domain(const Checker& c, const nlohmann::json& domain,
                               const std::string& field);

/// The values an objective "lookup" object reads: column `column` of `file` (default: the
/// molecules domain's library), negated when "minimize" is true, so that larger is better.
/// @throws InvalidArgument through `c` (file:line of a bad value; a row count that differs from
/// `n`, the number of candidates).
std::vector<double> load_lookup_rewards(const Checker& c, const nlohmann::json& objective,
                                        const nlohmann::json& domain, const std::string& field,
                                        long long n);

/// The featurisation command for a config, as messages print it.
std::string featurize_command(const std::string& config_source);

}  // namespace gpb::detail
