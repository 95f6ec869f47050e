// Diagnostics: problems with the input (not failures of the job), collected per file and
// shown in every report. Deep code records here and never prints.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

enum class Severity : std::uint8_t { Info, Warning, Error };

const char* severity_name(Severity s);

/// One input problem. `code` is a stable id `stage.kebab-name` (e.g. `read.gzip-truncated`).
struct Diagnostic {
  Severity severity = Severity::Warning;
  std::string code;
  std::string message;   // what failed, with figures
  std::string path;      // file as walked; empty when not about a file
  std::uint64_t line = 0;  // 0 when not about a line
  std::string hint;      // what to do about it; may be empty
  std::uint64_t count = 1;  // repeats folded into this one (same code, same file)
};

/// The diagnostics of one code, for a report that names a code once: "512 files: no log line
/// printed a year" instead of 512 lines. `items` point into the list given to
/// group_diagnostics_by_code and live as long as it.
struct DiagnosticGroup {
  std::string_view code;
  Severity severity = Severity::Info;  // the worst of its items
  std::vector<const Diagnostic*> items;  // in the list's order; the first is the example shown
  std::uint64_t occurrences = 0;       // the items' counts summed
  std::size_t paths = 0;               // distinct non-empty paths among the items
};

/// Groups `diagnostics` by code, in the order each code first appears. Cost: one pass, and a
/// sort of each group's paths to count them.
std::vector<DiagnosticGroup> group_diagnostics_by_code(const std::vector<Diagnostic>& diagnostics);

/// Collects diagnostics for one file (or the run). Repeats of a code for the same path are
/// folded into the first occurrence with a count. Not thread-safe: one per worker/file.
class DiagnosticSink {
 public:
  void add(Diagnostic d);
  void add(Severity s, std::string code, std::string message, std::string path = {},
           std::uint64_t line = 0, std::string hint = {});
  const std::vector<Diagnostic>& items() const { return items_; }
  std::vector<Diagnostic> take() { return std::move(items_); }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace megatriage
