// Core claims of the processes on this machine (see detail/core_claims.hpp).
#include "engine/detail/core_claims.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace gpb::detail {
namespace {

struct Claim {
  std::string dir;
  int threads = 1;
  int ceiling = 0;  // automatic claims: the count first resolved to; 0 = an explicit count
  long pid = 0;     // the process that made it (a forked child inherits its parent's map)
};

// Both live for the whole process (never destroyed): a static Context's destructor may run after
// other statics are gone.
std::mutex& claims_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

// This process's claims by owner (a Context's address).
std::map<const void*, Claim>& own_claims() {
  static auto* claims = new std::map<const void*, Claim>;
  return *claims;
}

// Field 22 of /proc/PID/stat (start time in clock ticks since boot), 0 when unreadable: with the
// pid it names a process even after the pid is reused.
unsigned long long start_time(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = all.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(all.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && (rest >> field); ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

bool alive(long pid, unsigned long long started) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  const unsigned long long now = start_time(pid);
  return started == 0 || now == 0 || now == started;
}

// A pid from a file name of digits only, else -1.
long pid_of(const std::string& name) {
  if (name.empty() || name.size() > 18 ||
      !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::strtol(name.c_str(), nullptr, 10);
}

// Creates `dir` (mode 0700) if needed; usable only when it is a directory owned by this user (a
// name in /tmp another user created first is not trusted).
bool usable_dir(const std::string& dir) {
  if (dir.empty()) return false;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return false;
  struct stat st {};
  return ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid();
}

// Holds the directory's lock for its lifetime (released by the kernel if the process dies).
class DirLock {
 public:
  explicit DirLock(const std::string& dir)
      : fd_(::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

int others_in(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return 0;
  const long self = static_cast<long>(::getpid());
  int sum = 0;
  while (const dirent* e = ::readdir(d)) {
    const long pid = pid_of(e->d_name);
    if (pid <= 0 || pid == self) continue;
    const std::string path = dir + "/" + e->d_name;
    std::ifstream in(path);
    unsigned long long started = 0;
    int threads = 0;
    if (!(in >> started >> threads) || threads < 0) continue;  // being written: skip
    if (!alive(pid, started)) {
      ::unlink(path.c_str());
      continue;
    }
    sum += std::min(threads, 1 << 20);
  }
  ::closedir(d);
  return sum;
}

// Rewrites this process's file in `dir` with its largest claim there (removes it when none);
// a rename, so a reader sees the old or the new file, never half of one. Caller holds the mutex.
void write_own(const std::string& dir) {
  int most = 0;
  const long self = static_cast<long>(::getpid());
  for (const auto& [owner, claim] : own_claims()) {
    if (claim.dir == dir && claim.pid == self) most = std::max(most, claim.threads);
  }
  const std::string path = dir + "/" + std::to_string(self);
  if (most == 0) {
    ::unlink(path.c_str());
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << start_time(self) << ' ' << most << '\n';
    if (!out) return;
  }
  ::rename(tmp.c_str(), path.c_str());
}

}  // namespace

std::string core_claims_dir() {
  if (const char* env = std::getenv("GPBANDIT_CORE_CLAIMS_DIR")) return env;
  return "/tmp/gpbandit-cores-" + std::to_string(::getuid());
}

int claimed_by_others(const std::string& dir) {
  if (!usable_dir(dir)) return 0;
  const DirLock lock(dir);
  return lock.held() ? others_in(dir) : 0;
}

int claim_threads(const void* owner, int requested, int idle, int cores) noexcept {
  const int fallback = requested > 0 ? requested : std::max(1, idle);
  try {
    const std::string dir = core_claims_dir();
    const std::lock_guard<std::mutex> guard(claims_mutex());
    if (!usable_dir(dir)) return fallback;
    const DirLock lock(dir);
    if (!lock.held()) return fallback;
    const int threads =
        requested > 0 ? requested : std::max(1, std::min(idle, cores - others_in(dir)));
    own_claims()[owner] = Claim{dir, threads, requested > 0 ? 0 : threads, ::getpid()};
    write_own(dir);
    return threads;
  } catch (...) {  // out of memory or a failing mutex: run unclaimed rather than not at all
    return fallback;
  }
}

int refresh_claim(const void* owner, int cores) noexcept {
  try {
    const std::lock_guard<std::mutex> guard(claims_mutex());
    const auto it = own_claims().find(owner);
    if (it == own_claims().end() || it->second.ceiling == 0 ||
        it->second.pid != static_cast<long>(::getpid())) {
      return 0;
    }
    Claim& claim = it->second;
    const DirLock lock(claim.dir);
    if (!lock.held()) return 0;
    claim.threads = std::max(1, std::min(claim.ceiling, cores - others_in(claim.dir)));
    write_own(claim.dir);
    return claim.threads;
  } catch (...) {  // keep the count it has
    return 0;
  }
}

void release_threads(const void* owner) noexcept {
  try {
    const std::lock_guard<std::mutex> guard(claims_mutex());
    const auto it = own_claims().find(owner);
    if (it == own_claims().end()) return;
    const std::string dir = it->second.dir;
    own_claims().erase(it);
    const DirLock lock(dir);
    if (lock.held()) write_own(dir);
  } catch (...) {  // the file is cleaned up by the next reader once this process ends
  }
}

void move_claim(const void* from, const void* to) noexcept {
  try {
    const std::lock_guard<std::mutex> guard(claims_mutex());
    auto& claims = own_claims();
    const auto it = claims.find(from);
    if (it == claims.end()) return;
    const Claim moved = it->second;
    claims.erase(it);
    claims[to] = moved;
  } catch (...) {  // the claim stays under the old address until the process ends
  }
}

}  // namespace gpb::detail
