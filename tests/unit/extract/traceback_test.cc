#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "extract/traceback.h"

using namespace megatriage;

namespace {
// Feeds a multi-line text as one stream and returns every traceback it yields.
std::vector<Traceback> feed_all(const std::string& text) {
  TracebackBuilder b;
  std::vector<Traceback> out;
  std::istringstream in(text);
  std::string line;
  std::uint64_t n = 0;
  while (std::getline(in, line)) {
    if (b.feed(line, ++n))
      while (b.has_ready()) out.push_back(b.take());
  }
  if (b.finish())
    while (b.has_ready()) out.push_back(b.take());
  return out;
}
}  // namespace

TEST_SUITE("traceback") {
TEST_CASE("traceback: plain traceback with 3.11 carets keeps frames and the exception") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"/ws/train.py\", line 247, in <module>\n"
      "    pretrain(parse_args())\n"
      "  File \"/ws/train.py\", line 146, in _sample_ids\n"
      "    return torch.stack([self.index[i] for i in r])\n"
      "                       ~~~~~~~~~~^^^\n"
      "IndexError: index 4096 is out of bounds for dimension 0 with size 4096\n"
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1)\n");
  REQUIRE(tbs.size() == 1);
  CHECK(to_debug_string(tbs[0]) ==
        "@1 frames=2 last=/ws/train.py:146:_sample_ids exc@7=\"IndexError: index 4096 is out of "
        "bounds for dimension 0 with size 4096\"");
  CHECK(tbs[0].blocks[0].frames[1].source == "return torch.stack([self.index[i] for i in r])");
}

TEST_CASE("traceback: a new header ends the previous traceback") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "ValueError: first\n"
      "Traceback (most recent call last):\n"
      "  File \"b.py\", line 2, in g\n"
      "KeyError: 'second'\n");
  REQUIRE(tbs.size() == 2);
  CHECK(tbs[0].blocks[0].exception == "ValueError: first");
  CHECK(tbs[1].blocks[0].exception == "KeyError: 'second'");
  CHECK(tbs[1].first_line == 4);
}

TEST_CASE("traceback: chained exceptions stay one traceback, oldest block first") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"torch_norm.py\", line 50, in __new__\n"
      "    assert not config.persist_layer_norm\n"
      "AssertionError: persist_layer_norm not supported by torch LayerNorm\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"pretrain_gpt.py\", line 536, in <module>\n"
      "AssertionError: persist_layer_norm not supported when instantiating TransformerLayer\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks.size() == 2);
  CHECK(tbs[0].chain_kind == ChainKind::Context);
  CHECK(tbs[0].first_line == 1);
  CHECK(tbs[0].blocks[1].header_line == 8);
  CHECK(tbs[0].blocks[0].exception_line == 4);
}

TEST_CASE("traceback: direct cause separator") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"t.py\", line 512, in load\n"
      "FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/.metadata'\n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"c.py\", line 3, in main\n"
      "RuntimeError: Failed to load checkpoint\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].chain_kind == ChainKind::Cause);
  CHECK(tbs[0].blocks[1].exception == "RuntimeError: Failed to load checkpoint");
}

TEST_CASE("traceback: multi-line messages are kept until a log line") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"x.py\", line 1, in f\n"
      "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:317, unhandled system error\n"
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
      "Last error:\n"
      "socketStartConnect: Connect to 10.1.0.2<48231> failed : Software caused connection abort\n"
      "[E501 12:00:03.123 ProcessGroupNCCL.cpp:1] later line\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks[0].message_tail ==
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
        "Last error:\n"
        "socketStartConnect: Connect to 10.1.0.2<48231> failed : Software caused connection abort");
  CHECK(tbs[0].last_line == 6);
}

TEST_CASE("traceback: a traceback cut off at end of stream is incomplete") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"x.py\", line 1, in f\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].incomplete);
}

TEST_CASE("traceback: recursion marker and exception without message") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"r.py\", line 2, in f\n"
      "  [Previous line repeated 996 more times]\n"
      "AssertionError\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks[0].exception == "AssertionError");
  CHECK(tbs[0].blocks[0].frames.size() == 1);
}

