// Split stage, the one line path: a LineSearcher cuts a ByteSource into lines (LineSplitter),
// searches them for triggers (TriggerScanner, or a ChunkedHits searched ahead) and hands the
// lines that can matter to a LineSink (ripgrep's Searcher/Sink split). One-shot, chunked and
// incremental (`watch`) reading all go through it, so their line rules cannot drift. It knows
// nothing of what a line means: deciding that is the sink's job.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "input/reader.h"
#include "scan/line_splitter.h"
#include "scan/trigger_scan.h"

namespace megatriage {

class ChunkedHits;

/// What the trigger search knows about one line shown to a sink. The defaults mean "no search
/// ran: anything may be there" (the path that examines every line).
struct LineHit {
  bool triggered = true;  // a trigger occurs in the line (or every line is shown)
  bool needle = true;     // a rule's needle may be in the line
  bool may_stamp = true;  // a time-of-day `HH:MM:SS` may be in the line
  std::uint8_t may_hold = 0xff;  // TriggerScanner::watch() texts the line may hold (bit per text)
  /// Where the line's first time-of-day stamp `HH:MM:SS` starts in its text; kNoStamp: none
  /// found (or no search ran).
  static constexpr std::uint32_t kNoStamp = 0xffffffff;
  std::uint32_t stamp_at = kNoStamp;
  /// Every trigger of the line is a time-of-day stamp (no needle, no anchor): the line can
  /// matter only for its time.
  bool only_stamps = false;
  /// An anchor (a text the extractors look for, not a rule's needle) may be in the line. Without
  /// one, the line matters only for its stamp and to the rules whose needles it holds.
  bool may_anchor = true;
  /// The rules that may match, ascending and unique; null: any rule may (look for needles).
  /// Valid during the on_line() call only.
  const std::vector<int>* candidates = nullptr;
};

/// Receives the lines a LineSearcher shows. Only lines with a trigger are shown, plus every
/// line while wants_every_line() (an open traceback or arguments dump needs lines that carry
/// no trigger); the others are skipped without a call.
class LineSink {
 public:
  virtual ~LineSink() = default;
  /// `line` is valid during the call only.
  virtual void on_line(const LineView& line, const LineHit& hit) = 0;
  /// A line whose only triggers are time-of-day stamps, the first at `stamp_at` (no cut, NUL
  /// or '\r' in it), offered before any LineHit is built: most lines of a stamped log. True:
  /// the sink took it, as on_line() would have with that hit (`may_hold` as there). False: it
  /// is shown to on_line() as usual. The default takes none.
  virtual bool on_stamp_line(const LineView& line, std::uint32_t stamp_at, std::uint8_t may_hold) {
    (void)line;
    (void)stamp_at;
    (void)may_hold;
    return false;
  }
  /// The lines right after the line just shown (to on_line() or on_stamp_line()), when the sink
  /// said stamp_run_ready(): `run.text` is the buffered lines from there (the last may be cut
  /// by the text's end), without NUL or '\r', and `run.hits` their triggers (ascending; a hit's
  /// place in the text is `end - shift`). The sink may take the lines from the text's start on
  /// that on_stamp_line() would have taken one by one, with the lines without a hit between
  /// them (and, in a run without stamps, lines whose hits it can handle as on_line() would),
  /// but none longer than `max_line` (the splitter's limit) nor one that goes past the text; it
  /// returns how many bytes (whole lines) and hits it took. Lets a sink go through a run of one
  /// writer's lines without a call per line. The default takes none.
  struct StampRun {
    std::string_view text;
    const TriggerScanner::Hit* hits = nullptr;
    std::size_t hit_count = 0;
    std::uint32_t shift = 0;
    std::size_t max_line = 0;
    std::uint8_t may_hold = 0xff;  // what the lines without any other hit may hold (as on_stamp_line's)
    /// The search left the stamps out of `hits` (LineSearcher's lazy stamps): the sink finds
    /// the lines itself, from line end to line end, up to the line of the first hit, which is
    /// not a stamp-only line.
    bool without_stamps = false;
    /// The search that found `hits` (what their literals are), and the number of the text's
    /// first line.
    const TriggerScanner* triggers = nullptr;
    std::uint64_t first_line = 0;
  };
  struct RunTaken {
    std::size_t bytes = 0, hits = 0;
    /// The lines in `bytes` when the sink counted them all (runs without stamps); 0: not counted.
    std::size_t lines = 0;
  };
  virtual RunTaken on_stamp_run(const StampRun& run) {
    (void)run;
    return {};
  }
  /// The searcher's buffer pass removed terminal escapes (SearchOptions::strip_escapes) from
  /// `line`, the first line it took them from; called once per file at most. A line that keeps
  /// its escapes for clean() comes with LineView::escapes_removed instead, maybe before `line`
  /// and told of later: the first line that lost one is the smallest of both.
  virtual void on_escapes_removed(std::uint64_t line) { (void)line; }
  /// Read by the searcher before each line; not virtual, so skipping costs no call.
  bool wants_every_line() const { return open_structures_ > 0; }
  /// Whether on_stamp_run() may take lines after the line just shown; read by the searcher after
  /// each line it showed.
  bool stamp_run_ready() const { return stamp_run_ready_; }

