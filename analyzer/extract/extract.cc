#include "extract/extract.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>

#include "base/text_util.h"
#include "extract/line_prefix.h"
#include "extract/megatron_config.h"
#include "extract/timestamp.h"
#include "model/fact_registry.h"
#include "scan/chunk_scan.h"

namespace megatriage {
namespace {

constexpr std::size_t kMaxEventText = 2048;
constexpr std::size_t kPeekBytes = 4096;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// A stream is one writer inside a file: the combination of prefixes that names it. The parsers
// cap srun task ids and tee local ranks at 6 digits (+1 < 2^20) and ranks at 7 (+1 < 2^24), so
// the fields never collide.
std::uint64_t stream_key(const LinePrefix& p) {
  auto part = [](int v, unsigned bits) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(v + 1)) & ((std::uint64_t{1} << bits) - 1);
  };
  return (part(p.srun_task, 20) << 44) | (part(p.tee_local_rank, 20) << 24) | part(p.rank, 24);
}

struct StreamState {
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
};

int parse_int(std::string_view s) {
  s = trim_spaces(s);
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  (void)p;
  return ec == std::errc() ? v : -1;
}

// ChildFailedError table lines, as torchelastic formats them: two spaces, the field name
// left-aligned in ten columns, ':' (`  rank      : 3 (local_rank: 1)`). The same strings are
// the fast path's triggers for these lines.
constexpr std::string_view kTimeField = "  time      :", kHostField = "  host      :",
                           kRankField = "  rank      :", kExitcodeField = "  exitcode  :";
constexpr std::string_view kTableFields[] = {kTimeField, kHostField, kRankField, kExitcodeField};
constexpr std::string_view kTableHeads[] = {"Failures:", "Root Cause (first observed failure)"};

bool table_field(std::string_view body, std::string_view field, std::string_view& value) {
  if (body.size() <= field.size() || !starts_with(body, field)) return false;
  value = trim_spaces(body.substr(field.size()));
  return true;
}

// NCCL lines a stream's host is taken from: every rank prints some of these at init, and every
// warning. (Not any NCCL line: the fast path would then have to visit all NCCL INFO chatter.)
// Without the common `NCCL INFO ` head: a trigger that starts like the noise slows the search
// by a third (measured with tools/bench's tree a).
constexpr std::string_view kHostLines[] = {"NCCL WARN", "Bootstrap", "cudaDriverVersion", "NCCL version",
                                           "Init COMPLETE"};

bool names_host(std::string_view body) {
  for (std::string_view l : kHostLines)
    if (body.find(l) != std::string_view::npos) return true;
  return false;
}

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

// Runs the per-line extractors over one file's lines. Copyable, so that a watcher can take a
// snapshot "as if the file ended now" without disturbing the live state.
// Texts the trigger search watches per line (TriggerScanner::watch), so that a line known not
// to hold them skips the look for them: bit 0 ESC (terminal escapes to strip), the next bits
// ConfigExtractor::gpu_vendor_literals() (the GPU model scan).
std::vector<std::string> watched_texts() {
  std::vector<std::string> watched{"\x1b"};
  for (const std::string& l : ConfigExtractor::gpu_vendor_literals()) watched.push_back(l);
  return watched;
}
constexpr std::uint8_t kWatchEscape = 1;
const std::uint8_t kWatchGpu = static_cast<std::uint8_t>(((1U << watched_texts().size()) - 1) & ~1U);
constexpr std::uint8_t kWatchAll = 0xff;

class FileAnalyzer {
 public:
  FileAnalyzer(const SourceFile& file, const RuleMatcher& matcher, const AnalyzeOptions& options,
               DiagnosticSink& diags, ChunkedHits* chunked = nullptr)
      : file_(file), matcher_(matcher), options_(options), diags_(diags), chunked_(chunked) {}

  FileResult run(ByteSource& source) {
    // One buffer from the first read on: a small file is read by a single read(2).
    LineSplitter splitter(source, diags_, file_.display_path, options_.split);
    const std::string_view head = splitter.head(kPeekBytes);
    if (head.empty()) {
      diags_.add(Severity::Info, "read.empty-file", "file is empty", file_.display_path);
      return finish_result();
    }
    if (looks_binary(head)) {
      result_.binary = true;
      diags_.add(Severity::Warning, "read.binary-file",
                 "file looks binary (control bytes or invalid UTF-8 in its first " +
                     std::to_string(head.size()) + " bytes); skipped",
                 file_.display_path, 0, "core dumps and checkpoints do not belong in logs/");
      return finish_result();
    }
    if (options_.triggers != nullptr && options_.triggers->ok()) {
      scan_triggered_lines(splitter, *options_.triggers);
    } else {
      LineView line;
      while (splitter.next(line)) analyze_line(line, true, true);
      if (options_.bytes_done != nullptr && file_.compression == Compression::None)
        options_.bytes_done->fetch_add(splitter.bytes_read(), std::memory_order_relaxed);
    }
    finish_streams();
    result_.bytes = splitter.bytes_read();
    result_.lines = splitter.lines_read();
    return finish_result();
  }

