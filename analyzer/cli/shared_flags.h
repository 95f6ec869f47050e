// Flags that more than one subcommand takes, each defined here once (name, check, arity,
// meaning), plus the flag parsing every subcommand shares. Subcommands own their other flags;
// nothing here runs the analysis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace megatriage {

struct AnalyzeOptions;
struct TextStyle;

/// The report-reading flags every reporting subcommand takes.
struct ReportFlags {
  std::size_t context_lines = 3;  // --context N: raw log lines each side of the root (0: none)
  bool verbose = false;           // -v, --verbose: info diagnostics in the text report
  std::size_t width = 0;          // --width N; 0: the terminal's, else $COLUMNS, else 100
};

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

/// `--format`, one of `formats` (text and json unless the command renders more). `help` says
/// what the format applies to.
void add_format_flag(CLI::App& app, std::string& format, const char* help = "Report format",
                     const std::vector<std::string>& formats = {"text", "json"});

/// `--color auto|always|never`; resolve it with wants_color().
void add_color_flag(CLI::App& app, std::string& mode);

/// Whether to colour a text report: "always", or "auto" on a terminal when NO_COLOR is unset
/// or empty (no-color.org).
bool wants_color(const std::string& mode, bool to_terminal);

/// `--context N`, `-v/--verbose` and `--width N`.
void add_report_flags(CLI::App& app, ReportFlags& flags);

/// `--context` when given; otherwise the HTML page shows this many lines each side of the root
/// (it has room for them), the other formats ReportFlags' default.
inline constexpr std::size_t kHtmlContextLines = 10;
std::size_t context_lines(const CLI::App& app, const ReportFlags& flags, const std::string& format);

/// The text report's style: the width from --width, else the terminal on `fd` (when it is one;
/// pass -1 for a file), else $COLUMNS, else 100; ASCII glyphs unless the locale is UTF-8.
TextStyle text_style(const ReportFlags& flags, bool color, int fd);

/// `-o, --output FILE`.
void add_output_flag(CLI::App& app, std::string& path);
/// Where a report goes, `path` or stdout (empty), written in one piece or several
/// (render_json_streamed). An error stops the writing; finish() tells stderr about it, the
/// message starting with `program` ("megatriage", "megatriage merge").
class ReportOutput {
 public:
  ReportOutput(const std::string& path, std::string_view program);
  ~ReportOutput();
  ReportOutput(const ReportOutput&) = delete;
  ReportOutput& operator=(const ReportOutput&) = delete;
  /// Appends `piece`; false once anything could not be written (or opened).
  bool write(std::string_view piece);
  /// Flushes stdout, or cuts the file to what was written and closes it; false after telling
  /// stderr why when a byte could not be written.
  bool finish();

 private:
  std::string path_;
  std::string_view program_;
  int fd_ = -1;
  int error_ = 0;
  std::uint64_t written_ = 0;
};

/// Writes a rendered report to `path` (empty: stdout). False after telling stderr why, each
/// message starting with `program` ("megatriage", "megatriage merge").
bool write_report(std::string_view rendered, const std::string& path, std::string_view program);

/// `-j, --jobs N`: files analysed in parallel.
void add_jobs_flag(CLI::App& app, unsigned& jobs);

/// The caps on one file's analysis (README "Robustness"), help group "Limits": hitting one is a
/// diagnostic with the figure, never a silent cut.
void add_limit_flags(CLI::App& app, AnalyzeOptions& limits);

}  // namespace megatriage
