// `megatriage rules VERB`: the rule files' own commands. `rules check [--rules DIR]...` loads the
// rule files as a run would (the whole search path, app/rules_lookup.h), runs every rule's
// samples, prints each problem on stderr and a one-line summary on stdout. `rules list` prints
// the rules a run would use, each with the file it came from. Without a verb (or with --help) it
// shows the verbs: the bare word is never a folder to triage (`megatriage ./rules` is).
#include <CLI/CLI.hpp>
#include <iostream>
#include <string_view>

#include "app/rules_lookup.h"
#include "base/diagnostics.h"
#include "base/exit_codes.h"
#include "cli/commands.h"
#include "cli/shared_flags.h"
#include "match/knowledge_tables.h"
#include "match/rule_tags.h"
#include "match/rules.h"

namespace megatriage {
namespace {

void print_rules_help(std::ostream& out) {
  out << "Usage: megatriage rules VERB [--rules DIR]...\n"
         "\n"
         "Verbs:\n"
         "  check    validate the rule files and run every rule's samples (megatriage rules check --help)\n"
         "  list     every rule a run uses, with the file it came from (megatriage rules list --help)\n"
      << kRulesSearchPathHelp << "\nDirectories used now:\n";
  for (const std::string& dir : rules_search_path({})) out << "  " << dir << "\n";
  out << "To triage a folder named rules, write it as a path: megatriage ./rules\n";
}

// Prints the problems load_rules found (not the info ones, such as an override) on stderr;
// returns their number.
int print_problems(const DiagnosticSink& diags) {
  int problems = 0;
  for (const auto& d : diags.items()) {
    if (d.severity == Severity::Info) continue;
    ++problems;
    std::cerr << (d.path.empty() ? "" : d.path + ": ") << d.code << ": " << d.message << "\n";
  }
  return problems;
}

// One rule a line, sorted by id: the id, a tab, the file and line it was loaded from. Tabs make
// it a table for cut/awk; a rule that overrode an earlier one shows the later file only (the
// file that wins is what a run uses).
int rules_list_command(int argc, char** argv) {
  CLI::App app{"List every rule a run uses (built-in, site, user, --rules), with the file it came from",
               "megatriage rules list"};
  app.footer(std::string(kRulesSearchPathHelp) +
             "\nOutput: one rule a line, sorted by id: ID<TAB>FILE:LINE.\n"
             "Exit codes: 0 listed, 2 usage error or no rules loaded.\n");
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, true);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  const std::vector<std::string> all = rules_search_path(dirs);
  DiagnosticSink diags;
  const std::vector<Rule> rules = load_rules(all, diags);
  if (std::string why = rules_unusable_message(all, rules.size(), diags.items()); !why.empty()) {
    std::cerr << "megatriage: " << why << "\n";
    return kExitUsage;
  }
  if (print_problems(diags) > 0)
    std::cerr << "megatriage: the rules above were left out (megatriage rules check says more)\n";
  for (const Rule& rule : rules) std::cout << rule.id << '\t' << rule.source << '\n';
  return kExitNoFailure;
}

int rules_check_command(int argc, char** argv) {
  CLI::App app{"Validate rule files and run every rule's samples", "megatriage rules check"};
  app.footer(std::string(kRulesSearchPathHelp) +
             "\nExit codes: 0 no problem, 1 problems in the rule files, 2 usage error or no rules "
             "loaded, 3 internal error.\n");
  std::vector<std::string> dirs;
  add_rules_flag(app, dirs, kRulesFlagHelp, true);
  if (auto rc = parse_flags(app, argc, argv)) return *rc;
  const std::vector<std::string> all = rules_search_path(dirs);
  DiagnosticSink diags;
  KnowledgeTables tables;
  auto rules = load_rules(all, diags, 1, nullptr, &tables);
  if (std::string why = rules_unusable_message(all, rules.size(), diags.items()); !why.empty()) {
    std::cerr << "megatriage: " << why << "\n";
    return kExitUsage;
  }
  check_code_tags(rules, diags);  // a tag the code asks for that no rule carries
  check_table_tags(rules, tables, diags);  // likewise a tag a check's condition asks for
  const int problems = print_problems(diags);
  std::cout << rules.size() << " rules loaded from " << all.size() << " director"
            << (all.size() == 1 ? "y" : "ies") << ", " << problems << " problem(s)\n";
  return problems == 0 ? kExitNoFailure : kExitFailure;
}

}  // namespace

int rules_command(int argc, char** argv) {
  const std::string_view verb = argc >= 2 ? argv[1] : "";
  if (verb == "check") return rules_check_command(argc - 1, argv + 1);
  if (verb == "list") return rules_list_command(argc - 1, argv + 1);
  if (verb.empty() || verb == "--help" || verb == "-h") {
    print_rules_help(std::cout);
    return kExitNoFailure;
  }
  std::cerr << "megatriage rules: unknown verb '" << verb << "'\n";
  print_rules_help(std::cerr);
  return kExitUsage;
}

}  // namespace megatriage
