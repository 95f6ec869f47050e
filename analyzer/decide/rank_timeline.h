// The HTML report's rank timeline as data (model/report.h RankTimeline): per writer (a rank;
// else a host) the first event of each symptom group, with a count, plus the root. Runs after
// group_symptoms, only when a renderer draws it (--format html): one more pass over the
// timeline that the text and JSON reports do not pay for. Draws nothing.
#pragma once

#include <optional>
#include <vector>

#include "decide/root_cause.h"
#include "model/report.h"

namespace megatriage {

/// Each mark's text keeps at most this many bytes: the page shows a line, not a log.
inline constexpr std::size_t kMarkTextBytes = 240;

/// `symptoms`: the report's groups as group_symptoms made them (their order gives each mark's
/// `group`). `files`: the job's FileResults, for the ranks their names give (a per-rank file
/// that holds no event still gets its row). Requires: the timeline's FileResults are alive.
RankTimeline build_rank_timeline(const std::vector<TimelineEntry>& timeline, const std::optional<Finding>& finding,
                                 const RuleMatcher& matcher, const std::vector<SymptomGroup>& symptoms,
                                 const std::vector<FileResult>& files);

}  // namespace megatriage
