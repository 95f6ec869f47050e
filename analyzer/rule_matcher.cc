// Rule matching: byte-pair needle prefilter (Line rules only), one RE2::Set pass per AppliesTo
// kind, then per-rule RE2 captures for the rules the Set reported. Everything is built in the
// constructor; afterwards all members are read-only except an atomic fallback counter.

#include "rule_matcher.h"
#include "rule_regex_options.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
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

std::uint16_t pair_key(unsigned char a, unsigned char b) {
  return static_cast<std::uint16_t>((static_cast<unsigned>(a) << 8) | b);
}

// Lines every failed job prints by the million (NCCL INFO, iteration lines, the arguments dump,
// c10 warnings). Each needle is indexed by its byte pair that is rarest in these, so noise lines
// seldom hit the table: `NCCL WARN` by `WA`, not by the `NC` every NCCL INFO line starts with.
constexpr const char* kNoiseSample[] = {
    "node02:8811:8811 [3] NCCL INFO ncclCommInitRank comm 0x5581c0 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 45000 commId 0x1f2e3d4c5b6a7988 - Init COMPLETE",
    "node01:1234:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
    "node01:1234:1234 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.1.0.1<0>",
    "node03:4242:4242 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0> Connected all rings, use ring PXN 0 GDR 1",
    " [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples:        25600 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | learning rate: 3.000000E-04 | global batch size:   256 | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.345 | number of skipped iterations:   0 | number of nan iterations:   0 |",
    "  tensor_model_parallel_size ...................... 8",
    "[rank3]:[W501 12:00:03.123456789 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 3]  using GPU 3 to perform barrier as devices used by this process are currently unknown.",
};

// How often each byte pair occurs in kNoiseSample (the cost of indexing a needle by it).
std::array<std::uint8_t, 65536> noise_pair_counts() {
  std::array<std::uint8_t, 65536> counts{};
  for (const char* line : kNoiseSample) {
    std::string_view s(line);
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      auto& c = counts[(static_cast<unsigned char>(s[i]) << 8) | static_cast<unsigned char>(s[i + 1])];
      if (c < 255) ++c;
    }
  }
  return counts;
}

// Placeholder names: [A-Za-z0-9_]+ (ASCII, locale-independent; same as rules.cc's validation).
bool is_placeholder_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

}  // namespace

struct RuleMatcher::Compiled {
  std::vector<std::unique_ptr<RE2>> regex;  // per rule (index into rules_), for captures

  struct KindSet {
    std::unique_ptr<RE2::Set> set;  // null: per-rule matching only (Set failed to build)
    std::vector<int> rule_of;       // Set index -> rule index
    std::vector<int> rules;         // every rule of this kind (fallback path)
  };
  std::array<KindSet, kKinds> kinds;

  // Prefilter. Bit (a<<8|b) is set when some Line rule's needle has the bytes a, b at its
  // indexing offset; the needles are sorted by that pair so a hit verifies only its own bucket.
  std::array<std::uint64_t, 65536 / 64> pair_bits{};
  struct Needle {
    std::uint16_t pair;      // the needle's bytes at `offset`, offset + 1
    std::uint16_t offset;
    std::string text;
    std::vector<int> rules;  // the Line rules that have this needle
  };
  std::vector<Needle> needles;
  bool always_candidate = false;  // a Line rule without a usable needle: never skip a line

  mutable std::atomic<std::uint64_t> set_fallbacks{0};

  bool pair_hit(std::uint16_t key) const { return (pair_bits[key >> 6] >> (key & 63)) & 1U; }
};

