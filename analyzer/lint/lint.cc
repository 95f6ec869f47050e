#include "lint/lint.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>
#include <utility>

#include "lint/cuda_connections_rule.h"
#include "lint/gpu_generation.h"
#include "lint/shell_words.h"
#include "match/rule_matcher.h"

// Structure: the shell tokenizer (shell_words.h) turns the script into #SBATCH directives and
// simple commands (dequoted words, first line number, whether the command only runs
// conditionally), then one function per runbook rule looks at that model.

namespace megatriage {
namespace {

// The script as the shell tokenizer reads it (shell_words.h), under the short names the rules
// below use.
using Words = ShellWords;
using Command = ShellCommand;
using Directive = SbatchDirective;
using Script = ShellScript;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<long> to_count(std::string_view s) {
  if (!is_digits(s) || s.size() > 9) return std::nullopt;
  long v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::string_view basename_of(std::string_view w) {
  auto slash = w.rfind('/');
  return slash == std::string_view::npos ? w : w.substr(slash + 1);
}

// --- the script model: assignments, options, launchers -------------------------------------

struct Assignment {
  std::string name;
  std::string value;
  std::size_t command = 0;
  std::uint64_t line = 0;
  bool conditional = false;
};

bool is_assignment(std::string_view w) {
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  if (w[0] >= '0' && w[0] <= '9') return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), is_name_char);
}

// Index of the program word: after `VAR=value` prefixes and wrappers such as `exec`.
std::size_t program_index(const Words& w) {
  std::size_t p = 0;
  while (p < w.size() && (is_assignment(w[p]) || w[p] == "exec" || w[p] == "time" ||
                          w[p] == "nohup" || w[p] == "env" || w[p] == "command"))
    ++p;
  return p;
}

bool is_program(const Command& c, std::string_view name) {
  std::size_t p = program_index(c.words);
  return p < c.words.size() && basename_of(c.words[p]) == name;
}

std::string option_name(std::string_view w) {
  std::string name(w.substr(0, w.find('=')));
  if (name.starts_with("--")) std::replace(name.begin() + 2, name.end(), '_', '-');
  return name;
}

struct OptionHit {
  std::string value;
  std::size_t index = 0;  // word index of the option
};

// Finds `--name=value`, `--name value`, `-Xvalue` or `-X value` among words[begin, end).
// Long names compare with `_` read as `-`. The last occurrence wins, as for SLURM and argparse.
std::optional<OptionHit> find_option(const Words& w, std::size_t begin, std::size_t end,
                                     std::initializer_list<std::string_view> names) {
  std::optional<OptionHit> hit;
  end = std::min(end, w.size());
  for (std::size_t i = begin; i < end; ++i) {
    const std::string& word = w[i];
    if (word.size() < 2 || word[0] != '-') continue;
    for (std::string_view name : names) {
      bool is_short = name.size() == 2;
      if (!is_short && option_name(word) == name) {
        auto eq = word.find('=');
        if (eq != std::string::npos)
          hit = OptionHit{word.substr(eq + 1), i};
        else
          hit = OptionHit{i + 1 < end ? w[i + 1] : std::string(), i};
      } else if (is_short && word.starts_with(name)) {
        if (word.size() == 2)
          hit = OptionHit{i + 1 < end ? w[i + 1] : std::string(), i};
        else
          hit = OptionHit{word.substr(word[2] == '=' ? 3 : 2), i};
      }
    }
  }
  return hit;
}

struct Launch {
  std::size_t command = 0;
  std::size_t launcher = 0;  // word index of `torch.distributed.run` or `torchrun`
  bool bare_torchrun = false;
};

// A torchrun/torch.distributed.run call; `echo torchrun` and friends are not calls.
std::optional<Launch> find_launcher(const Command& c, std::size_t index) {
  const Words& w = c.words;
  static constexpr std::string_view kNotCalls[] = {"echo", "printf", "which", "type", "hash"};
  if (std::find(std::begin(kNotCalls), std::end(kNotCalls), w[0]) != std::end(kNotCalls))
    return std::nullopt;
  for (std::size_t j = 0; j < w.size(); ++j) {
    if (w[j] == "torch.distributed.run" && j > 0 && w[j - 1] == "-m")
      return Launch{index, j, false};
    if (basename_of(w[j]) == "torchrun") {
      bool under_uv = false;
      for (std::size_t k = 0; k + 1 < j; ++k) under_uv |= w[k] == "uv" && w[k + 1] == "run";
      return Launch{index, j, !under_uv};
    }
  }
  return std::nullopt;
}

// Where srun's own options end and the program it runs begins.
std::size_t srun_program_start(const Words& w, std::size_t srun) {
  static constexpr std::string_view kFlags[] = {"-l",
                                                "--label",
                                                "-K",
                                                "--kill-on-bad-exit",
                                                "--exclusive",
                                                "--overlap",
                                                "-u",
                                                "--unbuffered",
                                                "-Q",
                                                "--quiet",
                                                "-v",
                                                "--verbose",
                                                "--exact",
                                                "--pty",
                                                "-O",
                                                "--overcommit",
                                                "--container-remap-root",
                                                "--no-container-remap-root",
                                                "--container-mount-home",
                                                "--no-container-mount-home",
                                                "--container-writable",
                                                "--no-container-entrypoint",
                                                "-X",
                                                "--disable-status",
                                                "--no-kill",
                                                "-k"};
  std::size_t j = srun + 1;
  while (j < w.size() && w[j].size() > 1 && w[j][0] == '-') {
    const std::string& o = w[j];
    bool flag = std::find(std::begin(kFlags), std::end(kFlags), o) != std::end(kFlags);
    bool attached = o.find('=') != std::string::npos || (o[1] != '-' && o.size() > 2);
    j += (flag || attached) ? 1 : 2;
  }
  return std::min(j, w.size());
}

class Model {
 public:
  Model(Script script, const LintOptions& options) : s(std::move(script)), opts(options) {
    for (std::size_t i = 0; i < s.commands.size(); ++i) {
      collect_assignments(i);
      if (auto l = find_launcher(s.commands[i], i)) launches.push_back(*l);
    }
  }

  Script s;
  const LintOptions& opts;
  std::vector<Assignment> assignments;
  std::vector<Launch> launches;

 private:
  mutable int expansion_budget_ = 0;

