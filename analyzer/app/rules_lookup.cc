#include "app/rules_lookup.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "match/rules.h"

namespace megatriage {
namespace {

// A site or user directory counts when it holds a rule file: an empty /etc/megatriage/rules.d
// (made ready for the site's rules) must not add a rules.dir-empty warning to every report.
bool holds_rule_files(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path& p = it->path();
    if (p.extension() == ".json" && !p.filename().string().starts_with(".")) return true;
  }
  return false;
}

std::string user_rules_dir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  // The XDG spec: an unset, empty or relative XDG_CONFIG_HOME means $HOME/.config.
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/megatriage/rules";
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] != '/') return "";
  return std::string(home) + "/.config/megatriage/rules";
}

}  // namespace

const char* const kRulesSearchPathHelp = R"(
Rules search path (a later directory's rule replaces an earlier one with the same id):
  1. built-in: <prefix>/share/megatriage/rules beside the binary ($MEGATRIAGE_RULES_DIR replaces it)
  2. site: /etc/megatriage/rules.d, then each directory of $MEGATRIAGE_RULES_PATH (colon-separated)
  3. user: ${XDG_CONFIG_HOME:-~/.config}/megatriage/rules
  4. each --rules DIR, in the order given
`megatriage rules list` shows every rule and its file; `megatriage rules check` checks them all.
)";

std::vector<std::string> rules_search_path(const std::vector<std::string>& extra) {
  std::vector<std::string> dirs{default_rules_dir()};
  auto add_if_used = [&](const std::string& dir) {
    if (!dir.empty() && holds_rule_files(dir)) dirs.push_back(dir);
  };
  add_if_used("/etc/megatriage/rules.d");
  if (const char* path = std::getenv("MEGATRIAGE_RULES_PATH"); path != nullptr) {
    std::string_view rest = path;
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      add_if_used(std::string(rest.substr(0, colon)));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  add_if_used(user_rules_dir());
  dirs.insert(dirs.end(), extra.begin(), extra.end());
  return dirs;
}

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
