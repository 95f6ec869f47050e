// Year resolution (part of merge): glog and c10 stamps print no year. A file takes the year
// printed elsewhere in itself, else the job's most common printed year, else its modification
// time. Calendar maths only; ordering is timeline.*'s.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "extract/extract.h"

namespace megatriage {

/// The year most files printed first (a tie goes to the earlier year); nullopt when no file
/// printed one.
std::optional<int> job_year(const std::vector<FileResult>& results);

/// Gives the year-less stamps of `r` a year (extract.h apply_year): none to do when the file
/// printed a year itself or has no stamped event. Without `job_year` the file's mtime decides,
/// and a `timeline.year-from-mtime` diagnostic says so.
void resolve_year(FileResult& r, std::optional<int> job_year);

/// The proleptic Gregorian year of `days` since 1970-01-01 (negative: before).
int civil_year_from_days(std::int64_t days);

}  // namespace megatriage
