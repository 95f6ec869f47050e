// The exit status of every megatriage command, written down once (README.md "Exit codes"). The
// commands in app/ return them and the front ends in cli/ pass them on; nothing else picks a
// process status.
#pragma once

namespace megatriage {

/// The logs show no failure (lint: the script is clean; rules check: no problem).
inline constexpr int kExitNoFailure = 0;
/// A failure was found and reported (lint: findings; rules check: problems in the rule files).
inline constexpr int kExitFailure = 1;
/// The run could not start or finish: bad flags, a named path that does not exist, nothing
/// readable, a job SLURM does not know, a report that could not be written.
inline constexpr int kExitUsage = 2;

}  // namespace megatriage
