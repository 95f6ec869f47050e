// Rule tags: the table of tags the code asks about and the coverage check behind `rules check`.

#include "match/rule_tags.h"

#include <algorithm>
#include <string>

#include "match/rules.h"

namespace megatriage {

namespace {

constexpr CodeTag kCodeTags[] = {
    {rule_tag::kHang, "the hang check and headline (nccl root causes)"},
    {rule_tag::kHostOom, "the \"Host OOM\" headline and the node fact"},
    {rule_tag::kFamilyFallback,
     "the root's confidence (capped at medium when only the family's catch-all matched)"},
    {rule_tag::kOomKillEvents, "the oom_kill_events fact"},
    {rule_tag::kAddressInUse, "the port_reachable check (port already in use)"},
    {rule_tag::kStoreClientsJoined, "the allocation check (clients that joined the store)"},
    {rule_tag::kWorldSizeDivisor, "the world_size_product check on the error's own divisor"},
    {rule_tag::kQueryGroupsVsTp, "the heads_divisible_by_tp check on num_query_groups"},
    {rule_tag::kCudaDeviceMaxConnections, "the cuda_device_max_connections check (Megatron asserted)"},
    {rule_tag::kFsdp, "the cuda_device_max_connections fix for FSDP runs"},
    {rule_tag::kNodeFailure, "postmortem: sacct NODE_FAIL confirms the logs' node failure"},
    {rule_tag::kTimeLimit, "postmortem: sacct TIMEOUT confirms the logs' time limit"},
    {rule_tag::kCancelled, "postmortem: sacct CANCELLED names who cancelled the job"},
    {rule_tag::kWorkerExit, "the root's rank from the launcher's report of the worker's exit"},
    {rule_tag::kSpawnProcess, "the root's rank from torch.multiprocessing.spawn's process index"},
    {rule_tag::kDeviceAssert, "root cause: a kernel's assertion line outranks the device-side assert reports"},
};

}  // namespace

std::span<const CodeTag> code_rule_tags() { return kCodeTags; }

bool has_tag(const std::vector<std::string>& tags, std::string_view tag) {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

int check_code_tags(const std::vector<Rule>& rules, DiagnosticSink& diags) {
  // One diagnostic naming every missing tag: repeats of a code would fold into the first.
  int missing = 0;
  std::string what, first;
  for (const CodeTag& t : kCodeTags) {
    const bool carried = std::any_of(rules.begin(), rules.end(),
                                     [&](const Rule& r) { return has_tag(r.tags, t.tag); });
    if (carried) continue;
    ++missing;
    what += (what.empty() ? "" : "; ") + ("\"" + std::string(t.tag) + "\" (" + std::string(t.used_for) + ")");
    if (first.empty()) first = t.tag;
  }
  if (missing == 0) return 0;
  diags.add(Severity::Warning, "rules.tag-not-carried",
            "no loaded rule carries " + std::string(missing == 1 ? "this tag" : "these tags") +
                " that the code asks for, so what depends on it can never apply: " + what,
            "", 0, "add e.g. \"tags\": [\"" + first + "\"] to the rule(s) each tag describes");
  return missing;
}

}  // namespace megatriage
