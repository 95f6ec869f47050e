#include "slurm/slurm_job.h"

#include <cctype>
#include <cstdlib>

namespace megatriage {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string get(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

// Shell-like words: whitespace separates, single and double quotes group, backslash escapes.
std::vector<std::string> shell_words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < s.size()) cur += s[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

// sbatch options that take no value; every other option without `=` takes the next word.
bool is_flag_option(const std::string& w) {
  static const char* const kFlags[] = {
      "--exclusive", "--parsable", "--hold", "--requeue", "--no-requeue", "--wait", "--test-only",
      "--overcommit", "--contiguous", "--spread-job", "--quiet", "--verbose", "--usage", "--help",
      "--ignore-pbs", "--no-kill", "--oversubscribe", "--reboot", "--use-min-nodes", "--export-file",
      "-H", "-O", "-Q", "-s", "-v", "-W", "-h", "-V", "-k"};
  for (const char* f : kFlags)
    if (w == f) return true;
  return false;
}

// Applies sbatch's output/error options in `words` to `p`. Stops at --wrap (its text is a
// command) and, when `stop_at_operand`, at the first operand (the script; later words are its
// arguments).
void apply_options(const std::vector<std::string>& words, OutputPatterns& p, bool stop_at_operand) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--wrap" || w.rfind("--wrap=", 0) == 0) break;
    if (w.empty() || w[0] != '-') {
      if (stop_at_operand) break;
      continue;
    }
    std::string* target = nullptr;
    std::string name = w, value;
    bool has_value = false;
    if (w.rfind("--", 0) == 0) {
      std::size_t eq = w.find('=');
      if (eq != std::string::npos) { name = w.substr(0, eq); value = w.substr(eq + 1); has_value = true; }
      if (name == "--output") target = &p.output;
      if (name == "--error") target = &p.error;
    } else if (w.size() >= 2) {
      name = w.substr(0, 2);
      if (w.size() > 2) { value = w.substr(2); has_value = true; }
      if (name == "-o") target = &p.output;
      if (name == "-e") target = &p.error;
    }
    if (!has_value && !is_flag_option(name) && i + 1 < words.size()) { value = words[++i]; has_value = true; }
    if (target && has_value) *target = value;
  }
}

}  // namespace

SlurmJobId parse_job_id(std::string_view text) {
  SlurmJobId id;
  id.text = std::string(text);
  std::size_t plus = text.find('+');
  std::size_t under = text.find('_');
  if (plus != std::string_view::npos) {
    id.heterogeneous = all_digits(text.substr(0, plus)) && all_digits(text.substr(plus + 1));
    id.valid = id.heterogeneous;
  } else if (under != std::string_view::npos) {
    id.array_job_id = std::string(text.substr(0, under));
    id.array_task_id = std::string(text.substr(under + 1));
    id.valid = all_digits(id.array_job_id) && all_digits(id.array_task_id);
  } else {
    id.valid = all_digits(text);
  }
  return id;
}

std::vector<std::map<std::string, std::string>> parse_sacct_parsable(std::string_view text) {
  std::vector<std::map<std::string, std::string>> rows;
  std::vector<std::string> header;
  std::size_t submit_col = std::string::npos;
  for (std::string_view line : split_lines(text)) {
    if (trim(line).empty()) continue;
    std::vector<std::string> fields = split(line, '|');
    if (header.empty()) {
      header = fields;
      for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == "SubmitLine") submit_col = i;
      continue;
    }
    if (fields.size() > header.size() && submit_col != std::string::npos) {
      // A `|` inside SubmitLine: the fields after it are still the last columns.
      std::size_t extra = fields.size() - header.size();
      std::string joined = fields[submit_col];
      for (std::size_t k = 1; k <= extra; ++k) joined += "|" + fields[submit_col + k];
      fields[submit_col] = joined;
      fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(submit_col) + 1,
                   fields.begin() + static_cast<std::ptrdiff_t>(submit_col + extra) + 1);
    }
    if (fields.size() != header.size()) continue;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string base_state(std::string_view state) {
  state = trim(state);
  std::size_t sp = state.find(' ');
  return std::string(state.substr(0, sp));
}

