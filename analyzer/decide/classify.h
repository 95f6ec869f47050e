// Classify stage: turn the chosen root event into the report's root cause (category, rule,
// explanation and checks with placeholders filled) and group every other failure event into a
// few symptom groups.
#pragma once

#include <vector>

#include "decide/root_cause.h"
#include "model/report.h"

namespace megatriage {

/// Id used for a traceback that no rule recognises.
inline constexpr const char* kUnclassifiedRule = "python.unclassified-exception";

RootCauseReport classify_root(const Finding& finding, const std::vector<TimelineEntry>& timeline,
                              const RuleMatcher& matcher);

/// Groups failure events other than the root by rule (ranks, hosts, first/last time, delay).
std::vector<SymptomGroup> group_symptoms(const std::vector<TimelineEntry>& timeline,
                                         const std::optional<Finding>& finding,
                                         const RuleMatcher& matcher);

/// `0-3,7,9-10`.
std::string compact_ranks(const std::vector<int>& ranks);

}  // namespace megatriage