RuleMatcher::RuleMatcher(std::vector<Rule> rules, DiagnosticSink& diags)
    : compiled_(std::make_unique<Compiled>()) {
  Compiled& c = *compiled_;
  // Compile each rule; a rule whose regex fails here is left out so rule indices stay dense.
  for (Rule& rule : rules) {
    auto re = std::make_unique<RE2>(rule.regex, rule_regex_options());
    if (!re->ok()) {
      diags.add(Severity::Error, "rules.bad-regex",
                rule.source + ": rule '" + rule.id + "': regex does not compile: " + re->error(),
                rule.source);
      continue;
    }
    rules_.push_back(std::move(rule));
    c.regex.push_back(std::move(re));
  }

  for (std::size_t k = 0; k < kKinds; ++k) {
    const AppliesTo kind = k == 0 ? AppliesTo::Line : AppliesTo::Exception;
    Compiled::KindSet& ks = c.kinds[k];
    auto set = std::make_unique<RE2::Set>(set_regex_options(), RE2::UNANCHORED);
    bool set_ok = true;
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      if (rules_[i].applies_to != kind) continue;
      ks.rules.push_back(static_cast<int>(i));
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
    if (set_ok && !ks.rules.empty()) {
      if (set->Compile()) {
        ks.set = std::move(set);
      } else {
        diags.add(Severity::Warning, "rules.set-compile-failed",
                  std::string("the RE2::Set of ") + (k == 0 ? "line" : "exception") +
                      " rules does not compile (out of memory?); matching rule by rule");
      }
    }
    if (!ks.set) ks.rule_of.clear();
  }

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
    static const std::array<std::uint8_t, 65536> noise = noise_pair_counts();
    for (const std::string& n : rule.needles) {
      std::size_t best = 0;
      for (std::size_t k = 1; k + 1 < n.size() && k < 0xffff; ++k)
        if (noise[pair_key(static_cast<unsigned char>(n[k]), static_cast<unsigned char>(n[k + 1]))] <
            noise[pair_key(static_cast<unsigned char>(n[best]), static_cast<unsigned char>(n[best + 1]))])
          best = k;
      const std::uint16_t key =
          pair_key(static_cast<unsigned char>(n[best]), static_cast<unsigned char>(n[best + 1]));
      c.pair_bits[key >> 6] |= std::uint64_t{1} << (key & 63);
      c.needles.push_back({key, static_cast<std::uint16_t>(best), n,
                           {static_cast<int>(&rule - rules_.data())}});
    }
  }
  std::sort(c.needles.begin(), c.needles.end(), [](const auto& a, const auto& b) {
    return a.pair != b.pair ? a.pair < b.pair : a.text < b.text;
  });
  // One entry per needle text, with every rule that has it.
  std::vector<Compiled::Needle> merged;
  for (auto& n : c.needles) {
    if (!merged.empty() && merged.back().text == n.text)
      merged.back().rules.insert(merged.back().rules.end(), n.rules.begin(), n.rules.end());
    else
      merged.push_back(std::move(n));
  }
  c.needles = std::move(merged);
}

RuleMatcher::~RuleMatcher() = default;

std::uint64_t RuleMatcher::set_fallback_count() const {
  return compiled_->set_fallbacks.load(std::memory_order_relaxed);
}

namespace {

// Calls `found(needle)` for every Line-rule needle occurrence in `text` until it returns true.
// Case-sensitive, byte-wise, no allocation: one table probe per byte, memcmp only on a pair hit
// (the needle is compared from its start, `offset` bytes before the pair).
template <class Compiled, class Found>
void for_each_needle(const Compiled& c, std::string_view text, Found found) {
  const std::size_t n = text.size();
  if (n < 2 || c.needles.empty()) return;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::uint16_t key = pair_key(p[i], p[i + 1]);
    if (!c.pair_hit(key)) continue;
    auto it = std::lower_bound(c.needles.begin(), c.needles.end(), key,
                               [](const auto& nd, std::uint16_t k) { return nd.pair < k; });
    for (; it != c.needles.end() && it->pair == key; ++it) {
      const std::size_t len = it->text.size();
      if (it->offset > i) continue;
      const std::size_t start = i - it->offset;
      if (len <= n - start && std::memcmp(p + start, it->text.data(), len) == 0 && found(*it)) return;
    }
  }
}

}  // namespace

