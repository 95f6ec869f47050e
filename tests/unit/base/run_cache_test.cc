// run_cache: entries keyed by content and this executable, private to their owner, bounded.
#include "base/run_cache.h"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace megatriage {
namespace {

namespace fs = std::filesystem;

struct CacheDir {
  fs::path path;
  explicit CacheDir(const std::string& name) {
    path = fs::temp_directory_path() / ("megatriage-cache-test-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(path);
  }
  ~CacheDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::size_t entries() const {
    std::size_t n = 0;
    std::error_code ec;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
  }
};

}  // namespace

TEST_SUITE("run_cache") {

TEST_CASE("run_cache: keys name the kind and differ with the kind and the content") {
  CacheDir dir("keys");
  RunCache cache(dir.path.string());
  REQUIRE(cache.enabled());
  const std::string k = cache.key("rules-checked", "abc");
  CHECK(k.rfind("rules-checked-", 0) == 0);
  CHECK(k.size() == std::string("rules-checked-").size() + 32);
  CHECK(k == cache.key("rules-checked", "abc"));
  CHECK(k != cache.key("rules-checked", "abd"));
  CHECK(k.substr(14) != cache.key("triggers", "abc").substr(9));
  // The kind and the content are separated: moving a byte across the border changes the key.
  CHECK(cache.key("a", "bc").substr(2) != cache.key("ab", "c").substr(3));
}

TEST_CASE("run_cache: a change of any one byte, or of the length, changes both halves of a key") {
  CacheDir dir("bytes");
  RunCache cache(dir.path.string());
  std::string text;
  for (int i = 0; i < 1003; ++i) text += static_cast<char>('a' + i % 26);  // not a whole number of words
  const std::string k = cache.key("x", text);
  for (std::size_t at = 0; at < text.size(); ++at) {
    std::string changed = text;
    changed[at] = static_cast<char>(changed[at] ^ 1);
    const std::string c = cache.key("x", changed);
    CHECK(c.substr(2, 16) != k.substr(2, 16));
    CHECK(c.substr(18) != k.substr(18));
  }
  CHECK(cache.key("x", text + std::string(1, '\0')) != k);
  CHECK(cache.key("x", text.substr(0, 1000)) != cache.key("x", text.substr(0, 1000) + std::string(3, '\0')));
}

TEST_CASE("run_cache: put then get returns the bytes; a missing entry is a miss") {
  CacheDir dir("roundtrip");
  RunCache cache(dir.path.string());
  const std::string key = cache.key("triggers", "x");
  CHECK_FALSE(cache.get(key).has_value());
  const std::string bytes("a\0b\nc", 5);
  cache.put(key, bytes);
  REQUIRE(cache.get(key).has_value());
  CHECK(*cache.get(key) == bytes);
  CHECK_FALSE(cache.get(key, 4).has_value());  // larger than asked for: ignored
  // The directory is private.
  struct stat st {};
  REQUIRE(::stat(dir.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  // Overwriting replaces.
  cache.put(key, "new");
  CHECK(*cache.get(key) == "new");
}

TEST_CASE("run_cache: entries others could have written are not read") {
  CacheDir dir("private");
  RunCache cache(dir.path.string());
  const std::string key = cache.key("rules-checked", "t");
  cache.put(key, "ok\n");
  REQUIRE(cache.get(key).has_value());
  ::chmod((dir.path / key).c_str(), 0666);
  CHECK_FALSE(cache.get(key).has_value());
  ::chmod((dir.path / key).c_str(), 0600);
  REQUIRE(cache.get(key).has_value());
  ::chmod(dir.path.c_str(), 0777);
  CHECK_FALSE(cache.get(key).has_value());
  // Nor is such a directory written to, or made private behind its owner's back.
  const std::string other = cache.key("rules-checked", "other");
  cache.put(other, "ok\n");
  CHECK_FALSE(std::filesystem::exists(dir.path / other));
  struct stat st {};
  REQUIRE(::stat(dir.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0777);
  ::chmod(dir.path.c_str(), 0700);
  // A symlink in place of an entry is not followed.
  std::ofstream(dir.path / "target") << "ok\n";
  ::chmod((dir.path / "target").c_str(), 0600);
  const std::string link_key = cache.key("rules-checked", "link");
  fs::create_symlink(dir.path / "target", dir.path / link_key);
  CHECK_FALSE(cache.get(link_key).has_value());
}

TEST_CASE("run_cache: a disabled or unwritable cache misses and stores nothing") {
  RunCache off;
  CHECK_FALSE(off.enabled());
  off.put(off.key("triggers", "x"), "bytes");
  CHECK_FALSE(off.get(off.key("triggers", "x")).has_value());

  RunCache empty{std::string()};
  CHECK_FALSE(empty.enabled());

  // A path below a regular file cannot be created: put fails quietly.
  CacheDir dir("blocked");
  fs::create_directories(dir.path);
  std::ofstream(dir.path / "file") << "x";
  RunCache blocked((dir.path / "file" / "cache").string());
  REQUIRE(blocked.enabled());
  blocked.put(blocked.key("triggers", "x"), "bytes");
  CHECK_FALSE(blocked.get(blocked.key("triggers", "x")).has_value());
}

TEST_CASE("run_cache: at most kMaxEntries entries are kept") {
  CacheDir dir("prune");
  RunCache cache(dir.path.string());
  for (std::size_t i = 0; i < RunCache::kMaxEntries + 5; ++i)
    cache.put(cache.key("rules-checked", std::to_string(i)), "ok\n");
  CHECK(dir.entries() == RunCache::kMaxEntries);
  // The newest is among them.
  CHECK(cache.get(cache.key("rules-checked", std::to_string(RunCache::kMaxEntries + 4))).has_value());
}

}  // TEST_SUITE
}  // namespace megatriage