long cancelled_by_uid(std::string_view state) {
  state = trim(state);
  constexpr std::string_view kPrefix = "CANCELLED by ";
  if (state.substr(0, kPrefix.size()) != kPrefix) return -1;
  std::string_view uid = state.substr(kPrefix.size());
  return all_digits(uid) ? std::atol(std::string(uid).c_str()) : -1;
}

bool is_final_state(std::string_view state) {
  std::string s = base_state(state);
  return !(s.empty() || s == "PENDING" || s == "RUNNING" || s == "COMPLETING" || s == "SUSPENDED" ||
           s == "REQUEUED" || s == "RESIZING" || s == "CONFIGURING" || s == "STAGE_OUT" ||
           s == "SIGNALING" || s == "REQUEUE_HOLD" || s == "REQUEUE_FED" || s == "RESV_DEL_HOLD" ||
           s == "STOPPED" || s == "SPECIAL_EXIT");
}

std::string state_meaning(std::string_view state) {
  std::string s = base_state(state);
  if (s == "COMPLETED") return "all processes ended with exit code 0";
  if (s == "FAILED") return "the batch script ended with a non-zero exit code or another failure";
  if (s == "TIMEOUT") return "the job reached its time limit and was killed";
  if (s == "CANCELLED") return "the job was cancelled (scancel by a user or an administrator)";
  if (s == "OUT_OF_MEMORY") return "a process exceeded the job's memory limit (cgroup OOM kill)";
  if (s == "NODE_FAIL") return "a node of the job failed (slurmd stopped answering)";
  if (s == "PREEMPTED") return "the job was preempted by a higher-priority job";
  if (s == "BOOT_FAIL") return "a node failed to boot for the job";
  if (s == "DEADLINE") return "the job reached its deadline";
  if (s == "REVOKED") return "a sibling of a federated job ran instead";
  if (s == "PENDING") return "the job has not started";
  if (s == "RUNNING" || s == "COMPLETING") return "the job has not finished yet";
  return "";
}

bool decode_exit_code(std::string_view code, int& status, int& signal) {
  code = trim(code);
  std::size_t colon = code.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view a = code.substr(0, colon), b = code.substr(colon + 1);
  if (!all_digits(a) || !all_digits(b) || a.size() > 9 || b.size() > 9) return false;
  status = std::atoi(std::string(a).c_str());
  signal = std::atoi(std::string(b).c_str());
  return true;
}

