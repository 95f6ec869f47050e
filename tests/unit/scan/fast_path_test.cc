// The trigger-search fast path must give exactly what examining every line gives, whatever the
// buffer size (the search runs once per buffer of complete lines; skipped runs end at buffer
// borders). Checked on every fixture log and on a generated log that puts each extractor's
// shapes, NULs, CRs, escapes and over-long lines across many buffer borders.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <unistd.h>
#include <string>

#include "base/run_cache.h"
#include "extract/extract.h"
#include "extract/timestamp.h"
#include "input/discover.h"
#include "match/rules.h"
#include "support/repo_rules.h"
#include "support/generated_log.h"
#include "support/result_signature.h"

using namespace megatriage;

namespace {

using test::repo_matcher;
using test::generated_log;
using test::with_crlf;
using test::signature;

const TriggerScanner& repo_triggers(TriggerScanner::Engine engine = TriggerScanner::Engine::Best) {
  static DiagnosticSink diags;
  static std::unique_ptr<TriggerScanner> best = make_trigger_scanner(repo_matcher(), diags);
  static std::unique_ptr<TriggerScanner> builtin =
      make_trigger_scanner(repo_matcher(), diags, TriggerScanner::Engine::Builtin);
  REQUIRE(best != nullptr);
  REQUIRE(builtin != nullptr);
  return engine == TriggerScanner::Engine::Best ? *best : *builtin;
}

// Both trigger search engines (Vectorscan when built with it, and the built-in one).
constexpr TriggerScanner::Engine kEngines[] = {TriggerScanner::Engine::Best, TriggerScanner::Engine::Builtin};

std::string analyze(const std::string& text, const AnalyzeOptions& options) {
  SourceFile file;
  file.path = file.display_path = "logs/gen.out";
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, file.display_path, diags);
  return signature(analyze_source(file, *source, repo_matcher(), options, diags));
}

// The signature of `text` analysed with the trigger search (the default engine).
std::string analyze_fast(const std::string& text) {
  AnalyzeOptions fast;
  fast.triggers = &repo_triggers();
  return analyze(text, fast);
}

void check_same_for_every_buffer(const std::string& text, const std::string& what) {
  for (std::size_t max_line : {std::size_t{300}, std::size_t{64} << 10}) {
    AnalyzeOptions every_line;
    every_line.split.max_line_bytes = max_line;
    every_line.split.buffer_bytes = 1 << 20;
    const std::string expected = analyze(text, every_line);
    for (std::size_t buffer : {max_line + 2, max_line + 977, std::size_t{70000}, std::size_t{1} << 20}) {
      for (auto engine : kEngines) {
        AnalyzeOptions fast = every_line;
        fast.split.buffer_bytes = buffer;
        fast.triggers = &repo_triggers(engine);
        INFO(what << ": max line " << max_line << ", buffer " << buffer << ", " << fast.triggers->engine_name());
        CHECK(analyze(text, fast) == expected);
      }
      // The slow path itself does not depend on the buffer either.
      every_line.split.buffer_bytes = buffer;
      CHECK(analyze(text, every_line) == expected);
      every_line.split.buffer_bytes = 1 << 20;
    }
  }
}


// Logging-stamped lines in a cycle of seven, one with a fact's anchor (`iteration `), so that
// after the first region most lines are taken as runs and the next regions are searched
// without stamps. Every so often a line breaks a run: a second time of day in the message, an
// unstamped continuation, another writer's head, an escape, a NUL, a CRLF, an over-long
// line; the clock steps back once and the hour's first digit changes (a new head); a
// traceback sits in the middle, and the file ends on stamp-only lines.
std::string logging_stamped_log() {
  std::string text;
  int clock = 9 * 3600 + 50 * 60;  // 09:50:00
  auto stamp = [&clock](int millis) {
    char out[64];
    std::snprintf(out, sizeof out, "2026-11-30 %02d:%02d:%02d,%03d", clock / 3600, clock / 60 % 60, clock % 60, millis);
    return std::string(out);
  };
  const char* loggers[] = {"lightning.pytorch - Epoch 0, global step", "py.warnings - UserWarning: none",
                           "torch.distributed - barrier on group 2", "megatron.core.timers - forward-backward",
                           "nemo.collections.llm.gpt.data - Loading batch", "megatron.core.optimizer - step"};
  for (int i = 0; i < 2200; ++i) {
    if (i == 400) clock -= 120;  // a clock step back
    clock += 1;
    text += stamp(i % 1000) + " - INFO - megatron.training - iteration " + std::to_string(i + 1) +
            "/500000 | lm loss: 7.5E+00 | global batch size: 16 |\n";
    for (int k = 0; k < 6; ++k) {
      std::string line = stamp((i * 7 + k) % 1000) + " - INFO - " + loggers[k] + " " + std::to_string(i);
      if (k == 2 && i % 97 == 5) line += " done at 10:11:12";
      if (k == 3 && i % 79 == 11) line += " \x1b[33mcolored\x1b[0m";
      if (k == 4 && i % 73 == 13) line += std::string(" nul") + '\0' + "byte";
      if (k == 5 && i % 67 == 17) line += " " + std::string(400, 'x');
      if (k == 1 && i % 71 == 15) line += "\r";
      text += line + "\n";
      if (k == 0 && i % 89 == 7) text += "    continued without a stamp\n";
      if (k == 3 && i % 53 == 19)  // a needle on the route: an event
        text += stamp(0) + " - ERROR - nccl - node3:1:1 [3] NCCL WARN Call to ibv_reg_mr failed, try " +
                std::to_string(i) + "\n";
      if (k == 4 && i % 83 == 9) text += "[rank1]:" + stamp(0) + " - INFO - another writer\n";
      // Lines with a fact's anchor on the route, which a run takes itself: a GPU line, a
      // trainer's progress dict, and once an arguments dump (its first line ends the run).
      if (k == 4 && i % 61 == 3) text += stamp(1) + " - INFO - nemo.utils - GPU 0: NVIDIA H100 80GB HBM3\n";
      if (k == 2 && i % 59 == 4)
        text += stamp(2) + " - INFO - transformers.trainer - {'loss': 1.25, 'grad_norm': 0.5, 'epoch': " +
                std::to_string(i) + ".5}\n";
      if (k == 5 && i == 1700) {
        text += stamp(3) + " - INFO - ------------------------ arguments ------------------------\n";
        text += stamp(4) + " - INFO -   micro_batch_size ................................ 2\n";
        text += stamp(5) + " - INFO - -------------------- end of arguments ---------------------\n";
      }
    }
    if (i == 1500) {
      text += "Traceback (most recent call last):\n"
              "  File \"/w/train.py\", line 3, in <module>\n"
              "    main()\n"
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
    }
  }
  for (int k = 0; k < 20; ++k) text += stamp(k) + " - INFO - megatron.core.timers - tail " + std::to_string(k) + "\n";
  return text;
}


