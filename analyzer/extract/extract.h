// Extract stage: "analyze one file" — the pure per-file function that runs split, attribute and
// extract over one source and yields its events (event.h) in a FileResult (file_result.h). The
// unit of parallelism, testing and fuzzing; later stages see only FileResults. One-shot and
// incremental (`watch`) reading both go through scan/line_searcher.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "extract/event.h"
#include "extract/file_result.h"
#include "extract/traceback.h"
#include "input/discover.h"
#include "input/reader.h"
#include "match/rule_matcher.h"
#include "model/facts.h"
#include "model/types.h"
#include "scan/line_splitter.h"
#include "scan/trigger_scan.h"

namespace megatriage {

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
  // SearchOptions' lazy stamps (same report either way) and their count of regions (tests).
  bool lazy_stamps = true;
  std::uint64_t lazy_after_lines = 64;
  std::uint64_t* lazy_regions = nullptr;
};

/// The trigger search for analyze_*: `matcher`'s Line needles plus the anchors of the traceback,
/// fact, ChildFailedError-table and host extractors. Null when the matcher cannot list its
/// needles (a rule without one, prefilter disabled) or the search does not compile. `cache`:
/// where a compiled search may be found or kept (see TriggerScanner).
std::unique_ptr<TriggerScanner> make_trigger_scanner(
    const RuleMatcher& matcher, DiagnosticSink& diags,
    TriggerScanner::Engine engine = TriggerScanner::Engine::Best, const RunCache* cache = nullptr);

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
  // Mutable: snapshot() finishes a copy of the analyzer, which reports into this sink; what it
  // adds belongs to that snapshot and is taken back out.
  mutable DiagnosticSink diags_;
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
