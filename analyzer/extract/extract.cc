#include "extract/extract.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "base/text_util.h"
#include "extract/child_failure_table.h"
#include "extract/escaped_text.h"
#include "extract/fact_keeper.h"
#include "extract/line_prefix.h"
#include "extract/megatron_config.h"
#include "extract/prefix_learning.h"
#include "extract/rank_mentions.h"
#include "extract/stamp_routes.h"
#include "extract/stamp_run.h"
#include "extract/timestamp.h"
#include "extract/wrapped_exception.h"
#include "input/job_ids.h"
#include "match/rule_tags.h"
#include "match/unmatched_lines.h"
#include "scan/chunk_scan.h"
#include "scan/line_searcher.h"

namespace megatriage {
namespace {

constexpr std::size_t kMaxEventText = 2048;

// A stream is one writer inside a file: the combination of prefixes that names it. The parsers
// cap srun task ids and tee local ranks at 6 digits (+1 < 2^20) and ranks at 7 (+1 < 2^24), so
// the fields never collide.
std::uint64_t stream_key(const LinePrefix& p) {
  auto part = [](int v, unsigned bits) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v + 1)) & ((std::uint64_t{1} << bits) - 1);
  };
  return (part(p.srun_task, 20) << 44) | (part(p.tee_local_rank, 20) << 24) | part(p.rank, 24);
}

// A stream's full name: its parsed prefixes and the writer of its learnt ones (prefix_learning.h).
struct StreamKey {
  std::uint64_t named = 0;
  std::uint64_t learnt = 0;  // 0: no learnt prefix
  auto operator<=>(const StreamKey&) const = default;
};

struct StreamState {
  StreamKey key;  // its own key in the analyzer's map
  TracebackBuilder builder;
  std::optional<CivilTime> last_stamp;
  std::vector<std::size_t> awaiting_upper_bound;  // event indices
  // First stamp seen (on this stream or its launcher) after the current traceback's exception
  // line: an upper bound known before the traceback is complete (interleaved streams complete
  // late, at the next line of their own).
  std::optional<CivilTime> bound_since_exception;
  ConfigExtractor config;  // Megatron/launcher facts of this stream
  std::string host;  // from NCCL headers of this stream
  int srun_task = -1, tee_local_rank = -1, rank = -1;
  bool busy = false;  // inside a traceback or an arguments dump: every line of it matters
  // The last line routed to it. Read only while an adoption waits (route()), when no shortcut
  // runs: a run of stamp-only lines (on_stamp_run()) need not set it.
  std::uint64_t last_line = 0;
};

// NCCL lines a stream's host is taken from: every rank prints some of these at init, and every
// warning. (Not any NCCL line: the fast path would then have to visit all NCCL INFO chatter.)
// Without the common `NCCL INFO ` head: a trigger that starts like the noise makes the search
// stop at nearly every line (docs/performance.md, "Figures behind code comments").
constexpr std::string_view kHostLines[] = {"NCCL WARN", "Bootstrap", "cudaDriverVersion", "NCCL version",
                                           "Init COMPLETE"};

bool names_host(std::string_view body) {
  for (std::string_view l : kHostLines)
    if (body.find(l) != std::string_view::npos) return true;
  return false;
}

// What the traceback builder must be shown while its stream is idle: the header, a frame line
// (a traceback whose header is not in the log) and a lone exception line
// (is_lone_exception_line: `Name: message` with a name ending in Error, Exception or Failure,
// also `RayTaskError(Inner): `). The exception anchors end in `: ` so that C++ frames
// (`c10::Error::Error(`) and `Error:` inside words do not trigger; on the bench's quick trees
// `Error: ` is on 0.25 % of lines, all of them exception lines. A lone `Name:` with its message on
// the next line is found only where a frame run leads to it.
// The header without its colon: IPython's has none (`KeyError   Traceback (most recent call last)`).
constexpr std::string_view kTracebackAnchors[] = {"Traceback (most recent call last)",  // is_header
                                                  "File \"",     "Error: ",   "Exception: ",
                                                  "Failure: ",   "Error): ",  "Exception): ", "Failure): "};

// What Exception rules see of a block: its exception line and the message's continuation.
std::string block_text(const ExceptionBlock& b) {
  std::string text = b.exception;
  if (!b.message_tail.empty()) text += "\n" + b.message_tail;
  return text;
}

}  // namespace

std::string matched_text(const Event& e) {
  if (e.matches.empty()) return {};
  if (e.kind == EventKind::Traceback)
    return block_text(e.traceback->blocks[static_cast<std::size_t>(e.decisive_block)]);
  return e.matched_line ? *e.matched_line : e.text;
}

// Texts the trigger search watches per line (TriggerScanner::watch), so that a line known not
// to hold them skips the look for them: bit 0 ESC (terminal escapes to strip), the next bits
// ConfigExtractor::gpu_vendor_literals() (the GPU model scan), then the traceback header (the
// look for a prefix in front of it, on every examined line otherwise), the last one every
// anchor that is not a fact's (a traceback's, a ChildFailedError table's, an NCCL host line's):
// a quiet line without those matters only for its time, its rules and its facts.
std::vector<std::vector<std::string>> watched_texts() {
  std::vector<std::vector<std::string>> watched{{"\x1b"}};
  for (const std::string& l : ConfigExtractor::gpu_vendor_literals()) watched.push_back({l});
  watched.push_back({std::string(kTracebackAnchors[0])});
  std::vector<std::string>& structure = watched.emplace_back();
  for (std::string_view l : kTracebackAnchors) structure.emplace_back(l);
  for (std::string_view l : ChildFailureTable::trigger_literals()) structure.emplace_back(l);
  for (std::string_view l : kHostLines) structure.emplace_back(l);
  return watched;
}
constexpr std::uint8_t kWatchEscape = 1;
const std::uint8_t kWatchStructure = static_cast<std::uint8_t>(1U << (watched_texts().size() - 1));
const std::uint8_t kWatchHeader = static_cast<std::uint8_t>(kWatchStructure >> 1);
const std::uint8_t kWatchGpu = static_cast<std::uint8_t>((kWatchHeader - 1) & ~1U);

// Each worker's event list of its last file, emptied: the next file's events grow in its
// capacity (no reallocation and move of every event at each doubling) and leave as an exactly
// sized copy, the only memory a file's events keep until the report.
thread_local std::vector<Event> spare_events;

// The sink of the one line path: runs the per-line extractors over the lines a LineSearcher
// shows it, and knows nothing of splitting or searching. Copyable, so that a watcher can take a
// snapshot "as if the file ended now" without disturbing the live state.
class FileAnalyzer : public LineSink {
 public:
  FileAnalyzer(const SourceFile& file, const RuleMatcher& matcher, const AnalyzeOptions& options,
               DiagnosticSink& diags, ChunkedHits* chunked = nullptr)
      : file_(file), matcher_(matcher), options_(options), diags_(diags), chunked_(chunked) {
    result_.events = std::move(spare_events);
    result_.events.clear();
  }

