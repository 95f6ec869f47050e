// Year resolution for year-less stamps; see log_year.h for the order of sources.
#include "decide/log_year.h"

#include <algorithm>
#include <map>
#include <string>

namespace megatriage {

int civil_year_from_days(std::int64_t days) {
  // Howard Hinnant's days-to-civil algorithm, year part only: eras of 400 years starting on
  // March 1st, so that the leap day falls at the end of a year of the era.
  std::int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  std::int64_t doe = z - era * 146097;
  std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  std::int64_t mp = (5 * doy + 2) / 153;
  return static_cast<int>(yoe + era * 400 + (mp >= 10 ? 1 : 0));
}

std::optional<int> job_year(const std::vector<FileResult>& results) {
  std::map<int, int> votes;
  for (const auto& r : results)
    if (r.first_full_year != 0) ++votes[r.first_full_year];
  std::optional<int> year;
  int best = 0;
  for (auto [y, count] : votes)
    if (count > best) { best = count; year = y; }
  return year;
}

void resolve_year(FileResult& r, std::optional<int> job_year) {
  if (r.first_full_year != 0) return;  // resolved in the file itself
  auto stamped = [](const Event& e) { return e.civil.has_value(); };
  if (std::none_of(r.events.begin(), r.events.end(), stamped)) return;
  int year = 0;
  if (job_year) {
    year = *job_year;
  } else {
    year = civil_year_from_days(r.file.mtime_us / 86400000000LL);
    r.diagnostics.push_back({Severity::Info, "timeline.year-from-mtime",
                             "no log line printed a year; took " + std::to_string(year) +
                                 " from the file's modification time",
                             r.file.display_path, 0, "", 1});
  }
  apply_year(r, year);
}

}  // namespace megatriage
