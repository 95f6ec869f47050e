// rule_matcher: prefilter contract, Set pass, captures on demand, ordering, and fill_placeholders.
#include "match/rule_matcher.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <re2/re2.h>
#include <string>
#include <vector>

#include "match/rules.h"

namespace megatriage {
namespace {

Rule make_rule(std::string id, AppliesTo kind, std::string regex, std::vector<std::string> needles,
               int priority = 0) {
  Rule r;
  r.id = std::move(id);
  r.applies_to = kind;
  r.regex = std::move(regex);
  r.needles = std::move(needles);
  r.priority = priority;
  r.source = "test.json:1";
  return r;
}

std::vector<std::string> ids_of(const RuleMatcher& m, const std::vector<RuleMatch>& matches) {
  std::vector<std::string> out;
  for (const auto& x : matches) out.push_back(m.rules()[static_cast<std::size_t>(x.rule_index)].id);
  return out;
}

bool has_code(const DiagnosticSink& d, const std::string& code) {
  return std::any_of(d.items().begin(), d.items().end(),
                     [&](const Diagnostic& x) { return x.code == code; });
}

std::vector<Rule> repository_rules() {
  DiagnosticSink d;
  return load_rules({default_rules_dir()}, d);
}

// Ordinary lines of a healthy Megatron/NCCL job: none may pass the prefilter.
const char* const kNoiseLines[] = {
    "node02:8811:8811 [3] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 45000 commId 0x1f2e3d4c5b6a7988 - Init COMPLETE",
    "node03:4242:4242 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0>",
    "node01:1234:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
    "node01:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.1.0.1<0>",
    "node01:1234:1234 [0] NCCL INFO comm 0x5581c0 rank 3 nranks 16 cudaDev 3 busId 45000 - Abort COMPLETE",
    " [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples:        25600 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | learning rate: 3.000000E-04 | global batch size:   256 | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.345 | number of skipped iterations:   0 | number of nan iterations:   0 |",
    "[Rank 12] (after 10 iterations) memory (MB) | allocated: 51234.12 | max allocated: 70321.55 | reserved: 72000.00 | max reserved: 72000.00",
    "  tensor_model_parallel_size ...................... 8",
    "using world size: 16, data-parallel size: 2, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
    "> initializing torch distributed ...",
    "WARNING:megatron.core.rerun_state_machine:RerunStateMachine initialized in mode RerunMode.VALIDATE_RESULTS",
    // c10 INFO and WARNING lines of every rank (an error rule needs the `[E` of their head).
    "[rank3]:[W501 12:00:03.123456789 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 to perform barrier as devices used by this process are currently unknown.",
    "[rank5]:[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())",
    "[rank126]:[I1129 10:01:34.634906 ProcessGroupNCCL.cpp:1985] [PG ID 1 PG GUID 4 Rank 126] ProcessGroupNCCL broadcast unique ID through store took 0.432 ms",
    "Traceback (most recent call last):",
    "  File \"/ws/megatron/training/training.py\", line 1710, in pretrain",
    "",
    "x",
};

}  // namespace

TEST_SUITE("rule_matcher") {

TEST_CASE("rule_matcher: the Set finds the rule; its named groups are captured on demand") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.oom", AppliesTo::Exception,
                           R"(Tried to allocate (?P<tried>[0-9.]+ [KMG]iB)(?: \(GPU (?P<gpu>[0-9]+)\))?)",
                           {"Tried to allocate"}),
                 make_rule("t.other", AppliesTo::Exception, "unrelated", {"unrelated"})},
                d);
  CHECK(d.empty());
  const std::string text = "RuntimeError: Tried to allocate 2.00 GiB (GPU 3)";
  auto hits = m.match(text, AppliesTo::Exception);
  REQUIRE(hits.size() == 1);
  CHECK(m.rules()[static_cast<std::size_t>(hits[0].rule_index)].id == "t.oom");
  CHECK(m.fields(hits[0], text).at("tried") == "2.00 GiB");
  CHECK(m.fields(hits[0], text).at("gpu") == "3");
  CHECK(m.field(hits[0], text, "gpu") == "3");
  CHECK(m.has_group(hits[0].rule_index, "tried"));
  CHECK_FALSE(m.has_group(hits[0].rule_index, "host"));
  CHECK(m.field(hits[0], text, "host") == std::nullopt);

  SUBCASE("groups that did not take part are absent, not empty") {
    const std::string short_text = "Tried to allocate 2.00 GiB";
    auto h = m.match(short_text, AppliesTo::Exception);
    REQUIRE(h.size() == 1);
    CHECK(m.fields(h[0], short_text).count("gpu") == 0);
    CHECK(m.fields(h[0], short_text).at("tried") == "2.00 GiB");
    CHECK(m.has_group(h[0].rule_index, "gpu"));
    CHECK(m.field(h[0], short_text, "gpu") == std::nullopt);
  }
  SUBCASE("no match, wrong kind") {
    CHECK(m.match("nothing here", AppliesTo::Exception).empty());
    CHECK(m.match("Tried to allocate 2.00 GiB", AppliesTo::Line).empty());
  }
  CHECK(m.set_fallback_count() == 0);
}

