// rule_tags: the `tags` key of a rule (shape, repeats, type), the vocabulary the code asks about,
// and `rules check`'s warning when no loaded rule carries a tag the code needs.
#include "match/rule_tags.h"
#include "match/rules.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace megatriage {
namespace {

// One valid rule with `tags` spliced in as given (raw JSON), followed by a valid rule without tags.
std::vector<Rule> parse_with_tags(const std::string& tags_json, DiagnosticSink& d) {
  const std::string rule =
      R"({"id": "test.tagged", "title": "T", "category": "nccl", "applies_to": "line", "role": "cause", )"
      R"("tags": )" + tags_json +
      R"(, "needles": ["boom"], "regex": "boom", "explain": "e", "samples": {"match": ["boom"], "no_match": ["x"]}})";
  const std::string plain =
      R"({"id": "test.plain", "title": "T", "category": "nccl", "applies_to": "line", "role": "cause", )"
      R"("needles": ["bang"], "regex": "bang", "explain": "e", "samples": {"match": ["bang"], "no_match": ["x"]}})";
  return parse_rules_text("{\"rules\": [\n" + rule + ",\n" + plain + "\n]}\n", "t.json", d);
}

const Diagnostic* find_code(const DiagnosticSink& d, const std::string& code) {
  for (const auto& x : d.items())
    if (x.code == code) return &x;
  return nullptr;
}

}  // namespace

TEST_SUITE("rule_tags") {

TEST_CASE("rule_tags: tags load in order; a rule without them has none") {
  DiagnosticSink d;
  auto rules = parse_with_tags(R"(["hang", "address-in-use", "x2"])", d);
  CHECK(d.empty());
  REQUIRE(rules.size() == 2);
  REQUIRE(rules[0].tags.size() == 3);
  CHECK(rules[0].tags[0] == "hang");
  CHECK(rules[0].tags[1] == "address-in-use");
  CHECK(rules[0].tags[2] == "x2");
  CHECK(rules[1].tags.empty());
  CHECK(has_tag(rules[0].tags, rule_tag::kHang));
  CHECK_FALSE(has_tag(rules[0].tags, "han"));  // a whole tag, never a piece of one
  CHECK_FALSE(has_tag(rules[1].tags, rule_tag::kHang));
}

TEST_CASE("rule_tags: a malformed tags value drops the rule with rules.bad-value") {
  const char* bad[] = {R"("hang")",          R"([1])",           R"(["Hang"])",  R"(["host_oom"])",
                       R"(["host--oom"])",   R"(["-hang"])",     R"(["hang-"])", R"([""])",
                       R"(["hang", "hang"])", R"(["has space"])"};
  for (const char* tags : bad) {
    CAPTURE(tags);
    DiagnosticSink d;
    auto rules = parse_with_tags(tags, d);
    const Diagnostic* x = find_code(d, "rules.bad-value");
    REQUIRE(x != nullptr);
    CHECK(x->message.find("rule 'test.tagged'") != std::string::npos);
    CHECK(x->message.find("tag") != std::string::npos);
    REQUIRE(rules.size() == 1);
    CHECK(rules[0].id == "test.plain");
  }
}

TEST_CASE("rule_tags: the code's vocabulary is kebab-case, unique, and explained") {
  std::vector<std::string_view> seen;
  for (const CodeTag& t : code_rule_tags()) {
    CAPTURE(t.tag);
    CHECK(std::find(seen.begin(), seen.end(), t.tag) == seen.end());
    seen.push_back(t.tag);
    CHECK(!t.used_for.empty());
    // The loader must accept every tag the code asks for.
    DiagnosticSink d;
    auto rules = parse_with_tags("[\"" + std::string(t.tag) + "\"]", d);
    CHECK(d.empty());
    CHECK(rules.size() == 2);
  }
  CHECK(seen.size() >= 12);
}

TEST_CASE("rule_tags: rules check names each tag the code asks for that no loaded rule carries") {
  Rule hang;
  hang.id = "nccl.anything";
  hang.tags = {"hang"};
  DiagnosticSink d;
  const int missing = check_code_tags({hang}, d);
  CHECK(missing == static_cast<int>(code_rule_tags().size()) - 1);
  REQUIRE(d.items().size() == 1);  // one diagnostic names them all
  const Diagnostic& x = d.items()[0];
  CHECK(x.code == "rules.tag-not-carried");
  CHECK(x.severity == Severity::Warning);
  for (const CodeTag& t : code_rule_tags()) {
    CAPTURE(t.tag);
    const bool named = x.message.find("\"" + std::string(t.tag) + "\" (") != std::string::npos;
    CHECK(named == (t.tag != rule_tag::kHang));
  }
  CHECK(x.hint.find("\"tags\": [\"host-oom\"]") != std::string::npos);
  DiagnosticSink none;
  CHECK(check_code_tags({}, none) == static_cast<int>(code_rule_tags().size()));
}

TEST_CASE("rule_tags: the repository's rules carry every tag the code asks for") {
  DiagnosticSink d;
  auto rules = load_rules({default_rules_dir()}, d);
  DiagnosticSink tags;
  CHECK(check_code_tags(rules, tags) == 0);
  for (const auto& x : tags.items()) FAIL_CHECK(x.message);
  // The rules the decisions were written for, before they asked for tags.
  auto tags_of = [&](const std::string& id) {
    for (const Rule& r : rules)
      if (r.id == id) return r.tags;
    FAIL_CHECK("missing rule " << id);
    return std::vector<std::string>{};
  };
  CHECK(has_tag(tags_of("nccl.watchdog-timeout"), rule_tag::kHang));
  CHECK(has_tag(tags_of("nccl.heartbeat-timeout"), rule_tag::kHang));
  CHECK(has_tag(tags_of("host.oom-kill"), rule_tag::kOomKillEvents));
  CHECK(has_tag(tags_of("host.srun-oom"), rule_tag::kHostOom));
  CHECK_FALSE(has_tag(tags_of("cuda.oom"), rule_tag::kHostOom));
  CHECK(has_tag(tags_of("megatron.fsdp-cuda-device-max-connections"), rule_tag::kFsdp));
  CHECK_FALSE(has_tag(tags_of("megatron.cuda-device-max-connections"), rule_tag::kFsdp));
  CHECK(has_tag(tags_of("slurm.time-limit"), rule_tag::kTimeLimit));
}

}  // TEST_SUITE
}  // namespace megatriage
