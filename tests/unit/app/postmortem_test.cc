// Unit tests for the post-mortem's conversation with SLURM (app/postmortem.h): the retries and
// waits of wait_for_final_state and the exits of run_postmortem, against canned scontrol and
// sacct output and a fake clock (no process is started and nothing sleeps).
#include "app/postmortem.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "slurm/slurm_commands.h"
#include "support/repo_rules.h"

namespace megatriage {
namespace {

using std::chrono::milliseconds;

constexpr const char* kJob = "4242";

CommandResult ran(std::string out, int status = 0) { return {true, status, std::move(out), ""}; }
CommandResult not_installed() { return {false, -1, "", ""}; }

// `sacct --parsable2` output for job 4242 in `state` on `nodes`, with `steps` as (id suffix,
// state) rows. The owner is this test's own uid, so run_postmortem never changes users.
// WorkDir does not exist: no log is found anywhere.
std::string sacct_rows(const std::string& state, const std::string& nodes = "gpu[01-04]",
                       const std::vector<std::pair<std::string, std::string>>& steps = {}) {
  const std::string uid = std::to_string(::geteuid());
  std::string out =
      "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|Timelimit|NodeList|WorkDir|SubmitLine|"
      "User|UID|Start|End|JobIDRaw\n";
  auto row = [&](const std::string& id, const std::string& st) {
    out += id + "|train|" + st + "|1:0|0:0|00:10:00|01:00:00|" + nodes +
           "|/nonexistent/megatriage-postmortem-test|sbatch train.sh|tester|" + uid +
           "|2026-12-01T10:00:00|2026-12-01T10:10:00|" + id + "\n";
  };
  row(kJob, state);
  for (const auto& [suffix, st] : steps) row(std::string(kJob) + "." + suffix, st);
  return out;
}

std::string sacct_header_only() {
  return "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|Timelimit|NodeList|WorkDir|"
         "SubmitLine|User|UID|Start|End|JobIDRaw\n";
}

std::string scontrol_job(const std::string& state, const std::string& nodes = "gpu[01-04]",
                         const std::string& extra = "") {
  return std::string("JobId=") + kJob + " JobName=train\n   JobState=" + state +
         " Reason=None Dependency=(null)\n   NodeList=" + nodes + "\n" + extra;
}

CommandResult scontrol_unknown() { return ran("", 1); }

// Answers from lists, one entry per round (the last one repeats), and a clock that moves only
// when told to sleep.
class CannedSlurm final : public SlurmCommands {
 public:
  std::vector<CommandResult> show_job_answers{scontrol_unknown()};
  std::vector<CommandResult> sacct_answers{ran(sacct_header_only())};
  CommandResult script_answer = ran("#!/bin/bash\n#SBATCH --nodes=4\nsrun python train.py\n");
  std::vector<std::string> calls;
  std::vector<milliseconds> sleeps;

  CommandResult show_job(const std::string& job_id) override {
    calls.push_back("scontrol show job " + job_id);
    return next(show_job_answers, shows_++);
  }
  CommandResult sacct(const std::string& job_id, const std::string& columns) override {
    calls.push_back("sacct -j " + job_id);
    CHECK(columns.find("JobIDRaw") != std::string::npos);
    return next(sacct_answers, saccts_++);
  }
  CommandResult batch_script(const std::string& job_id) override {
    calls.push_back("sacct --batch-script " + job_id);
    return script_answer;
  }
  Clock::time_point now() override { return now_; }
  void sleep_for(milliseconds d) override {
    sleeps.push_back(d);
    now_ += d;
  }

  milliseconds slept() const {
    milliseconds total{0};
    for (milliseconds d : sleeps) total += d;
    return total;
  }

