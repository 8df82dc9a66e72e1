// Crash-safe file output (temporary file + fsync + rename).
#include "experiment/atomic_file.hpp"

#include <fcntl.h>
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
std::string errno_text() {
  return std::strerror(errno);
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot read '" + path + "'");
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void ensure_writable_directory(const std::string& dir) {
  const auto fail = [&](const std::string& why) {
    throw IoError("cannot write to output directory '" + dir + "': " + why);
  };
  std::error_code ec;
  // Find the first missing ancestor so that a failure removes exactly what was created.
  fs::path first_created;
  for (fs::path p = fs::absolute(dir, ec); !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    first_created = p;
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    if (!first_created.empty()) fs::remove_all(first_created, ec);
    fail(ec.message());
  }
  if (!fs::is_directory(dir, ec)) fail("not a directory");
  const std::string probe = temp_sibling((fs::path(dir) / "probe").string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    const std::string why = errno_text();
    if (!first_created.empty()) fs::remove_all(first_created, ec);
    fail(why);
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace gpb::detail