  /// The one-shot read: the whole of `source` through one LineSearcher.
  FileResult run(ByteSource& source) {
    SearchOptions search;
    search.split = options_.split;
    search.triggers = options_.triggers;
    search.chunked = chunked_;
    search.lazy_stamps = options_.lazy_stamps;
    search.lazy_after_lines = options_.lazy_after_lines;
    search.lazy_regions = options_.lazy_regions;
    search.strip_escapes = true;
    LineSearcher searcher(source, diags_, file_.display_path, search);
    switch (searcher.start()) {
      case SourceStart::Empty: return finish_result();
      case SourceStart::Binary: mark_binary(); return finish_result();
      case SourceStart::OwnReport: mark_own_report(); return finish_result();
      case SourceStart::Lines: break;
    }
    learn_head(searcher.head());
    // Progress counts plain bytes only; a small file's compression is known after its first read.
    if (file_.compression == Compression::None) searcher.count_progress(options_.bytes_done);
    searcher.search(*this);
    return finish_all(searcher.bytes_read(), searcher.lines_read());
  }

  /// The file was found binary: it is reported, not read.
  void mark_binary() { result_.binary = true; }
  /// The file is one of megatriage's reports: it is reported, not read.
  void mark_own_report() { result_.own_report = true; }

  /// Learns the file's unnamed line prefixes from its head (LineSearcher::head()).
  void learn_head(std::string_view head) {
    learner_.learn_from_head(head, head.size() < LineSearcher::kHeadBytes);
  }

  /// Ends every stream (cut-off tracebacks included) and returns the result. With
  /// `keep_diagnostics` the shared sink keeps its items (snapshots).
  FileResult finish_all(std::uint64_t bytes, std::uint64_t lines, bool keep_diagnostics = false) {
    finish_streams();
    result_.bytes = bytes;
    result_.lines = lines;
    return finish_result(keep_diagnostics);
  }


 private:
  // Ends the tracebacks still open at the end of the file, in stream-key order (a std::map: the
  // order must not depend on which streams exist, and the fast path creates fewer).
  void finish_streams() {
    for (auto& [key, stream] : streams_)
      if (stream.builder.finish()) drain(stream);
  }

