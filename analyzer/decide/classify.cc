#include "decide/classify.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include "base/sort_unique.h"
#include "base/text_util.h"
#include "decide/job_hosts.h"
#include "match/rule_tags.h"

namespace megatriage {
namespace {

constexpr std::size_t kKeyFrames = 5;
constexpr std::size_t kPrefetchAhead = 16;

void prefetch_event(const Event& e) {
  const char* p = reinterpret_cast<const char*>(&e);
  for (std::size_t at = 0; at < sizeof(Event); at += 64) __builtin_prefetch(p + at);
}

const Rule* best_rule(const Event& e, const RuleMatcher& matcher) {
  if (e.matches.empty()) return nullptr;
  return &matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)];
}

// A runbook check from the rule's data: shown to the user, not decided from the logs.
CheckResult advice(std::string text) {
  return advice_check(std::move(text), "runbook advice: not decided from the logs");
}

std::map<std::string, std::string> facts_for(const Event& e, const Finding& f, const RuleMatcher& matcher) {
  std::map<std::string, std::string> fields;
  if (!e.matches.empty()) fields = matcher.fields(e.matches.front(), matched_text(e));
  if (f.who.rank >= 0) fields.emplace("rank", std::to_string(f.who.rank));
  if (f.who.local_rank >= 0) fields.emplace("local_rank", std::to_string(f.who.local_rank));
  if (!f.who.host.empty()) fields.emplace("host", f.who.host);
  return fields;
}

// A stamp printed to the second stands for the whole second: against a millisecond bound a
// symptom of the same second comes out up to 999 ms "before" its cause.
constexpr std::int64_t kSecondUs = 1000000;

}  // namespace

std::optional<std::int64_t> symptom_delay(std::int64_t first_us, std::int64_t root_us, bool root_explicit,
                                          std::optional<std::int64_t> root_after_us) {
  const std::int64_t delay = first_us - root_us;
  if (delay >= 0) return delay;
  if (delay > -kSecondUs) return 0;  // the same second, as far as the stamps tell
  // A root known only by its bounds happened somewhere before root_us: a symptom stamped
  // inside those bounds (or above an unknown lower bound) cannot be put before or after it.
  if (!root_explicit && (!root_after_us || first_us >= *root_after_us - kSecondUs)) return std::nullopt;
  return delay;
}

std::string compact_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) out += '-' + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