TEST_CASE("rule_matcher: matches are ordered by priority, then id") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.b-low", AppliesTo::Line, "boom", {"boom"}, 1),
                 make_rule("t.z-high", AppliesTo::Line, "bo+m", {"bo"}, 10),
                 make_rule("t.a-low", AppliesTo::Line, "boom [0-9]", {"boom"}, 1),
                 make_rule("t.exc", AppliesTo::Exception, "boom", {"boom"}, 100)},
                d);
  auto hits = m.match("a boom 1", AppliesTo::Line);
  CHECK(ids_of(m, hits) == std::vector<std::string>{"t.z-high", "t.a-low", "t.b-low"});
}

TEST_CASE("rule_matcher: multi-line exception text") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.nccl", AppliesTo::Exception,
                           R"(NCCL error in: (?P<loc>[^,\n]+), [^\n]*\n(?P<result>nccl[A-Za-z]+):)",
                           {"NCCL error in"})},
                d);
  const std::string text =
      "torch.distributed.DistBackendError: NCCL error in: a.cpp:1, unhandled system error\n"
      "ncclSystemError: System call failed.\nLast error:\nsocketStartConnect: x";
  auto hits = m.match(text, AppliesTo::Exception);
  REQUIRE(hits.size() == 1);
  CHECK(m.fields(hits[0], text).at("loc") == "a.cpp:1");
  CHECK(m.fields(hits[0], text).at("result") == "ncclSystemError");
}

TEST_CASE("rule_matcher: matching is byte-wise and survives invalid UTF-8") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.x", AppliesTo::Line, R"(start (?P<rest>[^\n]*) end)", {"start"})}, d);
  const std::string text = std::string("start a\xff\xfe b end");
  CHECK(m.line_candidate(text));
  auto hits = m.match(text, AppliesTo::Line);
  REQUIRE(hits.size() == 1);
  CHECK(m.fields(hits[0], text).at("rest") == "a\xff\xfe b");
}

TEST_CASE("rule_matcher: prefilter finds needles anywhere and only real needles") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.a", AppliesTo::Line, "oom-kill", {"oom-kill"}),
                 make_rule("t.b", AppliesTo::Line, "Xid", {"Xid"}),
                 make_rule("t.c", AppliesTo::Line, "\xc3\xa9t\xc3\xa9", {"\xc3\xa9t\xc3\xa9"}),
                 make_rule("t.e", AppliesTo::Exception, "Traceback", {"Traceback"})},
                d);
  CHECK(m.line_candidate("oom-kill"));
  CHECK(m.line_candidate("xx oom-kill"));
  CHECK(m.line_candidate("oom-kill yy"));
  CHECK(m.line_candidate("NVRM: Xid"));
  CHECK(m.line_candidate("an \xc3\xa9t\xc3\xa9 line"));
  CHECK_FALSE(m.line_candidate("oom-kil"));   // cut before the end
  CHECK_FALSE(m.line_candidate("oom_kill"));
  CHECK_FALSE(m.line_candidate("xid"));       // case-sensitive
  CHECK_FALSE(m.line_candidate("Xi"));
  CHECK_FALSE(m.line_candidate("X"));
  CHECK_FALSE(m.line_candidate(""));
  CHECK_FALSE(m.line_candidate("Traceback (most recent call last):"));  // Exception rules only
  CHECK(m.line_candidate("ooom-kill"));  // overlapping pair start
  const std::string with_nul("ab\0oom-kill", 11);
  CHECK(m.line_candidate(with_nul));

  // The candidates are exactly the Line rules whose needles occur, ascending, once each.
  std::vector<int> candidates;
  m.line_candidate_rules("Xid oom-kill Xid", candidates);
  CHECK(candidates == std::vector<int>{0, 1});
  candidates.clear();
  m.line_candidate_rules("oom_kill Traceback", candidates);
  CHECK(candidates.empty());

  m.set_prefilter_enabled(false);
  CHECK(m.line_candidate(""));
  CHECK(m.line_candidate("anything"));
  m.set_prefilter_enabled(true);
  CHECK_FALSE(m.line_candidate("anything"));
}

TEST_CASE("rule_matcher: no line rules means no line candidates") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.e", AppliesTo::Exception, "x", {"xx"})}, d);
  CHECK_FALSE(m.line_candidate("xx"));
  RuleMatcher empty({}, d);
  CHECK_FALSE(empty.line_candidate("anything"));
  CHECK(empty.match("anything", AppliesTo::Line).empty());
  CHECK(empty.match("anything", AppliesTo::Exception).empty());
}

TEST_CASE("rule_matcher: a hand-built line rule without usable needles disables the prefilter") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.short", AppliesTo::Line, "a", {"a"}),
                 make_rule("t.ok", AppliesTo::Line, "boom", {"boom"})},
                d);
  CHECK(has_code(d, "rules.needle-too-short"));
  CHECK(m.line_candidate("a"));
  CHECK(m.line_candidate("zzz"));
  CHECK(m.match("a", AppliesTo::Line).size() == 1);
}