// What the fast path must still find in logging_stamped_log() rewritten in another style: the
// traceback's exception, the last needle line's event and a fact from a line taken as a run.
void check_stamped_log_findings(const std::string& signature) {
  CHECK(signature.find("OutOfMemoryError") != std::string::npos);
  CHECK(signature.find("ibv_reg_mr failed, try 2192") != std::string::npos);
  CHECK(signature.find("fact gpu_model=H100") != std::string::npos);
}

// `text` with each line (the text between its '\n's; the last may lack one) replaced by
// `rewrite(line, index)`: how the tests below write one log in another style.
template <class Rewrite>
std::string rewrite_lines(const std::string& text, Rewrite rewrite) {
  std::string out;
  for (std::size_t start = 0, index = 0; start < text.size(); ++index) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += rewrite(text.substr(start, end - start), index);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// `text` as a terminal-bound logger writes it (FORCE_COLOR, rich, Python 3.13 tracebacks): the
// stamp green and the level bold, other lines red, and now and then what is rarer: a hyperlink
// (OSC 8), a charset reset (`ESC ( B`), a sequence cut off by the line's end, a lone ESC.
std::string coloured(const std::string& text) {
  return rewrite_lines(text, [](std::string line, std::size_t n) {
    const std::size_t level = line.find(" - INFO - ");
    if (!line.empty() && line[0] == '2' && level != std::string::npos)
      line = "\x1b[32m" + line.substr(0, level) + "\x1b[0m - \x1b[1mINFO\x1b[0m - " + line.substr(level + 10);
    else if (!line.empty())
      line = "\x1b[31m" + line + "\x1b[0m";
    if (n % 5 == 1) line += " \x1b]8;;https://example.org/x\x1b\\doc\x1b]8;;\x1b\\";
    if (n % 7 == 2) line = "\x1b(B" + line;
    if (n % 11 == 3) line += "\x1b[1";
    if (n % 13 == 4) line += "\x1b";
    return line;
  });
}


// `text` on the fast path (both line limits, the buffers given that hold a line, both engines)
// gives what examining every line gives, and most of its regions were searched lazily (the
// lines were taken as runs); with `eager_too`, also with lazy stamps off.
void check_lazy_same_as_every_line(const std::string& text, std::initializer_list<std::size_t> buffers,
                                   bool eager_too) {
  for (std::size_t max_line : {std::size_t{300}, std::size_t{64} << 10}) {
    AnalyzeOptions every_line;
    every_line.split.max_line_bytes = max_line;
    const std::string expected = analyze(text, every_line);
    for (std::size_t buffer : buffers) {
      if (buffer < max_line + 2) continue;
      for (auto engine : kEngines) {
        AnalyzeOptions fast = every_line;
        fast.split.buffer_bytes = buffer;
        fast.triggers = &repo_triggers(engine);
        std::uint64_t lazy_regions = 0;
        fast.lazy_regions = &lazy_regions;
        INFO("max line " << max_line << ", buffer " << buffer << ", " << fast.triggers->engine_name());
        CHECK(analyze(text, fast) == expected);
        CHECK(lazy_regions > text.size() / buffer / 2);
        if (!eager_too) continue;
        fast.lazy_stamps = false;
        CHECK(analyze(text, fast) == expected);
      }
    }
  }
}


}  // namespace

