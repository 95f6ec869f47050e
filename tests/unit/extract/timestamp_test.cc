#include "extract/timestamp.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace megatriage {
namespace {

struct Row {
  std::string_view input;
  std::string_view expected;  // to_debug_string of the parsed time
};

template <std::size_t N>
void check_rows(const Row (&rows)[N]) {
  for (const Row& row : rows) {
    CAPTURE(row.input);
    std::optional<CivilTime> t = parse_timestamp(row.input);
    REQUIRE(t.has_value());
    CHECK(to_debug_string(*t) == row.expected);
  }
}

template <std::size_t N>
void check_rejects(const std::string_view (&inputs)[N]) {
  for (std::string_view input : inputs) {
    CAPTURE(input);
    CHECK_FALSE(parse_timestamp(input).has_value());
  }
}

CivilTime civil(int y, int mo, int d, int h, int mi, int s, int us = 0) {
  CivilTime t;
  t.year = y;
  t.month = mo;
  t.day = d;
  t.hour = h;
  t.minute = mi;
  t.second = s;
  t.micros = us;
  return t;
}

}  // namespace

TEST_SUITE("timestamp") {
  TEST_CASE("timestamp: c10 header with unpadded month and no year") {
    const Row rows[] = {
        // log-formats.md §3 and §5.5
        {"[W728 15:01:59.561275187 socket.cpp:1028]", R"(????-07-28 15:01:59)"},
        {"[E728 15:01:59.561275187 socket.cpp:1028] [c10d] The client socket has timed out after 600000ms while trying to connect to (node01, 29500).",
         R"(????-07-28 15:01:59)"},
        // corpus megatron-nccl-rendezvous-port (after the [rank0]: prefix was peeled)
        {"[W1129 15:41:37.456057668 socket.cpp:469] [c10d] waitForInput: poll for socket SocketImpl(fd=45, addr=[localhost]:40724, remote=[localhost]:29629) returned 0, likely a timeout",
         R"(????-11-29 15:41:37)"},
        {"[E1129 15:35:27.464325505 socket.cpp:1028] [c10d] The client socket has timed out after 60000ms while trying to connect to (127.0.0.1, 29616).",
         R"(????-11-29 15:35:27)"},
        {"[W105 00:00:01.000000001 x.cpp:1] January 5", R"(????-01-05 00:00:01)"},
        {"[E1218 23:59:59.999999999 x.cpp:1] December 18", R"(????-12-18 23:59:59)"},
        {"[I501 12:00:03.1 x.cpp:1] short fraction", R"(????-05-01 12:00:03)"},
        {"[F501 12:00:03.123456789 ProcessGroupNCCL.cpp:1] fatal", R"(????-05-01 12:00:03)"},
        {"[V501 12:00:03 x.cpp:1] no fraction", R"(????-05-01 12:00:03)"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: c10 fraction is monotonic noise and is dropped") {
    auto t = parse_timestamp("[W728 15:01:59.561275187 socket.cpp:1028]");
    REQUIRE(t);
    CHECK(t->year == 0);
    CHECK(t->micros == 0);
  }

  TEST_CASE("timestamp: glog-like torch python lines") {
    const Row rows[] = {
        // log-formats.md §5.6 and corpus
        {"E0925 17:40:00.218000 16555 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 16589) of binary: /venv/bin/python3.11",
         R"(????-09-25 17:40:00.218000)"},
        {"W0519 13:40:58.064403 3492651 .venv/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/api.py:900] Sending process 3494490 closing signal SIGTERM",
         R"(????-05-19 13:40:58.064403)"},
        {"E1129 15:41:39.176000 951 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 0 (pid: 1097) of binary: /opt/torch/.venv/bin/python3",
         R"(????-11-29 15:41:39.176000)"},
        {"W0118 22:00:34.169929 138404564240192 torch/distributed/elastic/multiprocessing/api.py:858] x",
         R"(????-01-18 22:00:34.169929)"},
        {"W0501 12:00:00.123456 4411 torch/_dynamo/convert_frame.py:123] msg", R"(????-05-01 12:00:00.123456)"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: python logging, deepspeed and torchrun 2.0") {
    const Row rows[] = {
        {"2024-05-01 12:00:00,123 - INFO - x", "2024-05-01 12:00:00.123000"},
        {"2024-05-01 12:00:00,123", "2024-05-01 12:00:00.123000"},
        {"[2024-05-01 12:00:00,123] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 748089",
         "2024-05-01 12:00:00.123000"},
        {"[2023-10-05 12:00:00,123] torch.distributed.run: [WARNING] ", "2023-10-05 12:00:00.123000"},
        {"[2024-01-16 22:29:36,222] [0/0] torch._dynamo.symbolic_convert: [DEBUG] <msg>",
         "2024-01-16 22:29:36.222000"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: a level word before the stamp (level-first logging formats)") {
    const Row rows[] = {
        {"INFO 2026-11-29 10:00:01,000 megatron.training - iteration 1", "2026-11-29 10:00:01"},
        {"WARNING: 2026-11-29 10:00:01.5 x", "2026-11-29 10:00:01.500000"},
        {"ERROR | 2026-11-29T10:00:01 x", "2026-11-29 10:00:01"},
        {"DEBUG    | 2026-11-29 10:00:01.123 | x", "2026-11-29 10:00:01.123000"},
        {"[CRITICAL] 2026-11-29 10:00:01,250 x", "2026-11-29 10:00:01.250000"},
        {"[INFO]2026-11-29 10:00:01 x", "2026-11-29 10:00:01"},
        {"  FATAL - 2026-11-29 10:00:01 x", "2026-11-29 10:00:01"},
        // vLLM: `%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d]` with `%m-%d %H:%M:%S`.
        {"INFO 11-29 10:00:01 [llm_engine.py:12] no year", "?\?\?\?-11-29 10:00:01"},
        {"WARNING 02-29 23:59:59 [x.py:1] a leap day, whatever the year", "?\?\?\?-02-29 23:59:59"},
    };
    check_rows(rows);
    const std::string_view rejects[] = {
        "INFORMATION 2026-11-29 10:00:01 x",   // not a level word
        "INFO2026-11-29 10:00:01 x",           // no separator after a bare word
        "INFO          2026-11-29 10:00:01 x",  // more separator than a padded level has
        "[INFO x] 2026-11-29 10:00:01",
        "NCCL INFO 2026-11-29 10:00:01",
        "INFO 404 not found",
        "ERROR 2026-11-29 25:00:01 x",          // the stamp itself must hold
        "INFO 11-31 10:00:01 [x.py:1] no such day",
        "INFO 11-29 10:00 [x.py:1] no seconds",
        "INFO 11-29T10:00:01 x",
        "INFO 11-29 10:00:011 x",
    };
    check_rejects(rejects);
  }

  TEST_CASE("timestamp: the Hugging Face examples' month-first date") {
    const Row rows[] = {
        {"11/29/2026 10:00:00 - INFO - __main__ - Training/evaluation parameters", "2026-11-29 10:00:00"},
        {"01/02/2026 03:04:05,250 - WARNING - x", "2026-01-02 03:04:05.250000"},
    };
    check_rows(rows);
    const std::string_view rejects[] = {
        "29/11/2026 10:00:00 - INFO - x",  // day first: not read as another day
        "11/31/2026 10:00:00 - INFO - x",  // no such day
        "11/29/26 10:00:00 - INFO - x",
        "11/29/2026 10:00 - INFO - x",
        "11/29/2026T10:00:00 x",
        "11/29/2026 10:00:001 x",
    };
    check_rejects(rejects);
  }

  TEST_CASE("timestamp: the syslog stamp (journalctl, rsyslog) has no year") {
    const Row rows[] = {
        {"Nov 29 10:01:32 node012 python3[2301234]: INFO x", "?\?\?\?-11-29 10:01:32"},
        {"Nov  9 10:01:32 node012 kernel: Out of memory: Killed process 4242", "?\?\?\?-11-09 10:01:32"},
        {"Feb 29 23:59:59 n1 slurmd[77]: a leap day, whatever the year", "?\?\?\?-02-29 23:59:59"},
        // journalctl -o short-precise
        {"Jan 02 03:04:05.250000 gpu-7 python[1]: x", "?\?\?\?-01-02 03:04:05.250000"},
        {"Dec 31 00:00:00 h p: x", "?\?\?\?-12-31 00:00:00"},
    };
    check_rows(rows);
    for (std::string_view month : {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}) {
      const std::string line = std::string(month) + " 28 10:00:00 host x";
      CAPTURE(line);
      CHECK(parse_timestamp(line).has_value());
    }
    const std::string_view rejects[] = {
        "November 29 10:01:32 host x",  // strftime %b only
        "Nov 29 2026 10:01:32 host x",
        "Nox 29 10:01:32 host x",
        "nov 29 10:01:32 host x",
        "Nov 31 10:01:32 host x",       // no such day
        "Nov 29 10:01 host x",
        "Nov 29 10:01:321 host x",
        "Nov   9 10:01:32 host x",      // more padding than a day has
        "Nov 029 10:01:32 host x",
        "Nov 29T10:01:32 host x",
        "Sun Nov 29 15:41:27 UTC 2026",  // date(1): a weekday first
        "Setting OMP_NUM_THREADS environment variable",
        "None of the inputs have requires_grad=True",
    };
    check_rejects(rejects);
  }

  TEST_CASE("timestamp: a JSON record's stamp (structured logging)") {
    const Row rows[] = {
        {R"~({"time": "2026-11-29T10:01:32.594Z", "level": "INFO", "message": "x"})~", "2026-11-29 10:01:32.594000"},
        {R"~({"levelname":"ERROR","asctime":"2026-11-29 10:01:32,594","name":"megatron"})~", "2026-11-29 10:01:32.594000"},
        {R"~({"pid": 7, "ok": true, "msg": "a \"quoted\" 10:00:00", "ts": "2026-11-29 10:01:32"})~", "2026-11-29 10:01:32"},
        {R"~(  {"timestamp": "2026-11-29T10:01:32+00:00"})~", "2026-11-29 10:01:32"},
    };
    check_rows(rows);
    const std::string_view rejects[] = {
        R"~({"a": 1, "b": 2, "c": 3, "d": 4, "time": "2026-11-29T10:01:32Z"})~",  // past the first four members
        R"~({"extra": {"time": "2026-11-29T10:01:32Z"}, "time": "2026-11-29T10:01:32Z"})~",  // an object first
        R"~({"time": 1764410492.594})~",                                            // epoch seconds
        R"~({"msg": "started at 2026-11-29T10:01:32"})~",                            // not a whole value's start
        R"~({time: "2026-11-29T10:01:32Z"})~",
        "{}",
    };
    check_rejects(rejects);
  }

  TEST_CASE("timestamp: the bytes that rule a stamp out (stamp_gate_end)") {
    // Ruled out by their first bytes: no text that starts so parses, whatever follows.
    const std::pair<std::string_view, std::size_t> ruled_out[] = {
        {"(RayTrainWorker pid=1) 2026-11-29 10:00:00,123 x", 2},
        {"node012: 2026-11-29 10:00:00,123 x", 2},
        {"  ab 2026-11-29 10:00:00,123 x", 4},
        {"[1,3]<stdout>:2026-11-29 10:00:00,123 x", 12},
        {"[12345678901] 2026-11-29 10:00:00,123 x", 12},
        // A capital and a small letter: only a month's name and a blank may go on.
        {"File \"/w/train.py\", line 3", 2},
        {"Setting OMP_NUM_THREADS", 4},
        {"Novel 29 10:01:32 x", 4},
    };
    for (const auto& row : ruled_out) {
      const std::string_view body = row.first;
      const std::size_t end = row.second;
      CAPTURE(body);
      CHECK(stamp_gate_end(body) == end);
      CHECK_FALSE(parse_timestamp(body).has_value());
      // Any continuation of those bytes: still none.
      for (std::string_view tail : {"2026-11-29 10:00:00,123 x", "] x", "26-11-29 10:00:00 x", ""}) {
        const std::string text = std::string(body.substr(0, end)) + std::string(tail);
        CAPTURE(text);
        CHECK_FALSE(parse_timestamp(text).has_value());
      }
    }
    // Not ruled out: a stamp may start there.
    for (std::string_view body : {"2026-11-29 10:00:00,123 x", "[2026-11-29 10:00:00] x", "[W1129 10:00:00.1 a.cpp:1] x",
                                  "[rank3]: x", "INFO 2026-11-29 10:00:00 x", "time      : 2026-11-29_10:00:00",
                                  "slurmstepd: error: x", "*** JOB 1 ON n CANCELLED AT 2026-11-29T10:00:00 ***",
                                  "Nov 29 10:01:32 node012 python3[1]: x", "Nov", "[1,3]", "x"}) {
      CAPTURE(body);
      CHECK(stamp_gate_end(body) == std::string_view::npos);
    }
  }

  TEST_CASE("timestamp: iso 8601 and sacct") {
    const Row rows[] = {
        {"2024-05-01T12:00:00", "2024-05-01 12:00:00"},
        {"2024-05-01T12:00:00.5 x", "2024-05-01 12:00:00.500000"},
        {"2026-11-29T15:43:02 2026-11-29T15:44:00 TIMEOUT", "2026-11-29 15:43:02"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: megatron iteration, print_datetime and nemo") {
    const Row rows[] = {
        {" [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples: ...", "2024-05-01 12:00:00"},
        // corpus megatron-none-1gpu (core 0.20: 6 fraction digits)
        {" [2026-11-29 15:40:06.551313] iteration        1/      20 | consumed samples:            8 | elapsed time per iteration (ms): 868.4",
         "2026-11-29 15:40:06.551313"},
        {"[after megatron is initialized] datetime: 2024-05-01 12:00:00 ", "2024-05-01 12:00:00"},
        {"[after megatron is initialized] datetime: 2026-11-29 15:40:05.463640 ", "2026-11-29 15:40:05.463640"},
        {"[before library-setup] datetime: 2026-11-29 15:39:43.280641", "2026-11-29 15:39:43.280641"},
        {"[after model, optimizer, and learning rate scheduler are built] datetime: 2026-11-29 15:40:05.539192 ",
         "2026-11-29 15:40:05.539192"},
        {"[NeMo W 2024-05-01 12:00:00 nemo_logging:364] x", "2024-05-01 12:00:00"},
        {"[NeMo I 2024-05-01 12:00:00 exp_manager:1] x", "2024-05-01 12:00:00"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: nccl warn with the 2.26 default stamp") {
    const Row rows[] = {
        {"[2024-05-01 12:00:00] node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: x",
         "2024-05-01 12:00:00"},
        {"[2024-05-01 12:00:00.123456789] node01:1234:1290 [0] misc/socket.cc:484 (f) NCCL WARN x",
         "2024-05-01 12:00:00.123456"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: anchored childfailederror and slurmstepd stamps") {
    const Row rows[] = {
        {"  time      : 2024-05-01_12:00:05", "2024-05-01 12:00:05"},
        // corpus megatron-nccl-rendezvous-port
        {"  time      : 2026-11-29_15:41:39", "2026-11-29 15:41:39"},
        {"*** JOB 1234 ON node01 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME LIMIT ***", "2024-05-01 12:00:00"},
        {"slurmstepd: error: *** STEP 1234.0 ON node01 CANCELLED AT 2024-05-01T12:00:00 ***",
         "2024-05-01 12:00:00"},
        // corpus slurm-e-time-limit-hang
        {"slurmstepd-node1: error: *** STEP 19.0 ON node1 CANCELLED AT 2026-11-29T15:43:02 DUE TO TIME LIMIT ***",
         "2026-11-29 15:43:02"},
        {"slurmstepd: error: *** JOB 1234 ON node01 UNCORRECTABLE MEMORY ERROR AT 2024-05-01T12:00:00 ***",
         "2024-05-01 12:00:00"},
    };
    check_rows(rows);
  }

  TEST_CASE("timestamp: ordinary lines do not parse") {
    const std::string_view rejects[] = {
        "vm:644:644 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>",
        "node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN no stamp before NCCL 2.26",
        "[W ProcessGroupNCCL.cpp:1316] old c10 header without time",
        "[W socket.cpp:663] [c10d] The client socket has failed to connect to [node01]:29500",
        "12: foo",
        "[rank3]: Traceback (most recent call last):",
        "Traceback (most recent call last):",
        "  File \"x\", line 3",
        "File \"x\", line 3",
        "[default0]: iteration        1/      12 | consumed samples:           32",
        " iteration        1/      12 | consumed samples:           32",
        "INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant 1",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 19356)",
        "[1234567.891011] NVRM: Xid (PCI:0000:45:00): 79, GPU has fallen off the bus.",
        "[Rank 12] (after 10 iterations) memory (MB) | allocated: 1",
        "[0]:",
        "  host      : node01.cluster.local",
        "  timeout: 2024-05-01 12:00:00",
        "slurmstepd: error: Detected 1 oom_kill event in StepId=15.0. Some of the step tasks have been OOM Killed.",
        "slurmstepd: error: *** JOB 1234 ON node01 FAILED (non-zero exit code or other failure mode) ***",
        "srun: error: node03: task 2: Exited with exit code 1",
        "START TIME: Sun Nov 29 15:54:12 UTC 2026",
        "12:00:00 bare time",
        "2024-05-01",
        "20240501 12:00:00",
        "E1234 something",
        "E0925 17:40:00",  // glog needs the fraction's trailing space and the id
        "[after megatron is initialized] datetime: soon",
        "the datetime: 2024-05-01 12:00:00 anchor only counts on [ lines",
        "",
        " ",
        "[",
    };
    check_rejects(rejects);
  }

  TEST_CASE("timestamp: out-of-range fields are rejected") {
    const std::string_view rejects[] = {
        "2024-13-01 12:00:00,123",
        "2024-00-01 12:00:00,123",
        "2024-02-30 12:00:00,123",
        "2023-02-29 12:00:00,123",
        "2024-05-32T12:00:00",
        "2024-05-01 24:00:00,123",
        "2024-05-01 12:60:00,123",
        "2024-05-01 12:00:61,123",
        "0000-05-01 12:00:00,123",
        "2024-05-01 12:00:000",
        "[W1301 12:00:00.1 x.cpp:1] month 13",
        "[W500 12:00:00.1 x.cpp:1] day 0",
        "[W10 12:00:00.1 x.cpp:1] two digits",
        "[W12345 12:00:00.1 x.cpp:1] five digits",
        "E0230 12:00:00.000000 1 x.py:1] Feb 30",
        "[2024-05-01 25:00:00] bad hour",
    };
    check_rejects(rejects);
    // Leap seconds and Feb 29 are fine.
    CHECK(parse_timestamp("2016-12-31T23:59:60").has_value());
    CHECK(parse_timestamp("2024-02-29 12:00:00,000").has_value());
    CHECK(parse_timestamp("[W229 12:00:00.1 x.cpp:1] no year: Feb 29 allowed").has_value());
  }

  TEST_CASE("timestamp: civil_to_us uses proleptic gregorian utc") {
    CHECK(civil_to_us(civil(1970, 1, 1, 0, 0, 0)) == 0);
    CHECK(civil_to_us(civil(1970, 1, 1, 0, 0, 1, 5)) == 1'000'005);
    CHECK(civil_to_us(civil(2000, 3, 1, 0, 0, 0)) == std::int64_t{951'868'800} * 1'000'000);
    CHECK(civil_to_us(civil(2024, 5, 1, 12, 0, 0, 123)) == std::int64_t{1'714'564'800} * 1'000'000 + 123);
    CHECK(civil_to_us(civil(1969, 12, 31, 23, 59, 59)) == -1'000'000);
    CHECK_FALSE(civil_to_us(civil(0, 7, 28, 15, 1, 59)).has_value());
    CHECK_FALSE(civil_to_us(civil(2023, 2, 29, 0, 0, 0)).has_value());
    CHECK_FALSE(civil_to_us(civil(2024, 13, 1, 0, 0, 0)).has_value());
    CHECK_FALSE(civil_to_us(civil(2024, 1, 1, 0, 0, 0, 1'000'000)).has_value());
  }

  TEST_CASE("timestamp: format_iso round trips and prints micros only when set") {
    CHECK(format_iso(0) == "1970-01-01T00:00:00");
    CHECK(format_iso(-1) == "1969-12-31T23:59:59.999999");
    CHECK(format_iso(std::int64_t{1'714'564'800} * 1'000'000) == "2024-05-01T12:00:00");
    CHECK(format_iso(std::int64_t{1'714'564'800} * 1'000'000 + 123) == "2024-05-01T12:00:00.000123");
    const CivilTime samples[] = {civil(2024, 2, 29, 23, 59, 59, 999'999), civil(2000, 1, 1, 0, 0, 0),
                                 civil(2100, 12, 31, 1, 2, 3, 4), civil(1999, 12, 31, 23, 59, 59)};
    for (const CivilTime& t : samples) {
      auto us = civil_to_us(t);
      REQUIRE(us);
      auto back = parse_timestamp(format_iso(*us));
      REQUIRE(back);
      CHECK(to_debug_string(*back) == to_debug_string(t));
    }
  }

  // The layout read must say what parse_timestamp says whenever it answers: lines that share the
  // template's bytes before the time, with every byte after it mutated (digits, separators,
  // terminators, lengths), across every shape that learns a layout.
  TEST_CASE("timestamp: a time read by layout equals the full parse") {
    const std::string_view templates[] = {
        "2026-11-29 10:06:04,902 - INFO - trainer - step 1",
        "[rank5]:[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: x",
        "[2026-11-29 10:00:00] iteration 3/ 500000 |",
        "[2026-11-29 10:00:00,123] [INFO] [timer.py:264:stop]",
        "E0925 17:40:00.218000 16555 path:869] msg",
        "[NeMo W 2024-05-01 12:00:00 nemo_logging:364] x",
        "2024-05-01T12:00:00",
        "2024-05-01 12:00:00.123456789 tail",
        "[E728 15:01:59.561275187 socket.cpp:1028] y",
        // A separator without a fraction (found by fuzz_file): a digit after it would be read.
        "2026-11-30 07:10:12,k 0 on vm (NVIDIA H200)",
        "2026-11-30 07:10:12.",
        "INFO 2026-11-29 10:06:04,902 trainer - step 1",
        "11/29/2026 10:06:04 - INFO - trainer - step 1",
        "INFO 11-29 10:06:04 [llm_engine.py:12] x",
        "11/29/2026 10:06:04,902 x",
        "[WARNING] 2026-11-29 10:06:04.902 x",
        "Nov 29 10:06:04 node012 python3[2301234]: x",
        "Nov  9 10:06:04.123456 node012 python3[2301234]: x",
        R"~({"time": "2026-11-29T10:06:04.902Z", "level": "INFO", "message": "x"})~",
    };
    const char replacements[] = {'0', '5', '9', ':', '.', ',', ' ', ']', 'x', '\0'};
    int answered = 0;
    for (std::string_view tmpl : templates) {
      CAPTURE(tmpl);
      const std::size_t from = tmpl[0] == '[' && tmpl[1] == 'r' ? 8 : 0;
      // The first `d:d` (a JSON record's keys end in colons too).
      std::size_t colon = from;
      while (!(tmpl[colon] == ':' && colon > 0 && tmpl[colon - 1] >= '0' && tmpl[colon - 1] <= '9' &&
               tmpl[colon + 1] >= '0' && tmpl[colon + 1] <= '9'))
        ++colon;
      const std::size_t time_at = colon - 2;
      std::optional<TimeOfDayLayout> layout = learn_time_layout(tmpl, from, time_at);
      REQUIRE(layout.has_value());
      REQUIRE(read_time_with_layout(*layout, tmpl).has_value());
      // Every single-byte change after the time.
      for (std::size_t at = time_at; at < tmpl.size() && at < time_at + 24; ++at) {
        for (char c : replacements) {
          std::string line(tmpl);
          line[at] = c;
          CAPTURE(line);
          if (std::optional<CivilTime> t = read_time_with_layout(*layout, line)) {
            ++answered;
            std::optional<CivilTime> full = parse_timestamp(std::string_view(line).substr(from));
            REQUIRE(full.has_value());
            CHECK(to_debug_string(*t) == to_debug_string(*full));
          }
        }
      }
      // Cuts of the line at every length, and the line with a digit more at its end.
      const std::string longer = std::string(tmpl) + "5";
      if (std::optional<CivilTime> t = read_time_with_layout(*layout, longer)) {
        std::optional<CivilTime> full = parse_timestamp(std::string_view(longer).substr(from));
        REQUIRE(full.has_value());
        CHECK(to_debug_string(*t) == to_debug_string(*full));
      }
      for (std::size_t size = time_at; size <= tmpl.size(); ++size) {
        std::string_view cut = tmpl.substr(0, size);
        if (std::optional<CivilTime> t = read_time_with_layout(*layout, cut)) {
          std::optional<CivilTime> full = parse_timestamp(cut.substr(from));
          REQUIRE(full.has_value());
          CHECK(to_debug_string(*t) == to_debug_string(*full));
        }
      }
    }
    CHECK(answered > 100);  // the layout answers for most digit changes
  }

  TEST_CASE("timestamp: shapes that read past the time learn no layout") {
    // Megatron print_datetime's stamp is found from the line's end; ChildFailedError's row and
    // slurmstepd's lines by an anchor.
    const std::string_view line = "[after training is done] datetime: 2026-11-29 10:00:00 ";
    CHECK(parse_timestamp(line).has_value());
    CHECK_FALSE(learn_time_layout(line, 0, line.find(':', 30) - 2).has_value());
    const std::string_view row = "  time      : 2024-05-01_12:00:00";
    CHECK(parse_timestamp(row).has_value());
    CHECK_FALSE(learn_time_layout(row, 0, row.find("12:")).has_value());
    // A time of day that is not the stamp's.
    const std::string_view late = "2026-11-29 10:06:04,902 - step at 11:00:00";
    CHECK_FALSE(learn_time_layout(late, 0, late.find("11:")).has_value());
  }

  TEST_CASE("timestamp: debug string marks a missing year") {
    CHECK(to_debug_string(civil(0, 7, 28, 15, 1, 59)) == R"(????-07-28 15:01:59)");
    CHECK(to_debug_string(civil(2024, 5, 1, 12, 0, 0, 123)) == "2024-05-01 12:00:00.000123");
  }
}

}  // namespace megatriage