 public:
  const Assignment* latest(std::string_view name, std::size_t before_command) const {
    const Assignment* found = nullptr;
    for (const Assignment& a : assignments)
      if (a.name == name && a.command < before_command) found = &a;
    return found;
  }

  // Substitutes `$X`, `${X}` and `${X:-default}` with values assigned earlier in the script.
  // Unknown variables, conditional assignments and `$(...)` stay as written.
  std::string expand(std::string_view v, std::size_t before, int depth = 0) const {
    // The budget bounds pathological chains such as A=$B$B$B, B=$C$C$C, ...
    if (depth == 0) expansion_budget_ = 4096;
    std::string out;
    for (std::size_t i = 0; i < v.size();) {
      if (v[i] != '$' || depth > 8 || --expansion_budget_ < 0) {
        out += v[i++];
        continue;
      }
      std::size_t start = i;
      std::string name, fallback;
      bool has_fallback = false;
      if (i + 1 < v.size() && v[i + 1] == '{') {
        std::size_t close = v.find('}', i);
        if (close == std::string_view::npos) {
          out += v.substr(i);
          break;
        }
        std::string_view inner = v.substr(i + 2, close - i - 2);
        std::size_t n = 0;
        while (n < inner.size() && is_name_char(inner[n])) ++n;
        name = inner.substr(0, n);
        std::string_view rest = inner.substr(n);
        if (rest.starts_with(":-") || rest.starts_with("-")) {
          has_fallback = true;
          fallback = rest.substr(rest[0] == ':' ? 2 : 1);
        } else if (!rest.empty()) {
          name.clear();  // other operators: keep as written
        }
        i = close + 1;
      } else {
        std::size_t n = i + 1;
        while (n < v.size() && is_name_char(v[n])) ++n;
        name = v.substr(i + 1, n - i - 1);
        i = std::max(n, i + 1);
      }
      const Assignment* a = name.empty() ? nullptr : latest(name, before);
      if (a && !a->conditional)
        out += expand(a->value, a->command, depth + 1);
      else if (!a && has_fallback)
        out += expand(fallback, before, depth + 1);
      else
        out += v.substr(start, i - start);
    }
    return out;
  }

  std::optional<long> count(std::string_view v, std::size_t before) const {
    return to_count(expand(v, before));
  }

  // Last `#SBATCH` option among `names`, with the directive's line.
  std::optional<std::pair<std::string, std::uint64_t>> sbatch(
      std::initializer_list<std::string_view> names) const {
    std::optional<std::pair<std::string, std::uint64_t>> hit;
    for (const Directive& d : s.directives)
      if (auto o = find_option(d.words, 0, d.words.size(), names)) hit = {{o->value, d.line}};
    return hit;
  }

  // The launcher's own arguments, with `$ARGS`/`${ARGS[@]}` words replaced by their
  // assigned words (Megatron's examples keep them in DISTRIBUTED_ARGS).
  Words launcher_args(const Launch& l) const {
    const Words& w = s.commands[l.command].words;
    Words out;
    for (std::size_t j = l.launcher + 1; j < w.size(); ++j) {
      const std::string& word = w[j];
      if (word.ends_with(".py")) break;
      std::string name = variable_reference(word);
      const Assignment* a = name.empty() ? nullptr : latest(name, l.command);
      if (a) {
        for (std::string& part : split_words(a->value)) out.push_back(std::move(part));
        continue;
      }
      if (word.empty() || word[0] != '-') {
        bool value = !out.empty() && out.back().starts_with("-") &&
                     out.back().find('=') == std::string::npos && out.back() != "--standalone" &&
                     out.back() != "--no-python" && out.back() != "--no_python";
        if (!value) break;  // the training program starts here
      }
      out.push_back(word);
    }
    return out;
  }

  // `X` for a word that is exactly `$X`, `${X}`, `${X[@]}` or `${X[*]}`; empty otherwise.
  static std::string variable_reference(std::string_view w) {
    if (!w.starts_with("$")) return {};
    w.remove_prefix(1);
    bool braced = w.starts_with("{") && w.ends_with("}");
    if (braced) w = w.substr(1, w.size() - 2);
    if (braced && (w.ends_with("[@]") || w.ends_with("[*]"))) w.remove_suffix(3);
    if (w.empty() || !std::all_of(w.begin(), w.end(), is_name_char)) return {};
    return std::string(w);
  }

  static Words split_words(std::string_view v) {
    Words out;
    std::string cur;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const char c = v[i];
      // `$(scontrol show hostnames ... | head -n1)` and `${X:-a b}` stay one word, as written
      // (an array element such as `--master_addr $(...)` is one value).
      if (c == '$' && i + 1 < v.size() && (v[i + 1] == '(' || v[i + 1] == '{')) {
        const char open = v[i + 1], close = open == '(' ? ')' : '}';
        std::size_t end = i + 2;
        for (int depth = 1; end < v.size() && depth > 0; ++end) depth += v[end] == open ? 1 : v[end] == close ? -1 : 0;
        cur.append(v.substr(i, end - i));
        i = end - 1;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\n' || c == '(' || c == ')') {
        if (!cur.empty()) out.push_back(std::move(cur));
        cur.clear();
      } else if (c != '"' && c != '\'' && c != '\\') {
        cur += c;
      }
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
  }

  bool uses_uv() const {
    for (const Command& c : s.commands)
      for (std::size_t j = 0; j + 1 < c.words.size(); ++j)
        if (c.words[j] == "uv" && c.words[j + 1] == "run") return true;
    return false;
  }

  // First occurrence of any of `flags` as a word of a command or inside an assigned value.
  std::optional<std::pair<std::string, std::uint64_t>> find_flag(
      std::initializer_list<std::string_view> flags) const {
    auto match = [&](std::string_view w) {
      return std::find(flags.begin(), flags.end(), option_name(w)) != flags.end();
    };
    for (const Command& c : s.commands) {
      for (std::size_t j = 0; j < c.words.size(); ++j) {
        if (match(c.words[j])) return {{option_name(c.words[j]), c.word_lines[j]}};
        if (is_assignment(c.words[j]))
          for (const std::string& part : split_words(c.words[j].substr(c.words[j].find('=') + 1)))
            if (match(part)) return {{option_name(part), c.line}};
      }
    }
    return std::nullopt;
  }

