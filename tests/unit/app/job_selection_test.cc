// job_selection: which files each report reads when the logs hold several jobs, from FileResults
// built in memory (no disk): the order of jobs, file-time order for run ids, ids from SLURM
// lines, shared files, renumbered file ids.
#include "app/job_selection.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace megatriage {
namespace {

FileResult file(const std::string& path, std::int64_t mtime_us = 0, const std::string& slurm_line = "") {
  FileResult r;
  r.file.path = r.file.display_path = path;
  r.file.mtime_us = mtime_us;
  Event e;
  e.kind = EventKind::RuleLine;
  e.text = slurm_line.empty() ? "some matched line" : slurm_line;
  r.events.push_back(e);
  return r;
}

std::vector<FileResult> numbered(std::vector<FileResult> files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    files[i].file.id = static_cast<FileId>(i);
    for (Event& e : files[i].events) e.origin.file = files[i].file.id;
  }
  return files;
}

std::vector<std::string> paths_of(const JobFiles& part) {
  std::vector<std::string> out;
  for (const FileResult& r : part.files) out.push_back(r.file.display_path);
  return out;
}

TEST_SUITE("job_selection") {
  TEST_CASE("job_selection: the newest SLURM job by default, shared files with it, ids renumbered") {
    auto files = numbered({file("logs/a-9.err"), file("logs/a-10.err"), file("logs/node0.out"), file("logs/a-10.out")});
    const JobSelection sel = select_jobs(std::move(files), {}, {"logs"});
    REQUIRE(sel.reports.size() == 1);
    const JobFiles& part = sel.reports[0];
    CHECK(paths_of(part) == std::vector<std::string>{"logs/a-10.err", "logs/node0.out", "logs/a-10.out"});
    for (std::size_t i = 0; i < part.files.size(); ++i) {
      CHECK(part.files[i].file.id == i);
      CHECK(part.files[i].events[0].origin.file == i);
    }
    REQUIRE(part.choice);
    CHECK(part.choice->id == "10");  // 10 > 9: numbers, not text
    CHECK(part.choice->jobs == std::vector<std::string>{"10", "9"});
    CHECK(part.choice->files == 2);
    CHECK(part.choice->files_without_job == 1);
    REQUIRE(part.diagnostics.size() == 2);
    CHECK(part.diagnostics[0].code == "discover.several-jobs");
    CHECK(part.diagnostics[0].message == "'logs' holds 2 jobs; this is job 10, the newest; others: 9");
    CHECK(part.diagnostics[1].code == "discover.files-without-job");
  }

  TEST_CASE("job_selection: one job, or none named, changes nothing") {
    auto one = numbered({file("logs/a-9.err"), file("logs/node0.out")});
    JobSelection sel = select_jobs(std::move(one), {}, {"logs"});
    REQUIRE(sel.reports.size() == 1);
    CHECK(sel.reports[0].files.size() == 2);
    CHECK_FALSE(sel.reports[0].choice);
    CHECK(sel.reports[0].diagnostics.empty());
    auto none = numbered({file("logs/job.err"), file("logs/job.out")});
    sel = select_jobs(std::move(none), {JobPick::Asked, {"9"}, true}, {"logs"});
    CHECK(sel.usage_error.find("no file names a job") != std::string::npos);
  }

  TEST_CASE("job_selection: a name that says nothing takes the job its SLURM lines print") {
    auto files = numbered({file("logs/a-9.err"), file("logs/a-10.err"),
                           file("logs/launcher.log", 0,
                                "slurmstepd: error: *** JOB 9 ON node1 CANCELLED AT 2026-11-29T15:43:02 DUE TO TIME LIMIT ***")});
    const JobSelection sel = select_jobs(std::move(files), {JobPick::Asked, {"9"}, true}, {"logs"});
    REQUIRE(sel.reports.size() == 1);
    CHECK(paths_of(sel.reports[0]) == std::vector<std::string>{"logs/a-9.err", "logs/launcher.log"});
    CHECK(sel.reports[0].choice->files_without_job == 0);
  }

  TEST_CASE("job_selection: run ids give no order: the most recently written job is the newest") {
    auto files = numbered({file("runs/alpha_abcdefgh/attempt_0/0/stderr.log", 300),
                           file("runs/beta_abcdefgh/attempt_0/0/stderr.log", 100),
                           file("logs/a-10.err", 200)});
    const JobSelection sel = select_jobs(std::move(files), {}, {"runs", "logs"});
    REQUIRE(sel.reports.size() == 1);
    REQUIRE(sel.reports[0].choice);
    CHECK(sel.reports[0].choice->id == "alpha");
    CHECK(sel.reports[0].choice->newest_by_mtime);
    CHECK(sel.reports[0].choice->jobs == std::vector<std::string>{"alpha", "10", "beta"});
    CHECK(sel.reports[0].diagnostics[0].message.find("the 2 paths hold 3 jobs; this is job alpha, the newest by file time") == 0);
  }

  TEST_CASE("job_selection: --all-jobs gives each job its files and the shared ones") {
    auto files = numbered({file("logs/a-9.err"), file("logs/a-10.err"), file("logs/node0.out")});
    const JobSelection sel = select_jobs(std::move(files), {JobPick::All, {}, true}, {"logs"});
    REQUIRE(sel.reports.size() == 2);
    CHECK(paths_of(sel.reports[0]) == std::vector<std::string>{"logs/a-10.err", "logs/node0.out"});
    CHECK(paths_of(sel.reports[1]) == std::vector<std::string>{"logs/a-9.err", "logs/node0.out"});
    CHECK(sel.reports[1].choice->pick == JobPick::All);
    CHECK(sel.reports[1].choice->id == "9");
  }

  TEST_CASE("job_selection: an id no file names: a usage error, or every file (postmortem, watch)") {
    auto files = numbered({file("logs/a-9.err"), file("logs/a-10.err")});
    JobSelection sel = select_jobs(files, {JobPick::Asked, {"11"}, true}, {"logs"});
    CHECK(sel.reports.empty());
    CHECK(sel.usage_error == "job 11 is not in the logs; they hold job(s) 10 9");
    sel = select_jobs(files, {JobPick::Asked, {"11", "11_2"}, false}, {"logs"});
    REQUIRE(sel.reports.size() == 1);
    CHECK(sel.reports[0].files.size() == 2);
    CHECK_FALSE(sel.reports[0].choice);
    REQUIRE(sel.reports[0].diagnostics.size() == 1);
    CHECK(sel.reports[0].diagnostics[0].code == "discover.job-not-named");
  }
}

}  // namespace
}  // namespace megatriage
