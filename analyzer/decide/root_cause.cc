#include "decide/root_cause.h"

#include <charconv>
#include <map>
#include <set>

#include "base/text_util.h"

namespace megatriage {
namespace {

bool is_python_traceback(const Event& e) {
  return e.kind == EventKind::Traceback && !e.traceback->incomplete && e.decisive_block >= 0;
}

// The number a field starts with (`3` of `3 ` or `3(x2)`), nullopt when it starts with none.
std::optional<int> leading_int(const std::string& s) {
  int v = 0;
  std::string_view t = trim_spaces(s);
  if (std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc()) return std::nullopt;
  return v;
}

// Rank for an unprefixed traceback: torchelastic's table printed after it in the same file
// names the worker it saw fail first ("Root Cause"). Trust it only when that file holds exactly
// one causal traceback without a rank; with several (every rank failing at start-up) the logs
// cannot tell which one the table means.
void rank_from_launcher_table(const std::vector<TimelineEntry>& timeline, const Event& root,
                              const RuleMatcher& matcher, Attribution& who,
                              std::vector<std::string>& reasons) {
  // Exact: the same launcher (srun task) lists a failed worker with this local rank.
  if (who.local_rank >= 0) {
    std::set<int> ranks;
    std::uint64_t line = 0;
    for (const auto& entry : timeline) {
      const Event& e = *entry.event;
      if (e.kind == EventKind::ChildFailure && e.origin.file == root.origin.file &&
          e.who.task == root.who.task && e.child->local_rank == who.local_rank && e.child->rank >= 0) {
        ranks.insert(e.child->rank);
        if (line == 0) line = e.origin.line;
      }
    }
    if (ranks.size() == 1) {
      who.rank = *ranks.begin();
      reasons.push_back("rank " + std::to_string(who.rank) + " is local rank " +
                        std::to_string(who.local_rank) + " in its launcher's ChildFailedError table (line " +
                        std::to_string(line) + ")");
      return;
    }
  }
  int unranked_causes = 0;
  const Event* table_entry = nullptr;
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    if (e.origin.file != root.origin.file) continue;
    if (is_python_traceback(e) && e.who.rank < 0 && event_role(e, matcher) == RuleRole::Cause)
      ++unranked_causes;
    if (e.kind == EventKind::ChildFailure && e.child->root_cause_section &&
        e.origin.file == root.origin.file && e.who.task == root.who.task &&
        e.origin.line > root.last_line &&
        (table_entry == nullptr || e.origin.line < table_entry->origin.line))
      table_entry = &e;
  }
  if (unranked_causes == 1 && table_entry != nullptr && table_entry->child->rank >= 0) {
    who.rank = table_entry->child->rank;
    if (who.local_rank < 0) who.local_rank = table_entry->child->local_rank;
    reasons.push_back("rank " + std::to_string(who.rank) +
                      " from the launcher's ChildFailedError table after the traceback (line " +
                      std::to_string(table_entry->origin.line) + ")");
  }
}

// A process killed by the kernel's OOM killer prints nothing; the launcher's table lists it with
// exit code -9 (SIGKILL). One such worker in the whole job is the victim.
void rank_from_sigkill(const std::vector<TimelineEntry>& timeline, Attribution& who,
                       std::vector<std::string>& reasons) {
  std::set<int> killed;
  int local_rank = -1;
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    if (e.kind == EventKind::ChildFailure && e.child->exitcode == -9 && e.child->rank >= 0) {
      killed.insert(e.child->rank);
      local_rank = e.child->local_rank;
    }
  }
  if (killed.size() == 1) {
    who.rank = *killed.begin();
    if (who.local_rank < 0) who.local_rank = local_rank;
    reasons.push_back("rank " + std::to_string(who.rank) +
                      " is the only worker the launcher saw killed by SIGKILL (exitcode -9)");
  }
}

// Host for a rank: the launcher's table (unless it says localhost), else the SLURM task that
// ran the rank's node (one srun task per node: node index = (rank - local_rank) / nproc).
void host_for_rank(const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher,
                   Attribution& who, std::vector<std::string>& reasons) {
  if (who.rank < 0 && who.task < 0) return;
  int nproc = 0;
  std::map<int, std::string> task_host;
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    if (e.kind == EventKind::ChildFailure) {
      nproc = std::max(nproc, e.child->local_rank + 1);
      std::string h = short_host(e.child->host);
      if (who.rank >= 0 && e.child->rank == who.rank && !h.empty() && h != "localhost") {
        who.host = h;
        return;
      }
    }
    std::optional<std::string> host = event_field(e, matcher, "host");
    if (!host) continue;
    std::optional<std::string> task = event_field(e, matcher, "task");
    if (!task) task = event_field(e, matcher, "tasks");
    if (task && task->find_first_of("-,") == std::string::npos) {
      if (std::optional<int> id = leading_int(*task)) task_host.emplace(*id, short_host(*host));
    }
  }
  if (who.task >= 0) {
    auto it = task_host.find(who.task);
    if (it != task_host.end()) {
      who.host = it->second;
      reasons.push_back("host " + who.host + " from srun's line for task " + std::to_string(who.task));
    }
    return;
  }
  if (nproc <= 0 || task_host.empty()) return;
  int local = who.local_rank >= 0 ? who.local_rank : who.rank % nproc;
  int node = (who.rank - local) / nproc;
  auto it = task_host.find(node);
  if (it != task_host.end()) {
    who.host = it->second;
    reasons.push_back("host " + who.host + " from srun's task " + std::to_string(node) +
                      " (node index of rank " + std::to_string(who.rank) + " with " +
                      std::to_string(nproc) + " workers per node)");
  }
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
  if (e.kind == EventKind::Traceback && e.traceback->headerless)
    f.reasons.push_back(e.traceback->blocks.front().frames_seen == 0
                            ? "a lone exception line with no traceback around it: weaker evidence"
                            : "a traceback whose header is not in the log (an excerpt, or a log cut above "
                              "it): weaker evidence");
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
  f.who = e.who;
  if (f.who.rank < 0 && is_python_traceback(e))
    rank_from_launcher_table(timeline, e, matcher, f.who, f.reasons);
  if (f.who.rank < 0 && e.kind == EventKind::RuleLine && event_category(e, matcher) == Category::Oom)
    rank_from_sigkill(timeline, f.who, f.reasons);
  if (f.who.host.empty()) {
    if (std::optional<std::string> h = event_field(e, matcher, "host")) f.who.host = short_host(*h);
  }
  if (f.who.host.empty()) host_for_rank(timeline, matcher, f.who, f.reasons);

  // Confidence: how well the time line separates the root from the next candidate.
  if (!root.key_us) {
    f.confidence = Confidence::Low;
    f.reasons.push_back("no timestamps: ordered by file and line only");
  } else if (e.time.source == TimeSource::Explicit || e.before_us) {
    f.confidence = Confidence::High;
  } else {
    f.confidence = Confidence::Medium;
  }
  return f;
}

}  // namespace megatriage
