// extract + root_cause: "analyze one file" on in-memory bytes with the repository's rules, and
// the root-cause policy over the resulting events.
#include <doctest/doctest.h>

#include <string>

#include "decide/classify.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "extract/extract.h"
#include "extract/timestamp.h"
#include "match/rules.h"
#include "support/repo_rules.h"

using namespace megatriage;

namespace {

using test::repo_matcher;

FileResult analyze_text(const std::string& text, FileId id = 0, const std::string& name = "logs/x.err") {
  SourceFile file;
  file.id = id;
  file.path = file.display_path = name;
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, name, diags);
  FileResult r = analyze_source(file, *source, repo_matcher(), AnalyzeOptions{}, diags);
  apply_year(r, 2026);
  return r;
}

const Event* first_of(const FileResult& r, EventKind kind) {
  for (const auto& e : r.events)
    if (e.kind == kind) return &e;
  return nullptr;
}

}  // namespace

TEST_SUITE("extract") {
TEST_CASE("extract: a Boxed part reads as a default when empty and copies deeply") {
  Boxed<ChildFailure> empty;
  CHECK(empty->rank == ChildFailure{}.rank);  // const read: nothing allocated, a default value
  Boxed<ChildFailure> a;
  a->rank = 7;  // a write fills it
  Boxed<ChildFailure> b = a;
  b->rank = 8;
  CHECK(a->rank == 7);
  CHECK(b->rank == 8);
  Boxed<ChildFailure> c = std::move(b);
  CHECK(c->rank == 8);
  a = c;
  CHECK(a->rank == 8);
}

TEST_CASE("extract: a file says whether its matched lines may name a SLURM job") {
  // The job selection skips reading the events of a file that says no (job_from_events).
  const std::string watchdog =
      "[rank3]:[E1130 06:51:26.658971375 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum=53, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.\n";
  FileResult plain = analyze_text(watchdog);
  REQUIRE_FALSE(plain.events.empty());
  CHECK_FALSE(plain.lines_may_name_job);
  for (const std::string& slurm :
       {std::string("slurmstepd: error: *** JOB 9 ON node1 CANCELLED AT 2026-11-29T15:43:02 DUE TO TIME LIMIT ***\n"),
        std::string("slurmstepd: error: Detected 1 oom_kill event in StepId=42.0. Some of the step tasks have been "
                    "OOM Killed.\n")}) {
    CAPTURE(slurm);
    FileResult named = analyze_text(watchdog + slurm);
    REQUIRE(named.events.size() > plain.events.size());
    CHECK(named.lines_may_name_job);
  }
  CHECK(FileResult{}.lines_may_name_job);  // unless the analysis said no: look
  CHECK(analyze_text("nothing to see\n").lines_may_name_job == false);
}

TEST_CASE("extract: a traceback whose writer printed nothing more ends 10,000-11,024 lines later") {
  // Its message's next line comes from its own writer right after it; a rank that died prints
  // none, and the traceback would keep every later line of the file on the slow path.
  auto text = [](int others) {
    std::string t = "[rank5]: Traceback (most recent call last):\n"
                    "[rank5]:   File \"/w/train.py\", line 3, in <module>\n"
                    "[rank5]:     step()\n"
                    "[rank5]: ValueError: first line of the message\n";
    for (int i = 0; i < others; ++i) t += "[rank6]: iteration " + std::to_string(i) + " done\n";
    t += "[rank5]: second line of the message\n";
    return t;
  };
  for (int others : {50, 9000, 12000, 30000}) {
    CAPTURE(others);
    FileResult r = analyze_text(text(others));
    const Event* tb = first_of(r, EventKind::Traceback);
    REQUIRE(tb != nullptr);
    REQUIRE(tb->traceback->blocks.size() == 1);
    const ExceptionBlock& b = tb->traceback->blocks[0];
    CHECK(b.exception == "ValueError: first line of the message");
    CHECK(b.frames.size() == 1);
    CHECK(tb->who.rank == 5);
    // Within 10,000 lines the writer's next line still continues the message; past 11,024 (the
    // look comes every 1,024 lines), not.
    CHECK((b.message_tail.find("second line of the message") != std::string::npos) == (others < 10000));
  }
}

TEST_CASE("extract: prefixed tracebacks of two ranks interleaved are demultiplexed") {
  FileResult r = analyze_text(
      "[rank1]: Traceback (most recent call last):\n"
      "[rank0]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/ws/a.py\", line 3, in f\n"
      "[rank0]:   File \"/ws/b.py\", line 9, in g\n"
      "[rank1]: ValueError: one\n"
      "[rank0]: KeyError: 'two'\n"
      "done\n");
  int tracebacks = 0;
  for (const auto& e : r.events) {
    if (e.kind != EventKind::Traceback) continue;
    ++tracebacks;
    if (e.who.rank == 1) {
      CHECK(e.origin.line == 1);
      CHECK(e.text == "ValueError: one");
      CHECK(e.traceback->blocks[0].frames.at(0).path == "/ws/a.py");
    } else {
      CHECK(e.who.rank == 0);
      CHECK(e.origin.line == 2);
      CHECK(e.text == "KeyError: 'two'");
    }
  }
  CHECK(tracebacks == 2);
}

TEST_CASE("extract: a traceback logged inside a JSON record is an event at its line, timed by the record") {
  // logger.exception() through a JSON formatter: the traceback is one member's escaped string.
  FileResult r = analyze_text(
      "[rank3]:{\"time\": \"2026-11-29T10:01:29.123Z\", \"level\": \"INFO\", \"message\": \"iteration 19\"}\n"
      "[rank3]:{\"time\": \"2026-11-29T10:01:31.500Z\", \"level\": \"ERROR\", \"message\": \"training failed\", "
      "\"exc_info\": \"Traceback (most recent call last):\\n  File \\\"/w/train.py\\\", line 3, in <module>\\n"
      "    main()\\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
      "capacity of 79.15 GiB of which 1.02 GiB is free.\"}\n"
      "[rank3]:{\"time\": \"2026-11-29T10:01:32.000Z\", \"level\": \"INFO\", \"message\": \"exiting\"}\n");
  const Event* tb = first_of(r, EventKind::Traceback);
  REQUIRE(tb != nullptr);
  CHECK(tb->origin.line == 2);
  CHECK(tb->who.rank == 3);
  CHECK(tb->text ==
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 "
        "GiB of which 1.02 GiB is free.");
  REQUIRE(tb->traceback->blocks.size() == 1);
  CHECK(tb->traceback->blocks[0].frames.at(0).path == "/w/train.py");
  CHECK(tb->traceback->blocks[0].frames.at(0).line == 3);
  REQUIRE_FALSE(tb->matches.empty());
  CHECK(repo_matcher().rules()[static_cast<std::size_t>(tb->matches[0].rule_index)].id == "cuda.oom");
  // The records' stamps are read: the record's own is the traceback's.
  CHECK(tb->time.source == TimeSource::Inherited);
  CHECK(tb->civil.has_value());
  CHECK(format_iso(tb->time.us) == "2026-11-29T10:01:31.500000");
  CHECK(r.stamped_lines == 3);
}

TEST_CASE("extract: an unstamped traceback inherits its stream's stamp and is bounded by the launcher line") {
  FileResult r = analyze_text(
      "[W1129 15:00:01.000000000 x.cpp:1] warming up\n"
      "Traceback (most recent call last):\n"
      "  File \"/ws/t.py\", line 1, in <module>\n"
      "ModuleNotFoundError: No module named 'wandb'\n"
      "E1129 15:00:09.536000 123 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 9) of binary: /usr/bin/python3\n");
  const Event* tb = first_of(r, EventKind::Traceback);
  REQUIRE(tb != nullptr);
  CHECK(tb->time.source == TimeSource::Inherited);
  CHECK(tb->time.year_inferred);
  REQUIRE(tb->before_us.has_value());
  CHECK(*tb->before_us - tb->time.us == 8536000);
  CHECK(ordering_time(*tb) == tb->before_us);
}

TEST_CASE("extract: the ChildFailedError table yields one entry per failure") {
  FileResult r = analyze_text(
      "Failures:\n"
      "[1]:\n"
      "  time      : 2026-11-29_15:41:25\n"
      "  host      : node2.cluster.local\n"
      "  rank      : 3 (local_rank: 1)\n"
      "  exitcode  : -9 (pid: 10923)\n"
      "  error_file: <N/A>\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  time      : 2026-11-29_15:41:25\n"
      "  host      : node2.cluster.local\n"
      "  rank      : 2 (local_rank: 0)\n"
      "  exitcode  : 1 (pid: 10920)\n");
  std::vector<const Event*> entries;
  for (const auto& e : r.events)
    if (e.kind == EventKind::ChildFailure) entries.push_back(&e);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]->child->rank == 3);
  CHECK(entries[0]->child->local_rank == 1);
  CHECK(entries[0]->child->exitcode == -9);
  CHECK(entries[0]->child->pid == 10923);
  CHECK_FALSE(entries[0]->child->root_cause_section);
  CHECK(entries[0]->who.host == "node2");
  CHECK(entries[1]->child->root_cause_section);
  CHECK(entries[1]->time.source == TimeSource::Explicit);
}