  FileResult finish_result(bool keep_diagnostics = false) {
    // Hosts learnt from NCCL headers of a stream apply to all events of its rank (from the
    // stream with the smallest key when several name one).
    std::unordered_map<int, const std::string*> host_of_rank;
    for (auto& [key, s] : streams_)
      if (!s.host.empty() && s.rank >= 0) host_of_rank.try_emplace(s.rank, &s.host);
    result_.lines_may_name_job = false;
    for (auto& e : result_.events) {
      if (e.kind == EventKind::RuleLine && !result_.lines_may_name_job)
        result_.lines_may_name_job = may_name_slurm_job(e.text);
      if (!e.who.host.empty() || e.who.rank < 0) continue;
      auto it = host_of_rank.find(e.who.rank);
      if (it != host_of_rank.end()) e.who.host = *it->second;
    }
    // Kept until the report without the growth slack (up to half the events' memory on a
    // 9,000-file job, and its page faults); the list itself goes to the worker's next file.
    std::vector<Event> kept;
    kept.reserve(result_.events.size());
    std::move(result_.events.begin(), result_.events.end(), std::back_inserter(kept));
    result_.events.clear();
    if (result_.events.capacity() > spare_events.capacity()) spare_events = std::move(result_.events);
    result_.events = std::move(kept);
    result_.named_ranks = rank_mentions_.ranks();
    result_.facts = facts_.take();
    result_.diagnostics = keep_diagnostics ? diags_.items() : diags_.take();
    if (escapes_line_ != 0) {
      Diagnostic escapes;
      escapes.severity = Severity::Info;
      escapes.code = "extract.terminal-escapes";
      escapes.message = "terminal escape sequences removed before matching";
      escapes.path = file_.display_path;
      escapes.line = escapes_line_;
      result_.diagnostics.push_back(std::move(escapes));
    }
    // By the line where each was first seen, then by code, whichever path saw it first: the
    // searcher reports the escapes of a whole buffer before the sink sees its lines, and a
    // line's NULs before or after its escapes.
    std::sort(result_.diagnostics.begin(), result_.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return a.line != b.line ? a.line < b.line : a.code < b.code;
    });
    if (result_.first_full_year != 0) apply_year(result_, result_.first_full_year);
    return std::move(result_);
  }

  // The searcher's shortcut for a line whose only triggers are stamps: what on_line() does with
  // such a line while the file is quiet (below), without the hit it would build.
  bool on_stamp_line(const LineView& line, std::uint32_t stamp_at, std::uint8_t may_hold) override {
    no_stamp_run();
    if (open_structures_ != 0 || !adoptions_.empty() || (may_hold & kWatchEscape) != 0) return false;
    return on_routed_stamp(line, stamp_at);
  }

  // What the search says of the line (LineHit): `triggered`: it holds a trigger (or every line
  // is examined); otherwise it can only matter to a busy stream, and is dropped once its prefix
  // names an idle one. `needle`: the search saw where a rule's needle may be (or every line is
  // examined); without that the line holds no needle, so no rule can match it. `may_stamp`: the
  // search saw an `HH:MM:SS` (every stamp parse_timestamp() reads has one) or cannot tell.
  // The extractors run here, not in a helper: this is the one call per examined line (private:
  // only the searcher calls it, through LineSink).
  void on_line(const LineView& line, const LineHit& hit) override {
    no_stamp_run();
    end_stale_tracebacks(line.number);
    // A stamped line without a traceback's, table's or host line's anchor, while nothing in the
    // file is open, matters only for its time, its rules and its facts: its stream is the one
    // its head leads to (StampRoutes), and unless a rule matches its body, the stamp and the
    // facts are all it adds. Such lines are most of a noisy log (c10 warnings and INFO lines of
    // every rank, each with a rule's needle; logging-stamped Megatron iteration lines).
    const bool quiet = hit.stamp_at != LineHit::kNoStamp && open_structures_ == 0 && adoptions_.empty() &&
                       (hit.may_hold & (kWatchEscape | kWatchStructure)) == 0;
    if (quiet && hit.only_stamps && on_routed_stamp(line, hit.stamp_at)) return;
    if (quiet && !hit.only_stamps && on_routed_line(line, hit)) return;
    // Coloured output (FORCE_COLOR, Python 3.13 tracebacks) comes without its escapes
    // (SearchOptions::strip_escapes).
    if (line.escapes_removed) on_escapes_removed(line.number);
    LinePrefix prefix = parse_prefix(line.text);
    const std::string_view named_body = prefix.body;  // before learnt prefixes: stamps look here first
    layers_.clear();
    StreamKey key{0, learner_.peel(prefix, layers_)};
    key.named = stream_key(prefix);
    StreamState& stream = route(key, prefix, hit.triggered && (hit.may_hold & kWatchHeader) != 0,
                                line.number);
    std::string_view body = prefix.body;
    if (!hit.triggered && !stream.busy) return;
    // A container runtime's JSON record (docker's json-file): the line it carries is the body
    // the extractors read (a structured logger's record inside it included). The record itself
    // keeps the stamp (named_body), and teaches no route and no memo: their shortcuts read the
    // raw line.
    const std::string_view record = body;
    bool decoded = false;
    if (body.size() > 7 && body[0] == '{' && body[1] == '"') {
      if (std::optional<std::string> text = json_record_text(body, body.size())) {
        record_text_ = std::move(*text);
        body = record_text_;
        decoded = true;
      }
    }
    // Communicator lines (`rank R nranks N ... Init COMPLETE`) carry NCCL's own header and an
    // anchor; no other line need be searched for them (nor a stamped one without an anchor,
    // which the unstamped log would not show).
    if (hit.triggered && !hit.only_stamps && !prefix.nccl_host.empty()) rank_mentions_.feed(body);
    if (!prefix.nccl_host.empty() && stream.host.empty() && names_host(body))
      stream.host = short_host(prefix.nccl_host);

    // Feed the traceback builder first: a stamped line that ends a traceback (the launcher's
    // `failed (exitcode ...)`) is that traceback's upper time bound.
    if (stream.builder.feed(body, line.number, line.offset)) drain(stream);
    if (adopt_from_ && stream.builder.active() && TracebackBuilder::is_header(body)) {
      adopt(*adopt_from_, key, line.number);
      // Its continuation may also carry none of the learnt prefixes (Ray's `(raylet) A worker
      // died ... Traceback (most recent call last):` and then plain frames).
      if (adopt_from_->learnt != 0) adopt(StreamKey{key.named, 0}, key, line.number);
    }

    // Time-of-day stamps and the fact anchors are part of the trigger search: a line without a
    // trigger (here only because its stream is inside a traceback) holds neither, and only an
    // open arguments dump wants every line.
    std::optional<CivilTime> stamp;
    bool stamp_in_body = false;  // read from named_body or body, not from a learnt prefix
    if (hit.triggered && hit.may_stamp) {
      stamp = parse_timestamp(named_body);
      if (!stamp && body.size() != named_body.size()) stamp = parse_timestamp(body);  // `node7: [<stamp>] ...`
      stamp_in_body = stamp.has_value();
      for (std::size_t i = 0; !stamp && i < layers_.size(); ++i) stamp = PrefixLearner::stamp_in(layers_[i].text);
    }
    const bool launcher = prefix.rank < 0 && prefix.tee_local_rank < 0;
    if (stamp) on_stamp(*stamp, stream, launcher, prefix.srun_task, line.number);
    if (hit.triggered && (hit.may_hold & kWatchStructure) != 0 && !stream.builder.active())
      feed_escaped_traceback(body, line, stream);

    if (hit.triggered || stream.config.in_args_dump()) {
      stream.config.feed(body, line.number, stream.rank >= 0 ? stream.rank : file_.hint.rank, facts_,
                         (hit.may_hold & kWatchGpu) != 0);
    }

    on_child_failure_table(body, line, stream, stamp);

    // match() looks for the rules' needles itself: a line without one costs one walk, no alloc.
    // A body that failed before up to its stamp fails again (UnmatchedLines).
    std::vector<RuleMatch> matches;
    const auto body_at = static_cast<std::size_t>(record.data() - line.text.data());
    const bool memo = !decoded && hit.needle && hit.stamp_at != LineHit::kNoStamp && body_at <= hit.stamp_at;
    if (hit.needle && !(memo && unmatched_.seen(body, hit.stamp_at - body_at))) {
      matches = matcher_.match(body, AppliesTo::Line, hit.candidates);
      if (memo && matches.empty()) unmatched_.remember();
    }
    // Later lines of this head take the shortcuts above (StampRoutes).
    if (quiet && matches.empty() && stamp_in_body && !decoded)
      keep_stamp_route(line.text, hit.stamp_at, named_body, body, stream, launcher, prefix.srun_task,
                       !prefix.nccl_host.empty());
    if (!matches.empty()) {
      Event e = make_event(EventKind::RuleLine, line.number, line.offset, stream, stamp);
      e.text = valid_text(body.substr(0, kMaxEventText), line.number);
      if (e.text != body) e.matched_line = std::make_shared<const std::string>(body);
      e.matches = std::move(matches);
      push(std::move(e), stream, stamp.has_value());
    }
    update_busy(stream);
  }

  // Reported once per file (finish_result()), at the first line that lost one, whether they
  // were removed from a whole buffer (most lines of a coloured log) or from one line
  // (LineView::escapes_removed): the searcher may tell of a buffer's before a line in it
  // that keeps its escapes to itself.
  void on_escapes_removed(std::uint64_t line) override {
    if (escapes_line_ == 0 || line < escapes_line_) escapes_line_ = line;
  }

  // A traceback logged inside one string of the line, its newlines escaped (a JSON record's
  // `exc_info`, a repr(): escaped_text.h). Its lines, decoded, go through the stream's
  // builder as the line's own, and it ends with the string: an event at this line, timed by the
  // stream's stamps as a printed one would be.
  void feed_escaped_traceback(std::string_view body, const LineView& line, StreamState& stream) {
    const std::string text = escaped_traceback(body, body.size());
    if (text.empty()) return;
    for (std::size_t from = 0; from <= text.size();) {
      std::size_t end = text.find('\n', from);
      if (end == std::string::npos) end = text.size();
      std::string_view part(text.data() + from, end - from);
      while (!part.empty() && part.back() == '\r') part.remove_suffix(1);
      if (stream.builder.feed(part, line.number, line.offset)) drain(stream);
      from = end + 1;
    }
    if (stream.builder.finish()) drain(stream);
  }

  // Counts the streams inside a traceback or an arguments dump (open_structures_).
  void update_busy(StreamState& stream) {
    bool busy = stream.builder.active() || stream.config.in_args_dump();
    if (busy != stream.busy) {
      stream.busy = busy;
      if (busy) {
        busy_keys_.push_back(stream.key);
      } else {
        auto listed = std::find(busy_keys_.begin(), busy_keys_.end(), stream.key);
        if (listed != busy_keys_.end()) busy_keys_.erase(listed);
      }
      open_structures_ = busy_keys_.size();  // what the searcher reads (wants_every_line)
    }
  }

  // A traceback past its exception line waits for its message's next lines, which its writer
  // prints right after it. A writer that prints nothing more (a rank that died: its `[rankN]:`
  // lines stop there) would keep it open to the end of the file, and every line of the other
  // writers on the slow path with it (an interleaved srun file: its whole analysis). Once the file
  // has gone kStaleLines lines without one of that writer's, the traceback ends as it would at
  // the end of the file. Looked at every kStaleCheckLines lines while anything is open.
  static constexpr std::uint64_t kStaleLines = 10000;
  static constexpr std::uint64_t kStaleCheckLines = 1024;
  void end_stale_tracebacks(std::uint64_t line_number) {
    if (open_structures_ == 0 || line_number < next_stale_check_) return;
    next_stale_check_ = line_number + kStaleCheckLines;
    const std::vector<StreamKey> busy = busy_keys_;  // update_busy() edits the list
    for (const StreamKey& key : busy) {
      auto it = streams_.find(key);
      if (it == streams_.end()) continue;
      StreamState& stream = it->second;
      if (!stream.builder.past_exception() || line_number <= stream.last_line + kStaleLines) continue;
      if (stream.builder.finish()) drain(stream);
      update_busy(stream);
    }
  }

  // The stream of a line whose parsed prefixes are `prefix` (body: after them all, learnt
  // ones peeled into layers_) and `key`. A traceback header behind text no parser names teaches
  // that text as the header's prefix (unless the line's stream is inside a traceback: its
  // message may quote a header). A header behind a learnt prefix may be the only line that
  // carries it (a logging head, Ray's `(raylet) `): when the next line of the same writer
  // without that prefix (adopt_from_) is the traceback's first frame, that writer's lines
  // continue it (Adoption) until one with the prefix shows up. Creates the stream on first use.
  // `may_hold_header`: the search saw the traceback header's text in the line, or cannot tell.
  StreamState& route(StreamKey& key, LinePrefix& prefix, bool may_hold_header, std::uint64_t line_number) {
    adopt_from_.reset();
    // Where the line goes as it stands: its own stream, or the one adopting its lines.
    StreamState* adopting = nullptr;
    auto a = adoptions_.empty() ? adoptions_.end() : adoptions_.find(key);
    if (a != adoptions_.end()) {
      auto child = streams_.find(StreamKey{key.named, a->second.child});
      if (child == streams_.end() || !child->second.builder.active()) {
        adoptions_.erase(a);
      } else if (a->second.active) {
        adopting = &child->second;
      } else if (child->second.last_line == a->second.header_line && starts_frame(prefix.body)) {
        a->second.active = true;  // the header's prefix was on its line only
        adopting = &child->second;
        // So the traceback is this writer's: without a stamp of its own, it is placed after
        // this writer's last one, as it was before the prefix was learnt.
        auto own = streams_.find(key);
        if (!adopting->last_stamp && own != streams_.end()) adopting->last_stamp = own->second.last_stamp;
      } else if (child->second.last_line != a->second.header_line) {
        adoptions_.erase(a);  // the child went on with lines of its own
      }
    }
    if (may_hold_header) {
      if (std::size_t at = PrefixLearner::header_residual(prefix.body); at > 0) {
        auto own = streams_.find(key);
        bool inside = adopting != nullptr || (own != streams_.end() && own->second.builder.active());
        LearntPrefix m;
        if (!inside) m = learner_.learn_header_prefix(prefix.body.substr(0, at));
        if (m.length > 0) {
          stamp_routes_.clear();  // lines with this prefix now route differently
          stamp_run_walker_.reset();  // ... and the heads it walks may go elsewhere
          unmatched_.clear();     // ... and their rules see another body
          adopt_from_ = key;
          key.learnt = PrefixLearner::combine(key.learnt, m.writer);
          layers_.push_back({prefix.body.substr(0, at), key.learnt});
          prefix.body.remove_prefix(at);
        }
      }
    }
    if (adopting != nullptr && !adopt_from_) {
      key.learnt = adoptions_.at(key).child;
      adopting->last_line = line_number;
      return *adopting;
    }
    if (!adopt_from_ && !layers_.empty())
      adopt_from_ = StreamKey{key.named, layers_.size() > 1 ? layers_[layers_.size() - 2].writer : 0};
    if (adopt_from_ && !TracebackBuilder::is_header(prefix.body)) {
      // The prefix is on a continuation too: a per-line prefix, nothing to adopt.
      for (const StreamKey& parent : {*adopt_from_, StreamKey{key.named, 0}}) {
        auto p = adoptions_.find(parent);
        if (p != adoptions_.end() && p->second.child == key.learnt) adoptions_.erase(p);
      }
    }
    // Writers are few (hosts, actors, ranks); a file that seems to have thousands has a prefix
    // whose numbers were taken for names: its later writers share their parent's stream.
    constexpr std::size_t kMaxLearntStreams = 4096;
    if (key.learnt != 0 && learnt_streams_ >= kMaxLearntStreams && streams_.find(key) == streams_.end()) {
      key.learnt = adopt_from_ ? adopt_from_->learnt : 0;
      adopt_from_.reset();
    }
    auto [it, inserted] = streams_.try_emplace(key);
    StreamState& s = it->second;
    if (inserted && key.learnt != 0) ++learnt_streams_;
    if (inserted) {
      s.key = key;
      s.builder = TracebackBuilder(options_.traceback);
      s.srun_task = prefix.srun_task;
      s.tee_local_rank = prefix.tee_local_rank;
      s.rank = prefix.rank;
      for (const PrefixLearner::Layer& l : layers_) {
        if (s.rank < 0) s.rank = PrefixLearner::rank_of(l.text);
        if (s.host.empty()) s.host = PrefixLearner::host_of(l.text);
      }
      rank_mentions_.note_prefix(s.rank);
    }
    s.last_line = line_number;
    return s;
  }

  // `  File "...`, also with the indentation a paste collapsed.
  static bool starts_frame(std::string_view body) {
    std::size_t i = 0;
    while (i < body.size() && i < 4 && body[i] == ' ') ++i;
    return body.substr(i, 6) == "File \"";
  }

  // A traceback opened behind a learnt prefix on line `line_number`: `parent`'s lines may
  // continue it. A traceback `parent` adopted before and that is still open ends here, as it
  // would have without the prefix (a header ends the traceback before it).
  void adopt(const StreamKey& parent, const StreamKey& key, std::uint64_t line_number) {
    auto [a, inserted] = adoptions_.try_emplace(parent);
    if (!inserted && a->second.active && a->second.child != key.learnt) {
      auto old = streams_.find(StreamKey{parent.named, a->second.child});
      if (old != streams_.end() && old->second.builder.active()) {
        StreamState& o = old->second;
        if (o.builder.finish()) drain(o);
        update_busy(o);
      }
    }
    a->second = Adoption{key.learnt, line_number, false};
  }

  // Event text that goes into reports must be valid UTF-8; repairs are reported once per file.
  std::string valid_text(std::string_view text, std::uint64_t line) {
    if (is_valid_utf8(text)) return std::string(text);
    if (!reported_utf8_) {
      reported_utf8_ = true;
      diags_.add(Severity::Info, "extract.invalid-utf8",
                 "invalid UTF-8 in log text; shown with U+FFFD replacement characters",
                 file_.display_path, line);
    }
    return repair_utf8(text);
  }

  // Seconds within a year: enough to see a stream's clock step back (year-less stamps included).
  static long long year_seconds(const CivilTime& t) {
    return ((static_cast<long long>(t.month) * 31 + t.day) * 24 + t.hour) * 3600LL + t.minute * 60 + t.second;
  }

  // The shortcut of a stamp-only line (StampRoutes): its stream and stamp as a full routing
  // would find them. False: no route kept for its head, or no stamp where the route says.
  bool on_routed_stamp(const LineView& line, std::uint32_t stamp_at) {
    const StampRoute<StreamState>* route = stamp_routes_.find(line.text.substr(0, stamp_at + 1));
    if (route == nullptr || !take_routed_stamp(*route, line)) return false;
    ready_stamp_run(*route);
    return true;
  }

  // After a line taken on `route` (the one StampRoutes found last): the writer's next lines may
  // follow as a run (on_stamp_run()).
  void ready_stamp_run(const StampRoute<StreamState>& route) {
    stamp_run_ready_ = route.layout && !route.layout->ends_line;
    // The walker learns the writer's other heads as their lines are met (a level that comes
    // only in the middle of runs never starts one).
    if (stamp_run_ready_ && walks_writer_of(route)) {
      const std::string_view head = stamp_routes_.last_head();
      if (!stamp_run_walker_->has_route(head, *route.layout)) stamp_run_walker_->add_route(head, *route.layout);
    }
  }

  // Only the line just taken may start a run: a later one would skip the lines between.
  void no_stamp_run() { stamp_run_ready_ = false; }

  // The lines after a line taken on a route (on_routed_stamp(), on_routed_line()), as far as
  // they are the same writer's stamp-only lines (StampRunWalker): what on_stamp() would do
  // with each of them in turn, done once. After that line, on_stamp() only counts a line and
  // moves the clocks: nothing of its stream, or of its srun task's, waits for a stamp any more
  // (that line's stamp ended every wait), and nothing is open (the file is quiet).
  RunTaken on_stamp_run(const StampRun& run) override {
    // The route of the line just taken (a copy of the analyzer has none: its routes are not
    // the original's).
    const StampRoute<StreamState>* route = stamp_run_ready_ ? stamp_routes_.last() : nullptr;
    const std::string_view head = stamp_routes_.last_head();
    no_stamp_run();
    if (route == nullptr || open_structures_ != 0 || !adoptions_.empty() || (run.may_hold & kWatchEscape) != 0)
      return {};
    StreamState& stream = *route->stream;
    const TimeOfDayLayout& layout = *route->layout;
    StampRunWalker& walker = run_walker(*route, head, layout);
    if (!run.without_stamps && !walker.starts(run)) return {};
    if (!stream.last_stamp || !stream.awaiting_upper_bound.empty()) return {};
    CivilTime day = layout.date;
    day.hour = day.minute = day.second = day.micros = 0;
    // The first line's step back is measured from the stream's last stamp, in a year's seconds.
    const long long floor = stream.last_stamp->year == day.year
                                ? year_seconds(*stream.last_stamp) - 60 - year_seconds(day)
                                : std::numeric_limits<long long>::min();
    // Lines with a fact's anchor on the route are taken too where on_routed_line() would take
    // them (not a route of NCCL's head, and not where every line may hold a structure).
    RunAnchors anchors(*this, *route, run);
    const bool with_anchors =
        run.triggers != nullptr && !route->nccl_host && (run.may_hold & (kWatchEscape | kWatchStructure)) == 0;
    const StampRunWalk walk =
        run.without_stamps
            ? walker.walk_lines(run, floor, !reported_backwards_, with_anchors ? &anchors : nullptr)
            : walker.walk(run, floor, !reported_backwards_);
    if (walk.lines > 0) {
      CivilTime last = day;
      last.hour = walk.last.hour;
      last.minute = walk.last.minute;
      last.second = walk.last.second;
      last.micros = walk.last.micros;
      result_.stamped_lines += walk.lines;
      result_.last_stamp = last;
      if (last.year != 0 && result_.first_full_year == 0) {
        result_.first_full_year = last.year;
        result_.first_full_month = last.month;
      }
      stream.last_stamp = last;
    }
    // A walk by stamp hits takes one hit a stamped line; one by line ends counted every line.
    if (run.without_stamps) return {walk.bytes, walk.hits, walk.lines};
    return {walk.bytes, walk.lines, 0};
  }

  // The walker for runs of `route`'s lines (its `head` and `layout`). Routes to the same stream
  // that read the same from their lines (a level word before the stamp makes a route per
  // level) share one, so that a run goes on across them; any other route starts another.
  StampRunWalker& run_walker(const StampRoute<StreamState>& route, std::string_view head, const TimeOfDayLayout& layout) {
    if (walks_writer_of(route) &&
        (stamp_run_walker_->has_route(head, layout) || stamp_run_walker_->add_route(head, layout)))
      return *stamp_run_walker_;
    walker_route_ = route;
    return stamp_run_walker_.emplace(head, layout);
  }

  // Whether there is a walker and `route`'s lines go where its first route's go, read alike.
  bool walks_writer_of(const StampRoute<StreamState>& route) const {
    const StampRoute<StreamState>& w = walker_route_;
    return stamp_run_walker_ && w.stream == route.stream && w.named_at == route.named_at && w.body_at == route.body_at &&
           w.launcher == route.launcher && w.srun_task == route.srun_task && w.nccl_host == route.nccl_host;
  }

  // A run's line of its route whose triggers are all facts' anchors (no needle): what on_line()
  // and on_routed_line() would do with it, its stamp left to the run (StampRunWalker).
  AnchorLines::Verdict take_anchor_line(const StampRoute<StreamState>& route, const StampRun& run,
                                        std::string_view line, std::uint64_t number, const TriggerScanner::Hit* first,
                                        const TriggerScanner::Hit* last) {
    std::uint8_t may_hold = run.may_hold;
    bool anchor = false;
    for (const TriggerScanner::Hit* h = first; h != last; ++h) {
      // A needle's rules, or a search that could not say what it found: the full path.
      if (h->needle || h->literal == TriggerScanner::kStamp) return AnchorLines::Verdict::Stop;
      may_hold |= run.triggers->watch_bits(h->literal);
      anchor = anchor || run.triggers->may_be_anchor(h->literal);
    }
    if ((may_hold & (kWatchEscape | kWatchStructure)) != 0) return AnchorLines::Verdict::Stop;
    StreamState& stream = *route.stream;
    stream.last_line = number;
    if (!anchor) return AnchorLines::Verdict::Take;
    stream.config.feed(line.substr(route.body_at), number, stream.rank >= 0 ? stream.rank : file_.hint.rank, facts_,
                       (may_hold & kWatchGpu) != 0);
    update_busy(stream);  // an arguments dump may start here: its lines are not a run's
    return open_structures_ != 0 ? AnchorLines::Verdict::TakeLast : AnchorLines::Verdict::Take;
  }

  class RunAnchors final : public AnchorLines {
   public:
    RunAnchors(FileAnalyzer& analyzer, const StampRoute<StreamState>& route, const StampRun& run)
        : analyzer_(analyzer), route_(route), run_(run) {}
    Verdict on_anchor_line(std::string_view line, std::uint64_t number, const TriggerScanner::Hit* first,
                           const TriggerScanner::Hit* last) override {
      return analyzer_.take_anchor_line(route_, run_, line, number, first, last);
    }

   private:
    FileAnalyzer& analyzer_;
    const StampRoute<StreamState>& route_;
    const StampRun& run_;
  };

  // The shortcut of a quiet line with a needle or a fact's anchor: routed by its head like a
  // stamp-only line, its body given to the rules (or found in UnmatchedLines) and to the
  // stream's fact extractor, as on_line() would. False, for the full path: no route, a body
  // NCCL's head may make count (RankMentions), or a rule matched (an event to build).
  bool on_routed_line(const LineView& line, const LineHit& hit) {
    const StampRoute<StreamState>* route = stamp_routes_.find(line.text.substr(0, hit.stamp_at + 1));
    if (route == nullptr || route->nccl_host) return false;
    const std::string_view body = line.text.substr(route->body_at);
    if (hit.needle && !unmatched_.seen(body, hit.stamp_at - route->body_at)) {
      if (!matcher_.match(body, AppliesTo::Line, hit.candidates).empty()) return false;
      unmatched_.remember();
    }
    if (!take_routed_stamp(*route, line)) return false;
    if (hit.may_anchor) {
      StreamState& stream = *route->stream;
      stream.config.feed(body, line.number, stream.rank >= 0 ? stream.rank : file_.hint.rank, facts_,
                         (hit.may_hold & kWatchGpu) != 0);
      update_busy(stream);  // an arguments dump may start here
    }
    ready_stamp_run(*route);
    return true;
  }

  // The stamp of a line on `route`, read where the route says and given to its stream. False,
  // with nothing done: no stamp there.
  bool take_routed_stamp(const StampRoute<StreamState>& route, const LineView& line) {
    std::optional<CivilTime> stamp;
    if (route.layout) stamp = read_time_with_layout(*route.layout, line.text);
    if (!stamp) stamp = parse_timestamp(line.text.substr(route.named_at));
    if (!stamp && route.body_at != route.named_at) stamp = parse_timestamp(line.text.substr(route.body_at));
    if (!stamp) return false;
    route.stream->last_line = line.number;
    on_stamp(*stamp, *route.stream, route.launcher, route.srun_task, line.number);
    return true;
  }

  // Keeps the route of a quiet line that was routed in full, when its head alone decided
  // it: every prefix ends before the stamp (the head holds them and the byte after), and the
  // stamp was read from the body, where the shortcut reads it.
  void keep_stamp_route(std::string_view text, std::uint32_t stamp_at, std::string_view named_body,
                        std::string_view body, StreamState& stream, bool launcher, int srun_task,
                        bool nccl_host) {
    const std::size_t named_at = static_cast<std::size_t>(named_body.data() - text.data());
    const std::size_t body_at = static_cast<std::size_t>(body.data() - text.data());
    if (named_at > stamp_at || body_at > stamp_at || !stamp_routes_.has_room()) return;
    std::optional<TimeOfDayLayout> layout = learn_time_layout(text, named_at, stamp_at);
    // A stamp behind a learnt prefix (Ray's `(RayTrainWorker pid=...) `, MPI's `[1,3]<stdout>:`,
    // a per-host file's `node012: `) is read from the body, where on_line() reads it when the
    // named body can hold none: its first bytes, which the head holds, rule one out.
    if (!layout && body_at != named_at) {
      const std::size_t gate = stamp_gate_end(named_body);
      if (gate != std::string_view::npos && named_at + gate <= stamp_at + 1)
        layout = learn_time_layout(text, body_at, stamp_at);
    }
    stamp_routes_.keep(text.substr(0, stamp_at + 1),
                       StampRoute<StreamState>{&stream, static_cast<std::uint32_t>(named_at),
                                               static_cast<std::uint32_t>(body_at), launcher, srun_task,
                                               layout, nccl_host});
  }

  // `launcher`: the line has no rank or tee prefix (the launcher agent, srun, slurmstepd).
  void on_stamp(const CivilTime& stamp, StreamState& stream, bool launcher, int srun_task,
                std::uint64_t line_number) {
    ++result_.stamped_lines;
    if (stream.last_stamp && year_seconds(stamp) + 60 < year_seconds(*stream.last_stamp) &&
        stamp.year == stream.last_stamp->year && !reported_backwards_) {
      reported_backwards_ = true;
      diags_.add(Severity::Info, "timeline.time-went-backwards",
                 "a timestamp is " + std::to_string(year_seconds(*stream.last_stamp) - year_seconds(stamp)) +
                     " s earlier than the one before it in the same stream",
                 file_.display_path, line_number,
                 "a clock step (NTP), or logs of another node or an earlier run appended to this "
                 "file: order by time, not by line");
    }
    if (!result_.first_stamp) result_.first_stamp = stamp;
    result_.last_stamp = stamp;
    if (stamp.year != 0 && result_.first_full_year == 0) {
      result_.first_full_year = stamp.year;
      result_.first_full_month = stamp.month;
    }
    stream.last_stamp = stamp;
    resolve_upper_bounds(stream, stamp);
    // An unprefixed stamped line (the launcher agent, srun, slurmstepd) also bounds the
    // tracebacks of every worker stream under the same srun task: the agent logs a worker's
    // exit after the worker printed its traceback.
    // (Only a stream with an event awaiting its bound, or inside a traceback, takes one.)
    if (launcher && (awaiting_total_ > 0 || open_structures_ > 0)) {
      for (auto& [key, other] : streams_)
        if (&other != &stream && other.srun_task == srun_task) resolve_upper_bounds(other, stamp);
    }
  }

  void resolve_upper_bounds(StreamState& stream, const CivilTime& stamp) {
    if (stream.builder.past_exception() && !stream.bound_since_exception)
      stream.bound_since_exception = stamp;
    for (std::size_t index : stream.awaiting_upper_bound) {
      result_.events[index].before_civil = stamp;
      --awaiting_total_;
    }
    stream.awaiting_upper_bound.clear();
  }

  Event make_event(EventKind kind, std::uint64_t line, std::uint64_t offset,
                   const StreamState& stream, const std::optional<CivilTime>& stamp) {
    Event e;
    e.kind = kind;
    e.origin = Origin{file_.id, line, offset};
    e.last_line = line;
    if (stamp) {
      e.civil = stamp;
      e.time.source = TimeSource::Explicit;
    } else if (stream.last_stamp) {
      // Only the event's own stream: in a file where several writers were appended one after
      // another (merged per-node logs), another stream's stamp says nothing about this one.
      e.civil = stream.last_stamp;
      e.time.source = TimeSource::Inherited;
    }
    e.who.rank = stream.rank >= 0 ? stream.rank : file_.hint.rank;
    e.who.local_rank = stream.tee_local_rank >= 0 ? stream.tee_local_rank : file_.hint.local_rank;
    e.who.task = stream.srun_task >= 0 ? stream.srun_task : file_.hint.task;
    e.who.host = stream.host.empty() ? file_.hint.host : stream.host;
    return e;
  }

  void push(Event e, StreamState& stream, bool explicit_time) {
    result_.events.push_back(std::move(e));
    if (!explicit_time) {
      stream.awaiting_upper_bound.push_back(result_.events.size() - 1);
      ++awaiting_total_;
    }
  }

  void drain(StreamState& stream) {
    while (stream.builder.has_ready()) {
      Traceback tb = stream.builder.take();
      // A headerless traceback is placed at its first exception line: where the excerpt or cut
      // log begins says nothing, the exception line is what a reader looks for.
      const bool at_exception = tb.headerless && !tb.blocks.front().exception.empty();
      Event e = make_event(EventKind::Traceback,
                           at_exception ? tb.blocks.front().exception_line : tb.first_line,
                           at_exception ? tb.blocks.front().exception_offset : tb.first_offset, stream,
                           std::nullopt);
      // The header line carries no stamp; the stream's last stamp is a lower bound.
      e.last_line = tb.last_line;
      report_caps(tb);
      choose_matches(tb, e);
      e.traceback = std::move(tb);
      bool bounded = stream.bound_since_exception.has_value();
      if (bounded) e.before_civil = stream.bound_since_exception;
      stream.bound_since_exception.reset();
      push(std::move(e), stream, bounded);
    }
  }

  // A cap of TracebackLimits was hit: never a silent cut. Repeats fold into the first (count).
  void report_caps(const Traceback& tb) {
    const TracebackLimits& lim = options_.traceback;
    for (const auto& b : tb.blocks) {
      if (b.frames_truncated)
        diags_.add(Severity::Info, "extract.frames-capped",
                   "traceback has " + std::to_string(b.frames_seen) + " frames; kept " +
                       std::to_string(b.frames.size()) + " (limit " + std::to_string(lim.max_frames) +
                       ": the outermost few and the innermost rest)",
                   file_.display_path, b.header_line, "raise it with --max-frames");
      if (b.message_truncated)
        diags_.add(Severity::Info, "extract.message-capped",
                   "exception message cut to " + std::to_string(lim.max_message_lines) +
                       " continuation lines and " + std::to_string(lim.max_text_bytes) +
                       " bytes per part (the per-event limits)",
                   file_.display_path, b.exception_line, "raise it with --max-message-bytes");
    }
  }

  // How much a block's matches say about the failure: 0 no rule; 1 a symptom, teardown or
  // context rule; 2 a cause rule of category unknown (a generic error); 3 a family catch-all that
  // names a category (any `*OutOfMemoryError`: a wrapper re-raising an OOM is named so too);
  // 4 a specific cause rule that names a category (oom, shape, import, nccl).
  static constexpr int kMostSpecific = 4;
  int block_specificity(const std::vector<RuleMatch>& matches) const {
    if (matches.empty()) return 0;
    const Rule& rule = matcher_.rules()[static_cast<std::size_t>(matches.front().rule_index)];
    if (rule.role != RuleRole::Cause) return 1;
    if (rule.category == Category::Unknown) return 2;
    return has_tag(rule.tags, rule_tag::kFamilyFallback) ? 3 : kMostSpecific;
  }

  // Picks the block that decides what this traceback is (see root_cause.h for the policy): the
  // most specific block (block_specificity), the first of equals: in a chain the first
  // exception is the cause, unless a later one names the failure and it does not (a generic
  // wrapper around a CUDA OOM, a RuntimeError re-raising an ImportError); an embedded block
  // (printed inside its wrapper's message) over its wrapper when as specific; else the first.
  // When the chosen block's rule matched an exception line embedded in the message (the
  // wrapper's text carrying the inner error), that line is the event's text.
  void choose_matches(Traceback& tb, Event& e) {
    int chosen = -1;
    int chosen_specificity = 0;
    std::vector<RuleMatch> chosen_matches;
    for (std::size_t i = 0; i < tb.blocks.size(); ++i) {
      auto& b = tb.blocks[i];
      if (b.exception.empty()) continue;
      b.exception = valid_text(b.exception, b.exception_line);
      b.message_tail = valid_text(b.message_tail, b.exception_line);
      std::vector<RuleMatch> matches = matcher_.match(block_text(b), AppliesTo::Exception);
      int specificity = block_specificity(matches);
      // An error printed inside the chosen block's message (a wrapper's) replaces it unless it
      // says less: the inner error is the cause.
      bool inner = b.embedded && chosen == static_cast<int>(i) - 1 && specificity >= chosen_specificity;
      if (chosen < 0 || specificity > chosen_specificity || inner) {
        chosen = static_cast<int>(i);
        chosen_specificity = specificity;
        chosen_matches = std::move(matches);
      }
      if (specificity == kMostSpecific) break;  // nothing later can say more
    }
    e.matches = std::move(chosen_matches);
    e.decisive_block = chosen;
    if (chosen < 0) return;
    const ExceptionBlock& b = tb.blocks[static_cast<std::size_t>(chosen)];
    e.text = b.exception;
    if (!e.matches.empty() && !b.message_tail.empty()) {
      if (std::optional<std::string_view> inner = embedded_match(b, e.matches.front().rule_index))
        e.text = std::string(*inner);
    }
  }

  // The exception line inside `b`'s message tail that rule `rule` matches, when the block's own
  // exception line does not: the wrapped error. Tracebacks with a message tail are rare, so
  // the extra matches cost nothing on the hot path.
  std::optional<std::string_view> embedded_match(const ExceptionBlock& b, int rule) const {
    auto matches_rule = [&](std::string_view text) {
      for (const RuleMatch& m : matcher_.match(text, AppliesTo::Exception))
        if (m.rule_index == rule) return true;
      return false;
    };
    if (matches_rule(b.exception)) return std::nullopt;
    for (std::string_view line : embedded_exception_lines(b.message_tail))
      if (matches_rule(line)) return line;
    return std::nullopt;
  }

  // A ChildFailedError entry is attributed to the child it names; its time is the one printed
  // on its `time` row.
  void on_child_failure_table(std::string_view body, const LineView& line, StreamState& stream,
                              const std::optional<CivilTime>& stamp) {
    if (!child_failures_.feed(body, line.number, line.offset, stamp)) return;
    const ChildFailureEntry& entry = child_failures_.entry();
    const ChildFailure& child = entry.child;
    Event e = make_event(EventKind::ChildFailure, entry.first_line, entry.first_offset, stream, entry.stamp);
    e.last_line = line.number;
    e.child = child;
    e.who.rank = child.rank;
    e.who.local_rank = child.local_rank;
    e.who.host = short_host(child.host);
    e.text = "rank " + std::to_string(child.rank) + " exitcode " + std::to_string(child.exitcode);
    result_.events.push_back(std::move(e));
  }

  const SourceFile& file_;
  const RuleMatcher& matcher_;
  const AnalyzeOptions& options_;
  DiagnosticSink& diags_;
  ChunkedHits* chunked_ = nullptr;
  FileResult result_;
  std::map<StreamKey, StreamState> streams_;  // by key: a fixed order for finish and hosts
  PrefixLearner learner_;
  std::vector<PrefixLearner::Layer> layers_;  // the current line's learnt prefixes (views into it)
  // Streams whose lines continue the traceback of a stream opened behind a learnt prefix
  // (route()): parent key -> the child's learnt writer.
  struct Adoption {
    std::uint64_t child = 0;        // the learnt writer of the adopting stream
    std::uint64_t header_line = 0;  // its traceback's header
    bool active = false;            // the parent's lines go to it
  };
  std::map<StreamKey, Adoption> adoptions_;
  std::size_t learnt_streams_ = 0;  // streams with a learnt writer
  std::optional<StreamKey> adopt_from_;  // the current line's parent, when it carries a learnt prefix
  std::size_t awaiting_total_ = 0;
  std::vector<StreamKey> busy_keys_;  // the busy streams: open_structures_ is their number
  std::uint64_t next_stale_check_ = 0;  // end_stale_tracebacks()
  std::uint64_t escapes_line_ = 0;  // on_escapes_removed(): the first line (0: none)
  bool reported_utf8_ = false;
  bool reported_backwards_ = false;
  FactKeeper facts_;  // what the streams' fact extractors read, as the file keeps it
  ChildFailureTable child_failures_;
  RankMentions rank_mentions_;
  StampRoutes<StreamState> stamp_routes_;
  std::optional<StampRunWalker> stamp_run_walker_;  // set up for the routes of the last runs walked
  StampRoute<StreamState> walker_route_;             // the first of them (run_walker())
  UnmatchedLines unmatched_;
  std::string record_text_;  // the current line's decoded JSON record (on_line), reused
};

