// digit_blind: which regexes decide a text the same way whatever its digits are, and
// number_blind: whatever the digits outside words are. Tables of RE2 constructs each way, then
// the property itself on the project's rules: every rule called blind matches its samples, and
// does not match its no-match samples, with their digits (or their numbers' digits) replaced at
// random.
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
    if (c.blind) CHECK(number_blind(c.regex));  // digit-blind is number-blind too
  }
}

TEST_CASE("number_blind: digits a regex names inside words, and digits it names elsewhere") {
  struct Case {
    const char* regex;
    bool blind;
  };
  const Case cases[] = {
      {R"(c10d::ProcessGroupNCCL)", true},  // a letter before the run
      {R"(mat1 and mat2 shapes (?P<m>[0-9]+x[0-9]+))", true},
      {R"(H100 80GB)", true},     // ... or after it
      {R"(sm_90 10d+)", true},    // `_` is a word's; `d+` is always there
      {R"(exit code 1)", false},  // a number
      {R"(errno: 98 - Address)", false},
      {R"(10d?)", false},  // the letter may be missing
      {R"(10d*)", false},
      {R"(10d{0,2})", false},
      {R"(c?10d?)", false},
      {R"(\w10)", false},  // `\w` may be a digit: no word around it
      {R"(\d10x)", true},  // ... but the `x` after is
      {R"(\d10)", false},
      {R"(a{2}10)", false},      // a repetition before the run
      {R"((?:c|x)10)", false},   // a group before the run
      {R"(c10d [1-9])", false},  // a class of some digits, as for digit_blind
      {R"(\Qc10d\E)", false},    // quoted text is not read for words
  };
  for (const Case& c : cases) {
    CAPTURE(c.regex);
    CHECK(number_blind(c.regex) == c.blind);
  }
}

TEST_CASE("mask_numbers: the digits of numbers become 0, those of words stay") {
  std::string out;
  mask_numbers("rank 3763 on c10d H100 sm_90 [rank12] 0x7f3a 10.5 GiB 42", out);
  CHECK(out == "rank 0000 on c10d H100 sm_90 [rank12] 0x7f3a 00.0 GiB 00");
  mask_numbers("", out);
  CHECK(out.empty());
  mask_numbers("7", out);
  CHECK(out == "0");
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
  // The digits of numbers only (those mask_numbers turns to 0), for the number-blind rules.
  auto renumber = [&](std::string s) {
    // With every digit a 1 first, the 0s of the mask are the numbers' digits.
    std::string ones = s, masked;
    for (char& ch : ones)
      if (ch >= '0' && ch <= '9') ch = '1';
    mask_numbers(ones, masked);
    for (std::size_t k = 0; k < s.size(); ++k)
      if (masked[k] == '0') s[k] = static_cast<char>('0' + digit(rng));
    return s;
  };
  std::size_t numbers = 0;
  for (const Rule& rule : rules) {
    if (digit_blind(rule.regex) || !number_blind(rule.regex)) continue;
    ++numbers;
    const RE2 re(rule.regex, rule_regex_options());
    REQUIRE(re.ok());
    CAPTURE(rule.id);
    for (int round = 0; round < 8; ++round) {
      for (const RuleSample& s : rule.match_samples) CHECK(RE2::PartialMatch(renumber(s.text), re));
      for (const std::string& s : rule.no_match_samples) CHECK_FALSE(RE2::PartialMatch(renumber(s), re));
    }
  }
  // Rules that name `c10d` or `mat1` are number-blind, not digit-blind.
  CHECK(numbers > 0);
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
