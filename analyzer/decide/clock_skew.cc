// The clock-skew check: nearest-neighbour distance between files' stamped spans.
#include "decide/clock_skew.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace megatriage {

void report_clock_skew(std::vector<FileResult>& results) {
  constexpr std::int64_t kHourUs = 3600LL * 1000000;
  // Sorted first and last stamps: each file's nearest neighbour by binary search, not by a
  // pass over all files (8,192 rank files made the quadratic version a visible serial stage).
  // A file's span is [earliest, latest] of its first and last stamps: a clock that stepped
  // back can print a last stamp before the first.
  auto span = [](const FileResult& r) {
    return std::minmax(*r.first_stamp_us, *r.last_stamp_us);
  };
  std::vector<std::int64_t> firsts, lasts;
  for (const auto& r : results) {
    if (!r.first_stamp_us || !r.last_stamp_us) continue;
    firsts.push_back(span(r).first);
    lasts.push_back(span(r).second);
  }
  if (firsts.size() < 2) return;
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  for (auto& r : results) {
    if (!r.first_stamp_us || !r.last_stamp_us) continue;
    const auto [first, last] = span(r);
    // Files overlapping [first, last]: those starting by `last` minus those ended before
    // `first`, minus this file itself.
    auto after = std::upper_bound(firsts.begin(), firsts.end(), last);  // first file starting later
    auto ended = std::lower_bound(lasts.begin(), lasts.end(), first) - lasts.begin();
    if ((after - firsts.begin()) - ended - 1 > 0) continue;
    std::int64_t nearest = -1;
    if (after != firsts.end()) nearest = *after - last;
    if (ended > 0) {
      std::int64_t before = first - lasts[static_cast<std::size_t>(ended - 1)];
      if (nearest < 0 || before < nearest) nearest = before;
    }
    if (nearest >= kHourUs) {
      char hours[32];
      std::snprintf(hours, sizeof hours, "%.1f", static_cast<double>(nearest) / kHourUs);
      r.diagnostics.push_back({Severity::Warning, "timeline.clock-skew",
                               std::string("every timestamp in this file is at least ") + hours +
                                   " h away from every other file's: its host's clock differs or it is from another run",
                               r.file.display_path, 0,
                               "ordering across hosts may be wrong; check NTP on that node", 1});
    }
  }
}

}  // namespace megatriage