  /// Ends every stream (cut-off tracebacks included) and returns the result. With
  /// `keep_diagnostics` the shared sink keeps its items (snapshots).
  FileResult finish_all(bool keep_diagnostics = false) {
    finish_streams();
    return finish_result(keep_diagnostics);
  }

  void on_line(const LineView& line) {
    ++result_.lines;
    result_.bytes = line.offset + line.text.size() + 1;
    analyze_line(line, true, true);
  }

 private:
  // Ends the tracebacks still open at the end of the file, in stream-key order (a std::map: the
  // order must not depend on which streams exist, and the fast path creates fewer).
  void finish_streams() {
    for (auto& [key, stream] : streams_)
      if (stream.builder.finish()) drain(stream);
  }

  // The fast path: one trigger search per buffer of complete lines, then only the lines with a
  // hit are analysed, plus every line while some stream is busy (its traceback or arguments dump
  // needs lines that carry no trigger). Lines cut for length or holding NULs are always
  // analysed, so their diagnostics count the same as on the slow path.
  void scan_triggered_lines(LineSplitter& splitter, const TriggerScanner& triggers) {
    RawLine raw;
    const std::uint8_t uncertain = triggers.uncertain_watches();
    // One hit list per thread, reused from file to file: growing a new one cost ~5 allocations
    // a file on 9,000-file jobs. (A file is analysed by one thread from start to end.)
    thread_local std::vector<TriggerScanner::Hit> reused_hits;
    std::vector<TriggerScanner::Hit>& hits = reused_hits;
    hits.clear();
    std::size_t next_hit = 0;
    std::uint64_t hits_base = 0, scanned_end = 0;
    for (;;) {
      // Nothing busy: jump over the lines before the next hit (or the end of the searched text).
      if (busy_streams_ == 0 && scanned_end > 0)
        splitter.skip_lines_before(next_hit < hits.size() ? hits_base + hits[next_hit].end : scanned_end);
      if (!splitter.next_raw(raw)) break;
      // A cut line or one with NULs is always examined in full (its text changes in cleaning),
      // and its rules look for their needles themselves.
      bool hit = raw.cut || raw.has_nul, needle = hit, named = !hit, stamped = hit;
      std::uint8_t may_hold = hit ? kWatchAll : uncertain;  // watched texts the line may hold
      candidates_.clear();
      if (!raw.cut) {
        if (raw.offset >= scanned_end) {
          hits.clear();
          next_hit = 0;
          std::string_view region = splitter.lookahead(hits_base);
          if (chunked_ == nullptr || !chunked_->hits_in(hits_base, region.size(), hits))
            triggers.scan(region, hits);
          scanned_end = hits_base + region.size();
          if (options_.bytes_done != nullptr && file_.compression == Compression::None)
            options_.bytes_done->fetch_add(region.size(), std::memory_order_relaxed);
        }
        const std::uint64_t line_end = raw.offset + raw.size;
        while (next_hit < hits.size() && hits_base + hits[next_hit].end < raw.offset) ++next_hit;
        for (; next_hit < hits.size() && hits_base + hits[next_hit].end < line_end; ++next_hit) {
          const TriggerScanner::Hit& h = hits[next_hit];
          hit = true;
          stamped = stamped || h.literal == TriggerScanner::kStamp;
          // A needle hit without a literal is the failed search's "look at every line".
          may_hold |= h.needle && h.literal == TriggerScanner::kStamp ? kWatchAll : triggers.watch_bits(h.literal);
          if (!h.needle) continue;
          needle = true;
          // The rules that may want this line, from the literal found (a search that could not
          // say which one leaves the rules to look for their needles).
          named = named && h.literal != TriggerScanner::kStamp;
          const std::vector<int>& tags = triggers.needle_tags(h.literal);
          candidates_.insert(candidates_.end(), tags.begin(), tags.end());
        }
      }
      if (hit || busy_streams_ > 0) {
        if (named && candidates_.size() > 1) {
          std::sort(candidates_.begin(), candidates_.end());
          candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
        }
        analyze_line(splitter.clean(raw), hit, needle, named ? &candidates_ : nullptr, may_hold, stamped);
      }
    }
  }

