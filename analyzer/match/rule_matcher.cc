// Rule matching: byte-pair needle prefilter (Line rules only: the rules whose needles a line
// holds are its only candidates, each confirmed by one RE2 match without submatches), one
// RE2::Set pass for Exception texts; per-rule RE2 captures only when a report asks. Everything
// is built in the constructor; afterwards all members are read-only except an atomic fallback
// counter.

#include "match/rule_matcher.h"

#include "match/digit_blind.h"
#include "match/first_literal.h"
#include "match/rule_regex_options.h"
#include "scan/pair_index.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>

namespace megatriage {

namespace {

// The Set holds every rule of a kind in one DFA; RE2's default 8 MiB budget is tight for ~100
// alternations, and running out only costs a slower per-rule pass, so give it room.
RE2::Options set_regex_options() {
  RE2::Options o = rule_regex_options();
  o.set_max_mem(64 << 20);
  return o;
}

constexpr std::size_t kKinds = 2;  // AppliesTo::Line, AppliesTo::Exception

std::size_t kind_index(AppliesTo k) { return k == AppliesTo::Line ? 0 : 1; }

// Placeholder names: [A-Za-z0-9_]+ (ASCII, locale-independent; same as rules.cc's validation).
bool is_placeholder_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

// The last texts each Line rule was tried on by this thread, and whether it matched. Every rank
// prints the same watchdog lines, often twice; comparing a line costs far less than an RE2
// match, whose DFA states are cold by the next rank's file. For a rule that cannot tell digits
// apart (digit_blind) the text is kept with its digits as 0s, for one that tells only the
// digits of words apart (number_blind: `c10d`) with the numbers' digits as 0s: the ranks' copies
// of a line differ in their numbers only. Keyed by the matcher's serial number, so a matcher
// never sees another one's results.
struct DecisionMemo {
  struct Slot {
    bool valid = false, found = false;
    std::string text;
  };
  // A rank's file shows a c10 error rule six texts in turn (the `[E...]` heads of six
  // messages), and ranks of 2, 3 and 4 digits make three keys of each: more than 8 ways.
  static constexpr std::size_t kWays = 32;
  std::uint64_t matcher = 0;
  std::vector<Slot> slots;                  // kWays per rule index
  std::vector<std::uint8_t> next;           // per rule: the slot a miss overwrites
  std::vector<std::uint8_t> last_needle;    // per rule: the needle found last (looked for first)
  // The line with its digits as 0s, and with its numbers' digits as 0s: made once per line,
  // at the first candidate rule that wants each; a rule's key is the part from its start.
  std::string digits_masked, numbers_masked;
};
thread_local DecisionMemo decision_memo;

// The last exception texts this thread matched against the Set of digit-blind exception rules,
// digits as 0s, and the Set's answer: every rank raises the same error with its own numbers in
// it (`... aborted on rank 3763.`, `Tried to allocate 2.00 GiB`).
struct SetMemo {
  struct Slot {
    std::string text;
    std::vector<int> hits;  // Set indexes
  };
  static constexpr std::size_t kWays = 8;
  std::uint64_t matcher = 0;
  std::array<Slot, kWays> slots;
  std::size_t used = 0, next = 0;
};
thread_local SetMemo set_memo;

constexpr std::size_t kMemoTextMax = 1024;  // longer texts are matched afresh (bounded memory)
std::atomic<std::uint64_t> matcher_serials{0};

}  // namespace

namespace {

bool is_meta(char c) { return std::strchr(".^$|()[]{}*+?\\", c) != nullptr; }
bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// What this reader does not follow: a top-level `|` (a match may start with either side),
// `\Q...\E` and `[:class:]` (brackets and bars inside would be misread).
bool unsupported(std::string_view regex) {
  if (regex.find("\\Q") != std::string_view::npos || regex.find("[:") != std::string_view::npos)
    return true;
  int depth = 0;
  bool in_class = false;
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const char ch = regex[i];
    if (ch == '\\') {
      ++i;
    } else if (in_class) {
      in_class = ch != ']';
    } else if (ch == '[') {
      in_class = true;
      if (i + 1 < regex.size() && regex[i + 1] == '^') ++i;
      if (i + 1 < regex.size() && regex[i + 1] == ']') ++i;  // `[]...]`: a literal `]`
    } else if (ch == '(') {
      ++depth;
    } else if (ch == ')') {
      --depth;
    } else if (ch == '|' && depth == 0) {
      return true;
    }
  }
  return false;
}

// The run of plain and backslash-escaped punctuation characters at regex[i]; moves i past it.
std::string literal_run(std::string_view regex, std::size_t& i) {
  std::string run;
  while (i < regex.size()) {
    const char ch = regex[i];
    if (ch == '\\' && i + 1 < regex.size() && !is_alnum(regex[i + 1]) &&
        static_cast<unsigned char>(regex[i + 1]) < 0x80) {
      run += regex[i + 1];
      i += 2;
    } else if (ch != '\\' && !is_meta(ch)) {
      run += ch;
      ++i;
    } else {
      break;
    }
  }
  return run;
}

// Whether a quantifier follows at regex[i], possibly after flag settings like `(?i)`, which
// match nothing (`ab(?i)?` is `a` then `b?`).
bool quantified_at(std::string_view regex, std::size_t i) {
  while (i + 1 < regex.size() && regex[i] == '(' && regex[i + 1] == '?') {
    std::size_t j = i + 2;
    while (j < regex.size() && std::strchr("imsU-", regex[j]) != nullptr) ++j;
    if (j >= regex.size() || regex[j] != ')') break;  // a group, not a flag setting
    i = j + 1;
  }
  return i < regex.size() && std::strchr("*+?{", regex[i]) != nullptr;
}

// Whether regex[i...] (the end of the pattern) can match the empty text wherever it starts:
// nothing, or `X*` / `X*?` with X `.` or one bracket class, alone or as one group's whole
// content. Anything else, however harmless, is "no".
bool nullable_tail(std::string_view regex, std::size_t i) {
  std::string_view t = regex.substr(std::min(i, regex.size()));
  if (t.empty()) return true;
  if (t.front() == '(') {
    if (t.back() != ')') return false;
    std::size_t open = 1;
    if (t.substr(0, 3) == "(?:") {
      open = 3;
    } else if (t.substr(0, 4) == "(?P<") {
      open = t.find('>') + 1;
    } else if (t.size() > 1 && t[1] == '?') {
      return false;
    }
    if (open == 0 || open >= t.size()) return false;
    t = t.substr(open, t.size() - open - 1);
  }
  std::size_t j = 0;
  if (!t.empty() && t[0] == '.') {
    j = 1;
  } else if (!t.empty() && t[0] == '[') {
    j = 1;
    if (j < t.size() && t[j] == '^') ++j;
    if (j < t.size() && t[j] == ']') ++j;
    while (j < t.size() && t[j] != ']') j += t[j] == '\\' ? 2 : 1;
    if (j >= t.size()) return false;
    ++j;  // past `]`
  } else {
    return false;
  }
  if (j >= t.size() || t[j] != '*') return false;
  ++j;
  if (j < t.size() && t[j] == '?') ++j;
  return j == t.size();
}

}  // namespace

