#include "timeline.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace megatriage {

std::optional<std::int64_t> ordering_time(const Event& e) {
  if (e.time.source == TimeSource::Explicit) return e.time.us;
  if (e.before_us) return e.before_us;
  if (e.time.known()) return e.time.us;
  return std::nullopt;
}

std::vector<TimelineEntry> merge_timeline(const std::vector<FileResult>& files) {
  // Order on (has a time, time, file id, line), ties in file and event order: identical for
  // any thread count or discovery order. The keys are copied out of the events first, so the
  // sort of a big job's tens of thousands of events does not chase an event pointer per
  // comparison; the position makes the order total, so an unstable sort gives the same result.
  struct SortKey {
    bool no_time;
    std::int64_t time;
    FileId file;
    std::uint64_t line;
    std::uint32_t position;
    bool operator<(const SortKey& o) const {
      return std::tie(no_time, time, file, line, position) <
             std::tie(o.no_time, o.time, o.file, o.line, o.position);
    }
  };
  std::size_t total = 0;
  for (const auto& f : files) total += f.events.size();
  std::vector<SortKey> keys;
  keys.reserve(total);
  for (const auto& f : files)
    for (const auto& e : f.events) {
      const std::optional<std::int64_t> t = ordering_time(e);
      keys.push_back({!t.has_value(), t.value_or(0), e.origin.file, e.origin.line,
                      static_cast<std::uint32_t>(keys.size())});
    }
  std::sort(keys.begin(), keys.end());
  // Positions back to events: files in order, each file's events in order.
  std::vector<std::pair<const FileResult*, const Event*>> by_position;
  by_position.reserve(total);
  for (const auto& f : files)
    for (const auto& e : f.events) by_position.emplace_back(&f, &e);
  std::vector<TimelineEntry> out;
  out.reserve(total);
  for (const SortKey& k : keys) {
    const auto [file, event] = by_position[k.position];
    out.push_back({event, file, k.no_time ? std::nullopt : std::optional<std::int64_t>(k.time)});
  }
  return out;
}

}  // namespace megatriage
