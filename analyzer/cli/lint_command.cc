// `megatriage lint [--rules DIR]... [--disable ID]... [--format text|json|sarif] SCRIPT...`: check sbatch scripts against
// the runbook's launch rules (lint/lint.h), in the words of the rules' lint_rules table. Every
// path is tried; one that cannot be linted (missing, a directory, a FIFO, binary, empty,
// unreadable, too large, not a shell script) is a message on stderr and the others go on.
// Exit codes: 0 clean, 1 findings, 2 a path not linted (or no words for the findings).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "app/rules_lookup.h"
#include "base/diagnostics.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "lint/lint.h"
#include "lint/script_file.h"
#include "match/knowledge_tables.h"
#include "match/rules.h"
#include "render/render_lint.h"

namespace megatriage {

namespace {

// `megatriage: PATH: CODE: message; hint`: one line per problem, the code for scripts to parse.
void print_diagnostics(const DiagnosticSink& diags) {
  for (const Diagnostic& d : diags.items()) {
    std::cerr << "megatriage: " << (d.path.empty() ? "" : d.path + ": ") << d.code << ": " << d.message;
    if (!d.hint.empty()) std::cerr << "; " << d.hint;
    std::cerr << "\n";
  }
}

}  // namespace

int lint_command(int argc, char** argv) {
  CLI::App app{"Check sbatch scripts against the runbook's launch rules", "megatriage lint"};
  app.footer(
      "A `# megatriage: disable=lint.<id>` comment turns a finding off on its line, or for the whole\n"
      "file when alone on a line before the first command.\n"
      "Exit codes: 0 no findings (notes and suppressed findings do not count), 1 findings,\n"
      "2 a path that could not be linted (missing, a directory, FIFO, binary, empty, unreadable,\n"
      "too large, not a shell script) or a usage error; the other paths are still linted.");
  std::vector<std::string> scripts;
  std::vector<std::string> disabled;
  bool no_filesystem = false;
  app.add_option("scripts", scripts, "sbatch scripts")->required();
  app.add_flag("--no-filesystem", no_filesystem, "Do not look for <worktree>/.venv on this machine");
  app.add_option("--disable", disabled,
                 "Turn a finding off in every script, e.g. lint.cuda-device-max-connections (repeatable)")
      ->allow_extra_args(false);
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, false);  // the words after DIR stay scripts
  std::string format = "text";
  add_format_flag(app, format, "Output: text, json, or sarif (SARIF 2.1.0, for code scanning)",
                  {"text", "json", "sarif"});
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  // The findings' words are data (rules/lint.json): load the rules as triage does, so a
  // --rules directory can reword a finding. A rules problem is shown and does not stop lint.
  const std::vector<std::string> all = rules_search_path(dirs);
  DiagnosticSink rules_diags;
  KnowledgeTables tables;
  load_rules(all, rules_diags, 1, &RunCache::from_environment(), &tables);  // as triage: checked files skip their samples
  for (const auto& d : rules_diags.items()) {
    if (d.severity == Severity::Error)
      std::cerr << "megatriage: " << (d.path.empty() ? "" : d.path + ": ") << d.code << ": " << d.message << "\n";
  }
  if (tables.lint_rules.empty()) {
    std::cerr << "megatriage: the rules in " << all.front()
              << " hold no lint_rules table: the findings have no words (is the install complete?)\n";
    return kExitUsage;
  }
  LintOptions options;
  options.check_filesystem = !no_filesystem;
  options.texts = &tables.lint_rules;
  options.gpus = &tables.gpu_generations;
  // A misspelt id would silently suppress nothing: refuse it, naming the ids there are.
  for (std::string id : disabled) {
    if (!id.starts_with("lint.")) id = "lint." + id;
    const bool known = std::any_of(tables.lint_rules.begin(), tables.lint_rules.end(),
                                   [&](const LintRuleEntry& e) { return e.id == id; });
    if (!known) {
      std::cerr << "megatriage lint: --disable " << id << ": no such finding; the findings are:";
      for (const LintRuleEntry& e : tables.lint_rules) std::cerr << " " << e.id;
      std::cerr << "\n";
      return kExitUsage;
    }
    options.disabled.push_back(id);
  }
  LintTally tally;
  std::vector<LintedScript> linted;  // --format json|sarif: written once all are linted
  for (const auto& path : scripts) {
    DiagnosticSink diags;
    std::optional<std::string> text = read_batch_script(path, path, diags);
    print_diagnostics(diags);  // on stderr in every format: a CI log shows why
    LintedScript one{path, text.has_value(), {}, diags.items()};
    if (!text) {
      ++tally.not_linted;
      linted.push_back(std::move(one));
      continue;
    }
    one.findings = lint_script(*text, options);
    tally.add(one.findings);
    if (format == "text") std::cout << render_lint(path, one.findings);
    linted.push_back(std::move(one));
  }
  if (format == "json") std::cout << render_lint_json(linted, tally);
  else if (format == "sarif") std::cout << render_lint_sarif(linted, tables.lint_rules);
  else std::cout << render_lint_summary(tally);
  std::cout << std::flush;
  if (tally.not_linted > 0) return kExitUsage;
  return tally.failing() > 0 ? kExitFailure : kExitNoFailure;
}

}  // namespace megatriage