TEST_CASE("extract: coloured lines are matched after removing escapes, with a diagnostic") {
  FileResult r = analyze_text(
      "\x1b[31mTraceback (most recent call last):\x1b[0m\n"
      "  File \"/ws/t.py\", line 1, in <module>\n"
      "\x1b[1mtorch.OutOfMemoryError\x1b[0m: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n");
  const Event* tb = first_of(r, EventKind::Traceback);
  REQUIRE(tb != nullptr);
  REQUIRE_FALSE(tb->matches.empty());
  CHECK(repo_matcher().rules()[static_cast<std::size_t>(tb->matches[0].rule_index)].category == Category::Oom);
  bool diag = false;
  for (const auto& d : r.diagnostics) diag = diag || d.code == "extract.terminal-escapes";
  CHECK(diag);
}

TEST_CASE("extract: fields are captured from the line as matched, even when the event text is not it") {
  // The event text is cut to the event cap and UTF-8 repaired; the rules saw the line itself,
  // and captures (taken when the report reads a field) must see it too.
  const std::string tail = ": task 2: Exited with exit code 1";
  std::string line, host;
  SUBCASE("as printed") {
    line = "srun: error: node03" + tail;
    host = "node03";
  }
  SUBCASE("longer than the event cap, the match past it") {
    line = std::string(3000, 'x') + " srun: error: node03" + tail;
    host = "node03";
  }
  SUBCASE("invalid UTF-8") {
    line = "srun: error: node\xff" "03" + tail;
    host = "node\xff" "03";
  }
  FileResult r = analyze_text(line + "\n");
  const Event* e = first_of(r, EventKind::RuleLine);
  REQUIRE(e != nullptr);
  REQUIRE_FALSE(e->matches.empty());
  CHECK((e->text == line) == (e->matched_line == nullptr));  // kept only when it differs
  CHECK(matched_text(*e) == line);
  CHECK(event_field(*e, repo_matcher(), "host") == host);
  CHECK(event_field(*e, repo_matcher(), "tasks") == "2");
  CHECK_FALSE(event_field(*e, repo_matcher(), "no_such_field"));
}

