// The flags several subcommands share: parsed values, ranges, the usage exit code and colour.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/exit_codes.h"
#include "cli/shared_flags.h"
#include "extract/extract.h"

using namespace megatriage;

namespace {

// Parses `args` (without the program name) into `app`; returns parse_flags' answer.
std::optional<int> parse(CLI::App& app, std::vector<std::string> args) {
  args.insert(args.begin(), "megatriage");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_flags(app, static_cast<int>(argv.size()), argv.data());
}

// Sets or clears NO_COLOR for one scope.
struct NoColor {
  explicit NoColor(const char* value) {
    if (const char* old = std::getenv("NO_COLOR")) saved = old;
    if (value) {
      ::setenv("NO_COLOR", value, 1);
    } else {
      ::unsetenv("NO_COLOR");
    }
  }
  ~NoColor() {
    if (saved) {
      ::setenv("NO_COLOR", saved->c_str(), 1);
    } else {
      ::unsetenv("NO_COLOR");
    }
  }
  std::optional<std::string> saved;
};

}  // namespace

TEST_SUITE("shared_flags") {
TEST_CASE("shared_flags: the limits are parsed into the analysis options") {
  CLI::App app;
  AnalyzeOptions limits;
  add_limit_flags(app, limits);
  CHECK_FALSE(parse(app, {"--max-decompressed-bytes", "1000", "--max-line-bytes", "64", "--max-frames", "0",
                          "--max-message-bytes", "32"}));
  CHECK(limits.read.max_decompressed_bytes == 1000);
  CHECK(limits.split.max_line_bytes == 64);
  CHECK(limits.traceback.max_frames == 0);
  CHECK(limits.traceback.max_text_bytes == 32);
}

TEST_CASE("shared_flags: a value out of its range is a usage error") {
  for (const char* bad : {"--max-line-bytes=15", "--max-message-bytes=15", "--max-decompressed-bytes=0",
                          "--max-frames=-1", "--jobs=0", "--jobs=1025"}) {
    CAPTURE(bad);
    CLI::App app;
    AnalyzeOptions limits;
    unsigned jobs = 0;
    add_limit_flags(app, limits);
    add_jobs_flag(app, jobs);
    CHECK(parse(app, {bad}) == kExitUsage);
  }
}

TEST_CASE("shared_flags: --format takes text or json only") {
  CLI::App app;
  std::string format = "text";
  add_format_flag(app, format);
  CHECK_FALSE(parse(app, {"--format", "json"}));
  CHECK(format == "json");
  CLI::App strict;
  add_format_flag(strict, format);
  CHECK(parse(strict, {"--format", "yaml"}) == kExitUsage);
}

TEST_CASE("shared_flags: --rules without extra arguments leaves the next word a path") {
  CLI::App app;
  std::vector<std::string> dirs, paths;
  app.add_option("paths", paths);
  add_rules_flag(app, dirs, kRulesFlagHelp, false);
  CHECK_FALSE(parse(app, {"--rules", "site", "logs", "--rules", "more"}));
  CHECK(dirs == std::vector<std::string>{"site", "more"});
  CHECK(paths == std::vector<std::string>{"logs"});
}

TEST_CASE("shared_flags: --rules with extra arguments takes the words after it") {
  CLI::App app;
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, true);
  CHECK_FALSE(parse(app, {"--rules", "a", "b"}));
  CHECK(dirs == std::vector<std::string>{"a", "b"});
}

TEST_CASE("shared_flags: -o, -j and --color are parsed") {
  CLI::App app;
  std::string output, color = "auto";
  unsigned jobs = 0;
  add_output_flag(app, output);
  add_jobs_flag(app, jobs);
  add_color_flag(app, color);
  CHECK_FALSE(parse(app, {"-o", "r.json", "-j", "3", "--color", "never"}));
  CHECK(output == "r.json");
  CHECK(jobs == 3);
  CHECK(color == "never");
  CLI::App strict;
  add_color_flag(strict, color);
  CHECK(parse(strict, {"--color", "sometimes"}) == kExitUsage);
}

TEST_CASE("shared_flags: --help stops the command with exit code 0") {
  CLI::App app{"test", "megatriage"};
  CHECK(parse(app, {"--help"}) == kExitNoFailure);
}

TEST_CASE("shared_flags: colour follows the mode, the terminal and NO_COLOR") {
  {
    NoColor unset(nullptr);
    CHECK(wants_color("auto", true));
    CHECK_FALSE(wants_color("auto", false));
    CHECK(wants_color("always", false));
    CHECK_FALSE(wants_color("never", true));
  }
  {
    NoColor set("1");
    CHECK_FALSE(wants_color("auto", true));
    CHECK(wants_color("always", true));
  }
  {
    NoColor empty("");  // an empty NO_COLOR does not count (no-color.org)
    CHECK(wants_color("auto", true));
  }
}
}  // TEST_SUITE

namespace {
std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST_CASE("shared_flags: a report written in pieces replaces a longer old one; an unopened file fails") {
  const std::string path =
      (std::filesystem::temp_directory_path() / "megatriage-report-output-test.json").string();
  {
    std::ofstream old(path, std::ios::binary);
    old << std::string(1000, 'x');
  }
  {
    ReportOutput out(path, "megatriage");
    CHECK(out.write("{\"a\": "));
    CHECK(out.write("1}\n"));
    CHECK(out.finish());
  }
  CHECK(file_text(path) == "{\"a\": 1}\n");

  // Left without finish() (rendering threw): cut to what was written, no old tail after it.
  {
    std::ofstream old(path, std::ios::binary);
    old << std::string(1000, 'x');
  }
  {
    ReportOutput out(path, "megatriage");
    CHECK(out.write("{\"part"));
  }
  CHECK(file_text(path) == "{\"part");
  std::filesystem::remove(path);

  ReportOutput nowhere("/nonexistent-megatriage-dir/r.json", "megatriage");
  CHECK_FALSE(nowhere.write("{}"));
  CHECK_FALSE(nowhere.finish());
}
