// Crash-safe file output (temporary file + fsync + rename).
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gpbandit/error.hpp"

namespace gpb::detail {
namespace fs = std::filesystem;

namespace {
/// The text of errno, read at once (before anything else can change it).
std::string errno_text() {
  const int e = errno;
  return e == 0 ? std::string("unknown error (errno 0)") : std::strerror(e);
}
}  // namespace

std::string temp_sibling(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const fs::path p(path);
  std::ostringstream name;
  name << "." << p.stem().string() << ".tmp-" << ::getpid() << "-" << counter++
       << p.extension().string();
  return (p.parent_path() / name.str()).string();
}

void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temp_(temp_sibling(path_)) {
  file_ = std::fopen(temp_.c_str(), "wb");
  if (file_ == nullptr) throw IoError("cannot write '" + path_ + "': " + errno_text());
}

AtomicFile::~AtomicFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::fail(const std::string& what) const {
  throw IoError("cannot write '" + path_ + "': " + what);
}

void AtomicFile::write(const std::string& bytes) {
  if (bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) fail(errno_text());
}

void AtomicFile::append_file(const std::string& other) {
  std::FILE* in = std::fopen(other.c_str(), "rb");
  if (in == nullptr) throw IoError("cannot read '" + other + "': " + errno_text());
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) {
    if (std::fwrite(buf, 1, n, file_) != n) {
      std::fclose(in);
      fail(errno_text());
    }
  }
  const bool bad = std::ferror(in) != 0;
  std::fclose(in);
  if (bad) throw IoError("cannot read '" + other + "'");
}

void AtomicFile::finish() {
  if (file_ == nullptr) return;
  if (std::fflush(file_) != 0) fail(errno_text());
  if (::fsync(::fileno(file_)) != 0) fail(errno_text());
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) fail(errno_text());
}

void AtomicFile::commit() {
  finish();
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail(errno_text());
  committed_ = true;
  sync_directory(fs::path(path_).parent_path().string());
}

void write_file_atomic(const std::string& path, const std::string& content) {
  AtomicFile f(path);
  f.write(content);
  f.commit();
}

std::string read_whole_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError("cannot read '" + path + "': it is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read '" + path + "': " + errno_text());
  std::ostringstream os;
  if (in.peek() != std::char_traits<char>::eof()) os << in.rdbuf();
  if (in.bad()) throw IoError("cannot read '" + path + "': " + errno_text());
  return os.str();
}

namespace {

/// mkdir -p with the errno of the call that failed (the filesystem library's error_code can
/// come back empty on kernel pseudo-filesystems). Records in `created` the first folder it made.
void make_directories(const std::string& dir, std::string* created) {
  std::string prefix;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    prefix = dir.substr(0, pos);
    if (prefix.empty() || prefix == "/") continue;
    if (::mkdir(prefix.c_str(), 0777) == 0) {
      if (created->empty()) *created = prefix;
      continue;
    }
    const int e = errno;
    struct stat st {};
    if (e == EEXIST && ::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw IoError(prefix + " exists and is not a directory");
      continue;
    }
    throw IoError("cannot create " + prefix + ": " + std::strerror(e));
  }
}

}  // namespace

void ensure_writable_directory(const std::string& dir) {
  const auto fail = [&](const std::string& why) {
    throw IoError("cannot write to output directory '" + dir + "': " + why);
  };
  std::string created;
  try {
    make_directories(dir, &created);
  } catch (const IoError& e) {
    std::error_code ec;
    if (!created.empty()) fs::remove_all(created, ec);
    fail(e.what());
  }
  const std::string probe = temp_sibling((fs::path(dir) / "probe").string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    const int e = errno;
    std::error_code ec;
    if (!created.empty()) fs::remove_all(created, ec);
    fail("cannot create a file in it (" + probe + "): " + std::strerror(e));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace gpb::detail