  FileResult finish_result(bool keep_diagnostics = false) {
    // Hosts learnt from NCCL headers of a stream apply to all events of its rank (from the
    // stream with the smallest key when several name one).
    std::unordered_map<int, const std::string*> host_of_rank;
    for (auto& [key, s] : streams_)
      if (!s.host.empty() && s.rank >= 0) host_of_rank.try_emplace(s.rank, &s.host);
    for (auto& e : result_.events) {
      if (!e.who.host.empty() || e.who.rank < 0) continue;
      auto it = host_of_rank.find(e.who.rank);
      if (it != host_of_rank.end()) e.who.host = *it->second;
    }
    // Kept until the report: give back the growth slack (up to half the events' memory on a
    // 9,000-file job, and its page faults), for the next file to reuse.
    result_.events.shrink_to_fit();
    result_.diagnostics = keep_diagnostics ? diags_.items() : diags_.take();
    if (result_.first_full_year != 0) apply_year(result_, result_.first_full_year);
    return std::move(result_);
  }

  // `triggered`: the line holds a trigger (or every line is examined). Otherwise it can only
  // matter to a busy stream, and is dropped once its prefix names an idle one. `needle`: the
  // search saw where a rule's needle may be (or every line is examined); without that the
  // line holds no needle, so no rule can match it. `may_stamp`: the search saw an `HH:MM:SS`
  // (every stamp parse_timestamp() reads has one) or cannot tell.
  void analyze_line(const LineView& line, bool triggered, bool needle,
                    const std::vector<int>* candidates = nullptr, std::uint8_t may_hold = kWatchAll,
                    bool may_stamp = true) {
    std::string_view text = line.text;
    if ((may_hold & kWatchEscape) != 0 && std::memchr(text.data(), '\x1b', text.size()) != nullptr) {
      candidates = nullptr;  // the needles are looked for in the text without escapes
      may_stamp = true;      // and so is a stamp (an escape may have split one)
      // Coloured output (FORCE_COLOR, Python 3.13 tracebacks): match on the plain text.
      scratch_ = strip_terminal_escapes(text);
      text = scratch_;
      if (!reported_escapes_) {
        reported_escapes_ = true;
        diags_.add(Severity::Info, "extract.terminal-escapes",
                   "terminal escape sequences removed before matching", file_.display_path,
                   line.number);
      }
    }
    LinePrefix prefix = parse_prefix(text);
    std::string_view body = prefix.body;
    std::uint64_t key = stream_key(prefix);
    auto [it, inserted] = streams_.try_emplace(key);
    StreamState& stream = it->second;
    if (inserted) {
      stream.builder = TracebackBuilder(options_.traceback);
      stream.srun_task = prefix.srun_task;
      stream.tee_local_rank = prefix.tee_local_rank;
      stream.rank = prefix.rank;
    }
    if (!triggered && !stream.busy) return;
    if (!prefix.nccl_host.empty() && stream.host.empty() && names_host(body))
      stream.host = short_host(prefix.nccl_host);

    // Feed the traceback builder first: a stamped line that ends a traceback (the launcher's
    // `failed (exitcode ...)`) is that traceback's upper time bound.
    if (stream.builder.feed(body, line.number, line.offset)) drain(stream);

    // Time-of-day stamps and the fact anchors are part of the trigger search: a line without a
    // trigger (here only because its stream is inside a traceback) holds neither, and only an
    // open arguments dump wants every line.
    std::optional<CivilTime> stamp;
    if (triggered && may_stamp) stamp = parse_timestamp(body);
    if (stamp) on_stamp(*stamp, stream, prefix, line.number);

    if (triggered || stream.config.in_args_dump()) {
      std::size_t facts_before = new_facts_.size();
      stream.config.feed(body, line.number, stream.rank >= 0 ? stream.rank : file_.hint.rank, new_facts_,
                         (may_hold & kWatchGpu) != 0);
      if (new_facts_.size() != facts_before) keep_facts();
    }

    on_child_failure_table(body, line, stream, stamp);

    // match() looks for the rules' needles itself: a line without one costs one walk, no alloc.
    std::vector<RuleMatch> matches;
    if (needle) matches = matcher_.match(body, AppliesTo::Line, candidates);
    if (!matches.empty()) {
      Event e = make_event(EventKind::RuleLine, line.number, line.offset, stream, stamp);
      e.text = valid_text(body.substr(0, kMaxEventText), line.number);
      if (e.text != body) e.matched_line = std::make_shared<const std::string>(body);
      e.matches = std::move(matches);
      push(std::move(e), stream, stamp.has_value());
    }
    bool busy = stream.builder.active() || stream.config.in_args_dump();
    if (busy != stream.busy) {
      stream.busy = busy;
      if (busy) ++busy_streams_; else --busy_streams_;
    }
  }

