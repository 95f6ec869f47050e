#include "decide/rank_timeline.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "decide/classify.h"
#include "decide/job_hosts.h"

namespace megatriage {
namespace {

// The event's time as the report states the root's (classify_root): the printed stamp, else the
// bounds of its stream's stamps around it.
void set_time(TimelineMark& m, const Event& e) {
  if (e.time.source == TimeSource::Explicit) {
    m.time_us = e.time.us;
    m.time_basis = TimeBasis::Explicit;
    return;
  }
  if (e.time.known()) m.after_us = e.time.us;
  m.before_us = e.before_us;
  // Stamps that went backwards around it (clock steps): keep the upper bound only, as the root does.
  if (m.after_us && m.before_us && *m.after_us > *m.before_us) m.after_us.reset();
  m.time_basis = e.before_us ? TimeBasis::Bounded : (e.time.known() ? TimeBasis::Inherited : TimeBasis::None);
}

// Cut at a UTF-8 character boundary, so that the cut itself adds no replacement character.
std::string capped(const std::string& text) {
  if (text.size() <= kMarkTextBytes) return text;
  std::size_t n = kMarkTextBytes;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n) + "…";
}

TimelineMark mark_of(const TimelineEntry& entry, const TimelineEntry& shown, int rank, std::string host, int group) {
  TimelineMark m;
  m.rank = rank;
  m.host = std::move(host);
  m.group = group;
  set_time(m, *entry.event);
  m.file = shown.file->file.display_path;
  m.line = shown.event->origin.line;
  m.text = capped(entry.event->text);
  return m;
}

}  // namespace

RankTimeline build_rank_timeline(const std::vector<TimelineEntry>& timeline, const std::optional<Finding>& finding,
                                 const RuleMatcher& matcher, const std::vector<SymptomGroup>& symptoms,
                                 const std::vector<FileResult>& files) {
  RankTimeline out;
  const JobHosts hosts = hosts_of_ranks(timeline, finding);
  auto host_of = [&](const Attribution& who) -> std::string {
    if (!who.host.empty() && who.host != "localhost") return who.host;
    const std::string* h = hosts.find(who);
    return h ? *h : std::string();
  };
  std::map<int, std::string> ranks;  // rank -> host ("" unknown)
  auto add_rank = [&](int rank, const std::string& host) {
    if (rank < 0) return;
    std::string& h = ranks[rank];
    if (h.empty()) h = host;
  };
  for (const FileResult& f : files) add_rank(f.file.hint.rank, f.file.hint.host);

  if (finding) {
    Attribution who = finding->who;
    std::string host = host_of(who);
    add_rank(who.rank, host);
    out.marks.push_back(mark_of(timeline[finding->index], timeline[finding->location], who.rank, host,
                                TimelineMark::kRoot));
  }
  // Group index per rule index (the last slot: tracebacks no rule knows), by the groups' rule ids.
  const std::vector<Rule>& rules = matcher.rules();
  std::map<std::string, int> group_of_id;
  for (std::size_t g = 0; g < symptoms.size(); ++g) group_of_id.emplace(symptoms[g].rule, static_cast<int>(g));
  std::vector<int> group_of_rule(rules.size() + 1, -1);
  for (std::size_t k = 0; k <= rules.size(); ++k) {
    auto it = group_of_id.find(k < rules.size() ? rules[k].id : std::string(kUnclassifiedRule));
    if (it != group_of_id.end()) group_of_rule[k] = it->second;
  }

  // (rank, host when no rank, group) -> its mark. The timeline is in time order, so the first
  // event seen per key is the earliest.
  std::map<std::tuple<int, std::string, int>, std::size_t> mark_at;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const Event& e = *timeline[i].event;
    if (e.kind == EventKind::ChildFailure) {
      // The launcher's table row names a failed worker: its rank has a row, the row is no mark.
      add_rank(e.child->rank, host_of(e.who));
      continue;
    }
    std::string host = host_of(e.who);
    add_rank(e.who.rank, host);
    // The same events group_symptoms counts: not the root, not a cut-off traceback, not context.
    if (finding && (i == finding->index || i == finding->location)) continue;
    if (e.kind == EventKind::Traceback && e.traceback->incomplete) continue;
    if (event_role(e, matcher) == RuleRole::Context) continue;
    const std::size_t rule = e.matches.empty() ? rules.size() : static_cast<std::size_t>(e.matches.front().rule_index);
    const int group = group_of_rule[rule];
    if (group < 0) continue;
    auto key = std::make_tuple(e.who.rank, e.who.rank >= 0 ? std::string() : host, group);
    auto [it, added] = mark_at.emplace(std::move(key), out.marks.size());
    if (added) {
      out.marks.push_back(mark_of(timeline[i], timeline[i], e.who.rank, std::move(host), group));
    } else {
      ++out.marks[it->second].count;
    }
  }
  for (auto& [rank, host] : ranks) {
    out.ranks.push_back(rank);
    out.rank_hosts.push_back(host);
  }
  // A mark of a rank takes the rank's host, so a rank's marks all sit in its host's group.
  for (TimelineMark& m : out.marks) {
    if (m.rank < 0) continue;
    auto it = ranks.find(m.rank);
    if (it != ranks.end() && !it->second.empty()) m.host = it->second;
  }
  return out;
}

}  // namespace megatriage
