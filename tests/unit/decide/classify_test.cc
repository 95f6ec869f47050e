#include <doctest/doctest.h>

#include <algorithm>

#include "decide/classify.h"
#include "match/rule_tags.h"

using namespace megatriage;

namespace {

Rule line_rule(std::string id, Category category, std::vector<std::string> tags) {
  Rule r;
  r.id = std::move(id);
  r.title = "t";
  r.category = category;
  r.applies_to = AppliesTo::Line;
  r.role = RuleRole::Symptom;
  r.regex = "NCCL WARN (?P<message>[^\\n]*)";
  r.needles = {"NCCL WARN"};
  r.explain = "NCCL: {message}";
  r.tags = std::move(tags);
  r.source = "test.json:1";
  return r;
}

// One RuleLine event matched by the matcher's rule 0, chosen with `confidence`.
RootCauseReport classify_one(const RuleMatcher& m, Confidence confidence) {
  FileResult file;
  file.file.display_path = "logs/job.err";
  Event e;
  e.kind = EventKind::RuleLine;
  e.origin.line = 7;
  e.text = "node1:1:1 [0] init.cc:263 NCCL WARN Cuda failure 'initialization error'";
  e.matches = m.match(e.text, AppliesTo::Line);
  REQUIRE(!e.matches.empty());
  file.events.push_back(std::move(e));
  std::vector<TimelineEntry> timeline{{&file.events[0], &file, 1000}};
  Finding f;
  f.confidence = confidence;
  f.reasons = {"earliest line"};
  return classify_root(f, timeline, m);
}

bool mentions(const std::vector<std::string>& reasons, const std::string& part) {
  return std::any_of(reasons.begin(), reasons.end(),
                     [&](const std::string& r) { return r.find(part) != std::string::npos; });
}

}  // namespace

TEST_SUITE("classify") {
TEST_CASE("classify: rank sets are written compactly") {
  CHECK(compact_ranks({}) == "");
  CHECK(compact_ranks({3}) == "3");
  CHECK(compact_ranks({0, 1, 2, 3, 7, 9, 10}) == "0-3,7,9-10");
}

TEST_CASE("classify: a root only a family's catch-all rule knows is at most medium confidence") {
  DiagnosticSink d;
  SUBCASE("catch-all: high becomes medium, and the reason says why") {
    RuleMatcher m({line_rule("nccl.warn", Category::Nccl, {std::string(rule_tag::kFamilyFallback)})}, d);
    RootCauseReport r = classify_one(m, Confidence::High);
    CHECK(r.category == Category::Nccl);
    CHECK(r.confidence == Confidence::Medium);
    CHECK(mentions(r.reasons, "catch-all rule (nccl.warn)"));
    CHECK(r.explain == "NCCL: Cuda failure 'initialization error'");
    CHECK(classify_one(m, Confidence::Low).confidence == Confidence::Low);
  }
  SUBCASE("a rule for the message keeps the root's confidence") {
    RuleMatcher m({line_rule("nccl.warn-cuda-failure", Category::Nccl, {})}, d);
    RootCauseReport r = classify_one(m, Confidence::High);
    CHECK(r.confidence == Confidence::High);
    CHECK_FALSE(mentions(r.reasons, "catch-all"));
  }
}
}
