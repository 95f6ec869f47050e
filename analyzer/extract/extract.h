// Extract stage: "analyze one file" — the pure per-file function that runs split, attribute and
// extract over one source and yields its events. The unit of parallelism, testing and fuzzing;
// later stages see only FileResults.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "extract/child_failure_table.h"
#include "extract/traceback.h"
#include "input/discover.h"
#include "input/reader.h"
#include "match/rule_matcher.h"
#include "model/facts.h"
#include "model/types.h"
#include "scan/line_splitter.h"
#include "scan/trigger_scan.h"

namespace megatriage {

enum class EventKind : std::uint8_t {
  Traceback,     // a Python traceback (possibly chained)
  RuleLine,      // a single line matched by line rules
  ChildFailure,  // one entry of torchelastic's ChildFailedError table
};

/// A value kept on the heap, for the parts of an Event that most events do not have (a big
/// job has tens of thousands of events, nearly all matched lines): copies are deep, and an
/// empty box reads as a default value and fills on first write.
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(T value) {
    value_ = std::make_unique<T>(std::move(value));
    return *this;
  }
  const T& operator*() const { return value_ ? *value_ : empty(); }
  const T* operator->() const { return &**this; }
  T& operator*() {
    if (!value_) value_ = std::make_unique<T>();
    return *value_;
  }
  T* operator->() { return &**this; }

 private:
  static const T& empty() {
    static const T none{};
    return none;
  }
  std::unique_ptr<T> value_;
};

/// Something worth knowing that happened at one place. Owns its strings (events are rare).
struct Event {
  EventKind kind = EventKind::RuleLine;
  int decisive_block = -1;       // tracebacks: the block whose exception decides (see choose_matches)
  Origin origin;                 // first line (the `Traceback` header for tracebacks)
  std::uint64_t last_line = 0;
  Timestamp time;                // explicit on the line, or inherited (a lower bound)
  std::optional<std::int64_t> before_us;  // first stamped line after it in its stream (upper bound)
  // The stamps as printed; apply_year() turns them into `time` / `before_us`.
  std::optional<CivilTime> civil, before_civil;
  Attribution who;
  std::string text;              // exception line / matched line body (capped)
  Boxed<Traceback> traceback;    // kind == Traceback
  Boxed<ChildFailure> child;     // kind == ChildFailure
  std::vector<RuleMatch> matches;  // best first; for tracebacks, those of the decisive block
  // The line the rules matched, only when `text` is not it (cut to the event cap or UTF-8
  // repaired; rare): captures need the very text matched. See matched_text(). A pointer, not a
  // string: 16 bytes less on each of a big job's tens of thousands of events.
  std::shared_ptr<const std::string> matched_line;
};

/// The text `e.matches` were matched against, for RuleMatcher::fields(): the line of a RuleLine
/// event; the decisive block's exception line, plus "\n" and its message tail when there is one,
/// of a traceback. Allocates; "" for events without matches.
std::string matched_text(const Event& e);

struct AnalyzeOptions {
  ReadLimits read;
  SplitOptions split;
  TracebackLimits traceback;
  // Whole-buffer search for the lines that can matter (make_trigger_scanner); null: every line
  // is examined. Both give the same result: the scanner only skips lines that would change
  // nothing.
  const TriggerScanner* triggers = nullptr;
  // One large plain file: helpers search chunks of it ahead of the extractor (chunk_scan.h).
  // Used when triggers are set, chunk_helpers > 0 and the file has more than two chunks.
  unsigned chunk_helpers = 0;
  std::size_t chunk_bytes = 2 << 20;
  // A plain file found (when opened) to be big enough for chunks is not read: the result comes
  // back `deferred`, for a second round that gives such files the helpers (see triage.cc).
  bool defer_chunkable = false;
  // Bytes scanned so far, for a progress line (plain files add as they go); may be null.
  std::atomic<std::uint64_t>* bytes_done = nullptr;
};