TEST_CASE("extract: a traceback's fields come from its exception line and message tail") {
  SUBCASE("one line") {
    FileResult r = analyze_text(
        "Traceback (most recent call last):\n"
        "  File \"/ws/t.py\", line 1, in <module>\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n");
    const Event* tb = first_of(r, EventKind::Traceback);
    REQUIRE(tb != nullptr);
    REQUIRE_FALSE(tb->matches.empty());
    CHECK(matched_text(*tb) == tb->text);
    CHECK(repo_matcher().fields(tb->matches[0], matched_text(*tb)).at("tried") == "2.00 GiB");
  }
  SUBCASE("a message tail: the field after the line break") {
    FileResult r = analyze_text(
        "Traceback (most recent call last):\n"
        "  File \"x.py\", line 1, in f\n"
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:317, unhandled system error\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
        "[E501 12:00:03.123 ProcessGroupNCCL.cpp:1] later line\n");
    const Event* tb = first_of(r, EventKind::Traceback);
    REQUIRE(tb != nullptr);
    CHECK(matched_text(*tb) ==
          "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:317, unhandled system error\n"
          "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.");
    CHECK(event_field(*tb, repo_matcher(), "result") == "ncclSystemError");
  }
}

TEST_CASE("extract: hitting the frame and message caps is a diagnostic with the figures") {
  std::string text = "Traceback (most recent call last):\n";
  for (int i = 1; i <= 100; ++i) text += "  File \"f.py\", line " + std::to_string(i) + ", in f\n";
  text += "ValueError: " + std::string(10000, 'x') + "\n";
  SourceFile file;
  file.path = file.display_path = "logs/x.err";
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, file.display_path, diags);
  AnalyzeOptions options;
  options.traceback.max_frames = 10;
  FileResult r = analyze_source(file, *source, repo_matcher(), options, diags);
  const Diagnostic* frames = nullptr;
  const Diagnostic* message = nullptr;
  for (const auto& d : r.diagnostics) {
    if (d.code == "extract.frames-capped") frames = &d;
    if (d.code == "extract.message-capped") message = &d;
  }
  REQUIRE(frames != nullptr);
  CHECK(frames->message.find("100 frames; kept 10 (limit 10") != std::string::npos);
  CHECK(frames->line == 1);
  REQUIRE(message != nullptr);
  CHECK(message->message.find("4096 bytes") != std::string::npos);
}

