// rules: loading, validation diagnostics, directory order, and the repository's own rules/.
#include "base/run_cache.h"
#include "match/rule_matcher.h"
#include "match/rules.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

namespace megatriage {
namespace {

// A minimal valid rule; `extra` is spliced in before the closing brace (e.g. `"priority": 5,`)
// and `fields` replace single parts when given.
struct RuleText {
  std::string id = "test.one";
  std::string category = "\"oom\"";
  std::string applies_to = "\"line\"";
  std::string role = "\"cause\"";
  std::string needles = R"(["boom"])";
  std::string regex = R"j("boom (?P<n>[0-9]+)")j";
  std::string explain = R"("boom {n}")";
  std::string samples = R"({"match": [{"text": "x boom 42", "fields": {"n": "42"}}], "no_match": ["x bang 42"]})";
  std::string extra;

  std::string str() const {
    return "{\"id\": \"" + id + "\", \"title\": \"T\", \"category\": " + category +
           ", \"applies_to\": " + applies_to + ", \"role\": " + role + ", " + extra +
           "\"needles\": " + needles + ", \"regex\": " + regex + ", \"explain\": " + explain +
           ", \"checks\": [\"check {n}\"], \"samples\": " + samples + "}";
  }
};

std::string file_of(const std::vector<std::string>& rules) {
  std::string s = "{\"rules\": [\n";
  for (std::size_t i = 0; i < rules.size(); ++i) s += (i ? ",\n" : "") + rules[i];
  return s + "\n]}\n";
}

bool has_code(const DiagnosticSink& d, const std::string& code) {
  return std::any_of(d.items().begin(), d.items().end(),
                     [&](const Diagnostic& x) { return x.code == code; });
}

const Diagnostic* find_code(const DiagnosticSink& d, const std::string& code) {
  for (const auto& x : d.items()) {
    if (x.code == code) return &x;
  }
  return nullptr;
}

/// Parses one broken rule next to a valid one; checks the code and that the valid one survives.
void expect_dropped(const RuleText& broken, const std::string& code) {
  RuleText good;
  good.id = "test.good";
  DiagnosticSink d;
  auto rules = parse_rules_text(file_of({broken.str(), good.str()}), "t.json", d);
  CAPTURE(broken.str());
  CHECK(has_code(d, code));
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].id == "test.good");
}

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("megatriage-rules-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

}  // namespace

TEST_SUITE("rules") {

TEST_CASE("rules: a valid rule loads with every field") {
  RuleText r;
  r.extra = "\"priority\": 7, ";
  DiagnosticSink d;
  auto rules = parse_rules_text(file_of({r.str()}), "cuda.json", d);
  CHECK(d.empty());
  REQUIRE(rules.size() == 1);
  const Rule& x = rules[0];
  CHECK(x.id == "test.one");
  CHECK(x.title == "T");
  CHECK(x.category == Category::Oom);
  CHECK(x.applies_to == AppliesTo::Line);
  CHECK(x.role == RuleRole::Cause);
  CHECK(x.priority == 7);
  CHECK(x.needles == std::vector<std::string>{"boom"});
  CHECK(x.explain == "boom {n}");
  CHECK(x.checks == std::vector<std::string>{"check {n}"});
  REQUIRE(x.match_samples.size() == 1);
  CHECK(x.match_samples[0].fields.at("n") == "42");
  CHECK(x.no_match_samples == std::vector<std::string>{"x bang 42"});
  CHECK(x.source == "cuda.json:2");
}

TEST_CASE("rules: field_types give a capture its type; undeclared ones are text") {
  RuleText r;
  r.extra = "\"field_types\": {\"n\": \"int\"}, ";
  DiagnosticSink d;
  auto rules = parse_rules_text("{\"rules\": [" + r.str() + "]}", "t.json", d);
  REQUIRE(rules.size() == 1);
  CHECK(d.empty());
  CHECK(rules[0].field_types.at("n") == FactType::Int);
  RuleText plain;
  auto untyped = parse_rules_text("{\"rules\": [" + plain.str() + "]}", "t.json", d);
  REQUIRE(untyped.size() == 1);
  CHECK(untyped[0].field_types.empty());
}

TEST_CASE("rules: enum values parse and priority defaults to 0") {
  RuleText r;
  r.category = "\"nccl\"";
  r.applies_to = "\"exception\"";
  r.role = "\"teardown\"";
  r.samples = R"({"match": ["boom 1"]})";  // string shorthand, no_match optional
  DiagnosticSink d;
  auto rules = parse_rules_text(file_of({r.str()}), "t.json", d);
  CHECK(d.empty());
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].category == Category::Nccl);
  CHECK(rules[0].applies_to == AppliesTo::Exception);
  CHECK(rules[0].role == RuleRole::Teardown);
  CHECK(rules[0].priority == 0);
}