TEST_SUITE("fast path") {
TEST_CASE("fast path: the built-in engine is the built-in one") {
  CHECK(std::string(repo_triggers(TriggerScanner::Engine::Builtin).engine_name()) == "builtin");
  CHECK(repo_triggers(TriggerScanner::Engine::Builtin).literal_count() >= 50);
}

TEST_CASE("fast path: a hit names the tags of every needle that contains its literal") {
  for (TriggerScanner::Engine engine : kEngines) {
    DiagnosticSink diags;
    // "WARN" stands for "NCCL WARN" and the anchor "WARNING" (kept: the shorter one).
    const TriggerScanner scanner({{"NCCL WARN", 3}, {"WARN", 7}, {"boom", 9}, {"boom", 5}, {"\x1b", -1}},
                                 {"WARNING", "Traceback"}, diags, engine);
    REQUIRE(scanner.ok());
    CHECK(diags.empty());
    std::vector<TriggerScanner::Hit> hits;
    scanner.scan("x NCCL WARN y\nboom at 12:00:01\nTraceback\n\x1b[0m\n", hits);
    std::string seen;
    for (const TriggerScanner::Hit& h : hits) {
      seen += std::to_string(h.end) + (h.needle ? "n" : "a");
      if (h.literal == TriggerScanner::kStamp) seen += "@stamp";
      for (int tag : scanner.needle_tags(h.literal)) {
        seen += ',';
        seen += std::to_string(tag);
      }
      seen += " ";
    }
    CAPTURE(engine == TriggerScanner::Engine::Best);
    CHECK(seen == "10n,3,7 17n,5,9 29a@stamp 39a 41n ");
  }
}

TEST_CASE("fast path: a cached trigger search finds what a compiled one finds; a damaged entry is replaced") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("megatriage-trigger-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const RunCache cache(dir.string());
  const std::string text = generated_log();
  auto hits_of = [&](const TriggerScanner& scanner) {
    std::vector<TriggerScanner::Hit> hits;
    scanner.scan(text, hits);
    std::string out;
    for (const auto& h : hits) out += std::to_string(h.end) + ":" + std::to_string(h.literal) + (h.needle ? "n " : "a ");
    return out;
  };
  DiagnosticSink diags;
  auto compiled = make_trigger_scanner(repo_matcher(), diags, TriggerScanner::Engine::Best, &cache);
  REQUIRE(compiled != nullptr);
  CHECK_FALSE(compiled->from_cache());
  const std::string expected = hits_of(*compiled);
  CHECK(expected == hits_of(repo_triggers()));
  if (std::string(compiled->engine_name()) == "vectorscan") {
    auto loaded = make_trigger_scanner(repo_matcher(), diags, TriggerScanner::Engine::Best, &cache);
    REQUIRE(loaded != nullptr);
    CHECK(loaded->from_cache());
    CHECK(hits_of(*loaded) == expected);
    // Damage the entry: the search is compiled again and the entry rewritten.
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().rfind("triggers-", 0) != 0) continue;
      ++entries;
      std::ofstream(e.path(), std::ios::trunc) << "not a database";
    }
    CHECK(entries == 1);
    auto recompiled = make_trigger_scanner(repo_matcher(), diags, TriggerScanner::Engine::Best, &cache);
    REQUIRE(recompiled != nullptr);
    CHECK_FALSE(recompiled->from_cache());
    CHECK(hits_of(*recompiled) == expected);
    auto reloaded = make_trigger_scanner(repo_matcher(), diags, TriggerScanner::Engine::Best, &cache);
    CHECK(reloaded->from_cache());
  }
  CHECK(diags.empty());
  fs::remove_all(dir);
}

TEST_CASE("fast path: watched texts are told by the literals found inside them") {
  for (TriggerScanner::Engine engine : kEngines) {
    DiagnosticSink diags;
    // "WARN" is kept for "NCCL WARN" and "WARNING"; "Tesla " and ESC are literals of their own.
    TriggerScanner scanner({{"NCCL WARN", 3}, {"\x1b", -1}}, {"WARNING", "Tesla "}, diags, engine);
    REQUIRE(scanner.ok());
    CHECK(scanner.uncertain_watches() == 0xff);  // nothing watched yet: nothing ruled out
    CHECK(scanner.watch_bits(0) == 0xff);
    // The last group is uncertain for its second text alone.
    scanner.watch({{"\x1b"}, {"Tesla "}, {"NCCL WARN here"}, {"absent text"}, {"WARNING", "absent too"}});
    CHECK(scanner.uncertain_watches() == (8 | 16));  // nothing lies inside "absent text", "absent too"
    std::vector<TriggerScanner::Hit> hits;
    scanner.scan("a Tesla V100\nx NCCL WARN y\n\x1b[0m\nplain 12:00:01\n", hits);
    std::string seen;
    for (const TriggerScanner::Hit& h : hits) seen += std::to_string(h.end) + ":" + std::to_string(scanner.watch_bits(h.literal)) + " ";
    CAPTURE(engine == TriggerScanner::Engine::Best);
    // Tesla: bit 2 (and the uncertain 8 and 16); WARN: bit 4 (inside "NCCL WARN here"); ESC:
    // bit 1; the stamp: only the uncertain bits.
    CHECK(seen == "7:26 23:28 27:25 45:24 ");
    // A group whose every text holds a literal is certain: bit 1 for either of its texts.
    scanner.watch({{"Tesla ", "NCCL WARN here"}});
    CHECK(scanner.uncertain_watches() == 0);
    hits.clear();
    scanner.scan("a Tesla V100\nx NCCL WARN y\n\x1b[0m\nplain 12:00:01\n", hits);
    seen.clear();
    for (const TriggerScanner::Hit& h : hits) seen += std::to_string(h.end) + ":" + std::to_string(scanner.watch_bits(h.literal)) + " ";
    CHECK(seen == "7:1 23:1 27:0 45:0 ");
  }
}