TEST_CASE("extract: a binary file is skipped with a diagnostic") {
  std::string junk(4096, '\0');
  for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 7) % 32);
  FileResult r = analyze_text(junk);
  CHECK(r.binary);
  CHECK(r.events.empty());
  REQUIRE_FALSE(r.diagnostics.empty());
  CHECK(r.diagnostics[0].code == "read.binary-file");
}
}

TEST_SUITE("root_cause") {
TEST_CASE("root_cause: a watchdog traceback earlier in the file does not hide the earlier-in-time cause") {
  // File 0: rank 0's watchdog symptom, stamped 15:01:00. File 1: rank 1's OOM, bounded 15:00:30.
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "[rank0]:[E1129 15:01:00.000000000 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=13, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, Timeout(ms)=30000) ran for 30038 milliseconds before timing out.\n",
      0, "logs/a.err"));
  files.push_back(analyze_text(
      "[rank1]:[W1129 15:00:00.000000000 x.cpp:1] step\n"
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/ws/t.py\", line 9, in step\n"
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"
      "E1129 15:00:30.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 9) of binary: python3\n",
      1, "logs/b.err"));
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, repo_matcher());
  REQUIRE(finding.has_value());
  const Event& root = *timeline[finding->index].event;
  CHECK(root.origin.file == 1);
  CHECK(root.origin.line == 2);
  CHECK(finding->who.rank == 1);
  auto report = classify_root(*finding, timeline, repo_matcher());
  CHECK(report.category == Category::Oom);
  CHECK(report.time_basis == TimeBasis::Bounded);
  auto groups = group_symptoms(timeline, finding, repo_matcher());
  REQUIRE_FALSE(groups.empty());
  CHECK(groups[0].category == Category::Nccl);
  CHECK(groups[0].ranks == std::vector<int>{0});
  REQUIRE(groups[0].delay_us.has_value());
  CHECK(*groups[0].delay_us == 30000000);
}

