// The output folder's lock: flock on <dir>/.lock, the holder's pid written into it.
#include "experiment/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "gpbandit/error.hpp"

namespace gpb::detail {

namespace {

/// The pid written in the lock file by its holder (empty when unreadable).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

OutputLock::OutputLock(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / ".lock").string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int e = errno;
    throw IoError("cannot open the lock file '" + path + "': " + std::strerror(e));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (e == EWOULDBLOCK) {
      throw InvalidArgument("output directory " + dir + " is in use by pid " +
                            (pid.empty() ? std::string("(unknown)") : pid) +
                            " (another gpbandit run); wait for it or choose another --out");
    }
    throw IoError("cannot lock '" + path + "': " + std::strerror(e));
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    (void)!::pwrite(fd_, me.data(), me.size(), 0);
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace gpb::detail
