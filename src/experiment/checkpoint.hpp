/// @file checkpoint.hpp
/// The checkpoint of an unfinished run, in <out>/.checkpoint: one file per output stream per
/// finished unit (policy × group of runs) and state.json listing the units with the size and hash
/// of each file, so that --resume never mixes in rows of another run or config.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/family.hpp"

namespace gpb::detail {

/// 64-bit FNV-1a of `s` as 16 hex digits.
std::string fnv1a_hex(std::string_view s);

/// Finished units of one run, persisted after each unit.
class Checkpoint {
 public:
  /// @param streams output streams per unit (1 = runs.csv rows; fed-pne adds phases.csv).
  /// @param identity the run's identity (experiment_identity; its hash is config_hash), saved so
  /// that a refused --resume can name the key that differs.
  /// @param legacy_hash the hash of the config text that checkpoints written before identities
  /// existed carry: such a checkpoint is accepted when it matches.
  /// @param stream_names the output file of each stream (runs.csv, then the family's extra
  /// files), named when a checkpoint holds another number of files per unit; may be empty.
  Checkpoint(std::string out_dir, std::string config_hash, int streams,
             nlohmann::json identity = nlohmann::json(), std::string legacy_hash = "",
             std::vector<std::string> stream_names = {});
  /// Whether a checkpoint (state.json) exists.
  bool exists() const;
  /// Units the existing checkpoint lists, without checking it (for messages). Never throws.
  int peek_units() const;
  /// Loads and checks the checkpoint: every listed file present with the recorded size and hash.
  /// @throws InvalidArgument if it belongs to another config (naming the first key that differs
  /// and its two values) or holds another number of files per unit than this build writes (a
  /// checkpoint of an older gpbandit, e.g. a pool run's from before acquired.csv: its finished
  /// units cannot give the missing file, so it is refused rather than resumed without it);
  /// IoError naming the file when it is unreadable, incomplete or altered.
  void load();
  /// Removes any checkpoint (a fresh start). @throws IoError.
  void clear();
  /// Saves a finished unit: its files (one per stream), then state.json. @throws IoError.
  void save(const UnitRecord& unit, const std::vector<std::string>& contents,
            double elapsed_seconds);
  /// Whether policy p has finished the group starting at first_run.
  bool done(int policy, std::uint32_t first_run) const;
  /// The group (first run, count) of a finished unit starting at first_run, or count 0.
  int group_size(std::uint32_t first_run) const;
  /// Every finished unit, in the order they were saved.
  const std::vector<UnitRecord>& units() const { return units_; }
  /// The file of `stream` of a finished unit.
  std::string file(int stream, int policy, std::uint32_t first_run) const;
  /// Run time of the units saved so far (this and earlier invocations).
  double elapsed_seconds() const { return elapsed_; }
  /// The checkpoint folder.
  const std::string& dir() const { return dir_; }

 private:
  void write_state() const;
  std::string dir_, hash_, legacy_hash_;
  nlohmann::json identity_;
  int streams_;
  std::vector<std::string> stream_names_;
  std::vector<UnitRecord> units_;
  std::vector<std::vector<std::pair<std::size_t, std::string>>> sums_;  // per unit, per stream
  double elapsed_ = 0;
};

}  // namespace gpb::detail