std::string required_regex_prefix(std::string_view regex) {
  if (unsupported(regex)) return {};
  std::size_t i = 0;
  std::string prefix = literal_run(regex, i);
  // A quantifier after the run applies to its last character.
  if (quantified_at(regex, i) && !prefix.empty()) prefix.pop_back();
  return prefix;
}

namespace {

// The texts `regex[i...]` must start with when it starts with a plain literal run or a small
// bracket class of plain characters (`[EF]`), not quantified (of a quantified run, all but its
// last character). {""} when neither is there: nothing known.
std::vector<std::string> mandatory_continuation(std::string_view regex, std::size_t i) {
  std::string run = literal_run(regex, i);
  if (!run.empty()) {
    if (quantified_at(regex, i)) run.pop_back();
    return {run};
  }
  if (i < regex.size() && regex[i] == '[') {
    constexpr std::size_t kMaxClass = 4;
    std::size_t close = regex.find(']', i + 1);
    if (close != std::string_view::npos && close > i + 1 && close - i - 1 <= kMaxClass) {
      std::string_view members = regex.substr(i + 1, close - i - 1);
      bool plain = std::none_of(members.begin(), members.end(), [](char c) { return is_meta(c) || c == '-'; });
      if (plain && !quantified_at(regex, close + 1)) {
        std::vector<std::string> out;
        for (char c : members) out.emplace_back(1, c);
        return out;
      }
    }
  }
  return {""};
}

}  // namespace

