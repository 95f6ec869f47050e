#include "decide/root_cause.h"

#include "decide/rank_attribution.h"

namespace megatriage {
namespace {

bool is_python_traceback(const Event& e) {
  return e.kind == EventKind::Traceback && !e.traceback->incomplete && e.decisive_block >= 0;
}

}  // namespace

RuleRole event_role(const Event& e, const RuleMatcher& matcher) {
  if (e.kind == EventKind::ChildFailure) return RuleRole::Context;
  if (!e.matches.empty())
    return matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)].role;
  return e.kind == EventKind::Traceback ? RuleRole::Cause : RuleRole::Context;
}

Category event_category(const Event& e, const RuleMatcher& matcher) {
  if (!e.matches.empty())
    return matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)].category;
  return Category::Unknown;
}

std::optional<std::string> event_field(const Event& e, const RuleMatcher& matcher, std::string_view name) {
  std::optional<std::string> text;  // the matched text, rebuilt once and only when needed
  for (const auto& m : e.matches) {
    if (!matcher.has_group(m.rule_index, name)) continue;
    if (!text) text = matched_text(e);
    std::optional<std::string> value = matcher.field(m, *text, name);
    if (value && !value->empty()) return value;
  }
  return std::nullopt;
}

std::optional<Finding> select_root_cause(const std::vector<TimelineEntry>& timeline,
                                         const RuleMatcher& matcher) {
  std::optional<std::size_t> cause, nccl_symptom, teardown;
  std::size_t symptoms_before_cause = 0;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const Event& e = *timeline[i].event;
    if (e.kind == EventKind::Traceback && !is_python_traceback(e)) continue;  // cut off
    RuleRole role = event_role(e, matcher);
    if (role == RuleRole::Cause && !cause) cause = i;
    if (role == RuleRole::Symptom && !cause) ++symptoms_before_cause;
    if (role == RuleRole::Symptom && !nccl_symptom && event_category(e, matcher) == Category::Nccl)
      nccl_symptom = i;
    if (role == RuleRole::Teardown && !teardown && e.kind == EventKind::Traceback) teardown = i;
    // Once there is a cause the fallbacks are moot: the rest of a big job's timeline (its
    // watchdog family, 30,000 events on tree d) need not be read.
    if (cause) break;
  }

  Finding f;
  if (cause) {
    f.index = *cause;
    f.basis = Basis::Cause;
    const Event& e = *timeline[*cause].event;
    f.reasons.push_back(e.kind == EventKind::Traceback
                            ? "earliest traceback whose exception is not an NCCL/teardown symptom"
                            : "earliest line that is a cause by itself");
    if (symptoms_before_cause > 0)
      f.reasons.push_back(std::to_string(symptoms_before_cause) +
                          " symptom event(s) ordered before it were set aside");
  } else if (nccl_symptom) {
    f.index = *nccl_symptom;
    f.basis = Basis::NcclFallback;
    f.reasons.push_back("no Python traceback other than NCCL/collective symptoms: the earliest "
                        "NCCL/rendezvous error is the root");
  } else if (teardown) {
    f.index = *teardown;
    f.basis = Basis::TeardownFallback;
    f.reasons.push_back("only teardown tracebacks (signals, launcher summaries) were found");
  } else {
    return std::nullopt;
  }

  const TimelineEntry& root = timeline[f.index];
  const Event& e = *root.event;
  f.location = f.index;
  if (e.kind == EventKind::Traceback && root.file->file.hint.local_rank < 0) {
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      const Event& copy = *timeline[i].event;
      if (copy.kind == EventKind::Traceback && copy.text == e.text && copy.who.rank == e.who.rank &&
          timeline[i].file->file.hint.local_rank >= 0) {
        f.location = i;
        f.reasons.push_back("the worker's own log holds the original; the console copy at " +
                            root.file->file.display_path + ":" + std::to_string(e.origin.line) +
                            " gave its time");
        break;
      }
    }
  }
  // Confidence: how well the time line separates the root from the next candidate.
  if (!root.key_us) {
    f.confidence = Confidence::Low;
    f.reasons.push_back("no timestamps: ordered by file and line only");
  } else if (e.time.source == TimeSource::Explicit || e.before_us) {
    f.confidence = Confidence::High;
  } else {
    f.confidence = Confidence::Medium;
  }
  attribute_rank(timeline, matcher, f);  // whose failure it is (rank, host), and how that is known
  return f;
}

}  // namespace megatriage
