#include <doctest/doctest.h>

#include "slurm/slurm_job.h"

using namespace megatriage;

namespace {

// fixtures/slurm-a1-exception-peer-reset/sacct.txt
const char* kFailed =
    "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList|WorkDir\n"
    "25|gpt-tiny|FAILED|1:0|1:0|00:00:14|node[1-2]|/scratch/jobs/a1-exception-peer-reset\n"
    "25.batch|batch|FAILED|1:0||00:00:14|node1|\n"
    "25.0|bash|FAILED|1:0||00:00:14|node[1-2]|\n";
// fixtures/slurm-b3-cgroup-oom-kill/sacct.txt
const char* kOom =
    "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList|WorkDir\n"
    "15|gpt-tiny|FAILED|1:0|0:125|00:00:17|node[1-2]|/scratch/jobs/b3-cgroup-oom-kill\n"
    "15.batch|batch|FAILED|1:0||00:00:17|node1|\n"
    "15.0|bash|OUT_OF_MEMORY|0:125||00:00:17|node[1-2]|\n";
// fixtures/slurm-e-time-limit-hang/sacct.txt
const char* kTimeout =
    "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList|WorkDir\n"
    "19|gpt-tiny|TIMEOUT|0:0|0:0|00:01:03|node[1-2]|/scratch/jobs/e-time-limit-hang\n"
    "19.batch|batch|CANCELLED|0:15||00:01:04|node1|\n"
    "19.0|bash|FAILED|1:0||00:01:06|node[1-2]|\n";
// shared/notes/local-slurm.md: scancel of a running job, and a node failure
const char* kCancelled =
    "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList\n"
    "4|cancelme|CANCELLED by 0|0:0|0:0|00:00:01|node[1-2]\n"
    "4.batch|batch|CANCELLED|0:15||00:00:01|node1\n"
    "4.0|bash|CANCELLED|0:15||00:00:01|node[1-2]\n";
const char* kNodeFail =
    "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList\n"
    "11|nodefail|NODE_FAIL|0:0|0:0|00:00:41|node[1-2]\n"
    "11.batch|batch|CANCELLED|0:15||00:00:41|node1\n"
    "11.0|bash|NODE_FAIL|0:0||00:00:41|node[1-2]\n";

}  // namespace

