// `megatriage lint SCRIPT...`: check sbatch scripts against the runbook's launch rules
// (lint/lint.h). Exit codes: no findings, findings, or a script that cannot be read.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <iterator>

#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "lint/lint.h"

namespace megatriage {

int lint_command(int argc, char** argv) {
  CLI::App app{"Check sbatch scripts against the runbook's launch rules", "megatriage lint"};
  std::vector<std::string> scripts;
  bool no_filesystem = false;
  app.add_option("scripts", scripts, "sbatch scripts")->required();
  app.add_flag("--no-filesystem", no_filesystem, "Do not look for <worktree>/.venv on this machine");
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  LintOptions options;
  options.check_filesystem = !no_filesystem;
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