TEST_CASE("rules: role_name covers every role") {
  CHECK(std::string(role_name(RuleRole::Cause)) == "cause");
  CHECK(std::string(role_name(RuleRole::Symptom)) == "symptom");
  CHECK(std::string(role_name(RuleRole::Context)) == "context");
  CHECK(std::string(role_name(RuleRole::Teardown)) == "teardown");
}

TEST_CASE("rules: comments are allowed in rule files") {
  RuleText r;
  const std::string text = "// header comment\n{ /* block */ \"rules\": [\n  // one rule\n" +
                           r.str() + "\n]}\n";
  DiagnosticSink d;
  auto rules = parse_rules_text(text, "t.json", d);
  CHECK(d.empty());
  CHECK(rules.size() == 1);
}

TEST_CASE("rules: json-syntax reports file:line:column and skips the file") {
  const std::string text = "{\"rules\": [\n  {\"id\": \"a.b\",\n   \"title\" \"x\"}\n]}\n";
  DiagnosticSink d;
  auto rules = parse_rules_text(text, "bad.json", d);
  CHECK(rules.empty());
  const Diagnostic* x = find_code(d, "rules.json-syntax");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::Error);
  CHECK(x->line == 3);
  // nlohmann reports the last character it read: the closing quote of "x" (column 14).
  CHECK(x->message.rfind("bad.json:3:14: ", 0) == 0);
  CHECK(x->message.find("syntax error") != std::string::npos);
  CHECK(x->message.find("[json.exception") == std::string::npos);
}

TEST_CASE("rules: json-syntax on an empty file and on a truncated file") {
  DiagnosticSink d1;
  CHECK(parse_rules_text("", "e.json", d1).empty());
  CHECK(has_code(d1, "rules.json-syntax"));
  DiagnosticSink d2;
  CHECK(parse_rules_text("{\"rules\": [", "t.json", d2).empty());
  CHECK(has_code(d2, "rules.json-syntax"));
}

TEST_CASE("rules: file structure problems") {
  SUBCASE("top level is not an object") {
    DiagnosticSink d;
    CHECK(parse_rules_text("[]", "t.json", d).empty());
    CHECK(has_code(d, "rules.bad-value"));
  }
  SUBCASE("no rules key") {
    DiagnosticSink d;
    CHECK(parse_rules_text("{}", "t.json", d).empty());
    CHECK(has_code(d, "rules.missing-key"));
  }
  SUBCASE("rules is not an array") {
    DiagnosticSink d;
    CHECK(parse_rules_text("{\"rules\": 3}", "t.json", d).empty());
    CHECK(has_code(d, "rules.bad-value"));
  }
  SUBCASE("unknown top-level key is reported, rules still load") {
    RuleText r;
    DiagnosticSink d;
    auto rules = parse_rules_text("{\"version\": 1, \"rules\": [" + r.str() + "]}", "t.json", d);
    CHECK(has_code(d, "rules.unknown-key"));
    CHECK(rules.size() == 1);
  }
  SUBCASE("a rule that is not an object") {
    DiagnosticSink d;
    RuleText r;
    auto rules = parse_rules_text(file_of({"42", r.str()}), "t.json", d);
    CHECK(has_code(d, "rules.bad-value"));
    CHECK(rules.size() == 1);
  }
}