LeadingLiterals leading_literals(std::string_view regex) {
  LeadingLiterals out;
  if (unsupported(regex)) return out;
  std::size_t i = 0;
  if (regex.substr(0, 3) == "(?:") {
    // `(?:a|b|...)` of plain literals, not quantified; a branch may be `^` (the text's start).
    i = 3;
    bool at_start = false;
    for (;;) {
      if (i + 1 < regex.size() && regex[i] == '^' && (regex[i + 1] == '|' || regex[i + 1] == ')')) {
        at_start = true;
        ++i;
      } else {
        std::string branch = literal_run(regex, i);
        if (branch.empty() || i >= regex.size()) return {};
        out.literals.push_back(std::move(branch));
      }
      if (regex[i] == ')') break;
      if (regex[i] != '|') return {};
      ++i;
    }
    ++i;
    if (quantified_at(regex, i)) return {};
    if (at_start) {
      // `(?:^|\[)[EF]`: what follows the group narrows both the start and the other branches,
      // so that a line holding a `[` but no `[E` or `[F`, and starting with neither, is no match.
      std::vector<std::string> next = mandatory_continuation(regex, i);
      std::vector<std::string> literals;
      for (const std::string& b : out.literals)
        for (const std::string& n : next) literals.push_back(b + n);
      out.literals = std::move(literals);
      out.at_start = std::move(next);
      return out;  // not `whole`: the start branch is not a literal to find
    }
  } else {
    std::string prefix = literal_run(regex, i);
    if (quantified_at(regex, i)) {
      if (prefix.size() > 1) out.literals.push_back(prefix.substr(0, prefix.size() - 1));
      return out;
    }
    if (prefix.empty()) return out;
    // `\[[EF]`: a small class right after the run lengthens it, one literal per member (the
    // `[` of every c10 head is no reason to try a line).
    const std::vector<std::string> next = mandatory_continuation(regex, i);
    if (next.size() > 1) {
      for (const std::string& n : next) out.literals.push_back(prefix + n);
      return out;  // not `whole`: a class is no tail that matches anything
    }
    out.literals.push_back(std::move(prefix));
  }
  out.whole = nullable_tail(regex, i);
  return out;
}

// A rule's regex, compiled when first needed if its rules file passed every check before
// (Rule::checked_before): most rules never meet a candidate line, and compiling ~100 regexes was
// most of a cached start.
struct LazyRegex {
  std::string pattern;
  mutable std::shared_ptr<const RE2> re;
  mutable std::once_flag once;
  const RE2& get() const {
    std::call_once(once, [this] {
      if (!re) re = std::make_shared<const RE2>(pattern, rule_regex_options());
    });
    return *re;
  }
};

struct RuleMatcher::Compiled {
  std::unique_ptr<LazyRegex[]> regex;  // per rule (index into rules_)
  // Per rule: the literal its every match starts with (required_regex_prefix), or "". A line is
  // tried from its first occurrence; captures are anchored at its occurrences (capture_groups).
  std::vector<std::string> prefix;
  std::vector<LeadingLiterals> lead;  // per rule: leading_literals(), or none under case folding
  std::vector<FirstLiteral> first_lead;  // per rule: finds the first of lead's literals
  std::vector<bool> digit_blind;         // per rule: digit_blind(regex), its memo masks digits
  std::vector<bool> number_blind;        // per rule: number_blind(regex), its memo masks numbers

