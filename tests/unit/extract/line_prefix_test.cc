#include "extract/line_prefix.h"

#include <doctest/doctest.h>

#include <string>
#include <string_view>

namespace megatriage {
namespace {

struct Row {
  std::string_view input;
  std::string_view expected;
};

void check_rows(const Row* rows, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    CAPTURE(rows[k].input);
    CHECK(to_debug_string(parse_prefix(rows[k].input)) == rows[k].expected);
    // Prefix learning's body-only parse gives the same body, NCCL header or not.
    CHECK(prefix_body(rows[k].input) == parse_prefix(rows[k].input).body);
  }
}

template <std::size_t N>
void check_rows(const Row (&rows)[N]) {
  check_rows(rows, N);
}

// Inputs that carry no recognised prefix: the whole line must come back as the body.
void check_untouched(std::string_view line) {
  CAPTURE(line);
  LinePrefix p = parse_prefix(line);
  CHECK(p.body == line);
  CHECK(prefix_body(line) == line);
  CHECK(p.srun_task == -1);
  CHECK(p.tee_local_rank == -1);
  CHECK(p.tee_role.empty());
  CHECK(p.rank == -1);
  CHECK(p.nccl_pid == -1);
  CHECK(p.nccl_device == -1);
  CHECK(p.nccl_host.empty());
}

}  // namespace

