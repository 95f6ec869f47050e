// Root-cause stage, its second half: whose failure the root is. Fills in the rank, local rank,
// SLURM task and host that the root's own lines do not print, from the rest of the job's logs,
// and says how the rank is known (RankBasis) — or leaves it unknown and says why. Never a guess
// without a basis: an unprefixed traceback in a file that several workers wrote is nobody's in
// particular, whatever the launcher's "Root Cause" entry says (torchelastic names the lowest
// local rank among the workers it found dead when no error file tells their times).
#pragma once

#include <vector>

#include "decide/timeline.h"
#include "match/rule_matcher.h"

namespace megatriage {

struct Finding;

/// Attributes the root `f.index` of `timeline`: sets `f.who`, `f.rank_basis`, appends to
/// `f.reasons`, and lowers `f.confidence` to medium when the rank was inferred (taken from a
/// local rank on the ground that the job shows one node only, or from the order of launchers'
/// reports). The sources, in order; the first that names one rank wins:
///  1. prefix, file_name: the root's own lines (`[rank3]:`) or its file (`rank3.log`);
///  2. child_failure_table: its local rank (`[default1]:`, `attempt_0/1/`) listed once in its
///     launcher's ChildFailedError table;
///  3. node_local_rank: node rank x processes per node + local rank, all printed in its file;
///  4. launcher_report / inferred_order: the launcher's `failed (exitcode: 1) local_rank: N
///     (pid: P)` report that follows it in its stream, when it is the only worker traceback
///     since the previous report; the global rank from the table entry of pid P, else node
///     rank x nproc + N, else N where nothing shows a second node. inferred_order when several
///     launchers reported into the same file;
///  5. child_failure_table: the only worker its file's tables list as exited with an error
///     (when its file holds no other unprefixed cause), or, for a host-OOM line, the only
///     worker any table lists as killed by SIGKILL;
///  6. same_file_ranks: every rank-bearing line of its file (prefixes, NCCL communicator lines,
///     table entries, srun task lines) names one rank;
///  7. srun_task: its SLURM task, where no torchrun agent shows in the logs (srun started the
///     ranks itself, so the task id is the rank);
///  8. single_process: the job's world size is 1.
/// Host: the root's own line or stream, else the table entry of its rank, else srun's line for
/// its task or node.
void attribute_rank(const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher, Finding& f);

}  // namespace megatriage
