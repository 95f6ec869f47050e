// The exit status of every megatriage command, written down once (README.md "Exit codes"). The
// commands in app/ return them and the front ends in cli/ pass them on; nothing else picks a
// process status. Codes 4 and 5 are `watch`'s alone: the other commands never wait.
#pragma once

namespace megatriage {

/// The logs show no failure (lint: the script is clean; rules check: no problem; watch: the
/// job ended and its logs show no failure).
inline constexpr int kExitNoFailure = 0;
/// A failure was found and reported (lint: findings; rules check: problems in the rule files).
inline constexpr int kExitFailure = 1;
/// The run could not start or finish: bad flags, a named path that does not exist, nothing
/// readable (no file, or only binary or empty ones: a job that died before writing anything is
/// not a success), no rules loaded, a job SLURM does not know, a report that could not be written.
inline constexpr int kExitUsage = 2;
/// A bug in megatriage: an exception reached main (cli/main.cc says so on stderr, with the version).
inline constexpr int kExitInternal = 3;
/// watch: `--timeout` passed before a root cause was known or the job ended.
inline constexpr int kExitTimeout = 4;
/// watch --job: squeue kept failing (every retry of its backoff), so whether the job still runs
/// is unknown.
inline constexpr int kExitSlurmUnavailable = 5;

}  // namespace megatriage
