// digit_blind: which regexes decide a text the same way whatever its digits are. A table of
// RE2 constructs each way, then the property itself on the project's rules: every rule called
// blind matches its samples, and does not match its no-match samples, with their digits
// replaced at random.
#include "match/digit_blind.h"

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <random>
#include <string>

#include "base/diagnostics.h"
#include "match/rule_regex_options.h"
#include "match/rules.h"

using namespace megatriage;

TEST_CASE("digit_blind: constructs that treat the ten digits alike, and those that do not") {
  struct Case {
    const char* regex;
    bool blind;
  };
  const Case cases[] = {
      {R"(plain words, no digit)", true},
      {R"(rank (?P<rank>\d+) of \d{1,5}, seq=[0-9]+)", true},
      {R"(\[[EF][0-9]*(?: [0-9:.]+)?(?: [0-9]+)? (?:[^\]\s]*/)?(?P<source>socket|TCPStore)\.[ch]pp:[0-9]+\] (?P<message>[^\n]*))", true},
      {R"(\w+Error: .* \S+ [[:alnum:]_]+ [[:^digit:]]x [[:alpha:]] [!-~] [ -/])", true},
      {R"((?P<tp2>x)(?i)abc\bdef\B\.\\\Qab-cd\E)", true},  // a group's name and quoted text without digits
      {R"([]x] [^]0-9])", true},                             // `]` first in a class is itself
      {R"(c10d::ProcessGroupNCCL)", false},                  // a digit standing for itself
      {R"(exit code [1-9])", false},                         // a class holding some digits only
      {R"([^0])", false},
      {R"(a{x1})", false},                                   // `{` not a repetition: its `1` is literal
      {R"(\x31 \061 \p{Nd} \pN \C)", false},                 // escapes this reader does not vouch for
      {R"([\x30-\x39])", false},
      {R"(\Qerrno 98\E)", false},
      {R"([[:foo:]])", false},
      {R"([0-9)", false},                                    // unclosed
      {R"(trailing \)", false},
      {"[5-\xe9]", false},                                   // a range to a Latin-1 byte: digits 5 to 9
      {"[!-\xe9]", true},                                    // ... or all ten
  };
  for (const Case& c : cases) {
    CAPTURE(c.regex);
    CHECK(digit_blind(c.regex) == c.blind);
  }
}

TEST_CASE("digit_blind: a blind rule decides its samples alike whatever their digits") {
  DiagnosticSink diags;
  const std::vector<Rule> rules = load_rules({default_rules_dir()}, diags);
  REQUIRE(rules.size() > 100);
  std::mt19937 rng(20261204);
  std::uniform_int_distribution<int> digit(0, 9);
  auto redigit = [&](std::string s) {
    for (char& ch : s)
      if (ch >= '0' && ch <= '9') ch = static_cast<char>('0' + digit(rng));
    return s;
  };
  std::size_t blind = 0, samples = 0;
  for (const Rule& rule : rules) {
    if (!digit_blind(rule.regex)) continue;
    ++blind;
    const RE2 re(rule.regex, rule_regex_options());
    REQUIRE(re.ok());
    CAPTURE(rule.id);
    for (int round = 0; round < 8; ++round) {
      for (const RuleSample& s : rule.match_samples) {
        CHECK(RE2::PartialMatch(redigit(s.text), re));
        ++samples;
      }
      for (const std::string& s : rule.no_match_samples) CHECK_FALSE(RE2::PartialMatch(redigit(s), re));
    }
  }
  // Most rules are blind (those that are not name digits: `c10d`, `errno 98`, `[1-9]`).
  CHECK(blind > rules.size() / 2);
  CHECK(samples > 0);
}
