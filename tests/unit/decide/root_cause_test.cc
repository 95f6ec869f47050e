// root_cause: which event is the root. Ends of the job, kernel assertions, ties, wrapped and
// interleaved tracebacks, over "analyze one file" on in-memory logs with the repository's rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "decide/classify.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "extract/extract.h"
#include "match/rules.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

using test::repo_matcher;

FileResult analyze_with(const RuleMatcher& matcher, const std::string& text, FileId id, const std::string& name) {
  SourceFile file;
  file.id = id;
  file.path = file.display_path = name;
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, name, diags);
  FileResult r = analyze_source(file, *source, matcher, AnalyzeOptions{}, diags);
  apply_year(r, 2026);
  return r;
}

FileResult analyze_text(const std::string& text, FileId id = 0, const std::string& name = "logs/x.err") {
  return analyze_with(repo_matcher(), text, id, name);
}

// The repository's rules plus a kernel-assertion line rule tagged `device-assert`, as the rules
// for CUDA kernel assertions carry it.
const RuleMatcher& kernel_assert_matcher() {
  static DiagnosticSink diags;
  static RuleMatcher matcher = [] {
    std::vector<Rule> rules = load_rules({default_rules_dir()}, diags);
    std::vector<Rule> extra = parse_rules_text(R"({"rules": [{
      "id": "test.kernel-assertion", "title": "CUDA kernel assertion", "category": "unknown",
      "applies_to": "line", "role": "cause", "priority": 100, "tags": ["device-assert"],
      "needles": ["Assertion `"], "regex": "\\.cu:[0-9]+: [^\\n]*Assertion `[^\\n]*` failed",
      "explain": "A CUDA kernel assertion failed.",
      "samples": {"match": ["/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed."],
                  "no_match": ["Assertion failed"]}}]})",
                                               "test.json", diags);
    rules.insert(rules.end(), extra.begin(), extra.end());
    std::sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; });
    return RuleMatcher(std::move(rules), diags);
  }();
  return matcher;
}

struct Decided {
  std::vector<FileResult> files;
  std::vector<TimelineEntry> timeline;
  std::optional<Finding> finding;
  RootCauseReport report;
  const Event& root() const { return *timeline[finding->index].event; }
  const Event& shown() const { return *timeline[finding->location].event; }
  bool has_reason(const std::string& part) const {
    for (const auto& r : finding->reasons)
      if (r.find(part) != std::string::npos) return true;
    return false;
  }
};

// The decision over `files`; `files` must not be moved afterwards (the timeline points into it).
void decide(Decided& d, const RuleMatcher& matcher = repo_matcher()) {
  d.timeline = merge_timeline(d.files);
  d.finding = select_root_cause(d.timeline, matcher);
  if (d.finding) d.report = classify_root(*d.finding, d.timeline, matcher);
}

const std::string kTimeLimit =
    "slurmstepd-node1: error: *** JOB 19 ON node1 CANCELLED AT 2026-11-29T15:43:02 DUE TO TIME LIMIT ***\n";

std::string oom_traceback(int rank, const std::string& after_stamp) {
  std::string p = "[rank" + std::to_string(rank) + "]: ";
  return p + "Traceback (most recent call last):\n" + p + "  File \"/ws/t.py\", line 9, in step\n" + p +
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n" +
         "E1129 " + after_stamp + " 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 9) of binary: python3\n";
}

}  // namespace

TEST_SUITE("root_cause") {
TEST_CASE("root_cause: the time limit with nothing before it is the root") {
  Decided d;
  d.files.push_back(analyze_text("iteration 1\n" + kTimeLimit +
                                 "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.root().origin.line == 2);
  CHECK(d.has_reason("nothing failed before the job's time limit"));
}

TEST_CASE("root_cause: a rendezvous timeout before the time limit is the root; the end is its consequence") {
  Decided d;
  d.files.push_back(analyze_text(
      "[E1129 15:35:27.464325505 socket.cpp:1028] [c10d] The client socket has timed out after 60000ms while trying to connect to (127.0.0.1, 29616).\n" +
      kTimeLimit));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.root().origin.line == 1);
  CHECK(d.report.category == Category::Nccl);
  CHECK(d.finding->basis == Basis::NcclFallback);
  CHECK(d.has_reason("came before the job's time limit (logs/x.err:2)"));
}

TEST_CASE("root_cause: an exception before the end is the root; exceptions after it are not") {
  SUBCASE("before") {
    Decided d;
    d.files.push_back(analyze_text(oom_traceback(1, "15:40:00.000000") + kTimeLimit));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.report.category == Category::Oom);
  }
  SUBCASE("after: the end is the root") {
    Decided d;
    d.files.push_back(analyze_text(kTimeLimit + oom_traceback(1, "15:43:05.000000")));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.root().kind == EventKind::RuleLine);
    CHECK(d.root().origin.line == 1);
  }
}