TEST_CASE("rule_matcher: a rule whose regex does not compile is left out") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("t.bad", AppliesTo::Line, "(", {"(("}),
                 make_rule("t.ok", AppliesTo::Line, "boom", {"boom"})},
                d);
  CHECK(has_code(d, "rules.bad-regex"));
  REQUIRE(m.rules().size() == 1);
  CHECK(m.rules()[0].id == "t.ok");
  auto hits = m.match("boom", AppliesTo::Line);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].rule_index == 0);
}

TEST_CASE("rule_matcher: repository rules: every positive sample passes the prefilter and matches") {
  auto rules = repository_rules();
  REQUIRE(!rules.empty());
  DiagnosticSink d;
  RuleMatcher m(rules, d);
  CHECK(d.empty());
  REQUIRE(m.rules().size() == rules.size());
  int line_samples = 0;
  for (std::size_t i = 0; i < m.rules().size(); ++i) {
    const Rule& r = m.rules()[i];
    for (const RuleSample& s : r.match_samples) {
      CAPTURE(r.id);
      CAPTURE(s.text);
      if (r.applies_to == AppliesTo::Line) {
        ++line_samples;
        CHECK(m.line_candidate(s.text));  // never a false negative
      }
      auto hits = m.match(s.text, r.applies_to);
      auto it = std::find_if(hits.begin(), hits.end(),
                             [&](const RuleMatch& h) { return h.rule_index == static_cast<int>(i); });
      REQUIRE(it != hits.end());
      const std::map<std::string, std::string> fields = m.fields(*it, s.text);
      for (const auto& [k, v] : s.fields) CHECK(fields.at(k) == v);
    }
    for (const std::string& s : r.no_match_samples) {
      CAPTURE(r.id);
      CAPTURE(s);
      for (const RuleMatch& h : m.match(s, r.applies_to)) CHECK(h.rule_index != static_cast<int>(i));
    }
  }
  CHECK(line_samples > 50);
  CHECK(m.set_fallback_count() == 0);
}

TEST_CASE("rule_matcher: fields come from the text given, rule by rule") {
  // A RuleMatch holds no fields: each text gives its own groups, and a second matcher (its own
  // rule at the same index) gives its own.
  DiagnosticSink d;
  RuleMatcher first({make_rule("r.a", AppliesTo::Line, R"(code=(?P<x>[0-9]+))", {"code="})}, d);
  const std::string text = "[rank1]: code=17 failed", text2 = "[rank2]: code=99 failed";
  auto hits = first.match(text, AppliesTo::Line);
  REQUIRE(hits.size() == 1);
  CHECK(first.fields(hits[0], text).at("x") == "17");
  auto hits2 = first.match(text2, AppliesTo::Line);
  REQUIRE(hits2.size() == 1);
  CHECK(first.fields(hits2[0], text2).at("x") == "99");
  CHECK(first.field(hits2[0], text2, "x") == "99");
  CHECK(first.match("[rank2]: code=xx failed", AppliesTo::Line).empty());

  RuleMatcher second({make_rule("r.b", AppliesTo::Line, R"(code=(?P<y>[0-9])(?P<z>[0-9]))", {"code="})}, d);
  auto other = second.match(text, AppliesTo::Line);
  REQUIRE(other.size() == 1);
  const std::map<std::string, std::string> fields = second.fields(other[0], text);
  CHECK(fields.count("x") == 0);
  CHECK(fields.at("y") == "1");
  CHECK(fields.at("z") == "7");
  CHECK(first.fields(hits[0], text).at("x") == "17");
}

TEST_CASE("rule_matcher: required literal prefix of a regex") {
  const std::pair<const char*, const char*> cases[] = {
      {R"(Watchdog caught collective operation timeout: WorkNCCL\((?:SeqNum=(?P<seq>[0-9]+), )?)",
       "Watchdog caught collective operation timeout: WorkNCCL("},
      {R"(\*\*\* (?P<what>JOB|STEP) \d+)", "*** "},  // `|` inside a group is fine
      {"ncclRemoteError|remote process", ""},         // top-level alternation
      {"a[|]b|c", ""},
      {"a[|]b", "a"},
      {R"(a\|b)", "a|b"},
      {"abc*", "ab"}, {"abc+", "ab"}, {"abc?", "ab"}, {"abc{2}", "ab"}, {R"(ab\.*)", "ab"},
      {"^KeyboardInterrupt", ""},
      {R"(\bfoo)", ""},
      {R"(foo\d+)", "foo"},
      {R"(foo\nbar)", "foo"},
      {"(?i)foo", ""},
      {"foo(?i)bar", "foo"},
      {"DISKFAILs(?i)?", "DISKFAIL"},  // the `?` is for `s` (found by a review's fuzzing)
      {"ab(?i)(?s-m)+x", "a"},
      {"ab(?i)*", "a"},
      {"%(?i){0}", ""},
      {R"(\.(?U)?)", ""},
      {"ab(?:cd)?", "ab"},  // the `?` is for the group
      {"foo.bar", "foo"},
      {"a(b|c)", "a"},
      {R"(a\ b)", "a b"},
      {R"(x\\.)", "x\\"},
      {R"(x\Qa|b\E)", ""},
      {"x[[:alpha:]]", ""},
      {"caf\xc3\xa9 ok", "caf\xc3\xa9 ok"},
      {"", ""},
      {"*", ""},
  };
  for (const auto& c : cases) {
    const std::string regex = c.first;
    CAPTURE(regex);
    CHECK(required_regex_prefix(regex) == c.second);
  }
}