TEST_SUITE("line_prefix") {
  TEST_CASE("line_prefix: srun label then rank prefix") {
    const Row rows[] = {
        // log-formats.md §2.1
        {"12: [rank12]: Traceback (most recent call last):",
         R"(task=12 rank=12 body="Traceback (most recent call last):")"},
        {" 3: node03:4242:4242 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0>",
         R"(task=3 nccl=node03:4242/[3] body="node03:4242:4242 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0>")"},
        {"3: hello", R"(task=3 body="hello")"},
        {"  7: x", R"(task=7 body="x")"},
        {"123456: x", R"(task=123456 body="x")"},
        {"3: ", R"(task=3 body="")"},
        // Heterogeneous job, component 0.
        {"P0  3: [rank3]: Traceback (most recent call last):",
         R"(task=3 rank=3 body="Traceback (most recent call last):")"},
        {"P1 12: x", R"(task=12 body="x")"},
    };
    check_rows(rows);
  }

  TEST_CASE("line_prefix: prefixes no parser names stay in the body (prefix_learning learns them)") {
    check_untouched("node7: Traceback (most recent call last):");
    check_untouched("(TaskRunner pid=84989) ImportError: x");
    check_untouched("[80746] Traceback (most recent call last):");
    check_untouched("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):");
    const Row rows[] = {
        // A learnt prefix may stand behind the known ones; it is left at the body's start.
        {"[default0]:(TaskRunner pid=1) Traceback (most recent call last):",
         R"(tee=default/0 body="(TaskRunner pid=1) Traceback (most recent call last):")"},
        {" 3: node7: x", R"(task=3 body="node7: x")"},
    };
    check_rows(rows);
  }

  TEST_CASE("line_prefix: srun label rejects times, dates and wide numbers") {
    check_untouched("12:00:00 something");
    check_untouched("2024-05-01 12:00:00,123 INFO x");
    check_untouched("1234567: seven digits is not a task id");
    check_untouched("       3: seven spaces of padding is too much");
    check_untouched("12:foo");
    check_untouched(": foo");
    check_untouched("P: foo");
    check_untouched("P0: foo");  // component without a task id
    check_untouched("3 : foo");
    check_untouched("x3: foo");
  }

  TEST_CASE("line_prefix: torchrun tee prefix") {
    const Row rows[] = {
        // log-formats.md §2.2 and the corpus (slurm-*/logs/*.out)
        {"[default3]:[rank27]: Traceback (most recent call last):",
         R"(tee=default/3 rank=27 body="Traceback (most recent call last):")"},
        {"[default0]: [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples: ...",
         R"(tee=default/0 body=" [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples: ...")"},
        {"[default0]:> initializing torch distributed with 4 workers ...",
         R"(tee=default/0 body="> initializing torch distributed with 4 workers ...")"},
        {"[default0]: > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 103744",
         R"(tee=default/0 body=" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 103744")"},
        {"[node01:3]:[rank3]:[E501 12:00:03.123456789 ProcessGroupNCCL.cpp:629] [Rank 3] Watchdog",
         R"(tee=node01:/3 rank=3 body="[E501 12:00:03.123456789 ProcessGroupNCCL.cpp:629] [Rank 3] Watchdog")"},
        {"[trainer12]:x", R"(tee=trainer/12 body="x")"},
        {"[default1]:", R"(tee=default/1 body="")"},
    };
    check_rows(rows);
  }

  TEST_CASE("line_prefix: tee prefix is not a timestamp, c10 header, index or template") {
    check_untouched("[2024-05-01 12:00:00,123] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 748089");
    check_untouched("[W501 12:00:03.123456789 socket.cpp:1028] x");
    check_untouched("[W ProcessGroupNCCL.cpp:1316] x");
    check_untouched("[0]:");  // ChildFailedError enumeration index
    check_untouched("[27]: x");  // `[${rank}]:` template: not a role + local rank
    check_untouched("[default]: x");  // no local rank
    check_untouched("[default3] x");
    check_untouched("[Rank 12] (after 10 iterations) memory (MB) | allocated: 1");
    check_untouched("[after megatron is initialized] datetime: 2024-05-01 12:00:00 ");
    check_untouched("[NeMo W 2024-05-01 12:00:00 nemo_logging:364] x");
  }

  TEST_CASE("line_prefix: pytorch rank prefix with and without a space") {
    const Row rows[] = {
        // corpus megatron-nccl-rendezvous-port
        {"[rank0]:[W1129 15:41:37.456057668 socket.cpp:469] [c10d] waitForInput: poll",
         R"(rank=0 body="[W1129 15:41:37.456057668 socket.cpp:469] [c10d] waitForInput: poll")"},
        {"[rank0]: Traceback (most recent call last):",
         R"(rank=0 body="Traceback (most recent call last):")"},
        // exactly one space goes: traceback indentation survives
        {R"([rank0]:   File "/lustre/proj/megatron/pretrain_gpt.py", line 536, in <module>)",
         R"(rank=0 body="  File "/lustre/proj/megatron/pretrain_gpt.py", line 536, in <module>")"},
        {"[rank0]: torch.distributed.DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//4//cpu//0/1",
         R"(rank=0 body="torch.distributed.DistStoreError: wait timeout after 60000ms, keys: /default_pg/0//4//cpu//0/1")"},
        {"[rank1]:W0501 12:00:00.123456 4411 torch/_dynamo/convert_frame.py:123] msg",
         R"(rank=1 body="W0501 12:00:00.123456 4411 torch/_dynamo/convert_frame.py:123] msg")"},
        {"[rank3]:", R"(rank=3 body="")"},
    };
    check_rows(rows);
    check_untouched("[rank]: x");
    check_untouched("[rank3] x");
    check_untouched("[rankx]: x");
  }

  TEST_CASE("line_prefix: full prefix stack") {
    const Row rows[] = {
        {" 3: [default0]:[rank0]:[E501 12:00:03.1 x.cpp:1] ...",
         R"(task=3 tee=default/0 rank=0 body="[E501 12:00:03.1 x.cpp:1] ...")"},
        {"12: [default3]:[rank27]: Traceback (most recent call last):",
         R"(task=12 tee=default/3 rank=27 body="Traceback (most recent call last):")"},
        {" 1: [default2]:node02:8811:8811 [2] NCCL INFO NET/Plugin: Could not find: libnccl-net.so",
         R"(task=1 tee=default/2 nccl=node02:8811/[2] body="node02:8811:8811 [2] NCCL INFO NET/Plugin: Could not find: libnccl-net.so")"},
    };
    check_rows(rows);
  }

  TEST_CASE("line_prefix: nccl header with and without timestamp and func") {
    const Row rows[] = {
        // corpus megatron-none-1gpu
        {"vm:644:644 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>",
         R"(nccl=vm:644/[0] body="vm:644:644 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>")"},
        // log-formats.md §2.4 / §3
        {"node02:8811:8811 [3] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 45000 commId 0x1f2e3d4c5b6a7988 - Init COMPLETE",
         R"(nccl=node02:8811/[3] body="node02:8811:8811 [3] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 45000 commId 0x1f2e3d4c5b6a7988 - Init COMPLETE")"},
        {"node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.0.2<48231> failed",
         R"(nccl=node01:1234/[0] body="node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.0.2<48231> failed")"},
        {"[2024-05-01 12:00:00] node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN x",
         R"(nccl=node01:1234/[0] body="[2024-05-01 12:00:00] node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN x")"},
        {"[2024-05-01 12:00:00] node01:1234:1290 [7] misc/socket.cc:484 (socketStartConnect) NCCL WARN x",
         R"(nccl=node01:1234/[7] body="[2024-05-01 12:00:00] node01:1234:1290 [7] misc/socket.cc:484 (socketStartConnect) NCCL WARN x")"},
        {"node01:1234:1290 [0] 12345.678901 file.cc:12 NCCL TRACE x",
         R"(nccl=node01:1234/[0] body="node01:1234:1290 [0] 12345.678901 file.cc:12 NCCL TRACE x")"},
        {" 5: gpu-a100-07:98765:98800 [5] NCCL INFO Channel 00/64 : 0",
         R"(task=5 nccl=gpu-a100-07:98765/[5] body="gpu-a100-07:98765:98800 [5] NCCL INFO Channel 00/64 : 0")"},
    };
    check_rows(rows);
  }

  TEST_CASE("line_prefix: nccl-looking text without NCCL is not a header") {
    check_untouched("node01:1234:1290 [0] something else entirely");
    check_untouched("node01:1234 [0] NCCL INFO two fields only");
    check_untouched("node01:1234:1290 [x] NCCL INFO bad device");
    check_untouched("node01:1234:1290 [0]NCCL INFO no space");
    check_untouched("  File \"x\", line 3, in <module>");
    check_untouched("http://node01:8080/x NCCL ");
    check_untouched("[2024-05-01 12:00:00]node01:1:2 [0] NCCL INFO x");
    check_untouched("Traceback (most recent call last):");
    check_untouched("");
  }

  TEST_CASE("line_prefix: body views point into the line") {
    std::string line = " 3: [default0]:[rank0]: x";
    LinePrefix p = parse_prefix(line);
    CHECK(p.body.data() == line.data() + line.size() - 1);
    CHECK(p.tee_role.data() == line.data() + 5);
  }
}

}  // namespace megatriage