TEST_CASE("root_cause: a traceback without any stamp above the end's line came before it") {
  Decided d;
  d.files.push_back(analyze_text(
      "1: Traceback (most recent call last):\n"
      "1:   File \"/ws/t.py\", line 1, in <module>\n"
      "1: ModuleNotFoundError: No module named 'wandb'\n" +
      kTimeLimit));
  // srun --label's task 1 printed no stamp: its traceback has no time and sorts last.
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.category == Category::Import);
  CHECK(d.root().origin.line == 1);
  CHECK_FALSE(d.timeline[d.finding->index].key_us.has_value());
  CHECK(d.has_reason("it was printed above the job's time limit (logs/x.err:4)"));
}

TEST_CASE("root_cause: a node failure explains the connection errors its peers printed") {
  Decided d;
  d.files.push_back(analyze_text(
      "[E1129 15:35:27.464325505 socket.cpp:1028] [c10d] The client socket has timed out after 60000ms while trying to connect to (10.0.0.2, 29616).\n"
      "slurmstepd: error: *** JOB 1234 ON node01 CANCELLED AT 2026-11-29T15:40:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.root().origin.line == 2);
  CHECK(d.has_reason("what its peers saw of it"));
}

TEST_CASE("root_cause: a kernel's assertion line outranks the device-side assert tracebacks") {
  Decided d;
  // Rank 1's traceback is stamped before the kernel line of rank 0 is bounded: the kernel line
  // still wins, since the traceback only reports it.
  d.files.push_back(analyze_with(kernel_assert_matcher(),
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/ws/t.py\", line 9, in step\n"
      "[rank1]: RuntimeError: CUDA error: device-side assert triggered\n"
      "E1129 15:00:01.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 1 (pid: 9) of binary: python3\n",
      0, "logs/a.err"));
  d.files.push_back(analyze_with(kernel_assert_matcher(),
      "[W1129 15:00:00.000000000 x.cpp:1] step\n"
      "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.\n"
      "[W1129 15:00:02.000000000 x.cpp:1] later\n",
      1, "logs/b.err"));
  decide(d, kernel_assert_matcher());
  REQUIRE(d.finding.has_value());
  CHECK(d.root().kind == EventKind::RuleLine);
  CHECK(d.root().origin.file == 1);
  CHECK(d.has_reason("kernel's own assertion line"));
}

TEST_CASE("root_cause: ranks failing in the same second are named, and confidence is not high") {
  Decided d;
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(11, "15:00:30.000000"), 0, "logs/a.err"));
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(12, "15:00:30.000000"), 1, "logs/b.err"));
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(13, "15:00:30.400000"), 2, "logs/c.err"));
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(14, "15:00:45.000000"), 3, "logs/d.err"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.finding->who.rank == 11);
  CHECK(d.finding->tied_ranks == std::vector<int>{12, 13});
  CHECK(d.finding->tied_events == 2);
  CHECK(d.has_reason("ranks 12 and 13 also failed the same way"));
  CHECK(d.finding->confidence == Confidence::Medium);
}

TEST_CASE("root_cause: a root alone in its second keeps its confidence and has no ties") {
  Decided d;
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(3, "15:00:30.000000")));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.finding->tied_ranks.empty());
  CHECK(d.finding->tied_events == 0);
  CHECK(d.finding->confidence == Confidence::High);
}

TEST_CASE("root_cause: the error inside a wrapper's message is the root's, at the wrapper's header") {
  SUBCASE("a message that announces the traceback after it (multiprocessing spawn)") {
    Decided d;
    d.files.push_back(analyze_text(
        "Traceback (most recent call last):\n"
        "  File \"/ws/main.py\", line 40, in <module>\n"
        "    mp.spawn(worker, nprocs=4)\n"
        "  File \"/usr/lib/python3/dist-packages/torch/multiprocessing/spawn.py\", line 160, in join\n"
        "    raise ProcessRaisedException(msg, error_index, failed_process.pid)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n"
        "\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/metrics.py\", line 47, in compute_miou_batch\n"
        "    pred_mask = pred_mask * (target > 0)\n"
        "RuntimeError: The size of tensor a (112) must match the size of tensor b (224) at non-singleton dimension 2\n"));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.report.category == Category::Shape);
    CHECK(d.report.line == 1);
    CHECK(d.report.exception.substr(0, 40) == "RuntimeError: The size of tensor a (112)");
    REQUIRE(d.report.chain.size() == 2);
    CHECK(d.report.chain[0] == "torch.multiprocessing.spawn.ProcessRaisedException:");
    CHECK(d.has_reason("carried inside the message of a wrapper exception (torch.multiprocessing.spawn.ProcessRaisedException:)"));
  }
  SUBCASE("an exception line inside the wrapper's message (Ray)") {
    Decided d;
    d.files.push_back(analyze_text(
        "Traceback (most recent call last):\n"
        "  File \"/ws/main.py\", line 12, in <module>\n"
        "    ray.get(main_task.remote(config))\n"
        "ray.exceptions.RayTaskError(ModuleNotFoundError): ray::main_task() (pid=2105103, ip=10.0.0.7)\n"
        "  File \"/ws/trainer.py\", line 3, in <module>\n"
        "    import vllm\n"
        "ModuleNotFoundError: No module named 'vllm'\n"));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.report.category == Category::Import);
    CHECK(d.report.exception == "ModuleNotFoundError: No module named 'vllm'");
    REQUIRE(d.report.chain.size() == 1);
    CHECK(d.report.chain[0].substr(0, 48) == "ray.exceptions.RayTaskError(ModuleNotFoundError)");
    CHECK(d.has_reason("carried inside the message of a wrapper exception"));
  }
}

