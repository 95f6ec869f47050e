// Unit tests for rules_unusable_message (app/rules_lookup.h): a run without the built-in rules
// stops with a message naming every place looked at and the fix; a run with them goes on.
#include "app/rules_lookup.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "match/rules.h"

using namespace megatriage;

namespace {

// An empty directory of this test's own, removed at the end.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("megatriage-rules-lookup-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

std::string judge(const std::vector<std::string>& dirs) {
  DiagnosticSink diags;
  const std::size_t count = load_rules(dirs, diags).size();
  return rules_unusable_message(dirs, count, diags.items());
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Sets MEGATRIAGE_RULES_DIR for one scope, then puts back what was there.
struct RulesDirEnv {
  std::string saved;
  bool was_set;
  explicit RulesDirEnv(const std::string& value) {
    const char* old = std::getenv("MEGATRIAGE_RULES_DIR");
    was_set = old != nullptr;
    if (was_set) saved = old;
    ::setenv("MEGATRIAGE_RULES_DIR", value.c_str(), 1);
  }
  ~RulesDirEnv() {
    if (was_set) ::setenv("MEGATRIAGE_RULES_DIR", saved.c_str(), 1);
    else ::unsetenv("MEGATRIAGE_RULES_DIR");
  }
};

// Sets an environment variable for one scope (unset when `value` is null), then puts back what
// was there.
struct ScopedEnv {
  std::string name, saved;
  bool was_set;
  ScopedEnv(const char* var, const char* value) : name(var) {
    const char* old = std::getenv(var);
    was_set = old != nullptr;
    if (was_set) saved = old;
    if (value) ::setenv(var, value, 1);
    else ::unsetenv(var);
  }
  ~ScopedEnv() {
    if (was_set) ::setenv(name.c_str(), saved.c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_SUITE("rules_lookup") {
TEST_CASE("rules_lookup: the search path is built-in, site ($MEGATRIAGE_RULES_PATH), user, --rules") {
  TempDir site_a("site-a"), site_b("site-b"), empty("site-empty"), config("config");
  std::ofstream(site_a.path / "a.json") << "{}";
  std::ofstream(site_b.path / "b.json") << "{}";
  std::ofstream(empty.path / "notes.txt") << "no rule file here";
  std::filesystem::create_directories(config.path / "megatriage/rules");
  std::ofstream(config.path / "megatriage/rules/mine.json") << "{}";
  const std::string path = site_a.path.string() + ":/nonexistent/megatriage-site::" + empty.path.string() + ":" +
                           site_b.path.string();
  ScopedEnv rules_path("MEGATRIAGE_RULES_PATH", path.c_str());
  ScopedEnv xdg("XDG_CONFIG_HOME", config.path.c_str());
  const std::vector<std::string> dirs = rules_search_path({"/flag/one", "/flag/two"});
  // /etc/megatriage/rules.d comes between the built-in rules and the environment's when a
  // machine has one; this test does not write /etc.
  std::vector<std::string> want{default_rules_dir()};
  if (dirs.size() > 1 && dirs[1] == "/etc/megatriage/rules.d") want.push_back(dirs[1]);
  want.insert(want.end(), {site_a.path.string(), site_b.path.string(),
                           (config.path / "megatriage/rules").string(), "/flag/one", "/flag/two"});
  CHECK(dirs == want);
}

TEST_CASE("rules_lookup: without XDG_CONFIG_HOME the user's rules are under $HOME/.config") {
  TempDir home("home");
  std::filesystem::create_directories(home.path / ".config/megatriage/rules");
  std::ofstream(home.path / ".config/megatriage/rules/mine.json") << "{}";
  ScopedEnv rules_path("MEGATRIAGE_RULES_PATH", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", "relative/is/ignored");
  ScopedEnv home_env("HOME", home.path.c_str());
  const std::vector<std::string> dirs = rules_search_path({});
  REQUIRE(!dirs.empty());
  CHECK(dirs.back() == (home.path / ".config/megatriage/rules").string());
}

TEST_CASE("rules_lookup: the repository's rules are usable") {
  CHECK(judge({default_rules_dir()}).empty());
}

TEST_CASE("rules_lookup: a MEGATRIAGE_RULES_DIR that does not exist: where it looked, how to fix") {
  RulesDirEnv env("/nonexistent/megatriage-rules");
  const std::string msg = judge({default_rules_dir()});
  CHECK(msg.rfind("no rules loaded (/nonexistent/megatriage-rules: cannot read rules directory", 0) == 0);
  CHECK(has(msg, "looked for in: /nonexistent/megatriage-rules ($MEGATRIAGE_RULES_DIR)"));
  CHECK(has(msg, "fix: point MEGATRIAGE_RULES_DIR at megatriage's rules directory"));
}

TEST_CASE("rules_lookup: an empty built-in directory, even with --rules beside it") {
  const std::string repository_rules = default_rules_dir();  // stands in for a --rules directory
  TempDir empty("empty");
  RulesDirEnv env(empty.path.string());
  const std::string alone = judge({default_rules_dir()});
  CHECK(alone.rfind("no rules loaded (" + empty.path.string() + ": no *.json rule files)", 0) == 0);
  // --rules adds to the built-in rules: without them a run lacks what it needs.
  const std::string with_site = judge({default_rules_dir(), repository_rules});
  CHECK(with_site.rfind("the built-in rules were not found", 0) == 0);
}

TEST_CASE("rules_lookup: every rule file failing its checks loads no rule") {
  TempDir broken("broken");
  std::ofstream(broken.path / "broken.json") << "{\"rules\": [ {\"id\": \"x\"} ]}";
  RulesDirEnv env(broken.path.string());
  CHECK(has(judge({default_rules_dir()}), "no rules loaded: every rule file failed its checks"));
}

TEST_CASE("rules_lookup: without the environment, every place of the lookup is named") {
  const char* old = std::getenv("MEGATRIAGE_RULES_DIR");
  const std::string saved = old ? old : "";
  ::unsetenv("MEGATRIAGE_RULES_DIR");
  const std::vector<std::string> places = builtin_rules_dir_candidates();
  if (old) ::setenv("MEGATRIAGE_RULES_DIR", saved.c_str(), 1);
  REQUIRE(places.size() >= 2);
  CHECK(places.front().ends_with("share/megatriage/rules"));
}
}
