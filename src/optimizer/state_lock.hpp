// The lock that serialises the gpbandit processes sharing an optimizer state file (used by
// tools/cmd_state.cpp and src/optimizer/command_run.cpp).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>

#include "gpbandit/error.hpp"

namespace gpb::detail {

/// An exclusive advisory lock on `state`.lock, released when destroyed (or when the process dies).
class StateLock {
 public:
  /// Waits up to timeout_s seconds for the lock. @throws IoError, or Error after the timeout.
  StateLock(const std::string& state, double timeout_s) : path_(state + ".lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IoError("cannot open lock file '" + path_ + "': " + std::strerror(errno));
    const auto start = std::chrono::steady_clock::now();
    while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR) {
        const std::string why = std::strerror(errno);
        ::close(fd_);
        throw IoError("cannot lock '" + path_ + "': " + why);
      }
      const double waited =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (waited >= timeout_s) {
        ::close(fd_);
        std::ostringstream os;
        os << "state file '" << state << "' is locked by another gpbandit process (waited "
           << timeout_s << " s; see --lock-timeout)";
        throw Error(os.str());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~StateLock() {
    flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace gpb::detail
