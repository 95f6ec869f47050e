#include "decide/runbook_checks.h"

#include <algorithm>
#include <set>
#include <string>

#include "match/rule_tags.h"

namespace megatriage {
namespace {

bool any_tag(const std::vector<std::string>& wanted, const std::vector<std::string>& tags) {
  return std::any_of(wanted.begin(), wanted.end(), [&](const std::string& t) { return has_tag(tags, t); });
}

}  // namespace

bool condition_holds(const CheckCondition& c, const RootCauseReport& root) {
  if (!c.categories.empty() &&
      std::find(c.categories.begin(), c.categories.end(), root.category) == c.categories.end())
    return false;
  if (!c.tags_any.empty() && !any_tag(c.tags_any, root.rule_tags)) return false;
  if (any_tag(c.tags_none, root.rule_tags)) return false;
  if (!c.facts_any.empty() && std::none_of(c.facts_any.begin(), c.facts_any.end(), [&](const std::string& k) {
        return root.facts.count(k) > 0;
      }))
    return false;
  if (!c.frames_any.empty() && std::none_of(root.frames.begin(), root.frames.end(), [&](const Frame& f) {
        return std::any_of(c.frames_any.begin(), c.frames_any.end(),
                           [&](const std::string& part) { return f.path.find(part) != std::string::npos; });
      }))
    return false;
  return true;
}

std::vector<CheckResult> run_check_table(const std::vector<RunbookCheckEntry>& table, const CheckScene& scene) {
  std::vector<CheckResult> out;
  for (const RunbookCheckEntry& entry : table) {
    bool applies = false, if_decided = false;
    for (const CheckCondition& c : entry.when) {
      if (!condition_holds(c, scene.root)) continue;
      (c.decided ? if_decided : applies) = true;
    }
    if (!applies && !if_decided) continue;
    std::optional<CheckOutcome> result = evaluate_check(entry, scene);
    if (!result) continue;
    if (!applies && result->status == CheckStatus::Unknown) continue;
    out.push_back(CheckResult{entry.id, entry.text, result->status, std::move(result->detail), false});
  }
  return out;
}

void give_checks_unique_ids(std::vector<CheckResult>& checks) {
  std::size_t advice = 0;
  for (CheckResult& c : checks)
    if (c.advice) c.id = std::string(kAdviceCheckId) + "." + std::to_string(++advice);
  std::set<std::string> taken;
  for (const CheckResult& c : checks) taken.insert(c.id);
  std::set<std::string> seen;
  for (CheckResult& c : checks) {
    if (seen.insert(c.id).second) continue;
    // A repeat: the first free `<id>.N`, N from 2.
    std::string id;
    for (int n = 2;; ++n) {
      id = c.id + "." + std::to_string(n);
      if (!taken.count(id)) break;
    }
    taken.insert(id);
    seen.insert(id);
    c.id = std::move(id);
  }
}

}  // namespace megatriage