RootCauseReport classify_root(const Finding& finding, const std::vector<TimelineEntry>& timeline,
                              const RuleMatcher& matcher) {
  const TimelineEntry& entry = timeline[finding.index];
  const Event& e = *entry.event;
  RootCauseReport r;
  const Rule* rule = best_rule(e, matcher);
  r.fields = facts_for(e, finding, matcher);
  // The types of the fields: the capturing rule's declarations, and the rank numbers added above.
  if (!e.matches.empty())
    r.field_types = matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)].field_types;
  for (const char* number : {"rank", "local_rank"})
    if (r.fields.count(number)) r.field_types.emplace(number, FactType::Int);
  if (rule != nullptr) {
    r.category = rule->category;
    r.rule = rule->id;
    r.rule_tags = rule->tags;
    r.title = rule->title;
    r.explain = fill_placeholders(rule->explain, r.fields);
    for (const auto& c : rule->checks) r.checks.push_back(advice(fill_placeholders(c, r.fields)));
  } else {
    r.category = Category::Unknown;
    r.rule = kUnclassifiedRule;
    r.title = "Python exception not recognised by any rule";
    r.explain = "The first failing rank raised an exception that none of the rules classify.";
    r.checks.push_back(advice("Read the innermost frames above: the exception was raised there."));
    r.checks.push_back(advice("Add a rule to rules/ (see rules/README.md) if this failure recurs."));
  }
  r.evidence = e.kind == EventKind::Traceback ? Evidence::Traceback : Evidence::Line;
  if (e.kind == EventKind::Traceback && e.traceback->headerless)
    r.fragment = e.traceback->blocks.front().frames_seen == 0 ? Fragment::ExceptionLine : Fragment::HeaderlessTraceback;
  r.rank = finding.who.rank;
  r.rank_basis = finding.rank_basis;
  r.local_rank = finding.who.local_rank;
  r.task = finding.who.task;
  r.host = finding.who.host;
  const TimelineEntry& shown = timeline[finding.location];
  r.file = shown.file->file.display_path;
  r.line = shown.event->origin.line;
  if (r.local_rank < 0) r.local_rank = shown.event->who.local_rank;
  if (e.time.source == TimeSource::Explicit) {
    r.time_us = e.time.us;
    r.time_basis = TimeBasis::Explicit;
  } else {
    if (e.time.known()) r.after_us = e.time.us;
    r.before_us = e.before_us;
    if (r.after_us && r.before_us && *r.after_us > *r.before_us) {
      // Stamps went backwards around it (clock steps, merged files): keep the upper bound only.
      r.after_us.reset();
      r.reasons.push_back("the stamps around it go backwards; its lower time bound was dropped");
    }
    r.time_us = entry.key_us;
    r.time_basis = e.before_us ? TimeBasis::Bounded : (e.time.known() ? TimeBasis::Inherited : TimeBasis::None);
  }
  r.year_inferred = e.time.year_inferred;
  r.exception = e.text;
  if (e.kind == EventKind::Traceback) {
    for (const auto& b : e.traceback->blocks)
      if (!b.exception.empty()) r.chain.push_back(b.exception);
    if (e.decisive_block >= 0) {
      const auto& frames = e.traceback->blocks[static_cast<std::size_t>(e.decisive_block)].frames;
      std::size_t from = frames.size() > kKeyFrames ? frames.size() - kKeyFrames : 0;
      r.frames = frames.to_vector(from);
    }
  }
  r.confidence = finding.confidence;
  r.basis = finding.basis;
  r.tied_ranks = finding.tied_ranks;
  r.tied_events = finding.tied_events;
  r.reasons.insert(r.reasons.begin(), finding.reasons.begin(), finding.reasons.end());
  if (rule != nullptr && has_tag(rule->tags, rule_tag::kFamilyFallback)) {
    // Only the family is known (an NCCL warning, an import failure, ...): its category is
    // likely right, what exactly failed is not checked by any rule.
    if (r.confidence == Confidence::High) r.confidence = Confidence::Medium;
    r.reasons.push_back("recognised only by its family's catch-all rule (" + rule->id +
                        "), not by a rule for this exact message");
  }
  return r;
}