TEST_CASE("rules: each broken rule is dropped, the others load") {
  RuleText r;
  SUBCASE("unknown-key") {
    r.extra = "\"severity\": \"error\", ";
    expect_dropped(r, "rules.unknown-key");
  }
  SUBCASE("unknown key inside samples") {
    r.samples = R"({"match": ["boom 1"], "nomatch": []})";
    expect_dropped(r, "rules.unknown-key");
  }
  SUBCASE("missing-key") {
    r.samples = R"({"no_match": ["x"]})";
    expect_dropped(r, "rules.missing-key");
  }
  SUBCASE("bad-value: category") {
    r.category = "\"network\"";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: role") {
    r.role = "\"root\"";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: a field type that is not int, float, bool or text") {
    r.extra = "\"field_types\": {\"n\": \"integer\"}, ";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: field_types is not an object") {
    r.extra = "\"field_types\": [\"n\"], ";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("field-type: a typed field that is no group of the regex") {
    r.extra = "\"field_types\": {\"m\": \"int\"}, ";
    expect_dropped(r, "rules.field-type");
  }
  SUBCASE("field-type: a sample captures what is not the declared type") {
    r.extra = "\"field_types\": {\"n\": \"bool\"}, ";  // 42 is no boolean
    expect_dropped(r, "rules.field-type");
  }
  SUBCASE("bad-value: applies_to") {
    r.applies_to = "\"slurm\"";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: id form") {
    r.id = "Test.One";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: id without family") {
    r.id = "one";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: priority type") {
    r.extra = "\"priority\": \"high\", ";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: needles type") {
    r.needles = "\"boom\"";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: no positive sample") {
    r.samples = R"({"match": [], "no_match": ["x"]})";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-value: empty needles") {
    r.needles = "[]";
    expect_dropped(r, "rules.bad-value");
  }
  SUBCASE("bad-regex quotes RE2's error") {
    r.regex = R"("boom (?P<n>[0-9]+")";
    RuleText good;
    good.id = "test.good";
    DiagnosticSink d;
    auto rules = parse_rules_text(file_of({r.str(), good.str()}), "t.json", d);
    CHECK(rules.size() == 1);
    const Diagnostic* x = find_code(d, "rules.bad-regex");
    REQUIRE(x != nullptr);
    CHECK(x->message.find("missing )") != std::string::npos);
    CHECK(x->message.find("rule 'test.one'") != std::string::npos);
    CHECK(x->line == 2);
  }
  SUBCASE("bad-regex: lookaround is not RE2") {
    r.regex = R"j("boom(?=x)")j";
    expect_dropped(r, "rules.bad-regex");
  }
  SUBCASE("unknown-placeholder in explain") {
    r.explain = R"("boom {count}")";
    expect_dropped(r, "rules.unknown-placeholder");
  }
  SUBCASE("unknown-placeholder in checks") {
    r.extra = "";
    RuleText c = r;
    std::string s = c.str();
    s.replace(s.find("check {n}"), 9, "check {m}");
    RuleText good;
    good.id = "test.good";
    DiagnosticSink d;
    auto rules = parse_rules_text(file_of({s, good.str()}), "t.json", d);
    CHECK(has_code(d, "rules.unknown-placeholder"));
    CHECK(rules.size() == 1);
  }
  SUBCASE("sample-failed: positive sample does not match") {
    r.samples = R"({"match": ["x bang 42"]})";
    expect_dropped(r, "rules.sample-failed");
  }
  SUBCASE("sample-failed: negative sample matches") {
    r.samples = R"({"match": ["boom 1"], "no_match": ["boom 2"]})";
    expect_dropped(r, "rules.sample-failed");
  }
  SUBCASE("sample-failed: wrong field value") {
    r.samples = R"({"match": [{"text": "boom 42", "fields": {"n": "43"}}]})";
    expect_dropped(r, "rules.sample-failed");
  }
  SUBCASE("sample-failed: field is not a group") {
    r.samples = R"({"match": [{"text": "boom 42", "fields": {"count": "42"}}]})";
    expect_dropped(r, "rules.sample-failed");
  }
  SUBCASE("needle-missing") {
    r.needles = R"(["bang"])";
    expect_dropped(r, "rules.needle-missing");
  }
  SUBCASE("needle-missing: the needle must be inside the matched text") {
    r.needles = R"(["prefix"])";
    r.samples = R"({"match": ["prefix boom 4"]})";
    expect_dropped(r, "rules.needle-missing");
  }
  SUBCASE("time-dependent: a line rule that matches one time of day only") {
    r.regex = R"j("boom (?P<n>[0-9]+) at 10:")j";
    r.samples = R"({"match": ["[W1129 10:00:00.1 x] boom 42 at 10:00:01"], "no_match": ["x bang 42"]})";
    expect_dropped(r, "rules.time-dependent");
  }
  SUBCASE("time-dependent: stamps matched by shape are fine") {
    r.regex = R"j("\\[W[0-9]+ [0-9:.]+ x\\] boom (?P<n>[0-9]+)")j";
    r.samples = R"({"match": ["[W1129 10:00:00.123 x] boom 42"], "no_match": ["[W1129 10:00:00.123 x] bang 42"]})";
    DiagnosticSink d;
    auto rules = parse_rules_text(file_of({r.str()}), "t.json", d);
    CHECK_FALSE(has_code(d, "rules.time-dependent"));
    CHECK(rules.size() == 1);
  }
  SUBCASE("needle-too-short") {
    r.needles = R"(["b", "boom"])";
    expect_dropped(r, "rules.needle-too-short");
  }
}

TEST_CASE("rules: duplicate-id inside one file keeps the first") {
  RuleText a, b;
  b.explain = R"("second {n}")";
  DiagnosticSink d;
  auto rules = parse_rules_text(file_of({a.str(), b.str()}), "t.json", d);
  CHECK(has_code(d, "rules.duplicate-id"));
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].explain == "boom {n}");
}

