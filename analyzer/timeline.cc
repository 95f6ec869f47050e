#include "timeline.h"

#include <algorithm>

namespace megatriage {

std::optional<std::int64_t> ordering_time(const Event& e) {
  if (e.time.source == TimeSource::Explicit) return e.time.us;
  if (e.before_us) return e.before_us;
  if (e.time.known()) return e.time.us;
  return std::nullopt;
}

std::vector<TimelineEntry> merge_timeline(const std::vector<FileResult>& files) {
  std::vector<TimelineEntry> out;
  std::size_t total = 0;
  for (const auto& f : files) total += f.events.size();
  out.reserve(total);
  for (const auto& f : files)
    for (const auto& e : f.events) out.push_back({&e, &f, ordering_time(e)});
  // Stable on (key, file id, line): identical for any thread count or discovery order.
  std::stable_sort(out.begin(), out.end(), [](const TimelineEntry& a, const TimelineEntry& b) {
    if (a.key_us.has_value() != b.key_us.has_value()) return a.key_us.has_value();
    if (a.key_us && *a.key_us != *b.key_us) return *a.key_us < *b.key_us;
    if (a.event->origin.file != b.event->origin.file) return a.event->origin.file < b.event->origin.file;
    return a.event->origin.line < b.event->origin.line;
  });
  return out;
}

}  // namespace megatriage