 private:
  static CommandResult next(const std::vector<CommandResult>& answers, std::size_t i) {
    return answers[std::min(i, answers.size() - 1)];
  }
  std::size_t shows_ = 0, saccts_ = 0;
  Clock::time_point now_{};
};

// A rules directory of this test's own, removed at the end.
struct SiteRules {
  std::filesystem::path path;
  explicit SiteRules(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("megatriage-postmortem-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~SiteRules() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

// A site's own words for a job that failed with nothing in its logs.
constexpr const char* kSiteFailedWords = R"json({"slurm_states": [
  {"id": "sacct.failed", "category": "unknown", "title": "Site: {job} ended {state}",
   "explain": "Ask the site desk about {job_id}.", "checks": ["Open a ticket for {job_id}."],
   "headline": "Site: {job} ended {state} ({meaning})"}
]})json";

int postmortem(CannedSlurm& slurm, std::string& out, std::string& err) {
  PostmortemOptions options;
  options.job_id = kJob;
  options.format = "json";
  return run_postmortem(options, slurm, out, err);
}

TEST_SUITE("postmortem") {
  TEST_CASE("postmortem: a job both commands see as over is asked about once") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
    slurm.sacct_answers = {ran(sacct_rows("FAILED", "gpu[01-04]", {{"batch", "FAILED"}}))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.queries == 1);
    CHECK(slurm.sleeps.empty());
    REQUIRE(a.job);
    CHECK(a.job->state == "FAILED");
    CHECK(a.scontrol.at("JobState") == "FAILED");
    CHECK(a.sacct_ran);
    CHECK_FALSE(a.heterogeneous);
    CHECK(slurm.calls == std::vector<std::string>{"scontrol show job 4242", "sacct -j 4242"});
  }

