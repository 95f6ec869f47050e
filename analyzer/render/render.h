// Render stage: Report -> bytes. Renderers format only; they make no decisions.
#pragma once

#include <string>

#include "model/report.h"

namespace megatriage {

/// The versioned JSON report (schema in README.md). Always valid UTF-8.
std::string render_json(const Report& report);

struct TextStyle {
  bool color = false;
  std::size_t width = 100;
};

/// The human report: verdict first, root cause, symptoms, checks, diagnostics. Every text that
/// came from a log is made printable (no terminal escapes reach the terminal).
std::string render_text(const Report& report, const TextStyle& style);

}  // namespace megatriage