std::string signal_name(int signal) {
  static const char* const kNames[] = {
      nullptr,   "SIGHUP",  "SIGINT",  "SIGQUIT", "SIGILL",  "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",  "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
  if (signal > 0 && signal < static_cast<int>(sizeof kNames / sizeof kNames[0]))
    return kNames[signal];
  return "signal " + std::to_string(signal);
}

std::string describe_exit_code(std::string_view code) {
  int status = 0, signal = 0;
  std::string text(trim(code));
  if (!decode_exit_code(code, status, signal)) return text;
  // 125 in the signal field is not a signal: SLURM marks an OOM-killed step that way.
  if (signal == 125) return text + " (out of memory)";
  if (signal != 0 && status != 0)
    return text + " (exit " + std::to_string(status) + ", " + signal_name(signal) + ")";
  if (signal != 0) return text + " (killed by " + signal_name(signal) + ")";
  return text + " (exit " + std::to_string(status) + ")";
}

std::optional<SlurmJobInfo> slurm_job_from_sacct(
    const std::vector<std::map<std::string, std::string>>& rows, const std::string& job_id) {
  const std::map<std::string, std::string>* job = nullptr;
  for (const auto& r : rows)
    if (get(r, "JobID") == job_id) { job = &r; break; }
  if (!job)
    for (const auto& r : rows)
      if (get(r, "JobID").find('.') == std::string::npos) { job = &r; break; }
  if (!job) return std::nullopt;
  SlurmJobInfo info;
  info.job_id = get(*job, "JobID");
  info.job_id_raw = get(*job, "JobIDRaw");
  if (info.job_id_raw.empty()) info.job_id_raw = info.job_id;
  SlurmJobId parsed = parse_job_id(info.job_id);
  info.array_job_id = parsed.array_job_id;
  info.array_task_id = parsed.array_task_id;
  info.name = get(*job, "JobName");
  std::string state = get(*job, "State");
  info.state = base_state(state);
  info.cancelled_by = cancelled_by_uid(state);
  info.exit_code = get(*job, "ExitCode");
  decode_exit_code(info.exit_code, info.exit_status, info.signal);
  info.derived_exit_code = get(*job, "DerivedExitCode");
  info.elapsed = get(*job, "Elapsed");
  info.time_limit = get(*job, "Timelimit");
  info.node_list = get(*job, "NodeList");
  if (info.node_list == "None assigned") info.node_list.clear();
  info.work_dir = get(*job, "WorkDir");
  info.submit_line = get(*job, "SubmitLine");
  info.user = get(*job, "User");
  std::string uid = get(*job, "UID");
  if (all_digits(uid)) info.uid = std::atol(uid.c_str());
  // From SLURM 24.05 sacct prints the (unexpanded) output patterns.
  info.std_out = get(*job, "StdOut");
  info.std_err = get(*job, "StdErr");
  std::string prefix = info.job_id + ".";
  std::vector<std::string> states{info.state};
  for (const auto& r : rows) {
    std::string id = get(r, "JobID");
    if (id.rfind(prefix, 0) != 0) continue;
    SlurmStep step{id, get(r, "State"), get(r, "ExitCode")};
    states.push_back(base_state(step.state));
    if (info.cancelled_by < 0 && step.id == prefix + "batch") info.cancelled_by = cancelled_by_uid(step.state);
    info.steps.push_back(std::move(step));
  }
  for (const auto& s : states) {
    if (s == "TIMEOUT") info.time_limit_hit = true;
    if (s == "OUT_OF_MEMORY") info.out_of_memory = true;
    if (s == "NODE_FAIL") info.node_fail = true;
  }
  return info;
}

std::map<std::string, std::string> parse_scontrol_show_job(std::string_view text) {
  static const char* const kWholeLine[] = {"Command=", "WorkDir=", "StdOut=", "StdErr=",
                                           "StdIn=",   "Comment=", "Reason="};
  std::map<std::string, std::string> out;
  for (std::string_view line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    bool whole = false;
    for (const char* k : kWholeLine) {
      std::string_view key(k);
      if (line.substr(0, key.size()) == key) {
        out[std::string(key.substr(0, key.size() - 1))] = std::string(line.substr(key.size()));
        whole = true;
        break;
      }
    }
    if (whole) continue;
    for (const std::string& word : split(line, ' ')) {
      std::size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      out.emplace(word.substr(0, eq), word.substr(eq + 1));
    }
  }
  if (!out.count("JobId")) out.clear();
  return out;
}

void merge_scontrol(SlurmJobInfo& info, const std::map<std::string, std::string>& f) {
  auto value = [&](const char* key) {
    std::string v = get(f, key);
    return v == "(null)" ? std::string() : v;
  };
  if (std::string v = value("StdOut"); !v.empty()) { info.std_out = v; info.std_paths_expanded = true; }
  if (std::string v = value("StdErr"); !v.empty()) { info.std_err = v; info.std_paths_expanded = true; }
  if (info.work_dir.empty()) info.work_dir = value("WorkDir");
  if (info.name.empty()) info.name = value("JobName");
  std::string nodes = value("NodeList");
  if (!nodes.empty() && hostlist_count(nodes) > hostlist_count(info.node_list)) info.node_list = nodes;
  if (std::string jid = value("JobId"); !jid.empty() && info.job_id_raw.empty()) info.job_id_raw = jid;
  if (std::string a = value("ArrayJobId"); !a.empty() && info.array_job_id.empty()) {
    info.array_job_id = a;
    info.array_task_id = value("ArrayTaskId");
  }
  // UserId=mtuser(1001) GroupId=mtuser(1001)
  auto name_and_id = [](const std::string& v, std::string& name, long& id) {
    std::size_t open = v.find('(');
    if (open == std::string::npos || v.back() != ')') return;
    if (name.empty()) name = v.substr(0, open);
    std::string num = v.substr(open + 1, v.size() - open - 2);
    if (id < 0 && all_digits(num)) id = std::atol(num.c_str());
  };
  name_and_id(value("UserId"), info.user, info.uid);
  std::string group_name;
  name_and_id(value("GroupId"), group_name, info.gid);
}

std::optional<SlurmJobInfo> slurm_job_from_scontrol(const std::map<std::string, std::string>& fields,
                                                    const std::string& job_id) {
  if (fields.empty()) return std::nullopt;
  SlurmJobInfo info;
  info.job_id = job_id;
  // scontrol keeps no step rows and no "by N": the job's own state is all there is.
  info.state = base_state(get(fields, "JobState"));
  info.exit_code = get(fields, "ExitCode");
  decode_exit_code(info.exit_code, info.exit_status, info.signal);
  info.derived_exit_code = get(fields, "DerivedExitCode");
  info.elapsed = get(fields, "RunTime");
  info.time_limit = get(fields, "TimeLimit");
  info.time_limit_hit = info.state == "TIMEOUT";
  info.out_of_memory = info.state == "OUT_OF_MEMORY";
  info.node_fail = info.state == "NODE_FAIL";
  merge_scontrol(info, fields);
  return info;
}

std::size_t hostlist_count(std::string_view list) {
  list = trim(list);
  if (list.empty() || list == "(null)" || list == "None assigned") return 0;
  std::size_t count = 0;
  std::size_t i = 0;
  while (i < list.size()) {
    // One host expression: up to a top-level comma.
    std::size_t depth = 0, j = i;
    std::size_t hosts = 1;
    while (j < list.size() && !(list[j] == ',' && depth == 0)) {
      if (list[j] == '[') {
        std::size_t close = list.find(']', j);
        if (close == std::string_view::npos) break;
        std::size_t n = 0;
        for (const std::string& part : split(list.substr(j + 1, close - j - 1), ',')) {
          std::size_t dash = part.find('-');
          if (dash == std::string::npos) { ++n; continue; }
          long a = std::atol(part.substr(0, dash).c_str()), b = std::atol(part.substr(dash + 1).c_str());
          n += b >= a ? static_cast<std::size_t>(b - a + 1) : 1;
        }
        hosts *= n ? n : 1;
        j = close + 1;
        continue;
      }
      ++j;
    }
    count += hosts;
    i = j + 1;
  }
  return count;
}

std::string hostlist_first(std::string_view list) {
  list = trim(list);
  if (list.empty() || list == "(null)" || list == "None assigned") return "";
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (c == ',') break;
    if (c == '[') {
      std::size_t j = i + 1;
      while (j < list.size() && std::isdigit(static_cast<unsigned char>(list[j]))) out += list[j++];
      std::size_t close = list.find(']', i);
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    out += c;
  }
  return out;
}

std::string expand_slurm_pattern(std::string_view pattern, const PatternContext& ctx,
                                 const std::string& work_dir) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c != '%' || i + 1 >= pattern.size()) { out += c; continue; }
    std::size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])))
      width = width * 10 + (pattern[j++] - '0');
    if (j >= pattern.size()) { out += pattern.substr(i); break; }
    char letter = pattern[j];
    std::string value;
    bool numeric = true;
    switch (letter) {
      case '%': value = "%"; numeric = false; break;
      case 'j': value = ctx.job_id; break;
      case 'J': value = ctx.job_id + ".batch"; numeric = false; break;
      case 'A': value = ctx.array_job_id.empty() ? ctx.job_id : ctx.array_job_id; break;
      case 'a': value = ctx.array_task_id.empty() ? "4294967294" : ctx.array_task_id; break;
      case 'x': value = ctx.name; numeric = false; break;
      case 'u': value = ctx.user; numeric = false; break;
      case 'N': value = ctx.first_node; numeric = false; break;
      case 'n': case 't': value = "0"; break;
      case 's': value = "batch"; numeric = false; break;
      default: out += pattern.substr(i, j - i + 1); i = j; continue;
    }
    if (numeric && width > 0 && static_cast<int>(value.size()) < width)
      value.insert(0, static_cast<std::size_t>(width) - value.size(), '0');
    out += value;
    i = j;
  }
  if (!out.empty() && out[0] != '/' && !work_dir.empty())
    out = work_dir + (work_dir.back() == '/' ? "" : "/") + out;
  return out;
}