TEST_CASE("fast path: a generated log gives the same result for every buffer size") {
  std::string text = generated_log();
  REQUIRE(text.size() > 100000);
  check_same_for_every_buffer(text, "generated");
  // The generated log does exercise the extractors (else the comparison proves little).
  std::string sig = analyze_fast(text);
  CHECK(sig.find("fact micro_batch_size=4") != std::string::npos);
  CHECK(sig.find("fact world_size=4") != std::string::npos);
  CHECK(sig.find("fact master_addr=node000") != std::string::npos);
  CHECK(sig.find("fact gpu_model=H100") != std::string::npos);
  CHECK(sig.find("OutOfMemoryError") != std::string::npos);
  CHECK(sig.find("child 3 1 node053") != std::string::npos);
  CHECK(sig.find("host node000 text node003:1:1 [3] NCCL WARN") != std::string::npos);  // from Bootstrap
  CHECK(sig.find("diag split.nul-bytes") != std::string::npos);
  CHECK(sig.find("diag split.line-too-long") == std::string::npos);  // 64 KiB lines: none
}

TEST_CASE("fast path: one file searched in parallel chunks gives the same result for any chunk size") {
  namespace fs = std::filesystem;
  // The generated log, the same coloured on every line, and with CRLF line ends: from its first
  // escape or CRLF on, the reader strips and searches the bytes itself, and the helpers only
  // read ahead.
  for (const std::string& text : {generated_log(), coloured(generated_log()), with_crlf(generated_log())}) {
    fs::path path = fs::temp_directory_path() / ("megatriage-chunks-" + std::to_string(::getpid()) + ".log");
    { std::ofstream(path, std::ios::binary) << text; }
    SourceFile file;
    file.path = file.display_path = path.string();
    file.size_bytes = text.size();
    for (std::size_t max_line : {std::size_t{300}, std::size_t{64} << 10}) {
      AnalyzeOptions every_line;
      every_line.split.max_line_bytes = max_line;
      every_line.split.buffer_bytes = std::max<std::size_t>(max_line + 2, 1 << 16);
      const std::string expected = signature(analyze_file(file, repo_matcher(), every_line));
      for (std::size_t chunk : {std::size_t{97}, std::size_t{301}, std::size_t{4096}, std::size_t{65537}}) {
        for (unsigned helpers : {1u, 3u}) {
          AnalyzeOptions chunked = every_line;
          chunked.triggers = &repo_triggers();
          chunked.chunk_bytes = chunk;
          chunked.chunk_helpers = helpers;
          INFO("max line " << max_line << ", chunk " << chunk << ", helpers " << helpers);
          CHECK(signature(analyze_file(file, repo_matcher(), chunked)) == expected);
        }
      }
    }
    fs::remove(path);
  }
}

TEST_CASE("fast path: fuzz findings (first byte: fuzz_file's mode) stay equal") {
  // fuzz_file-finish-order: tracebacks still open at the end of the file were finished in hash
  // map order, which depends on the streams created, and the fast path creates fewer.
  // fuzz_file-nul-and-escape-line: a line with a NUL and the file's first escape; the fast path
  // reported the escapes (when its buffer was stripped) before the NULs (when the line was
  // cleaned), every-line analysis after them.
  // fuzz_file-escape-only-last-line: the file ends in a line of escapes without a '\n'; stripped
  // with its buffer it was no line at all, where clean() leaves an empty one.
  // fuzz_file-escape-opens-line: a matched line whose one escape opens it got the offset of the
  // text after the escape.
  // fuzz_file-escape-past-the-cut: the file's first escape lies past the length limit of an
  // over-long line, in the part that is dropped; the fast path reported the escapes at that
  // line (the first one the search found), every-line analysis at the first line whose kept
  // text lost one.
  namespace fs = std::filesystem;
  int inputs = 0;
  for (const auto& entry : fs::directory_iterator(MEGATRIAGE_SOURCE_REGRESS_DIR)) {
    if (entry.path().filename().string().rfind("fuzz_file-", 0) != 0) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 1);
    check_same_for_every_buffer(bytes.substr(1), entry.path().filename().string());
    ++inputs;
  }
  CHECK(inputs >= 1);
}

TEST_CASE("fast path: an escape in the dropped part of an over-long line is not the first one removed") {
  // The first ESC lies past the length limit of line 21, in the part that is skipped; the first
  // line whose kept text loses one is line 32. Whether the search, the buffer pass or clean()
  // finds them, the escapes are reported there.
  std::string text;
  for (int i = 0; i < 20; ++i) text += "2026-11-30 09:50:" + std::to_string(10 + i) + ",000 - INFO - step " + std::to_string(i) + "\n";
  text += std::string(70, 'x') + "\x1b[31mred past the cut\x1b[0m\n";
  for (int i = 0; i < 10; ++i) text += "2026-11-30 09:51:" + std::to_string(10 + i) + ",000 - INFO - more " + std::to_string(i) + "\n";
  text += "a \x1b[32mgreen\x1b[0m line\n";
  for (int i = 0; i < 40; ++i) text += "2026-11-30 09:52:" + std::to_string(10 + i) + ",000 - INFO - \x1b[1mbold\x1b[0m\n";
  // The same with an escape in line 21's kept part too: the line keeps its escapes for clean()
  // (it is over the limit), and is shown after its buffer was stripped of the later lines'.
  std::string early = text;
  early.replace(early.find(std::string(70, 'x')), 70, "x\x1b[33mx\x1b[0m" + std::string(68, 'x'));
  for (const auto& [log_text, first_line] : {std::pair{text, 32}, std::pair{early, 21}}) {
    // (Copies: doctest's INFO captures by reference, which clang 14 refuses for a binding.)
    const std::string& log = log_text;
    const int line = first_line;
    AnalyzeOptions every_line;
    every_line.split.max_line_bytes = 64;
    const std::string expected = analyze(log, every_line);
    CHECK(expected.find("diag extract.terminal-escapes x1 @" + std::to_string(line) + "\n") != std::string::npos);
    for (std::size_t buffer : {std::size_t{66}, std::size_t{128}, std::size_t{1000}, std::size_t{1} << 20}) {
      for (auto engine : kEngines) {
        AnalyzeOptions fast = every_line;
        fast.split.buffer_bytes = buffer;
        fast.triggers = &repo_triggers(engine);
        INFO("first escape on line " << line << ", buffer " << buffer << ", " << fast.triggers->engine_name());
        CHECK(analyze(log, fast) == expected);
      }
    }
  }
}

