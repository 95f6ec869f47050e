#include "input/job_ids.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

namespace megatriage {
namespace {

// The id a path names, "" for none.
std::string id_of(std::string_view path) {
  const std::optional<JobTag> tag = job_from_path(path);
  return tag ? tag->id : "";
}

TEST_SUITE("job_ids") {
  TEST_CASE("job_ids: sbatch %j, %x-%j, %x-%j-%t and %A_%a names") {
    const std::vector<std::pair<std::string_view, std::string_view>> cases = {
        {"logs/train-25.out", "25"},
        {"logs/gpt-tiny-25.err.gz", "25"},
        {"logs/gpt-tiny-25.out.zst", "25"},
        {"logs/job-25-3.err", "25"},        // %x-%j-%t: task 3 of job 25
        {"logs/slurm-25.out", "25"},
        {"logs/slurm-25_3.out", "25_3"},    // %A_%a: array task 3, its own job
        {"logs/slurm-25.0.out", "25"},      // %j.%s: step 0 of job 25
        {"logs/25.out", "25"},
        {"logs/megatron-4716.err", "4716"},
        {"logs/llama-7b-1234567.log", "1234567"},
        {"slurm-25", "25"},
    };
    for (const auto& [path, want] : cases) {
      const auto& shown = path;  // CAPTURE's lambda cannot name a structured binding in clang 14
      CAPTURE(shown);
      CHECK(id_of(path) == want);
    }
  }

  TEST_CASE("job_ids: ranks, dates, sizes, versions and other numbers are no job") {
    for (std::string_view path :
         {"logs/rank-3.log", "logs/rank_3.err", "logs/local_rank-1.out", "logs/worker_2.out",
          "logs/node0.out", "logs/job.err", "logs/train-2026-11-29.log", "logs/run_20261129_154302.log",
          "logs/train-2026-11.log", "logs/OLMo-1B-tied.log", "logs/grpo_v2.log", "logs/pretrain_base1.out",
          "logs/train-007.log", "logs/train-1732900000.log", "logs/a-1-2-3.log", "logs/metrics-25.json",
          "logs/train-0.log", "logs/epoch-4.txt", "logs/gpt-1.3b.log", "logs/core.1234", "logs/core-1234",
          "logs/python.12345"}) {
      CAPTURE(path);
      CHECK(id_of(path).empty());
    }
  }

  TEST_CASE("job_ids: torchrun run directories give their run id, not 'none'") {
    CHECK(id_of("logs/node0/none_01_1o33j/attempt_0/0/stderr.log").empty());
    CHECK(id_of("logs/torchrun/none_mrunheow/attempt_0/3/stdout.log").empty());
    const std::optional<JobTag> tag = job_from_path("logs/25_ab3d_9xy/attempt_1/2/stderr.log");
    REQUIRE(tag);
    CHECK(tag->id == "25");
    CHECK(tag->evidence == JobEvidence::TorchrunDir);
    CHECK_FALSE(tag->slurm_id);  // --rdzv-id may be $RANDOM: no order from it
    CHECK(id_of("runs/sweep-a_k2j4h5g6/attempt_0/0/stderr.log") == "sweep-a");
    // The local-rank directory `3` is not a job.
    CHECK(id_of("logs/3/stderr.log").empty());
  }

  TEST_CASE("job_ids: a family that holds 0 is numbered by rank") {
    const std::vector<std::string_view> paths = {"logs/out-0.log", "logs/out-1.log", "logs/out-2.log",
                                                 "logs/train-25.out", "other/out-1.log"};
    const auto tags = jobs_from_paths(paths);
    REQUIRE(tags.size() == paths.size());
    CHECK_FALSE(tags[0]);
    CHECK_FALSE(tags[1]);
    CHECK_FALSE(tags[2]);
    REQUIRE(tags[3]);
    CHECK(tags[3]->id == "25");
    REQUIRE(tags[4]);  // another directory, another family
    CHECK(tags[4]->id == "1");
  }

  TEST_CASE("job_ids: SLURM lines name their job") {
    auto line_id = [](std::string_view line) {
      const std::optional<JobTag> tag = job_from_slurm_line(line);
      return tag ? tag->id : std::string();
    };
    CHECK(line_id("slurmstepd: error: *** JOB 19 ON node1 CANCELLED AT 2026-11-29T15:43:02 DUE TO TIME LIMIT ***") == "19");
    CHECK(line_id("slurmstepd: error: *** STEP 1234.0 ON node01 CANCELLED AT 2024-05-01T12:00:00 ***") == "1234");
    CHECK(line_id("srun: error: Task launch for StepId=1234.0 failed on node gpu07: Invalid node name") == "1234");
    CHECK(line_id("srun: error: Task launch for StepId=25_3.0 failed") == "25_3");
    CHECK(line_id("*** JOB  ON x") == "");
    CHECK(line_id("JOB 25 finished") == "");
  }

  TEST_CASE("job_ids: SLURM ids order by job number, then array task") {
    const auto a = parse_slurm_job_id("25"), b = parse_slurm_job_id("25_3"), c = parse_slurm_job_id("26");
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(c);
    CHECK(slurm_id_newer(*b, *a));
    CHECK(slurm_id_newer(*c, *b));
    CHECK_FALSE(parse_slurm_job_id("x25"));
    CHECK_FALSE(parse_slurm_job_id("0"));
    CHECK_FALSE(parse_slurm_job_id("25_"));
  }
}

}  // namespace
}  // namespace megatriage