  // Facts repeat (every iteration line, every GPU mention): keep the first value of a
  // configuration key, the latest progress figures, and one memory peak per rank, as the fact
  // registry says per key.
  void keep_facts() {
    for (auto& fact : new_facts_) {
      const FactMerge merge = fact_spec(fact.key).in_file;
      bool progress = merge == FactMerge::Latest;
      bool per_rank = merge == FactMerge::MaxPerRank;
      std::string slot = per_rank ? fact.key + "#" + std::to_string(fact.rank) : fact.key;
      auto [it, inserted] = fact_slots_.try_emplace(slot, result_.facts.size());
      if (inserted) {
        result_.facts.push_back(std::move(fact));
      } else if (progress) {
        result_.facts[it->second] = std::move(fact);
      } else if (per_rank && std::atof(fact.value.c_str()) > std::atof(result_.facts[it->second].value.c_str())) {
        result_.facts[it->second] = std::move(fact);
      }
    }
    new_facts_.clear();
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

  void on_stamp(const CivilTime& stamp, StreamState& stream, const LinePrefix& prefix,
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
    if (prefix.rank < 0 && prefix.tee_local_rank < 0) {
      for (auto& [key, other] : streams_)
        if (&other != &stream && other.srun_task == prefix.srun_task) resolve_upper_bounds(other, stamp);
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
      Event e = make_event(EventKind::Traceback, tb.first_line, tb.first_offset, stream,
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

  // Picks the block that decides what this traceback is (see root_cause.h for the policy):
  // the first block with a cause rule; else the first with any rule; else the first block.
  void choose_matches(Traceback& tb, Event& e) {
    int chosen = -1;
    std::vector<RuleMatch> chosen_matches;
    for (std::size_t i = 0; i < tb.blocks.size(); ++i) {
      auto& b = tb.blocks[i];
      if (b.exception.empty()) continue;
      b.exception = valid_text(b.exception, b.exception_line);
      b.message_tail = valid_text(b.message_tail, b.exception_line);
      std::string text = block_text(b);
      std::vector<RuleMatch> matches = matcher_.match(text, AppliesTo::Exception);
      bool is_cause = !matches.empty() &&
                      matcher_.rules()[static_cast<std::size_t>(matches.front().rule_index)].role == RuleRole::Cause;
      if (is_cause) {
        chosen = static_cast<int>(i);
        chosen_matches = std::move(matches);
        break;
      }
      if (chosen < 0 && !matches.empty()) {
        chosen = static_cast<int>(i);
        chosen_matches = std::move(matches);
      }
    }
    if (chosen < 0) {
      for (std::size_t i = 0; i < tb.blocks.size(); ++i)
        if (!tb.blocks[i].exception.empty()) { chosen = static_cast<int>(i); break; }
    }
    e.matches = std::move(chosen_matches);
    if (chosen >= 0) e.text = tb.blocks[static_cast<std::size_t>(chosen)].exception;
    e.decisive_block = chosen;
  }

  void on_child_failure_table(std::string_view body, const LineView& line, StreamState& stream,
                              const std::optional<CivilTime>& stamp) {
    if (body.size() < 8) return;
    if (body == "Failures:") { ++table_index_; in_root_section_ = false; return; }
    if (starts_with(body, "Root Cause (first observed failure)")) { in_root_section_ = true; return; }
    std::string_view value;
    if (table_field(body, kTimeField, value)) {
      pending_child_ = ChildFailure{};
      pending_child_stamp_ = stamp;
      pending_child_line_ = line.number;
      pending_child_offset_ = line.offset;
      have_pending_child_ = true;
    } else if (!have_pending_child_) {
      return;
    } else if (table_field(body, kHostField, value)) {
      pending_child_.host = std::string(value.substr(0, 256));
    } else if (table_field(body, kRankField, value)) {
      pending_child_.rank = parse_int(value.substr(0, value.find(' ')));
      auto lr = value.find("local_rank:");
      if (lr != std::string_view::npos) pending_child_.local_rank = parse_int(value.substr(lr + 11, value.find(')') - lr - 11));
    } else if (table_field(body, kExitcodeField, value)) {
      pending_child_.exitcode = parse_int(value.substr(0, value.find(' ')));
      auto pid = value.find("pid:");
      if (pid != std::string_view::npos) pending_child_.pid = parse_int(value.substr(pid + 4, value.find(')') - pid - 4));
      pending_child_.root_cause_section = in_root_section_;
      pending_child_.table_index = table_index_ - 1;
      Event e = make_event(EventKind::ChildFailure, pending_child_line_, pending_child_offset_, stream,
                           pending_child_stamp_);
      e.last_line = line.number;
      e.child = pending_child_;
      e.who.rank = pending_child_.rank;
      e.who.local_rank = pending_child_.local_rank;
      e.who.host = short_host(pending_child_.host);
      e.text = "rank " + std::to_string(pending_child_.rank) + " exitcode " +
               std::to_string(pending_child_.exitcode);
      result_.events.push_back(std::move(e));
      have_pending_child_ = false;
    }
  }

  const SourceFile& file_;
  const RuleMatcher& matcher_;
  const AnalyzeOptions& options_;
  DiagnosticSink& diags_;
  ChunkedHits* chunked_ = nullptr;
  FileResult result_;
  std::map<std::uint64_t, StreamState> streams_;  // by key: a fixed order for finish and hosts
  std::size_t awaiting_total_ = 0;
  std::size_t busy_streams_ = 0;
  std::string scratch_;
  std::vector<int> candidates_;  // the current line's candidate rules (scan_triggered_lines)
  bool reported_escapes_ = false;
  bool reported_utf8_ = false;
  bool reported_backwards_ = false;
  std::vector<Fact> new_facts_;
  std::unordered_map<std::string, std::size_t> fact_slots_;
  int table_index_ = 0;
  bool in_root_section_ = false;
  ChildFailure pending_child_;
  std::optional<CivilTime> pending_child_stamp_;
  std::uint64_t pending_child_line_ = 0, pending_child_offset_ = 0;
  bool have_pending_child_ = false;
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
  anchors.emplace_back("Traceback (most recent call last):");  // TracebackBuilder::is_header
  const auto& facts = ConfigExtractor::trigger_literals();
  anchors.insert(anchors.end(), facts.begin(), facts.end());
  for (std::string_view l : kTableFields) anchors.emplace_back(l);
  for (std::string_view l : kTableHeads) anchors.emplace_back(l);
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

IncrementalAnalyzer::IncrementalAnalyzer(SourceFile file, const RuleMatcher& matcher,
                                         const AnalyzeOptions& options)
    : file_(std::move(file)), options_(options),
      analyzer_(std::make_unique<FileAnalyzer>(file_, matcher, options_, diags_)) {}

IncrementalAnalyzer::~IncrementalAnalyzer() = default;

void IncrementalAnalyzer::feed(std::string_view bytes) {
  // The same line rules as LineSplitter: '\n' ends a line, CRLF and '\r' progress frames keep
  // the text after the last '\r', NULs become spaces, over-long lines keep their head.
  while (!bytes.empty()) {
    std::size_t nl = bytes.find('\n');
    std::string_view piece = bytes.substr(0, nl);
    std::size_t room = options_.split.max_line_bytes > partial_.size() ? options_.split.max_line_bytes - partial_.size() : 0;
    if (piece.size() > room) {
      if (!cut_) diags_.add(Severity::Warning, "split.line-too-long",
                            "line longer than " + std::to_string(options_.split.max_line_bytes) + " bytes; kept its head",
                            file_.display_path, line_number_ + 1);
      cut_ = true;
    }
    partial_.append(piece.substr(0, room));
    if (nl == std::string_view::npos) break;
    bytes.remove_prefix(nl + 1);
    std::string line = std::move(partial_);
    partial_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (auto cr = line.rfind('\r'); cr != std::string::npos) line.erase(0, cr + 1);
    for (auto& c : line)
      if (c == '\0') c = ' ';
    LineView view;
    view.text = line;
    view.number = ++line_number_;
    view.offset = offset_;
    view.cut = cut_;
    analyzer_->on_line(view);
    offset_ += line.size() + 1;  // approximate for cut/CR lines; only used for ordering ties
    cut_ = false;
  }
}

FileResult IncrementalAnalyzer::snapshot() const {
  FileAnalyzer copy = *analyzer_;
  FileResult result = copy.finish_all(/*keep_diagnostics=*/true);
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
