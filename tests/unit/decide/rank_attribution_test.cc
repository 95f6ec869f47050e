// rank_attribution: whose failure the root is, and how that is known, on in-memory logs read
// with the repository's rules. Never a rank without a basis.
#include "decide/rank_attribution.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "extract/extract.h"
#include "input/discover.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

FileResult analyze_text(const std::string& text, FileId id = 0, const std::string& name = "logs/x.err") {
  SourceFile file;
  file.id = id;
  file.path = file.display_path = name;
  file.hint = hint_from_path(name);
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, name, diags);
  FileResult r = analyze_source(file, *source, test::repo_matcher(), AnalyzeOptions{}, diags);
  apply_year(r, 2026);
  return r;
}

struct Outcome {
  int rank = -1, local_rank = -1, task = -1;
  RankBasis basis = RankBasis::Unknown;
  Confidence confidence = Confidence::Low;
  std::string reasons;
};

Outcome attribute(const std::vector<FileResult>& files) {
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, test::repo_matcher());
  REQUIRE(finding.has_value());
  Outcome o{finding->who.rank, finding->who.local_rank, finding->who.task, finding->rank_basis, finding->confidence, ""};
  for (const auto& r : finding->reasons) o.reasons += r + "\n";
  return o;
}

Outcome attribute(const std::string& text, const std::string& name = "logs/x.err") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(text, 0, name));
  return attribute(files);
}

const std::string kIndexError =
    "Traceback (most recent call last):\n"
    "  File \"/ws/train.py\", line 146, in _sample_ids\n"
    "IndexError: index 4096 is out of bounds for dimension 0 with size 4096\n";

const std::string kPeerClosed =
    "Traceback (most recent call last):\n"
    "  File \"/ws/train.py\", line 200, in train_step\n"
    "RuntimeError: [./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:7386\n";

std::string table_entry(int rank, int local_rank, int exitcode, int pid) {
  return "  time      : 2026-11-29_15:54:26\n"
         "  host      : localhost\n"
         "  rank      : " + std::to_string(rank) + " (local_rank: " + std::to_string(local_rank) + ")\n"
         "  exitcode  : " + std::to_string(exitcode) + " (pid: " + std::to_string(pid) + ")\n"
         "  error_file: <N/A>\n"
         "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n";
}

std::string table(const std::vector<std::string>& others, const std::string& root) {
  std::string t = "Traceback (most recent call last):\n"
                  "  File \"/usr/bin/torchrun\", line 8, in <module>\n"
                  "    sys.exit(main())\n"
                  "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                  "============================================================\n"
                  "train.py FAILED\n"
                  "------------------------------------------------------------\n"
                  "Failures:\n";
  if (others.empty()) t += "  <NO_OTHER_FAILURES>\n";
  for (std::size_t i = 0; i < others.size(); ++i) t += "[" + std::to_string(i + 1) + "]:\n" + others[i];
  t += "------------------------------------------------------------\n"
       "Root Cause (first observed failure):\n[0]:\n" + root +
       "============================================================\n";
  return t;
}

std::string report(int exitcode, int local_rank, int pid) {
  return "E1129 15:54:26.100000 960 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: " +
         std::to_string(exitcode) + ") local_rank: " + std::to_string(local_rank) + " (pid: " + std::to_string(pid) +
         ") of binary: /usr/bin/python3\n";
}

}  // namespace

