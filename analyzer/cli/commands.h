// The subcommands main.cc dispatches to, one file each in cli/ (triage_command.cc is the
// default, `megatriage [PATH...]`). Each parses its own flags and returns the process's exit
// code (base/exit_codes.h); the work itself is in app/ and the stages.
#pragma once

namespace megatriage {

/// The subcommands, one line each, for `megatriage --help`.
inline constexpr const char* kSubcommandsHelp = R"(
Subcommands (each has --help):
  megatriage postmortem [JOBID]     post-mortem of a SLURM job: asks sacct/scontrol, finds its logs
  megatriage watch [PATH...]        follow a running job's logs, report the cause as soon as known
  megatriage lint SCRIPT...         check sbatch scripts against the runbook's launch rules
  megatriage partial PATH... -o F   one node's logs to a partial report (logs on many nodes)
  megatriage merge FILE|DIR...      the job's report from its nodes' partial reports
  megatriage rules check            validate rule files and run every rule's samples
  megatriage rules list             every rule in use and the file it came from
A folder named like a subcommand is triaged when written as a path: megatriage ./rules
)";

/// `megatriage [PATH...]`: triage a failed job's logs. `argv[0]` is the program name.
int triage_command(int argc, char** argv);
/// `megatriage rules VERB`: `argv[0]` is "rules". Without a verb, or with --help, the verbs.
int rules_command(int argc, char** argv);
/// `megatriage lint SCRIPT...`: `argv[0]` is "lint".
int lint_command(int argc, char** argv);
/// `megatriage watch [PATH...]`: `argv[0]` is "watch".
int watch_command(int argc, char** argv);
/// `megatriage partial [PATH...] -o FILE`: `argv[0]` is "partial".
int partial_command(int argc, char** argv);
/// `megatriage merge FILE|DIR...`: `argv[0]` is "merge".
int merge_command(int argc, char** argv);
/// `megatriage postmortem [JOBID]`: `argv[0]` is "postmortem".
int postmortem_command(int argc, char** argv);

}  // namespace megatriage
