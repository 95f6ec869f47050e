#include "base/diagnostics.h"

#include <algorithm>
#include <map>
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

std::vector<DiagnosticGroup> group_diagnostics_by_code(const std::vector<Diagnostic>& diagnostics) {
  std::vector<DiagnosticGroup> groups;
  std::map<std::string_view, std::size_t> index;  // code -> its group
  for (const Diagnostic& d : diagnostics) {
    auto [it, fresh] = index.emplace(d.code, groups.size());
    if (fresh) {
      groups.emplace_back();
      groups.back().code = d.code;
      groups.back().severity = d.severity;
    }
    DiagnosticGroup& g = groups[it->second];
    g.items.push_back(&d);
    g.occurrences += d.count;
    g.severity = std::max(g.severity, d.severity);
  }
  for (DiagnosticGroup& g : groups) {
    std::vector<std::string_view> paths;
    for (const Diagnostic* d : g.items)
      if (!d->path.empty()) paths.push_back(d->path);
    std::sort(paths.begin(), paths.end());
    g.paths = static_cast<std::size_t>(std::unique(paths.begin(), paths.end()) - paths.begin());
  }
  return groups;
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