std::unique_ptr<TriggerScanner> make_trigger_scanner(const RuleMatcher& matcher, DiagnosticSink& diags,
                                                     TriggerScanner::Engine engine, const RunCache* cache) {
  std::vector<std::pair<std::string, int>> rule_needles;
  std::vector<std::string> anchors;
  if (!matcher.line_needles(rule_needles)) return nullptr;
  std::vector<TriggerScanner::Needle> needles;
  for (auto& [text, rule] : rule_needles) needles.push_back({std::move(text), rule});
  // Escapes are stripped before matching, which can join a needle's pieces: such a line is
  // treated as one that may hold a needle (which ones, the matcher finds on the plain text).
  needles.push_back({"\x1b", -1});
  for (std::string_view l : kTracebackAnchors) anchors.emplace_back(l);
  const auto& facts = ConfigExtractor::trigger_literals();
  anchors.insert(anchors.end(), facts.begin(), facts.end());
  for (std::string_view l : ChildFailureTable::trigger_literals()) anchors.emplace_back(l);
  for (std::string_view l : kHostLines) anchors.emplace_back(l);
  auto scanner = std::make_unique<TriggerScanner>(needles, anchors, diags, engine, cache);
  if (!scanner->ok()) return nullptr;
  scanner->watch(watched_texts());
  return scanner;
}