TEST_CASE("root_cause: CheckpointException's per-rank tracebacks: the inner error is the root's exception") {
  Decided d;
  d.files.push_back(analyze_text(
      "[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"/ws/train.py\", line 80, in <module>\n"
      "[rank0]:     dcp.save(state, checkpoint_id=path)\n"
      "[rank0]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([2])\n"
      "[rank0]: Traceback (most recent call last): (RANK 2)\n"
      "[rank0]:   File \"/usr/lib/python3/dist-packages/torch/distributed/checkpoint/utils.py\", line 192, in reduce_scatter\n"
      "[rank0]:     local_data = map_fun()\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 2 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.category == Category::Oom);
  CHECK(d.report.exception.rfind("torch.OutOfMemoryError: CUDA out of memory.", 0) == 0);
  REQUIRE(d.report.chain.size() == 2);
  CHECK(d.report.chain[0].rfind("torch.distributed.checkpoint.api.CheckpointException:", 0) == 0);
  CHECK(d.report.line == 1);
  CHECK(d.has_reason("carried inside the message of a wrapper exception (torch.distributed.checkpoint.api.CheckpointException:"));
}

TEST_CASE("root_cause: torch's ExceptionWrapper (`Original Traceback`): the inner error decides, however long") {
  std::string text =
      "Traceback (most recent call last):\n"
      "  File \"/ws/train.py\", line 80, in <module>\n"
      "  File \"/usr/lib/python3/dist-packages/torch/_utils.py\", line 715, in reraise\n"
      "    raise exception\n"
      "torch.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0.\n"
      "Original Traceback (most recent call last):\n";
  for (int i = 0; i < 60; ++i)
    text += "  File \"/ws/model.py\", line " + std::to_string(i + 1) + ", in forward\n    x = layer(x)\n";
  text += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 63.42 GiB of which 1.20 GiB is free.\n";
  Decided d;
  d.files.push_back(analyze_text(text));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.category == Category::Oom);
  CHECK(d.report.rule == "cuda.oom");
  CHECK(d.report.exception.rfind("torch.OutOfMemoryError: CUDA out of memory.", 0) == 0);
  CHECK(d.report.line == 1);
  CHECK(d.has_reason("(torch.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0.)"));
}

TEST_CASE("root_cause: an inner error as unknown as its wrapper still replaces it (DataLoader worker)") {
  Decided d;
  d.files.push_back(analyze_text(
      "Traceback (most recent call last):\n"
      "  File \"/ws/train.py\", line 80, in <module>\n"
      "ValueError: Caught ValueError in DataLoader worker process 0.\n"
      "Original Traceback (most recent call last):\n"
      "  File \"/ws/data.py\", line 12, in __getitem__\n"
      "ValueError: sample 1234 has no field 'text'\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.exception == "ValueError: sample 1234 has no field 'text'");
  CHECK(d.report.category == Category::Unknown);
}

TEST_CASE("root_cause: in a chain, a later block that names the failure beats a generic first one") {
  Decided d;
  d.files.push_back(analyze_text(
      "Traceback (most recent call last):\n"
      "  File \"/ws/t.py\", line 1, in <module>\n"
      "FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/latest'\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/ws/t.py\", line 5, in <module>\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.category == Category::Oom);
  CHECK(d.report.line == 1);
  SUBCASE("but the first of equals wins: the first exception is the cause") {
    Decided first;
    first.files.push_back(analyze_text(
        "Traceback (most recent call last):\n"
        "  File \"/ws/t.py\", line 1, in <module>\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB (GPU 3; 79.35 GiB total capacity; 63.19 GiB already allocated)\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/t.py\", line 5, in <module>\n"
        "ModuleNotFoundError: No module named 'apex'\n"));
    decide(first);
    REQUIRE(first.finding.has_value());
    CHECK(first.report.category == Category::Oom);
  }
}

TEST_CASE("root_cause: tracebacks interleaved by processes printing at once point at the first header") {
  Decided d;
  d.files.push_back(analyze_text(
      "2024-07-28 16:46:36 - LOGS - epoch 0 done\n"
      "Traceback (most recent call last):\n"
      "Traceback (most recent call last):\n"
      "  File \"/ws/stats.py\", line 77, in update\n"
      "Traceback (most recent call last):\n"
      "  File \"/ws/metric_base.py\", line 210, in update\n"
      "  File \"/ws/iou.py\", line 47, in compute_miou_batch\n"
      "RuntimeError: The size of tensor a (112) must match the size of tensor b (224) at non-singleton dimension 2\n"
      "2024-07-28 16:46:40 - LOGS - later\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.report.category == Category::Shape);
  CHECK(d.root().origin.line == 5);
  CHECK(d.shown().origin.line == 2);
  CHECK(d.report.line == 2);
  CHECK(d.has_reason("interleaved"));
}

TEST_CASE("root_cause: the same error from a stream without a rank in the same second is a tie") {
  Decided d;
  const std::string tb =
      "Traceback (most recent call last):\n"
      "  File \"/ws/iou.py\", line 47, in compute_miou_batch\n"
      "RuntimeError: The size of tensor a (112) must match the size of tensor b (224) at non-singleton dimension 2\n";
  d.files.push_back(analyze_text("2024-07-28 16:46:36 - LOGS - epoch 0 done\n" + tb + tb + tb +
                                 "2024-07-28 16:46:37 - LOGS - later\n"));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.root().origin.line == 2);
  CHECK(d.finding->tied_events == 2);
  CHECK(d.finding->tied_ranks.empty());
  CHECK(d.has_reason("2 other writer(s) without a rank also failed the same way (Tensor sizes do not match)"));
  CHECK(d.finding->confidence == Confidence::Medium);
}

TEST_CASE("root_cause: a ranked writer's later failures are not ties") {
  Decided d;
  d.files.push_back(analyze_text("[W1129 15:00:00.000000000 x.cpp:1] step\n" + oom_traceback(3, "15:00:30.000000") +
                                 oom_traceback(3, "15:00:30.100000")));
  decide(d);
  REQUIRE(d.finding.has_value());
  CHECK(d.finding->tied_events == 0);
}
}

TEST_CASE("root_cause: a lone exception line the training outlived is not the root") {
  const std::string lone = "ValueError: caught and printed by the data loader\n";
  const std::string iteration =
      " [2026-11-29 10:00:05] iteration      100/     100 | consumed samples: 800 | lm loss: 2.0E+00\n";
  SUBCASE("iterations after it: nothing failed") {
    Decided d;
    d.files.push_back(analyze_text(iteration + lone + iteration));
    decide(d);
    CHECK_FALSE(d.finding.has_value());
  }
  SUBCASE("the last thing the log says: it is the root, as weaker evidence") {
    Decided d;
    d.files.push_back(analyze_text(iteration + lone));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.root().text == "ValueError: caught and printed by the data loader");
    CHECK(d.finding->confidence != Confidence::High);
  }
  SUBCASE("a whole traceback keeps its weight even with iterations after it") {
    Decided d;
    d.files.push_back(analyze_text(iteration + "Traceback (most recent call last):\n  File \"t.py\", line 1, in f\n" +
                                   lone + iteration));
    decide(d);
    CHECK(d.finding.has_value());
  }
}

TEST_CASE("root_cause: an NCCL warning the training outlived is not the root") {
  const std::string warn = "node1:4242:4250 [3] transport/net_ib.cc:1200 NCCL WARN NET/IB : some new warning\n";
  const std::string iteration =
      " [2026-11-29 10:00:05] iteration       10/     100 | consumed samples: 80 | lm loss: 2.0E+00\n";
  SUBCASE("iterations after it: nothing failed") {
    Decided d;
    d.files.push_back(analyze_text(iteration + warn + iteration));
    decide(d);
    CHECK_FALSE(d.finding.has_value());
  }
  SUBCASE("no progress after it: the NCCL failure is the root") {
    Decided d;
    d.files.push_back(analyze_text(iteration + warn));
    decide(d);
    REQUIRE(d.finding.has_value());
    CHECK(d.report.category == Category::Nccl);
  }
}

TEST_CASE("root_cause: a trainer's logged loss dict is progress too") {
  Decided d;
  d.files.push_back(analyze_text(
      "OSError: We couldn't connect to 'https://huggingface.co' to load this file, retrying\n"
      " 10%|#         | 10/100 [00:10<01:30,  1.00it/s]{'loss': 2.1, 'grad_norm': 3.2, 'learning_rate': 1e-05, 'epoch': 0.1}\n"));
  decide(d);
  CHECK_FALSE(d.finding.has_value());
}