 private:
  void collect_assignments(std::size_t index) {
    const Command& c = s.commands[index];
    const Words& w = c.words;
    std::size_t j = 0;
    bool declared = w[0] == "export" || w[0] == "declare" || w[0] == "typeset" || w[0] == "local" ||
                    w[0] == "readonly";
    if (declared) j = 1;
    for (; j < w.size(); ++j) {
      if (declared && w[j].starts_with("-")) continue;
      if (!is_assignment(w[j])) {
        if (declared) continue;
        break;
      }
      auto eq = w[j].find('=');
      Assignment a{w[j].substr(0, eq), w[j].substr(eq + 1), index, c.line, c.conditional};
      if (a.value == "(" || (a.value.starts_with("(") && !a.value.ends_with(")"))) {
        while (++j < w.size()) {  // array spread over words: NAME=( a b c )
          a.value += ' ';
          a.value += w[j];
          // The closing `)`; a whole `$(...)` element ends in one too, with its parens balanced.
          const auto opens = std::count(w[j].begin(), w[j].end(), '(');
          if (w[j].ends_with(")") && std::count(w[j].begin(), w[j].end(), ')') > opens) break;
        }
      }
      assignments.push_back(std::move(a));
    }
  }
};

// --- rules -------------------------------------------------------------------------------

using Findings = std::vector<LintFinding>;

using Values = std::map<std::string, std::string>;

// A finding of `rule` in the words of its `variant` (rules/lint.json), `values` filled in. The
// check decided the variant; the table only phrases it.
void add(const Model& m, Findings& out, std::uint64_t line, std::string_view rule, std::string_view variant,
         const Values& values = {}) {
  const LintText* t = m.opts.texts ? find_lint_text(*m.opts.texts, rule, variant) : nullptr;
  if (t == nullptr) {
    out.push_back(LintFinding{line, std::string(rule),
                              "the rules in use have no words for variant '" + std::string(variant) + "' of " +
                                  std::string(rule),
                              "restore the variant in the lint_rules entry (see rules/lint.json)"});
    return;
  }
  out.push_back(LintFinding{line, std::string(rule), fill_placeholders(t->why, values),
                            fill_placeholders(t->fix, values)});
}

std::size_t first_launch(const Model& m) {
  if (!m.launches.empty()) return m.launches.front().command;
  for (std::size_t i = 0; i < m.s.commands.size(); ++i)
    if (is_program(m.s.commands[i], "srun")) return i;
  return m.s.commands.size();
}

struct WorkDir {
  std::string target;
  std::uint64_t line = 0;
  std::size_t before = 0;  // command index to expand variables at
};

// Where the launch runs: the last `cd`/`pushd` before it, else `srun --chdir`, else
// `#SBATCH --chdir` (all three put the workers in the work tree).
std::optional<WorkDir> work_dir(const Model& m, std::size_t launch) {
  std::optional<WorkDir> dir;
  if (auto d = m.sbatch({"--chdir", "-D"})) dir = WorkDir{d->first, d->second, 0};
  for (std::size_t i = 0; i < launch && i < m.s.commands.size(); ++i) {
    const Command& c = m.s.commands[i];
    std::size_t p = program_index(c.words);
    if (p >= c.words.size()) continue;
    if ((c.words[p] == "cd" || c.words[p] == "pushd") && p + 1 < c.words.size() &&
        c.words[p + 1] != "-")
      dir = WorkDir{c.words[p + 1], c.line, i};
    if (c.words[p] == "srun")
      if (auto o = find_option(c.words, p + 1, srun_program_start(c.words, p), {"--chdir", "-D"}))
        dir = WorkDir{o->value, c.line, i};
  }
  return dir;
}

void check_cd_worktree(const Model& m, Findings& out) {
  std::size_t launch = first_launch(m);
  if (launch >= m.s.commands.size() || work_dir(m, launch)) return;
  add(m, out, m.s.commands[launch].line, "lint.no-cd-worktree", "default");
}

void check_no_venv(const Model& m, Findings& out) {
  if (!m.opts.check_filesystem || !m.uses_uv() || m.latest("UV_PROJECT_ENVIRONMENT", SIZE_MAX))
    return;
  auto dir = work_dir(m, first_launch(m));
  if (!dir) return;
  std::string target = m.expand(dir->target, dir->before);
  if (!target.starts_with("/") || target.find_first_of("$`<>*") != std::string::npos) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(fs::path(target), ec) || ec) return;
  if (fs::is_directory(fs::path(target) / ".venv", ec) && !ec) return;
  add(m, out, dir->line, "lint.no-venv", "default", {{"path", target}});
}

void check_ntasks(const Model& m, Findings& out) {
  std::optional<long> nodes = 1;
  if (auto n = m.sbatch({"--nodes", "-N"}))
    nodes = to_count(n->first.substr(0, n->first.find('-')));
  auto per_node = m.sbatch({"--ntasks-per-node", "--tasks-per-node"});
  if (per_node) {
    auto v = to_count(per_node->first);
    if (v && *v != 1)
      add(m, out, per_node->second, "lint.ntasks-per-node", "sbatch-per-node", {{"value", per_node->first}});
  } else if (auto n = m.sbatch({"--ntasks", "-n"})) {
    auto v = to_count(n->first);
    if (v && nodes && *v > *nodes)
      add(m, out, n->second, "lint.ntasks-per-node", "sbatch-ntasks",
          {{"value", n->first}, {"nodes", std::to_string(*nodes)}});
  }
  for (std::size_t i = 0; i < m.s.commands.size(); ++i) {
    const Command& c = m.s.commands[i];
    std::size_t p = program_index(c.words);
    if (p >= c.words.size() || basename_of(c.words[p]) != "srun") continue;
    std::size_t end = srun_program_start(c.words, p);
    auto gpu_ish = [](const std::string& v) {  // $GPUS_PER_NODE, $WORLD_SIZE: one task per GPU
      std::string up = v;
      std::transform(up.begin(), up.end(), up.begin(),
                     [](unsigned char ch) { return std::toupper(ch); });
      return up.find("GPU") != std::string::npos || up.find("WORLD_SIZE") != std::string::npos;
    };
    auto pn = find_option(c.words, p + 1, end, {"--ntasks-per-node", "--tasks-per-node"});
    if (pn) {
      std::string v = m.expand(pn->value, i);
      auto n = to_count(v);
      if ((n && *n != 1) || (!n && gpu_ish(pn->value)))
        add(m, out, c.line, "lint.ntasks-per-node", "srun-per-node", {{"value", pn->value}});
      continue;
    }
    auto nt = find_option(c.words, p + 1, end, {"--ntasks", "-n"});
    if (!nt) continue;
    std::optional<long> srun_nodes = nodes;
    if (auto sn = find_option(c.words, p + 1, end, {"--nodes", "-N"}))
      srun_nodes = m.count(sn->value, i);
    auto n = m.count(nt->value, i);
    if ((n && srun_nodes && *n > *srun_nodes) || (!n && gpu_ish(nt->value)))
      add(m, out, c.line, "lint.ntasks-per-node", "srun-ntasks", {{"value", nt->value}});
  }
}

