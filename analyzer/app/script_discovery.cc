// Finding the job's batch scripts beside its logs. The runbook writes every job's output into
// one logs/ and keeps its scripts beside it, so "a script beside logs/" is not "this job's
// script": only the one whose output names fit the logs is.
#include "app/script_discovery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "lint/script_file.h"
#include "lint/shell_words.h"
#include "slurm/slurm_job.h"

namespace megatriage {

namespace {

std::string_view last_component(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// One piece of a pattern: literal text or a field.
enum class Field { Literal, Digits, Text, JobName };

// Backtracking match of `pattern` from `p` against `name` from `n`; patterns are short and have
// few fields, so the search is small.
bool match_from(std::string_view pattern, std::size_t p, std::string_view job_name, std::string_view name,
                std::size_t n) {
  if (p == pattern.size()) return n == name.size();
  if (pattern[p] != '%' || p + 1 >= pattern.size()) {
    return n < name.size() && name[n] == pattern[p] && match_from(pattern, p + 1, job_name, name, n + 1);
  }
  std::size_t q = p + 1;
  while (q < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[q]))) ++q;  // `%4j`
  if (q >= pattern.size()) return name.substr(n) == pattern.substr(p);
  Field field = Field::Text;
  switch (pattern[q]) {
    case '%':
      return n < name.size() && name[n] == '%' && match_from(pattern, q + 1, job_name, name, n + 1);
    case 'j': case 'A': case 'a': case 't': case 'n': field = Field::Digits; break;
    case 'x': field = job_name.empty() ? Field::Text : Field::JobName; break;
    default: field = Field::Text; break;  // %N %u %J %s and letters sbatch may add later
  }
  if (field == Field::JobName) {
    return name.substr(n).starts_with(job_name) &&
           match_from(pattern, q + 1, job_name, name, n + job_name.size());
  }
  for (std::size_t end = n + 1; end <= name.size(); ++end) {
    const char c = name[end - 1];
    if (field == Field::Digits && !std::isdigit(static_cast<unsigned char>(c))) break;
    if (c == '/') break;
    if (match_from(pattern, q + 1, job_name, name, end)) return true;
  }
  return false;
}

// The job name sbatch gives the script: its `#SBATCH --job-name`/`-J` (before the first
// command, where sbatch stops reading), else the script's file name.
std::string job_name_of(const std::string& text, const std::string& path) {
  const ShellScript script = scan_shell_script(text);
  const std::uint64_t first_command = script.commands.empty() ? UINT64_MAX : script.commands.front().line;
  std::string name;
  for (const SbatchDirective& d : script.directives) {
    if (d.line > first_command) break;
    for (std::size_t i = 0; i < d.words.size(); ++i) {
      const std::string& w = d.words[i];
      if (w.starts_with("--job-name=")) name = w.substr(11);
      else if ((w == "--job-name" || w == "-J") && i + 1 < d.words.size()) name = d.words[i + 1];
      else if (w.starts_with("-J") && w.size() > 2) name = w.substr(w[2] == '=' ? 3 : 2);
    }
  }
  return name.empty() ? std::string(last_component(path)) : name;
}

// Whether a log name fits `script`'s output patterns; if not, says why in `diags`.
bool belongs_to_logs(const FoundScript& script, const std::vector<std::string>& log_files, DiagnosticSink& diags) {
  if (!script.text) {
    for (const Diagnostic& d : script.problems)
      diags.add(Severity::Info, "lint.script-not-attached",
                "'" + script.name + "' beside the logs was not linted: " + d.message + " [" + d.code + "]",
                script.name);
    return false;
  }
  const OutputPatterns given = output_patterns(*script.text, "");
  const std::string job_name = job_name_of(*script.text, script.path);
  std::vector<std::string> patterns;
  if (!given.output.empty()) patterns.push_back(given.output);
  if (!given.error.empty()) patterns.push_back(given.error);
  if (patterns.empty()) patterns = {"slurm-%j.out", "slurm-%A_%a.out"};  // sbatch's defaults
  for (const std::string& pattern : patterns)
    for (const std::string& log : log_files)
      if (output_pattern_matches(pattern, job_name, log)) return true;
  std::string shown;
  for (const std::string& pattern : patterns) shown += (shown.empty() ? "" : ", ") + pattern;
  diags.add(Severity::Info, "lint.script-not-attached",
            "'" + script.name + "' beside the logs is not this job's batch script: its output names (" + shown +
                ", job name " + job_name + ") match none of the " + std::to_string(log_files.size()) +
                " log files; it was not linted",
            script.name, 0, "pass --script " + script.name + " if it is the job's script");
  return false;
}

}  // namespace

bool output_pattern_matches(std::string_view pattern, std::string_view job_name, std::string_view log_path) {
  return match_from(last_component(pattern), 0, job_name, last_component(log_path), 0);
}

std::vector<FoundScript> scripts_beside(const std::vector<std::string>& log_paths, const std::string& display_prefix) {
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  for (const auto& arg : log_paths) {
    std::error_code ec;
    fs::path dir(arg);
    if (!fs::is_directory(dir, ec)) continue;
    for (const fs::path& where : {dir, dir.lexically_normal().parent_path()}) {
      fs::path base = where.empty() ? fs::path(".") : where;
      std::vector<std::string> here;
      for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
        std::string ext = it->path().extension().string();
        if (ext == ".sbatch" || ext == ".slurm")
          here.push_back((where.empty() ? it->path().filename() : it->path()).string());
      }
      std::sort(here.begin(), here.end());
      for (auto& h : here)
        if (std::find(candidates.begin(), candidates.end(), h) == candidates.end()) candidates.push_back(h);
    }
  }
  std::vector<FoundScript> found;
  for (std::string& path : candidates) {
    FoundScript script;
    script.name = display_prefix + path;
    DiagnosticSink reading;
    script.text = read_batch_script(path, script.name, reading);
    script.problems = reading.take();
    script.path = std::move(path);
    found.push_back(std::move(script));
  }
  return found;
}

std::vector<FoundScript> scripts_of_logs(const std::vector<FoundScript>& found,
                                         const std::vector<std::string>& log_files, DiagnosticSink& diags) {
  std::vector<FoundScript> ours;
  for (const FoundScript& script : found)
    if (belongs_to_logs(script, log_files, diags)) ours.push_back(script);
  return ours;
}

}  // namespace megatriage
