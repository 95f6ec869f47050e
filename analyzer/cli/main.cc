// megatriage's entry point: picks the subcommand from the first words and hands it the rest.
// Each subcommand (cli/*_command.cc) parses its own flags; base/exit_codes.h holds the codes.
// The one place that stops an exception: whatever escapes a subcommand is a bug, said as such.
#include <cstdio>
#include <exception>
#include <string_view>

#include "base/exit_codes.h"
#include "base/heap_setup.h"
#include "cli/commands.h"

namespace {

int run_subcommand(int argc, char** argv) {
  std::string_view first = argc >= 2 ? argv[1] : "";
  if (first == "postmortem") return megatriage::postmortem_command(argc - 1, argv + 1);
  if (first == "lint") return megatriage::lint_command(argc - 1, argv + 1);
  if (first == "watch") return megatriage::watch_command(argc - 1, argv + 1);
  if (first == "partial") return megatriage::partial_command(argc - 1, argv + 1);
  if (first == "merge") return megatriage::merge_command(argc - 1, argv + 1);
  // The bare word is the subcommand; a folder named rules is triaged as `./rules` or `rules/`.
  if (first == "rules") return megatriage::rules_command(argc - 1, argv + 1);
  return megatriage::triage_command(argc, argv);
}

// Stages keep their own failures as diagnostics (STYLE.md "Error handling"); reaching here means
// an invariant broke. Say so plainly, with what a bug report needs, instead of abort()'s core dump.
int internal_error(const char* what) {
  std::fflush(stdout);
  std::fprintf(stderr, "megatriage %s: internal error: %s; please report it with the command line\n",
               MEGATRIAGE_VERSION, what);
  return megatriage::kExitInternal;
}

}  // namespace

int main(int argc, char** argv) {
  megatriage::set_up_heap();
  try {
    return run_subcommand(argc, argv);
  } catch (const std::exception& e) {
    return internal_error(e.what());
  } catch (...) {
    return internal_error("an exception of unknown type");
  }
}
