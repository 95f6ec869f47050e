#include "decide/timeline.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>

#include "base/fork_join.h"

namespace megatriage {
namespace {

using SortKey = TimelineMerge::Key;
constexpr std::uint32_t kUntimed = std::uint32_t{1} << 31;

std::uint64_t order_of(std::int64_t us) {
  return static_cast<std::uint64_t>(us) ^ (std::uint64_t{1} << 63);
}

std::int64_t time_of(std::uint64_t order) {
  return static_cast<std::int64_t>(order ^ (std::uint64_t{1} << 63));
}

// Stable LSD radix sort of keys[0, n) on `order`, a byte at a time, skipping the bytes every key
// shares (the stamps of one job differ in their low four or five bytes). `spare` holds n keys;
// returns the buffer that ends up sorted. A fraction of a comparison sort on (time, file, line,
// position) for a big job's events (docs/performance.md).
SortKey* radix_sort(SortKey* keys, SortKey* spare, std::size_t n) {
  std::array<std::array<std::size_t, 256>, 8> counts{};
  for (std::size_t i = 0; i < n; ++i)
    for (unsigned b = 0; b < 8; ++b) ++counts[b][(keys[i].order >> (8 * b)) & 0xff];
  for (unsigned b = 0; b < 8; ++b) {
    auto& count = counts[b];
    if (std::find(count.begin(), count.end(), n) != count.end()) continue;  // one byte for all
    std::size_t at = 0;
    for (auto& c : count) at += std::exchange(c, at);
    for (std::size_t i = 0; i < n; ++i) spare[count[(keys[i].order >> (8 * b)) & 0xff]++] = keys[i];
    std::swap(keys, spare);
  }
  return keys;
}

}  // namespace

std::optional<std::int64_t> ordering_time(const Event& e) {
  if (e.time.source == TimeSource::Explicit) return e.time.us;
  if (e.before_us) return e.before_us;
  if (e.time.known()) return e.time.us;
  return std::nullopt;
}

std::vector<TimelineEntry> merge_timeline(const std::vector<FileResult>& files, unsigned threads) {
  TimelineMerge merge(files);
  for_each_slice(
      threads, files.size(), [&](std::size_t i) { return files[i].events.size() + 1; },
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) merge.add_file(i);
      });
  return merge.merge();
}

// Order on (has a time, time, file id, line), ties in file and event order: identical for any
// thread count or discovery order. Files come in file-id order, so once each file's keys are in
// line order the position over all events orders (file id, line, event), and a stable sort on
// the time alone gives the whole order.
TimelineMerge::TimelineMerge(const std::vector<FileResult>& files)
    : files_(files), first_(files.size() + 1, 0), events_(files.size()), own_ids_(files.size(), 1) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    first_[i + 1] = first_[i] + static_cast<std::uint32_t>(files[i].events.size());
    events_[i] = files[i].events.data();
  }
  key_count_ = first_.back();
  keys_.reset(new Key[key_count_]);
}

void TimelineMerge::add_file(std::size_t index) {
  const FileResult& f = files_[index];
  std::uint32_t position = first_[index];
  std::uint64_t line = 0;
  bool own = true, in_line_order = true;
  for (const Event& e : f.events) {
    const std::optional<std::int64_t> t = ordering_time(e);
    const std::uint32_t file = static_cast<std::uint32_t>(index) | (t ? 0 : kUntimed);
    keys_[position] = {order_of(t.value_or(0)), file, position};
    own = own && e.origin.file == f.file.id;
    in_line_order = in_line_order && e.origin.line >= line;
    line = e.origin.line;
    ++position;
  }
  own_ids_[index] = own;
  // A traceback is emitted when it ends, after lines other ranks printed inside it.
  if (!in_line_order) {
    std::stable_sort(keys_.get() + first_[index], keys_.get() + first_[index + 1],
                     [&](const SortKey& a, const SortKey& b) {
                       return f.events[a.position - first_[index]].origin.line <
                              f.events[b.position - first_[index]].origin.line;
                     });
  }
}

std::vector<TimelineEntry> TimelineMerge::merge() {
  auto event_of = [&](const SortKey& k) -> const Event& {
    const std::uint32_t file = k.file & ~kUntimed;
    return events_[file][k.position - first_[file]];
  };
  bool in_file_order = std::all_of(own_ids_.begin(), own_ids_.end(), [](char c) { return c != 0; });
  bool any = false;
  FileId last_id = 0;
  for (const auto& f : files_) {
    if (f.events.empty()) continue;
    if (any && f.file.id <= last_id) in_file_order = false;
    last_id = f.file.id;
    any = true;
  }
  if (!in_file_order) {
    // Hand-made results (tests, fuzzing): put all keys in (file id, line) order.
    std::stable_sort(keys_.get(), keys_.get() + key_count_, [&](const SortKey& a, const SortKey& b) {
      const Event& x = event_of(a);
      const Event& y = event_of(b);
      return std::tie(x.origin.file, x.origin.line) < std::tie(y.origin.file, y.origin.line);
    });
  }
  // Events with a time first, sorted by it; those without keep their order after them.
  const std::size_t total = key_count_;
  const SortKey* const keys = keys_.get();
  const std::size_t timed = static_cast<std::size_t>(
      std::count_if(keys, keys + total, [](const SortKey& k) { return !(k.file & kUntimed); }));
  std::unique_ptr<SortKey[]> parted(new SortKey[total]);
  std::size_t next_timed = 0, next_untimed = timed;
  for (std::size_t i = 0; i < total; ++i)
    parted[(keys[i].file & kUntimed) ? next_untimed++ : next_timed++] = keys[i];
  const SortKey* sorted = radix_sort(parted.get(), keys_.get(), timed);
  std::vector<TimelineEntry> out;
  out.reserve(total);
  for (std::size_t i = 0; i < timed; ++i)
    out.push_back({&event_of(sorted[i]), &files_[sorted[i].file], time_of(sorted[i].order)});
  for (std::size_t i = timed; i < total; ++i) {
    const SortKey& k = parted[i];
    out.push_back({&event_of(k), &files_[k.file & ~kUntimed], std::nullopt});
  }
  return out;
}

}  // namespace megatriage
