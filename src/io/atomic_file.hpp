/// @file atomic_file.hpp
/// Crash-safe file output: write a temporary file in the target's directory, fsync, rename.
#pragma once

#include <cstdio>
#include <string>

namespace gpb::detail {

/// A file being written atomically: content goes to a temporary sibling; commit() fsyncs it and
/// renames it over `path`. Destroyed without commit() (e.g. during an exception), the temporary
/// file is removed, so `path` is either untouched or complete.
class AtomicFile {
 public:
  /// @throws IoError naming the file if the temporary file cannot be created.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes. @throws IoError on a write error (disk full, ...).
  void write(const std::string& bytes);
  /// Appends the whole content of another file. @throws IoError.
  void append_file(const std::string& other);
  /// Flushes, fsyncs and closes the temporary file without renaming it (idempotent): after it,
  /// commit() only renames, so several files can be made durable first and then put in place
  /// together. @throws IoError (disk full, ...).
  void finish();
  /// finish(), then renames into place. @throws IoError.
  void commit();
  /// Path of the temporary file (e.g. for a child process to write into).
  const std::string& temp_path() const { return temp_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

/// Writes `content` to `path` atomically. @throws IoError naming the file.
void write_file_atomic(const std::string& path, const std::string& content);
/// Whole file as a string. @throws IoError naming the file if it cannot be read.
std::string read_whole_file(const std::string& path);
/// Creates `dir` (and parents) and checks that files can be created in it.
/// @throws IoError "cannot write to output directory 'dir': reason"; nothing is left behind.
void ensure_writable_directory(const std::string& dir);
/// A temporary sibling name of `path` that keeps its extension (".regret.tmp-123.png").
std::string temp_sibling(const std::string& path);
/// fsyncs a directory so that a rename inside it is durable (errors ignored).
void sync_directory(const std::string& dir);

}  // namespace gpb::detail
