#include "base/diagnostics.h"

#include <utility>

namespace megatriage {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "warning";
}

void DiagnosticSink::add(Diagnostic d) {
  // Fold repeats: a file with 10,000 over-long lines gets one diagnostic with a count.
  for (auto& existing : items_) {
    if (existing.code == d.code && existing.path == d.path) {
      existing.count += d.count;
      return;
    }
  }
  items_.push_back(std::move(d));
}

void DiagnosticSink::add(Severity s, std::string code, std::string message, std::string path,
                         std::uint64_t line, std::string hint) {
  Diagnostic d;
  d.severity = s;
  d.code = std::move(code);
  d.message = std::move(message);
  d.path = std::move(path);
  d.line = line;
  d.hint = std::move(hint);
  add(std::move(d));
}

}  // namespace megatriage
