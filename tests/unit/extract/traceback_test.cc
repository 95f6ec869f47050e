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

TEST_CASE("traceback: exception line shapes") {
  struct Row {
    const char* line;
    bool exception, known, error, warning, lone;
  };
  const Row rows[] = {
      {"torch.OutOfMemoryError: CUDA out of memory.", true, true, true, false, true},
      {"torch.OutOfMemoryError:", true, true, true, false, false},  // lone needs `: `
      {"ValueError: Template qwen3 does not exist.", true, true, true, false, true},
      {"ray.exceptions.RayTaskError(ModuleNotFoundError): ray::A.fit() (pid=1)", true, true, true, false, true},
      {"ray.exceptions.RayTaskError(Foo): x", true, true, true, false, false},  // no anchor: not lone
      {"megatron.core.dist_checkpointing.core.CheckpointingException: Global shape", true, true, true, false, true},
      {"Exception: something", true, true, true, false, true},
      {"KeyboardInterrupt", true, true, false, false, false},
      {"StopIteration", true, true, false, false, false},
      {"SystemExit: 1", true, true, false, false, false},
      {"torch._dynamo.exc.Unsupported: call_function", true, false, false, false, false},
      {"socket.timeout: timed out", true, false, false, false, false},
      {"UserWarning: this is deprecated", true, false, false, true, false},
      {"FutureWarning: x", true, false, false, true, false},
      {"Error: not a class", true, false, false, false, false},  // a class-like name, not lone
      {"shutil.Error: copy failed", true, true, true, false, true},
      {"ERROR: something", true, false, false, false, false},
      {"WARNING:root:message", false, false, false, false, false},
      {"https://example.com", false, false, false, false, false},
      {"module._apply(fn)", false, false, false, false, false},
      {"param_applied = fn(param)", false, false, false, false, false},
      {"return t.to(", false, false, false, false, false},
      {"  File \"x.py\", line 1, in f", false, false, false, false, false},
      {"/ws/x.py:12: UserWarning: foo", false, false, false, false, false},
      {"Foo", false, false, false, false, false},
      {"", false, false, false, false, false},
  };
  for (const Row& row : rows) {
    INFO(std::string(row.line));
    ExceptionLineShape shape = exception_line_shape(row.line);
    CHECK(shape.exception == row.exception);
    CHECK(shape.known == row.known);
    CHECK(shape.error == row.error);
    CHECK(shape.warning == row.warning);
    CHECK(is_lone_exception_line(row.line) == row.lone);
  }
}

TEST_CASE("traceback: frame lines, also glued or without indentation") {
  Frame f;
  CHECK(parse_frame_line("  File \"/ws/a.py\", line 12, in forward", f));
  CHECK(f.path == "/ws/a.py");
  CHECK(f.line == 12);
  CHECK(f.function == "forward");
  CHECK(parse_frame_line("File \"/m.py\", line 900, in _apply", f));
  CHECK(parse_frame_line(" File \"/m.py\", line 900, in _apply", f));
  CHECK(parse_frame_line("[Previous line repeated 2 more times]  File \"/m.py\", line 927, in _apply", f));
  CHECK(f.line == 927);
  CHECK(parse_frame_line("^^^  File \"/m.py\", line 1326, in convert", f));
  CHECK(f.function == "convert");
  CHECK(parse_frame_line("  File \"x.py\", line 3 in g", f));  // faulthandler
  CHECK(f.function == "g");
  CHECK(parse_frame_line("> File \"/w/train.py\", line 44, in <module>", f));  // loguru's catch point
  CHECK(f.line == 44);
  CHECK_FALSE(parse_frame_line(">> File \"x.py\", line 3, in g", f));
  CHECK_FALSE(parse_frame_line("ValueError: File \"x.py\", line 3, in g", f));
  CHECK_FALSE(parse_frame_line("    File \"x.py\" was not found", f));
}