TEST_CASE("rules: source lines point at each rule") {
  RuleText a, b;
  b.id = "test.two";
  DiagnosticSink d;
  auto rules = parse_rules_text(file_of({a.str(), b.str()}), "f.json", d);
  REQUIRE(rules.size() == 2);
  CHECK(rules[0].source == "f.json:2");
  CHECK(rules[1].source == "f.json:3");
}

TEST_CASE("rules: check_rule_samples reports problems of hand-built rules") {
  Rule ok;
  ok.id = "test.ok";
  ok.regex = "boom";
  ok.needles = {"boom"};
  ok.match_samples = {{"a boom", {}}};
  ok.no_match_samples = {"bang"};
  ok.source = "x.json:4";
  DiagnosticSink d;
  CHECK(check_rule_samples({ok}, d) == 0);
  CHECK(d.empty());

  Rule bad = ok;
  bad.id = "test.bad";
  bad.no_match_samples = {"boom"};
  bad.match_samples.push_back({"bang", {}});
  DiagnosticSink d2;
  CHECK(check_rule_samples({ok, bad}, d2) == 2);
  const Diagnostic* x = find_code(d2, "rules.sample-failed");
  REQUIRE(x != nullptr);
  CHECK(x->path == "x.json");
  CHECK(x->line == 4);
  CHECK(x->count == 2);  // folded by the sink: same code, same file

  Rule broken = ok;
  broken.regex = "(";
  DiagnosticSink d3;
  CHECK(check_rule_samples({broken}, d3) == 1);
  CHECK(has_code(d3, "rules.bad-regex"));
}

TEST_CASE("rules: load_rules reads *.json sorted by name; later directories override") {
  TempDir one("one"), two("two");
  RuleText a, b, c;
  b.id = "test.two";
  c.id = "test.three";
  one.write("b.json", file_of({a.str()}));
  RuleText a_dup = a;
  a_dup.explain = R"("from a.json {n}")";
  one.write("a.json", file_of({a_dup.str(), c.str()}));  // sorted first: its test.one wins
  one.write("notes.txt", "not a rule file");
  RuleText a_over = a;
  a_over.explain = R"("override {n}")";
  two.write("z.json", file_of({a_over.str(), b.str()}));

  SUBCASE("one directory: duplicate across files keeps the first file's rule") {
    DiagnosticSink d;
    auto rules = load_rules({one.path.string()}, d);
    REQUIRE(rules.size() == 2);
    CHECK(rules[0].id == "test.one");
    CHECK(rules[0].explain == "from a.json {n}");
    CHECK(rules[1].id == "test.three");
    const Diagnostic* x = find_code(d, "rules.duplicate-id");
    REQUIRE(x != nullptr);
    CHECK(x->message.find("a.json:2") != std::string::npos);
  }
  SUBCASE("two directories: the later one overrides, recorded as info") {
    DiagnosticSink d;
    auto rules = load_rules({one.path.string(), two.path.string()}, d);
    REQUIRE(rules.size() == 3);  // sorted by id
    CHECK(rules[0].id == "test.one");
    CHECK(rules[0].explain == "override {n}");
    CHECK(rules[0].source.find("z.json") != std::string::npos);
    CHECK(rules[1].id == "test.three");
    CHECK(rules[2].id == "test.two");
    const Diagnostic* x = find_code(d, "rules.override");
    REQUIRE(x != nullptr);
    CHECK(x->severity == Severity::Info);
  }
  SUBCASE("reverse order: the first directory wins") {
    DiagnosticSink d;
    auto rules = load_rules({two.path.string(), one.path.string()}, d);
    REQUIRE(rules.size() == 3);
    CHECK(rules[0].explain == "from a.json {n}");
  }
}

