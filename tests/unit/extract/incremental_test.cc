// IncrementalAnalyzer (`watch`): bytes fed in pieces of any size give what one read of them
// gives — events, fields, facts and diagnostics — on every fixture log and on the fast-path
// tests' generated log; a snapshot equals one read of the lines complete so far. Plus the bugs
// of the second line loop it replaced (issue 16).
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "extract/extract.h"
#include "input/discover.h"
#include "input/reader.h"
#include "match/rules.h"
#include "support/generated_log.h"
#include "support/repo_rules.h"
#include "support/result_signature.h"

using namespace megatriage;

namespace {

using test::repo_matcher;
using test::signature;

const TriggerScanner& repo_triggers() {
  static DiagnosticSink diags;
  static std::unique_ptr<TriggerScanner> scanner = make_trigger_scanner(repo_matcher(), diags);
  REQUIRE(scanner != nullptr);
  return *scanner;
}

SourceFile test_file() {
  SourceFile file;
  file.path = file.display_path = "logs/x.err";
  return file;
}

FileResult one_read(const std::string& bytes, const AnalyzeOptions& options) {
  DiagnosticSink diags;
  auto source = memory_source(bytes, Compression::None, "logs/x.err", diags);
  return analyze_source(test_file(), *source, repo_matcher(), options, diags);
}

// Feeds `bytes` in pieces of the sizes `steps` gives, in turn, then ends the file.
FileResult fed_in_pieces(const std::string& bytes, const std::vector<std::size_t>& steps,
                         const AnalyzeOptions& options) {
  IncrementalAnalyzer inc(test_file(), repo_matcher(), options);
  std::size_t at = 0;
  for (std::size_t i = 0; at < bytes.size(); ++i) {
    std::size_t n = std::min(steps[i % steps.size()], bytes.size() - at);
    inc.feed(std::string_view(bytes).substr(at, n));
    at += n;
  }
  return inc.finish();
}

// The file's bytes as analysis sees them (decompressed).
std::string read_all(SourceFile file) {
  DiagnosticSink diags;
  std::unique_ptr<ByteSource> source = open_source(file, ReadLimits{}, diags);
  REQUIRE(source != nullptr);
  std::string bytes;
  char buffer[65536];
  for (std::size_t n; (n = source->read(buffer, sizeof buffer)) > 0;) bytes.append(buffer, n);
  return bytes;
}

void check_pieces_equal_one_read(const std::string& bytes, const std::string& what) {
  std::mt19937 random(static_cast<unsigned>(bytes.size()));
  std::vector<std::size_t> random_steps;
  for (int i = 0; i < 97; ++i) random_steps.push_back(1 + random() % 5000);
  const std::vector<std::vector<std::size_t>> splits = {{1}, {2}, {3}, {7}, {64}, {4096}, random_steps,
                                                         {bytes.size() + 1}};
  for (bool fast : {false, true}) {
    AnalyzeOptions options;
    if (fast) options.triggers = &repo_triggers();
    const std::string expected = signature(one_read(bytes, options));
    for (const auto& steps : splits) {
      INFO(what << ", steps of " << steps.front() << (steps.size() > 1 ? " (random)" : "")
                << (fast ? ", fast path" : ""));
      CHECK(signature(fed_in_pieces(bytes, steps, options)) == expected);
    }
  }
}

// Snapshots taken along the way equal one read of the complete lines fed so far.
void check_snapshots_equal_one_read(const std::string& bytes, const std::string& what) {
  AnalyzeOptions options;
  options.triggers = &repo_triggers();
  IncrementalAnalyzer inc(test_file(), repo_matcher(), options);
  const std::size_t step = std::max<std::size_t>(bytes.size() / 9, 1);
  for (std::size_t at = 0; at < bytes.size(); at += step) {
    inc.feed(std::string_view(bytes).substr(at, step));
    const std::size_t fed = std::min(bytes.size(), at + step);
    const std::size_t complete = bytes.rfind('\n', fed - 1);
    const std::string prefix = complete == std::string::npos ? "" : bytes.substr(0, complete + 1);
    INFO(what << ", after " << fed << " bytes");
    if (prefix.empty()) {
      CHECK(inc.snapshot().lines == 0);
      continue;
    }
    CHECK(signature(inc.snapshot()) == signature(one_read(prefix, options)));
  }
}

bool has_diagnostic(const FileResult& r, const std::string& code) {
  for (const auto& d : r.diagnostics)
    if (d.code == code) return true;
  return false;
}

}  // namespace