TEST_SUITE("slurm_job") {
TEST_CASE("slurm_job: a failed job and its steps from real sacct text") {
  auto rows = parse_sacct_parsable(kFailed);
  REQUIRE(rows.size() == 3);
  auto job = slurm_job_from_sacct(rows, "25");
  REQUIRE(job);
  CHECK(job->name == "gpt-tiny");
  CHECK(job->state == "FAILED");
  CHECK(job->exit_code == "1:0");
  CHECK(job->exit_status == 1);
  CHECK(job->signal == 0);
  CHECK(job->node_list == "node[1-2]");
  CHECK(job->work_dir == "/scratch/jobs/a1-exception-peer-reset");
  REQUIRE(job->steps.size() == 2);
  CHECK(job->steps[0].id == "25.batch");
  CHECK(job->steps[1].state == "FAILED");
  CHECK_FALSE(job->time_limit_hit);
  CHECK_FALSE(job->out_of_memory);
  CHECK(job->cancelled_by == -1);
}

TEST_CASE("slurm_job: OUT_OF_MEMORY, TIMEOUT, CANCELLED by and NODE_FAIL are flagged") {
  auto oom = slurm_job_from_sacct(parse_sacct_parsable(kOom), "15");
  REQUIRE(oom);
  CHECK(oom->state == "FAILED");
  CHECK(oom->out_of_memory);
  CHECK(oom->derived_exit_code == "0:125");
  auto to = slurm_job_from_sacct(parse_sacct_parsable(kTimeout), "19");
  REQUIRE(to);
  CHECK(to->state == "TIMEOUT");
  CHECK(to->time_limit_hit);
  CHECK(to->cancelled_by == -1);  // the batch step's CANCELLED has no "by"
  auto ca = slurm_job_from_sacct(parse_sacct_parsable(kCancelled), "4");
  REQUIRE(ca);
  CHECK(ca->state == "CANCELLED");
  CHECK(ca->cancelled_by == 0);
  auto nf = slurm_job_from_sacct(parse_sacct_parsable(kNodeFail), "11");
  REQUIRE(nf);
  CHECK(nf->node_fail);
}

TEST_CASE("slurm_job: unknown job and the full postmortem format with a | in SubmitLine") {
  CHECK_FALSE(slurm_job_from_sacct(
      parse_sacct_parsable("JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|NodeList\n"), "9"));
  const char* text =
      "JobID|JobName|State|ExitCode|DerivedExitCode|Elapsed|Timelimit|NodeList|WorkDir|SubmitLine|User|UID|Start|End|JobIDRaw\n"
      "7_3|arr|FAILED|2:0|2:0|00:00:02|00:05:00|node2|/tmp/w|sbatch --wrap echo a|b|mtuser|1001|2026-11-30T10:00:00|2026-11-30T10:00:02|10\n"
      "7_3.batch|batch|FAILED|2:0||00:00:02||node2|||||2026-11-30T10:00:00|2026-11-30T10:00:02|10.batch\n";
  auto job = slurm_job_from_sacct(parse_sacct_parsable(text), "7_3");
  REQUIRE(job);
  CHECK(job->submit_line == "sbatch --wrap echo a|b");
  CHECK(job->user == "mtuser");
  CHECK(job->uid == 1001);
  CHECK(job->time_limit == "00:05:00");
  CHECK(job->job_id_raw == "10");
  CHECK(job->array_job_id == "7");
  CHECK(job->array_task_id == "3");
}

TEST_CASE("slurm_job: job ids") {
  CHECK(parse_job_id("123").valid);
  auto a = parse_job_id("123_4");
  CHECK(a.valid);
  CHECK(a.array_job_id == "123");
  CHECK(a.array_task_id == "4");
  auto h = parse_job_id("123+0");
  CHECK(h.heterogeneous);
  CHECK_FALSE(parse_job_id("12x").valid);
  CHECK_FALSE(parse_job_id("").valid);
}

TEST_CASE("slurm_job: exit codes and states") {
  CHECK(describe_exit_code("1:0") == "1:0 (exit 1)");
  CHECK(describe_exit_code("0:9") == "0:9 (killed by SIGKILL)");
  CHECK(describe_exit_code("0:15") == "0:15 (killed by SIGTERM)");
  CHECK(describe_exit_code("0:125") == "0:125 (out of memory)");
  CHECK(describe_exit_code("junk") == "junk");
  int st = 0, sig = 0;
  CHECK(decode_exit_code("3:0", st, sig));
  CHECK(st == 3);
  CHECK_FALSE(decode_exit_code("3", st, sig));
  CHECK(base_state("CANCELLED by 1001") == "CANCELLED");
  CHECK(cancelled_by_uid("CANCELLED by 1001") == 1001);
  CHECK(cancelled_by_uid("CANCELLED") == -1);
  CHECK(is_final_state("TIMEOUT"));
  CHECK(is_final_state("CANCELLED by 0"));
  CHECK_FALSE(is_final_state("PENDING"));
  CHECK_FALSE(is_final_state("COMPLETING"));
  CHECK_FALSE(state_meaning("OUT_OF_MEMORY").empty());
}

TEST_CASE("slurm_job: scontrol show job") {
  const char* text =
      "JobId=2 JobName=fail\n"
      "   UserId=mtuser(1001) GroupId=mtuser(1001) MCS_label=N/A\n"
      "   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
      "   RunTime=00:00:01 TimeLimit=00:05:00 TimeMin=N/A\n"
      "   NodeList=node[1-2]\n"
      "   Command=/tmp/t/my job.sbatch\n"
      "   WorkDir=/tmp/t\n"
      "   StdErr=/tmp/t/logs/fail-2.err\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/tmp/t/logs/fail-2.out\n"
      "   ExitCode=3:0\n";
  auto f = parse_scontrol_show_job(text);
  CHECK(f["JobState"] == "FAILED");
  CHECK(f["Command"] == "/tmp/t/my job.sbatch");
  CHECK(f["StdErr"] == "/tmp/t/logs/fail-2.err");
  CHECK(f["ExitCode"] == "3:0");
  CHECK(parse_scontrol_show_job("slurm_load_jobs error: Invalid job id specified\n").empty());
  SlurmJobInfo info;
  info.node_list = "node1";  // sacct right after the end
  merge_scontrol(info, f);
  CHECK(info.node_list == "node[1-2]");
  CHECK(info.user == "mtuser");
  CHECK(info.uid == 1001);
  CHECK(info.gid == 1001);
  CHECK(info.std_out == "/tmp/t/logs/fail-2.out");
  CHECK(info.std_paths_expanded);
}

TEST_CASE("slurm_job: the job from scontrol alone, when sacct cannot answer") {
  const char* text =
      "JobId=77 JobName=gpt ArrayJobId=70 ArrayTaskId=7\n"
      "   UserId=mtuser(1001) GroupId=mtuser(1001) MCS_label=N/A\n"
      "   JobState=TIMEOUT Reason=TimeLimit Dependency=(null)\n"
      "   RunTime=00:05:02 TimeLimit=00:05:00 TimeMin=N/A\n"
      "   NodeList=node[1-2]\n"
      "   WorkDir=/tmp/t\n"
      "   StdErr=/tmp/t/logs/gpt-77.err\n"
      "   ExitCode=0:15 DerivedExitCode=1:0\n";
  auto job = slurm_job_from_scontrol(parse_scontrol_show_job(text), "70_7");
  REQUIRE(job);
  CHECK(job->job_id == "70_7");
  CHECK(job->job_id_raw == "77");
  CHECK(job->array_job_id == "70");
  CHECK(job->array_task_id == "7");
  CHECK(job->state == "TIMEOUT");
  CHECK(job->time_limit_hit);
  CHECK_FALSE(job->out_of_memory);
  CHECK(job->exit_code == "0:15");
  CHECK(job->signal == 15);
  CHECK(job->derived_exit_code == "1:0");
  CHECK(job->elapsed == "00:05:02");
  CHECK(job->time_limit == "00:05:00");
  CHECK(job->node_list == "node[1-2]");
  CHECK(job->uid == 1001);
  CHECK(job->std_err == "/tmp/t/logs/gpt-77.err");
  CHECK(job->steps.empty());
  CHECK(job->cancelled_by == -1);
  CHECK_FALSE(slurm_job_from_scontrol({}, "77"));
}

TEST_CASE("slurm_job: hostlists") {
  CHECK(hostlist_count("node[1-2]") == 2);
  CHECK(hostlist_count("node1") == 1);
  CHECK(hostlist_count("node[1-3,7],gpu01") == 5);
  CHECK(hostlist_count("") == 0);
  CHECK(hostlist_count("None assigned") == 0);
  CHECK(hostlist_first("node[1-2]") == "node1");
  CHECK(hostlist_first("gpu[07-09],x") == "gpu07");
  using V = std::vector<std::string>;
  CHECK(hostlist_expand("node[1-3,7],gpu01") == V{"node1", "node2", "node3", "node7", "gpu01"});
  CHECK(hostlist_expand("gpu[07-09]") == V{"gpu07", "gpu08", "gpu09"});
  CHECK(hostlist_expand("r[1-2]n[1-2]") == V{"r1n1", "r1n2", "r2n1", "r2n2"});
  CHECK(hostlist_expand("a[x-y]") == V{"ax-y"});
  CHECK(hostlist_expand("(null)").empty());
  CHECK(hostlist_expand("n[1-100000]", 5).size() == 5);
}

TEST_CASE("slurm_job: filename patterns") {
  PatternContext ctx{"42", "", "", "gpt-tiny", "mtuser", "node1"};
  CHECK(expand_slurm_pattern("logs/%x-%j.err", ctx, "/w") == "/w/logs/gpt-tiny-42.err");
  CHECK(expand_slurm_pattern("/abs/%u/%N-%n-%t-%%.out", ctx, "/w") == "/abs/mtuser/node1-0-0-%.out");
  CHECK(expand_slurm_pattern("slurm-%6j.out", ctx, "/w/") == "/w/slurm-000042.out");
  CHECK(expand_slurm_pattern("x-%A_%a.out", ctx, "/w") == "/w/x-42_4294967294.out");
  CHECK(expand_slurm_pattern("%q%", ctx, "") == "%q%");
  PatternContext arr{"10", "7", "3", "arr", "u", "node2"};
  CHECK(expand_slurm_pattern("logs/%A_%a-%j.out", arr, "/w") == "/w/logs/7_3-10.out");
}

TEST_CASE("slurm_job: output patterns from the batch script and the submit line") {
  // sacct --batch-script on the fixture slurm-pertask-import/job.sbatch
  const char* script =
      "Batch Script for 2\n"
      "--------------------------------------------------------------------------------\n"
      "#!/bin/bash\n"
      "#SBATCH --job-name=gpt-pertask\n"
      "#SBATCH --nodes=2\n"
      "#SBATCH --output=logs/%x-%j.out\n"
      "#SBATCH --error=logs/%x-%j.err\n"
      "\n"
      "set -euo pipefail\n"
      "#SBATCH --error=ignored.err\n";
  auto p = output_patterns(script, "sbatch job.sbatch -o not-an-option");
  CHECK(p.output == "logs/%x-%j.out");
  CHECK(p.error == "logs/%x-%j.err");
  auto q = output_patterns(script, "sbatch --time 1 -e 'my err/%j.err' --output x.out job.sbatch");
  CHECK(q.error == "my err/%j.err");
  CHECK(q.output == "x.out");
  auto r = output_patterns("", "sbatch -oout-%j.txt --wrap 'prog -e x'");
  CHECK(r.output == "out-%j.txt");
  CHECK(r.error.empty());
}

TEST_CASE("slurm_job: file names that mention a job") {
  CHECK(name_mentions_job("gpt-tiny-19.err", "19"));
  CHECK(name_mentions_job("gpt-pertask-2-1.err", "2"));
  CHECK_FALSE(name_mentions_job("slurm-119.out", "19"));
  CHECK_FALSE(name_mentions_job("slurm-190.out", "19"));
  CHECK(name_mentions_job("19", "19"));
}
}

