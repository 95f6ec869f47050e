// Flags that more than one subcommand takes, each defined here once (name, check, arity,
// meaning), plus the flag parsing every subcommand shares. Subcommands own their other flags;
// nothing here runs the analysis.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace megatriage {

struct AnalyzeOptions;

/// The help line of `--rules` for commands that say no more about it.
inline constexpr const char* kRulesFlagHelp = "Extra rules directory (repeatable)";

/// Parses `argv` into `app`'s flags. Returns nothing when the command should go on; otherwise
/// the exit code to return at once (after --help or --version: kExitNoFailure; after a bad flag:
/// kExitUsage, with CLI11's message on stderr). Test-only: throws std::logic_error after a good
/// parse when MEGATRIAGE_TEST_THROW=1 (for main's internal-error test).
std::optional<int> parse_flags(CLI::App& app, int argc, char** argv);

/// `--rules DIR`: one directory per flag, repeatable; a later one overrides rules with the same
/// id. `allow_extra_args` says whether the words after DIR may be taken as more directories
/// (postmortem and rules check always allowed it; triage and watch never do, so their paths stay
/// paths).
void add_rules_flag(CLI::App& app, std::vector<std::string>& dirs, const char* help, bool allow_extra_args);

/// `--format text|json`. `help` says what the format applies to.
void add_format_flag(CLI::App& app, std::string& format, const char* help = "Report format");

/// `--color auto|always|never`; resolve it with wants_color().
void add_color_flag(CLI::App& app, std::string& mode);

/// Whether to colour a text report: "always", or "auto" on a terminal when NO_COLOR is unset
/// or empty (no-color.org).
bool wants_color(const std::string& mode, bool to_terminal);

/// `-o, --output FILE`.
void add_output_flag(CLI::App& app, std::string& path);

/// `-j, --jobs N`: files analysed in parallel.
void add_jobs_flag(CLI::App& app, unsigned& jobs);

/// The caps on one file's analysis (README "Robustness"), help group "Limits": hitting one is a
/// diagnostic with the figure, never a silent cut.
void add_limit_flags(CLI::App& app, AnalyzeOptions& limits);

}  // namespace megatriage
