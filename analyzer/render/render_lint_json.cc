// `megatriage lint --format json`: every path's findings (suppressed ones marked, so a script can
// count them), the problems of paths that were not linted, and the summary's counts.
#include <nlohmann/json.hpp>

#include "base/text_util.h"
#include "base/version.h"
#include "render/render_lint.h"

namespace megatriage {

namespace {
// Its own version, apart from the triage report's: the two shapes change independently.
constexpr int kLintSchemaVersion = 1;
}  // namespace

std::string render_lint_json(const std::vector<LintedScript>& scripts, const LintTally& tally) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["schema_version"] = kLintSchemaVersion;
  doc["megatriage_version"] = megatriage_version();
  json list = json::array();
  for (const LintedScript& s : scripts) {
    json findings = json::array();
    for (const LintFinding& f : s.findings)
      findings.push_back({{"line", f.line > 0 ? json(f.line) : json(nullptr)},
                          {"rule", f.rule},
                          {"level", f.note ? "note" : "error"},
                          {"why", repair_utf8(f.why)},
                          {"fix", repair_utf8(f.fix)},
                          {"suppressed", f.suppressed}});
    json problems = json::array();
    for (const Diagnostic& d : s.problems)
      problems.push_back({{"severity", severity_name(d.severity)},
                          {"code", d.code},
                          {"message", repair_utf8(d.message)},
                          {"hint", d.hint.empty() ? json(nullptr) : json(repair_utf8(d.hint))}});
    list.push_back({{"path", repair_utf8(s.path)},
                    {"linted", s.linted},
                    {"findings", std::move(findings)},
                    {"problems", std::move(problems)}});
  }
  doc["scripts"] = std::move(list);
  doc["summary"] = {{"scripts", tally.scripts},
                    {"findings", tally.findings},
                    {"suppressed", tally.suppressed},
                    {"notes", tally.notes},
                    {"not_linted", tally.not_linted}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace megatriage
