/// @file output_lock.hpp
/// An exclusive lock on an output folder, so that two runs never write the same folder.
#pragma once

#include <string>

namespace gpb::detail {

/// Holds flock(LOCK_EX) on <dir>/.lock for its lifetime (the kernel releases it when the process
/// dies, however it dies). The file keeps the holder's pid for the message of the next comer.
class OutputLock {
 public:
  /// @throws InvalidArgument "output directory X is in use by pid N (another gpbandit run)"
  /// when another process holds it; IoError naming the file and the errno text when the lock
  /// file cannot be opened.
  explicit OutputLock(const std::string& dir);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace gpb::detail