TEST_CASE("fast path: a stamp with a separator but no fraction teaches no layout that drops one") {
  // fuzz_file finding, reduced: the route learnt from `07:10:12,k` read the next line's
  // `07:10:12,748` as 07:10:12 (the layout ended at the comma); every-line analysis parses it.
  check_same_for_every_buffer("[default0]:2026-11-30 07:10:12,k 0 on vm (NVIDIA H200)\n"
                              "[default0]:2026-11-30 07:10:12,748 INFO [rank 1] starting training\n"
                              "[default0]:2026-11-30 07:10:13.5\n"
                              "[default0]:2026-11-30 07:10:13,\n"
                              "[default0]:2026-11-30 07:10:13,7\n",
                              "separator without fraction");
}

TEST_CASE("fast path: streams of huge ranks and task ids keep their own keys") {
  // Review finding: 21-bit key fields made rank 2097151 the "no rank" stream, and which line
  // created that stream then differed between the two paths.
  check_same_for_every_buffer("[rank2097151]: hello world\nnode01:1:1 [0] NCCL WARN Cuda failure 'out of memory'\n"
                              "[rank9999999]: x\n999999: [default999999]:[rank9999998]: Traceback (most recent call last):\n"
                              "999999: [default999999]:[rank9999998]: ValueError: v\n",
                              "huge ranks");
  CHECK(analyze_fast("[rank2097151]: hello world\nnode01:1:1 [0] NCCL WARN Cuda failure 'out of memory'\n")
            .find("rank -1 local -1 task -1 host node01 text node01:1:1") != std::string::npos);
}

TEST_CASE("fast path: every fixture log gives the same result as examining every line") {
  namespace fs = std::filesystem;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(MEGATRIAGE_SOURCE_FIXTURES_DIR)) {
    if (!fs::is_directory(entry.path() / "logs")) continue;
    DiagnosticSink diags;
    for (const SourceFile& file : discover_sources({(entry.path() / "logs").string()}, {}, diags)) {
      AnalyzeOptions every_line, fast;
      const std::string expected = signature(analyze_file(file, repo_matcher(), every_line));
      for (std::size_t buffer : {std::size_t{65538}, std::size_t{100003}, std::size_t{1} << 20}) {
        for (auto engine : kEngines) {
          fast.split.buffer_bytes = buffer;
          fast.triggers = &repo_triggers(engine);
          INFO(file.path << ", buffer " << buffer << ", " << fast.triggers->engine_name());
          CHECK(signature(analyze_file(file, repo_matcher(), fast)) == expected);
        }
      }
      ++files;
    }
  }
  CHECK(files >= 30);
}
}

TEST_CASE("fast path: a stamp is read only where the search saw HH:MM:SS, or behind an escape") {
  // Triggered lines whose stamp the trigger search cannot see as HH:MM:SS (split by an escape)
  // still give it to their event; lines with a needle but no stamp get none, and inherit.
  const std::string text =
      "[rank0]:[E1130 06:51:20.100 ProcessGroupNCCL.cpp:1] early line\n"
      "[rank0]:[E1130 06:\x1b[0m51:25.554 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=53, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 "
      "milliseconds before timing out.\n"
      "[rank0]: Some NCCL operations have failed or timed out.\n";
  check_same_for_every_buffer(text, "stamp behind an escape");
  const std::string got = analyze_fast(text);
  CHECK(got.find("06:51:25") != std::string::npos);
}

TEST_CASE("fast path: a quiet line with a needle, routed by its head, still gives its event") {
  // The first warning of each rank is routed in full and matches no rule, so its head keeps a
  // route; later lines of that head with a needle take the route, and one that a rule matches
  // (the `[c10d]` retry, a context rule) must still become an event, stamped and on its rank.
  std::string text;
  for (int i = 0; i < 40; ++i)
    for (int rank = 0; rank < 2; ++rank) {
      const std::string head = "[rank" + std::to_string(rank) + "]:[W1130 06:51:" + std::to_string(10 + i % 50);
      text += head + ".100 ProcessGroupNCCL.cpp:4718] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now\n";
      text += head + ".200 ProcessGroupNCCL.cpp:1985] [PG ID 1 PG GUID 4 Rank " + std::to_string(rank) +
              "] ProcessGroupNCCL broadcast unique ID through store took 0." + std::to_string(100 + i) + " ms\n";
      if (i == 30 && rank == 1)
        text += head + ".300 TCPStore.cpp:343] [c10d] TCP client failed to connect/validate to host 10.0.0.1:29500 - "
                       "retrying (try=0, timeout=600000ms, delay=36215ms)\n";
    }
  check_same_for_every_buffer(text, "routed needle lines");
  const std::string got = analyze_fast(text);
  const std::size_t event = got.find("event ");
  REQUIRE(event != std::string::npos);  // the retry, and no other line, is an event
  CHECK(got.find("event ", event + 1) == std::string::npos);
  const std::string event_line = got.substr(event, got.find('\n', event) - event);
  CHECK(event_line.find(" rule ") != std::string::npos);
  CHECK(event_line.find("rank 1 ") != std::string::npos);
  CHECK(event_line.find("06:51:40") != std::string::npos);  // its own stamp
}

