/// @file molecules.hpp
/// The fingerprint caches a config's "molecules" domain reads: what the featurisation step
/// (`python3 -m gpbandit.chem featurize CONFIG`) writes and the CLI checks.
#pragma once

#include <string>
#include <vector>

namespace gpb {

/// One cache of featurised molecules.
struct MoleculeCache {
  std::string file;         ///< the library (CSV or .csv.gz of SMILES)
  std::string smiles;       ///< its SMILES column
  std::string fingerprint;  ///< the fingerprint spec as JSON (type, bits, ...), as recorded
  std::string npy;          ///< the packed fingerprints to write
  std::string json;         ///< the metadata beside them
};

/// The caches of the config at `path` (its "domain" when of type molecules; none otherwise).
/// @throws IoError if unreadable; InvalidArgument "<path>: <field>: <what>" for a bad domain.
std::vector<MoleculeCache> molecule_caches(const std::string& path);

}  // namespace gpb
