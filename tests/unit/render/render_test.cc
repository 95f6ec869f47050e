#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "render/render.h"

using namespace megatriage;

namespace {
Report sample_report() {
  Report r;
  r.verdict = Verdict::Failure;
  RootCauseReport rc;
  rc.category = Category::Unknown;
  rc.rule = "python.unclassified-exception";
  rc.title = "t";
  rc.file = "logs/x.err";
  rc.line = 7;
  rc.rank = 3;
  rc.exception = "ValueError: bad \xff byte \x1b]0;title\x07 and \x1b[2J clear \x07 bell";
  rc.frames.push_back(Frame{"/ws/\xfe.py", 1, "f", "x = 1"});
  rc.checks.push_back(CheckResult{"world_size_product", "WORLD_SIZE", CheckStatus::Failed, "16 != 32", false});
  rc.time_basis = TimeBasis::None;
  r.root_cause = rc;
  r.diagnostics.push_back(Diagnostic{Severity::Warning, "read.corrupt-gzip", "bad \x1b[31m", "logs/a.gz", 0, "", 1});
  return r;
}
}  // namespace

TEST_SUITE("render") {
TEST_CASE("render: JSON stays valid UTF-8 with escapes and invalid bytes in log text") {
  std::string out = render_json(sample_report());
  nlohmann::json doc;
  CHECK_NOTHROW(doc = nlohmann::json::parse(out));
  CHECK(doc["schema_version"] == 2);
  CHECK(doc["root_cause"]["rank"] == 3);
  CHECK(doc["root_cause"]["local_rank"].is_null());
  CHECK(doc["root_cause"]["checks"][0]["status"] == "failed");
  std::string exc = doc["root_cause"]["exception"];
  CHECK(exc.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD for the invalid byte
  CHECK(out.find("\\u001b") != std::string::npos);        // ESC escaped, never raw
  CHECK(out.find('\x1b') == std::string::npos);
}

TEST_CASE("render: the directly written arrays have the library's exact layout and values") {
  // `files` and `diagnostics` are written without the JSON library; the rest is its dump(2).
  // Parsing the report and dumping it again must give the same bytes, and the same values.
  Report r = sample_report();
  r.files.push_back(FileSummary{"logs/plain.err", "none", 10, 10, 2, 1, 0, -1, 4, false});
  r.files.push_back(FileSummary{"logs/q\"uote\\back\tslash\x01\x7f.err", "gzip", 1, 2, 3, 4, -1, 7, -1, true});
  r.files.push_back(FileSummary{"logs/\xff\xfe-caf\xc3\xa9.err", "zstd", 0, 0, 0, 0, 12, 3, 2, false});
  r.files.push_back(FileSummary{"", "none", 18446744073709551615ull, 0, 0, 0, -1, -1, -1, false});
  r.diagnostics.push_back(Diagnostic{Severity::Info, "x.y", "line\nbreak \"q\"", "", 12, "do \\ this", 3});
  r.diagnostics.push_back(Diagnostic{Severity::Error, "a.b", "m", "p", 0, "", 1});
  for (int with_files = 0; with_files < 2; ++with_files) {
    Report case_report = r;
    if (!with_files) {
      case_report.files.clear();
      case_report.diagnostics.clear();
    }
    const std::string out = render_json(case_report);
    nlohmann::ordered_json doc;
    REQUIRE_NOTHROW(doc = nlohmann::ordered_json::parse(out));
    CHECK(doc.dump(2, ' ', false) + "\n" == out);
    if (!with_files) {
      CHECK(doc["files"].empty());
      CHECK(out.find("\"files\": []") != std::string::npos);
      continue;
    }
    REQUIRE(doc["files"].size() == 4);
    CHECK(doc["files"][0]["path"] == "logs/plain.err");
    CHECK(doc["files"][0]["rank"] == 0);
    CHECK(doc["files"][0]["local_rank"].is_null());
    CHECK(doc["files"][0]["task"] == 4);
    CHECK(doc["files"][1]["path"] == "logs/q\"uote\\back\tslash\x01\x7f.err");
    CHECK(doc["files"][1]["skipped"] == true);
    CHECK(doc["files"][2]["path"] == "logs/\xef\xbf\xbd\xef\xbf\xbd-caf\xc3\xa9.err");
    CHECK(doc["files"][3]["size_bytes"] == 18446744073709551615ull);
    REQUIRE(doc["diagnostics"].size() == 3);
    CHECK(doc["diagnostics"][1]["message"] == "line\nbreak \"q\"");
    CHECK(doc["diagnostics"][1]["path"].is_null());
    CHECK(doc["diagnostics"][1]["line"] == 12);
    CHECK(doc["diagnostics"][1]["count"] == 3);
    CHECK(doc["diagnostics"][2]["line"].is_null());
    CHECK(doc["diagnostics"][2]["hint"].is_null());
    CHECK(doc["diagnostics"][2]["severity"] == "error");
  }
}

TEST_CASE("render: a files array of many kilobytes is written whole, in the library's layout") {
  // The array is written through a cursor that grows the text 64 KiB at a time: thousands of
  // entries, plain and escaped paths mixed, cross that boundary many times.
  Report r = sample_report();
  for (int i = 0; i < 3000; ++i) {
    std::string path = "logs/node" + std::to_string(i % 97) + "/rank-" + std::to_string(i) + ".err";
    if (i % 7 == 0) path += "\t\"q\"";
    if (i % 11 == 0) path += "\xff";
    if (i % 13 == 0) path.append(static_cast<std::size_t>(i % 300), 'x');
    r.files.push_back(FileSummary{path, i % 2 ? "gzip" : "none", static_cast<std::uint64_t>(i) * 1000003u,
                                  static_cast<std::uint64_t>(i), 0, static_cast<std::uint64_t>(i % 5),
                                  i % 3 ? i : -1, i % 8, -1, i % 5 == 0});
  }
  const std::string out = render_json(r);
  nlohmann::ordered_json doc;
  REQUIRE_NOTHROW(doc = nlohmann::ordered_json::parse(out));
  CHECK(doc.dump(2, ' ', false) + "\n" == out);
  REQUIRE(doc["files"].size() == 3000);
  CHECK(doc["files"][2999]["path"] == "logs/node89/rank-2999.err");
  CHECK(doc["files"][2998]["size_bytes"] == 2998u * 1000003u);
}

TEST_CASE("render: streamed JSON is the same text in pieces of 256 KiB or more; a failed write ends them") {
  Report r = sample_report();
  for (int i = 0; i < 6000; ++i)
    r.files.push_back(FileSummary{"logs/torchrun/node" + std::to_string(i / 8) + "/attempt_0/" +
                                      std::to_string(i % 8) +
                                      (i % 9 == 0 ? "/std\"err\".log" : "/stderr.log"),
                                  "none", 7087, 7087, 54, 9, i, i % 8, -1, false});
  const std::string whole = render_json(r);
  std::vector<std::string> pieces;
  CHECK(render_json_streamed(r, [&](std::string_view piece) {
    pieces.emplace_back(piece);
    return true;
  }));
  std::string joined;
  for (const std::string& p : pieces) joined += p;
  CHECK(joined == whole);
  REQUIRE(pieces.size() >= 4);  // ~1.9 MB
  for (std::size_t k = 0; k + 1 < pieces.size(); ++k) CHECK(pieces[k].size() >= (256u << 10));

  int offered = 0;
  CHECK_FALSE(render_json_streamed(r, [&](std::string_view) { return ++offered < 2; }));
  CHECK(offered == 2);
}

TEST_CASE("render: the symptom groups, written directly, have the library's exact layout and values") {
  // Their rank lists hold thousands of numbers on a big job; hosts, titles and rule ids go in
  // unrepaired (the library's replacement decides), examples and file names repaired.
  Report r = sample_report();
  SymptomGroup empty;
  empty.rule = "nccl.watchdog-timeout";
  empty.title = "NCCL watchdog \"timeout\" \xe2\x80\x94 \xff";
  empty.example = "";
  r.symptoms.push_back(empty);
  SymptomGroup big;
  big.rule = "python.unclassified-exception";
  big.title = "t";
  big.category = Category::Nccl;
  big.role = RuleRole::Teardown;
  big.count = 18446744073709551615ull;
  for (int rank = 0; rank < 5000; ++rank) big.ranks.push_back(rank * 3);
  big.ranks.push_back(-2);
  big.hosts = {"node001", "node\t\"q\"", "n\xc3\xa9", "bad\xfe"};
  big.first_us = 1764496800123456;
  big.last_us = 1764496860000000;
  big.example = "RuntimeError: \x1b[31mred\x1b[0m \xff and \\ slash";
  big.first_file = "logs/\xfe.err";
  big.first_line = 123456789012ull;
  big.same_as_root = true;
  for (std::int64_t delay : {std::int64_t{600000000}, std::int64_t{1}, std::int64_t{-1500000}, std::int64_t{1234567}}) {
    CAPTURE(delay);
    big.delay_us = delay;
    Report case_report = r;
    case_report.symptoms.push_back(big);
    const std::string out = render_json(case_report);
    nlohmann::ordered_json doc;
    REQUIRE_NOTHROW(doc = nlohmann::ordered_json::parse(out));
    CHECK(doc.dump(2, ' ', false) + "\n" == out);
    REQUIRE(doc["symptoms"].size() == 2);
    const auto& e = doc["symptoms"][0];
    CHECK(e["ranks"].empty());
    CHECK(e["hosts"].empty());
    CHECK(e["first_time"].is_null());
    CHECK(e["delay_seconds"].is_null());
    CHECK(e["count"] == 0);
    CHECK(e["same_as_root"] == false);
    CHECK(e["title"] == "NCCL watchdog \"timeout\" \xe2\x80\x94 \xef\xbf\xbd");
    const auto& g = doc["symptoms"][1];
    CHECK(g["category"] == "nccl");
    CHECK(g["role"] == "teardown");
    CHECK(g["count"] == 18446744073709551615ull);
    REQUIRE(g["ranks"].size() == 5001);
    CHECK(g["ranks"][4999] == 14997);
    CHECK(g["ranks"][5000] == -2);
    CHECK(g["hosts"][1] == "node\t\"q\"");
    CHECK(g["hosts"][3] == "bad\xef\xbf\xbd");
    CHECK(g["delay_seconds"] == static_cast<double>(delay) / 1e6);
    CHECK(g["first_time"].is_string());
    CHECK(g["last_time"].is_string());
    CHECK(g["first_time"] != g["last_time"]);
    CHECK(g["example"].get<std::string>().find("\\ slash") != std::string::npos);
    CHECK(g["first_file"] == "logs/\xef\xbf\xbd.err");
    CHECK(g["first_line"] == 123456789012ull);
    CHECK(g["same_as_root"] == true);
  }
}

TEST_CASE("render: text report lets no escape sequence or control byte through") {
  TextStyle style;
  style.color = false;
  std::string out = render_text(sample_report(), style);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find('\x07') == std::string::npos);
  CHECK(out.find("ValueError: bad") != std::string::npos);
  CHECK(out.find("FAILED") != std::string::npos);
}

TEST_CASE("render: no failure report says so first") {
  Report r;
  r.verdict = Verdict::NoFailure;
  TextStyle style;
  CHECK(render_text(r, style).rfind("megatriage: no failure found", 0) == 0);
  CHECK(nlohmann::json::parse(render_json(r))["root_cause"].is_null());
}

TEST_CASE("render: long lines wrap at the width, at spaces only") {
  Report r = sample_report();
  // A word longer than the width (a path, a URL) stays whole on a line of its own.
  const std::string path = "/very/long/" + std::string(200, 'a') + "/file.py:12";
  r.root_cause->exception = std::string(50, 'b') + " " + path + " " + std::string(50, 'c') + " tail";
  TextStyle style;
  style.width = 100;
  std::string out = render_text(r, style);
  CHECK(out.find(path) != std::string::npos);
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string_view line(out.data() + start, end - start);
    if (line.find(path) == std::string_view::npos) {
      CHECK(line.size() <= 100);
    } else {
      CHECK(line.substr(line.find_first_not_of(' ')) == path);
    }
    start = end + 1;
  }
}
}

