// `megatriage rules check [--rules DIR]...`: load the rule files as a run would, run every rule's
// samples, print each problem on stderr and a one-line summary on stdout.
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/diagnostics.h"
#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "match/knowledge_tables.h"
#include "match/rule_tags.h"
#include "match/rules.h"

namespace megatriage {

int rules_check_command(int argc, char** argv) {
  CLI::App app{"Validate rule files and run every rule's samples", "megatriage rules check"};
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, true);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  std::vector<std::string> all{default_rules_dir()};
  all.insert(all.end(), dirs.begin(), dirs.end());
  DiagnosticSink diags;
  KnowledgeTables tables;
  auto rules = load_rules(all, diags, 1, nullptr, &tables);
  check_code_tags(rules, diags);  // a tag the code asks for that no rule carries
  check_table_tags(rules, tables, diags);  // likewise a tag a check's condition asks for
  int problems = 0;
  for (const auto& d : diags.items()) {
    if (d.severity == Severity::Info) continue;
    ++problems;
    std::cerr << (d.path.empty() ? "" : d.path + ": ") << d.code << ": " << d.message << "\n";
  }
  std::cout << rules.size() << " rules loaded from " << all.size() << " director"
            << (all.size() == 1 ? "y" : "ies") << ", " << problems << " problem(s)\n";
  return problems == 0 ? kExitNoFailure : kExitFailure;
}

}  // namespace megatriage