// A `^` branch (c10's error rule began so until its needles became `[E`/`[F`): the literals
// and starts it claims must hold for RE2 on every text: no match starts before the first
// literal, unless the text starts with one of `at_start`.
TEST_CASE("rule_matcher: leading literals of a group with a start-of-text branch") {
  struct Case {
    const char* regex;
    std::vector<std::string> literals;
    std::vector<std::string> at_start;
  };
  const Case cases[] = {
      {R"((?:^|\[)[EF][0-9]* x\.cpp:)", {"[E", "[F"}, {"E", "F"}},
      {R"((?:^|\[|\()E1 (?P<m>.*))", {"[E1 ", "(E1 "}, {"E1 "}},
      {R"((?:^|\[)ab*c)", {"[a"}, {"a"}},         // of a quantified run, all but its last
      {R"((?:^|x)[a-c]y)", {"x"}, {""}},           // a range: only the branch itself is known
      {R"((?:^|x)[abcde]y)", {"x"}, {""}},         // a class too large to spell out
      {R"((?:^|x)?y)", {}, {}},                    // the group may be skipped
  };
  const char* texts[] = {"E1 x.cpp: m", "[E12 x.cpp: m", "W1 [F x.cpp:", "  [W1 x.cpp:", "abbc [abc",
                         "[ab", "xay by", "xdy", "(E1 q", "[E1 q", "E1 q", "y", "ay", "[I [E3 x.cpp:"};
  for (const Case& c : cases) {
    CAPTURE(c.regex);
    const LeadingLiterals got = leading_literals(c.regex);
    CHECK(got.literals == c.literals);
    CHECK(got.at_start == c.at_start);
    CHECK_FALSE(got.whole);
    RE2 re(c.regex);
    REQUIRE(re.ok());
    if (got.literals.empty() && got.at_start.empty()) continue;
    for (std::string text : texts) {
      CAPTURE(text);
      re2::StringPiece m;
      if (!re.Match(text, 0, text.size(), RE2::UNANCHORED, &m, 1)) continue;
      std::size_t first = std::string::npos;
      for (const std::string& l : got.literals) first = std::min(first, text.find(l));
      for (const std::string& l : got.at_start)
        if (text.rfind(l, 0) == 0) first = 0;
      CHECK(static_cast<std::size_t>(m.data() - text.data()) >= first);
    }
  }
}

TEST_CASE("rule_matcher: leading literals of a regex, and whether finding one is a match") {
  struct Case {
    const char* regex;
    std::vector<std::string> literals;
    bool whole;
  };
  const Case cases[] = {
      {"Some NCCL operations have failed or timed out", {"Some NCCL operations have failed or timed out"}, true},
      {R"(terminated with exception: (?P<reason>[^\n]*))", {"terminated with exception: "}, true},
      {"abc.*", {"abc"}, true},
      {"abc.*?", {"abc"}, true},
      {"abc(?:.*)", {"abc"}, true},
      {"abc(.*)", {"abc"}, true},
      {"abc[]x]*", {"abc"}, true},
      {"abc.+", {"abc"}, false},            // needs one more character
      {"abc.", {"abc"}, false},
      {"abc$", {"abc"}, false},
      {R"(abc\b)", {"abc"}, false},
      {"abc[^x]*y", {"abc"}, false},
      {"abc(?P<a>.*)(?P<b>.*)", {"abc"}, false},  // nullable, but not a form this reads
      {"abc(?i).*", {"abc"}, false},
      {"abc*", {"ab"}, false},               // the `*` is for `c`
      {R"(\[[EF][0-9]* x\.cpp:)", {"[E", "[F"}, false},  // a small class after the run
      {"ab[cd]?e", {"ab"}, false},           // a quantified class: only the run
      {"ab[c-e]x", {"ab"}, false},           // a range: only the run
      {"a*", {}, false},
      {R"((?:Timeout at NCCL work|detected by watchdog at work): (?P<work>[0-9]+))",
       {"Timeout at NCCL work", "detected by watchdog at work"}, false},
      {"(?:a|bc).*", {"a", "bc"}, true},
      {R"((?:a\|b|c))", {"a|b", "c"}, true},
      {"(?:a|b)?c", {}, false},              // the group may be skipped
      {"(?:a|b)(?i)?c", {}, false},
      {"(?:a|)c", {}, false},                // an empty branch starts anywhere
      {"(?:a|b.)c", {}, false},              // a branch that is not a plain literal
      {"(?:a|b)c|d", {}, false},             // top-level alternation
      {"(?i)abc", {}, false},
      {"", {}, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.regex);
    const LeadingLiterals got = leading_literals(c.regex);
    CHECK(got.literals == c.literals);
    CHECK(got.whole == c.whole);
    // What it claims, checked against RE2 itself.
    RE2 re(c.regex);
    REQUIRE(re.ok());
    for (const std::string& l : got.literals) {
      for (const std::string& text : {l, "x " + l, l + "\ny", l + " tail"}) {
        CAPTURE(text);
        re2::StringPiece m;
        if (got.whole) CHECK(RE2::PartialMatch(text, re));
        if (re.Match(text, 0, text.size(), RE2::UNANCHORED, &m, 1)) {
          // No match starts before the first leading literal.
          std::size_t first = std::string::npos;
          for (const std::string& other : got.literals) first = std::min(first, text.find(other));
          CHECK(static_cast<std::size_t>(m.data() - text.data()) >= first);
        }
      }
    }
  }
}