  TEST_CASE("postmortem: sacct still RUNNING while scontrol says over: asked again until final") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("COMPLETING"))};
    slurm.sacct_answers = {ran(sacct_rows("RUNNING")), ran(sacct_rows("PENDING")), ran(sacct_rows("FAILED"))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.queries == 3);
    CHECK(slurm.sleeps == std::vector<milliseconds>{milliseconds(250), milliseconds(250)});
    REQUIRE(a.job);
    CHECK(a.job->state == "FAILED");
  }

  TEST_CASE("postmortem: a job scontrol still runs is not waited for") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("RUNNING"))};
    slurm.sacct_answers = {ran(sacct_rows("RUNNING"))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.queries == 1);
    REQUIRE(a.job);
    CHECK(a.job->state == "RUNNING");
  }

  TEST_CASE("postmortem: sacct failing, then answering, while scontrol knows the job") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
    slurm.sacct_answers = {ran("", 1), ran("sacct: error: slurmdbd not responding\n", 1),
                           ran(sacct_rows("FAILED"))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.queries == 3);
    REQUIRE(a.job);
    CHECK(a.job->state == "FAILED");
  }

  TEST_CASE("postmortem: sacct that never agrees is given up on after kSacctSettleWait") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
    slurm.sacct_answers = {ran(sacct_rows("PENDING"))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    // Four waits of 250 ms, then 500 ms ones until 10 s have passed: 1 + 4 + 18 rounds.
    CHECK(slurm.slept() == kSacctSettleWait);
    CHECK(a.queries == 23);
    CHECK(slurm.sleeps.front() == milliseconds(250));
    CHECK(slurm.sleeps.back() == milliseconds(500));
    REQUIRE(a.job);
    CHECK(a.job->state == "PENDING");  // the last answer is what the report gets
  }

  TEST_CASE("postmortem: scontrol's longer NodeList means sacct has not caught up") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED", "gpu[01-04]"))};
    slurm.sacct_answers = {ran(sacct_rows("FAILED", "gpu01")), ran(sacct_rows("FAILED", "gpu[01-04]"))};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.queries == 2);
    REQUIRE(a.job);
    CHECK(a.job->node_list == "gpu[01-04]");
  }

  TEST_CASE("postmortem: running steps are waited for, the extern step is not") {
    SUBCASE("a step ends on the second round") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("TIMEOUT"))};
      slurm.sacct_answers = {ran(sacct_rows("TIMEOUT", "gpu[01-04]", {{"0", "RUNNING"}, {"extern", "RUNNING"}})),
                             ran(sacct_rows("TIMEOUT", "gpu[01-04]", {{"0", "CANCELLED"}, {"extern", "RUNNING"}}))};
      SlurmAnswer a = wait_for_final_state(slurm, kJob);
      CHECK(a.queries == 2);
      REQUIRE(a.job);
      REQUIRE(a.job->steps.size() == 2);
      CHECK(a.job->steps[0].state == "CANCELLED");
    }
    SUBCASE("only the extern step runs: no wait") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("TIMEOUT"))};
      slurm.sacct_answers = {ran(sacct_rows("TIMEOUT", "gpu[01-04]", {{"0", "CANCELLED"}, {"extern", "RUNNING"}}))};
      CHECK(wait_for_final_state(slurm, kJob).queries == 1);
    }
    SUBCASE("a step that never ends is given up on after kStepsEndWait, past the settle wait") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("TIMEOUT"))};
      slurm.sacct_answers = {ran(sacct_rows("TIMEOUT", "gpu[01-04]", {{"0", "RUNNING"}}))};
      SlurmAnswer a = wait_for_final_state(slurm, kJob);
      CHECK(slurm.slept() == kStepsEndWait);
      CHECK(a.queries == 1 + 4 + 88);
    }
  }

  TEST_CASE("postmortem: a job neither command knows is not found (exit 2, one round)") {
    CannedSlurm slurm;  // scontrol: invalid job id; sacct: the header and no row
    std::string out, err;
    CHECK(postmortem(slurm, out, err) == 2);
    CHECK(err == "megatriage postmortem: job 4242 not found (sacct and scontrol do not know it)\n");
    CHECK(out.empty());
    CHECK(slurm.calls.size() == 2);
    CHECK(slurm.sleeps.empty());
  }

  TEST_CASE("postmortem: sacct that cannot be started, a job scontrol does not know: a usage error") {
    CannedSlurm slurm;
    slurm.sacct_answers = {not_installed()};
    std::string out, err;
    CHECK(postmortem(slurm, out, err) == 2);
    CHECK(err.find("sacct failed: sacct could not be run (is SLURM installed and on PATH?)") != std::string::npos);
  }

  // Accounting off (AccountingStorageType=none): sacct's own error, then the fallbacks.
  const char* const kAccountingDisabled = "sacct: error: Slurm accounting storage is disabled\n";

  TEST_CASE("postmortem: sacct failing and scontrol not knowing the job: sacct's own error, exit 2") {
    CannedSlurm slurm;
    slurm.sacct_answers = {CommandResult{true, 1, "", kAccountingDisabled}};
    std::string out, err;
    CHECK(postmortem(slurm, out, err) == 2);
    CHECK(err.find("job 4242: sacct failed: sacct: error: Slurm accounting storage is disabled "
                   "(sacct exit status 1)") != std::string::npos);
    CHECK(err.find("Pass --logs DIR") != std::string::npos);
    CHECK(err.find("not found") == std::string::npos);
    CHECK(slurm.sleeps.empty());  // nobody knows the job: nothing to wait for
  }

  TEST_CASE("postmortem: sacct failing, scontrol knowing the job: its facts decide, with a warning") {
    CannedSlurm slurm;
    const std::string owner = "   UserId=tester(" + std::to_string(::geteuid()) + ") GroupId=tester(" +
                              std::to_string(::getegid()) + ")\n   RunTime=01:00:02 TimeLimit=01:00:00\n";
    slurm.show_job_answers = {ran(scontrol_job("TIMEOUT", "gpu[01-02]", owner))};
    slurm.sacct_answers = {CommandResult{true, 1, "", kAccountingDisabled}};
    SiteRules report_dir("sacct-failed");
    PostmortemOptions options;
    options.job_id = kJob;
    options.format = "json";
    options.report_dir = report_dir.path.string();
    std::string out, err;
    CHECK(run_postmortem(options, slurm, out, err) == 1);
    CHECK(slurm.slept() == kSacctSettleWait);  // a busy slurmdbd gets the settle wait to answer
    nlohmann::json doc = nlohmann::json::parse(out);
    CHECK(doc["slurm"]["state"] == "TIMEOUT");
    CHECK(doc["slurm"]["node_list"] == "gpu[01-02]");
    CHECK(doc["slurm"]["time_limit_hit"] == true);
    CHECK(doc["root_cause"]["rule"] == "sacct.timeout");
    bool warned = false;
    for (const auto& d : doc["diagnostics"])
      if (d["code"] == "postmortem.sacct-failed")
        warned = d["message"].get<std::string>().find("accounting storage is disabled") != std::string::npos;
    CHECK(warned);
    CHECK(std::filesystem::exists(report_dir.path / "megatriage-4242.json"));
  }

  TEST_CASE("postmortem: sacct failing, scontrol not knowing the job, --logs: the logs alone") {
    CannedSlurm slurm;
    slurm.sacct_answers = {CommandResult{true, 1, "", kAccountingDisabled}};
    SiteRules logs("logs-alone");  // a folder of this test's own
    logs.write("train-4242.err",
               "[rank0]: Traceback (most recent call last):\n"
               "[rank0]:   File \"/ws/train.py\", line 9, in step\n"
               "[rank0]: ModuleNotFoundError: No module named 'wandb'\n");
    // The job's owner, as EpilogSlurmctld's environment gives it: this test's own user, so that
    // a root test run reads the logs as itself.
    ::setenv("SLURM_JOB_ID", kJob, 1);
    ::setenv("SLURM_SCRIPT_CONTEXT", "epilog_slurmctld", 1);
    ::setenv("SLURM_JOB_UID", std::to_string(::geteuid()).c_str(), 1);
    PostmortemOptions options;
    options.job_id = kJob;
    options.format = "json";
    options.logs_dir = logs.path.string();
    std::string out, err;
    const int rc = run_postmortem(options, slurm, out, err);
    ::unsetenv("SLURM_JOB_ID");
    ::unsetenv("SLURM_SCRIPT_CONTEXT");
    ::unsetenv("SLURM_JOB_UID");
    CHECK(rc == 1);
    CHECK(err.empty());
    nlohmann::json doc = nlohmann::json::parse(out);
    CHECK_FALSE(doc.contains("slurm"));
    CHECK(doc["root_cause"]["category"] == "import");
    REQUIRE(!doc["diagnostics"].empty());
    CHECK(doc["diagnostics"][0]["code"] == "postmortem.no-slurm-facts");
    CHECK(doc["diagnostics"][0]["message"].get<std::string>().find("accounting storage is disabled") !=
          std::string::npos);
    CHECK(std::filesystem::exists(logs.path / "megatriage-4242.json"));
  }

  TEST_CASE("postmortem: a heterogeneous job stops the questions and the run") {
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
    std::string rows = sacct_rows("FAILED");
    rows.replace(rows.find("\n4242|") + 1, 4, "4242+0");
    slurm.sacct_answers = {ran(rows)};
    SlurmAnswer a = wait_for_final_state(slurm, kJob);
    CHECK(a.heterogeneous);
    CHECK(a.queries == 1);
    std::string out, err;
    CHECK(postmortem(slurm, out, err) == 2);
    CHECK(err.find("is heterogeneous; not supported") != std::string::npos);
  }

  TEST_CASE("postmortem: a bad job argument is refused before SLURM is asked") {
    CannedSlurm slurm;
    PostmortemOptions options;
    options.job_id = "12ab";
    std::string out, err;
    CHECK(run_postmortem(options, slurm, out, err) == 2);
    CHECK(err.find("is not a job id") != std::string::npos);
    CHECK(slurm.calls.empty());
  }

  TEST_CASE("postmortem: without StdOut/StdErr the batch script is asked for; with them it is not") {
    SUBCASE("sacct and scontrol name no log: the batch script gives the names") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
      slurm.sacct_answers = {ran(sacct_rows("FAILED"))};
      std::string out, err;
      CHECK(postmortem(slurm, out, err) == 1);
      CHECK(slurm.calls.back() == "sacct --batch-script 4242");
      // No log exists: the report is SLURM's facts alone, and there is nowhere to write it.
      nlohmann::json doc = nlohmann::json::parse(out);
      CHECK(doc["verdict"] == "failure");
      CHECK(doc["root_cause"]["rule"] == "sacct.failed");
      CHECK(doc["ordering"] == "no logs found");
      CHECK(err == "megatriage postmortem: no directory for the report (no log found); use --report-dir\n");
    }
    SUBCASE("scontrol names the job's StdErr and StdOut") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job(
          "FAILED", "gpu[01-04]",
          "   StdErr=/nonexistent/megatriage-postmortem-test/train-4242.err\n"
          "   StdOut=/nonexistent/megatriage-postmortem-test/train-4242.out\n"))};
      slurm.sacct_answers = {ran(sacct_rows("FAILED"))};
      std::string out, err;
      CHECK(postmortem(slurm, out, err) == 1);
      // Not for the log names: only afterwards, for the script's lint findings.
      CHECK(slurm.calls ==
            std::vector<std::string>{"scontrol show job 4242", "sacct -j 4242", "sacct --batch-script 4242"});
    }
  }
  TEST_CASE("postmortem: --logs on a folder shared with other jobs reads this job's files") {
    SiteRules logs("shared");
    logs.write("train-4242.out", "step 1 done\n");
    // A newer job's failure beside it: the default (newest job) would report this one.
    logs.write("train-5000.err",
               "Traceback (most recent call last):\n  File \"/ws/train.py\", line 3, in <module>\n"
               "ModuleNotFoundError: No module named 'wandb'\n");
    CannedSlurm slurm;
    slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
    slurm.sacct_answers = {ran(sacct_rows("FAILED"))};
    PostmortemOptions options;
    options.job_id = kJob;
    options.format = "json";
    options.logs_dir = logs.path.string();
    options.report_dir = logs.path.string();
    std::string out, err;
    CHECK(run_postmortem(options, slurm, out, err) == 1);
    nlohmann::json doc = nlohmann::json::parse(out);
    CHECK(doc["job"]["id"] == kJob);
    CHECK(doc["job"]["pick"] == "asked");
    REQUIRE(doc["files"].size() == 1);
    CHECK(doc["files"][0]["path"].get<std::string>().find("train-4242.out") != std::string::npos);
    CHECK(doc["root_cause"]["category"] != "import");
    // No script beside the logs: the one SLURM kept is linted.
    CHECK(doc["scripts"] == nlohmann::json::array({"sacct:4242"}));
  }

  TEST_CASE("postmortem: a rules directory changes the words of a sacct cause, not the decision") {
    SiteRules site("words");
    site.write("site-slurm.json", kSiteFailedWords);
    SUBCASE("no log found: the tables are loaded for SLURM's facts alone") {
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
      slurm.sacct_answers = {ran(sacct_rows("FAILED"))};
      PostmortemOptions options;
      options.job_id = kJob;
      options.format = "json";
      options.rules_dirs = {site.path.string()};
      std::string out, err;
      CHECK(run_postmortem(options, slurm, out, err) == 1);
      nlohmann::json doc = nlohmann::json::parse(out);
      CHECK(doc["root_cause"]["rule"] == "sacct.failed");
      CHECK(doc["root_cause"]["title"] == "Site: job 4242 ended FAILED");
      CHECK(doc["root_cause"]["explain"] == "Ask the site desk about 4242.");
      CHECK(doc["root_cause"]["confidence"] == "low");  // still the code's decision
    }
    SUBCASE("a log with no error: the words come with the triage's rules") {
      SiteRules logs("logs");
      logs.write("train-4242.out", "step 1 done\n");
      CannedSlurm slurm;
      slurm.show_job_answers = {ran(scontrol_job("FAILED"))};
      slurm.sacct_answers = {ran(sacct_rows("FAILED"))};
      PostmortemOptions options;
      options.job_id = kJob;
      options.format = "json";
      options.logs_dir = logs.path.string();
      options.report_dir = logs.path.string();
      options.rules_dirs = {site.path.string()};
      std::string out, err;
      CHECK(run_postmortem(options, slurm, out, err) == 1);
      CHECK(err.empty());
      nlohmann::json doc = nlohmann::json::parse(out);
      CHECK(doc["root_cause"]["rule"] == "sacct.failed");
      CHECK(doc["root_cause"]["title"] == "Site: job 4242 ended FAILED");
      CHECK(doc["root_cause"]["headline"].get<std::string>().rfind("Site: job 4242 ended FAILED (", 0) == 0);
    }
  }

  TEST_CASE("postmortem: the repository's words, filled for the job") {
    SlurmJobInfo job;
    job.job_id = "19";
    job.state = "TIMEOUT";
    job.time_limit_hit = true;
    job.elapsed = "01:00:03";
    job.time_limit = "01:00:00";
    job.node_list = "gpu[01-02]";
    Report report;
    report.root_cause.emplace();
    report.root_cause->title = "NCCL watchdog timeout";
    report.root_cause->evidence = Evidence::Line;
    report.root_cause->facts["last_iteration"] = "120";
    apply_slurm_facts(report, job, test::repo_matcher().tables().slurm_states);
    REQUIRE(report.root_cause);
    const RootCauseReport& r = *report.root_cause;
    CHECK(r.rule == "sacct.timeout");
    CHECK(r.category == Category::Unknown);
    CHECK(r.title == "Job reached its time limit (hung or too slow)");
    CHECK(r.headline == "Time limit reached in job 19 (elapsed 01:00:03 of a 01:00:00 limit) after iteration 120");
    CHECK(r.explain.rfind("SLURM killed job 19 at its time limit (elapsed 01:00:03 of a 01:00:00 limit).", 0) == 0);
    CHECK(r.explain.find(" The last iteration seen in the logs is 120: ") != std::string::npos);
    REQUIRE(r.checks.size() == 2);
    CHECK(r.checks[0].text.rfind("If training was progressing, raise --time", 0) == 0);
    CHECK(r.checks[0].advice);
    REQUIRE(r.reasons.size() == 1);
    CHECK(r.reasons[0] == "the logs' own candidate, NCCL watchdog timeout at sacct, has no Python traceback; "
                          "SLURM's state decides");
    CHECK(report.diagnostics.empty());
  }

  TEST_CASE("postmortem: a cause whose words the rules lack is still given, with a warning") {
    SlurmJobInfo job;
    job.job_id = "11";
    job.state = "NODE_FAIL";
    job.node_fail = true;
    std::vector<SlurmStateEntry> words = test::repo_matcher().tables().slurm_states;
    std::erase_if(words, [](const SlurmStateEntry& e) { return e.id == slurm_state::kNodeFail; });
    REQUIRE(words.size() == 4);
    Report report;
    apply_slurm_facts(report, job, words);
    REQUIRE(report.root_cause);
    CHECK(report.root_cause->rule == "sacct.node-fail");
    CHECK(report.root_cause->title == "SLURM state NODE_FAIL");
    CHECK(report.root_cause->checks.empty());
    CHECK(report.verdict == Verdict::Failure);
    REQUIRE(report.diagnostics.size() == 1);
    CHECK(report.diagnostics[0].code == "postmortem.slurm-state-missing");
    CHECK(report.diagnostics[0].message.find("'sacct.node-fail'") != std::string::npos);
  }
}

}  // namespace
}  // namespace megatriage
