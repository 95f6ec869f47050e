// Reading a batch script: the log reader's checks, then "is this a shell script at all", so a
// log, a README or a core dump passed by mistake is refused instead of linting clean.
#include "lint/script_file.h"

#include <algorithm>

#include "input/reader.h"
#include "lint/shell_words.h"
#include "scan/line_splitter.h"

namespace megatriage {

namespace {

constexpr std::size_t kHeadBytes = 4096;  // as much as the log reader looks at for binary data

bool names_shell(std::string_view shebang) {
  for (std::string_view shell : {"sh", "bash", "zsh", "ksh", "dash"}) {
    // `#!/bin/bash`, `#!/usr/bin/env bash -l`: the shell as a whole path component or word.
    for (std::size_t at = shebang.find(shell); at != std::string_view::npos;
         at = shebang.find(shell, at + 1)) {
      const char before = at == 0 ? '/' : shebang[at - 1];
      const std::size_t end = at + shell.size();
      const char after = end < shebang.size() ? shebang[end] : ' ';
      if ((before == '/' || before == ' ') && (after == ' ' || after == '\t' || after == '\r'))
        return true;
    }
  }
  return false;
}

std::string_view base_name(std::string_view word) {
  const std::size_t slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

}  // namespace

bool looks_like_batch_script(std::string_view text) {
  if (text.starts_with("#!")) {
    const std::string_view first = text.substr(0, text.find('\n'));
    if (names_shell(first)) return true;
  }
  const ShellScript script = scan_shell_script(text);
  if (!script.directives.empty()) return true;
  for (const ShellCommand& c : script.commands) {
    for (std::size_t j = 0; j < c.words.size(); ++j) {
      const std::string_view w = base_name(c.words[j]);
      if (w == "srun" || w == "torchrun") return true;
      if (c.words[j] == "torch.distributed.run" && j > 0 && c.words[j - 1] == "-m") return true;
    }
  }
  return false;
}

std::optional<std::string> read_batch_script(const std::string& path, const std::string& display_path,
                                             DiagnosticSink& diags) {
  std::optional<std::string> text = read_whole_file(path, display_path, kMaxBatchScriptBytes, diags);
  if (!text) return std::nullopt;
  const std::string_view head = std::string_view(*text).substr(0, kHeadBytes);
  if (looks_binary(head)) {
    diags.add(Severity::Warning, "read.binary-file",
              "'" + display_path + "' looks binary (control bytes or invalid UTF-8 in its first " +
                  std::to_string(head.size()) + " bytes); not a batch script",
              display_path, 0, "name the sbatch script itself");
    return std::nullopt;
  }
  if (!looks_like_batch_script(*text)) {
    diags.add(Severity::Warning, "lint.not-a-script",
              "'" + display_path + "' is not a batch script: no #! line naming a shell, no #SBATCH "
              "directive and no srun or torchrun launch",
              display_path, 0, "name the sbatch script itself; logs go to `megatriage LOGS`");
    return std::nullopt;
  }
  return text;
}

}  // namespace megatriage
