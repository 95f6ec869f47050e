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

/// When a symptom group first appeared relative to the root (microseconds, >= 0 after it).
/// Within a second before it is 0 (second-granularity stamps against millisecond bounds); before
/// a root whose time is only bounded (`root_explicit` false), inside its bounds, it is unknown
/// (nullopt): the logs cannot order the two. Earlier than that it stays negative.
std::optional<std::int64_t> symptom_delay(std::int64_t first_us, std::int64_t root_us, bool root_explicit,
                                          std::optional<std::int64_t> root_after_us);

/// `0-3,7,9-10`.
std::string compact_ranks(const std::vector<int>& ranks);

}  // namespace megatriage