TEST_CASE("fast path: routed stamps give events, clock steps and the file's last stamp as parsed ones") {
  // Two ranks print stamped lines that only move their clocks (StampRoutes' shortcut), then
  // rank 1 prints a traceback without stamps (it inherits rank 1's last stamp), rank 0's clock
  // steps back two minutes (a diagnostic), and the file ends on one of those lines.
  std::string text;
  auto line = [&text](int rank, int minute, int second, int micros, const std::string& what) {
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "2026-11-30 06:%02d:%02d,%03d", minute, second, micros);
    text += "[rank" + std::to_string(rank) + "]:" + stamp + " - INFO - " + what + "\n";
  };
  for (int i = 0; i < 60; ++i) {
    line(0, 10 + i / 30, i % 60, i, "step " + std::to_string(i));
    line(1, 10 + i / 30, i % 60, 500 + i, "step " + std::to_string(i));
  }
  text += "[rank1]:Traceback (most recent call last):\n"
          "[rank1]:  File \"/w/train.py\", line 3, in <module>\n"
          "[rank1]:    main()\n"
          "[rank1]:ValueError: bad batch\n";
  for (int i = 0; i < 5; ++i) line(0, 9, 30 + i, 0, "late " + std::to_string(i));  // two minutes back
  for (int i = 0; i < 5; ++i) line(0, 11, 40 + i, 7, "on " + std::to_string(i));
  check_same_for_every_buffer(text, "routed stamps");
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);
  CHECK(got.find("at 2026-11-30 06:11:59.559") != std::string::npos);  // rank 1's last stamp, inherited by its traceback
  CHECK(got.find("last 2026-11-30 06:11:44.007") != std::string::npos);  // the file's last stamp
}

TEST_CASE("fast path: routed lines with a fact's anchor give the facts of a full analysis") {
  // Stamps on every line: logging-stamped lines and Megatron's own iteration lines (the
  // `iteration ` anchor), each iteration line after the first taking the route its head keeps; a
  // GPU line (an anchor too), an arguments dump and a traceback follow, so that facts on the
  // route and the return to the full path are compared with examining every line.
  std::string text;
  auto line = [&text](int i, const std::string& what) {
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "2026-11-30 06:%02d:%02d,%03d - INFO - ", 10 + i / 60, i % 60, i % 1000);
    text += std::string(stamp) + what + "\n";
  };
  for (int i = 0; i < 40; ++i) {
    line(3 * i, "nemo.collections.llm.gpt.data - Loading batch " + std::to_string(i));
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, " [2026-11-30 06:%02d:%02d] ", 10 + i / 60, i % 60);
    text += std::string(stamp) + "iteration " + std::to_string(i + 1) +
            "/ 500000 | consumed samples: 512 | global batch size: 16 | lm loss: 7.5" + std::to_string(i) +
            "E+00 | grad norm: 1.2 |\n";
    if (i == 20) line(3 * i + 2, "GPU 0: NVIDIA H100 80GB HBM3");
  }
  text += "------------------------ arguments ------------------------\n"
          "  micro_batch_size ................................ 2\n"
          "  tensor_model_parallel_size ...................... 4\n"
          "-------------------- end of arguments ---------------------\n";
  text += " [2026-11-30 06:12:11] iteration 41/ 500000 | consumed samples: 512 | global batch size: 16 | lm loss: nan |\n";
  text += "Traceback (most recent call last):\n"
          "  File \"/w/train.py\", line 3, in <module>\n"
          "    main()\n"
          "ValueError: bad batch\n";
  check_same_for_every_buffer(text, "routed fact lines");
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("fact last_iteration=41") != std::string::npos);
  CHECK(got.find("fact global_batch_size=16") != std::string::npos);
  CHECK(got.find("fact tensor_model_parallel_size=4") != std::string::npos);
  CHECK(got.find("fact gpu_model=H100") != std::string::npos);
  CHECK(got.find("ValueError") != std::string::npos);
}

TEST_CASE("fast path: lazy stamps on a long log stamped on every line give what examining every line gives") {
  const std::string text = logging_stamped_log();
  REQUIRE(text.size() > 1000000);
  check_lazy_same_as_every_line(text, {16384, 70000, 200000}, true);
  // Regions of a few lines each, searched lazily after a region of two lines or more: run and
  // region edges fall on every kind of line.
  for (auto engine : kEngines) {
    AnalyzeOptions every_line;
    every_line.split.max_line_bytes = 300;
    const std::string expected = analyze(text, every_line);
    AnalyzeOptions fast = every_line;
    fast.split.buffer_bytes = 1024;
    fast.lazy_after_lines = 2;
    fast.triggers = &repo_triggers(engine);
    std::uint64_t lazy_regions = 0;
    fast.lazy_regions = &lazy_regions;
    INFO("small regions, " << fast.triggers->engine_name());
    CHECK(analyze(text, fast) == expected);
    CHECK(lazy_regions > text.size() / 1024 / 2);
  }
  // The log does exercise what the runs must leave to the full path.
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);
  CHECK(got.find("diag split.nul-bytes") != std::string::npos);
  check_stamped_log_findings(got);
  CHECK(got.find("fact logged_progress=2187.5") != std::string::npos);  // the last dict's epoch
}