TEST_SUITE("incremental") {
TEST_CASE("incremental: every fixture log fed in pieces gives what one read gives") {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(MEGATRIAGE_SOURCE_FIXTURES_DIR)) {
    if (!fs::is_directory(entry.path() / "logs")) continue;
    DiagnosticSink diags;
    for (const SourceFile& file : discover_sources({(entry.path() / "logs").string()}, {}, diags)) {
      const std::string bytes = read_all(file);
      check_pieces_equal_one_read(bytes, file.path);
      check_snapshots_equal_one_read(bytes, file.path);
      ++files;
    }
  }
  CHECK(files >= 30);
}

TEST_CASE("incremental: the generated log fed in pieces gives what one read gives") {
  const std::string bytes = test::generated_log();
  REQUIRE(bytes.size() > 100000);
  check_pieces_equal_one_read(bytes, "generated");
  check_snapshots_equal_one_read(bytes, "generated");
  // It does exercise the extractors and the line rules.
  const FileResult r = fed_in_pieces(bytes, {7}, AnalyzeOptions{});
  CHECK(has_diagnostic(r, "split.nul-bytes"));
  CHECK(r.facts.size() >= 5);
  CHECK(r.events.size() >= 10);
}

TEST_CASE("incremental: an exception line ending in \\r\\r is classified, as in one read") {
  // The watcher's own line loop dropped the whole line: it cut at the last '\r' after removing
  // only one, leaving nothing.
  const std::string text =
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"/ws/t.py\", line 1, in f\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\r\r\n"
      "[rank0]: next\n";
  for (std::size_t step : {1u, 5u, 4096u}) {
    IncrementalAnalyzer inc(test_file(), repo_matcher(), AnalyzeOptions{});
    for (std::size_t i = 0; i < text.size(); i += step) inc.feed(std::string_view(text).substr(i, step));
    const FileResult r = inc.snapshot();
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].text == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB");
    REQUIRE_FALSE(r.events[0].matches.empty());
    const Rule& rule = repo_matcher().rules()[static_cast<std::size_t>(r.events[0].matches[0].rule_index)];
    CHECK(rule.id.rfind("cuda.oom", 0) == 0);
  }
}

TEST_CASE("incremental: NUL bytes are reported, in a snapshot and at the end") {
  std::string text = "line one\n" + std::string("with a NUL\0 inside\n", 19);
  text += std::string(5000, 'x') + "\n";  // past the head: the searcher is running
  text += std::string("another\0NUL\n", 12);
  IncrementalAnalyzer inc(test_file(), repo_matcher(), AnalyzeOptions{});
  inc.feed(text);
  FileResult snap = inc.snapshot();
  REQUIRE(has_diagnostic(snap, "split.nul-bytes"));
  for (const auto& d : snap.diagnostics)
    if (d.code == "split.nul-bytes") {
      CHECK(d.line == 2);
      CHECK(d.count == 2);
    }
  CHECK(has_diagnostic(inc.finish(), "split.nul-bytes"));
}

TEST_CASE("incremental: a binary file is reported and not read, at any size") {
  std::string bytes(6000, '\0');
  for (std::size_t i = 0; i < bytes.size(); i += 3) bytes[i] = static_cast<char>(1 + i % 29);
  for (std::size_t fed : {std::size_t{100}, bytes.size()}) {
    IncrementalAnalyzer inc(test_file(), repo_matcher(), AnalyzeOptions{});
    inc.feed(std::string(bytes.substr(0, fed)) + "\n");
    const FileResult snap = inc.snapshot();
    CHECK(snap.binary);
    CHECK(has_diagnostic(snap, "read.binary-file"));
    CHECK(snap.lines == 0);
    const FileResult end = inc.finish();
    CHECK(end.binary);
    CHECK(has_diagnostic(end, "read.binary-file"));
  }
}

TEST_CASE("incremental: an empty file is reported when it ends, not while it may grow") {
  IncrementalAnalyzer inc(test_file(), repo_matcher(), AnalyzeOptions{});
  CHECK(inc.snapshot().diagnostics.empty());
  CHECK(has_diagnostic(inc.finish(), "read.empty-file"));
}
}
