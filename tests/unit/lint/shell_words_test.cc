// Unit tests for the shell tokenizer (lint/shell_words.h): words, quoting, continuations,
// comments and #SBATCH directives, separators and conditionals, here-documents, `bash -c`.
#include "lint/shell_words.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace megatriage {
namespace {

using Lines = std::vector<std::uint64_t>;

// The words of every command, one string per command, words joined by `|`.
std::vector<std::string> commands_of(const ShellScript& s) {
  std::vector<std::string> out;
  for (const ShellCommand& c : s.commands) {
    std::string joined;
    for (const std::string& w : c.words) joined += (joined.empty() ? "" : "|") + w;
    out.push_back(joined);
  }
  return out;
}

TEST_SUITE("shell_words") {
  TEST_CASE("shell_words: words split on blanks, commands on newlines and separators") {
    ShellScript s = scan_shell_script("a b\tc\nd; e && f || g | h & i\n");
    CHECK(commands_of(s) == std::vector<std::string>{"a|b|c", "d", "e", "f", "g", "h", "i"});
    CHECK(s.commands[0].line == 1);
    CHECK(s.commands[0].word_lines == Lines{1, 1, 1});
    CHECK(s.commands[1].line == 2);
    // After && or || a command may not run; a pipe or & does not make one conditional.
    CHECK_FALSE(s.commands[1].conditional);
    CHECK_FALSE(s.commands[2].conditional);
    CHECK(s.commands[3].conditional);
    CHECK(s.commands[4].conditional);
    CHECK_FALSE(s.commands[5].conditional);
    CHECK_FALSE(s.commands[6].conditional);
    CHECK(s.directives.empty());
  }

  TEST_CASE("shell_words: quotes are removed, their content kept literally") {
    SUBCASE("single quotes keep everything, double quotes unescape \\$ \\\" \\\\ and `") {
      ShellScript s = scan_shell_script(R"(echo 'a b $X' "c \"d\" \$e \n" x'y'"z")");
      REQUIRE(s.commands.size() == 1);
      CHECK(s.commands[0].words == ShellWords{"echo", "a b $X", R"(c "d" $e \n)", "xyz"});
    }
    SUBCASE("a backslash outside quotes escapes the next character") {
      ShellScript s = scan_shell_script("echo a\\ b \\;\n");
      CHECK(commands_of(s) == std::vector<std::string>{"echo|a b|;"});
    }
    SUBCASE("$(...), ${...} and backticks are kept raw, quotes and all, as one word") {
      ShellScript s = scan_shell_script(
          "X=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1) Y=${A:-b c} Z=`id -u`\n");
      REQUIRE(s.commands.size() == 1);
      CHECK(s.commands[0].words ==
            ShellWords{"X=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)",
                       "Y=${A:-b c}", "Z=`id -u`"});
    }
    SUBCASE("an unterminated quote runs to the end of the script") {
      ShellScript s = scan_shell_script("echo 'never closed\nstill quoted");
      REQUIRE(s.commands.size() == 1);
      CHECK(s.commands[0].words == ShellWords{"echo", "never closed\nstill quoted"});
    }
  }

  TEST_CASE("shell_words: continuations join lines and keep each word's own line") {
    ShellScript s = scan_shell_script("torchrun \\\n  --nnodes=2 \\\r\n  train.py\nnext\n");
    CHECK(commands_of(s) == std::vector<std::string>{"torchrun|--nnodes=2|train.py", "next"});
    CHECK(s.commands[0].line == 1);
    CHECK(s.commands[0].word_lines == Lines{1, 2, 3});
    CHECK(s.commands[1].line == 4);
  }

  TEST_CASE("shell_words: comments are dropped; #SBATCH lines become directives") {
    ShellScript s = scan_shell_script(
        "#!/bin/bash\n"
        "#SBATCH --nodes=4 --job-name=\"x\"  # four nodes\n"
        "# SBATCH --ntasks=8 is only a comment\n"
        "echo hi # trailing words are a comment\n"
        "echo a#b\n");
    REQUIRE(s.directives.size() == 1);
    CHECK(s.directives[0].line == 2);
    CHECK(s.directives[0].words == ShellWords{"--nodes=4", "--job-name=x"});
    CHECK(commands_of(s) == std::vector<std::string>{"echo|hi", "echo|a#b"});
    CHECK(s.commands[1].line == 5);
  }

  TEST_CASE("shell_words: block keywords are dropped and what they guard is conditional") {
    ShellScript s = scan_shell_script(
        "if [ -d x ]; then\n"
        "  cd x\n"
        "fi\n"
        "for i in 1 2; do\n"
        "  echo $i\n"
        "done\n"
        "case $GPU in\n"
        "  h100) srun a ;;\n"
        "esac\n"
        "srun b\n");
    CHECK(commands_of(s) == std::vector<std::string>{"[|-d|x|]", "cd|x", "echo|$i", "srun|a", "srun|b"});
    CHECK(s.commands[0].conditional);  // the if's condition
    CHECK(s.commands[1].conditional);
    CHECK(s.commands[2].conditional);
    CHECK(s.commands[3].conditional);
    CHECK_FALSE(s.commands[4].conditional);
    CHECK(s.commands[4].line == 10);
  }

  TEST_CASE("shell_words: here-document bodies are skipped, lines still counted") {
    ShellScript s = scan_shell_script(
        "cat <<EOF > cfg\n"
        "srun not-a-command\n"
        "EOF\n"
        "cat <<-'END'\n"
        "\tnor this\n"
        "\tEND\n"
        "srun real\n");
    CHECK(commands_of(s) == std::vector<std::string>{"cat|<<EOF|>|cfg", "cat|<<-END", "srun|real"});
    CHECK(s.commands[2].line == 7);
  }

  TEST_CASE("shell_words: a bash -c body is read in place, after its command") {
    ShellScript s = scan_shell_script(
        "srun bash -c 'cd /w && torchrun \\\n"
        "  x.py'\n"
        "#SBATCH --nodes=2\n");
    REQUIRE(s.commands.size() == 3);
    CHECK(s.commands[0].words == ShellWords{"srun", "bash", "-c", "cd /w && torchrun \\\n  x.py"});
    CHECK_FALSE(s.commands[0].in_body);
    CHECK(s.commands[1].words == ShellWords{"cd", "/w"});
    CHECK(s.commands[1].in_body);
    CHECK(s.commands[2].words == ShellWords{"torchrun", "x.py"});
    CHECK(s.commands[2].in_body);
    CHECK(s.commands[2].conditional);  // after &&
    CHECK(s.commands[2].word_lines == Lines{1, 2});
    // The #SBATCH line after the body belongs to the batch script itself: a directive.
    CHECK(s.directives.size() == 1);
  }

  TEST_CASE("shell_words: redirections and arrays stay in one word or command") {
    ShellScript s = scan_shell_script("cmd 2>&1 >&2\nARGS=(\n  --a\n  --b\n)\nnext\n");
    CHECK(commands_of(s) == std::vector<std::string>{"cmd|2>&1|>&2", "ARGS=(|--a|--b|)", "next"});
    CHECK(s.commands[2].line == 6);
  }

  TEST_CASE("shell_words: empty and blank scripts have no commands") {
    CHECK(scan_shell_script("").commands.empty());
    CHECK(scan_shell_script("\n\n  \t\n;;\n").commands.empty());
  }
}

}  // namespace
}  // namespace megatriage