TEST_CASE("rule_matcher: lines decided by a leading literal, and texts met in turn, match as RE2 does") {
  DiagnosticSink d;
  RuleMatcher m({make_rule("r.whole", AppliesTo::Line, R"(thread terminated: (?P<why>[^\n]*))", {"thread terminated"}),
                 make_rule("r.alt", AppliesTo::Line,
                           R"((?:Timeout at work|detected at work): (?P<n>[0-9]+))", {"Timeout at work", "detected at work"})},
                d);
  REQUIRE(d.items().empty());
  const std::vector<std::pair<std::string, std::vector<std::string>>> lines = {
      {"[Rank 3] thread terminated: boom", {"r.whole"}},
      {"[Rank 3] thread terminated: ", {"r.whole"}},
      {"thread terminated", {}},  // the needle alone is not the literal `thread terminated: `
      {"Timeout at work: 53", {"r.alt"}},
      {"detected at work: x", {}},
      {"Timeout at work: 53", {"r.alt"}},
      {"detected at work: x", {}},
      {"detected at work: 7 and Timeout at work: 53", {"r.alt"}},
      {"Timeout at work: y", {}},
      {"Timeout at work: 53", {"r.alt"}},
  };
  for (int round = 0; round < 2; ++round) {  // the second round meets remembered texts
    for (const auto& [text, want] : lines) {
      const auto& shown = text;  // CAPTURE's lambda cannot name a structured binding in clang 14
      CAPTURE(shown);
      std::vector<std::string> got;
      for (const RuleMatch& h : m.match(text, AppliesTo::Line)) got.push_back(m.rules()[static_cast<std::size_t>(h.rule_index)].id);
      CHECK(got == want);
    }
  }
}

TEST_CASE("rule_matcher: repository rules: matches and captures equal an unanchored RE2 search") {
  // Matches are decided, and captures taken, by anchored matches at each occurrence of the
  // rule's literal prefix; both must be exactly what a plain unanchored search gives, on every
  // sample and on variants where the prefix occurs before the real match (and nothing matches
  // there). field() must agree with fields() group by group. Both with the prefilter and
  // without it (--no-prefilter: the line rules' Set, which holds rules that name digits).
  DiagnosticSink d;
  RuleMatcher m(repository_rules(), d);
  for (const bool prefilter : {true, false}) {
    CAPTURE(prefilter);
    m.set_prefilter_enabled(prefilter);
    int with_prefix = 0, compared = 0;
    for (std::size_t i = 0; i < m.rules().size(); ++i) {
      const Rule& r = m.rules()[i];
      const std::string prefix = required_regex_prefix(r.regex);
      if (!prefix.empty()) ++with_prefix;
      RE2 re(r.regex, [] {
        RE2::Options o;
        o.set_log_errors(false);
        o.set_encoding(RE2::Options::EncodingLatin1);
        return o;
      }());
      REQUIRE(re.ok());
      std::vector<std::string> texts;
      for (const RuleSample& s : r.match_samples) {
        texts.push_back(s.text);
        texts.push_back(prefix + " " + s.text);      // a dead prefix first
        texts.push_back(s.text + " then " + s.text);  // two matches: the first counts
        texts.push_back("x" + prefix + prefix + s.text.substr(0, s.text.size() / 2));
      }
      for (const std::string& s : r.no_match_samples) texts.push_back(s);
      // Each text, then the same with other digits (ranks, sizes, times): a decision remembered
      // for a text whose digits differ must still be RE2's (a rule that names a digit is not
      // memoized so).
      std::vector<std::string> both;
      for (const std::string& t : texts) {
        both.push_back(t);
        std::string other = t;
        for (char& ch : other)
          if (ch >= '0' && ch <= '9') ch = static_cast<char>('0' + (ch - '0' + 3) % 10);
        if (other != t) both.push_back(other);
      }
      for (const std::string& text : both) {
        CAPTURE(r.id);
        CAPTURE(text);
        const int n = re.NumberOfCapturingGroups();
        std::vector<re2::StringPiece> sub(static_cast<std::size_t>(n) + 1);
        const bool want = re.Match(text, 0, text.size(), RE2::UNANCHORED, sub.data(), n + 1);
        std::map<std::string, std::string> want_fields;
        if (want)
          for (const auto& [name, index] : re.NamedCapturingGroups())
            if (sub[static_cast<std::size_t>(index)].data() != nullptr)
              want_fields[name] = std::string(sub[static_cast<std::size_t>(index)]);
        const RuleMatch* got = nullptr;
        std::vector<RuleMatch> hits = m.match(text, r.applies_to);
        for (const RuleMatch& h : hits)
          if (h.rule_index == static_cast<int>(i)) got = &h;
        // (Also where RE2 finds nothing: a decision remembered for another text must not say yes.)
        CHECK((got != nullptr) == want);
        if (got != nullptr) {
          CHECK(m.fields(*got, text) == want_fields);
          for (const auto& [name, index] : re.NamedCapturingGroups()) {
            CHECK(m.has_group(got->rule_index, name));
            const auto it = want_fields.find(name);
            CHECK(m.field(*got, text, name) ==
                  (it == want_fields.end() ? std::nullopt : std::optional<std::string>(it->second)));
          }
        }
        ++compared;
      }
    }
    CHECK(with_prefix > 60);
    CHECK(compared > 500);
  }
}

