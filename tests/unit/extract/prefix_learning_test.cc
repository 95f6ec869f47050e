// prefix_learning: the family parsers, what is learnt from a file's head and from a traceback
// header line, and "analyze one file" on logs shaped like real ones carrying prefixes no parser
// names (pdsh hosts, Ray actor tags, counters, editor line numbers, logging heads, a progress
// bar, and stacks of these with `[rankN]:`), with and without the trigger search.
#include "extract/prefix_learning.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extract/extract.h"
#include "scan/line_searcher.h"
#include "support/repo_rules.h"
#include "support/result_signature.h"

namespace megatriage {
namespace {

struct Row {
  std::string_view input;
  std::string_view expected;
};

std::string kind_debug(PrefixKind kind, std::string_view body) {
  LearntPrefix m;
  m.length = PrefixLearner::kind_length(kind, body);
  m.kind = m.length > 0 ? kind : PrefixKind::None;
  return to_debug_string(m, body);
}

const TriggerScanner& repo_triggers() {
  static DiagnosticSink diags;
  static std::unique_ptr<TriggerScanner> scanner = make_trigger_scanner(test::repo_matcher(), diags);
  REQUIRE(scanner != nullptr);
  return *scanner;
}

FileResult analyze(const std::string& text, bool fast) {
  SourceFile file;
  file.path = file.display_path = "logs/x.err";
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, file.display_path, diags);
  AnalyzeOptions options;
  if (fast) options.triggers = &repo_triggers();
  FileResult r = analyze_source(file, *source, test::repo_matcher(), options, diags);
  apply_year(r, 2026);
  return r;
}

// The events of one read; the trigger search must not change them (it shows fewer lines).
FileResult analyze_both(const std::string& text) {
  FileResult slow = analyze(text, false);
  FileResult fast = analyze(text, true);
  CHECK(test::signature(fast) == test::signature(slow));
  return fast;
}

std::vector<const Event*> tracebacks(const FileResult& r) {
  std::vector<const Event*> out;
  for (const auto& e : r.events)
    if (e.kind == EventKind::Traceback) out.push_back(&e);
  return out;
}

std::string frames_of(const Event& e) {
  std::string out;
  for (const auto& b : e.traceback->blocks)
    for (const auto& f : b.frames) out += f.path + ":" + std::to_string(f.line) + " ";
  return out;
}

// `n` lines of a writer, for a head that adopts its family.
std::string repeat(std::string_view prefix, std::string_view text, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += prefix;
    out += text;
    out += std::to_string(i);
    out += '\n';
  }
  return out;
}

}  // namespace