#include "app/postmortem.h"
#include "support/repo_rules.h"

TEST_SUITE("slurm_job") {
TEST_CASE("slurm_job: SLURM's state decides what the logs cannot") {
  auto job_of = [](const char* text, const char* id) { return *slurm_job_from_sacct(parse_sacct_parsable(text), id); };
  SUBCASE("time limit with no traceback: hung or too slow") {
    Report r;
    r.verdict = Verdict::NoFailure;
    apply_slurm_facts(r, job_of(kTimeout, "19"), test::repo_matcher().tables().slurm_states);
    REQUIRE(r.root_cause);
    CHECK(r.verdict == Verdict::Failure);
    CHECK(r.root_cause->rule == "sacct.timeout");
    CHECK(r.root_cause->evidence == Evidence::Sacct);
    CHECK(r.root_cause->explain.find("hung") != std::string::npos);
    REQUIRE(r.slurm);
    CHECK(r.slurm->state == "TIMEOUT");
  }
  SUBCASE("time limit after a traceback keeps the traceback") {
    Report r;
    r.root_cause.emplace();
    r.root_cause->evidence = Evidence::Traceback;
    r.root_cause->rule = "torch.shape-mismatch";
    apply_slurm_facts(r, job_of(kTimeout, "19"), test::repo_matcher().tables().slurm_states);
    CHECK(r.root_cause->rule == "torch.shape-mismatch");
  }
  SUBCASE("host OOM from a step's OUT_OF_MEMORY") {
    Report r;
    apply_slurm_facts(r, job_of(kOom, "15"), test::repo_matcher().tables().slurm_states);
    REQUIRE(r.root_cause);
    CHECK(r.root_cause->category == Category::Oom);
  }
  SUBCASE("node failure overrides a peer's traceback") {
    Report r;
    r.root_cause.emplace();
    r.root_cause->evidence = Evidence::Traceback;
    r.root_cause->title = "Connection reset by peer";
    apply_slurm_facts(r, job_of(kNodeFail, "11"), test::repo_matcher().tables().slurm_states);
    CHECK(r.root_cause->rule == "sacct.node-fail");
    CHECK_FALSE(r.root_cause->reasons.empty());
  }
  SUBCASE("cancelled by a user with no earlier cause") {
    Report r;
    apply_slurm_facts(r, job_of(kCancelled, "4"), test::repo_matcher().tables().slurm_states);
    REQUIRE(r.root_cause);
    CHECK(r.root_cause->rule == "sacct.cancelled");
    CHECK(r.root_cause->title.find("uid 0") != std::string::npos);
  }
  SUBCASE("a failure in the logs stays the root") {
    Report r;
    r.root_cause.emplace();
    r.root_cause->evidence = Evidence::Traceback;
    r.root_cause->rule = "python.unclassified-exception";
    apply_slurm_facts(r, job_of(kFailed, "25"), test::repo_matcher().tables().slurm_states);
    CHECK(r.root_cause->rule == "python.unclassified-exception");
    CHECK(r.verdict == Verdict::Failure);
  }
}
}
