// Extract stage output: a FileResult, what "analyze one file" yields for one source — its
// events in line order, facts, diagnostics and counts. Later stages see only FileResults.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/diagnostics.h"
#include "extract/event.h"
#include "input/discover.h"
#include "model/facts.h"
#include "model/types.h"

namespace megatriage {

/// Per-file outcome. `events` are in line order.
struct FileResult {
  SourceFile file;
  std::vector<Event> events;
  std::vector<Fact> facts;       // configuration/progress figures, in line order
  std::vector<Diagnostic> diagnostics;
  std::vector<int> named_ranks;  // ranks its rank-bearing lines name (RankMentions): sorted, at most 2
  std::uint64_t bytes = 0, lines = 0, stamped_lines = 0;
  int first_full_year = 0;       // year of the first stamp that printed one; 0 none
  int first_full_month = 0;
  std::optional<CivilTime> first_stamp, last_stamp;  // as printed, in line order
  std::optional<std::int64_t> first_stamp_us, last_stamp_us;  // after apply_year()
  bool binary = false;
  bool own_report = false;       // one of megatriage's reports (input/own_report.h): not read
  bool unopened = false;         // could not be opened (diagnosed); nothing was read
  bool deferred = false;         // AnalyzeOptions::defer_chunkable: left for a chunked read
  // False when no RuleLine event's text may name a SLURM job (may_name_slurm_job): the job
  // selection then need not read them again, long after they left the cache. True (look) unless
  // the analysis said otherwise, e.g. for a result read back from a partial report.
  bool lines_may_name_job = true;
};

}  // namespace megatriage
