// Rule tags: the vocabulary code may ask about a rule, and the check that every tag the code asks
// about is carried by some loaded rule. Code decides on these tags, never on a rule id or a piece
// of one, so renaming a rule in JSON cannot silently turn a check off. Tags are parsed and their
// shape validated in rules.cc; this file holds what they mean to the code.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"

namespace megatriage {

struct Rule;

/// The tags code asks about. A rule file may declare other tags (for its own readers or future
/// code); a tag listed here that no loaded rule carries means a decision that can never fire.
namespace rule_tag {
/// A collective or the watchdog timed out: with no crashing rank, the job hung.
inline constexpr std::string_view kHang = "hang";
/// The family's catch-all rule matched (any `NCCL WARN`, any c10d error line, any ImportError,
/// ...), not a rule for the message itself: the root's confidence is capped at medium.
inline constexpr std::string_view kFamilyFallback = "family-fallback";
/// A host (CPU) memory kill: the report says "Host OOM" and names the node.
inline constexpr std::string_view kHostOom = "host-oom";
/// Its `count` field is how many processes the kernel OOM killer killed.
inline constexpr std::string_view kOomKillEvents = "oom-kill-events";
/// A rendezvous or NCCL port was already taken on the node.
inline constexpr std::string_view kAddressInUse = "address-in-use";
/// Its `joined` and `expected` fields count the clients that reached the rendezvous store.
inline constexpr std::string_view kStoreClientsJoined = "store-clients-joined";
/// Its `divisor` field is the model-parallel size the world size is not divisible by.
inline constexpr std::string_view kWorldSizeDivisor = "world-size-divisor";
/// num_query_groups is not a multiple of TP (fields `groups`, `tp`).
inline constexpr std::string_view kQueryGroupsVsTp = "query-groups-vs-tp";
/// Megatron asserted on CUDA_DEVICE_MAX_CONNECTIONS.
inline constexpr std::string_view kCudaDeviceMaxConnections = "cuda-device-max-connections";
/// The failure is about FSDP (Torch-FSDP2 / Megatron-FSDP) being on.
inline constexpr std::string_view kFsdp = "fsdp";
/// slurmstepd says a node of the job failed (sacct NODE_FAIL confirms it).
inline constexpr std::string_view kNodeFailure = "node-failure";
/// slurmstepd cancelled the job at its time limit (sacct TIMEOUT confirms it).
inline constexpr std::string_view kTimeLimit = "time-limit";
/// slurmstepd says the job was cancelled (sacct CANCELLED names who).
inline constexpr std::string_view kCancelled = "cancelled";
/// A launcher's report that one worker exited (fields `local_rank`, `pid`, `exitcode`): what
/// ties an unprefixed traceback right before it to a rank.
inline constexpr std::string_view kWorkerExit = "worker-exit";
/// torch.multiprocessing.spawn names the process (field `process`) whose traceback follows.
inline constexpr std::string_view kSpawnProcess = "spawn-process";
/// A CUDA kernel assertion: the kernel's own `Assertion ... failed.` line, or the
/// `device-side assert triggered` error the host reports after it. The kernel's line is the
/// root; the reports are its symptoms.
inline constexpr std::string_view kDeviceAssert = "device-assert";
}  // namespace rule_tag

/// Every tag in `rule_tag`, with what the code uses it for (for `rules check` messages).
struct CodeTag {
  std::string_view tag;
  std::string_view used_for;
};
std::span<const CodeTag> code_rule_tags();

/// True when `tags` (a Rule's, or a report's copy of them) holds `tag`.
bool has_tag(const std::vector<std::string>& tags, std::string_view tag);

/// One `rules.tag-not-carried` warning naming every tag of code_rule_tags() that no rule in
/// `rules` carries; returns how many there are. `megatriage rules check` runs it on the loaded rules. It is not
/// part of every load: a partial rules directory (tests, a site's extra rules) is not wrong.
int check_code_tags(const std::vector<Rule>& rules, DiagnosticSink& diags);

}  // namespace megatriage