FileResult analyze_source(const SourceFile& file, ByteSource& source, const RuleMatcher& matcher,
                          const AnalyzeOptions& options, DiagnosticSink& diags, ChunkedHits* chunked) {
  FileAnalyzer analyzer(file, matcher, options, diags, chunked);
  FileResult result = analyzer.run(source);
  result.file = file;  // with the compression, known once the file was first read
  return result;
}

namespace {

// analyze_source for a file that is moved into the result once analysed.
FileResult analyze_taken(SourceFile& file, ByteSource& source, const RuleMatcher& matcher,
                         const AnalyzeOptions& options, DiagnosticSink& diags, ChunkedHits* chunked = nullptr) {
  FileAnalyzer analyzer(file, matcher, options, diags, chunked);
  FileResult result = analyzer.run(source);
  result.file = std::move(file);
  return result;
}

}  // namespace

FileResult analyze_file(const SourceFile& listed, const RuleMatcher& matcher,
                        const AnalyzeOptions& options) {
  return analyze_file(SourceFile(listed), matcher, options);
}

FileResult analyze_file(SourceFile&& file, const RuleMatcher& matcher, const AnalyzeOptions& options) {
  DiagnosticSink diags;
  // A file that may be read in chunks must know its compression before it is read.
  const bool may_chunk = options.triggers != nullptr && options.triggers->ok() &&
                         (options.chunk_helpers > 0 || options.defer_chunkable);
  std::uint64_t sniff_at_open_above = 1 << 20;
  if (may_chunk) sniff_at_open_above = std::min<std::uint64_t>(sniff_at_open_above, 2 * options.chunk_bytes);
  std::unique_ptr<ByteSource> source = open_source(file, options.read, diags, sniff_at_open_above);
  if (!source) {
    FileResult result;
    result.unopened = true;
    result.diagnostics = diags.take();
    result.file = std::move(file);
    return result;
  }
  if (may_chunk && file.compression == Compression::None && file.size_bytes > 2 * options.chunk_bytes) {
    if (options.defer_chunkable) {
      FileResult result;
      result.deferred = true;
      result.file = std::move(file);
      return result;
    }
    ChunkedHits chunked(file.path, file.size_bytes, *options.triggers, options.chunk_bytes,
                        options.split.max_line_bytes, options.chunk_helpers);
    ChunkSource from_chunks(chunked, std::move(source), file, diags);
    return analyze_taken(file, from_chunks, matcher, options, diags, &chunked);
  }
  return analyze_taken(file, *source, matcher, options, diags);
}

