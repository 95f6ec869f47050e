// triage: building the report from many files gives the same bytes on any number of threads.
// The fixtures are too small for the report stage to spread its work over threads, so this
// job is generated: enough files and events that --jobs 2 and 3 take the parallel paths.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/triage.h"
#include "input/reader.h"
#include "render/render.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

using test::repo_matcher;

FileResult analyze_text(const std::string& text, FileId id, const std::string& name, int local_rank) {
  SourceFile file;
  file.id = id;
  file.path = file.display_path = name;
  file.size_bytes = text.size();
  file.mtime_us = 1795000000000000LL;  // late 2026: the year when no line prints one
  file.hint.local_rank = local_rank;
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, name, diags);
  return analyze_source(file, *source, repo_matcher(), AnalyzeOptions{}, diags);
}

// A 1,024-rank job: rank 517 runs out of memory, the others time out in the watchdog and print
// the communicator-aborted traceback (year-less c10 stamps, a traceback emitted when it ends),
// agents print a stamped line with the year (unless `with_year` is false: then the year comes
// from the files' mtime), a few files are empty, and one file's stamps are hours off.
std::vector<FileResult> make_job(bool with_year) {
  std::vector<FileResult> files;
  auto add = [&](const std::string& text, const std::string& name, int local_rank) {
    files.push_back(analyze_text(text, static_cast<FileId>(files.size()), name, local_rank));
  };
  for (int node = 0; node < 128; ++node) {
    const std::string dir = "logs/node" + std::to_string(100 + node) + "/";
    std::string agent;
    if (with_year) agent += "[2026-11-29 15:00:00.000000] iteration 1/ 20 | consumed samples: 8\n";
    agent += "E1129 15:10:30.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed "
             "(exitcode: 1) local_rank: 0 (pid: 9) of binary: python3\n";
    add(agent, dir + "agent.err", -1);
    for (int local = 0; local < 8; ++local) {
      const int rank = node * 8 + local;
      const std::string r = std::to_string(rank);
      const std::string hour = rank == 618 ? "21" : "15";  // rank 618 from another run
      std::string text;
      if (rank == 517) {
        text = "[rank517]:[W1129 15:00:00.000000000 x.cpp:1] step\n"
               "[rank517]: Traceback (most recent call last):\n"
               "[rank517]:   File \"/ws/train.py\", line 9, in step\n"
               "[rank517]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
               "GPU 5 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"
               "[rank517]:[W1129 15:00:30.000000000 x.cpp:1] exiting\n";
      } else if (rank % 97 == 3) {
        text = "";  // empty: a diagnostic
      } else {
        text = "[rank" + r + "]:[E1129 " + hour + ":10:0" + std::to_string(rank % 10) +
               ".000000000 ProcessGroupNCCL.cpp:689] [Rank " + r +
               "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=13, OpType=ALLREDUCE, "
               "NumelIn=4, NumelOut=4, Timeout(ms)=600000) ran for 600038 milliseconds before timing out.\n"
               "[rank" + r + "]: Traceback (most recent call last):\n"
               "[rank" + r + "]:   File \"/ws/train.py\", line 12, in step\n"
               "[rank" + r + "]:[E1129 " + hour + ":10:1" + std::to_string(rank % 10) +
               ".000000000 ProcessGroupNCCL.cpp:1500] [Rank " + r + "] Process group watchdog thread terminated\n"
               "[rank" + r + "]: torch.distributed.DistBackendError: NCCL communicator was aborted on rank " + r + ".\n";
      }
      add(text, dir + std::to_string(local) + "/stderr.log", local);
    }
  }
  return files;
}

}  // namespace

TEST_SUITE("triage") {
TEST_CASE("triage: the report of a many-file job is the same on 1, 2 and 3 threads") {
  for (bool with_year : {true, false}) {
    CAPTURE(with_year);
    const std::vector<FileResult> job = make_job(with_year);
    std::string json_one, text_one;
    for (unsigned jobs : {1u, 2u, 3u}) {
      CAPTURE(jobs);
      std::vector<FileResult> results = job;  // build_report resolves years and takes diagnostics
      TriageOptions options;
      options.jobs = jobs;
      options.paths = {"logs"};
      DiagnosticSink run_diags;
      run_diags.add(Severity::Info, "test.run-level", "a run-level diagnostic comes first");
      const Report report = build_report(results, repo_matcher(), options, run_diags);
      REQUIRE(report.root_cause.has_value());
      CHECK(report.root_cause->rank == 517);
      CHECK(report.root_cause->category == Category::Oom);
      CHECK(report.files.size() == 128 * 9);
      CHECK(report.diagnostics.front().code == "test.run-level");
      const std::string json = render_json(report), text = render_text(report, TextStyle{});
      if (jobs == 1) {
        json_one = json;
        text_one = text;
        CHECK(json.find("timeline.clock-skew") != std::string::npos);
        CHECK(json.find("read.empty-file") != std::string::npos);
        CHECK((json.find("timeline.year-from-mtime") != std::string::npos) == !with_year);
      } else {
        CHECK(json == json_one);
        CHECK(text == text_one);
      }
    }
  }
}
}