TEST_CASE("root_cause: only NCCL symptoms make the earliest of them the root, category nccl") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "[E1129 15:35:27.464325505 socket.cpp:1028] [c10d] The client socket has timed out after 60000ms while trying to connect to (127.0.0.1, 29616).\n"));
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, repo_matcher());
  REQUIRE(finding.has_value());
  CHECK(classify_root(*finding, timeline, repo_matcher()).category == Category::Nccl);
}

TEST_CASE("extract: a headerless traceback survives other ranks' lines between its own") {
  const std::string text =
      "[rank1]:   File \"/ws/a.py\", line 3, in f\n"
      "[rank0]: iteration 10 loss 1.0\n"
      "[rank1]:     g()\n"
      "[rank0]:   File \"/ws/b.py\", line 9, in g\n"
      "[rank1]: ValueError: Template qwen3 does not exist.\n"
      "[rank0]:     h()\n"
      "[rank0]: KeyError: 'x'\n";
  DiagnosticSink diags;
  std::unique_ptr<TriggerScanner> triggers = make_trigger_scanner(repo_matcher(), diags);
  REQUIRE(triggers != nullptr);
  for (bool fast : {false, true}) {
    INFO("trigger search: " << fast);
    SourceFile file;
    file.path = file.display_path = "logs/x.err";
    AnalyzeOptions options;
    if (fast) options.triggers = triggers.get();
    auto source = memory_source(text, Compression::None, file.display_path, diags);
    FileResult r = analyze_source(file, *source, repo_matcher(), options, diags);
    std::vector<const Event*> tbs;
    for (const auto& e : r.events)
      if (e.kind == EventKind::Traceback) tbs.push_back(&e);
    REQUIRE(tbs.size() == 2);
    if (tbs[0]->who.rank != 1) std::swap(tbs[0], tbs[1]);  // in the order they were completed
    CHECK(tbs[0]->who.rank == 1);
    CHECK(tbs[0]->origin.line == 5);  // its exception line
    CHECK(tbs[0]->traceback->headerless);
    CHECK(tbs[0]->traceback->first_line == 1);
    CHECK(tbs[0]->text == "ValueError: Template qwen3 does not exist.");
    CHECK(tbs[1]->who.rank == 0);
    CHECK(tbs[1]->origin.line == 7);
    CHECK(tbs[1]->traceback->blocks[0].frames.size() == 1);
  }
}

TEST_CASE("root_cause: a lone exception line is failure evidence, and the report says what it is") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "[rank6]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 56.00 MiB. GPU 6 has a "
      "total capacity of 79.33 GiB of which 49.81 MiB is free.\n"
      "W1118 17:52:35.055000 139823151372096 torch/distributed/elastic/multiprocessing/api.py:858] "
      "Sending process 143995 closing signal SIGTERM\n"));
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, repo_matcher());
  REQUIRE(finding.has_value());
  auto r = classify_root(*finding, timeline, repo_matcher());
  CHECK(r.category == Category::Oom);
  CHECK(r.line == 1);
  CHECK(r.rank == 6);
  CHECK(r.fragment == Fragment::ExceptionLine);
  CHECK(std::string(evidence_json_name(r.evidence, r.fragment)) == "exception_line");
  bool said = false;
  for (const auto& reason : finding->reasons) said = said || reason.find("lone exception line") != std::string::npos;
  CHECK(said);
}

TEST_CASE("root_cause: a headerless traceback is the root at its exception line") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "[rank0]:   File \"/opt/megatron-lm/megatron/core/parallel_state.py\", line 532, in initialize_model_parallel\n"
      "[rank0]:     raise RuntimeError(f\"world_size ({world_size}) is not divisible by {total_model_size}\")\n"
      "[rank0]: RuntimeError: world_size (1) is not divisible by 2\n"));
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, repo_matcher());
  REQUIRE(finding.has_value());
  auto r = classify_root(*finding, timeline, repo_matcher());
  CHECK(r.line == 3);
  CHECK(r.rank == 0);
  CHECK(r.fragment == Fragment::HeaderlessTraceback);
  CHECK(r.frames.size() == 1);
}