TEST_CASE("fast path: a coloured log gives what examining every line gives, and takes the plain log's paths") {
  // The searcher removes the escapes of each buffer before searching it (strip_escapes): the
  // stamps and needles an escape split are whole again, and lines are taken as runs.
  // Lazy regions need runs of stamp-only lines, which a line with an escape would break.
  const std::string text = coloured(logging_stamped_log());
  check_lazy_same_as_every_line(text, {16384, 70000, std::size_t{1} << 20}, false);
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("diag extract.terminal-escapes x1 @1\n") != std::string::npos);
  check_stamped_log_findings(got);
}

// `text` with Python logging's level moved before the stamp (`%(levelname)s %(asctime)s ...`):
// `2026-11-30 09:50:01,000 - INFO - x` becomes `INFO 2026-11-30 09:50:01,000 x`. Every third and
// fifth INFO line is a DEBUG and a WARNING one instead: a level is part of its line's head.
std::string level_first(const std::string& text) {
  std::size_t infos = 0;
  return rewrite_lines(text, [&](std::string line, std::size_t) {
    const std::size_t level = line.find(" - ", 23);
    const std::size_t level_end = level == 23 ? line.find(" - ", level + 3) : std::string::npos;
    if (line.size() > 23 && line[0] == '2' && level_end != std::string::npos) {
      std::string name = line.substr(level + 3, level_end - level - 3);
      if (name == "INFO" && ++infos % 3 == 0) name = "DEBUG";
      if (name == "INFO" && infos % 5 == 0) name = "WARNING";
      line = name + " " + line.substr(0, 23) + " " + line.substr(level_end + 3);
    }
    return line;
  });
}

TEST_CASE("fast path: a level-first logging log gives what examining every line gives, and is taken as runs") {
  const std::string text = level_first(logging_stamped_log());
  REQUIRE(text.find("\nINFO 2026-11-30 09:50:0") != std::string::npos);
  REQUIRE(text.find("\nDEBUG 2026-11-30 09:50:0") != std::string::npos);
  REQUIRE(text.find("\nWARNING 2026-11-30 09:50:0") != std::string::npos);
  // Most regions are searched lazily only where a run goes on across the levels.
  check_lazy_same_as_every_line(text, {16384, 70000, std::size_t{1} << 20}, true);
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("OutOfMemoryError") != std::string::npos);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);  // its stamps are read
}

// `text` with `head` in front of every line: a prefix the analysis learns from the file (MPI's
// `--tag-output`, Ray's worker, a per-host file of pdsh).
std::string behind(const std::string& head, const std::string& text) {
  std::string out = head;
  for (char c : text) {
    out += c;
    if (c == '\n') out += head;
  }
  return out;
}

TEST_CASE("fast path: stamps behind a learnt prefix give what examining every line gives, and are taken as runs") {
  // The stamp is read from the body after the prefix; the route's layout is learnt there where
  // the bytes before the prefix rule a stamp out (timestamp.h: stamp_gate_end).
  for (const char* head : {"[1,3]<stdout>:", "(RayTrainWorker pid=2301234, ip=10.1.2.80) ", "node012: "}) {
    CAPTURE(head);
    const std::string text = behind(head, logging_stamped_log());
    check_lazy_same_as_every_line(text, {16384, std::size_t{1} << 20}, false);
  }
}

TEST_CASE("fast path: month-first stamps give what examining every line gives, and are taken as runs") {
  // `datefmt="%m/%d/%Y %H:%M:%S"` (the Hugging Face examples): `11/30/2026 09:50:01 - INFO - x`.
  std::string text = logging_stamped_log();
  for (std::size_t at = text.find("2026-11-30 "); at != std::string::npos; at = text.find("2026-11-30 ", at + 1)) {
    const bool stamp_ends = at + 23 <= text.size() && text[at + 19] == ',';
    text.replace(at, 10, "11/30/2026");
    if (stamp_ends) text.erase(at + 19, 4);  // no milliseconds in that format
  }
  REQUIRE(text.find("\n11/30/2026 09:50:0") != std::string::npos);
  check_lazy_same_as_every_line(text, {16384, std::size_t{1} << 20}, false);
  const std::string got = analyze_fast(text);
  INFO(got);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);  // its stamps are read
}

// `text` as journalctl prints a service's output: each line behind `<stamp> <host> <program>[<pid>]: `,
// the syslog stamp (no year) in place of the logging one, and a line without a stamp of its
// own (a traceback's) behind the last one.
std::string journal(const std::string& text) {
  std::string time = "09:50:00";
  return rewrite_lines(text, [&](std::string line, std::size_t) {
    if (line.size() >= 26 && line.compare(0, 11, "2026-11-30 ") == 0 && line[19] == ',' && line.compare(23, 3, " - ") == 0) {
      time = line.substr(11, 8);
      line = line.substr(26);
    }
    return "Nov 30 " + time + " node012 python3[2301234]: " + line;
  });
}

TEST_CASE("fast path: journal (syslog) stamps give what examining every line gives, and are taken as runs") {
  const std::string text = journal(logging_stamped_log());
  REQUIRE(text.find("\nNov 30 09:50:02 node012 python3[2301234]: INFO - ") != std::string::npos);
  check_lazy_same_as_every_line(text, {16384, 70000, std::size_t{1} << 20}, true);
  const std::string got = analyze_fast(text);
  INFO(got);
  check_stamped_log_findings(got);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);  // its stamps are read
}

