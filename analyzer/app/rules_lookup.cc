#include "app/rules_lookup.h"

#include <cstdlib>

#include "match/rules.h"

namespace megatriage {

std::string rules_unusable_message(const std::vector<std::string>& dirs, std::size_t rule_count,
                                   const std::vector<Diagnostic>& diags) {
  // load_rules says why a directory gave nothing with these two codes, on the directory's path.
  std::string builtin_problem;
  for (const Diagnostic& d : diags) {
    if (!dirs.empty() && d.path == dirs.front() &&
        (d.code == "rules.dir-unreadable" || d.code == "rules.dir-empty")) {
      builtin_problem = d.message;
      break;
    }
  }
  if (builtin_problem.empty() && rule_count > 0) return "";

  std::string msg = rule_count == 0 ? "no rules loaded" : "the built-in rules were not found";
  if (!builtin_problem.empty()) {
    msg += " (" + builtin_problem + ")";
  } else {
    msg += ": every rule file failed its checks (run `megatriage rules check` to see why)";
  }
  const char* env = std::getenv("MEGATRIAGE_RULES_DIR");
  const bool from_env = env != nullptr && *env != '\0';
  msg += "\n  built-in rules looked for in: ";
  const std::vector<std::string> places = builtin_rules_dir_candidates();
  for (std::size_t i = 0; i < places.size(); ++i) msg += (i ? ", " : "") + places[i];
  if (from_env) msg += " ($MEGATRIAGE_RULES_DIR)";
  msg += from_env ? "\n  fix: point MEGATRIAGE_RULES_DIR at megatriage's rules directory"
                  : "\n  fix: set MEGATRIAGE_RULES_DIR to megatriage's rules directory";
  msg += " (a checkout's rules/,\n  or <prefix>/share/megatriage/rules after cmake --install); "
         "--rules DIR adds rules to the built-in ones,\n  it does not replace them";
  return msg;
}

}  // namespace megatriage