TEST_CASE("root_cause: warnings are not failures") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "/ws/x.py:12: UserWarning: torch.cuda.amp.autocast(args...) is deprecated\n"
      "  warnings.warn(\n"
      "UserWarning: something else\n"
      "FutureWarning: `foo` is deprecated\n"
      "iteration 1\n"));
  auto timeline = merge_timeline(files);
  CHECK_FALSE(select_root_cause(timeline, repo_matcher()).has_value());
}

TEST_CASE("root_cause: nothing failed gives no finding") {
  std::vector<FileResult> files;
  files.push_back(analyze_text("iteration 1\niteration 2\n"));
  auto timeline = merge_timeline(files);
  CHECK_FALSE(select_root_cause(timeline, repo_matcher()).has_value());
}

TEST_CASE("root_cause: an unrecognised exception is a cause of category unknown") {
  std::vector<FileResult> files;
  files.push_back(analyze_text(
      "Traceback (most recent call last):\n"
      "  File \"/ws/t.py\", line 1, in <module>\n"
      "IndexError: index 4096 is out of bounds for dimension 0 with size 4096\n"));
  auto timeline = merge_timeline(files);
  auto finding = select_root_cause(timeline, repo_matcher());
  REQUIRE(finding.has_value());
  auto r = classify_root(*finding, timeline, repo_matcher());
  CHECK(r.category == Category::Unknown);
  CHECK(r.rule == kUnclassifiedRule);
  CHECK(r.time_basis == TimeBasis::None);
}
}

TEST_SUITE("extract") {
TEST_CASE("extract: incremental feeding in any chunk size finds the same events as one pass") {
  const std::string text =
      "[rank1]:[W1129 15:00:00.000000000 x.cpp:1] step\r\n"
      "epoch 10%\repoch 100%\n"
      "[rank1]: Traceback (most recent call last):\n"
      "[rank1]:   File \"/ws/t.py\", line 9, in step\n"
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.02 GiB is free.\n"
      "E1129 15:00:30.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 9) of binary: python3\n"
      "[rank0]:[E1129 15:01:00.000000000 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=13, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, Timeout(ms)=30000) ran for 30038 milliseconds before timing out.\n";
  FileResult whole = analyze_text(text);
  auto key = [](const FileResult& r) {
    std::string s;
    for (const auto& e : r.events) s += std::to_string(e.origin.line) + ":" + e.text + "|";
    return s;
  };
  for (std::size_t chunk : {1u, 3u, 7u, 64u, 4096u}) {
    SourceFile file;
    file.display_path = "logs/x.err";
    IncrementalAnalyzer inc(file, repo_matcher(), AnalyzeOptions{});
    for (std::size_t i = 0; i < text.size(); i += chunk) inc.feed(std::string_view(text).substr(i, chunk));
    FileResult r = inc.snapshot();
    apply_year(r, 2026);
    CHECK(key(r) == key(whole));
    CHECK(r.lines == 7);
  }
}

TEST_CASE("extract: a snapshot includes a traceback whose exception line has arrived") {
  SourceFile file;
  file.display_path = "logs/x.err";
  IncrementalAnalyzer inc(file, repo_matcher(), AnalyzeOptions{});
  inc.feed("[rank3]: Traceback (most recent call last):\n[rank3]:   File \"/ws/t.py\", line 1, in f\n");
  CHECK(inc.snapshot().events.empty() == false);  // cut-off traceback (incomplete) is visible
  CHECK(inc.snapshot().events[0].traceback->incomplete);
  inc.feed("[rank3]: ModuleNotFoundError: No module named 'wandb'\n");
  FileResult r = inc.snapshot();
  REQUIRE(r.events.size() == 1);
  CHECK_FALSE(r.events[0].traceback->incomplete);
  CHECK(r.events[0].text == "ModuleNotFoundError: No module named 'wandb'");
  inc.feed("[rank3]: partial line without newline");
  CHECK(inc.snapshot().lines == 3);
}
}