// Contract: returns true whenever `text` contains one of the Line rules' needles (so never a
// false negative for a rule whose needles are honest); false positives are fine.
bool RuleMatcher::line_candidate(std::string_view text) const {
  if (!prefilter_enabled_) return true;
  const Compiled& c = *compiled_;
  if (c.always_candidate) return true;
  bool hit = false;
  for_each_needle(c, text, [&](const Compiled::Needle&) { return hit = true; });
  return hit;
}

// The Line rules whose needles occur in `text` (ascending, unique): by the needle contract no
// other Line rule can match it.
void RuleMatcher::line_candidate_rules(std::string_view text, std::vector<int>& out) const {
  for_each_needle(*compiled_, text, [&](const Compiled::Needle& nd) {
    out.insert(out.end(), nd.rules.begin(), nd.rules.end());
    return false;
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool RuleMatcher::line_needles(std::vector<std::string>& out) const {
  if (!prefilter_enabled_ || compiled_->always_candidate) return false;
  for (const auto& n : compiled_->needles) out.push_back(n.text);
  return true;
}

std::vector<RuleMatch> RuleMatcher::match(std::string_view text, AppliesTo kind) const {
  const Compiled& c = *compiled_;
  const Compiled::KindSet& ks = c.kinds[kind_index(kind)];
  std::vector<RuleMatch> out;
  const re2::StringPiece sp(text.data(), text.size());

  // Run one rule with captures; fields hold only groups that took part in the match.
  auto capture = [&](int rule_index) {
    const RE2& re = *c.regex[static_cast<std::size_t>(rule_index)];
    const int ngroups = re.NumberOfCapturingGroups();
    std::vector<re2::StringPiece> sub(static_cast<std::size_t>(ngroups) + 1);
    if (!re.Match(sp, 0, sp.size(), RE2::UNANCHORED, sub.data(), ngroups + 1)) return;
    RuleMatch m;
    m.rule_index = rule_index;
    for (const auto& [name, index] : re.NamedCapturingGroups()) {
      const re2::StringPiece& g = sub[static_cast<std::size_t>(index)];
      if (g.data() != nullptr) m.fields.emplace(name, std::string(g.data(), g.size()));
    }
    out.push_back(std::move(m));
  };
  // Per-rule path: used when the Set could not be built, or when its DFA ran out of memory on
  // this text (counted; same results, only slower).
  auto per_rule = [&]() {
    for (int r : ks.rules) {
      if (c.regex[static_cast<std::size_t>(r)]->Match(sp, 0, sp.size(), RE2::UNANCHORED, nullptr, 0)) {
        capture(r);
      }
    }
  };

  if (kind == AppliesTo::Line && prefilter_enabled_ && !c.always_candidate) {
    // Only the rules whose needles the line holds (usually one): no Set pass over all of them.
    std::vector<int> candidates;
    line_candidate_rules(text, candidates);
    for (int r : candidates) capture(r);
  } else if (!ks.set) {
    per_rule();
  } else {
    // First pass without a result vector: Set::Match then allocates nothing, and most texts
    // (Exception texts of NCCL symptoms aside) match nothing.
    RE2::Set::ErrorInfo info{};
    if (ks.set->Match(sp, nullptr, &info)) {
      std::vector<int> hits;
      if (ks.set->Match(sp, &hits, &info)) {
        for (int h : hits) capture(ks.rule_of[static_cast<std::size_t>(h)]);
      } else {
        c.set_fallbacks.fetch_add(1, std::memory_order_relaxed);
        per_rule();
      }
    } else if (info.kind == RE2::Set::kOutOfMemory || info.kind == RE2::Set::kInconsistent) {
      c.set_fallbacks.fetch_add(1, std::memory_order_relaxed);
      per_rule();
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