TEST_CASE("traceback: exception group members are read through their margins") {
  auto tbs = feed_all(
      "  + Exception Group Traceback (most recent call last):\n"
      "  |   File \"/ws/launch.py\", line 40, in <module>\n"
      "  |     raise ExceptionGroup(\"worker errors\", errs)\n"
      "  | ExceptionGroup: worker errors (2 sub-exceptions)\n"
      "  +-+---------------- 1 ----------------\n"
      "    | Traceback (most recent call last):\n"
      "    |   File \"/ws/w.py\", line 10, in run\n"
      "    | ValueError: bad shard\n"
      "    +---------------- 2 ----------------\n"
      "    | TypeError: bad dtype\n"
      "    +------------------------------------\n"
      "\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].exception_group);
  REQUIRE(tbs[0].blocks.size() >= 2);
  CHECK(tbs[0].blocks[0].exception == "ExceptionGroup: worker errors (2 sub-exceptions)");
  CHECK(tbs[0].blocks[1].exception == "ValueError: bad shard");
  CHECK(tbs[0].blocks[1].frames.size() == 1);
}

TEST_CASE("traceback: frame count is capped, innermost frames kept") {
  std::string text = "Traceback (most recent call last):\n";
  for (int i = 1; i <= 200; ++i) text += "  File \"f.py\", line " + std::to_string(i) + ", in f\n";
  text += "RecursionError: maximum recursion depth exceeded\n";
  auto tbs = feed_all(text);
  REQUIRE(tbs.size() == 1);
  const auto& frames = tbs[0].blocks[0].frames;
  CHECK(frames.size() == 64);
  CHECK(tbs[0].blocks[0].frames_truncated);
  CHECK(frames.front().line == 1);
  CHECK(frames.back().line == 200);
}

// Regression (found by tests/fuzz/fuzz_traceback): a frame cap below the 16 kept head frames
// (e.g. --max-frames 5, or 0) erased past the end of the frame vector.
TEST_CASE("traceback: a frame cap below the kept head (or 0) stays in bounds") {
  for (std::size_t cap : {0, 1, 3, 5, 15, 16, 17, 63}) {
    CAPTURE(cap);
    TracebackLimits limits;
    limits.max_frames = cap;
    TracebackBuilder b(limits);
    std::uint64_t n = 0;
    b.feed("Traceback (most recent call last):", ++n);
    for (int i = 1; i <= 100; ++i) b.feed("  File \"f.py\", line " + std::to_string(i) + ", in f", ++n);
    b.feed("RecursionError: maximum recursion depth exceeded", ++n);
    REQUIRE(b.finish());
    Traceback tb = b.take();
    const auto& block = tb.blocks[0];
    CHECK(block.frames.size() == cap);
    CHECK(block.frames_seen == 100);
    CHECK(block.frames_truncated);
    if (cap > 0) CHECK(block.frames.back().line == 100);
  }
}

TEST_CASE("traceback: cut exception text and message lines are flagged") {
  TracebackLimits limits;
  limits.max_text_bytes = 16;
  limits.max_message_lines = 1;
  TracebackBuilder b(limits);
  b.feed("Traceback (most recent call last):", 1);
  b.feed("  File \"f.py\", line 1, in f", 2);
  b.feed("ValueError: a message much longer than sixteen bytes", 3);
  REQUIRE(b.finish());
  Traceback tb = b.take();
  CHECK(tb.blocks[0].exception == "ValueError: a me");
  CHECK(tb.blocks[0].message_truncated);
  TracebackBuilder plain;
  plain.feed("Traceback (most recent call last):", 1);
  plain.feed("KeyError: 0", 2);
  REQUIRE(plain.finish());
  CHECK_FALSE(plain.take().blocks[0].message_truncated);
}

TEST_CASE("traceback: group margin stripping") {
  CHECK(strip_group_margin("  |   File \"x\", line 1, in f") == "  File \"x\", line 1, in f");
  CHECK(strip_group_margin("    | ValueError: x") == "ValueError: x");
  CHECK(strip_group_margin("plain text | with bar") == "plain text | with bar");
}
TEST_CASE("traceback: a message that announces a traceback (ends with ':') keeps it as a block") {
  SUBCASE("right after the message, or after a blank line") {
    auto tbs = feed_all(
        "Traceback (most recent call last):\n"
        "  File \"python/ray/_raylet.pyx\", line 2276, in ray._raylet.task_execution_handler\n"
        "RuntimeError: The actor with name WorkerDict failed to import on the worker. This may be because needed library dependencies are not installed in the worker environment:\n"
        "\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/flash_attn/__init__.py\", line 3, in <module>\n"
        "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c10\n");
    REQUIRE(tbs.size() == 1);
    REQUIRE(tbs[0].blocks.size() == 2);
    CHECK(tbs[0].blocks[1].embedded);
    CHECK(tbs[0].blocks[1].header_line == 5);
    CHECK(tbs[0].blocks[1].exception == "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c10");
  }
  SUBCASE("an announcement after a blank line (ProcessRaisedException)") {
    auto tbs = feed_all(
        "Traceback (most recent call last):\n"
        "  File \"/ws/main.py\", line 40, in <module>\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n"
        "\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/worker.py\", line 7, in run\n"
        "ValueError: bad\n");
    REQUIRE(tbs.size() == 1);
    REQUIRE(tbs[0].blocks.size() == 2);
    CHECK(tbs[0].blocks[0].message_tail == "-- Process 0 terminated with the following error:");
    CHECK(tbs[0].blocks[1].exception == "ValueError: bad");
  }
  SUBCASE("a line ending with ':' not followed by a header ends the traceback") {
    auto tbs = feed_all(
        "Traceback (most recent call last):\n"
        "  File \"/ws/main.py\", line 40, in <module>\n"
        "ValueError: bad\n"
        "\n"
        "Summary:\n"
        "iteration 3\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/main.py\", line 41, in <module>\n"
        "KeyError: 'x'\n");
    REQUIRE(tbs.size() == 2);
    CHECK(tbs[0].blocks.size() == 1);
    CHECK(tbs[1].first_line == 7);
  }
  SUBCASE("a message that does not announce: a new traceback") {
    auto tbs = feed_all(
        "Traceback (most recent call last):\n"
        "  File \"a.py\", line 1, in f\n"
        "ValueError: first\n"
        "\n"
        "Traceback (most recent call last):\n"
        "  File \"b.py\", line 2, in g\n"
        "KeyError: 'second'\n");
    CHECK(tbs.size() == 2);
  }
}

TEST_CASE("traceback: a traceback printed inside a message is a block of its own") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"/ws/train.py\", line 80, in <module>\n"
      "torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])\n"
      "Traceback (most recent call last): (RANK 0)\n"
      "  File \"/ws/utils.py\", line 192, in reduce_scatter\n"
      "megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch\n"
      "Traceback (most recent call last): (RANK 1)\n"
      "  File \"/ws/utils.py\", line 192, in reduce_scatter\n"
      "megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch\n");
  REQUIRE(tbs.size() == 1);
  CHECK(to_debug_string(tbs[0]) ==
        "@1 frames=1 last=/ws/train.py:80:<module> exc@3=\"torch.distributed.checkpoint.api.CheckpointException: "
        "CheckpointException ranks:dict_keys([0, 1])\" | @4 frames=1 last=/ws/utils.py:192:reduce_scatter "
        "exc@6=\"megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch\" embedded | "
        "@7 frames=1 last=/ws/utils.py:192:reduce_scatter exc@9=\"megatron.core.dist_checkpointing.core."
        "CheckpointingException: Global shape mismatch\" embedded");
}

TEST_CASE("traceback: a log line quoting a header after its own head is not an embedded traceback") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "ValueError: first\n"
      "rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):\n"
      "  File \"b.py\", line 2, in g\n"
      "KeyError: 'second'\n");
  REQUIRE_FALSE(tbs.empty());
  CHECK(tbs[0].blocks.size() == 1);
}

TEST_CASE("traceback: a chain separator right after the message (its blank line went to another stream)") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "AssertionError: persist_layer_norm not supported\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"b.py\", line 2, in g\n"
      "AssertionError: persist_layer_norm not supported when instantiating TransformerLayer\n");
  REQUIRE(tbs.size() == 1);
  REQUIRE(tbs[0].blocks.size() == 2);
  CHECK(tbs[0].chain_kind == ChainKind::Context);
  CHECK(tbs[0].blocks[0].message_tail.empty());
}
}
