// wrapped_exception: exception lines inside a message, and messages that announce a traceback.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "extract/wrapped_exception.h"

using namespace megatriage;

TEST_SUITE("wrapped_exception") {
TEST_CASE("wrapped_exception: exception lines and lines that are not") {
  struct Case {
    const char* line;
    bool exception;
  };
  const Case cases[] = {
      {"ModuleNotFoundError: No module named 'vllm'", true},
      {"megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch", true},
      {"ray.exceptions.RayTaskError(ModuleNotFoundError): ray::main_task() (pid=1, ip=10.0.0.1)", true},
      {"  torch.OutOfMemoryError: CUDA out of memory.", true},
      {"KeyboardInterrupt", true},
      {"SystemExit: 1", true},
      {"  File \"/ws/t.py\", line 3, in f", false},
      {"Traceback (most recent call last): (RANK 0)", false},
      {"Error: something", true},
      {"error: unrecognized arguments", false},
      {"The actor with name WorkerDict failed to import on the worker:", false},
      {"myError: x", false},
      {"RayTaskError(: x", false},
      {"", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    CHECK(is_exception_line(c.line) == c.exception);
  }
}

TEST_CASE("wrapped_exception: CheckpointException's per-rank tracebacks yield their exception lines") {
  const std::string tail =
      "Traceback (most recent call last): (RANK 0)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/distributed/checkpoint/utils.py\", line 248, in all_reduce\n"
      "    local_data = map_fun()\n"
      "megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch for loaded ((4096, 68)) and expected ((4096, 72)) tensor\n"
      "Traceback (most recent call last): (RANK 1)\n"
      "  File \"/usr/lib/python3/dist-packages/torch/distributed/checkpoint/utils.py\", line 248, in all_reduce\n"
      "megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch for loaded ((4096, 68)) and expected ((4096, 72)) tensor";
  std::vector<std::string_view> lines = embedded_exception_lines(tail);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].substr(0, 50) == "megatron.core.dist_checkpointing.core.Checkpointin");
}

TEST_CASE("wrapped_exception: a message ending in ':' announces the traceback that follows") {
  ExceptionBlock b;
  b.exception = "RuntimeError: The actor with name WorkerDict failed to import on the worker. This may be because needed library dependencies are not installed in the worker environment:";
  CHECK(announces_traceback(b));
  b.exception = "torch.multiprocessing.spawn.ProcessRaisedException: ";
  CHECK(announces_traceback(b));
  b.message_tail = "-- Process 0 terminated with the following error:";
  CHECK(announces_traceback(b));
  b.message_tail = "-- Process 0 terminated with the following error:\nsomething else";
  CHECK_FALSE(announces_traceback(b));
  ExceptionBlock ray;
  ray.exception = "ray.exceptions.RayTaskError(ImportError): ray::WorkerDict.__init__() (pid=87823, ip=172.31.30.148)";
  CHECK(announces_traceback(ray));
  ExceptionBlock plain;
  plain.exception = "ValueError: bad value";
  CHECK_FALSE(announces_traceback(plain));
}
}
