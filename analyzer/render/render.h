// Render stage: Report -> bytes. Renderers format only; they make no decisions.
#pragma once

#include <string>
#include <vector>

#include "model/report.h"

namespace megatriage {

/// The versioned JSON report (schema in README.md). Always valid UTF-8.
std::string render_json(const Report& report);

/// `--all-jobs`: one report per job, newest first, in one versioned envelope:
/// `{"schema_version": N, "jobs": [report, ...]}`, each report as render_json writes it.
std::string render_json_jobs(const std::vector<const Report*>& reports);

struct TextStyle {
  bool color = false;
  std::size_t width = 100;
};

/// The human report: verdict first, root cause, symptoms, checks, diagnostics. Every text that
/// came from a log is made printable (no terminal escapes reach the terminal).
std::string render_text(const Report& report, const TextStyle& style);

/// `--all-jobs` as text: a header line naming the jobs, then each job's report under a line
/// of its own (render_text's, unchanged).
std::string render_text_jobs(const std::vector<const Report*>& reports, const TextStyle& style);

}  // namespace megatriage