TEST_CASE("rule_matcher: repository rules: ordinary lines do not pass the prefilter") {
  DiagnosticSink d;
  RuleMatcher m(repository_rules(), d);
  for (const std::string line : kNoiseLines) {  // (a string: CAPTURE prints its text)
    CAPTURE(line);
    CHECK_FALSE(m.line_candidate(line));
    CHECK(m.match(line, AppliesTo::Line).empty());
  }
}

TEST_CASE("rule_matcher: repository rules: the best rule for typical root causes") {
  DiagnosticSink d;
  RuleMatcher m(repository_rules(), d);
  auto best = [&](const std::string& text, AppliesTo kind) -> std::string {
    auto hits = m.match(text, kind);
    return hits.empty() ? "" : m.rules()[static_cast<std::size_t>(hits[0].rule_index)].id;
  };
  CHECK(best("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.02 GiB is free.",
             AppliesTo::Exception) == "cuda.oom");
  CHECK(best("ModuleNotFoundError: No module named 'megatron'", AppliesTo::Exception) ==
        "python.megatron-not-found");
  CHECK(best("ModuleNotFoundError: No module named 'wandb'", AppliesTo::Exception) ==
        "python.module-not-found");
  CHECK(best("torch.distributed.DistBackendError: NCCL error in: x.cpp:1, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
             "ncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'out of memory'",
             AppliesTo::Exception) == "cuda.nccl-out-of-memory");
  CHECK(best("RuntimeError: world_size (24) is not divisible by 16", AppliesTo::Exception) ==
        "megatron.parallel-state-world-size");
  CHECK(best("slurmstepd-node2: error: Detected 1 oom-kill event(s) in StepId=15.0. Some of your processes may have been killed by the cgroup out-of-memory handler.",
             AppliesTo::Line) == "host.oom-kill");
  CHECK(best("IndexError: index 4096 is out of bounds for dimension 0 with size 4096", AppliesTo::Exception).empty());
}

