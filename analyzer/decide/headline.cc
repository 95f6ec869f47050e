#include "decide/headline.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "match/rule_matcher.h"
#include "match/rule_tags.h"

namespace megatriage {
namespace {

// A headline is one line: an exception message longer than this is cut at a space before it.
constexpr std::size_t kHeadlineMessageBytes = 120;

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The exception line as a headline: its first line, cut at a space (never inside a word, so a
// path in it stays whole) with `…` when long.
std::string exception_summary(const std::string& text) {
  std::string s = text.substr(0, text.find('\n'));
  // `megatron.core.dist_checkpointing.core.CheckpointingException: ...` reads as its class.
  const std::string cls = exception_class(s);
  const std::size_t colon = s.find(':');
  if (!cls.empty() && colon != std::string::npos && colon > cls.size()) s = cls + s.substr(colon);
  if (s.size() <= kHeadlineMessageBytes) return s;
  std::size_t cut = s.rfind(' ', kHeadlineMessageBytes);
  if (cut == std::string::npos || cut < kHeadlineMessageBytes / 2) return s;
  return s.substr(0, cut) + " \u2026";
}

// Every rank of the job failed with the root's rule: the world size when the logs print it,
// else every rank any event names.
bool every_rank_alike(const RootCauseReport& r, const std::vector<int>& job_ranks) {
  const std::vector<int>& alike = r.same_failure_ranks;
  if (alike.size() < 2) return false;
  auto it = r.facts.find("world_size");
  long long world = 0;
  if (it != r.facts.end()) {
    const std::string& v = it->second;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), world);
    if (ec != std::errc() || p != v.data() + v.size()) world = 0;
  }
  if (world > 0) return static_cast<long long>(alike.size()) == world;
  return std::includes(alike.begin(), alike.end(), job_ranks.begin(), job_ranks.end());
}

}  // namespace

std::string exception_class(const std::string& exception_line) {
  std::size_t colon = exception_line.find(':');
  std::string head = exception_line.substr(0, colon);
  if (head.empty()) return {};
  for (char c : head)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return {};
  std::size_t dot = head.rfind('.');
  return dot == std::string::npos ? head : head.substr(dot + 1);
}

void compose_headline(RootCauseReport& r, const Rule* rule, std::vector<SymptomGroup>& symptoms,
                      const std::vector<int>& job_ranks) {
  // A catch-all (or no rule) knows the family at best: the exception itself says more, and two
  // events of its group may be two different failures.
  const bool catch_all = rule == nullptr || has_tag(rule->tags, rule_tag::kFamilyFallback);
  // The root's failure seen again on other ranks: the same failure, said once.
  if (r.rank >= 0) r.same_failure_ranks.push_back(r.rank);
  for (SymptomGroup& g : symptoms) {
    if (g.role != RuleRole::Cause || g.rule != r.rule || g.ranks.empty() || g.count != g.ranks.size()) continue;
    if (catch_all && (g.count != 1 || g.example != r.exception)) continue;
    g.same_as_root = true;
    r.same_failure_ranks.insert(r.same_failure_ranks.end(), g.ranks.begin(), g.ranks.end());
  }
  std::sort(r.same_failure_ranks.begin(), r.same_failure_ranks.end());
  r.same_failure_ranks.erase(std::unique(r.same_failure_ranks.begin(), r.same_failure_ranks.end()),
                             r.same_failure_ranks.end());
  r.every_rank = every_rank_alike(r, job_ranks);

  const std::string cls = r.evidence == Evidence::Traceback ? exception_class(r.exception) : std::string();
  if (r.category != Category::Unknown)
    r.failure_name = r.category == Category::Nccl ? "NCCL" : upper(category_name(r.category));
  else if (catch_all && !cls.empty())
    r.failure_name = cls;
  else
    r.failure_name = r.title.empty() ? std::string("unrecognised failure") : r.title;

  if (!r.headline.empty()) return;
  std::string h;
  if (rule != nullptr && !rule->headline.empty()) h = fill_placeholders(rule->headline, r.fields);
  else if (catch_all && !r.exception.empty()) h = exception_summary(r.exception);
  else h = r.title;
  // A time limit or a cancel ends the whole job: no rank or host is "where" it happened.
  const bool job_wide = rule != nullptr && (has_tag(rule->tags, rule_tag::kTimeLimit) ||
                                            has_tag(rule->tags, rule_tag::kCancelled));
  if (!job_wide) {
    if (r.every_rank) h += " on every rank";
    else if (r.rank >= 0) h += " on rank " + std::to_string(r.rank) + (r.host.empty() ? "" : " (" + r.host + ")");
    else if (!r.host.empty()) h += " on " + r.host;
  }
  auto it = r.facts.find("last_iteration");
  if (it != r.facts.end()) h += " after iteration " + it->second;
  r.headline = std::move(h);
}

}  // namespace megatriage