TEST_CASE("rules: load_rules gives the same rules and diagnostics on any number of threads") {
  TempDir one("one"), two("two"), empty("empty");
  RuleText a, b, bad;
  b.id = "test.two";
  bad.id = "test.bad";
  bad.regex = R"("(")";
  one.write("a.json", file_of({a.str(), bad.str()}));
  one.write("b.json", file_of({a.str()}));  // a duplicate id
  one.write("c.json", "{ not json");
  two.write("z.json", file_of({a.str(), b.str()}));  // an override
  const std::vector<std::string> dirs{default_rules_dir(), one.path.string(), "/nonexistent/megatriage/rules",
                                      empty.path.string(), two.path.string()};
  auto load = [&](unsigned threads) {
    DiagnosticSink d;
    std::string out;
    for (const Rule& r : load_rules(dirs, d, threads)) out += r.id + " " + r.source + " " + r.explain + "\n";
    for (const Diagnostic& x : d.items()) out += x.code + " " + x.path + " " + x.message + "\n";
    return out;
  };
  const std::string serial = load(1);
  for (const char* code : {"rules.bad-regex", "rules.duplicate-id", "rules.json-syntax", "rules.dir-unreadable",
                           "rules.dir-empty", "rules.override"})
    CHECK(serial.find(code) != std::string::npos);
  for (unsigned threads : {2u, 3u, 16u}) {
    CAPTURE(threads);
    CHECK(load(threads) == serial);
  }
}

TEST_CASE("rules: with a cache, a file that passed its checks is not sample-checked again; same result") {
  TempDir rules("cached"), cache_dir("cache");
  RuleText good, failing;
  failing.id = "test.failing";
  failing.samples = R"({"match": [{"text": "no such text"}], "no_match": []})";
  const std::string good_text = file_of({good.str()});
  const std::string failing_text = file_of({failing.str()});
  rules.write("a.json", good_text);
  rules.write("b.json", failing_text);
  const RunCache cache((cache_dir.path / "c").string());
  auto load = [&](const RunCache* c) {
    DiagnosticSink d;
    std::string out;
    for (const Rule& r : load_rules({rules.path.string()}, d, 2, c)) out += r.id + " " + r.source + "\n";
    for (const Diagnostic& x : d.items()) out += x.code + " " + x.message + "\n";
    return out;
  };
  const std::string plain = load(nullptr);
  CHECK(plain.find("rules.sample-failed") != std::string::npos);
  CHECK(plain.find("test.one") != std::string::npos);
  CHECK(load(&cache) == plain);  // first run: checks everything, remembers a.json only
  CHECK(cache.get(cache.key("rules-checked-json", good_text)) == sample_free_json(good_text));
  CHECK_FALSE(cache.get(cache.key("rules-checked-json", failing_text)).has_value());
  CHECK(load(&cache) == plain);  // a.json from the cache, b.json checked (and failing) again
  {
    // A rule from a file checked before is not compiled at load; the matcher compiles it on
    // first use and matches and captures as a freshly checked one does.
    DiagnosticSink d1, d2;
    std::vector<Rule> cached = load_rules({rules.path.string()}, d1, 1, &cache);
    std::vector<Rule> fresh = load_rules({rules.path.string()}, d2, 1, nullptr);
    REQUIRE(cached.size() == 1);
    REQUIRE(fresh.size() == 1);
    CHECK(cached[0].checked_before);
    CHECK(cached[0].compiled == nullptr);
    CHECK_FALSE(fresh[0].checked_before);
    CHECK(fresh[0].compiled != nullptr);
    RuleMatcher from_cache(std::move(cached), d1), checked(std::move(fresh), d2);
    for (const RuleMatcher* m : {&from_cache, &checked}) {
      const std::vector<RuleMatch> hits = m->match("x boom 42", AppliesTo::Line);
      REQUIRE(hits.size() == 1);
      CHECK(m->field(hits[0], "x boom 42", "n") == std::optional<std::string>("42"));
      CHECK(m->match("x bang 42", AppliesTo::Line).empty());
    }
  }
  // The entry is what skips the samples: one for b.json's text hides its failing sample (any
  // entry does: one that is no JSON has the text parsed instead).
  cache.put(cache.key("rules-checked-json", failing_text), "ok\n");
  const std::string trusted = load(&cache);
  CHECK(trusted.find("rules.sample-failed") == std::string::npos);
  CHECK(trusted.find("test.failing") != std::string::npos);
  // Any change to the text is a different entry: checked again.
  rules.write("b.json", failing_text + " ");
  CHECK(load(&cache).find("rules.sample-failed") != std::string::npos);
}

TEST_CASE("rules: dir-unreadable and dir-empty") {
  DiagnosticSink d;
  auto rules = load_rules({"/nonexistent/megatriage/rules"}, d);
  CHECK(rules.empty());
  const Diagnostic* x = find_code(d, "rules.dir-unreadable");
  REQUIRE(x != nullptr);
  CHECK(x->severity == Severity::Error);

  TempDir empty("empty");
  DiagnosticSink d2;
  CHECK(load_rules({empty.path.string()}, d2).empty());
  CHECK(has_code(d2, "rules.dir-empty"));
}

TEST_CASE("rules: a broken file does not stop the directory") {
  TempDir dir("broken");
  RuleText a;
  dir.write("a.json", "{\"rules\": [ oops ]}");
  dir.write("b.json", file_of({a.str()}));
  DiagnosticSink d;
  auto rules = load_rules({dir.path.string()}, d);
  CHECK(rules.size() == 1);
  const Diagnostic* x = find_code(d, "rules.json-syntax");
  REQUIRE(x != nullptr);
  CHECK(x->message.find("a.json:1:") != std::string::npos);
}

TEST_CASE("rules: file-unreadable") {
  if (::geteuid() == 0) return;  // root reads anything; permissions cannot make it fail
  TempDir dir("unreadable");
  RuleText a;
  dir.write("a.json", file_of({a.str()}));
  std::filesystem::permissions(dir.path / "a.json", std::filesystem::perms::none);
  DiagnosticSink d;
  CHECK(load_rules({dir.path.string()}, d).empty());
  CHECK(has_code(d, "rules.file-unreadable"));
}

TEST_CASE("rules: default_rules_dir honours MEGATRIAGE_RULES_DIR") {
  const char* old = std::getenv("MEGATRIAGE_RULES_DIR");
  const std::string saved = old ? old : "";
  ::setenv("MEGATRIAGE_RULES_DIR", "/some/where", 1);
  CHECK(default_rules_dir() == "/some/where");
  if (old) {
    ::setenv("MEGATRIAGE_RULES_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("MEGATRIAGE_RULES_DIR");
  }
  CHECK(!default_rules_dir().empty());
}

TEST_CASE("rules: a text checked before is read without its samples, every other part the same") {
  const std::string dir = default_rules_dir();
  for (const char* name : {"nccl.json", "cuda.json", "python.json"}) {
    CAPTURE(name);
    std::ifstream in(dir + "/" + name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    DiagnosticSink full_diags, quick_diags;
    const std::vector<Rule> full = parse_rules_text(text, name, full_diags, false);
    const std::vector<Rule> quick = parse_rules_text(text, name, quick_diags, true);
    // As load_rules reads it from the cache: the JSON the check left (half the bytes), and a
    // cache entry that is no JSON, which falls back to the text.
    const std::string checked_json = sample_free_json(text);
    CHECK(checked_json.size() < text.size() / 2 + text.size() / 4);
    CHECK(checked_json.find("\"samples\"") == std::string::npos);
    const std::string garbled = "ok\n";
    DiagnosticSink cached_diags, garbled_diags;
    const std::vector<Rule> cached = parse_rules_text(text, name, cached_diags, true, nullptr, &checked_json);
    const std::vector<Rule> fallback = parse_rules_text(text, name, garbled_diags, true, nullptr, &garbled);
    CHECK(full_diags.items().empty());
    CHECK(quick_diags.items().empty());
    CHECK(cached_diags.items().empty());
    CHECK(garbled_diags.items().empty());
    REQUIRE(quick.size() == full.size());
    REQUIRE(!full.empty());
    for (const std::vector<Rule>* read : {&quick, &cached, &fallback}) {
      REQUIRE(read->size() == full.size());
      for (std::size_t k = 0; k < full.size(); ++k) {
        const Rule& r = (*read)[k];
        CAPTURE(full[k].id);
        CHECK(!full[k].match_samples.empty());
        CHECK(r.match_samples.empty());
        CHECK(r.no_match_samples.empty());
        CHECK(r.checked_before);
        CHECK(r.id == full[k].id);
        CHECK(r.source == full[k].source);  // the rule's line, from the text
        CHECK(r.regex == full[k].regex);
        CHECK(r.needles == full[k].needles);
        CHECK(r.checks == full[k].checks);
        CHECK(r.explain == full[k].explain);
        CHECK(r.title == full[k].title);
        CHECK(r.priority == full[k].priority);
      }
    }
  }
}

TEST_CASE("rules: the repository's rules/ load cleanly and pass their samples") {
  DiagnosticSink d;
  const std::string dir = default_rules_dir();
  auto rules = load_rules({dir}, d);
  for (const auto& x : d.items()) {
    CAPTURE(x.message);
    CHECK(x.severity == Severity::Info);
  }
  CHECK(d.empty());
  REQUIRE(rules.size() >= 80);
  DiagnosticSink d2;
  CHECK(check_rule_samples(rules, d2) == 0);
  for (const auto& x : d2.items()) FAIL_CHECK(x.message);

  std::set<std::string> ids;
  for (const Rule& r : rules) {
    CAPTURE(r.id);
    CHECK(ids.insert(r.id).second);
    CHECK(!r.match_samples.empty());
    CHECK(!r.no_match_samples.empty());
    CHECK(!r.title.empty());
    CHECK(!r.explain.empty());
    // Each family lives in its own file: `cuda.*` in cuda.json, ...
    const std::string family = r.id.substr(0, r.id.find('.'));
    CHECK(r.source.find("/" + family + ".json:") != std::string::npos);
  }
  // Rules the root-cause stage and the README rely on by id.
  for (const char* id : {"cuda.oom", "cuda.oom-legacy", "host.oom-kill", "host.srun-oom",
                         "megatron.heads-not-multiple-of-tp", "megatron.world-size-not-divisible",
                         "megatron.cuda-device-max-connections", "python.module-not-found",
                         "python.cannot-import-name", "nccl.error", "nccl.address-in-use",
                         "nccl.watchdog-timeout", "slurm.time-limit", "slurm.cancelled",
                         "torchelastic.worker-failed", "torchelastic.signal-exception"}) {
    CAPTURE(id);
    CHECK(ids.count(id) == 1);
  }
  // Numbers a rule captures are declared numbers, so the JSON report writes them as such.
  for (const Rule& r : rules) {
    if (r.id == "cuda.oom") CHECK(r.field_types.at("gpu") == FactType::Int);
    if (r.id == "nccl.address-in-use") CHECK(r.field_types.count("port") == 1);
  }
}

TEST_CASE("rules: categories and roles of key repository rules") {
  DiagnosticSink d;
  auto rules = load_rules({default_rules_dir()}, d);
  auto get = [&](const std::string& id) -> const Rule& {
    static const Rule none;
    for (const Rule& r : rules) {
      if (r.id == id) return r;
    }
    FAIL_CHECK("missing rule " << id);
    return none;
  };
  CHECK(get("cuda.oom").category == Category::Oom);
  CHECK(get("cuda.oom").applies_to == AppliesTo::Exception);
  CHECK(get("host.oom-kill").applies_to == AppliesTo::Line);
  CHECK(get("host.shell-killed").role == RuleRole::Context);
  CHECK(get("megatron.cuda-device-max-connections").category == Category::Unknown);
  CHECK(get("megatron.fsdp-cuda-device-max-connections").category == Category::Unknown);
  CHECK(get("nccl.error").role == RuleRole::Symptom);
  CHECK(get("nccl.socket-connect-failed").role == RuleRole::Symptom);
  CHECK(get("nccl.address-in-use").role == RuleRole::Cause);
  CHECK(get("nccl.address-in-use").category == Category::Nccl);
  CHECK(get("slurm.time-limit").category == Category::Unknown);
  CHECK(get("slurm.task-exit").role == RuleRole::Context);
  CHECK(get("slurm.step-aborted").role == RuleRole::Teardown);
  CHECK(get("torchelastic.child-failed").role == RuleRole::Teardown);
  CHECK(get("torchelastic.worker-failed").role == RuleRole::Context);
}

}  // TEST_SUITE
}  // namespace megatriage