// The bytes fed so far and not yet taken by the splitter. Reading 0 means "nothing more for
// now": the splitter follows (LineSplitter::follow()).
class IncrementalAnalyzer::AppendedBytes : public ByteSource {
 public:
  std::size_t read(char* buffer, std::size_t capacity) override {
    std::size_t n = std::min(capacity, bytes_.size() - taken_);
    std::memcpy(buffer, bytes_.data() + taken_, n);
    taken_ += n;
    if (taken_ == bytes_.size()) {
      bytes_.clear();
      taken_ = 0;
    }
    return n;
  }
  void append(std::string_view bytes) { bytes_.append(bytes); }
  /// The bytes not yet read.
  std::string_view unread() const { return std::string_view(bytes_).substr(taken_); }

 private:
  std::string bytes_;
  std::size_t taken_ = 0;
};

IncrementalAnalyzer::IncrementalAnalyzer(SourceFile file, const RuleMatcher& matcher,
                                         const AnalyzeOptions& options)
    : file_(std::move(file)), matcher_(matcher), options_(options),
      appended_(std::make_unique<AppendedBytes>()),
      analyzer_(std::make_unique<FileAnalyzer>(file_, matcher, options_, diags_)) {
  options_.bytes_done = nullptr;  // progress counts one-shot reads only
  options_.chunk_helpers = 0;
  options_.defer_chunkable = false;
}

