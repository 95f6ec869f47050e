// `megatriage lint [--rules DIR]... SCRIPT...`: check sbatch scripts against the runbook's launch
// rules (lint/lint.h), in the words of the rules' lint_rules table. Exit codes: no findings,
// findings, or a script (or the findings' words) that cannot be read.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <iterator>

#include "base/diagnostics.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "lint/lint.h"
#include "match/knowledge_tables.h"
#include "match/rules.h"

namespace megatriage {

int lint_command(int argc, char** argv) {
  CLI::App app{"Check sbatch scripts against the runbook's launch rules", "megatriage lint"};
  std::vector<std::string> scripts;
  bool no_filesystem = false;
  app.add_option("scripts", scripts, "sbatch scripts")->required();
  app.add_flag("--no-filesystem", no_filesystem, "Do not look for <worktree>/.venv on this machine");
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, false);  // the words after DIR stay scripts
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  // The findings' words are data (rules/lint.json): load the rules as triage does, so a
  // --rules directory can reword a finding. A rules problem is shown and does not stop lint.
  std::vector<std::string> all{default_rules_dir()};
  all.insert(all.end(), dirs.begin(), dirs.end());
  DiagnosticSink diags;
  KnowledgeTables tables;
  load_rules(all, diags, 1, &RunCache::from_environment(), &tables);  // as triage: checked files skip their samples
  for (const auto& d : diags.items()) {
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
  bool findings = false;
  for (const auto& path : scripts) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "megatriage: cannot read " << path << "\n";
      return kExitUsage;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto found = lint_script(text, options);
    findings = findings || !found.empty();
    std::cout << render_lint(path, found);
  }
  return findings ? kExitFailure : kExitNoFailure;
}

}  // namespace megatriage
