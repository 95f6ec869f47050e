// partial_report: a FileResult written to a partial report and read back is the same FileResult
// (what every later stage reads, test::signature, and every field the format writes), for real
// analyses of log text with tracebacks, a ChildFailedError table, facts and bytes that are not
// UTF-8, with the batch scripts beside the logs; unknown versions, other formats and unknown
// rules are refused or reported.
#include "app/partial_report.h"

#include <doctest/doctest.h>

#include <string>

#include "extract/extract.h"
#include "input/own_report.h"
#include "input/reader.h"
#include "support/repo_rules.h"
#include "support/result_signature.h"

namespace megatriage {
namespace {

FileResult analyze_text(const std::string& text, const std::string& path) {
  SourceFile file;
  file.path = file.display_path = path;
  file.size_bytes = text.size();
  file.mtime_us = 1796040000000000;
  file.sized = true;
  file.device = 7;
  file.inode = 42;
  file.hint.rank = 3;
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, path, diags);
  return analyze_source(file, *source, test::repo_matcher(), AnalyzeOptions{}, diags);
}

const char* kLog =
    "[2026-11-29 10:00:01] iteration        3/      12 | lm loss: 1.0E+01 |\n"
    "  tensor_model_parallel_size ...................... 8\n"
    "[rank3]: Traceback (most recent call last):\n"
    "[rank3]:   File \"/work/train.py\", line 20, in <module>\n"
    "[rank3]:     loss = model(x)\n"
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB \xff\xfe\n"
    "node7:123:456 [3] NCCL INFO NCCL version 2.18.1+cuda12.1\n"
    "[E1129 10:00:05.123456 ProcessGroupNCCL.cpp:1] [Rank 3] Watchdog caught collective operation timeout\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    "============================================================\n"
    "train.py FAILED\n"
    "------------------------------------------------------------\n"
    "Failures:\n"
    "  <NO_OTHER_FAILURES>\n"
    "------------------------------------------------------------\n"
    "Root Cause (first observed failure):\n"
    "[0]:\n"
    "  time      : 2026-11-29_10:00:06\n"
    "  host      : node7\n"
    "  rank      : 3 (local_rank: 3)\n"
    "  exitcode  : 1 (pid: 99)\n"
    "  error_file: <N/A>\n"
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
    "============================================================\n"
    "line with a cut character \xe2\x82\n";

PartialReport one_file(FileResult r) {
  PartialReport p;
  p.job_id = "25";
  p.host = "node7";
  p.nodes = {"node7", "node8"};
  p.rules_fingerprint = rules_fingerprint(test::repo_matcher());
  p.context_lines = 3;
  p.context.push_back({{2, "  tensor_model_parallel_size ...................... 8"}, {3, "not UTF-8: \xc3"}});
  p.diagnostics.push_back({Severity::Info, "discover.duplicate", "a message", "logs/x", 0, "", 1});
  p.scripts.push_back({"job.sbatch", "node7:job.sbatch", "#!/bin/bash\n# caf\xe9\nsrun train.py\n", {}});
  p.scripts.push_back({"empty.sbatch", "node7:empty.sbatch", std::nullopt,
                       {{Severity::Warning, "read.empty-file", "'node7:empty.sbatch' is empty", "node7:empty.sbatch", 0, "", 1}}});
  p.files.push_back(std::move(r));
  return p;
}

TEST_SUITE("partial_report") {
  TEST_CASE("partial_report: a real analysis round-trips exactly") {
    const FileResult r = analyze_text(kLog, "logs/\xe9t\xe9-3.err");
    REQUIRE(r.events.size() >= 3);
    const RuleMatcher& m = test::repo_matcher();
    const std::string json = partial_to_json(one_file(r), &m);
    PartialParse back = partial_from_json(json, m, "p.json");
    REQUIRE(back.partial);
    CHECK(back.error.empty());
    CHECK(back.diagnostics.empty());
    const PartialReport& p = *back.partial;
    REQUIRE(p.files.size() == 1);
    CHECK(test::signature(p.files[0]) == test::signature(r));
    // Every field the format holds, the file's identity included: written again, the same bytes.
    CHECK(partial_to_json(p, &m) == json);
    CHECK(p.files[0].file.display_path == r.file.display_path);
    CHECK(p.files[0].file.inode == 42);
    CHECK(p.files[0].file.hint.rank == 3);
    CHECK(p.context[0][1].text == "not UTF-8: \xc3");
    CHECK(p.host == "node7");
    CHECK(p.nodes == std::vector<std::string>{"node7", "node8"});
    CHECK(p.job_id == "25");
    // The scripts beside the logs, a text that is not UTF-8 and one that could not be read.
    REQUIRE(p.scripts.size() == 2);
    CHECK(p.scripts[0].path == "job.sbatch");
    CHECK(p.scripts[0].name == "node7:job.sbatch");
    CHECK(p.scripts[0].text == std::optional<std::string>("#!/bin/bash\n# caf\xe9\nsrun train.py\n"));
    CHECK_FALSE(p.scripts[1].text);
    REQUIRE(p.scripts[1].problems.size() == 1);
    CHECK(p.scripts[1].problems[0].code == "read.empty-file");
    // A partial report left among logs is one of our reports, not a log to read.
    CHECK(own_report_kind(json) == OwnReportKind::Json);
  }

  TEST_CASE("partial_report: other formats, other versions and damage are refused with a reason") {
    const RuleMatcher& m = test::repo_matcher();
    PartialParse not_ours = partial_from_json(R"({"schema_version": 2, "verdict": "failure"})", m, "r.json");
    CHECK_FALSE(not_ours.partial);
    CHECK(not_ours.error.find("not a megatriage partial report") != std::string::npos);
    PartialParse newer = partial_from_json(R"({"format": "megatriage-partial", "version": 99})", m, "n.json");
    CHECK_FALSE(newer.partial);
    CHECK(newer.error.find("version 99") != std::string::npos);
    // Version 1 carried no batch scripts: a merge of it could not be the one scan's report.
    PartialParse older = partial_from_json(R"({"format": "megatriage-partial", "version": 1, "files": []})", m, "o.json");
    CHECK_FALSE(older.partial);
    CHECK(older.error.find("write it again") != std::string::npos);
    std::string json = partial_to_json(one_file(analyze_text(kLog, "logs/a-3.err")), &m);
    PartialParse cut = partial_from_json(json.substr(0, json.size() / 2), m, "cut.json");
    CHECK_FALSE(cut.partial);
    CHECK(cut.error.find("cut.json") != std::string::npos);
  }

  TEST_CASE("partial_report: a rule these rules lack is left out and reported") {
    const RuleMatcher& m = test::repo_matcher();
    std::string json = partial_to_json(one_file(analyze_text(kLog, "logs/a-3.err")), &m);
    // The first rule id of the first event with matches becomes one no rule file has.
    const std::string key = "\"rules\":[\"";
    const std::size_t at = json.find(key);
    REQUIRE(at != std::string::npos);
    const std::size_t begin = at + key.size(), end = json.find('"', begin);
    json.replace(begin, end - begin, "site.gone");
    PartialParse back = partial_from_json(json, m, "p.json");
    REQUIRE(back.partial);
    REQUIRE(back.diagnostics.size() == 1);
    CHECK(back.diagnostics[0].code == "merge.unknown-rule");
    CHECK(back.diagnostics[0].message.find("site.gone") != std::string::npos);
  }
}

}  // namespace
}  // namespace megatriage
