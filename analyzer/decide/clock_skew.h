// Clock-skew check (part of merge): a file whose stamps all lie hours away from every other
// file's has a host clock that is off, or belongs to another run. Reported as a diagnostic on
// that file; the timeline is not corrected.
#pragma once

#include <vector>

#include "extract/extract.h"

namespace megatriage {

/// Adds a `timeline.clock-skew` warning to each file whose stamped span lies at least an hour
/// from every other file's. Requires: apply_year done (first/last stamps set). Files without
/// stamps neither get one nor count as neighbours. O(n log n) in the number of files.
void report_clock_skew(std::vector<FileResult>& results);

}  // namespace megatriage