/// The trigger search for analyze_*: `matcher`'s Line needles plus the anchors of the traceback,
/// fact, ChildFailedError-table and host extractors. Null when the matcher cannot list its
/// needles (a rule without one, prefilter disabled) or the search does not compile. `cache`:
/// where a compiled search may be found or kept (see TriggerScanner).
std::unique_ptr<TriggerScanner> make_trigger_scanner(
    const RuleMatcher& matcher, DiagnosticSink& diags,
    TriggerScanner::Engine engine = TriggerScanner::Engine::Best, const RunCache* cache = nullptr);

/// Per-file outcome. `events` are in line order.
struct FileResult {
  SourceFile file;
  std::vector<Event> events;
  std::vector<Fact> facts;       // configuration/progress figures, in line order
  std::vector<Diagnostic> diagnostics;
  std::uint64_t bytes = 0, lines = 0, stamped_lines = 0;
  int first_full_year = 0;       // year of the first stamp that printed one; 0 none
  int first_full_month = 0;
  std::optional<CivilTime> first_stamp, last_stamp;  // as printed, in line order
  std::optional<std::int64_t> first_stamp_us, last_stamp_us;  // after apply_year()
  bool binary = false;
  bool unopened = false;         // could not be opened (diagnosed); nothing was read
  bool deferred = false;         // AnalyzeOptions::defer_chunkable: left for a chunked read
};

class ChunkedHits;

/// Analyzes one file from an already-open source. Never throws; problems become diagnostics.
/// Year-less stamps are resolved with `fallback_year` when the file itself prints no year.
/// `chunked`: the trigger hits of this file searched in parallel (else searched here).
FileResult analyze_source(const SourceFile& file, ByteSource& source, const RuleMatcher& matcher,
                          const AnalyzeOptions& options, DiagnosticSink& diags,
                          ChunkedHits* chunked = nullptr);

/// Opens and analyzes one file (the per-file worker entry point).
FileResult analyze_file(const SourceFile& file, const RuleMatcher& matcher,
                        const AnalyzeOptions& options);
/// The same, moving `file` into the result (no copy of its paths, 9,000 of them on a big
/// job); `file` is moved from only on return, so after an exception it is intact.
FileResult analyze_file(SourceFile&& file, const RuleMatcher& matcher, const AnalyzeOptions& options);

class FileAnalyzer;

class LineSearcher;

/// "Analyze one file" fed by appended bytes, for the watcher. The bytes go through the same
/// LineSearcher as a one-shot read (following: a partial last line waits for its '\n'), so the
/// result equals analyze_source() over the same bytes. Not thread-safe.
class IncrementalAnalyzer {
 public:
  /// Requires: `matcher` and `options.triggers` outlive the analyzer.
  IncrementalAnalyzer(SourceFile file, const RuleMatcher& matcher, const AnalyzeOptions& options);
  ~IncrementalAnalyzer();
  IncrementalAnalyzer(const IncrementalAnalyzer&) = delete;
  IncrementalAnalyzer& operator=(const IncrementalAnalyzer&) = delete;

  /// Analyses the complete lines in `bytes` (appended to the file since the last call). Lines
  /// wait until the file's first 4 KiB have arrived (they tell whether it is binary).
  void feed(std::string_view bytes);
  /// The result as if the file ended after its last complete line: tracebacks whose exception
  /// line has arrived are included. The live state is not changed.
  FileResult snapshot() const;
  /// The file has ended: the result of all bytes fed, partial last line included, equal to
  /// analyze_source() over them. Call once; later feeds are ignored.
  FileResult finish();

 private:
  class AppendedBytes;
  /// Creates the searcher and reads the head; `ended`: no more bytes will come.
  void start(bool ended);

  SourceFile file_;
  const RuleMatcher& matcher_;
  AnalyzeOptions options_;
  DiagnosticSink diags_;
  std::unique_ptr<AppendedBytes> appended_;
  std::unique_ptr<FileAnalyzer> analyzer_;
  std::unique_ptr<LineSearcher> searcher_;  // once the head is known
  bool skipped_ = false;   // empty or binary: nothing more is read
  bool finished_ = false;
};

/// Re-resolves year-less stamps of `result` against `year` (used when the file printed no
/// year and the job-wide year is known only after every file is read).
void apply_year(FileResult& result, int year);

}  // namespace megatriage