TEST_CASE("progress: the line names files, gigabytes, rate and time left") {
  CHECK(megatriage::progress_text(3, 10, 500000000, 2000000000, 1.0) ==
        "megatriage: 3/10 files, 0.50/2.00 GB, 0.50 GB/s, ETA 3 s");
  CHECK(megatriage::progress_text(0, 10, 0, 2000000000, 0.5) ==
        "megatriage: 0/10 files, 0.00/2.00 GB, 0.00 GB/s, ETA --");
  CHECK(megatriage::progress_text(1, 2, 1000000000, 200000000000, 10.0) ==
        "megatriage: 1/2 files, 1.00/200.00 GB, 0.10 GB/s, ETA 33 min");
  // Counters can overtake the on-disk total (a file that grew): never a negative ETA.
  CHECK(megatriage::progress_text(2, 2, 3000000000, 2000000000, 1.0) ==
        "megatriage: 2/2 files, 2.00/2.00 GB, 2.00 GB/s, ETA 0 s");
}

TEST_SUITE("render") {
TEST_CASE("render: enum fields appear in JSON and text under their names") {
  Report r = sample_report();
  RootCauseReport& rc = *r.root_cause;
  rc.category = Category::Nccl;
  rc.evidence = Evidence::Traceback;
  rc.time_basis = TimeBasis::Bounded;
  rc.before_us = 1000000;
  rc.confidence = Confidence::Medium;
  rc.basis = Basis::NcclFallback;
  rc.checks.push_back(CheckResult{"p", "passes", CheckStatus::Passed, "fine", false});
  rc.checks.push_back(advice_check("read the frames", "runbook"));
  SymptomGroup g;
  g.rule = "nccl.watchdog-timeout";
  g.title = "Watchdog";
  g.category = Category::Nccl;
  g.role = RuleRole::Teardown;
  g.count = 2;
  r.symptoms.push_back(g);

  const nlohmann::json doc = nlohmann::json::parse(render_json(r));
  CHECK(doc["verdict"] == "failure");
  CHECK(doc["root_cause"]["category"] == "nccl");
  CHECK(doc["root_cause"]["evidence"] == "traceback");
  CHECK(doc["root_cause"]["time_basis"] == "bounded");
  CHECK(doc["root_cause"]["confidence"] == "medium");
  CHECK(doc["root_cause"]["basis"] == "nccl-fallback");
  CHECK(doc["root_cause"]["checks"][1]["status"] == "passed");
  CHECK(doc["root_cause"]["checks"][2]["id"] == "advice");
  CHECK(doc["root_cause"]["checks"][2]["status"] == "unknown");
  CHECK(doc["symptoms"][0]["category"] == "nccl");
  CHECK(doc["symptoms"][0]["role"] == "teardown");

  TextStyle style;
  style.color = false;
  const std::string text = render_text(r, style);
  CHECK(text.rfind("megatriage: FAILURE — NCCL\n", 0) == 0);
  CHECK(text.find("[nccl · python.unclassified-exception · confidence medium]") != std::string::npos);
  CHECK(text.find("time: before ") != std::string::npos);
  CHECK(text.find("[nccl.watchdog-timeout, teardown]") != std::string::npos);
  CHECK(text.find("passed passes: fine") != std::string::npos);
  CHECK(text.find("1. read the frames") != std::string::npos);  // advice is numbered, not marked
}

TEST_CASE("render: a SLURM-decided root cause keeps an empty basis") {
  Report r = sample_report();
  r.root_cause->basis = Basis::External;
  r.root_cause->evidence = Evidence::Sacct;
  const nlohmann::json doc = nlohmann::json::parse(render_json(r));
  CHECK(doc["root_cause"]["basis"] == "");
  CHECK(doc["root_cause"]["evidence"] == "sacct");
}

TEST_CASE("render: diagnostics fold by code, info ones only with verbose") {
  Report r = sample_report();
  r.diagnostics.clear();
  for (int i = 0; i < 512; ++i)
    r.diagnostics.push_back(Diagnostic{Severity::Warning, "timeline.year-from-mtime", "took 2026 from the mtime",
                                       "logs/r" + std::to_string(i) + ".err", 0, "", 1});
  r.diagnostics.push_back(Diagnostic{Severity::Info, "read.empty-file", "file is empty", "logs/t0.out", 0, "", 1});
  TextStyle style;
  style.width = 100000;  // one line per diagnostic, to find it whole
  std::string out = render_text(r, style);
  CHECK(out.find("warning timeline.year-from-mtime 512 files: took 2026 from the mtime — e.g. logs/r0.err, "
                 "logs/r1.err, logs/r2.err and 509 more") != std::string::npos);
  CHECK(out.find("logs/r3.err") == std::string::npos);
  CHECK(out.find("read.empty-file") == std::string::npos);
  CHECK(out.find("1 info not shown, -v shows them") != std::string::npos);
  style.verbose = true;
  out = render_text(r, style);
  CHECK(out.find("logs/r511.err") != std::string::npos);
  CHECK(out.find("info read.empty-file logs/t0.out: file is empty") != std::string::npos);
}

TEST_CASE("render: ASCII glyphs when the locale is not UTF-8") {
  Report r = sample_report();
  r.root_cause->failure_name = "ValueError";
  r.root_cause->headline = "a \u2192 b";
  TextStyle style;
  style.ascii = true;
  std::string out = render_text(r, style);
  CHECK(out.rfind("megatriage: FAILURE - ValueError\n", 0) == 0);
  CHECK(out.find("a -> b") != std::string::npos);
  for (const char* glyph : {"\u2014", "\u00b7", "\u00d7", "\u2192"}) CHECK(out.find(glyph) == std::string::npos);
  CHECK(out.find("[unknown | python.unclassified-exception") != std::string::npos);
}

TEST_CASE("render: the context lines are numbered, the root's marked, escapes removed") {
  Report r = sample_report();
  r.root_cause->line = 10;
  r.root_cause->context = {{9, "before"}, {10, "Traceback \x1b[31mred"}, {11, "after"}};
  std::string out = render_text(r, TextStyle{});
  CHECK(out.find("     9 | before\n") != std::string::npos);
  CHECK(out.find("  > 10 | Traceback red\n") != std::string::npos);
  CHECK(out.find("    11 | after\n") != std::string::npos);
}

TEST_CASE("render: the same failure on every rank is one line, not a symptom group") {
  Report r = sample_report();
  r.root_cause->same_failure_ranks = {0, 1, 2, 3};
  r.root_cause->every_rank = true;
  SymptomGroup g;
  g.rule = r.root_cause->rule;
  g.title = "same";
  g.role = RuleRole::Cause;
  g.count = 3;
  g.ranks = {0, 1, 2};
  g.same_as_root = true;
  r.symptoms.push_back(g);
  std::string out = render_text(r, TextStyle{});
  CHECK(out.find("all 4 ranks failed the same way: ranks 0-3") != std::string::npos);
  CHECK(out.find("What followed") == std::string::npos);
}

TEST_CASE("render: a symptom group names up to three hosts and counts more") {
  Report r = sample_report();
  SymptomGroup g;
  g.rule = "host.srun-oom";
  g.title = "srun reports a task out of memory";
  g.count = 1;
  g.hosts = {"node2"};
  r.symptoms.push_back(g);
  g.rule = "nccl.x";
  g.hosts = {"a", "b", "c", "d"};
  r.symptoms.push_back(g);
  g.rule = "nccl.y";
  g.hosts = {"e", "f"};
  r.symptoms.push_back(g);
  g.rule = "nccl.z";
  g.hosts = {};  // no host known: nothing said
  r.symptoms.push_back(g);
  TextStyle style;
  style.width = 1000;
  std::string out = render_text(r, style);
  CHECK(out.find("1×, host node2") != std::string::npos);
  CHECK(out.find("1×, 4 hosts") != std::string::npos);
  CHECK(out.find("1×, hosts e, f") != std::string::npos);
  CHECK(out.find("hosts ,") == std::string::npos);
}
}

TEST_CASE("render: the job picked from a shared folder is said under the verdict, not among diagnostics") {
  Report r = sample_report();
  r.diagnostics.push_back({Severity::Warning, "discover.several-jobs",
                           "'logs' holds 5 jobs; this is job 25, the newest; others: 20 19 16 15", "", 0,
                           "use --job ID for another job", 1});
  TextStyle style;
  std::string out = render_text(r, style);
  const std::size_t line3 = out.find('\n', out.find('\n') + 1) + 1;
  CHECK(out.compare(line3, 16, "'logs' holds 5 j") == 0);
  CHECK(out.find("discover.several-jobs") == std::string::npos);
  Report none;
  none.diagnostics = {r.diagnostics.back()};
  out = render_text(none, style);
  CHECK(out.find("holds 5 jobs") < out.find("file(s) read"));
  CHECK(out.find("Diagnostics") == std::string::npos);
}