void check_bare_torchrun(const Model& m, Findings& out) {
  for (const Launch& l : m.launches)
    if (l.bare_torchrun)
      add(m, out, m.s.commands[l.command].line, "lint.bare-torchrun", "default");
}

// `$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)` in any quoting/spacing.
bool squeezed_contains(std::string_view v, std::initializer_list<std::string_view> needles) {
  std::string s;
  for (char c : v)
    if (c != ' ' && c != '\t' && c != '"' && c != '\'' && c != '{' && c != '}' && c != '\n') s += c;
  for (std::string_view n : needles)
    if (s.find(n) == std::string::npos) return false;
  return true;
}

bool from_first_node(std::string_view v) {
  bool hosts = squeezed_contains(v, {"scontrolshowhostname", "$SLURM_JOB_NODELIST"}) ||
               squeezed_contains(v, {"scontrolshowhostname", "$SLURM_NODELIST"});
  return hosts && (squeezed_contains(v, {"|head-n1"}) || squeezed_contains(v, {"|head-1"}));
}

// True when `value` comes from the job's node list through variables assigned earlier
// (`nodes=($(scontrol show hostnames ...)); head=${nodes[0]}; MASTER_ADDR=$head`).
bool derives_from_node_list(const Model& m, std::string_view value, std::size_t before, int depth) {
  if (squeezed_contains(value, {"scontrolshowhostname", "NODELIST"})) return true;
  if (depth > 4) return false;
  for (std::size_t i = value.find('$'); i != std::string_view::npos; i = value.find('$', i + 1)) {
    std::size_t n = i + 1 + (i + 1 < value.size() && value[i + 1] == '{');
    std::size_t end = n;
    while (end < value.size() && is_name_char(value[end])) ++end;
    const Assignment* a = end > n ? m.latest(value.substr(n, end - n), before) : nullptr;
    if (a && derives_from_node_list(m, a->value, a->command, depth + 1)) return true;
  }
  return false;
}

// What is wrong with MASTER_ADDR=`value`: the lint.master-addr variant and the value its text
// shows; nothing when it is right.
struct MasterAddrProblem {
  std::string_view variant;
  std::string value;
};

std::optional<MasterAddrProblem> master_addr_problem(const Model& m, std::string_view value,
                                                     std::size_t before) {
  if (from_first_node(value)) return std::nullopt;
  if (!squeezed_contains(value, {"scontrolshowhostname"}) &&
      derives_from_node_list(m, value, before, 0))
    return std::nullopt;
  std::string v = m.expand(value, before);
  if (v == "localhost" || v == "127.0.0.1" || v == "0.0.0.0") return MasterAddrProblem{"localhost", v};
  if (!v.empty() && v.find_first_of("$`") == std::string::npos) return MasterAddrProblem{"hard-coded", v};
  return MasterAddrProblem{"not-first-node", std::string(value)};
}

bool has_rdzv(const Words& args) {
  if (find_option(args, 0, args.size(), {"--rdzv-endpoint"})) return true;
  auto backend = find_option(args, 0, args.size(), {"--rdzv-backend"});
  return backend && backend->value == "c10d";
}

void check_master_addr(const Model& m, Findings& out) {
  for (const Assignment& a : m.assignments)
    if (a.name == "MASTER_ADDR")
      if (auto problem = master_addr_problem(m, a.value, a.command))
        add(m, out, a.line, "lint.master-addr", problem->variant, {{"value", problem->value}});
  for (const Launch& l : m.launches) {
    Words args = m.launcher_args(l);
    if (has_rdzv(args)) continue;
    auto addr = find_option(args, 0, args.size(), {"--master-addr"});
    if (!addr) continue;  // lint.launcher-args reports it
    std::uint64_t line = m.s.commands[l.command].line;
    std::string name = Model::variable_reference(addr->value);
    if (!name.empty()) {
      if (name == "MASTER_ADDR" && !m.latest(name, l.command))
        add(m, out, line, "lint.master-addr", "launcher-unset");
    } else if (auto problem = master_addr_problem(m, addr->value, l.command)) {
      // The launcher's own argument: the fix also says to pass the exported address.
      add(m, out, line, "lint.master-addr", "launcher-" + std::string(problem->variant),
          {{"value", problem->value}});
    }
  }
}

void check_launcher_args(const Model& m, Findings& out) {
  for (const Launch& l : m.launches) {
    Words args = m.launcher_args(l);
    bool rdzv = has_rdzv(args);
    // The runbook's spelling: outer variables spliced into the single-quoted `bash -c` body.
    struct Required {
      std::string_view name, quoted, plain, effect;
    };
    static constexpr Required kRequired[] = {
        {"--nnodes", "--nnodes='\"${NNODES}\"'", "--nnodes=${NNODES}",
         "each node believes it is alone (default 1 node)"},
        {"--nproc-per-node", "--nproc-per-node='\"${GPUS_PER_NODE}\"'",
         "--nproc-per-node=${GPUS_PER_NODE}", "one worker per node instead of one per GPU"},
        {"--node-rank", "--node-rank=${NODE_RANK} (NODE_RANK=${SLURM_NODEID})",
         "--node-rank=${SLURM_NODEID}", "every node claims node rank 0"},
        {"--master-addr", "--master-addr='\"${MASTER_ADDR}\"'", "--master-addr=${MASTER_ADDR}",
         "every node looks for the rendezvous on its own 127.0.0.1"},
        {"--master-port", "--master-port='\"${MASTER_PORT}\"'", "--master-port=${MASTER_PORT}",
         "the port silently differs from the MASTER_PORT the script chose"}};
    bool in_body = m.s.commands[l.command].in_body;
    std::string missing, effects, fix;
    for (const Required& r : kRequired) {
      if (rdzv && r.name != "--nnodes" && r.name != "--nproc-per-node") continue;
      if (find_option(args, 0, args.size(), {r.name})) continue;
      const char* sep = missing.empty() ? "" : ", ";
      missing += sep + std::string(r.name);
      effects += (effects.empty() ? "" : "; ") + std::string(r.effect);
      fix += sep + std::string(in_body ? r.quoted : r.plain);
    }
    if (missing.empty()) continue;
    add(m, out, m.s.commands[l.command].line, "lint.launcher-args", "default",
        {{"missing", missing}, {"effects", effects}, {"arguments", fix}});
  }
}

