// Unit tests for the post-mortem's conversation with SLURM (app/postmortem.h): the retries and
// waits of wait_for_final_state and the exits of run_postmortem, against canned scontrol and
// sacct output and a fake clock (no process is started and nothing sleeps).
#include "app/postmortem.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "slurm/slurm_commands.h"

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

  TEST_CASE("postmortem: sacct that cannot be started is a usage error") {
    CannedSlurm slurm;
    slurm.sacct_answers = {not_installed()};
    std::string out, err;
    CHECK(postmortem(slurm, out, err) == 2);
    CHECK(err.find("cannot run sacct") != std::string::npos);
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
      CHECK(slurm.calls == std::vector<std::string>{"scontrol show job 4242", "sacct -j 4242"});
    }
  }
}

}  // namespace
}  // namespace megatriage
