#include <doctest/doctest.h>

#include "decide/classify.h"
#include "decide/rank_timeline.h"

using namespace megatriage;

namespace {

Rule rule(std::string id, RuleRole role, std::string literal) {
  Rule r;
  r.id = std::move(id);
  r.title = r.id;
  r.category = role == RuleRole::Cause ? Category::Oom : Category::Nccl;
  r.applies_to = AppliesTo::Line;
  r.role = role;
  r.regex = literal;
  r.needles = {literal};
  r.source = "test.json:1";
  return r;
}

Event line(const RuleMatcher& m, std::string text, std::uint64_t at, int rank, std::string host = {}) {
  Event e;
  e.kind = EventKind::RuleLine;
  e.origin.line = at;
  e.text = std::move(text);
  e.who.rank = rank;
  e.who.host = std::move(host);
  e.matches = m.match(e.text, AppliesTo::Line);
  REQUIRE(!e.matches.empty());
  return e;
}

Event stamped(Event e, std::int64_t us) {
  e.time = {us, TimeSource::Explicit, false};
  return e;
}

}  // namespace

TEST_SUITE("rank_timeline") {
TEST_CASE("rank_timeline: one mark per rank and group, the first event with a count; a row per rank named") {
  DiagnosticSink d;
  RuleMatcher m({rule("cuda.oom", RuleRole::Cause, "CUDA out of memory"),
                 rule("nccl.watchdog", RuleRole::Symptom, "Watchdog caught")},
                d);
  std::vector<FileResult> files(2);
  files[0].file.display_path = "logs/a.err";
  files[1].file.display_path = "logs/rank7.err";
  files[1].file.hint.rank = 7;  // a rank's file with no event still gets its row
  auto& ev = files[0].events;
  ev.push_back(stamped(line(m, "CUDA out of memory", 10, 1), 1'000'000));
  ev.push_back(stamped(line(m, "Watchdog caught 1", 20, 0, "node0"), 2'000'000));
  ev.push_back(stamped(line(m, "Watchdog caught 2", 21, 0), 3'000'000));  // same rank: counted
  Event bounded = line(m, "Watchdog caught 3", 30, 2);
  bounded.time = {1'500'000, TimeSource::Inherited, false};
  bounded.before_us = 4'000'000;
  ev.push_back(bounded);
  ev.push_back(stamped(line(m, "Watchdog caught 4", 40, -1, "node9"), 2'500'000));  // no rank: by host
  Event child;
  child.kind = EventKind::ChildFailure;
  child.origin.line = 50;
  child.child->rank = 5;  // the launcher's table names rank 5: a row, no mark
  child.time = {5'000'000, TimeSource::Explicit, false};
  ev.push_back(child);

  std::vector<TimelineEntry> timeline;
  for (const Event& e : ev) timeline.push_back({&e, &files[0], ordering_time(e)});
  std::stable_sort(timeline.begin(), timeline.end(),
                   [](const TimelineEntry& a, const TimelineEntry& b) { return *a.key_us < *b.key_us; });
  Finding f;
  f.index = f.location = 0;
  f.who.rank = 1;
  const std::optional<Finding> finding = f;
  const std::vector<SymptomGroup> symptoms = group_symptoms(timeline, finding, m);
  REQUIRE(symptoms.size() == 1);

  const RankTimeline t = build_rank_timeline(timeline, finding, m, symptoms, files);
  CHECK(t.ranks == std::vector<int>{0, 1, 2, 5, 7});
  CHECK(t.rank_hosts == std::vector<std::string>{"node0", "", "", "", ""});
  REQUIRE(t.marks.size() == 4);
  const TimelineMark& root = t.marks[0];
  CHECK(root.group == TimelineMark::kRoot);
  CHECK(root.rank == 1);
  CHECK(root.time_us == 1'000'000);
  CHECK(root.time_basis == TimeBasis::Explicit);
  CHECK(root.file == "logs/a.err");
  CHECK(root.line == 10);
  // Then in time order: rank 0 (two events, one mark), the host-only line, rank 2's bounded one.
  CHECK(t.marks[1].rank == 0);
  CHECK(t.marks[1].count == 2);
  CHECK(t.marks[1].text == "Watchdog caught 1");
  CHECK(t.marks[1].host == "node0");
  CHECK(t.marks[2].rank == -1);
  CHECK(t.marks[2].host == "node9");
  CHECK(t.marks[3].rank == 2);
  CHECK(t.marks[3].time_basis == TimeBasis::Bounded);
  CHECK(t.marks[3].after_us == 1'500'000);
  CHECK(t.marks[3].before_us == 4'000'000);
  CHECK_FALSE(t.marks[3].time_us.has_value());
  for (std::size_t i = 1; i < t.marks.size(); ++i) CHECK(t.marks[i].group == 0);
}

TEST_CASE("rank_timeline: a long line is cut at a character boundary") {
  DiagnosticSink d;
  RuleMatcher m({rule("nccl.watchdog", RuleRole::Symptom, "Watchdog caught")}, d);
  std::vector<FileResult> files(1);
  std::string text = "Watchdog caught " + std::string(kMarkTextBytes, 'x');
  text.replace(kMarkTextBytes - 1, 2, "\xc3\xa9");  // é across the cap
  files[0].events.push_back(line(m, text, 1, 0));
  std::vector<TimelineEntry> timeline{{&files[0].events[0], &files[0], std::nullopt}};
  const std::vector<SymptomGroup> symptoms = group_symptoms(timeline, std::nullopt, m);
  const RankTimeline t = build_rank_timeline(timeline, std::nullopt, m, symptoms, files);
  REQUIRE(t.marks.size() == 1);
  CHECK(t.marks[0].text == text.substr(0, kMarkTextBytes - 1) + "…");
  CHECK(t.marks[0].time_basis == TimeBasis::None);
}
}