// `text` as the contents of a JSON string: quotes and backslashes escaped, control bytes as
// `\u00XX`.
std::string json_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

// `text` as a JSON formatter logs it: `2026-11-30 09:50:01,000 - INFO - x` becomes
// `{"time": "2026-11-30T09:50:01.000Z", "level": "INFO", "message": "x"}` (the message escaped);
// other lines (an uncaught traceback goes to stderr as text) stay. Every 500th record also
// carries an `exc_info` member: a traceback logged with it, escaped in one string.
std::string json_records(const std::string& text) {
  std::size_t records = 0;
  return rewrite_lines(text, [&](std::string line, std::size_t) {
    const std::size_t level_end = line.size() > 26 ? line.find(" - ", 26) : std::string::npos;
    if (level_end == std::string::npos || line.compare(0, 11, "2026-11-30 ") != 0 || line[19] != ',' ||
        line.compare(23, 3, " - ") != 0)
      return line;
    std::string record = "{\"time\": \"2026-11-30T" + line.substr(11, 8) + "." + line.substr(20, 3) +
                         "Z\", \"level\": \"" + line.substr(26, level_end - 26) + "\", \"message\": \"" +
                         json_escaped(std::string_view(line).substr(level_end + 3)) + "\"";
    if (++records % 500 == 0)
      record += ", \"exc_info\": \"Traceback (most recent call last):\\n  File \\\"/w/json.py\\\", line " +
                std::to_string(records) + ", in f\\nKeyError: 'json " + std::to_string(records) + "'\"";
    return record + "}";
  });
}

TEST_CASE("fast path: JSON records give what examining every line gives, and are taken as runs") {
  const std::string text = json_records(logging_stamped_log());
  REQUIRE(text.find("\n{\"time\": \"2026-11-30T09:50:02.") != std::string::npos);
  REQUIRE(text.find("\"exc_info\": \"Traceback (most recent call last):\\n") != std::string::npos);
  check_lazy_same_as_every_line(text, {16384, 70000, std::size_t{1} << 20}, true);
  const std::string got = analyze_fast(text);
  INFO(got);
  check_stamped_log_findings(got);
  CHECK(got.find("KeyError: 'json 500'") != std::string::npos);  // the tracebacks inside records
  CHECK(got.find("KeyError: 'json 10000'") != std::string::npos);
  CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);  // their stamps are read
}

// `text` as docker's json-file driver stores it: each line (escaped, with its end) in a record
// with its stream and time, `{"log":"...\n","stream":"stderr","time":"2026-11-30T09:50:01.000000000Z"}`;
// a line without a stamp of its own has the last one's time. `time_first`: the time leads
// (fluent-bit's `{"date":...,"log":...}`), so every record has the same head before its stamp.
std::string docker_records(const std::string& text, bool time_first) {
  std::string time = "09:50:00.000";
  return rewrite_lines(text, [&](const std::string& line, std::size_t) {
    if (line.size() >= 23 && line.compare(0, 11, "2026-11-30 ") == 0 && line[19] == ',')
      time = line.substr(11, 8) + "." + line.substr(20, 3);
    const std::string stamp = "\"2026-11-30T" + time + "000000Z\"";
    return (time_first ? "{\"date\":" + stamp + ",\"log\":\"" : std::string("{\"log\":\"")) + json_escaped(line) +
           (time_first ? std::string("\\n\"}") : "\\n\",\"stream\":\"stderr\",\"time\":" + stamp + "}");
  });
}

TEST_CASE("fast path: docker's JSON records give what examining every line gives, their lines read decoded") {
  for (bool time_first : {false, true}) {
    CAPTURE(time_first);
    const std::string text = docker_records(logging_stamped_log(), time_first);
    REQUIRE(text.find("\"log\":\"  File \\\"/w/train.py\\\", line 3, in <module>\\n\"") != std::string::npos);
    check_same_for_every_buffer(text, "docker records");
    const std::string got = analyze_fast(text);
    INFO(got);
    check_stamped_log_findings(got);  // the traceback's lines come one record each
    CHECK(got.find("/w/train.py") != std::string::npos);
    CHECK(got.find("diag timeline.time-went-backwards") != std::string::npos);  // the records' stamps
  }
}

TEST_CASE("fast path: a CRLF log gives what examining every line gives, and takes the plain log's paths") {
  // The searcher removes each line's '\r' before searching a buffer (LineSplitter::strip_ahead):
  // the lines are plain, and taken as runs. The test log's own awkward lines come along: a
  // '\r' that is no line end, escapes (removed in the same pass), NULs, over-long lines.
  const std::string text = with_crlf(logging_stamped_log());
  check_lazy_same_as_every_line(text, {16384, 70000, std::size_t{1} << 20}, true);
  const std::string got = analyze_fast(text);
  INFO(got);
  check_stamped_log_findings(got);
  CHECK(got.find("diag extract.terminal-escapes x1 @86\n") != std::string::npos);
  // Coloured as well: escapes and CRs go in one pass from the first region on.
  const std::string both = with_crlf(coloured(logging_stamped_log()));
  check_lazy_same_as_every_line(both, {16384, 70000, std::size_t{1} << 20}, false);
  CHECK(analyze_fast(both).find("diag extract.terminal-escapes x1 @1\n") != std::string::npos);
}