OutputPatterns output_patterns(std::string_view batch_script, std::string_view submit_line) {
  OutputPatterns p;
  bool in_script = false;
  for (std::string_view line : split_lines(batch_script)) {
    std::string_view t = trim(line);
    if (!in_script) {
      // `sacct --batch-script` prints "Batch Script for 5" and a rule of dashes first.
      if (t.substr(0, 2) == "#!") in_script = true;
      else if (t.substr(0, 7) == "#SBATCH") in_script = true;
      else continue;
    }
    if (t.empty()) continue;
    if (t[0] != '#') break;  // sbatch stops reading #SBATCH at the first command
    if (t.substr(0, 7) != "#SBATCH") continue;
    std::vector<std::string> words = shell_words(t.substr(7));
    // Text after an unquoted `#` is a comment.
    for (std::size_t k = 0; k < words.size(); ++k)
      if (!words[k].empty() && words[k][0] == '#') { words.resize(k); break; }
    apply_options(words, p, false);
  }
  std::vector<std::string> words = shell_words(submit_line);
  if (!words.empty()) {
    words.erase(words.begin());  // sbatch itself
    apply_options(words, p, true);
  }
  return p;
}

bool name_mentions_job(std::string_view name, std::string_view job_id) {
  if (job_id.empty()) return false;
  for (std::size_t pos = name.find(job_id); pos != std::string_view::npos; pos = name.find(job_id, pos + 1)) {
    bool before = pos > 0 && std::isdigit(static_cast<unsigned char>(name[pos - 1]));
    std::size_t end = pos + job_id.size();
    bool after = end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]));
    if (!before && !after) return true;
  }
  return false;
}