  struct KindSet {
    mutable std::vector<int> rule_of;  // Set index -> rule index (the Line rules': once built)
    std::vector<int> rules;         // every rule of this kind (fallback path)
    // Exception rules that can tell digits apart (digit_blind): outside the Set, whose answers
    // are memoized by the text with its digits as 0s; each is matched alone, on texts holding
    // one of its needles (a few rules, whose needles seldom occur).
    std::vector<int> digit_rules;
    bool digit_blind_set = false;  // the Set holds digit-blind rules only: its answers are memoized
    // The Set of Line rules serves only without the prefilter (a debug switch, or a rule with no
    // usable needle): its patterns are parsed and compiled on first use, not by every run. Null:
    // per-rule matching only (the Set failed to build; the rules' regexes were checked when
    // loaded, so a pattern the Set refuses is not expected there).
    const RE2::Set* get() const {
      std::call_once(compile_once, [this] {
        if (lazy_from == nullptr || rules.empty()) return;
        auto built = std::make_unique<RE2::Set>(set_regex_options(), RE2::UNANCHORED);
        for (int r : rules)
          if (built->Add((*lazy_from)[static_cast<std::size_t>(r)].regex, nullptr) < 0) return;
        if (!built->Compile()) return;
        rule_of = rules;  // every rule of the kind, added in order
        set = std::move(built);
      });
      return set.get();
    }
    const std::vector<Rule>* lazy_from = nullptr;  // the rules of a Set built on first use
    mutable std::unique_ptr<RE2::Set> set;
    mutable std::once_flag compile_once;
  };
  std::array<KindSet, kKinds> kinds;

  // Prefilter: every Line rule's needles, tagged with the rule.
  PairIndex needles;
  bool always_candidate = false;  // a Line rule without a usable needle: never skip a line

  mutable std::atomic<std::uint64_t> set_fallbacks{0};
  const std::uint64_t serial = ++matcher_serials;  // identifies this matcher's memo entries
};