IncrementalAnalyzer::~IncrementalAnalyzer() = default;

void IncrementalAnalyzer::start(bool ended) {
  SearchOptions search;
  search.split = options_.split;
  search.triggers = options_.triggers;
  search.follow = true;
  search.strip_escapes = true;
  searcher_ = std::make_unique<LineSearcher>(*appended_, diags_, file_.display_path, search);
  if (ended) searcher_->end_input();
  switch (searcher_->start()) {
    case SourceStart::Empty: skipped_ = true; break;
    case SourceStart::Binary: skipped_ = true; analyzer_->mark_binary(); break;
    case SourceStart::OwnReport: skipped_ = true; analyzer_->mark_own_report(); break;
    case SourceStart::Lines: analyzer_->learn_head(searcher_->head()); break;
  }
}

void IncrementalAnalyzer::feed(std::string_view bytes) {
  if (skipped_ || finished_) return;  // a binary file is not read on (nor is it one-shot)
  appended_->append(bytes);
  if (!searcher_) {
    // The head decides binary or not, as in a one-shot read: wait until all of it is here.
    if (appended_->unread().size() < LineSearcher::kHeadBytes) return;
    start(/*ended=*/false);
    if (skipped_) return;
  }
  searcher_->search(*analyzer_);
}

FileResult IncrementalAnalyzer::snapshot() const {
  if (!searcher_) {
    // Head still undecided (under 4 KiB so far): the file as if it ended after its last
    // complete line, read one-shot (cheap at this size).
    std::string_view held = appended_->unread();
    std::size_t last_newline = held.rfind('\n');
    if (last_newline == std::string_view::npos) {
      FileResult nothing;
      nothing.file = file_;
      return nothing;
    }
    DiagnosticSink diags;
    std::unique_ptr<ByteSource> source = memory_source(std::string(held.substr(0, last_newline + 1)),
                                                       Compression::None, file_.display_path, diags);
    return analyze_source(file_, *source, matcher_, options_, diags);
  }
  // The copy ends its open tracebacks as if the file ended here, which may add diagnostics
  // (a capped message): the live analyzer must not keep them, or the next snapshot counts twice.
  const DiagnosticSink live = diags_;
  FileAnalyzer copy = *analyzer_;
  FileResult result = skipped_ ? copy.finish_all(0, 0, /*keep_diagnostics=*/true)
                               : copy.finish_all(searcher_->bytes_split(), searcher_->lines_read(),
                                                 /*keep_diagnostics=*/true);
  diags_ = live;
  result.file = file_;
  return result;
}

