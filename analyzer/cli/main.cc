// megatriage's entry point: picks the subcommand from the first words and hands it the rest.
// Each subcommand (cli/*_command.cc) parses its own flags; base/exit_codes.h holds the codes.
#include <malloc.h>

#include <string_view>

#include "cli/commands.h"

int main(int argc, char** argv) {
  // A run builds its results once and frees them at the end: keep freed memory for reuse
  // instead of returning it to the kernel page by page (each return costs page faults later).
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
  std::string_view first = argc >= 2 ? argv[1] : "";
  if (first == "postmortem") return megatriage::postmortem_command(argc - 1, argv + 1);
  if (first == "lint") return megatriage::lint_command(argc - 1, argv + 1);
  if (first == "watch") return megatriage::watch_command(argc - 1, argv + 1);
  if (first == "rules" && argc >= 3 && std::string_view(argv[2]) == "check")
    return megatriage::rules_check_command(argc - 2, argv + 2);
  return megatriage::triage_command(argc, argv);
}
