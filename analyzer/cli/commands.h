// The subcommands main.cc dispatches to, one file each in cli/ (triage_command.cc is the
// default, `megatriage [PATH...]`). Each parses its own flags and returns the process's exit
// code (base/exit_codes.h); the work itself is in app/ and the stages.
#pragma once

namespace megatriage {

/// `megatriage [PATH...]`: triage a failed job's logs. `argv[0]` is the program name.
int triage_command(int argc, char** argv);
/// `megatriage rules check`: `argv[0]` is "check".
int rules_check_command(int argc, char** argv);
/// `megatriage lint SCRIPT...`: `argv[0]` is "lint".
int lint_command(int argc, char** argv);
/// `megatriage watch [PATH...]`: `argv[0]` is "watch".
int watch_command(int argc, char** argv);
/// `megatriage postmortem [JOBID]`: `argv[0]` is "postmortem".
int postmortem_command(int argc, char** argv);

}  // namespace megatriage