namespace {

// Expands the first bracket of `name` and recurses on the rest; whole names go to `out`.
void expand_name(const std::string& name, std::size_t max, std::vector<std::string>& out) {
  if (out.size() >= max) return;
  const std::size_t open = name.find('[');
  const std::size_t close = open == std::string::npos ? std::string::npos : name.find(']', open);
  if (close == std::string::npos) {
    out.push_back(name);
    return;
  }
  const std::string head = name.substr(0, open), tail = name.substr(close + 1);
  for (const std::string& part : split(std::string_view(name).substr(open + 1, close - open - 1), ',')) {
    const std::size_t dash = part.find('-');
    const std::string from = part.substr(0, dash);
    if (dash == std::string::npos || !all_digits(from) || !all_digits(part.substr(dash + 1))) {
      expand_name(head + part + tail, max, out);
      continue;
    }
    const long a = std::atol(from.c_str()), b = std::atol(part.substr(dash + 1).c_str());
    for (long n = a; n <= b && out.size() < max; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < from.size()) digits.insert(0, from.size() - digits.size(), '0');
      expand_name(head + digits + tail, max, out);
    }
  }
}

}  // namespace

std::vector<std::string> hostlist_expand(std::string_view list, std::size_t max) {
  std::vector<std::string> out;
  list = trim(list);
  if (list.empty() || list == "(null)" || list == "None assigned") return out;
  std::size_t depth = 0, start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] == '[') ++depth;
    if (i < list.size() && list[i] == ']' && depth > 0) --depth;
    if (i == list.size() || (list[i] == ',' && depth == 0)) {
      if (i > start) expand_name(std::string(list.substr(start, i - start)), max, out);
      start = i + 1;
    }
  }
  return out;
}

}  // namespace megatriage
