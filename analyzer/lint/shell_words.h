// Lint stage, first half: the shell tokenizer. Reads an sbatch script like a careful reader,
// not a shell, and gives its #SBATCH directives and simple commands as dequoted words with
// line numbers. Knows shell *syntax* only as far as lint's rules need: quotes, `\`
// continuations, `$(...)`/`${...}`/backticks, comments, separators (; && || | &),
// if/case/loop nesting, here-documents and `bash -c` bodies. Never expands or runs anything.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

using ShellWords = std::vector<std::string>;

/// One simple command. Owns its strings.
struct ShellCommand {
  std::uint64_t line = 0;  ///< 1-based line of the first word
  ShellWords words;        ///< dequoted; `$(...)`, `${...}` and backticks kept raw, quotes and all
  std::vector<std::uint64_t> word_lines;  ///< the line each word starts on
  bool conditional = false;  ///< inside if/case/loop, or after && / ||
  bool in_body = false;      ///< inside a `bash -c` body
};

/// One `#SBATCH` line of the batch script itself (never one inside a `bash -c` body).
struct SbatchDirective {
  std::uint64_t line = 0;
  ShellWords words;  ///< the options after `#SBATCH`, quotes removed, trailing comment dropped
};

struct ShellScript {
  std::vector<SbatchDirective> directives;
  std::vector<ShellCommand> commands;  ///< in reading order; a `bash -c` body follows its command
};

/// Tokenizes `script`. Keywords that only open or close blocks (`then`, `do`, `fi`, `done`,
/// `esac`, `for ...`, `case ...`) and case patterns are dropped; `if`/`while` keep their
/// condition as a conditional command. Here-document bodies are skipped. An unterminated
/// quote or bracket runs to the end of the script. Never throws except std::bad_alloc.
ShellScript scan_shell_script(std::string_view script);

}  // namespace megatriage