RuleMatcher::RuleMatcher(std::vector<Rule> rules, DiagnosticSink& diags)
    : compiled_(std::make_unique<Compiled>()) {
  Compiled& c = *compiled_;
  // Compile each rule not checked before; a rule whose regex fails here is left out so rule
  // indices stay dense.
  std::vector<std::shared_ptr<const RE2>> compiled;
  for (Rule& rule : rules) {
    std::shared_ptr<const RE2> re = rule.compiled;
    if (!re && !rule.checked_before) re = std::make_shared<const RE2>(rule.regex, rule_regex_options());
    if (re && !re->ok()) {
      diags.add(Severity::Error, "rules.bad-regex",
                rule.source + ": rule '" + rule.id + "': regex does not compile: " + re->error(),
                rule.source);
      continue;
    }
    // Not under case folding (an inline `(?i)` is not at the start, so only the options count).
    const bool exact = rule_regex_options().case_sensitive();
    c.prefix.push_back(exact ? required_regex_prefix(rule.regex) : std::string());
    c.lead.push_back(exact ? leading_literals(rule.regex) : LeadingLiterals{});
    c.first_lead.emplace_back(c.lead.back().literals);
    c.digit_blind.push_back(digit_blind(rule.regex));
    c.number_blind.push_back(number_blind(rule.regex));
    rules_.push_back(std::move(rule));
    compiled.push_back(std::move(re));
  }
  c.regex = std::make_unique<LazyRegex[]>(rules_.size());
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    c.regex[i].pattern = rules_[i].regex;
    c.regex[i].re = std::move(compiled[i]);
  }

  // The Line rules' Set: built on first use (KindSet::get()).
  Compiled::KindSet& lines = c.kinds[kind_index(AppliesTo::Line)];
  for (std::size_t i = 0; i < rules_.size(); ++i)
    if (rules_[i].applies_to == AppliesTo::Line) lines.rules.push_back(static_cast<int>(i));
  lines.lazy_from = &rules_;

  // The Exception rules' Set: every traceback is matched against it.
  Compiled::KindSet& ks = c.kinds[kind_index(AppliesTo::Exception)];
  ks.digit_blind_set = true;
  auto set = std::make_unique<RE2::Set>(set_regex_options(), RE2::UNANCHORED);
  bool set_ok = true;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].applies_to != AppliesTo::Exception) continue;
    ks.rules.push_back(static_cast<int>(i));
    if (!c.digit_blind[i]) {
      ks.digit_rules.push_back(static_cast<int>(i));
      continue;
    }
    std::string error;
    if (set_ok) {
      const int index = set->Add(rules_[i].regex, &error);
      if (index < 0) {
        diags.add(Severity::Warning, "rules.set-compile-failed",
                  "rule '" + rules_[i].id + "' cannot join the RE2::Set (" + error +
                      "); matching this kind rule by rule",
                  rules_[i].source);
        set_ok = false;
      } else {
        ks.rule_of.push_back(static_cast<int>(i));
      }
    }
  }
  if (set_ok && !ks.rule_of.empty()) {
    if (set->Compile()) {
      ks.set = std::move(set);
    } else {
      diags.add(Severity::Warning, "rules.set-compile-failed",
                "the RE2::Set of exception rules does not compile (out of memory?); matching rule by rule");
    }
  }
  if (!ks.set) ks.rule_of.clear();

  // Prefilter over Line rules' needles.
  for (const Rule& rule : rules_) {
    if (rule.applies_to != AppliesTo::Line) continue;
    bool usable = !rule.needles.empty();
    for (const std::string& n : rule.needles) usable = usable && n.size() >= 2;
    if (!usable) {
      // load_rules rejects this; a hand-built rule list may not. Stay correct: no prefilter.
      diags.add(Severity::Warning, "rules.needle-too-short",
                "rule '" + rule.id +
                    "' has no needles or a needle shorter than 2 bytes; prefilter disabled",
                rule.source);
      c.always_candidate = true;
      continue;
    }
    for (const std::string& n : rule.needles) c.needles.add(n, static_cast<int>(&rule - rules_.data()));
  }
  c.needles.finish();
}

RuleMatcher::~RuleMatcher() = default;

std::uint64_t RuleMatcher::set_fallback_count() const {
  return compiled_->set_fallbacks.load(std::memory_order_relaxed);
}

// Contract: returns true whenever `text` contains one of the Line rules' needles (so never a
// false negative for a rule whose needles are honest); false positives are fine.
bool RuleMatcher::line_candidate(std::string_view text) const {
  if (!prefilter_enabled_) return true;
  const Compiled& c = *compiled_;
  if (c.always_candidate) return true;
  bool hit = false;
  c.needles.for_each(text, [&](std::size_t, const PairIndex::Entry&) { return hit = true; });
  return hit;
}

