// `megatriage lint --format sarif`: SARIF 2.1.0 (OASIS), the format code scanning reads, so a
// batch script's findings show on its own lines in a pull request. One run; the driver's rules
// are the loaded lint_rules table (their words are data, rules/lint.json).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/text_util.h"
#include "base/version.h"
#include "render/render_lint.h"

namespace megatriage {
namespace {

using json = nlohmann::ordered_json;

// A path as a URI reference: relative paths stay relative (code scanning resolves them against
// the checkout), absolute ones become file:// URIs; bytes outside the unreserved set and `/`
// are percent-encoded.
std::string path_uri(const std::string& path) {
  std::string out = path.starts_with("/") ? "file://" : "";
  for (unsigned char c : path) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '.' || c == '_' || c == '~' || c == '/';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

json location(const std::string& path, std::uint64_t line) {
  json physical = {{"artifactLocation", {{"uri", path_uri(path)}}}};
  if (line > 0) physical["region"] = {{"startLine", line}};  // SARIF lines start at 1
  return {{"physicalLocation", std::move(physical)}};
}

// `lint.no-cd-worktree` -> `no cd worktree`: a short description from the id, since the
// table's words are per variant and carry placeholders.
std::string words_of(const std::string& id) {
  std::string name = id.substr(id.find('.') + 1);
  for (char& c : name)
    if (c == '-') c = ' ';
  return name;
}

}  // namespace

std::string render_lint_sarif(const std::vector<LintedScript>& scripts, const std::vector<LintRuleEntry>& rules) {
  json descriptors = json::array();
  for (const LintRuleEntry& e : rules) {
    json d = {{"id", e.id}, {"name", e.id.substr(e.id.find('.') + 1)}, {"shortDescription", {{"text", words_of(e.id)}}}};
    if (!e.variants.empty()) {
      d["fullDescription"] = {{"text", repair_utf8(e.variants.front().why)}};
      d["help"] = {{"text", repair_utf8(e.variants.front().fix)}};
    }
    d["defaultConfiguration"] = {{"level", "error"}};
    descriptors.push_back(std::move(d));
  }
  auto rule_index = [&](const std::string& id) -> long {
    for (std::size_t i = 0; i < rules.size(); ++i)
      if (rules[i].id == id) return static_cast<long>(i);
    return -1;
  };
  json results = json::array();
  json notifications = json::array();
  bool all_linted = true;
  for (const LintedScript& s : scripts) {
    for (const LintFinding& f : s.findings) {
      if (f.suppressed) continue;  // turned off on purpose, as in the text output
      json r = {{"ruleId", f.rule}};
      if (long i = rule_index(f.rule); i >= 0) r["ruleIndex"] = i;
      r["level"] = f.note ? "note" : "error";
      r["message"] = {{"text", repair_utf8(f.why + ". Fix: " + f.fix)}};
      r["locations"] = json::array({location(s.path, f.line)});
      results.push_back(std::move(r));
    }
    for (const Diagnostic& d : s.problems) {
      notifications.push_back({{"level", d.severity == Severity::Error ? "error" : "warning"},
                               {"message", {{"text", repair_utf8(d.message + (d.hint.empty() ? "" : "; " + d.hint))}}},
                               {"descriptor", {{"id", d.code}}},
                               {"locations", json::array({location(s.path, 0)})}});
    }
    all_linted = all_linted && s.linted;
  }
  json driver = {{"name", "megatriage"},
                 {"version", megatriage_version()},
                 {"semanticVersion", megatriage_version()},
                 {"rules", std::move(descriptors)}};
  json invocation = {{"executionSuccessful", all_linted}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
  json run = {{"tool", {{"driver", std::move(driver)}}},
              {"invocations", json::array({std::move(invocation)})},
              {"results", std::move(results)}};
  json doc = {{"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({std::move(run)})}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace megatriage