 protected:
  LineSink() = default;
  LineSink(const LineSink&) = default;  // a sink may be copied (IncrementalAnalyzer::snapshot)
  LineSink& operator=(const LineSink&) = default;

  /// How many structures of the sink want every line; maintained by the sink.
  std::size_t open_structures_ = 0;
  /// Set by the sink when it took a line after which on_stamp_run() may take more.
  bool stamp_run_ready_ = false;
};

/// How a source starts, from its head: empty and binary files, and megatriage's own reports
/// (input/own_report.h), are not split into lines.
enum class SourceStart { Empty, Binary, OwnReport, Lines };

struct SearchOptions {
  SplitOptions split;
  /// The trigger search; null (or not ok()): every line is shown to the sink.
  const TriggerScanner* triggers = nullptr;
  /// The hits of this file searched ahead in parallel (else searched here); may be null.
  ChunkedHits* chunked = nullptr;
  /// Read a 0 from the source as "no more bytes for now" (a growing file) rather than its end,
  /// until end_input(); search() then stops before a partial last line and resumes on the next
  /// call. Lets `watch` feed appended bytes through the same splitter and search.
  bool follow = false;
  /// Lazy stamps (see LineSearcher): off, every region is searched for stamps up front. The
  /// report is the same either way.
  bool lazy_stamps = true;
  /// The fewest lines a region must have had for the next one to be searched lazily: below
  /// that, one region says too little of the next. Tests with tiny buffers lower it.
  std::uint64_t lazy_after_lines = 64;
  /// Counts the regions searched without stamps, when set (tests).
  std::uint64_t* lazy_regions = nullptr;
  /// Terminal escape sequences are removed from the lines shown (LineView::escapes_removed says
  /// which lost some). From the first region where an ESC is found on, they are removed from
  /// each region before it is searched (LineSplitter::strip_ahead, which also drops the '\r' of
  /// CRLF line ends, with or without this), so that a coloured log takes the paths of a plain
  /// one; the sink is told where (on_escapes_removed()), and the offsets it gets stay the
  /// input's. Lines that keep theirs (one with a NUL,
  /// an over-long one, the input's last line without a '\n') lose them in LineSplitter::clean(),
  /// and the search says nothing of them (any rule, any stamp). The trigger search must look for
  /// ESC, as a needle.
  bool strip_escapes = false;
};

class LineSearcher {
 public:
  /// How many bytes of the head tell a log from binary data (looks_binary()).
  static constexpr std::size_t kHeadBytes = 4096;

  /// Requires: `source`, `diags`, the scanner and the ChunkedHits of `options` outlive the
  /// searcher. `display_path` names the file in diagnostics.
  LineSearcher(ByteSource& source, DiagnosticSink& diags, std::string display_path,
               const SearchOptions& options);
  LineSearcher(const LineSearcher&) = delete;
  LineSearcher& operator=(const LineSearcher&) = delete;

  /// Looks at the first kHeadBytes (fewer at the end of input) before any search: an empty or
  /// binary source or a megatriage report is reported (`read.empty-file`, `read.binary-file`,
  /// `read.own-report`) and must not be
  /// searched. Call once, first. With `follow`, call it once kHeadBytes have arrived or after
  /// end_input(), so that the answer is the one a one-shot read gives.
  SourceStart start();
  /// The head start() looked at (the source's first kHeadBytes, fewer at its end), for a sink
  /// that learns from a file's first lines. Valid until the first search().
  std::string_view head() const { return head_; }
  /// Shows the sink the lines that can matter, up to the end of input (or, with `follow`, up to
  /// the bytes available now, keeping a partial last line for the next call). Allocates only
  /// when a hit list grows.
  void search(LineSink& sink);
  /// Adds the bytes searched from now on to `bytes_done` (a progress line); null: none. Set
  /// after start() when whether to count depends on the compression that the first read found.
  void count_progress(std::atomic<std::uint64_t>* bytes_done) { bytes_done_ = bytes_done; }
  /// With `follow`: the source has ended; the next search() shows the partial last line.
  void end_input() { splitter_.end_input(); }