// The Line rules whose needles occur in `text` (ascending, unique): by the needle contract no
// other Line rule can match it.
void RuleMatcher::line_candidate_rules(std::string_view text, std::vector<int>& out) const {
  compiled_->needles.for_each(text, [&](std::size_t, const PairIndex::Entry& e) {
    out.insert(out.end(), e.tags.begin(), e.tags.end());
    return false;
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool RuleMatcher::line_needles(std::vector<std::pair<std::string, int>>& out) const {
  if (!prefilter_enabled_ || compiled_->always_candidate) return false;
  for (const auto& n : compiled_->needles.entries())
    for (int rule : n.tags) out.emplace_back(n.text, rule);
  return true;
}

namespace {

// The groups of `re`'s match of `text` (index 0: the whole match); empty when it does not match.
// With a required `prefix` the match is anchored at each of its occurrences in turn: the first
// where one starts holds the leftmost match, the one an unanchored search returns, and RE2 skips
// the two DFA passes that search needs (one to find the end, one backwards for the start) and
// runs one-pass or bit-state matching only.
std::vector<re2::StringPiece> capture_groups(const RE2& re, std::string_view text, const std::string& prefix) {
  const re2::StringPiece sp(text.data(), text.size());
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(re.NumberOfCapturingGroups()) + 1);
  const int n = static_cast<int>(sub.size());
  bool found = false;
  if (prefix.empty()) {
    found = re.Match(sp, 0, sp.size(), RE2::UNANCHORED, sub.data(), n);
  } else {
    for (std::size_t at = text.find(prefix); at != std::string_view::npos && !found; at = text.find(prefix, at + 1))
      found = re.Match(sp, at, sp.size(), RE2::ANCHOR_START, sub.data(), n);
  }
  if (!found) sub.clear();
  return sub;
}

}  // namespace

std::vector<RuleMatch> RuleMatcher::match(std::string_view text, AppliesTo kind,
                                          const std::vector<int>* line_candidates) const {
  const Compiled& c = *compiled_;
  const Compiled::KindSet& ks = c.kinds[kind_index(kind)];
  std::vector<RuleMatch> out;
  const re2::StringPiece sp(text.data(), text.size());

  // Where a match of rule `rule` may start: no match starts before the first occurrence of a
  // leading literal (npos: none occurs, so there is no match).
  auto match_start = [&](std::size_t rule) {
    const LeadingLiterals& lead = c.lead[rule];
    std::size_t from = lead.literals.empty() && lead.at_start.empty() ? 0 : std::string_view::npos;
    if (!lead.literals.empty()) from = c.first_lead[rule].find(text);
    for (const std::string& l : lead.at_start)
      if (text.substr(0, l.size()) == l) from = 0;
    return from;
  };

  // Per-rule path: used when the Set could not be built, or when its DFA ran out of memory on
  // this text (counted; same results, only slower).
  auto per_rule = [&]() {
    for (int r : ks.rules) {
      if (c.regex[static_cast<std::size_t>(r)].get().Match(sp, 0, sp.size(), RE2::UNANCHORED, nullptr, 0))
        out.push_back(RuleMatch{r});
    }
  };

  if (kind == AppliesTo::Line && prefilter_enabled_ && !c.always_candidate) {
    // Only the rules whose needles the line holds (usually one): no Set pass over all of them.
    thread_local std::vector<int> candidates;  // reused: this runs for every needle line
    candidates.clear();
    DecisionMemo& memo = decision_memo;
    if (memo.matcher != c.serial) {
      memo.matcher = c.serial;
      memo.slots.assign(rules_.size() * DecisionMemo::kWays, DecisionMemo::Slot{});
      memo.next.assign(rules_.size(), 0);
      memo.last_needle.assign(rules_.size(), 0);
    }
    if (line_candidates != nullptr) {
      // The search names rules whose needles contain the literal it found: keep those whose
      // needles are in the text, as line_candidate_rules would (a few memmem, not a scan). The
      // needle found last is looked for first: a log repeats its lines.
      for (int r : *line_candidates) {
        const auto& needles = rules_[static_cast<std::size_t>(r)].needles;
        std::uint8_t& last = memo.last_needle[static_cast<std::size_t>(r)];
        bool held = last < needles.size() && text.find(needles[last]) != std::string_view::npos;
        for (std::size_t k = 0; !held && k < needles.size(); ++k) {
          if (k == last || text.find(needles[k]) == std::string_view::npos) continue;
          held = true;
          last = static_cast<std::uint8_t>(std::min<std::size_t>(k, 255));
        }
        if (held) candidates.push_back(r);
      }
    } else {
      line_candidate_rules(text, candidates);
    }
    // A line often matches two (a rule and its family's catch-all, as c10 error lines do): room
    // for every candidate at the first match, rather than a second allocation at the next.
    auto add = [&](int r) {
      if (out.empty()) out.reserve(candidates.size());
      out.push_back(RuleMatch{r});
    };
    bool digits_masked = false, numbers_masked = false;  // this line's, in the memo's strings
    for (int r : candidates) {
      const auto rule = static_cast<std::size_t>(r);
      // The outcome depends on the text from there only (also the memo's key).
      const std::size_t from = match_start(rule);
      if (from == std::string_view::npos) continue;
      const LeadingLiterals& lead = c.lead[rule];
      // A literal and a tail that matches anything: found is matched (no RE2 call; a third of
      // tree d's were such, the watchdog's "terminated with exception: <reason>").
      if (lead.whole) {
        add(r);
        continue;
      }
      std::string_view key = text.substr(from);
      if (text.size() <= kMemoTextMax && c.digit_blind[rule]) {
        if (!digits_masked) mask_digits(text, memo.digits_masked);
        digits_masked = true;
        key = std::string_view(memo.digits_masked).substr(from);
      } else if (text.size() <= kMemoTextMax && c.number_blind[rule]) {
        // A rule that names digits in words (`c10d`) tells only the numbers apart.
        if (!numbers_masked) mask_numbers(text, memo.numbers_masked);
        numbers_masked = true;
        key = std::string_view(memo.numbers_masked).substr(from);
      }
      DecisionMemo::Slot* const ways = &memo.slots[rule * DecisionMemo::kWays];
      const DecisionMemo::Slot* seen = nullptr;
      for (std::size_t w = 0; w < DecisionMemo::kWays && seen == nullptr; ++w)
        if (ways[w].valid && ways[w].text == key) seen = &ways[w];
      bool found;
      if (seen != nullptr) {
        found = seen->found;
      } else {
        // Without submatches RE2 runs one forward DFA pass that stops at the first match state;
        // unanchored from the first occurrence it costs less than anchored tries at each one
        // (those run on to the match's end).
        found = c.regex[rule].get().Match(sp, from, sp.size(), RE2::UNANCHORED, nullptr, 0);
        if (key.size() <= kMemoTextMax) {
          DecisionMemo::Slot& slot = ways[memo.next[rule]];
          memo.next[rule] = static_cast<std::uint8_t>((memo.next[rule] + 1) % DecisionMemo::kWays);
          slot.valid = true;
          slot.found = found;
          slot.text.assign(key);
        }
      }
      if (found) add(r);
    }
  } else if (const RE2::Set* set = ks.get(); set == nullptr) {
    per_rule();
  } else {
    // One pass that lists the matches: a first pass asking only "any?" saved Set::Match a small
    // allocation on texts that match nothing, but ran the DFA twice over those that match, and
    // on a big job nearly every traceback (the watchdog family's) matches.
    SetMemo& memo = set_memo;
    if (memo.matcher != c.serial) {
      memo = SetMemo{};
      memo.matcher = c.serial;
    }
    thread_local std::string masked;
    // (The line rules' Set, used without the prefilter, holds rules that name digits.)
    const bool memoized = ks.digit_blind_set && text.size() <= kMemoTextMax;
    const std::vector<int>* hits = nullptr;
    if (memoized) {
      mask_digits(text, masked);
      for (std::size_t w = 0; w < memo.used && hits == nullptr; ++w)
        if (memo.slots[w].text == masked) hits = &memo.slots[w].hits;
    }
    thread_local std::vector<int> found;
    bool fell_back = false;
    if (hits == nullptr) {
      RE2::Set::ErrorInfo info{};
      found.clear();
      if (!set->Match(sp, &found, &info) &&
          (info.kind == RE2::Set::kOutOfMemory || info.kind == RE2::Set::kInconsistent)) {
        c.set_fallbacks.fetch_add(1, std::memory_order_relaxed);
        per_rule();
        fell_back = true;
      } else if (memoized) {
        SetMemo::Slot& slot = memo.slots[memo.next];
        memo.next = (memo.next + 1) % SetMemo::kWays;
        if (memo.used < SetMemo::kWays) ++memo.used;
        slot.text = masked;
        slot.hits = found;
      }
      hits = &found;
    }
    if (!fell_back) {
      for (int h : *hits) out.push_back(RuleMatch{ks.rule_of[static_cast<std::size_t>(h)]});
      for (int r : ks.digit_rules) {
        // A text without any of the rule's needles cannot match (rules check vouches for
        // every sample); the others are searched from the text's start: an exception text may
        // span lines, and the line rules' shortcuts are not assumed for it.
        const auto& needles = rules_[static_cast<std::size_t>(r)].needles;
        const bool held = needles.empty() || std::any_of(needles.begin(), needles.end(), [&](const std::string& n) {
                            return text.find(n) != std::string_view::npos;
                          });
        if (held && c.regex[static_cast<std::size_t>(r)].get().Match(sp, 0, sp.size(), RE2::UNANCHORED, nullptr, 0))
          out.push_back(RuleMatch{r});
      }
    }
  }

  std::sort(out.begin(), out.end(), [&](const RuleMatch& a, const RuleMatch& b) {
    const Rule& ra = rules_[static_cast<std::size_t>(a.rule_index)];
    const Rule& rb = rules_[static_cast<std::size_t>(b.rule_index)];
    if (ra.priority != rb.priority) return ra.priority > rb.priority;
    return ra.id < rb.id;
  });
  return out;
}

bool RuleMatcher::has_group(int rule_index, std::string_view name) const {
  const RE2& re = compiled_->regex[static_cast<std::size_t>(rule_index)].get();
  return re.NamedCapturingGroups().count(std::string(name)) != 0;
}

std::map<std::string, std::string> RuleMatcher::fields(const RuleMatch& m, std::string_view text) const {
  const auto rule = static_cast<std::size_t>(m.rule_index);
  const RE2& re = compiled_->regex[rule].get();
  const std::vector<re2::StringPiece> sub = capture_groups(re, text, compiled_->prefix[rule]);
  std::map<std::string, std::string> out;
  if (sub.empty()) return out;
  for (const auto& [name, index] : re.NamedCapturingGroups()) {
    const re2::StringPiece& g = sub[static_cast<std::size_t>(index)];
    if (g.data() != nullptr) out.emplace(name, std::string(g.data(), g.size()));
  }
  return out;
}

std::optional<std::string> RuleMatcher::field(const RuleMatch& m, std::string_view text,
                                              std::string_view name) const {
  const auto rule = static_cast<std::size_t>(m.rule_index);
  const RE2& re = compiled_->regex[rule].get();
  const auto& groups = re.NamedCapturingGroups();
  const auto it = groups.find(std::string(name));
  if (it == groups.end()) return std::nullopt;
  const std::vector<re2::StringPiece> sub = capture_groups(re, text, compiled_->prefix[rule]);
  if (sub.empty() || sub[static_cast<std::size_t>(it->second)].data() == nullptr) return std::nullopt;
  const re2::StringPiece& g = sub[static_cast<std::size_t>(it->second)];
  return std::string(g.data(), g.size());
}

std::string fill_placeholders(const std::string& text, const std::map<std::string, std::string>& fields) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string::npos) break;
    std::size_t j = open + 1;
    while (j < text.size() && is_placeholder_char(text[j])) ++j;
    out.append(text, i, open - i);
    if (j > open + 1 && j < text.size() && text[j] == '}') {
      const auto it = fields.find(text.substr(open + 1, j - open - 1));
      if (it != fields.end()) {
        out += it->second;
      } else {
        out.append(text, open, j + 1 - open);  // unknown name: keep `{name}` as it is
      }
      i = j + 1;
    } else {
      out += '{';
      i = open + 1;
    }
  }
  out.append(text, i, std::string::npos);
  return out;
}

}  // namespace megatriage