std::optional<long> gpus_per_node(const Model& m, std::uint64_t& line, std::string& spelled) {
  auto last_count = [](const std::string& v) {
    return to_count(
        std::string_view(v).substr(v.rfind(':') == std::string::npos ? 0 : v.rfind(':') + 1));
  };
  if (auto g = m.sbatch({"--gpus-per-node"})) {
    line = g->second;
    spelled = "#SBATCH --gpus-per-node=" + g->first;
    return last_count(g->first);
  }
  if (auto g = m.sbatch({"--gres"})) {
    std::string v = g->first;
    for (std::size_t start = 0; start <= v.size();) {  // `gpu:8`, `gpu:h100:8,nvme:1`
      std::size_t comma = std::min(v.find(',', start), v.size());
      std::string entry = v.substr(start, comma - start);
      if (entry.starts_with("gpu")) {
        line = g->second;
        spelled = "#SBATCH --gres=" + v;
        return last_count(entry.substr(0, entry.find('(')));
      }
      start = comma + 1;
    }
  }
  return std::nullopt;
}

void check_nproc_vs_gpus(const Model& m, Findings& out) {
  std::uint64_t gpu_line = 0;
  std::string spelled;
  auto gpus = gpus_per_node(m, gpu_line, spelled);
  if (!gpus) return;
  for (const Launch& l : m.launches) {
    Words args = m.launcher_args(l);
    auto np = find_option(args, 0, args.size(), {"--nproc-per-node"});
    if (!np) continue;
    auto n = m.count(np->value, l.command);
    if (!n || *n == *gpus) continue;
    // Variant: fewer or more ranks than GPUs, and how the count is spelled (a literal, a
    // variable the script assigns, one it does not).
    Values values{{"count", std::to_string(*n)},
                  {"gpus", std::to_string(*gpus)},
                  {"gpu_option", spelled},
                  {"gpu_line", std::to_string(gpu_line)}};
    std::string spelling = "literal";
    std::string name = Model::variable_reference(np->value);
    if (!name.empty()) {
      values["variable"] = name;
      spelling = "unassigned";
      if (const Assignment* a = m.latest(name, l.command)) {
        spelling = "variable";
        values["assigned"] = a->value;
        values["assigned_line"] = std::to_string(a->line);
      }
    }
    add(m, out, m.s.commands[l.command].line, "lint.nproc-vs-gpus",
        std::string(*n < *gpus ? "fewer-" : "more-") + spelling, values);
  }
}

// --- CUDA_DEVICE_MAX_CONNECTIONS: the runbook rule applied to what the script shows ---------

// Every value the script gives the Megatron option `name` (`--name N`, `--name=N`), expanded:
// in a command's words (a `bash -c` body too) and in assigned values (`ARGS="..."`,
// `GPT_ARGS=( ... )`), each with its line.
std::vector<std::pair<std::string, std::uint64_t>> option_values(const Model& m, std::string_view name) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  // `lines`: the line of each word, or null to say `line` for all.
  auto scan = [&](const Words& w, std::size_t before, std::uint64_t line, const std::vector<std::uint64_t>* lines) {
    for (std::size_t j = 0; j < w.size(); ++j) {
      if (w[j].size() < 3 || !w[j].starts_with("--") || option_name(w[j]) != name) continue;
      const std::size_t eq = w[j].find('=');
      std::string value = eq != std::string::npos ? w[j].substr(eq + 1) : j + 1 < w.size() ? w[j + 1] : "";
      out.emplace_back(m.expand(value, before), lines != nullptr && j < lines->size() ? (*lines)[j] : line);
    }
  };
  for (std::size_t i = 0; i < m.s.commands.size(); ++i) {
    const Command& c = m.s.commands[i];
    scan(c.words, i, c.line, &c.word_lines);
    for (const std::string& w : c.words)
      if (is_assignment(w)) scan(Model::split_words(w.substr(w.find('=') + 1)), i, c.line, nullptr);
  }
  return out;
}

// True when every argument of the training program is in the script (literal, or a variable
// the script assigns), so an option it does not pass has Megatron's default. `"$@"`, a variable
// from the environment or a YAML config can carry any option.
bool megatron_arguments_visible(const Model& m) {
  if (m.launches.empty()) return false;
  for (const Launch& l : m.launches) {
    const Words& w = m.s.commands[l.command].words;
    std::size_t program = l.launcher + 1;
    while (program < w.size() && !w[program].ends_with(".py")) ++program;
    if (program >= w.size()) return false;
    auto hides_options = [&](const Words& words, std::size_t from, int depth, auto& self) -> bool {
      for (std::size_t j = from; j < words.size(); ++j) {
        const std::string& word = words[j];
        if (option_name(word) == "--yaml-cfg" || word.ends_with(".yaml") || word.ends_with(".yml")) return true;
        if (!word.starts_with("$")) continue;
        const bool is_value = j > from && words[j - 1].starts_with("-") && words[j - 1].find('=') == std::string::npos;
        if (is_value) continue;
        const std::string name = Model::variable_reference(word);
        const Assignment* a = name.empty() ? nullptr : m.latest(name, l.command);
        if (a == nullptr || a->conditional || depth > 4) return true;
        if (self(Model::split_words(a->value), 0, depth + 1, self)) return true;
      }
      return false;
    };
    if (hides_options(w, program + 1, 0, hides_options)) return false;
  }
  return true;
}