  std::uint64_t bytes_read() const { return splitter_.bytes_read(); }
  /// The bytes through the last complete line searched (following: without the partial line).
  std::uint64_t bytes_split() const { return splitter_.bytes_read() - splitter_.unsplit_bytes(); }
  std::uint64_t lines_read() const { return splitter_.lines_read(); }

 private:
  void search_triggered(LineSink& sink, const TriggerScanner& triggers);
  void offer_stamp_lines(LineSink& sink, std::vector<TriggerScanner::Hit>& hits, std::size_t& next_hit,
                         std::uint64_t hits_base, std::uint64_t scanned_end, std::uint8_t may_hold);
  void offer_stamp_run(LineSink& sink, const std::vector<TriggerScanner::Hit>& hits, std::size_t& next_hit,
                       std::uint64_t hits_base, std::uint64_t scanned_end, std::uint8_t may_hold);
  void search_every_line(LineSink& sink);
  // Escapes are removed from here on.
  void start_stripping();
  void tell_escapes_removed(LineSink& sink, const RawLine& line, std::string_view region,
                            std::uint64_t region_offset);
  // From the first bytes removed from the text on, the hits searched ahead (of the input's bytes)
  // are of no use: the helpers only read ahead, and the searcher searches itself.
  void stop_chunked_search();
  // Lazy stamps: the hits get the stamps of the lines before the one of stream offset `until`
  // that were not looked for yet (or of the whole region, when many hits are left).
  void find_stamps_before(std::uint64_t until, std::vector<TriggerScanner::Hit>& hits, std::size_t next_hit,
                          std::uint64_t hits_base, std::uint64_t scanned_end);

  LineSplitter splitter_;
  DiagnosticSink& diags_;
  std::string display_path_;
  const TriggerScanner* triggers_;
  ChunkedHits* chunked_;  // null once stop_chunked_search()
  std::atomic<std::uint64_t>* bytes_done_ = nullptr;
  bool follow_ = false;
  std::size_t max_line_;  // the splitter's line limit
  // One-shot: a hit list per thread, reused from file to file (a new one cost ~5 allocations a
  // file on 9,000-file jobs). A following searcher pauses between calls while other files use
  // the thread, so it keeps its own.
  std::vector<TriggerScanner::Hit> own_hits_;
  std::vector<TriggerScanner::Hit>& hits_;
  // Where the search stands, kept between calls of a following searcher.
  std::size_t next_hit_ = 0;
  std::uint64_t hits_base_ = 0, scanned_end_ = 0;
  // Lazy stamps. A log stamped on every line by one writer is mostly taken as runs, which need
  // no stamp hits (the sink reads each line's stamp where its route puts it); there the
  // stamps' pass over every byte cost as much as the runs. So after a region whose lines were
  // mostly taken as runs, the next one is searched without stamps, and the stamps of the bytes
  // that are not taken as runs are found when the search gets to them: `stamps_until_` (a
  // stream offset) is where the hits stop being complete.
  bool lazy_allowed_ = true;
  std::uint64_t lazy_after_lines_ = 64;
  std::uint64_t* lazy_regions_ = nullptr;
  bool lazy_stamps_ = false;
  std::uint64_t stamps_until_ = 0;
  std::uint64_t region_lines_ = 0, region_run_lines_ = 0;  // lines at the region's start; taken as runs since
  std::vector<TriggerScanner::Hit> stamp_scratch_, merged_;
  // strip_escapes: the literal that is ESC (kStamp: none), and whether escapes are removed.
  bool strip_escapes_ = false;
  std::uint16_t escape_literal_ = TriggerScanner::kStamp;
  bool stripping_ = false;
  bool told_escapes_ = false;  // the sink was told where the buffer pass removed the first
  std::vector<int> candidates_;  // the current line's candidate rules
  std::string_view head_;        // what start() looked at
};

}  // namespace megatriage
