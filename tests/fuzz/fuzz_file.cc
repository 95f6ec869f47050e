// libFuzzer target: the whole "analyze one file" path on in-memory bytes with the built-in
// rules, a partial-report round trip (what `merge` reads), then the single-file rest of the
// pipeline (timeline, root cause, classify, checks, both renderers). The first byte picks the
// compression and whether small limits are used, so the decoders and every cap are exercised too. Properties checked beyond "no crash": the JSON
// report is valid UTF-8 and the text report carries no terminal escape but our own SGR colours.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/partial_report.h"
#include "base/text_util.h"
#include "decide/checks.h"
#include "decide/classify.h"
#include "decide/root_cause.h"
#include "decide/timeline.h"
#include "extract/extract.h"
#include "match/rules.h"
#include "render/render.h"
#include "support/repo_rules.h"
#include "support/result_signature.h"

using namespace megatriage;

namespace {

const TriggerScanner& builtin_triggers(TriggerScanner::Engine engine) {
  static DiagnosticSink diags;
  static std::unique_ptr<TriggerScanner> best = make_trigger_scanner(test::repo_matcher(), diags);
  static std::unique_ptr<TriggerScanner> builtin =
      make_trigger_scanner(test::repo_matcher(), diags, TriggerScanner::Engine::Builtin);
  if (!best || !builtin) __builtin_trap();
  return engine == TriggerScanner::Engine::Best ? *best : *builtin;
}

// ESC not followed by `[digits;...m`: an escape that did not come from our colouring.
bool has_foreign_escape(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') continue;
    std::size_t j = i + 1;
    if (j >= s.size() || s[j] != '[') return true;
    ++j;
    while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
    if (j >= s.size() || s[j] != 'm') return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const RuleMatcher& matcher = test::repo_matcher();
  std::uint8_t mode = data[0];
  std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  SourceFile file;
  file.path = file.display_path = "logs/fuzz-1-3.err";
  file.size_bytes = bytes.size();
  file.compression = static_cast<Compression>(mode % 5);
  AnalyzeOptions options;
  if (mode & 0x08) {  // small caps: every limit is hit with small inputs
    options.read.max_decompressed_bytes = 4096;
    options.split.max_line_bytes = 64;
    options.split.buffer_bytes = 128;
    options.traceback.max_frames = (mode >> 4) % 20;  // includes 0 and values below the head
    options.traceback.max_message_lines = 2;
    options.traceback.max_text_bytes = 16;
    // Regions of a few lines may be searched lazily too (lazy stamps, anchor lines in runs).
    options.lazy_after_lines = 2;
  }
  DiagnosticSink diags;
  auto source = memory_source(bytes, file.compression, file.display_path, diags, options.read);
  std::vector<FileResult> results;
  results.push_back(analyze_source(file, *source, matcher, options, diags));
  if (file.compression == Compression::None) {
    // Differential: the trigger-search fast path must see exactly what every-line analysis saw.
    AnalyzeOptions fast = options;
    // Bit 2 of the mode byte picks the engine: Vectorscan (when built with it) or built-in.
    fast.triggers = &builtin_triggers((mode & 0x04) ? TriggerScanner::Engine::Builtin : TriggerScanner::Engine::Best);
    DiagnosticSink fast_diags;
    auto again = memory_source(bytes, file.compression, file.display_path, fast_diags, fast.read);
    if (test::signature(analyze_source(file, *again, matcher, fast, fast_diags)) != test::signature(results.back()))
      __builtin_trap();
  }
  {
    // partial -> merge: the FileResult written to a partial report and read back is the same
    // (what every later stage reads, and every field the format writes); the rest of the
    // pipeline then runs on what a merge would see.
    PartialReport partial;
    partial.files.push_back(results.back());
    const std::string json = partial_to_json(partial, &matcher);
    PartialParse back = partial_from_json(json, matcher, "fuzz.json");
    if (!back.partial || back.partial->files.size() != 1) __builtin_trap();
    if (test::signature(back.partial->files[0]) != test::signature(results.back())) __builtin_trap();
    if (partial_to_json(*back.partial, &matcher) != json) __builtin_trap();
    results.back() = std::move(back.partial->files[0]);
  }
  if (results.back().first_full_year == 0) apply_year(results.back(), 2026);

  std::vector<TimelineEntry> timeline = merge_timeline(results);
  std::optional<Finding> finding = select_root_cause(timeline, matcher);
  Report report;
  report.verdict = finding ? Verdict::Failure : Verdict::NoFailure;
  if (finding) {
    report.root_cause = classify_root(*finding, timeline, matcher);
    JobFacts job = collect_job_facts(results, finding->who.rank);
    evaluate_checks(*report.root_cause, *timeline[finding->index].event, job, timeline, matcher);
  }
  report.symptoms = group_symptoms(timeline, finding, matcher);
  report.diagnostics = results.back().diagnostics;
  FileSummary s;
  s.path = file.display_path;
  s.bytes = results.back().bytes;
  s.lines = results.back().lines;
  report.files.push_back(s);

  std::string json = render_json(report);
  if (!is_valid_utf8(json)) __builtin_trap();
  std::string text = render_text(report, TextStyle{true, 100});
  if (has_foreign_escape(text)) __builtin_trap();
  // The CI formats: a summary within its line budget, workflow commands one a line.
  std::string markdown = render_markdown(report);
  if (std::count(markdown.begin(), markdown.end(), '\n') > static_cast<long>(kMaxMarkdownLines)) __builtin_trap();
  if (has_foreign_escape(markdown) || !is_valid_utf8(markdown)) __builtin_trap();
  std::string github = render_github(report);
  if (github.empty() || github.back() != '\n') __builtin_trap();
  for (std::size_t at = 0; at < github.size(); at = github.find('\n', at) + 1)
    if (github.compare(at, 2, "::") != 0) __builtin_trap();  // a log line never starts a command
  return 0;
}