// A parallel size as the script shows it: its value, or why it is unknown.
struct SizeReading {
  std::optional<long long> value;
  std::string shown;    // `TP=2 (line 37)`, `TP=1 (Megatron's default)`
  std::string unknown;  // why there is no value
};

SizeReading parallel_size(const Model& m, std::string_view option, std::string_view label, bool args_visible) {
  SizeReading r;
  const auto values = option_values(m, option);
  if (values.empty()) {
    if (args_visible) {
      r.value = 1;
      r.shown = std::string(label) + "=1 (Megatron's default)";
    } else {
      r.unknown = "the script does not pass " + std::string(option) + " where lint can see it";
    }
    return r;
  }
  for (const auto& [text, line] : values) {
    const std::optional<long> n = to_count(text);
    if (!n) {
      r.unknown = std::string(option) + " is `" + text + "` (line " + std::to_string(line) + ")" +
                  (text.find('$') != std::string::npos ? ", set outside the script" : ", not a number");
      return r;
    }
    if (r.value && *r.value != *n) {
      r.value.reset();
      r.unknown = std::string(option) + " differs between lines " + std::to_string(values.front().second) +
                  " and " + std::to_string(line);
      return r;
    }
    r.value = *n;
    if (r.shown.empty()) r.shown = std::string(label) + "=" + text + " (line " + std::to_string(line) + ")";
  }
  return r;
}

// The GPU generation the script asks SLURM for: a GPU type in `--gres`/`--gpus*`, else the
// constraint, else the partition's name (`gpu-h100`). A text naming two generations (a
// constraint `h100|b200`) says nothing.
struct GpuReading {
  GpuGeneration generation = GpuGeneration::Unknown;
  std::string shown;  // `Hopper (#SBATCH --partition=gpu-h100, line 4)`
};

GpuReading script_gpus(const Model& m) {
  GpuReading r;
  if (m.opts.gpus == nullptr) return r;
  const std::initializer_list<std::string_view> sources[] = {
      {"--gres"}, {"--gpus-per-node"}, {"--gpus"}, {"--gpus-per-task"}, {"--constraint", "-C"},
      {"--partition", "-p"}};
  for (auto names : sources) {
    auto hit = m.sbatch(names);
    if (!hit) continue;
    std::string upper = hit->first;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    GpuGeneration found = GpuGeneration::Unknown;
    bool several = false;
    for (const GpuGenerationEntry& e : *m.opts.gpus) {
      const bool named = std::any_of(e.models.begin(), e.models.end(),
                                     [&](const std::string& part) { return upper.find(part) != std::string::npos; });
      if (!named) continue;
      several = several || (found != GpuGeneration::Unknown && found != e.generation);
      found = e.generation;
    }
    if (found == GpuGeneration::Unknown || several) continue;
    r.generation = found;
    std::string name(generation_name(found));
    if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    r.shown = name + " (#SBATCH " + std::string(*names.begin()) + "=" + hit->first + ", line " +
              std::to_string(hit->second) + ")";
    return r;
  }
  return r;
}

// The runbook rule (cuda_connections_rule.h) on the script's own TP, CP, FSDP and MoE-overlap
// settings and GPUs. A value that contradicts what the script shows is a finding, and so is no
// value where the script's setup needs one; what the script does not show is a note.
void check_cuda_device_max_connections(const Model& m, Findings& out) {
  auto fsdp = m.find_flag({"--use-torch-fsdp2", "--use-megatron-fsdp", "--use-custom-fsdp"});
  auto moe_overlap = m.find_flag({"--overlap-moe-expert-parallel-comm"});
  const bool args_visible = megatron_arguments_visible(m);
  const SizeReading tp = parallel_size(m, "--tensor-model-parallel-size", "TP", args_visible);
  const SizeReading cp = parallel_size(m, "--context-parallel-size", "CP", args_visible);
  const GpuReading gpus = script_gpus(m);

  CudaConnectionsSetup setup;
  setup.gpu = gpus.generation;
  setup.tp = tp.value;
  setup.cp = cp.value;
  setup.fsdp = fsdp.has_value();
  setup.moe_overlap = moe_overlap.has_value();
  const CudaConnectionsRequirement need = cuda_connections_requirement(setup);

  std::string sizes;  // `TP=2 (line 37), CP=1 (Megatron's default)`: the sizes above 1 first
  for (const SizeReading* s : {&tp, &cp})
    if (s->value && *s->value > 1) sizes += (sizes.empty() ? "" : ", ") + s->shown;
  if (sizes.empty())
    for (const SizeReading* s : {&tp, &cp})
      if (s->value) sizes += (sizes.empty() ? "" : ", ") + s->shown;
  std::string unknown;
  if (!tp.value) unknown = tp.unknown;
  if (!cp.value) unknown += (unknown.empty() ? "" : "; ") + cp.unknown;
  if (gpus.generation == GpuGeneration::Unknown)
    unknown += (unknown.empty() ? "" : "; ") +
               std::string("the script does not name its GPUs (no GPU type in --gres/--gpus, constraint or partition)");

  const Assignment* set = nullptr;
  bool set_conditionally = false;
  for (const Assignment& a : m.assignments) {
    if (a.name != "CUDA_DEVICE_MAX_CONNECTIONS") continue;
    if (a.conditional) set_conditionally = true;
    else set = &a;  // the last unconditional one is the value the launch sees
  }
  auto note = [&](std::uint64_t line, std::string_view variant, const Values& values) {
    add(m, out, line, "lint.cuda-device-max-connections", variant, values);
    out.back().note = true;
  };

  if (set == nullptr) {
    // A value set under a condition was chosen with care; none at all only matters where the
    // setup needs one (1 or 32) and says so.
    if (set_conditionally || m.launches.empty()) return;
    // Set some other way lint does not model (`srun --export=...,CUDA_DEVICE_MAX_CONNECTIONS=1`,
    // `env CUDA_DEVICE_MAX_CONNECTIONS=1 ...`): nothing to say.
    for (const Command& c : m.s.commands)
      for (const std::string& w : c.words)
        if (w.find("CUDA_DEVICE_MAX_CONNECTIONS") != std::string::npos) return;
    const std::uint64_t line = m.s.commands[m.launches.front().command].line;
    // A file the script sources may export it: then lint cannot tell.
    std::string sourced;
    for (const Command& c : m.s.commands) {
      const std::size_t p = program_index(c.words);
      if (p + 1 < c.words.size() && (c.words[p] == "source" || c.words[p] == ".") && sourced.empty())
        sourced = c.words[p + 1] + " (line " + std::to_string(c.line) + ")";
    }
    if (!sourced.empty() && (need.value == CudaConnectionsValue::One || need.value == CudaConnectionsValue::ThirtyTwo)) {
      note(line, "missing-sourced", {{"setup", need.value == CudaConnectionsValue::One ? sizes : moe_overlap->first},
                                     {"value", need.required}, {"path", sourced}});
      return;
    }
    if (need.value == CudaConnectionsValue::ThirtyTwo) {
      add(m, out, line, "lint.cuda-device-max-connections", "missing-32",
          {{"flag", moe_overlap->first}, {"flag_line", std::to_string(moe_overlap->second)}});
    } else if (need.value == CudaConnectionsValue::One) {
      if (gpus.generation == GpuGeneration::Unknown)
        note(line, "missing-gpu-unknown", {{"setup", sizes}, {"unknown", unknown}});
      else
        add(m, out, line, "lint.cuda-device-max-connections", "missing-1", {{"setup", sizes}, {"gpu", gpus.shown}});
    }
    return;
  }
  const std::string value = m.expand(set->value, set->command);
  const Values shown{{"value", value}, {"setup", sizes}, {"gpu", gpus.shown}, {"unknown", unknown}};
  switch (need.value) {
    case CudaConnectionsValue::NotOne:
      if (!cuda_connections_value_fits(need.value, value))
        add(m, out, set->line, "lint.cuda-device-max-connections", "fsdp",
            {{"flag", fsdp->first}, {"flag_line", std::to_string(fsdp->second)}});
      return;
    case CudaConnectionsValue::ThirtyTwo:
      if (!cuda_connections_value_fits(need.value, value))
        add(m, out, set->line, "lint.cuda-device-max-connections", "moe-overlap",
            {{"value", value}, {"flag", moe_overlap->first}, {"flag_line", std::to_string(moe_overlap->second)}});
      return;
    case CudaConnectionsValue::One:
      if (cuda_connections_value_fits(need.value, value)) return;
      if (gpus.generation == GpuGeneration::Unknown)
        note(set->line, "gpu-unknown", shown);
      else
        add(m, out, set->line, "lint.cuda-device-max-connections", "needs-1", shown);
      return;
    case CudaConnectionsValue::Unset:
      if (gpus.generation == GpuGeneration::Blackwell)
        note(set->line, "blackwell", shown);
      else if (value == "1")  // with TP=1 and CP=1 a 1 only serialises kernels; other values are the default's kind
        add(m, out, set->line, "lint.cuda-device-max-connections", "not-needed", shown);
      return;
    case CudaConnectionsValue::Undecided:
      note(set->line, "undecided", shown);
      return;
  }
}