std::vector<SymptomGroup> group_symptoms(const std::vector<TimelineEntry>& timeline,
                                         const std::optional<Finding>& finding,
                                         const RuleMatcher& matcher) {
  // One slot per rule (plus one for tracebacks no rule knows), indexed directly: a big job has
  // tens of thousands of symptom events, so no string keys per event. Ranks are gathered as
  // they come and sorted once at the end; hosts, each a string compared many times over in a
  // sort (tree d: 34,000 events on 512 hosts), go into a hash set first.
  struct Slot {
    bool used = false;
    SymptomGroup group;
    std::vector<int> ranks;
    std::unordered_set<std::string_view> hosts;  // views of the events' and captured_hosts' strings
  };
  const std::vector<Rule>& rules = matcher.rules();
  std::vector<Slot> slots(rules.size() + 1);
  std::vector<std::size_t> order;  // slots by first appearance on the timeline
  std::optional<std::int64_t> root_us;
  // How the root's time is known: printed (to the millisecond or the second), or only bounded
  // by its stream's stamps (root_us is then the upper bound, root_after_us the lower).
  bool root_explicit = false;
  std::optional<std::int64_t> root_after_us;
  if (finding) {
    root_us = timeline[finding->index].key_us;
    const Event& root = *timeline[finding->index].event;
    root_explicit = root.time.source == TimeSource::Explicit;
    if (!root_explicit && root.time.known()) root_after_us = root.time.us;
  }
  const JobHosts job_hosts = hosts_of_ranks(timeline, finding);
  // Rules whose message names the host (`srun: error: node2: task 1: ...`, slurmstepd's `ON
  // node1`): the host of a line no prefix, rank or task ties to one. Only these rules' events
  // pay for a capture, and each of them once.
  std::vector<char> names_host(rules.size(), 0);
  for (std::size_t k = 0; k < rules.size(); ++k)
    names_host[k] = rules[k].regex.find("(?P<host>") != std::string::npos;
  std::deque<std::string> captured_hosts;  // stable addresses for the slots' host pointers
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    // In time order the events lie scattered over the files' lists, each a few cache misses
    // (tree d: 34,000 of them): ask for those a little ahead, so that the misses overlap.
    if (i + kPrefetchAhead < timeline.size()) prefetch_event(*timeline[i + kPrefetchAhead].event);
    if (i + kPrefetchAhead / 2 < timeline.size()) {
      const Event& soon = *timeline[i + kPrefetchAhead / 2].event;
      if (!soon.matches.empty()) __builtin_prefetch(soon.matches.data());
    }
    if (finding && (i == finding->index || i == finding->location)) continue;
    const Event& e = *timeline[i].event;
    if (e.kind == EventKind::ChildFailure) continue;
    if (e.kind == EventKind::Traceback && e.traceback->incomplete) continue;
    RuleRole role = event_role(e, matcher);
    if (role == RuleRole::Context) continue;
    const Rule* rule = best_rule(e, matcher);
    const std::size_t index = rule ? static_cast<std::size_t>(rule - rules.data()) : rules.size();
    Slot& slot = slots[index];
    SymptomGroup& g = slot.group;
    if (!slot.used) {
      slot.used = true;
      order.push_back(index);
      g.rule = rule ? rule->id : kUnclassifiedRule;
      g.title = rule ? rule->title : "Python exception not recognised by any rule";
      g.category = rule ? rule->category : Category::Unknown;
      g.role = role;
      g.example = e.text.substr(0, 300);
      g.first_file = timeline[i].file->file.display_path;
      g.first_line = e.origin.line;
    }
    ++g.count;
    if (e.who.rank >= 0) slot.ranks.push_back(e.who.rank);
    if (!e.who.host.empty()) slot.hosts.insert(e.who.host);
    else if (const std::string* h = job_hosts.find(e.who)) slot.hosts.insert(*h);
    else if (rule != nullptr && names_host[index]) {
      std::map<std::string, std::string> fields = matcher.fields(e.matches.front(), matched_text(e));
      auto it = fields.find("host");
      if (it != fields.end() && !it->second.empty() && it->second != "localhost") {
        captured_hosts.push_back(short_host(it->second));
        slot.hosts.insert(captured_hosts.back());
      }
    }
    if (auto t = timeline[i].key_us) {
      if (!g.first_us || *t < *g.first_us) g.first_us = t;
      if (!g.last_us || *t > *g.last_us) g.last_us = t;
    }
  }
  std::vector<SymptomGroup> out;
  for (std::size_t index : order) {
    Slot& slot = slots[index];
    SymptomGroup g = std::move(slot.group);
    sort_unique(slot.ranks);
    g.ranks = std::move(slot.ranks);
    g.hosts.assign(slot.hosts.begin(), slot.hosts.end());
    std::sort(g.hosts.begin(), g.hosts.end());
    if (root_us && g.first_us) g.delay_us = symptom_delay(*g.first_us, *root_us, root_explicit, root_after_us);
    out.push_back(std::move(g));
  }
  // What the reader needs first: other causes, then symptoms, then teardown noise; within a
  // role, timeline order (stable).
  auto rank_of = [](const SymptomGroup& g) {
    return g.role == RuleRole::Cause ? 0 : g.role == RuleRole::Symptom ? 1 : 2;
  };
  std::stable_sort(out.begin(), out.end(), [&](const SymptomGroup& a, const SymptomGroup& b) {
    return rank_of(a) < rank_of(b);
  });
  return out;
}

}  // namespace megatriage