// Family rules (issue 17): messages of versions and libraries no specific rule names are still
// recognised, by the generic rule under the specific ones; specific rules refine; known harmless
// lines are context. Each row is a real log line or exception text.
TEST_CASE("rule_matcher: repository rules: families cover other versions and shapes") {
  DiagnosticSink d;
  RuleMatcher m(repository_rules(), d);
  const char* const kKernelAssert =
      "/opt/pytorch/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1290: indexSelectLargeIndex: block: [67,0,0], thread: [32,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
  struct Row {
    const char* text;
    AppliesTo kind;
    const char* rule;  // the best rule's id
    Category category;
    RuleRole role;
  };
  const Row rows[] = {
      // NCCL: older shapes, the generic WARN, benign WARNs, INFO retries.
      {"rdma-test-gpu-worker-1:2918:4483 [4] init.cc:263 NCCL WARN Cuda failure 'initialization error'",
       AppliesTo::Line, "nccl.warn-cuda-failure", Category::Nccl, RuleRole::Symptom},
      {"node-1:2233:2290 [0] include/socket.h:390 NCCL WARN Connect to 10.0.0.2<21724> failed : Connection refused",
       AppliesTo::Line, "nccl.socket-connect-failed", Category::Nccl, RuleRole::Symptom},
      {"node01:40112:40190 [0] bootstrap.cc:149 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already checked in",
       AppliesTo::Line, "nccl.bootstrap-rank-checked-in", Category::Nccl, RuleRole::Symptom},
      {"node-2:5776:5902 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completion from peer 10.2.0.5<33092> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
       AppliesTo::Line, "nccl.ib-completion-error", Category::Nccl, RuleRole::Symptom},
      {"rdma-test-gpu-worker-1:2918:4483 [4] misc/cudawrap.cc:33 NCCL WARN Cuda failure 'out of memory'",
       AppliesTo::Line, "nccl.warn-cuda-oom", Category::Oom, RuleRole::Cause},
      {"0b786920:14469:14595 [0] ibvwrap.c:106 NCCL WARN Call to ibv_reg_mr failed", AppliesTo::Line,
       "nccl.ibv-call-failed", Category::Nccl, RuleRole::Symptom},
      {"node01:1234:1290 [0] proxy.cc:1 NCCL WARN Some message of a future NCCL version", AppliesTo::Line,
       "nccl.warn", Category::Nccl, RuleRole::Symptom},
      {"tesla-105:1475:1475 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]", AppliesTo::Line,
       "nccl.warn-benign", Category::Nccl, RuleRole::Context},
      // c10d / TCPStore / rendezvous / gloo.
      {"[E ProcessGroupGloo.cpp:138] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
       AppliesTo::Line, "nccl.c10d-error-line", Category::Nccl, RuleRole::Symptom},
      {"RuntimeError: connect() timed out. Original timeout was 60000 ms.", AppliesTo::Exception,
       "nccl.tcpstore-connect-timeout-legacy", Category::Nccl, RuleRole::Symptom},
      {"torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed.",
       AppliesTo::Exception, "nccl.distributed-error", Category::Nccl, RuleRole::Symptom},
      {"torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed.",
       AppliesTo::Exception, "nccl.rendezvous-failed", Category::Nccl, RuleRole::Symptom},
      {"terminate called after throwing an instance of 'c10::DistBackendError'", AppliesTo::Line,
       "nccl.terminate-dist-error", Category::Nccl, RuleRole::Symptom},
      // Host and GPU OOM in all shapes.
      {"MemoryError", AppliesTo::Exception, "host.memory-error", Category::Oom, RuleRole::Cause},
      {"RuntimeError: [enforce fail at alloc_cpu.cpp:117] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 2359296 bytes. Error code 12 (Cannot allocate memory)",
       AppliesTo::Exception, "host.cpu-allocator", Category::Oom, RuleRole::Cause},
      {"OSError: [Errno 12] Cannot allocate memory", AppliesTo::Exception, "host.cannot-allocate-memory",
       Category::Oom, RuleRole::Cause},
      {"terminate called after throwing an instance of 'std::bad_alloc'", AppliesTo::Line, "host.bad-alloc",
       Category::Oom, RuleRole::Cause},
      {"memory allocation of 2097152 bytes failed", AppliesTo::Line, "host.alloc-abort", Category::Oom,
       RuleRole::Cause},
      {"torch.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0.", AppliesTo::Exception,
       "cuda.oom-class", Category::Oom, RuleRole::Cause},
      {"torch.OutOfMemoryError:", AppliesTo::Exception, "cuda.oom-class", Category::Oom, RuleRole::Cause},
      {"RuntimeError: HIP error: hipErrorOutOfMemory", AppliesTo::Exception, "cuda.oom-generic", Category::Oom,
       RuleRole::Cause},
      // Failures without a traceback.
      {"pretrain_gpt.py: error: unrecognized arguments: --foo", AppliesTo::Line, "process.argparse-error",
       Category::Unknown, RuleRole::Cause},
      {"/var/spool/slurmd/job01234/slurm_script: line 27: torchrun: command not found", AppliesTo::Line,
       "process.command-not-found", Category::Unknown, RuleRole::Cause},
      {"/var/spool/slurmd/job01234/slurm_script: line 3: module: command not found", AppliesTo::Line,
       "process.command-not-found-other", Category::Unknown, RuleRole::Context},
      {"[1de2faca3781:450  :0:450] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x28)",
       AppliesTo::Line, "process.signal-handler-crash", Category::Unknown, RuleRole::Cause},
      {"Fatal Python error: Segmentation fault", AppliesTo::Line, "process.fatal-python-error", Category::Unknown,
       RuleRole::Cause},
      {"Fatal Python error: Aborted", AppliesTo::Line, "process.fatal-python-abort", Category::Unknown,
       RuleRole::Context},
      {"terminate called after throwing an instance of 'std::runtime_error'", AppliesTo::Line,
       "process.terminate-runtime-error", Category::Unknown, RuleRole::Context},
      // An old watchdog's what() line stays a symptom (the hang), not a new cause.
      {"  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800528 milliseconds before timing out.",
       AppliesTo::Line, "nccl.watchdog-timeout", Category::Nccl, RuleRole::Symptom},
      {"srun: error: Unable to create step for job 1234: More processors requested than permitted", AppliesTo::Line,
       "slurm.srun-launch-error", Category::Unknown, RuleRole::Cause},
      // CUDA device-side assertions: the kernel's line is a cause; both carry device-assert.
      {kKernelAssert,
       AppliesTo::Line, "cuda.device-assert-kernel", Category::Unknown, RuleRole::Cause},
      {"RuntimeError: CUDA error: device-side assert triggered", AppliesTo::Exception, "cuda.device-side-assert",
       Category::Unknown, RuleRole::Cause},
      // Shapes from other libraries.
      {"megatron.core.dist_checkpointing.core.CheckpointingException: Global shape mismatch for loaded ((4096, 68)) and expected ((4096, 72)) tensor",
       AppliesTo::Exception, "torch.shape-mismatch", Category::Shape, RuleRole::Cause},
      {"AssertionError: num_attention_heads must be divisible by tensor_model_parallel_size", AppliesTo::Exception,
       "torch.not-divisible", Category::Shape, RuleRole::Cause},
      // Environment, older NCCL wording, CUDA faults in C++ lines, launcher wrappers.
      {"ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package flash_attn seems to be not installed.",
       AppliesTo::Exception, "python.import-error", Category::Import, RuleRole::Cause},
      {"RuntimeError: CUDA error: no kernel image is available for execution on the device", AppliesTo::Exception,
       "python.no-kernel-image", Category::Import, RuleRole::Cause},
      {"RuntimeError: NCCL Error 2: unhandled system error", AppliesTo::Exception, "nccl.error-legacy",
       Category::Nccl, RuleRole::Symptom},
      {"[E ProcessGroupNCCL.cpp:1182] [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered",
       AppliesTo::Line, "cuda.fault-line", Category::Unknown, RuleRole::Cause},
      {"subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=1']' returned non-zero exit status 1.",
       AppliesTo::Exception, "torchelastic.launcher-worker-failed", Category::Unknown, RuleRole::Teardown},
  };
  for (const Row& row : rows) {
    CAPTURE(row.text);
    auto hits = m.match(row.text, row.kind);
    REQUIRE(!hits.empty());
    const Rule& r = m.rules()[static_cast<std::size_t>(hits[0].rule_index)];
    CHECK(r.id == row.rule);
    CHECK(r.category == row.category);
    CHECK(r.role == row.role);
  }
  auto best_tags = [&](const std::string& text, AppliesTo kind) {
    auto hits = m.match(text, kind);
    REQUIRE(!hits.empty());
    return m.rules()[static_cast<std::size_t>(hits[0].rule_index)].tags;
  };
  auto has = [](const std::vector<std::string>& tags, const char* tag) {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  };
  CHECK(has(best_tags(kKernelAssert, AppliesTo::Line), "device-assert"));
  CHECK(has(best_tags("RuntimeError: CUDA error: device-side assert triggered", AppliesTo::Exception), "device-assert"));
  CHECK(has(best_tags("MemoryError", AppliesTo::Exception), "host-oom"));
  CHECK(has(best_tags("memory allocation of 2097152 bytes failed", AppliesTo::Line), "host-oom"));
  CHECK_FALSE(has(best_tags("torch.OutOfMemoryError:", AppliesTo::Exception), "host-oom"));

  // Noise: NCCL INFO retries, W-level c10d retries, UCX warnings of a healthy run.
  for (const char* line : {"node01:1234:1290 [0] NCCL INFO Call to connect returned Connection refused, retrying",
                           "[1724685304.167173] [sse-lg-112-41:102320:f]        vfs_fuse.c:281  UCX  ERROR inotify_add_watch(/tmp) failed: No space left on device",
                           "[W socket.cpp:436] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not supported by protocol)."}) {
    CAPTURE(line);
    CHECK(m.match(line, AppliesTo::Line).empty());
  }
  auto retry = m.match("[W1120 15:35:27.311086571 TCPStore.cpp:343] [c10d] TCP client failed to connect/validate to host 10.0.0.1:29500 - retrying (try=0, timeout=600000ms, delay=36215ms): The client socket has timed out after 600000ms while trying to connect to (10.0.0.1, 29500).",
                       AppliesTo::Line);
  REQUIRE(!retry.empty());
  CHECK(m.rules()[static_cast<std::size_t>(retry[0].rule_index)].role == RuleRole::Context);
}

TEST_CASE("rule_matcher: fill_placeholders") {
  const std::map<std::string, std::string> f = {{"tried", "2.00 GiB"}, {"gpu", "3"}, {"a_1", "x"}};
  CHECK(fill_placeholders("GPU {gpu}: tried {tried}.", f) == "GPU 3: tried 2.00 GiB.");
  CHECK(fill_placeholders("{gpu}{gpu}", f) == "33");
  CHECK(fill_placeholders("{a_1}", f) == "x");
  CHECK(fill_placeholders("unknown {free} stays", f) == "unknown {free} stays");
  CHECK(fill_placeholders("no placeholders", f) == "no placeholders");
  CHECK(fill_placeholders("", f).empty());
  CHECK(fill_placeholders("{} {not a name} { gpu} {gpu", f) == "{} {not a name} { gpu} {gpu");
  CHECK(fill_placeholders("{{gpu}}", f) == "{3}");
  CHECK(fill_placeholders("json {\"k\": 1} {gpu}", f) == "json {\"k\": 1} 3");
  CHECK(fill_placeholders("{gpu}", {}) == "{gpu}");
}

}  // TEST_SUITE
}  // namespace megatriage
