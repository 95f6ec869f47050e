#include "base/run_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/unique_fd.h"

namespace megatriage {
namespace {

// Two unrelated 64-bit hashes side by side: a 128-bit key, so that two inputs sharing an entry
// by accident is not a concern. Both read 8-byte words, in one pass: every run hashes the
// rules' whole text (300 KB), which a hash of a byte at a time made a visible part of a start.
struct Hash128 {
  std::uint64_t a, b;
};
Hash128 hash128(std::string_view s) {
  std::uint64_t a = 0x9e3779b97f4a7c15ULL ^ s.size(), b = 0xcbf29ce484222325ULL + s.size();
  auto mix = [&](std::uint64_t w) {
    a = (a ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;
    a ^= a >> 29;
    b = (b ^ (w * 0x94d049bb133111ebULL)) * 0xbf58476d1ce4e5b9ULL;
    b ^= b >> 31;
  };
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    mix(w);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  mix(tail);
  a ^= a >> 33;
  b ^= b >> 32;
  return {a * 0xff51afd7ed558ccdULL, b * 0xc4ceb9fe1a85ec53ULL};
}

std::string executable_identity() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return {};
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
         ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool owned_privately(const struct stat& st) {
  return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// Removes the oldest entries beyond `keep` (temporary files of crashed writers included), never
// `just_written` (timestamps are coarse: a whole run's entries may share one).
void prune(const std::string& dir, std::size_t keep, const std::string& just_written) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code time_ec;
    const auto when = it->last_write_time(time_ec);
    if (!time_ec && it->path().filename() != just_written) entries.emplace_back(when, it->path());
  }
  if (entries.size() + 1 <= keep) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + keep < entries.size() + 1; ++i) fs::remove(entries[i].second, ec);
}

}  // namespace

RunCache::RunCache(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) return;
  identity_ = executable_identity();
  if (identity_.empty()) dir_.clear();
}

const RunCache& RunCache::from_environment() {
  static const RunCache cache = [] {
    if (const char* dir = std::getenv("MEGATRIAGE_CACHE_DIR")) {
      const std::string d = dir;
      return RunCache(d == "off" ? std::string() : d);
    }
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
      return RunCache(std::string(xdg) + "/megatriage");
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
      return RunCache(std::string(home) + "/.cache/megatriage");
    return RunCache();
  }();
  return cache;
}

std::string RunCache::key(std::string_view kind, std::string_view content) const {
  std::string input;
  input.reserve(identity_.size() + kind.size() + content.size() + 2);
  input.append(identity_).append(1, '\0').append(kind).append(1, '\0').append(content);
  const Hash128 h = hash128(input);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.a),
                static_cast<unsigned long long>(h.b));
  return std::string(kind) + "-" + hex;
}

std::optional<std::string> RunCache::get(const std::string& key, std::size_t max_bytes) const {
  if (!enabled()) return std::nullopt;
  // Only entries this user wrote and nobody else can change are read (an entry steers what a
  // run skips, and the trigger database is code for Vectorscan).
  struct stat dir_st {};
  if (::stat(dir_.c_str(), &dir_st) != 0 || !owned_privately(dir_st)) return std::nullopt;
  UniqueFd fd(::open((dir_ + "/" + key).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || !owned_privately(st) ||
      static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return std::nullopt;
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // shrank under us, or an I/O error: a miss
    got += static_cast<std::size_t>(n);
  }
  return bytes;
}

void RunCache::put(const std::string& key, std::string_view bytes) const {
  if (!enabled()) return;
  // Entries steer what a run skips: a directory made here is private; one that others may
  // write to (MEGATRIAGE_CACHE_DIR=/tmp) is left alone and not written to, as get() ignores it.
  std::error_code ec;
  if (std::filesystem::create_directories(dir_, ec)) ::chmod(dir_.c_str(), 0700);
  struct stat dir_st {};
  if (::stat(dir_.c_str(), &dir_st) != 0 || !S_ISDIR(dir_st.st_mode) || !owned_privately(dir_st)) return;
  static std::atomic<unsigned> serial{0};
  const std::string final_path = dir_ + "/" + key;
  const std::string temp = final_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  {
    UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.get() < 0) return;
    if (!write_all(fd.get(), bytes)) {
      ::unlink(temp.c_str());
      return;
    }
  }
  if (::rename(temp.c_str(), final_path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return;
  }
  prune(dir_, kMaxEntries, key);
}

}  // namespace megatriage