// /tmp, /dev/shm, $TMPDIR and /local* exist per node and are wiped when the job ends.
bool is_node_local(std::string_view p) {
  auto under = [&](std::string_view dir) {
    return p == dir || (p.starts_with(dir) && p.size() > dir.size() && p[dir.size()] == '/');
  };
  return under("/tmp") || under("/dev/shm") || under("/var/tmp") || p.starts_with("/local") ||
         p.starts_with("$TMPDIR") || p.starts_with("${TMPDIR");
}

void check_node_local_paths(const Model& m, Findings& out) {
  auto dir = work_dir(m, first_launch(m));
  const bool tree_known = dir && dir->target.starts_with("/");
  // Variant: the path as written or also expanded; the work tree named or not.
  auto report = [&](std::uint64_t line, const std::string& what, const std::string& path,
                    const std::string& expanded) {
    Values values{{"what", what}, {"path", path}, {"expanded", expanded}};
    if (tree_known) values["work_tree"] = dir->target;
    add(m, out, line, "lint.node-local-path",
        std::string(path == expanded ? "literal" : "expanded") + (tree_known ? "" : "-no-work-tree"), values);
  };
  for (const Directive& d : m.s.directives)
    for (auto names : {std::initializer_list<std::string_view>{"--output", "-o"},
                       std::initializer_list<std::string_view>{"--error", "-e"}})
      if (auto o = find_option(d.words, 0, d.words.size(), names); o && is_node_local(o->value))
        report(d.line, "#SBATCH " + d.words[o->index].substr(0, d.words[o->index].find('=')),
               o->value, o->value);

  static constexpr std::string_view kOutputs[] = {"--save", "--tensorboard-dir", "--wandb-save-dir",
                                                  "--log-dir"};
  auto check_words = [&](const Words& w, std::uint64_t line, std::size_t before) {
    for (std::size_t j = 0; j < w.size(); ++j) {
      std::string name = option_name(w[j]);
      if (std::find(std::begin(kOutputs), std::end(kOutputs), name) == std::end(kOutputs)) continue;
      std::size_t eq = w[j].find('=');
      std::string value = eq != std::string::npos ? w[j].substr(eq + 1)
                          : j + 1 < w.size()      ? w[j + 1]
                                                  : "";
      std::string expanded = m.expand(value, before);
      if (is_node_local(expanded)) report(line, name, value, expanded);
    }
  };
  for (std::size_t i = 0; i < m.s.commands.size(); ++i) {
    const Command& c = m.s.commands[i];
    check_words(c.words, c.line, i);
    for (const std::string& w : c.words)  // ARGS="--save /tmp/x ..."
      if (is_assignment(w)) check_words(Model::split_words(w.substr(w.find('=') + 1)), c.line, i);

    // Redirections and tee: `> /tmp/x.log`, `2>>/tmp/x`, `&> $TMPDIR/x`, `| tee /tmp/x`.
    std::size_t p = program_index(c.words);
    bool tee = p < c.words.size() && basename_of(c.words[p]) == "tee";
    bool mkdir = p < c.words.size() && basename_of(c.words[p]) == "mkdir";
    for (std::size_t j = 0; j < c.words.size(); ++j) {
      const std::string& w = c.words[j];
      std::size_t k = 0;
      while (k < w.size() && ((w[k] >= '0' && w[k] <= '9') || (k == 0 && w[k] == '&'))) ++k;
      std::string target;
      if (k < w.size() && w[k] == '>') {
        std::size_t t = w.find_first_not_of('>', k);
        target =
            t == std::string::npos ? (j + 1 < c.words.size() ? c.words[j + 1] : "") : w.substr(t);
        if (target.starts_with("&") || target.starts_with("/dev/null") ||
            target.starts_with("/dev/std"))
          continue;
        std::string expanded = m.expand(target, i);
        if (is_node_local(expanded))
          report(c.line, "the redirection " + w.substr(0, k + 1), target, expanded);
      } else if ((tee || mkdir) && j > p && !w.starts_with("-")) {
        std::string expanded = m.expand(w, i);
        // mkdir alone is harmless; a node-local directory named for logs or checkpoints is not.
        bool outputish = tee || expanded.find("log") != std::string::npos ||
                         expanded.find("ckpt") != std::string::npos ||
                         expanded.find("checkpoint") != std::string::npos ||
                         expanded.find("tensorboard") != std::string::npos ||
                         expanded.find("wandb") != std::string::npos;
        if (outputish && is_node_local(expanded))
          report(c.line, std::string(tee ? "tee" : "mkdir"), w, expanded);
      }
    }
  }
}