TEST_SUITE("rank_attribution") {
TEST_CASE("rank_attribution: the root's own prefix, then its file name") {
  Outcome prefixed = attribute("[rank5]: " + std::string("Traceback (most recent call last):\n") +
                               "[rank5]:   File \"/ws/t.py\", line 1, in f\n"
                               "[rank5]: IndexError: index 9 is out of bounds\n");
  CHECK(prefixed.rank == 5);
  CHECK(prefixed.basis == RankBasis::Prefix);
  Outcome named = attribute(kIndexError, "logs/rank3.err");
  CHECK(named.rank == 3);
  CHECK(named.basis == RankBasis::FileName);
}

TEST_CASE("rank_attribution: two launchers in one shared file, unprefixed tracebacks: unknown, and why") {
  // slurm-a1's shape: four workers' tracebacks, then both agents' reports and tables, each
  // table's "Root Cause" naming its own local rank 0.
  Outcome o = attribute(kIndexError + kPeerClosed + kPeerClosed + kPeerClosed + report(1, 0, 19356) +
                        report(1, 0, 19357) + table({table_entry(3, 1, 1, 19359)}, table_entry(2, 0, 1, 19357)) +
                        table({table_entry(1, 1, 1, 19358)}, table_entry(0, 0, 1, 19356)));
  CHECK(o.rank == -1);
  CHECK(o.basis == RankBasis::Unknown);
  CHECK(o.reasons.find("rank unknown") != std::string::npos);
  CHECK(o.reasons.find("4 unprefixed tracebacks") != std::string::npos);
  CHECK(o.reasons.find("ranks 0, 1, 2 and 3") != std::string::npos);
}

TEST_CASE("rank_attribution: a table whose only failed worker is the one traceback's") {
  Outcome o = attribute(kIndexError + report(1, 0, 1098) + table({}, table_entry(1, 0, 1, 1098)));
  CHECK(o.rank == 1);
  CHECK(o.local_rank == 0);
  CHECK(o.basis == RankBasis::LauncherReport);  // the report names pid 1098, the table its rank
  Outcome table_only = attribute(kIndexError + table({}, table_entry(1, 0, 1, 1098)));
  CHECK(table_only.rank == 1);
  CHECK(table_only.basis == RankBasis::ChildFailureTable);
}

TEST_CASE("rank_attribution: the launcher's report after the only traceback, one node: local rank = rank") {
  Outcome o = attribute(kIndexError + report(1, 2, 4711));
  CHECK(o.rank == 2);
  CHECK(o.local_rank == 2);
  CHECK(o.basis == RankBasis::LauncherReport);
  CHECK(o.confidence != Confidence::High);  // inferred: said so
  CHECK(o.reasons.find("inferred") != std::string::npos);
  // A second node in the job: the local rank alone does not give the rank.
  Outcome two_nodes = attribute("MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2\n" + kIndexError + report(1, 2, 4711));
  CHECK(two_nodes.rank == -1);
  CHECK(two_nodes.local_rank == 2);
  // Printed node rank and processes per node do.
  Outcome node_rank = attribute("MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2 NODE_RANK=1 NPROC_PER_NODE=4\n" + kIndexError + report(1, 2, 4711));
  CHECK(node_rank.rank == 6);
  // Not from a file that two launchers wrote to: its node rank may be the other's.
  Outcome shared_node_rank = attribute("MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2 NODE_RANK=1 NPROC_PER_NODE=4\n" +
                                       kIndexError + report(1, 2, 4711) + kPeerClosed + report(1, 0, 4712));
  CHECK(shared_node_rank.rank == -1);
  // A worker killed by a signal need not have printed the traceback.
  CHECK(attribute(kIndexError + report(-9, 2, 4711)).rank == -1);
  // Two tracebacks before one report: which one it means, nobody can say.
  CHECK(attribute(kIndexError + kPeerClosed + report(1, 0, 4711)).rank == -1);
}

TEST_CASE("rank_attribution: a report whose launcher's table lists several failed workers names only the lowest") {
  // Rank 1 raised; rank 0 died too before the agent looked: the report says local rank 0.
  Outcome o = attribute(kIndexError + report(1, 0, 100) +
                        table({table_entry(1, 1, 1, 101)}, table_entry(0, 0, 1, 100)));
  CHECK(o.rank == -1);
  CHECK(o.reasons.find("the lowest of the 2 failed workers") != std::string::npos);
}

TEST_CASE("rank_attribution: several launchers' reports in one file: inferred from their order") {
  Outcome o = attribute(kIndexError + report(1, 0, 100) + kPeerClosed + report(1, 0, 200) +
                        table({}, table_entry(2, 0, 1, 100)) + table({}, table_entry(0, 0, 1, 200)));
  CHECK(o.rank == 2);
  CHECK(o.basis == RankBasis::InferredOrder);
  CHECK(o.confidence != Confidence::High);
}

TEST_CASE("rank_attribution: torch.multiprocessing.spawn names the process whose traceback it re-raises") {
  const std::string spawn =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 50, in <module>\n"
      "    mp.spawn(main, nprocs=4)\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py\", line 158, in join\n"
      "    raise ProcessRaisedException(msg, error_index, failed_process.pid)\n"
      "torch.multiprocessing.spawn.ProcessRaisedException: \n"
      "\n"
      "-- Process 2 terminated with the following error:\n"
      "Traceback (most recent call last):\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py\", line 69, in _wrap\n"
      "    fn(i, *args)\n"
      "RuntimeError: The size of tensor a (112) must match the size of tensor b (224) at non-singleton dimension 3\n";
  // Whichever of the two tracebacks is the root (the wrapper here), it is process 2's.
  Outcome o = attribute(spawn);
  CHECK(o.rank == 2);
  CHECK(o.local_rank == 2);
  CHECK(o.basis == RankBasis::LauncherReport);
  CHECK(o.reasons.find("spawn") != std::string::npos);
  CHECK(attribute("MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2\n" + spawn).rank == -1);
}

TEST_CASE("rank_attribution: every rank-bearing line of the file names one rank") {
  Outcome o = attribute(kIndexError +
                        "[rank2]:[W1129 15:54:26.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group "
                        "has NOT been destroyed before we destruct ProcessGroupNCCL.\n");
  CHECK(o.rank == 2);
  CHECK(o.basis == RankBasis::SameFileRanks);
  Outcome nccl = attribute(
      "node1:1234:1250 [3] NCCL INFO comm 0x55d5c6f1b0a0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 18000 commId 0x1 "
      "- Init COMPLETE\n" + kIndexError);
  CHECK(nccl.rank == 3);
  CHECK(nccl.basis == RankBasis::SameFileRanks);
  Outcome several = attribute(
      kIndexError +
      "[rank2]:[W1129 15:54:26.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
      "destroyed before we destruct ProcessGroupNCCL.\n"
      "[rank1]:[W1129 15:54:26.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
      "destroyed before we destruct ProcessGroupNCCL.\n");
  CHECK(several.rank == -1);
  CHECK(several.reasons.find("several ranks (1 and 2)") != std::string::npos);  // the only note
  // SLURM's lines in the job's stderr are nobody's output.
  Outcome slurm = attribute(
      "[rank2]:[W1129 15:54:26.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
      "destroyed before we destruct ProcessGroupNCCL.\n"
      "slurmstepd: error: Detected 1 oom_kill event in StepId=4777403.0. Some of the step tasks have been OOM Killed.\n");
  CHECK(slurm.rank == -1);
}

TEST_CASE("rank_attribution: an srun task is the rank only where srun started the ranks") {
  Outcome o = attribute("srun: error: as01r3b17: task 3: Out Of Memory\n");
  CHECK(o.rank == 3);
  CHECK(o.task == 3);
  CHECK(o.basis == RankBasis::SrunTask);
  std::vector<FileResult> files;
  files.push_back(analyze_text("srun: error: as01r3b17: task 1: Out Of Memory\n", 0, "logs/job.err"));
  files.push_back(analyze_text(report(1, 0, 7), 1, "logs/job.out"));  // a torchrun agent ran
  Outcome agent = attribute(files);
  CHECK(agent.rank == -1);
  CHECK(agent.reasons.find("torchrun agent") != std::string::npos);
}

TEST_CASE("rank_attribution: a tee prefix's local rank, on a job of one node") {
  const std::string tee = "[default3]:Traceback (most recent call last):\n"
                          "[default3]:  File \"/ws/t.py\", line 1, in f\n"
                          "[default3]:IndexError: index 9 is out of bounds\n";
  Outcome o = attribute(tee);
  CHECK(o.rank == 3);
  CHECK(o.local_rank == 3);
  CHECK(o.basis == RankBasis::NodeLocalRank);
  CHECK(o.confidence != Confidence::High);
  CHECK(attribute("MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2\n" + tee).rank == -1);
}

TEST_CASE("rank_attribution: a one-process job is rank 0") {
  Outcome o = attribute("> initializing torch distributed with 1 workers ...\n" + kIndexError);
  CHECK(o.rank == 0);
  CHECK(o.basis == RankBasis::SingleProcess);
  CHECK(attribute("> initializing torch distributed with 4 workers ...\n" + kIndexError).rank == -1);
}
}