FileResult IncrementalAnalyzer::finish() {
  finished_ = true;
  if (!searcher_) {
    start(/*ended=*/true);
  } else if (!skipped_) {
    searcher_->end_input();
  }
  FileResult result;
  if (skipped_) {
    result = analyzer_->finish_all(0, 0);
  } else {
    searcher_->search(*analyzer_);
    result = analyzer_->finish_all(searcher_->bytes_read(), searcher_->lines_read());
  }
  result.file = file_;
  return result;
}

void apply_year(FileResult& result, int year) {
  auto resolve = [&](const CivilTime& civil) -> std::optional<std::int64_t> {
    CivilTime t = civil;
    if (t.year == 0) {
      t.year = year;
      // A job that crosses New Year: December stamps before a January reference and vice versa.
      if (result.first_full_month == 12 && t.month == 1) t.year = year + 1;
      if (result.first_full_month == 1 && t.month == 12) t.year = year - 1;
    }
    return civil_to_us(t);
  };
  if (result.first_stamp) result.first_stamp_us = resolve(*result.first_stamp);
  if (result.last_stamp) result.last_stamp_us = resolve(*result.last_stamp);
  for (auto& e : result.events) {
    if (e.civil) {
      auto us = resolve(*e.civil);
      if (us) {
        e.time.us = *us;
        e.time.year_inferred = e.civil->year == 0;
      } else {
        e.time.source = TimeSource::None;
      }
    }
    if (e.before_civil) {
      e.before_us = resolve(*e.before_civil);
      if (e.before_civil->year == 0) e.time.year_inferred = true;
    }
  }
}

}  // namespace megatriage