TEST_CASE("traceback: loguru's format (catch point marked, variables shown, blank lines)") {
  // `logger.exception()` / `@logger.catch` with loguru's defaults (backtrace, diagnose).
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "\n"
      "> File \"/w/train.py\", line 44, in <module>\n"
      "    train(model, loader)\n"
      "    \u2502     \u2502      \u2514 <torch.utils.data.dataloader.DataLoader object at 0x7f2a1c3b2d90>\n"
      "    \u2502     \u2514 GPT(...)\n"
      "    \u2514 <function train at 0x7f2a1c3e5e40>\n"
      "\n"
      "  File \"/w/train.py\", line 31, in train\n"
      "    logits = model(batch)\n"
      "             \u2514 GPT(...)\n"
      "\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.\n"
      "2026-11-29 10:00:02.400 | INFO     | __main__:<module>:50 - exiting\n");
  REQUIRE(tbs.size() == 1);
  CHECK(to_debug_string(tbs[0]) ==
        "@1 frames=2 last=/w/train.py:31:train exc@13=\"torch.OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 4.00 GiB.\"");
  CHECK(tbs[0].blocks[0].frames[0].source == "train(model, loader)");
  CHECK(tbs[0].blocks[0].frames[1].source == "logits = model(batch)");
}

TEST_CASE("traceback: IPython's (Jupyter's) format, the exception named first") {
  auto tbs = feed_all(
      "---------------------------------------------------------------------------\n"
      "OutOfMemoryError                          Traceback (most recent call last)\n"
      "Cell In[7], line 3\n"
      "      1 model = GPT(config).cuda()\n"
      "      2 batch = next(iter(loader))\n"
      "----> 3 out = model(batch)\n"
      "\n"
      "File /opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py:1736, in Module._wrapped_call_impl(self, *args, **kwargs)\n"
      "   1735 else:\n"
      "-> 1736     return self._call_impl(*args, **kwargs)\n"
      "\n"
      "File ~/work/gpt.py:88, in GPT.forward(self, idx)\n"
      "     87 for block in self.h:\n"
      "---> 88     x = block(x)\n"
      "\n"
      "OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
  REQUIRE(tbs.size() == 1);
  CHECK_FALSE(tbs[0].headerless);
  CHECK(to_debug_string(tbs[0]) ==
        "@2 frames=3 last=~/work/gpt.py:88:GPT.forward exc@16=\"OutOfMemoryError: CUDA out of memory. Tried to "
        "allocate 2.00 GiB.\"");
  const ExceptionBlock& b = tbs[0].blocks[0];
  CHECK(b.frames[0].path == "Cell In[7]");
  CHECK(b.frames[0].line == 3);
  CHECK(b.frames[0].source == "out = model(batch)");
  CHECK(b.frames[1].function == "Module._wrapped_call_impl");
  CHECK(b.frames[1].source == "return self._call_impl(*args, **kwargs)");
  CHECK(b.frames[2].source == "x = block(x)");
  // IPython 8.5 wrote the cell as `Cell In [1]`.
  auto older = feed_all(
      "ModuleNotFoundError                       Traceback (most recent call last)\n"
      "Cell In [1], line 1\n"
      "----> 1 train(5, 'transformer_engine')\n"
      "\n"
      "ModuleNotFoundError: No module named 'transformer_engine'\n");
  REQUIRE(older.size() == 1);
  CHECK(to_debug_string(older[0]) ==
        "@1 frames=1 last=Cell In [1]:1: exc@5=\"ModuleNotFoundError: No module named 'transformer_engine'\"");
}

TEST_CASE("traceback: IPython 7's frames, and a chain") {
  auto tbs = feed_all(
      "---------------------------------------------------------------------------\n"
      "KeyError                                  Traceback (most recent call last)\n"
      "<ipython-input-5-9f2c> in <module>\n"
      "----> 1 index['x']\n"
      "\n"
      "KeyError: 'x'\n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "RuntimeError                              Traceback (most recent call last)\n"
      "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py in _call_impl(self, *input, **kwargs)\n"
      "   1101         if not (self._backward_hooks or self._forward_hooks):\n"
      "-> 1102             return forward_call(*input, **kwargs)\n"
      "\n"
      "RuntimeError: CUDA error: device-side assert triggered\n"
      "done\n");
  REQUIRE(tbs.size() == 1);
  REQUIRE(tbs[0].blocks.size() == 2);
  CHECK(tbs[0].blocks[0].exception == "KeyError: 'x'");
  CHECK(tbs[0].blocks[0].frames[0].path == "<ipython-input-5-9f2c>");
  CHECK(tbs[0].blocks[0].frames[0].function == "<module>");
  CHECK(tbs[0].blocks[1].exception == "RuntimeError: CUDA error: device-side assert triggered");
  CHECK(tbs[0].blocks[1].frames[0].path == "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py");
  CHECK(tbs[0].blocks[1].frames[0].line == 0);  // not printed
  CHECK(tbs[0].blocks[1].frames[0].function == "_call_impl");
  CHECK(tbs[0].blocks[1].frames[0].source == "return forward_call(*input, **kwargs)");
}

TEST_CASE("traceback: rich's boxed format (rich.traceback), a long path wrapped, a chain") {
  auto tbs = feed_all(
      "\u256d\u2500\u2500\u2500 Traceback (most recent call last) \u2500\u2500\u2500\u256e\n"
      "\u2502 /ws/rich_train.py:21 in <module>                   \u2502\n"
      "\u2502                                                    \u2502\n"
      "\u2502   20                                               \u2502\n"
      "\u2502 \u2771 21 train(5, sys.argv[1])                        \u2502\n"
      "\u2502                                                    \u2502\n"
      "\u2502 /opt/conda/lib/python3.7/site-packages/deepspeed/runtime/config.py: \u2502\n"
      "\u2502 891 in _batch_assertion                            \u2502\n"
      "\u2502                                                    \u2502\n"
      "\u2502   890 \u2502   \u2502   assert train_batch == micro_batch * grad_acc \u2502\n"
      "\u2502 \u2771 891 \u2502   \u2502   \u2502   f\"Check batch related parameters\" \u2502\n"
      "\u2570\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u256f\n"
      "AssertionError: Check batch related parameters.\n"
      "\n"
      "The above exception was the direct cause of the following exception:\n"
      "\n"
      "\u256d\u2500\u2500\u2500 Traceback (most recent call last) \u2500\u2500\u2500\u256e\n"
      "\u2502 /ws/rich_train.py:30 in main                       \u2502\n"
      "\u2570\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u256f\n"
      "RuntimeError: bad config\n"
      "done\n");
  REQUIRE(tbs.size() == 1);
  CHECK_FALSE(tbs[0].headerless);
  REQUIRE(tbs[0].blocks.size() == 2);
  const ExceptionBlock& b = tbs[0].blocks[0];
  CHECK(b.header_line == 1);
  REQUIRE(b.frames.size() == 2);
  CHECK(b.frames[0].path == "/ws/rich_train.py");
  CHECK(b.frames[0].line == 21);
  CHECK(b.frames[0].function == "<module>");
  CHECK(b.frames[0].source == "train(5, sys.argv[1])");
  CHECK(b.frames[1].path == "/opt/conda/lib/python3.7/site-packages/deepspeed/runtime/config.py");
  CHECK(b.frames[1].line == 891);
  CHECK(b.frames[1].function == "_batch_assertion");
  CHECK(b.frames[1].source == "f\"Check batch related parameters\"");
  CHECK(b.exception == "AssertionError: Check batch related parameters.");
  CHECK(tbs[0].blocks[1].exception == "RuntimeError: bad config");
  CHECK(tbs[0].blocks[1].frames.size() == 1);
}

TEST_CASE("traceback: what only looks like IPython's header") {
  for (const char* line : {"see Traceback (most recent call last) below", "OutOfMemoryError Traceback (most recent call last)",
                           "Out Of Memory                             Traceback (most recent call last)",
                           "                                          Traceback (most recent call last)"}) {
    CAPTURE(line);
    CHECK_FALSE(TracebackBuilder::is_header(line));
  }
  CHECK(TracebackBuilder::is_header("torch.OutOfMemoryError                    Traceback (most recent call last)"));
  // A notebook-shaped frame in CPython's traceback is no frame there.
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"/w/a.py\", line 1, in f\n"
      "File /w/b.py:2, in g()\n"
      "KeyError: 'x'\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks[0].frames.size() == 1);
}

TEST_CASE("traceback: frames without a header are a headerless traceback") {
  auto tbs = feed_all(
      "[launcher] starting\n"
      "  File \"/opt/megatron-lm/megatron/core/parallel_state.py\", line 532, in initialize_model_parallel\n"
      "    raise RuntimeError(f\"world_size ({world_size}) is not divisible by {total_model_size}\")\n"
      "RuntimeError: world_size (1) is not divisible by 2\n");
  REQUIRE(tbs.size() == 1);
  CHECK(to_debug_string(tbs[0]) ==
        "@2 frames=1 last=/opt/megatron-lm/megatron/core/parallel_state.py:532:initialize_model_parallel "
        "exc@4=\"RuntimeError: world_size (1) is not divisible by 2\" headerless");
  CHECK(tbs[0].first_line == 2);
  CHECK(tbs[0].blocks[0].frames[0].source.find("raise RuntimeError") == 0);
}

TEST_CASE("traceback: an excerpt that starts in source and caret lines") {
  auto tbs = feed_all(
      "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "  File \"/m/schedules.py\", line 809, in forward_backward_pipelining_with_interleaving\n"
      "    raise ValueError(msg)\n"
      "ValueError: The number of contiguous micro-batches in a virtual pipeline stage should range in [PP=6 , M=3]\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].headerless);
  CHECK(tbs[0].blocks[0].exception_line == 4);
  CHECK(tbs[0].blocks[0].exception.rfind("ValueError: The number", 0) == 0);
}

TEST_CASE("traceback: a headerless Ray traceback keeps the remote frames in its message") {
  auto tbs = feed_all(
      "Status message: Job entrypoint command failed with exit code 1, last available logs:\n"
      "  File \"/ray/_private/worker.py\", line 861, in get_objects\n"
      "    raise value.as_instanceof_cause()\n"
      "ray.exceptions.RayTaskError(ModuleNotFoundError): ray::ActorModelRayActor.fit() (pid=59379)\n"
      "  File \"/openrlhf/trainer/ray/ppo_actor.py\", line 85, in __init__\n"
      "    import vllm\n"
      "ModuleNotFoundError: No module named 'vllm'\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].headerless);
  CHECK(tbs[0].blocks[0].exception_line == 4);
  CHECK(tbs[0].blocks[0].message_tail.find("ModuleNotFoundError: No module named 'vllm'") != std::string::npos);
}

TEST_CASE("traceback: a frame or source line is never the exception, even mangled") {
  // Eight processes' output interleaved: indentation lost, frames glued to carets and to the
  // recursion marker, the exception's message on the next line.
  auto tbs = feed_all(
      "File \"/torch/nn/modules/module.py\", line 900, in _apply\n"
      "module._apply(fn)\n"
      "[Previous line repeated 2 more times]  File \"/torch/nn/modules/module.py\", line 927, in _apply\n"
      "param_applied = fn(param)\n"
      "^^^^^^\n"
      "^^^  File \"/torch/nn/modules/module.py\", line 1326, in convert\n"
      "return t.to(\n"
      "^^^^^\n"
      "torch.OutOfMemoryError:\n"
      "CUDA out of memory. Tried to allocate 130.00 MiB.\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].headerless);
  const ExceptionBlock& b = tbs[0].blocks[0];
  CHECK(b.frames.size() == 3);
  CHECK(b.frames[0].source == "module._apply(fn)");
  CHECK(b.frames[2].source == "return t.to(");
  CHECK(b.exception == "torch.OutOfMemoryError:");
  CHECK(b.exception_line == 9);
  CHECK(b.message_tail == "CUDA out of memory. Tried to allocate 130.00 MiB.");
}

TEST_CASE("traceback: a frame line in a traceback with a header is not its exception") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "File \"a.py\", line 1, in f\n"
      "g()\n"
      "^^^  File \"b.py\", line 2, in g\n"
      "KeyError: 'x'\n");
  REQUIRE(tbs.size() == 1);
  CHECK_FALSE(tbs[0].headerless);
  CHECK(tbs[0].blocks[0].frames.size() == 2);
  CHECK(tbs[0].blocks[0].exception == "KeyError: 'x'");
}

TEST_CASE("traceback: a lone exception line is a headerless traceback without frames") {
  auto tbs = feed_all(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 56.00 MiB. GPU 6\n"
      "W1118 17:52:35.055000 139823151372096 api.py:858] Sending process 143995 closing signal SIGTERM\n");
  REQUIRE(tbs.size() == 1);
  CHECK(to_debug_string(tbs[0]) ==
        "@1 frames=0 exc@1=\"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 56.00 MiB. GPU 6\" headerless");
  CHECK(tbs[0].blocks[0].frames_seen == 0);
}

TEST_CASE("traceback: a lone exception line takes a wrapped message, not the log after it") {
  auto tbs = feed_all(
      "AssertionError: Check batch related parameters. train_batch_size is not\n"
      "equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 *\n"
      "8 * 1\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks[0].message_tail == "equal to micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 *\n8 * 1");
  auto capped = feed_all(
      "ValueError: bad value\n"
      "a\nb\nc\nd\ne\nf\n");
  REQUIRE(capped.size() == 1);
  CHECK(capped[0].blocks[0].message_tail == "a\nb\nc\nd");
  // The next exception line is evidence of its own.
  auto two = feed_all(
      "ValueError: first\n"
      "KeyError: second\n");
  REQUIRE(two.size() == 2);
  CHECK(two[1].blocks[0].exception == "KeyError: second");
}

TEST_CASE("traceback: an exception line printed before its traceback") {
  // stderr buffering: the exception line comes first, its traceback after it without one.
  auto tbs = feed_all(
      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    dist.barrier()\n");
  REQUIRE(tbs.size() == 2);
  CHECK(tbs[0].headerless);
  CHECK_FALSE(tbs[0].incomplete);
  CHECK(tbs[0].blocks[0].exception_line == 1);
  CHECK_FALSE(tbs[1].headerless);
  CHECK(tbs[1].incomplete);
}

TEST_CASE("traceback: warnings and frames without an exception are no evidence") {
  CHECK(feed_all("UserWarning: torch.cuda.amp.autocast is deprecated\n").empty());
  CHECK(feed_all("/ws/x.py:12: FutureWarning: `foo` is deprecated\n  warnings.warn(\n").empty());
  // Frames that end in a Warning class (warnings printed with a stack).
  CHECK(feed_all("  File \"x.py\", line 3, in f\n    warn()\nDeprecationWarning: old\n").empty());
  // faulthandler / print_stack(): frames, then something that is not an exception.
  CHECK(feed_all("Thread 0x00007f (most recent call first):\n"
                 "  File \"x.py\", line 3 in f\n"
                 "  File \"y.py\", line 9 in g\n"
                 "\n"
                 "Current thread 0x00007e (most recent call first):\n")
            .empty());
  CHECK(feed_all("  File \"x.py\", line 3, in f\n").empty());  // cut before its exception
  CHECK(feed_all("ERROR: something failed\nError: not a class\n").empty());
}

TEST_CASE("traceback: a message ending in ':' takes the traceback printed after it") {
  auto tbs = feed_all(
      "  File \"function_manager.py\", line 608, in temporary_actor_method\n"
      "    raise RuntimeError(\n"
      "RuntimeError: The actor with name WorkerDict failed to import on the worker:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"flash_attn_interface.py\", line 15, in <module>\n"
      "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c10\n"
      "\n"
      "An unexpected internal error occurred while the worker was executing a task.\n");
  REQUIRE(tbs.size() == 1);
  REQUIRE(tbs[0].blocks.size() == 2);
  CHECK(tbs[0].headerless);
  CHECK(tbs[0].blocks[1].exception.rfind("ImportError", 0) == 0);
}

TEST_CASE("traceback: a chain whose blank lines were lost") {
  auto tbs = feed_all(
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 1, in f\n"
      "NotImplementedError: UserFunctionVariable()\n"
      "The above exception was the direct cause of the following exception:\n"
      "Traceback (most recent call last):\n"
      "  File \"b.py\", line 2, in g\n"
      "torch._dynamo.exc.Unsupported: call_function\n");
  REQUIRE(tbs.size() == 1);
  CHECK(tbs[0].blocks.size() == 2);
  CHECK(tbs[0].chain_kind == ChainKind::Cause);
}
}
