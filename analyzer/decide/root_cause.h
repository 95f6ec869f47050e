// Root-cause stage: pick the earliest *cause* on the merged timeline, demote symptoms
// (watchdog timeouts, communicator aborts, peer resets, SIGTERM teardown), and fill in the rank
// and host the root's own lines do not carry, from the launcher's evidence.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/timeline.h"
#include "match/rule_matcher.h"
#include "model/report.h"

namespace megatriage {

/// The role an event plays, from its best rule (unmatched tracebacks are causes).
RuleRole event_role(const Event& e, const RuleMatcher& matcher);
/// The category of an event, from its best rule (unmatched: unknown).
Category event_category(const Event& e, const RuleMatcher& matcher);
/// The first non-empty value of field `name` among the event's matches, nullopt when none has
/// one. Captures only for rules with such a group, so a scan of the timeline for one field
/// matches a regex only where the field may be.
std::optional<std::string> event_field(const Event& e, const RuleMatcher& matcher, std::string_view name);

struct Finding {
  std::size_t index = 0;             // into the timeline: the event that decided (and its time)
  std::size_t location = 0;          // the copy of it to point the user at (see select_root_cause)
  Attribution who;                   // enriched attribution (decide/rank_attribution.h)
  RankBasis rank_basis = RankBasis::Unknown;  // how who.rank is known
  std::vector<std::string> reasons;  // why this event was chosen
  Confidence confidence = Confidence::Low;
  Basis basis = Basis::Cause;
  // Other causes the timeline cannot put after the root (same second, or unstamped between the
  // same stamps): their ranks (sorted, unique, the root's excluded) and how many events.
  std::vector<int> tied_ranks;
  std::size_t tied_events = 0;
};

/// Chooses the root cause, or nullopt when nothing failed. Policy: the earliest cause
/// (traceback not matched by a symptom/teardown rule, or a cause line such as a cgroup OOM
/// kill); else the earliest nccl-category symptom (a hang or a connectivity failure); else the
/// earliest teardown traceback. Refinements:
/// - Ends are not causes: SLURM ending the job (time limit, scancel: tags `time-limit`,
///   `cancelled`) is the root only when nothing failed before it; an earlier NCCL symptom (a
///   rendezvous timeout, a watchdog) is the root then. A node failure (`node-failure`) explains
///   the NCCL symptoms around it and loses only to an earlier cause. Failures after an end are
///   its symptoms.
/// - A kernel's assertion line (tag `device-assert`, a line) outranks the `device-side assert
///   triggered` tracebacks (same tag) that report it.
/// - Ties: other causes within a second of the root (or unstamped between the same stamps, or
///   without any stamp in other files) are listed in `tied_ranks`/`tied_events`; the earlier
///   line wins, and confidence is never high.
/// - Interleaved writers: tracebacks cut off by the next header in the same stream right before
///   the root (several processes printing at once) are the root's; `location` is the first
///   header of that run.
/// When torchrun `--tee` echoed the root traceback to the console and the worker's own
/// `attempt_N/<local_rank>/stderr.log` holds the original, `location` points at the original.
std::optional<Finding> select_root_cause(const std::vector<TimelineEntry>& timeline,
                                         const RuleMatcher& matcher);

}  // namespace megatriage