TEST_SUITE("prefix_learning") {
  TEST_CASE("prefix_learning: family parsers find hosts, Ray tags, counters and line numbers") {
    const Row host[] = {
        {"node7: Traceback (most recent call last):", R"(kind=host len=7 text="node7: ")"},
        {"rdma-test-gpu-worker-1: rdma-test-gpu-worker-1:2918:4483 [4] NCCL INFO x",
         R"(kind=host len=24 text="rdma-test-gpu-worker-1: ")"},
        {"rdma-test-gpu-worker-1: ", R"(kind=host len=24 text="rdma-test-gpu-worker-1: ")"},
        {"ip-10-0-0-1.ec2.internal: x", R"(kind=host len=26 text="ip-10-0-0-1.ec2.internal: ")"},
        {"localhost: [2024-01-01 10:00:00,000] [INFO] x", R"(kind=host len=11 text="localhost: ")"},
        {"DGX-A100-01: x", R"(kind=host len=13 text="DGX-A100-01: ")"},
        // Not hosts: exception names, levels, words, interpreters, scripts, times, frames.
        {"RuntimeError: CUDA error", "none"},
        {"torch.OutOfMemoryError: CUDA out of memory", "none"},
        {"INFO: x", "none"},
        {"srun: error: node1: task 3: Out Of Memory", "none"},
        {"error: unrecognized arguments", "none"},
        {"python3: can't open file", "none"},
        {"train.py: error: unrecognized arguments: --foo", "none"},
        {"12:00:00 x", "none"},
        {"  File \"x.py\", line 3, in f", "none"},
        {"node7:1234:5678 [0] NCCL INFO x", "none"},
    };
    for (const Row& r : host) {
      CAPTURE(r.input);
      CHECK(kind_debug(PrefixKind::Host, r.input) == r.expected);
    }
    const Row ray[] = {
        {"(TaskRunner pid=84989) ImportError: x", R"x(kind=ray len=23 text="(TaskRunner pid=84989) ")x"},
        {"(WorkerDict pid=1234, ip=10.0.0.1)   File \"x\"", R"x(kind=ray len=35 text="(WorkerDict pid=1234, ip=10.0.0.1) ")x"},
        {"(raylet) Traceback (most recent call last):", R"x(kind=ray len=9 text="(raylet) ")x"},
        {"(pid=5)", R"x(kind=ray len=7 text="(pid=5)")x"},
        {"(1, 2) tuple", "none"},
        {"(most recent call last):", "none"},
        {"(a(b)) x", "none"},
    };
    for (const Row& r : ray) {
      CAPTURE(r.input);
      CHECK(kind_debug(PrefixKind::Ray, r.input) == r.expected);
    }
    const Row counter[] = {
        {"[80746] Traceback (most recent call last):", R"(kind=counter len=8 text="[80746] ")"},
        {"[rank3]: x", "none"},
        {"[2024-01-01 10:00:00] x", "none"},
        {"[80746]x", "none"},
    };
    for (const Row& r : counter) {
      CAPTURE(r.input);
      CHECK(kind_debug(PrefixKind::Counter, r.input) == r.expected);
    }
    const Row mpi[] = {
        {"[1,3]<stderr>:Traceback (most recent call last):", R"(kind=mpi len=14 text="[1,3]<stderr>:")"},
        {"[1,12]<stdout>:  File \"x\"", R"(kind=mpi len=15 text="[1,12]<stdout>:")"},
        {"[1,3]<stdin>:x", "none"},
        {"[1]<stderr>:x", "none"},
    };
    for (const Row& r : mpi) {
      CAPTURE(r.input);
      CHECK(kind_debug(PrefixKind::Mpi, r.input) == r.expected);
    }
    const Row editor[] = {
        {" 13 Traceback (most recent call last):", R"(kind=editor len=4 text=" 13 ")"},
        {" 14   File \"x.py\", line 3, in f", R"(kind=editor len=4 text=" 14 ")"},
        {"13 | Traceback", R"(kind=editor len=5 text="13 | ")"},
        {"13| x", R"(kind=editor len=4 text="13| ")"},
        {"13\tx", "kind=editor len=3 text=\"13\t\""},
        {"2024-01-01 x", "none"},
        {"iteration 5", "none"},
    };
    for (const Row& r : editor) {
      CAPTURE(r.input);
      CHECK(kind_debug(PrefixKind::Editor, r.input) == r.expected);
    }
  }

  TEST_CASE("prefix_learning: a writer's identity masks stamps and line numbers, keeps names") {
    CHECK(PrefixLearner::identity("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | ") == "rank: 3 | # # CRITICAL | ");
    CHECK(PrefixLearner::identity("rank: 12 | 2022-04-03 18:44:27,001 CRITICAL | ") == "rank: 12 | # # CRITICAL | ");
    CHECK(PrefixLearner::identity(" 13 ") == " # ");
    CHECK(PrefixLearner::identity("[80746] ") == "[#] ");
    CHECK(PrefixLearner::identity("node7: ") == "node7: ");
    CHECK(PrefixLearner::identity("(WorkerDict pid=1234, ip=10.0.0.1) ") == "(WorkerDict pid=1234, ip=10.0.0.1) ");
    CHECK(PrefixLearner::identity("[2024-01-01 10:00:00,000] [ERROR] [file.py:12:func] ") ==
          "[# #] [ERROR] [file.py:#:func] ");
    CHECK(PrefixLearner::identity("rdma-test-gpu-worker-1: ") == "rdma-test-gpu-worker-1: ");
    CHECK(PrefixLearner::identity("[rank12] ") == "[rank12] ");
    CHECK(PrefixLearner::identity("Rank 5 | ") == "Rank 5 | ");
    CHECK(PrefixLearner::identity("Step 1234 | loss 2.31 | ") == "Step # | loss #.# | ");
    // syslog's `program[pid]`: the process id names the writer (interleaved processes of a
    // journal), the stamp and the day do not.
    CHECK(PrefixLearner::identity("Nov 29 10:01:32 node012 python3[2301234]: ") == "Nov # # node012 python3[2301234]: ");
    CHECK(PrefixLearner::identity("Nov  9 10:01:32.5 node012 python3[77]: ") == "Nov # # node012 python3[77]: ");
    CHECK(PrefixLearner::identity("[1] [2] ") == "[#] [#] ");
  }

  TEST_CASE("prefix_learning: shape matches let digits and the padding before a number vary") {
    CHECK(PrefixLearner::shape_length(" 13 ", "100   File \"x\"") == 4);
    CHECK(PrefixLearner::shape_length(" 13 ", " 9   File \"x\"") == 3);
    CHECK(PrefixLearner::shape_length("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | ",
                                      "rank: 12 | 2022-04-03 18:45:00,001 CRITICAL | x") == 46);
    CHECK(PrefixLearner::shape_length("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | ",
                                      "rank:  3 | 2022-04-03 18:45:00,001 INFO | x") == 0);
    CHECK(PrefixLearner::shape_length("(raylet) ", "  File \"x\"") == 0);
  }

  TEST_CASE("prefix_learning: the text before a header, and what cannot be a prefix") {
    CHECK(PrefixLearner::header_residual("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):") == 46);
    CHECK(PrefixLearner::header_residual("Traceback (most recent call last):") == 0);
    CHECK(PrefixLearner::header_residual("  Traceback (most recent call last):  ") == 0);
    CHECK(PrefixLearner::header_residual("  + Exception Group Traceback (most recent call last):") == 0);
    CHECK(PrefixLearner::header_residual("node7: Exception Group Traceback (most recent call last):") == 7);
    CHECK(PrefixLearner::header_residual("see Traceback (most recent call last): above") == 0);
    CHECK(PrefixLearner::header_residual("no header") == 0);

    PrefixLearner learner;
    const std::string_view bar = "Epoch 0:   0%|   | 0/420889 [00:00<?, ?it/s]";
    CHECK(learner.learn_header_prefix(bar).length == bar.size());
    CHECK(learner.learn_header_prefix("ERROR:root:").length == 11);
    CHECK(learner.learn_header_prefix(" 13 ").length == 4);
    CHECK(learner.match("ERROR:root:more").length == 11);  // learnt as a shape for later lines
    // An indented label (torchelastic's error table) and blanks are not prefixes.
    CHECK(learner.learn_header_prefix("  traceback : ").length == 0);
    CHECK(learner.learn_header_prefix("   ").length == 0);
    // A word or a sentence is the header line's own text: no shape for later lines.
    CHECK(learner.learn_header_prefix("Original ").length == 9);
    CHECK(learner.match("Original x").length == 0);
    CHECK(learner.learn_header_prefix("A worker died. Worker exits with an exit code None. ").length > 0);
    CHECK(learner.match("A worker died. Worker exits with an exit code None. x").length == 0);
  }

  TEST_CASE("prefix_learning: rank and host from a learnt prefix's text") {
    CHECK(PrefixLearner::rank_of("rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | ") == 3);
    CHECK(PrefixLearner::rank_of("[rank12] ") == 12);
    CHECK(PrefixLearner::rank_of("[RANK=5] ") == 5);
    CHECK(PrefixLearner::rank_of("local_rank: 2 ") == -1);
    CHECK(PrefixLearner::rank_of("ranks 3 ") == -1);
    CHECK(PrefixLearner::rank_of("node7: ") == -1);
    CHECK(PrefixLearner::rank_of("[1,3]<stderr>:") == 3);
    CHECK(PrefixLearner::host_of("node7: ") == "node7");
    CHECK(PrefixLearner::host_of("gpu-3.cluster.local: ") == "gpu-3");
    CHECK(PrefixLearner::host_of("(WorkerDict pid=1234, ip=10.0.0.1) ") == "10.0.0.1");
    CHECK(PrefixLearner::host_of("(raylet) ") == "");
    CHECK(PrefixLearner::host_of("rank:  3 | ") == "");
    CHECK(PrefixLearner::host_of("Nov 29 10:01:32 node012.cluster python3[2301234]: ") == "node012");
    CHECK(PrefixLearner::host_of("Nov  9 10:01:32.123456 gpu-7 kernel: ") == "gpu-7");
    CHECK(PrefixLearner::host_of("Nov 29 10:01:32") == "");
    CHECK(PrefixLearner::host_of("Novel 29 10:01:32 node012 x: ") == "");
  }

  TEST_CASE("prefix_learning: the head adopts a family on most lines, repeated writers only") {
    SUBCASE("pdsh hosts") {
      PrefixLearner l;
      l.learn_from_head(repeat("node1: ", "NCCL INFO x", 5) + repeat("node2: ", "NCCL INFO y", 5), true);
      CHECK(l.any());
      CHECK(l.match("node3: x").kind == PrefixKind::Host);
      CHECK(l.match("node3: x").writer != l.match("node1: x").writer);
      CHECK(l.match("RuntimeError: x").length == 0);
      // A bare `node1:` ending a line is a prefix; the same text starting an NCCL header is not.
      CHECK(l.match("node1:").length == 6);
      CHECK(l.match("node1:1234:5678 [0] NCCL INFO x").length == 0);
    }
    SUBCASE("Ray tags behind a colour and a stamp line") {
      PrefixLearner l;
      l.learn_from_head("2025-02-25 19:42:16,238\tINFO worker.py:1841 -- Started a local Ray instance.\n" +
                            repeat("\x1b[36m(main_task pid=2105103)\x1b[0m ", "{'a': 1,", 8),
                        true);
      CHECK(l.match("(raylet) Traceback (most recent call last):").length == 9);
    }
    SUBCASE("editor line numbers count up") {
      PrefixLearner l;
      l.learn_from_head(" 8 a\n 9 b\n10 c\n11 d\n", true);
      CHECK(l.match("12   File \"x\"").length == 3);
      PrefixLearner flat;
      flat.learn_from_head("5 a\n5 b\n5 c\n5 d\n", true);
      CHECK_FALSE(flat.any());
    }
    SUBCASE("each family is tried on the lines whose first byte its shape allows") {
      // Every family, each with the byte its lines open with (a learner tries a line only
      // against the families that byte allows).
      struct Case {
        std::string head;
        std::string line;
        PrefixKind kind;
      };
      for (const Case& c : {Case{repeat("(Worker pid=7) ", "step", 4), "(Worker pid=8) x", PrefixKind::Ray},
                            Case{repeat("gpu-node12: ", "step", 4), "gpu-node13: x", PrefixKind::Host},
                            // (a container's host name, which may open with a digit)
                            Case{repeat("3f2a9c1e7b4d: ", "step", 4), "5b0c8e2d9a1f: x", PrefixKind::Host},
                            Case{"[81] a\n[82] b\n[83] c\n[84] d\n", "[85] x", PrefixKind::Counter},
                            Case{repeat("[1,0]<stdout>:", "step ", 2) + repeat("[1,1]<stdout>:", "step ", 2),
                                 "[1,2]<stderr>:x", PrefixKind::Mpi},
                            Case{" 8 a\n 9 b\n10 c\n11 d\n", "12 x", PrefixKind::Editor},
                            Case{"8 | a\n9 | b\n10 | c\n11 | d\n", "12 | x", PrefixKind::Editor}}) {
        CAPTURE(c.head);
        PrefixLearner l;
        l.learn_from_head(c.head, true);
        CHECK(l.match(c.line).kind == c.kind);
      }
    }
    SUBCASE("an empty head adopts nothing") {
      PrefixLearner l;
      l.learn_from_head(std::string_view{}, true);
      l.learn_from_head(std::string_view{}, false);
      CHECK_FALSE(l.any());
    }
    SUBCASE("a family heading the second half of the head is seen (the read stops only when none can)") {
      PrefixLearner l;
      l.learn_from_head(repeat("", "NCCL INFO x", 5) + repeat("node2: ", "NCCL INFO y", 5), true);
      CHECK(l.match("node3: x").kind == PrefixKind::Host);
      PrefixLearner fewer;
      fewer.learn_from_head(repeat("", "NCCL INFO x", 6) + repeat("node2: ", "NCCL INFO y", 4), true);
      CHECK_FALSE(fewer.any());
    }
    SUBCASE("a config dump with host-like keys is not adopted") {
      PrefixLearner l;
      l.learn_from_head("lr-decay: cosine\nwarmup-1: 10\nseq-len: 4096\nmodel-size: 7b\nnum-layers: 32\n", true);
      CHECK_FALSE(l.any());
    }
    SUBCASE("a minority of lines is not a family") {
      PrefixLearner l;
      l.learn_from_head("node1: a\nnode1: b\nnode1: c\nx\ny\nz\nw\nv\n", true);
      CHECK_FALSE(l.any());
    }
    SUBCASE("the last line of a cut head is not counted") {
      PrefixLearner l;
      l.learn_from_head("node1: a\nnode1: b\nnode1: c", false);
      CHECK_FALSE(l.any());
    }
  }

  TEST_CASE("prefix_learning: peel stacks learnt prefixes with the known ones") {
    PrefixLearner l;
    l.adopt(PrefixKind::Host);
    l.adopt(PrefixKind::Ray);
    std::vector<PrefixLearner::Layer> layers;
    LinePrefix p = parse_prefix("node7: [rank3]:   File \"/ws/t.py\", line 3, in f");
    CHECK(l.peel(p, layers) != 0);
    CHECK(to_debug_string(p) == R"(rank=3 body="  File "/ws/t.py", line 3, in f")");
    REQUIRE(layers.size() == 1);
    CHECK(layers[0].text == "node7: ");

    layers.clear();
    p = parse_prefix(" 3: node7: (pid=5) node7:1:2 [0] NCCL WARN x");
    CHECK(l.peel(p, layers) != 0);
    CHECK(to_debug_string(p) == R"(task=3 nccl=node7:1/[0] body="node7:1:2 [0] NCCL WARN x")");
    CHECK(layers.size() == 2);

    layers.clear();
    p = parse_prefix("RuntimeError: node7: x");
    CHECK(l.peel(p, layers) == 0);
    CHECK(layers.empty());
  }

  TEST_CASE("prefix_learning: pdsh host prefixes name two interleaved writers and their hosts") {
    FileResult r = analyze_both(
        repeat("gpu-worker-0: ", "NCCL INFO Using network IB ", 3) + repeat("gpu-worker-1: ", "NCCL INFO Using network IB ", 3) +
        "gpu-worker-0: Traceback (most recent call last):\n"
        "gpu-worker-1: Traceback (most recent call last):\n"
        "gpu-worker-0:   File \"/ws/a.py\", line 3, in f\n"
        "gpu-worker-1:   File \"/ws/b.py\", line 9, in g\n"
        "gpu-worker-0:     f()\n"
        "gpu-worker-1: ValueError: two\n"
        "gpu-worker-0: KeyError: 'one'\n"
        "gpu-worker-1: \n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 2);
    CHECK(tbs[0]->origin.line == 8);
    CHECK(tbs[0]->text == "ValueError: two");
    CHECK(tbs[0]->who.host == "gpu-worker-1");
    CHECK(frames_of(*tbs[0]) == "/ws/b.py:9 ");
    CHECK(tbs[1]->origin.line == 7);
    CHECK(tbs[1]->text == "KeyError: 'one'");
    CHECK(tbs[1]->who.host == "gpu-worker-0");
    CHECK(frames_of(*tbs[1]) == "/ws/a.py:3 ");
  }

  TEST_CASE("prefix_learning: journal lines of two processes interleaved keep their tracebacks apart") {
    // journalctl's default output: every line behind `<stamp> <host> <program>[<pid>]: `, the
    // processes of one host (a node's ranks) interleaved line by line.
    auto line = [](int second, int pid, std::string_view text) {
      return "Nov 29 10:01:" + std::to_string(10 + second) + " node012 python3[" + std::to_string(pid) + "]: " +
             std::string(text) + "\n";
    };
    std::string text;
    for (int i = 0; i < 4; ++i) text += line(i, 4101, "INFO step") + line(i, 4102, "INFO step");
    text += line(5, 4101, "Traceback (most recent call last):") + line(6, 4102, "Traceback (most recent call last):") +
            line(5, 4101, "  File \"/ws/a.py\", line 3, in f") + line(6, 4102, "  File \"/ws/b.py\", line 9, in g") +
            line(5, 4101, "    f()") + line(6, 4102, "    g()") + line(5, 4101, "KeyError: 'one'") +
            line(6, 4102, "ValueError: two") + line(7, 4101, "INFO after") + line(8, 4102, "INFO after");
    FileResult r = analyze_both(text);
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 2);  // in the order they ended
    CHECK(tbs[0]->origin.line == 10);
    CHECK(tbs[0]->text == "ValueError: two");
    CHECK(frames_of(*tbs[0]) == "/ws/b.py:9 ");
    CHECK(tbs[1]->origin.line == 9);
    CHECK(tbs[1]->text == "KeyError: 'one'");
    CHECK(frames_of(*tbs[1]) == "/ws/a.py:3 ");
    for (const Event* e : tbs) {
      CHECK(e->who.host == "node012");
      // The syslog stamps are read (no year: inferred from the job later): each traceback is
      // bounded by its own process's lines.
      REQUIRE(e->before_civil.has_value());
      CHECK(e->before_civil->year == 0);
    }
    CHECK(to_debug_string(*tbs[0]->before_civil) == "?\?\?\?-11-29 10:01:16");
    CHECK(to_debug_string(*tbs[1]->before_civil) == "?\?\?\?-11-29 10:01:15");
  }

  TEST_CASE("prefix_learning: watch (bytes fed in pieces) learns what one read learns") {
    const std::string text =
        repeat("gpu-worker-0: ", "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read ", 80) +
        repeat("gpu-worker-1: ", "NCCL INFO Channel 01/0 : 1[1] -> 0[0] via P2P/IPC/read ", 80) +
        "gpu-worker-1: Traceback (most recent call last):\n"
        "gpu-worker-1:   File \"/ws/t.py\", line 3, in f\n"
        "gpu-worker-1: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
    REQUIRE(text.size() > LineSearcher::kHeadBytes);
    FileResult one = analyze_both(text);
    REQUIRE(tracebacks(one).size() == 1);
    CHECK(tracebacks(one)[0]->who.host == "gpu-worker-1");
    for (std::size_t step : {1u, 100u, 5000u}) {
      SourceFile file;
      file.path = file.display_path = "logs/x.err";
      AnalyzeOptions options;
      options.triggers = &repo_triggers();
      IncrementalAnalyzer inc(file, test::repo_matcher(), options);
      for (std::size_t at = 0; at < text.size(); at += step) inc.feed(std::string_view(text).substr(at, step));
      FileResult r = inc.finish();
      apply_year(r, 2026);
      CAPTURE(step);
      CHECK(test::signature(r) == test::signature(one));
    }
  }

  TEST_CASE("prefix_learning: a host prefix in front of [rankN]: gives rank and host") {
    FileResult r = analyze_both(
        "node7: [rank3]: Traceback (most recent call last):\n"
        "node7: [rank3]:   File \"/ws/t.py\", line 12, in step\n"
        "node7: [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
        "node7: done\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->who.rank == 3);
    CHECK(tbs[0]->who.host == "node7");
    CHECK(tbs[0]->text == "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.");
    CHECK(frames_of(*tbs[0]) == "/ws/t.py:12 ");
  }

  TEST_CASE("prefix_learning: MPI tag-output ranks are writers, learnt from the head or a header") {
    const std::string tracebacks_text =
        "[1,1]<stderr>:Traceback (most recent call last):\n"
        "[1,0]<stderr>:Traceback (most recent call last):\n"
        "[1,1]<stderr>:  File \"/ws/a.py\", line 3, in f\n"
        "[1,0]<stderr>:  File \"/ws/b.py\", line 9, in g\n"
        "[1,1]<stderr>:ValueError: one\n"
        "[1,0]<stderr>:KeyError: 'two'\n";
    for (const std::string& head : {std::string(), repeat("[1,0]<stdout>:", "epoch ", 3) + repeat("[1,1]<stdout>:", "epoch ", 3)}) {
      CAPTURE(head.size());
      FileResult r = analyze_both(head + tracebacks_text);
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 2);
      for (const Event* e : tbs) {
        if (e->who.rank == 1) {
          CHECK(e->text == "ValueError: one");
          CHECK(frames_of(*e) == "/ws/a.py:3 ");
        } else {
          CHECK(e->who.rank == 0);
          CHECK(e->text == "KeyError: 'two'");
          CHECK(frames_of(*e) == "/ws/b.py:9 ");
        }
      }
    }
  }

  TEST_CASE("prefix_learning: bracketed numbers that repeat name writers (MPICH -prepend-rank)") {
    FileResult r = analyze_both(
        repeat("[0] ", "step ", 3) + repeat("[1] ", "step ", 3) +
        "[1] Traceback (most recent call last):\n"
        "[0] Traceback (most recent call last):\n"
        "[1]   File \"/ws/a.py\", line 3, in f\n"
        "[0]   File \"/ws/b.py\", line 9, in g\n"
        "[1] ValueError: one\n"
        "[0] KeyError: 'two'\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 2);
    CHECK(tbs[0]->text != tbs[1]->text);
    for (const Event* e : tbs) CHECK(frames_of(*e).size() == 11);
  }

  TEST_CASE("prefix_learning: a counter prefix on every line of a traceback") {
    FileResult r = analyze_both(
        "[80746] Traceback (most recent call last):\n"
        "[80747]   File \"/ws/t.py\", line 5, in <module>\n"
        "[80748]     import apex\n"
        "[80749] ModuleNotFoundError: No module named 'apex'\n"
        "[80750] next\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->origin.line == 1);
    CHECK(tbs[0]->text == "ModuleNotFoundError: No module named 'apex'");
    CHECK(frames_of(*tbs[0]) == "/ws/t.py:5 ");
  }

  TEST_CASE("prefix_learning: editor line numbers pasted with the log") {
    FileResult r = analyze_both(
        "  9 Traceback (most recent call last):\n"
        " 10   File \"/ws/t.py\", line 5, in <module>\n"
        " 11     import apex\n"
        " 12 ModuleNotFoundError: No module named 'apex'\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->origin.line == 1);
    CHECK(tbs[0]->text == "ModuleNotFoundError: No module named 'apex'");
    CHECK(frames_of(*tbs[0]) == "/ws/t.py:5 ");
  }

  TEST_CASE("prefix_learning: Ray actor tags, per line and on the header line only") {
    SUBCASE("per line") {
      FileResult r = analyze_both(
          "(TaskRunner pid=84989) Traceback (most recent call last):\n"
          "(TaskRunner pid=84989)   File \"/ws/flash_attn/__init__.py\", line 3, in <module>\n"
          "(WorkerDict pid=87823, ip=172.31.30.148) some other worker line\n"
          "(TaskRunner pid=84989) ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEab\n");
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 1);
      CHECK(tbs[0]->origin.line == 1);
      CHECK(tbs[0]->text == "ImportError: flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEab");
      CHECK(frames_of(*tbs[0]) == "/ws/flash_attn/__init__.py:3 ");
    }
    SUBCASE("header only, after a head of Ray lines") {
      FileResult r = analyze_both(
          "2025-02-25 19:42:16,238\tINFO worker.py:1841 -- Started a local Ray instance.\n" +
          repeat("\x1b[36m(main_task pid=2105103)\x1b[0m ", "'total_epochs': ", 6) +
          "\x1b[33m(raylet)\x1b[0m Traceback (most recent call last):\n"
          "  File \"python/ray/_raylet.pyx\", line 2276, in ray._raylet.task_execution_handler\n"
          "  File \"/ws/ray/_private/function_manager.py\", line 608, in temporary_actor_method\n"
          "    raise RuntimeError(\n"
          "RuntimeError: The actor with name WorkerDict failed to import on the worker.\n"
          "\x1b[36m(main_task pid=2105103)\x1b[0m next\n");
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 1);
      CHECK(tbs[0]->origin.line == 8);
      CHECK(tbs[0]->text == "RuntimeError: The actor with name WorkerDict failed to import on the worker.");
      CHECK(frames_of(*tbs[0]) == "python/ray/_raylet.pyx:2276 /ws/ray/_private/function_manager.py:608 ");
      // Placed after the last stamp of the writer whose lines it continues.
      CHECK(tbs[0]->time.source == TimeSource::Inherited);
    }
  }

  TEST_CASE("prefix_learning: a Ray report ending in a header, its frames unprefixed") {
    FileResult r = analyze_both(
        repeat("(main_task pid=2105103) ", "'total_epochs': ", 6) +
        "(raylet) A worker died or was killed. Worker PID: 2106694 Worker exits with an exit code None. Traceback (most recent call last):\n"
        "  File \"python/ray/_raylet.pyx\", line 2276, in ray._raylet.task_execution_handler\n"
        "RuntimeError: The actor with name WorkerDict failed to import on the worker.\n"
        "(main_task pid=2105103) next\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->origin.line == 7);
    CHECK(tbs[0]->text == "RuntimeError: The actor with name WorkerDict failed to import on the worker.");
    CHECK(frames_of(*tbs[0]) == "python/ray/_raylet.pyx:2276 ");
  }

  TEST_CASE("prefix_learning: logging heads on the header line") {
    SUBCASE("ParlAI's rank head gives the rank") {
      FileResult r = analyze_both(
          "rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | Traceback (most recent call last):\n"
          "  File \"/ws/parlai/core/torch_agent.py\", line 2314, in backward\n"
          "    self.optimizer.backward(loss, update_main_grads=False)\n"
          "RuntimeError: CUDA out of memory. Tried to allocate 21.06 GiB (GPU 3; 79.35 GiB total capacity)\n"
          "\n"
          "During handling of the above exception, another exception occurred:\n"
          "\n");
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 1);
      CHECK(tbs[0]->origin.line == 1);
      CHECK(tbs[0]->who.rank == 3);
      CHECK(tbs[0]->text.substr(0, 32) == "RuntimeError: CUDA out of memory");
      CHECK(frames_of(*tbs[0]) == "/ws/parlai/core/torch_agent.py:2314 ");
      REQUIRE(tbs[0]->civil.has_value());
      CHECK(to_debug_string(*tbs[0]->civil) == "2022-04-03 18:44:26.615000");
    }
    SUBCASE("Python logging and DeepSpeed heads") {
      for (std::string head : {"2026-11-29 10:00:00,123 - ERROR - ", "[2024-01-01 10:00:00,000] [ERROR] [file.py:12:func] ",
                               "ERROR:root:"}) {
        CAPTURE(head);
        FileResult r = analyze_both(
            "2026-11-29 09:59:00,000 - INFO - step 1\n" + head +
            "Traceback (most recent call last):\n"
            "  File \"/ws/t.py\", line 7, in main\n"
            "ValueError: bad batch\n"
            "2026-11-29 10:00:01,000 - INFO - after\n");
        auto tbs = tracebacks(r);
        REQUIRE(tbs.size() == 1);
        CHECK(tbs[0]->origin.line == 2);
        CHECK(tbs[0]->text == "ValueError: bad batch");
        CHECK(frames_of(*tbs[0]) == "/ws/t.py:7 ");
      }
    }
    SUBCASE("a per-line logging head with a varying stamp is one writer") {
      FileResult r = analyze_both(
          "2026-11-29 10:00:00,123 - ERROR - Traceback (most recent call last):\n"
          "2026-11-29 10:00:00,124 - ERROR -   File \"/ws/t.py\", line 7, in main\n"
          "2026-11-29 10:00:00,125 - ERROR - ValueError: bad batch\n"
          "2026-11-29 10:00:00,126 - INFO - after\n");
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 1);
      CHECK(tbs[0]->text == "ValueError: bad batch");
      CHECK(frames_of(*tbs[0]) == "/ws/t.py:7 ");
    }
  }

  TEST_CASE("prefix_learning: containerd's per-line head (stamp, stream, tag)") {
    FileResult r = analyze_both(
        "2024-05-01T10:00:00.123456789Z stderr F Traceback (most recent call last):\n"
        "2024-05-01T10:00:00.123500000Z stderr F   File \"/ws/t.py\", line 7, in main\n"
        "2024-05-01T10:00:00.123600000Z stdout F step 3\n"
        "2024-05-01T10:00:00.123700000Z stderr F ValueError: bad batch\n");
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->origin.line == 1);
    CHECK(tbs[0]->text == "ValueError: bad batch");
    CHECK(frames_of(*tbs[0]) == "/ws/t.py:7 ");
  }

  TEST_CASE("prefix_learning: a progress bar before the header on line 1") {
    FileResult r = analyze_both(
        "Epoch 0:   0%|          | 0/420889 [00:00<?, ?it/s]Traceback (most recent call last):\n"
        "  File \"/ws/torch/_dynamo/variables/base.py\", line 253, in as_proxy\n"
        "    raise NotImplementedError(str(self))\n"
        "NotImplementedError: UserFunctionVariable()\n"
        "The above exception was the direct cause of the following exception:\n"
        "Traceback (most recent call last):\n"
        "  File \"/ws/train.py\", line 395, in <module>\n"
        "torch._dynamo.exc.Unsupported: call_function args\n");
    // One chained traceback (its separator's blank lines were not printed): both blocks kept.
    auto tbs = tracebacks(r);
    REQUIRE(tbs.size() == 1);
    CHECK(tbs[0]->origin.line == 1);
    REQUIRE(tbs[0]->traceback->blocks.size() == 2);
    CHECK(tbs[0]->traceback->blocks[0].exception == "NotImplementedError: UserFunctionVariable()");
    CHECK(tbs[0]->traceback->blocks[1].header_line == 6);
    CHECK(tbs[0]->traceback->blocks[1].exception == "torch._dynamo.exc.Unsupported: call_function args");
  }

  TEST_CASE("prefix_learning: text that is not a prefix leaves tracebacks as they were") {
    SUBCASE("a quoted header inside an exception message") {
      FileResult r = analyze_both(
          "Traceback (most recent call last):\n"
          "  File \"/ws/t.py\", line 7, in main\n"
          "RuntimeError: Caught RuntimeError in DataLoader worker process 0.\n"
          "Original Traceback (most recent call last):\n"
          "  File \"/ws/data.py\", line 3, in get\n"
          "KeyError: 'x'\n");
      // Not a prefix "Original ": the quoted traceback is the wrapper's embedded block.
      auto tbs = tracebacks(r);
      REQUIRE(tbs.size() == 1);
      REQUIRE(tbs[0]->traceback->blocks.size() == 2);
      CHECK(tbs[0]->traceback->blocks[0].exception == "RuntimeError: Caught RuntimeError in DataLoader worker process 0.");
      CHECK(tbs[0]->traceback->blocks[1].embedded);
      CHECK(tbs[0]->traceback->blocks[1].exception == "KeyError: 'x'");
    }
    SUBCASE("torchelastic's error table") {
      FileResult r = analyze_both(
          "  traceback : Traceback (most recent call last):\n"
          "    File \"/ws/t.py\", line 346, in wrapper\n"
          "      return f(*args, **kwargs)\n"
          "  RuntimeError: boom\n");
      CHECK(tracebacks(r).empty());
    }
  }
}

}  // namespace megatriage
