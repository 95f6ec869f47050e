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
  std::vector<TimelineEntry> in_order;
  std::size_t total = 0;
  for (const auto& f : files) total += f.events.size();
  in_order.reserve(total);
  std::vector<SortKey> keys;
  keys.reserve(total);
  for (const auto& f : files)
    for (const auto& e : f.events) {
      const std::optional<std::int64_t> t = ordering_time(e);
      keys.push_back({!t.has_value(), t.value_or(0), e.origin.file, e.origin.line,
                      static_cast<std::uint32_t>(in_order.size())});
      in_order.push_back({&e, &f, t});
    }
  std::sort(keys.begin(), keys.end());
  std::vector<TimelineEntry> out;
  out.reserve(total);
  for (const SortKey& k : keys) out.push_back(in_order[k.position]);
  return out;
}

}  // namespace megatriage