// --- suppression -------------------------------------------------------------------------

// `# megatriage: disable=lint.a,lint.b` (the `lint.` may be left out): the rule ids it names.
std::vector<std::string> disabled_by_comment(std::string_view line) {
  static constexpr std::string_view kMarker = "megatriage: disable=";
  const std::size_t hash = line.find('#');
  const std::size_t at = hash == std::string_view::npos ? hash : line.find(kMarker, hash);
  if (at == std::string_view::npos) return {};
  std::string_view list = line.substr(at + kMarker.size());
  list = list.substr(0, list.find_first_of(" \t\r"));
  std::vector<std::string> ids;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string id(list.substr(start, comma - start));
    if (!id.empty()) ids.push_back(id.starts_with("lint.") ? id : "lint." + id);
    start = comma + 1;
  }
  return ids;
}

// Marks the findings that a disable comment or `--disable` turns off. A comment counts on the
// finding's line or on any line of the command that starts there (the end of a continued
// command is the only place a comment can go); a comment alone on its line before the first
// command counts for the whole file.
void apply_suppressions(std::string_view script, const Model& m, Findings& findings) {
  std::map<std::uint64_t, std::vector<std::string>> by_line;
  std::vector<std::string> whole_file = m.opts.disabled;
  const std::uint64_t first_command = m.s.commands.empty() ? UINT64_MAX : m.s.commands.front().line;
  std::uint64_t number = 0;
  for (std::size_t start = 0; start < script.size();) {
    const std::size_t end = std::min(script.find('\n', start), script.size());
    const std::string_view line = script.substr(start, end - start);
    start = end + 1;
    ++number;
    std::vector<std::string> ids = disabled_by_comment(line);
    if (ids.empty()) continue;
    const std::size_t first = line.find_first_not_of(" \t");
    const bool alone = first != std::string_view::npos && line[first] == '#' && !line.substr(first).starts_with("#SBATCH");
    auto& to = alone && number < first_command ? whole_file : by_line[number];
    to.insert(to.end(), ids.begin(), ids.end());
  }
  auto names = [](const std::vector<std::string>& ids, const std::string& rule) {
    return std::find(ids.begin(), ids.end(), rule) != ids.end();
  };
  for (LintFinding& f : findings) {
    if (names(whole_file, f.rule)) {
      f.suppressed = true;
      continue;
    }
    // The lines of the shortest command that starts on the finding's line.
    std::uint64_t last = f.line;
    bool seen = false;
    for (const Command& c : m.s.commands) {
      if (c.line != f.line || c.word_lines.empty()) continue;
      const std::uint64_t end = *std::max_element(c.word_lines.begin(), c.word_lines.end());
      last = seen ? std::min(last, end) : end;
      seen = true;
    }
    for (auto it = by_line.lower_bound(f.line); it != by_line.end() && it->first <= last && !f.suppressed; ++it)
      f.suppressed = names(it->second, f.rule);
  }
}

}  // namespace

std::vector<LintFinding> lint_script(std::string_view script, const LintOptions& options) {
  Findings out;
  try {
    Model m(scan_shell_script(script), options);
    check_cd_worktree(m, out);
    check_ntasks(m, out);
    check_bare_torchrun(m, out);
    check_master_addr(m, out);
    check_launcher_args(m, out);
    check_nproc_vs_gpus(m, out);
    check_cuda_device_max_connections(m, out);
    check_node_local_paths(m, out);
    check_no_venv(m, out);
    apply_suppressions(script, m, out);
  } catch (...) {
    // Only allocation failure can get here; keep what was found rather than throw.
  }
  std::stable_sort(out.begin(), out.end(), [](const LintFinding& a, const LintFinding& b) {
    return std::tie(a.line, a.rule) < std::tie(b.line, b.rule);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const LintFinding& a, const LintFinding& b) {
                          return a.line == b.line && a.rule == b.rule && a.why == b.why;
                        }),
            out.end());
  return out;
}

std::string render_lint(const std::string& path, const std::vector<LintFinding>& findings) {
  std::string out;
  for (const LintFinding& f : findings) {
    if (f.suppressed) continue;
    out += path;
    if (f.line > 0) out += ':' + std::to_string(f.line);
    out += std::string(f.note ? ": note: " : ": ") + f.rule + ": " + f.why + "\n  fix: ";
    for (char c : f.fix) out += c == '\n' ? std::string("\n       ") : std::string(1, c);
    out += '\n';
  }
  return out;
}

void LintTally::add(const std::vector<LintFinding>& found) {
  ++scripts;
  for (const LintFinding& f : found) {
    if (f.note) {
      notes += f.suppressed ? 0 : 1;
      continue;
    }
    ++findings;
    suppressed += f.suppressed ? 1 : 0;
  }
}

std::string render_lint_summary(const LintTally& t) {
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string out = count(t.scripts, "script", "scripts") + ", " + count(t.findings, "finding", "findings");
  if (t.suppressed > 0) out += " (" + std::to_string(t.suppressed) + " suppressed)";
  if (t.notes > 0) out += ", " + count(t.notes, "note", "notes");
  if (t.not_linted > 0) out += ", " + count(t.not_linted, "path", "paths") + " not linted";
  return out + "\n";
}

}  // namespace megatriage
