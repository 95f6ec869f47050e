// Render stage: Report -> bytes. Renderers format only; they make no decisions.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/report.h"

namespace megatriage {

/// The versioned JSON report (schema in README.md). Always valid UTF-8.
std::string render_json(const Report& report);
/// The same text handed to `write` in pieces of about 256 KiB as it is made, in order: a big
/// job's report (megabytes of `files`) is never held whole. False once `write` is (the pieces
/// after a failed one are not offered).
bool render_json_streamed(const Report& report, const std::function<bool(std::string_view)>& write);

/// `--all-jobs`: one report per job, newest first, in one versioned envelope:
/// `{"schema_version": N, "jobs": [report, ...]}`, each report as render_json writes it.
std::string render_json_jobs(const std::vector<const Report*>& reports);

/// How the text report is laid out for its reader (cli/shared_flags.h fills it from the flags,
/// the terminal and the locale).
struct TextStyle {
  bool color = false;
  std::size_t width = 100;  // columns; text wraps at spaces only (a path or file:line stays whole)
  bool verbose = false;     // -v: `info` diagnostics too, and every example path of a folded code
  bool ascii = false;       // the locale is not UTF-8: `-`, `->`, `...` for the report's glyphs
};

/// `--format html`: one self-contained page (inline CSS and script, no request at view time):
/// the summary, the rank timeline drawn from `report.rank_timeline` (empty when not filled) and
/// the JSON report embedded as `<script type="application/json" id="megatriage-report">`.
/// Every text from a log is escaped (render/html_escape.h).
std::string render_html(const Report& report);

/// The human report: verdict first, root cause, symptoms, checks, diagnostics. Every text that
/// came from a log is made printable (no terminal escapes reach the terminal).
std::string render_text(const Report& report, const TextStyle& style);

/// `--all-jobs` as text: a header line naming the jobs, then each job's report under a line
/// of its own (render_text's, unchanged).
std::string render_text_jobs(const std::vector<const Report*>& reports, const TextStyle& style);

/// The lines a Markdown summary has at most (`--format markdown`), whatever the job.
inline constexpr std::size_t kMaxMarkdownLines = 60;

/// `--format markdown`: the verdict, the root cause as a table, checks with their status,
/// symptom groups; at most kMaxMarkdownLines lines (long lists are cut, saying how much). Log
/// text is escaped so that it stays text (no links, images, markup or broken tables).
std::string render_markdown(const Report& report);

/// `--format github`: GitHub Actions workflow commands: `::error file=F,line=N,title=...::` for
/// the root cause, `::warning` for each failed check, `::notice` for the verdict.
std::string render_github(const Report& report);

/// A workflow command's message as the Actions toolkit escapes it: `%` `\r` `\n` as %25 %0D %0A.
std::string github_escape_data(std::string_view s);
/// A workflow command's property value: as the message, and `:` `,` as %3A %2C.
std::string github_escape_property(std::string_view s);

}  // namespace megatriage
