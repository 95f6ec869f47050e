#include "scan/line_searcher.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "input/own_report.h"
#include "scan/chunk_scan.h"

namespace megatriage {
namespace {

// Thread-local: a one-shot search runs one file from start to end on one thread.
thread_local std::vector<TriggerScanner::Hit> reused_hits;

// A time-of-day stamp that is nothing else (a needle hit without a literal is reported as a
// stamp with `needle` set).
bool is_plain_stamp(const TriggerScanner::Hit& h) { return h.literal == TriggerScanner::kStamp && !h.needle; }

}  // namespace

LineSearcher::LineSearcher(ByteSource& source, DiagnosticSink& diags, std::string display_path,
                           const SearchOptions& options)
    : splitter_(source, diags, display_path, options.split),
      diags_(diags),
      display_path_(std::move(display_path)),
      triggers_(options.triggers != nullptr && options.triggers->ok() ? options.triggers : nullptr),
      chunked_(options.chunked),
      max_line_(options.split.max_line_bytes),
      hits_(options.follow ? own_hits_ : reused_hits) {
  follow_ = options.follow;
  lazy_allowed_ = options.lazy_stamps;
  lazy_after_lines_ = std::max<std::uint64_t>(options.lazy_after_lines, 1);
  lazy_regions_ = options.lazy_regions;
  strip_escapes_ = options.strip_escapes;
  if (strip_escapes_ && triggers_ != nullptr) escape_literal_ = triggers_->find_literal("\x1b");
  if (follow_) splitter_.follow();
  hits_.clear();
}

SourceStart LineSearcher::start() {
  // One buffer from the first read on: a small file is read by a single read(2).
  const std::string_view head = splitter_.head(kHeadBytes);
  head_ = head;
  if (head.empty()) {
    diags_.add(Severity::Info, "read.empty-file", "file is empty", display_path_);
    return SourceStart::Empty;
  }
  // Before the binary test: a report saved with `--color always` holds escapes.
  if (const OwnReportKind own = own_report_kind(head); own != OwnReportKind::None) {
    diags_.add(Severity::Info, "read.own-report",
               std::string("megatriage's own ") + own_report_kind_name(own) + " report, not a log; skipped",
               display_path_, 0, "postmortem writes megatriage-<jobid>.json beside the logs; it is never read back");
    return SourceStart::OwnReport;
  }
  if (looks_binary(head)) {
    diags_.add(Severity::Warning, "read.binary-file",
               "file looks binary (control bytes or invalid UTF-8 in its first " +
                   std::to_string(head.size()) + " bytes); skipped",
               display_path_, 0, "core dumps and checkpoints do not belong in logs/");
    return SourceStart::Binary;
  }
  return SourceStart::Lines;
}

void LineSearcher::search(LineSink& sink) {
  splitter_.unpark();
  if (triggers_ != nullptr) {
    search_triggered(sink, *triggers_);
  } else {
    search_every_line(sink);
  }
  // Waiting for more bytes: `watch` follows every file of a job at once, and each keeps only
  // its partial line, not a buffer.
  if (follow_ && !splitter_.at_end()) splitter_.park();
}

void LineSearcher::search_every_line(LineSink& sink) {
  RawLine raw;
  const LineHit every;
  while (splitter_.next_raw(raw)) {
    raw.has_esc = strip_escapes_ && std::memchr(raw.data, '\x1b', raw.size) != nullptr;
    sink.on_line(splitter_.clean(raw), every);
  }
  if (bytes_done_ != nullptr && splitter_.at_end())
    bytes_done_->fetch_add(splitter_.bytes_read(), std::memory_order_relaxed);
}

// The fast path: one trigger search per buffer of complete lines, then only the lines with a
// hit are shown, plus every line while the sink wants them all. Lines cut for length or holding
// NULs are always shown, so their diagnostics count the same as when every line is examined.
void LineSearcher::search_triggered(LineSink& sink, const TriggerScanner& triggers) {
  RawLine raw;
  const std::uint8_t uncertain = triggers.uncertain_watches();
  std::vector<TriggerScanner::Hit>& hits = hits_;
  // Locals in the loop, members only between calls (a following searcher resumes from them).
  std::size_t next_hit = next_hit_;
  std::uint64_t hits_base = hits_base_, scanned_end = scanned_end_;
  for (;;) {
    // Nothing open: jump over the lines before the next hit (or the end of the searched text).
    if (!sink.wants_every_line() && scanned_end > 0) {
      // (Lazy stamps: the lines before the next hit may hold stamps not looked for yet.)
      find_stamps_before(next_hit < hits.size() ? hits_base + hits[next_hit].end : scanned_end, hits, next_hit,
                         hits_base, scanned_end);
      const bool on_hit_line =
          splitter_.skip_lines_before(next_hit < hits.size() ? hits_base + hits[next_hit].end : scanned_end);
      // A line with a trigger that is not a stamp is no stamp line: no look for its end.
      if (!on_hit_line || next_hit >= hits.size() || is_plain_stamp(hits[next_hit]))
        offer_stamp_lines(sink, hits, next_hit, hits_base, scanned_end, uncertain);
    }
    if (!splitter_.next_raw(raw)) break;
    // A cut line or one with NULs is always examined in full (its text changes in cleaning),
    // and its rules look for their needles themselves.
    LineHit line_hit;
    bool hit = raw.cut || raw.has_nul, needle = hit, named = !hit, stamped = hit;
    bool other = hit;               // a trigger that is not a stamp
    bool anchor = hit;              // a trigger that may be an anchor
    std::uint64_t first_stamp = 0;  // end offset of the first stamp (0: none)
    std::uint8_t may_hold = hit ? 0xff : uncertain;  // watched texts the line may hold
    candidates_.clear();
    if (!raw.cut) {
      if (raw.offset >= scanned_end) {
        hits.clear();
        next_hit = 0;
        std::string_view region = splitter_.lookahead(hits_base);
        const std::size_t region_bytes = region.size();  // as read (progress counts the input's)
        // The '\r' of CRLF line ends (and, once seen, escapes) removed before the search: the
        // lines are then plain, and take the stamp routes. A region with a '\r' loses its escapes
        // in the same pass, if it holds any: a second pass would move line starts whose shifts
        // the first recorded.
        if (!stripping_ && escape_literal_ != TriggerScanner::kStamp && splitter_.cr_ahead(raw)) {
          if (std::memchr(region.data(), '\x1b', region.size()) != nullptr) start_stripping();
        }
        if (splitter_.strip_ahead(raw, stripping_) != 0) region = splitter_.lookahead(hits_base);
        tell_escapes_removed(sink, raw, region, hits_base);
        // The hits searched ahead are of the input's bytes, of no use once some were removed.
        if (chunked_ != nullptr && splitter_.offsets_moved()) stop_chunked_search();
        // Lazy stamps where three lines in four of the last region (of `lazy_after_lines`, by
        // default 64, or more) were taken as runs; not for a followed file (its regions are a
        // few lines each).
        const std::uint64_t lines = splitter_.lines_read() - region_lines_;
        bool lazy = lazy_allowed_ && !follow_ && lines >= lazy_after_lines_ && 4 * region_run_lines_ >= 3 * lines;
        region_lines_ = splitter_.lines_read();
        region_run_lines_ = 0;
        if (chunked_ != nullptr && chunked_->hits_in(hits_base, region.size(), hits))
          lazy = false;  // searched ahead, stamps and all
        else
          triggers.scan(region, hits, !lazy);
        // Else escapes are first found by the search (in a region with no '\r', so untouched).
        if (!stripping_ && escape_literal_ != TriggerScanner::kStamp) {
          auto escape = std::find_if(hits.begin(), hits.end(),
                                     [&](const TriggerScanner::Hit& h) { return h.literal == escape_literal_; });
          if (escape != hits.end()) {
            start_stripping();
            hits.clear();
            if (splitter_.strip_ahead(raw, true) != 0) region = splitter_.lookahead(hits_base);
            tell_escapes_removed(sink, raw, region, hits_base);
            triggers.scan(region, hits, !lazy);
          }
        }
        scanned_end = hits_base + region.size();
        lazy_stamps_ = lazy;
        stamps_until_ = lazy ? hits_base : scanned_end;
        if (lazy && lazy_regions_ != nullptr) ++*lazy_regions_;
        if (bytes_done_ != nullptr) bytes_done_->fetch_add(region_bytes, std::memory_order_relaxed);
      }
      const std::uint64_t line_end = raw.offset + raw.size;
      while (next_hit < hits.size() && hits_base + hits[next_hit].end < raw.offset) ++next_hit;
      auto take = [&](const TriggerScanner::Hit& h) {
        hit = true;
        stamped = stamped || h.literal == TriggerScanner::kStamp;
        if (h.literal != TriggerScanner::kStamp || h.needle) {
          other = true;
          anchor = anchor || h.literal == TriggerScanner::kStamp || triggers.may_be_anchor(h.literal);
        }
        else if (first_stamp == 0)
          first_stamp = hits_base + h.end;
        raw.has_esc = raw.has_esc || h.literal == escape_literal_;
        // A needle hit without a literal is the failed search's "look at every line".
        may_hold |= h.needle && h.literal == TriggerScanner::kStamp ? 0xff : triggers.watch_bits(h.literal);
        if (!h.needle) return;
        needle = true;
        // The rules that may want this line, from the literal found (a search that could not
        // say which one leaves the rules to look for their needles).
        named = named && h.literal != TriggerScanner::kStamp;
        const std::vector<int>& tags = triggers.needle_tags(h.literal);
        candidates_.insert(candidates_.end(), tags.begin(), tags.end());
      };
      for (; next_hit < hits.size() && hits_base + hits[next_hit].end < line_end; ++next_hit) take(hits[next_hit]);
      if (lazy_stamps_ && raw.offset >= stamps_until_) {
        // Lazy stamps: this line's stamps were not looked for. Of them, its hits would say only
        // where the first one is (and that there is one), whatever their order with the others.
        const std::size_t stamp_end = TriggerScanner::first_stamp_end(std::string_view(raw.data, raw.size));
        if (stamp_end != TriggerScanner::npos)
          take({static_cast<std::uint32_t>(raw.offset - hits_base + stamp_end), TriggerScanner::kStamp, false});
        stamps_until_ = std::min(line_end + 1, scanned_end);
      }
    }
    // (A cut line's hits are not gathered.)
    if (raw.cut && strip_escapes_) raw.has_esc = std::memchr(raw.data, '\x1b', raw.size) != nullptr;
    if (hit || sink.wants_every_line()) {
      if (named && candidates_.size() > 1) {
        std::sort(candidates_.begin(), candidates_.end());
        candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
      }
      line_hit.triggered = hit;
      line_hit.needle = needle;
      line_hit.candidates = named ? &candidates_ : nullptr;
      line_hit.may_hold = may_hold;
      line_hit.may_stamp = stamped;
      line_hit.may_anchor = anchor;
      LineView line = splitter_.clean(raw);
      // A stamp ends 7 bytes after it starts (`HH:MM:SS`); cleaning that moved the text (a `\r`
      // frame) moves it too, and such a line is shown as any other.
      if (first_stamp != 0 && line.text.data() == raw.data) {
        line_hit.stamp_at = static_cast<std::uint32_t>(first_stamp - 7 - raw.offset);
        line_hit.only_stamps = !other;
      }
      if (line.escapes_removed) {
        // The search saw the text with them: a needle or a stamp they split is whole now, and
        // the stamp has moved.
        line_hit.candidates = nullptr;
        line_hit.may_stamp = true;
        line_hit.stamp_at = LineHit::kNoStamp;
        line_hit.only_stamps = false;
      }
      if (splitter_.offsets_moved()) line.offset = splitter_.file_offset(line.offset);
      sink.on_line(line, line_hit);
      if (sink.stamp_run_ready() && scanned_end > 0)
        offer_stamp_run(sink, hits, next_hit, hits_base, scanned_end, uncertain);
    }
  }
  next_hit_ = next_hit;
  hits_base_ = hits_base;
  scanned_end_ = scanned_end;
}

void LineSearcher::start_stripping() {
  stripping_ = true;
  if (chunked_ != nullptr) stop_chunked_search();
}

// The line of the first escape sequence the buffer pass removed from `region` (which starts
// with `line`, at stream offset `region_offset`), the first time it removes one. A line that
// keeps its escapes (a NUL, or over the length limit) is told of by the sink itself when clean()
// removes some (on_line()), as when every line is examined.
void LineSearcher::tell_escapes_removed(LineSink& sink, const RawLine& line, std::string_view region,
                                        std::uint64_t region_offset) {
  const std::uint64_t at = splitter_.first_escape_removed();
  if (told_escapes_ || at == LineSplitter::kNoEscape) return;
  told_escapes_ = true;
  const auto before = region.substr(0, static_cast<std::size_t>(at - region_offset));
  sink.on_escapes_removed(line.number + static_cast<std::uint64_t>(std::count(before.begin(), before.end(), '\n')));
}

// The helpers that search the file's chunks ahead only read them from now on.
void LineSearcher::stop_chunked_search() {
  chunked_->stop_searching();
  chunked_ = nullptr;
}

// The stamp-only lines ahead, offered to the sink straight from the buffer: in a stamped log
// they are most lines, and the general path above (a raw line, its hits gathered into a
// LineHit, clean(), on_line()) cost several times what the sink does with them. Stops at the
// first line that is anything else, or that the sink declines; the general path goes on there.
void LineSearcher::offer_stamp_lines(LineSink& sink, std::vector<TriggerScanner::Hit>& hits,
                                     std::size_t& next_hit, std::uint64_t hits_base, std::uint64_t scanned_end,
                                     std::uint8_t may_hold) {
  LineView line;
  while (!sink.wants_every_line() && splitter_.peek_plain_line(line)) {
    const std::uint64_t line_end = line.offset + line.text.size();
    if (line_end >= scanned_end) return;  // its hits are not known yet
    std::size_t h = next_hit;
    while (h < hits.size() && hits_base + hits[h].end < line.offset) ++h;
    std::size_t k = h;
    for (; k < hits.size() && hits_base + hits[k].end < line_end; ++k)
      if (!is_plain_stamp(hits[k])) return;
    if (lazy_stamps_ && stamps_until_ <= line.offset) {
      // Lazy stamps: this line's and those of the lines up to the next hit's were not looked
      // for yet; with them, it is looked at again.
      find_stamps_before(k < hits.size() ? hits_base + hits[k].end : scanned_end, hits, next_hit, hits_base,
                         scanned_end);
      continue;
    }
    if (h == k) {
      // No trigger here: jump to the next line with one, as the general path does.
      const std::uint64_t lines = splitter_.lines_read();
      const bool on_hit_line = splitter_.skip_lines_before(h < hits.size() ? hits_base + hits[h].end : scanned_end);
      if (splitter_.lines_read() == lines) return;
      next_hit = h;
      if (on_hit_line && h < hits.size() && !is_plain_stamp(hits[h])) return;
      continue;
    }
    // A stamp hit ends at the last digit of its `HH:MM:SS`.
    const auto stamp_at = static_cast<std::uint32_t>(hits_base + hits[h].end - 7 - line.offset);
    LineView shown = line;
    if (splitter_.offsets_moved()) shown.offset = splitter_.file_offset(line.offset);
    if (!sink.on_stamp_line(shown, stamp_at, may_hold)) return;
    splitter_.take_peeked(line);
    next_hit = k;
    if (sink.stamp_run_ready()) offer_stamp_run(sink, hits, next_hit, hits_base, scanned_end, may_hold);
  }
}

// The lines after the one just shown that the sink takes as a run (the same writer's stamp-only
// lines), taken from the buffer without being split.
void LineSearcher::offer_stamp_run(LineSink& sink, const std::vector<TriggerScanner::Hit>& hits,
                                   std::size_t& next_hit, std::uint64_t hits_base, std::uint64_t scanned_end,
                                   std::uint8_t may_hold) {
  // A run starts with a stamp-only line: most often the next hits say at once that there is
  // none (the next line's stamp followed closely by another trigger, most likely in its line).
  // Only a shortcut is left out when that guess is wrong.
  constexpr std::uint32_t kNear = 256;
  // Lazy stamps: from stamps_until_ on the hits hold no stamps, and the sink finds the lines.
  const bool without_stamps = lazy_stamps_ && splitter_.next_line_offset() >= stamps_until_;
  if (!without_stamps) {
    if (next_hit >= hits.size() || !is_plain_stamp(hits[next_hit])) return;
    if (next_hit + 1 < hits.size() && !is_plain_stamp(hits[next_hit + 1]) &&
        hits[next_hit + 1].end - hits[next_hit].end < kNear)
      return;
  }
  std::uint64_t offset = 0;
  LineSink::StampRun run;
  run.text = splitter_.plain_ahead(scanned_end, offset);
  run.hits = hits.data() + next_hit;
  run.hit_count = hits.size() - next_hit;
  run.shift = static_cast<std::uint32_t>(offset - hits_base);
  run.max_line = max_line_;
  run.may_hold = may_hold;
  run.without_stamps = without_stamps;
  run.triggers = triggers_;
  run.first_line = splitter_.lines_read() + 1;
  const LineSink::RunTaken taken = sink.on_stamp_run(run);
  if (taken.bytes == 0) return;
  if (taken.lines > 0)
    splitter_.take_counted_lines(offset + taken.bytes, taken.lines);
  else
    splitter_.skip_lines_before(offset + taken.bytes);
  next_hit += taken.hits;
  region_run_lines_ += without_stamps ? taken.lines : taken.hits;
  if (without_stamps) stamps_until_ = std::max(stamps_until_, offset + taken.bytes);
}

void LineSearcher::find_stamps_before(std::uint64_t until, std::vector<TriggerScanner::Hit>& hits,
                                      std::size_t next_hit, std::uint64_t hits_base, std::uint64_t scanned_end) {
  if (!lazy_stamps_ || until <= stamps_until_) return;
  // Whole lines, to the start of `until`'s: a line's stamps are all known or none is.
  until = std::min(until, scanned_end);
  if (until < scanned_end) {
    const std::string_view before = splitter_.buffered(stamps_until_, until);
    const void* nl = ::memrchr(before.data(), '\n', before.size());
    if (nl == nullptr) return;  // `until` is in the first line not looked at
    until = stamps_until_ + static_cast<std::uint64_t>(static_cast<const char*>(nl) - before.data()) + 1;
  }
  // Each look moves the hits after it: with many left, the rest of the region at once, so that
  // a region with many hits costs one merge, not one per line.
  constexpr std::size_t kMovedHits = 256;
  if (hits.size() - next_hit > kMovedHits) until = scanned_end;
  stamp_scratch_.clear();
  TriggerScanner::find_stamps(splitter_.buffered(stamps_until_, until),
                              static_cast<std::uint32_t>(stamps_until_ - hits_base), stamp_scratch_);
  if (!stamp_scratch_.empty()) {
    auto by_end = [](const TriggerScanner::Hit& a, const TriggerScanner::Hit& b) { return a.end < b.end; };
    const auto from = static_cast<std::uint32_t>(stamps_until_ - hits_base);
    const auto to = static_cast<std::uint32_t>(until - hits_base);
    auto first = std::lower_bound(hits.begin() + static_cast<long>(next_hit), hits.end(), TriggerScanner::Hit{from, 0, false}, by_end);
    auto last = std::lower_bound(first, hits.end(), TriggerScanner::Hit{to, 0, false}, by_end);
    const auto a = first - hits.begin(), b = last - hits.begin();
    // The hits there (literals and bytes, no stamps) and the stamps, in one order.
    merged_.clear();
    std::merge(hits.begin() + a, hits.begin() + b, stamp_scratch_.begin(), stamp_scratch_.end(),
               std::back_inserter(merged_), by_end);
    hits.insert(hits.begin() + b, stamp_scratch_.size(), TriggerScanner::Hit{});
    std::copy(merged_.begin(), merged_.end(), hits.begin() + a);
  }
  stamps_until_ = until;
}

}  // namespace megatriage
