#include "input/job_ids.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <string_view>

#include "base/fork_join.h"

namespace megatriage {

const char* job_evidence_name(JobEvidence e) {
  switch (e) {
    case JobEvidence::FileName: return "file_name";
    case JobEvidence::TorchrunDir: return "torchrun_run_id";
    case JobEvidence::SlurmLine: return "slurm_line";
  }
  return "file_name";
}

namespace {

// SLURM's largest job id (MaxJobId cannot go past 0x03ffffff): a longer number in a name is a
// time, a step count or a size, not a job.
constexpr std::uint32_t kMaxSlurmJobId = 67108863;
constexpr std::uint32_t kMaxArrayTask = 4000000;  // MaxArraySize's ceiling

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A number as SLURM prints it: no sign, no leading zero, at most `max`.
std::optional<std::uint32_t> parse_id_number(std::string_view s, std::uint32_t max) {
  if (!all_digits(s) || s.size() > 8 || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) v = v * 10 + static_cast<std::uint32_t>(c - '0');
  if (v == 0 || v > max) return std::nullopt;
  return v;
}

std::optional<std::uint32_t> parse_task_number(std::string_view s) {
  if (s == "0") return 0;
  return parse_id_number(s, kMaxArrayTask);
}

JobTag slurm_tag(std::uint32_t number, std::int64_t task, JobEvidence evidence) {
  JobTag tag;
  tag.slurm_id = true;
  tag.number = number;
  tag.array_task = task;
  tag.evidence = evidence;
  tag.id = std::to_string(number);
  if (task >= 0) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on "_" + std::to_string(...)
    // once this is inlined.
    tag.id += '_';
    tag.id += std::to_string(task);
  }
  return tag;
}

// Words after which a number counts something other than jobs (`rank-3.log`, `worker_2.out`,
// `epoch-4.txt`); compared lower-cased.
constexpr std::array<std::string_view, 31> kIndexWords = {
    "rank", "localrank", "node", "host", "worker", "gpu", "dev", "device", "proc", "process",
    "pid", "task", "part", "shard", "attempt", "try", "retry", "restart", "epoch", "step",
    "iter", "iteration", "ckpt", "checkpoint", "seed", "port", "layer", "v", "version", "tp", "core"};

bool is_index_word(std::string_view word) {
  std::string lower(word);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return std::find(kIndexWords.begin(), kIndexWords.end(), lower) != kIndexWords.end();
}

// `2026-11-29`, `2026_11`, `20261129-154302`: a run of numbers that starts with a year and a
// month (or with a whole YYYYMMDD and more numbers after it) is a date, not a job.
bool looks_like_date(const std::vector<std::string_view>& run) {
  auto in = [](std::string_view s, int lo, int hi) {
    if (!all_digits(s) || s.size() > 4) return false;
    int v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v >= lo && v <= hi;
  };
  if (run.size() >= 2 && run[0].size() == 4 && in(run[0], 1970, 2099) && run[1].size() <= 2 &&
      in(run[1], 1, 12))
    return true;
  if (run.size() >= 2 && run[0].size() == 8 && in(run[0].substr(0, 4), 1970, 2099) &&
      in(run[0].substr(4, 2), 1, 12) && in(run[0].substr(6, 2), 1, 31))
    return true;
  return false;
}

// Log-like extensions a job-named file carries (`%x-%j.out`, `train-25.log`); a `.json` or
// `.py` beside the logs names no job.
std::optional<std::string_view> log_stem(std::string_view name) {
  for (std::string_view suffix : {".gz", ".bz2", ".xz", ".zst"})
    if (ends_with(name, suffix) && name.size() > suffix.size()) {
      name.remove_suffix(suffix.size());
      break;
    }
  for (std::string_view ext : {".out", ".err", ".log", ".txt"})
    if (ends_with(name, ext) && name.size() > ext.size()) return name.substr(0, name.size() - ext.size());
  // No extension at all (`slurm-25`), but not a dotted name of another kind, nor a number
  // after a dot (`core.1234` holds a process id).
  if (name.find('.') == std::string_view::npos) return name;
  return std::nullopt;
}

std::optional<JobTag> job_from_file_name(std::string_view name, std::string_view dir) {
  const std::optional<std::string_view> stem_or = log_stem(name);
  if (!stem_or) return std::nullopt;
  const std::string_view stem = *stem_or;
  // The trailing run of all-digit tokens, and the separators between them.
  std::vector<std::string_view> run;
  std::vector<char> seps;
  std::size_t end = stem.size();
  std::size_t run_start = end;
  while (end > 0) {
    std::size_t begin = end;
    while (begin > 0 && is_digit(stem[begin - 1])) --begin;
    if (begin == end) break;
    if (begin > 0 && !is_separator(stem[begin - 1])) break;  // `node0`, `base1`, `v2`: glued
    run.insert(run.begin(), stem.substr(begin, end - begin));
    run_start = begin;
    if (begin == 0) break;
    seps.insert(seps.begin(), stem[begin - 1]);
    end = begin - 1;
    if (run.size() > 3) break;
  }
  if (run.empty() || run.size() > 2 || looks_like_date(run)) return std::nullopt;
  // The word before the numbers: `rank-3` counts ranks.
  const std::string_view before = stem.substr(0, run_start > 0 ? run_start - 1 : 0);
  std::size_t word_start = before.size();
  while (word_start > 0 && !is_separator(before[word_start - 1])) --word_start;
  if (is_index_word(before.substr(word_start))) return std::nullopt;

  const std::optional<std::uint32_t> job = parse_id_number(run[0], kMaxSlurmJobId);
  if (!job) return std::nullopt;
  std::int64_t task = -1;
  if (run.size() == 2) {
    // `%A_%a` (an array task: its own job in SLURM's eyes) against `%j-%t` (task of job) and
    // `%j.%s` (step of job): the separator tells them apart.
    const std::optional<std::uint32_t> second = parse_task_number(run[1]);
    if (!second) return std::nullopt;
    if (seps.back() == '_') task = *second;
  }
  JobTag tag = slurm_tag(*job, task, JobEvidence::FileName);
  tag.family.reserve(dir.size() + run_start + 1);
  tag.family.append(dir).append("/").append(stem.substr(0, run_start));
  return tag;
}

// torchrun --log-dir: <dir>/<run_id>_<8 random chars>/attempt_<N>/<local_rank>/<file>.
std::optional<JobTag> job_from_torchrun_dir(std::string_view path) {
  std::string_view parts[4];  // file, local rank, attempt, run directory
  std::string_view rest = path;
  for (auto& part : parts) {
    const std::size_t slash = rest.rfind('/');
    if (slash == std::string_view::npos) return std::nullopt;
    part = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
  }
  if (!all_digits(parts[1]) || parts[2].substr(0, 8) != "attempt_" || !all_digits(parts[2].substr(8)))
    return std::nullopt;
  std::string_view run = parts[3];
  // tempfile.mkdtemp(prefix=f"{run_id}_"): eight random characters (letters, digits, '_').
  if (run.size() > 9 && run[run.size() - 9] == '_') run = run.substr(0, run.size() - 9);
  // "none" is torchrun's default --rdzv-id: every job that does not set it shares it.
  if (run.empty() || run == "none") return std::nullopt;
  std::optional<JobTag> tag = parse_slurm_job_id(run);
  if (!tag) {
    tag.emplace();
    tag->id = std::string(run);
  }
  tag->evidence = JobEvidence::TorchrunDir;
  // A run id may be $RANDOM or a name: it says which run, never which came later.
  tag->slurm_id = false;
  return tag;
}

}  // namespace

std::optional<JobTag> parse_slurm_job_id(std::string_view id) {
  const std::size_t us = id.find('_');
  const std::optional<std::uint32_t> job = parse_id_number(id.substr(0, us), kMaxSlurmJobId);
  if (!job) return std::nullopt;
  if (us == std::string_view::npos) return slurm_tag(*job, -1, JobEvidence::FileName);
  const std::optional<std::uint32_t> task = parse_task_number(id.substr(us + 1));
  if (!task) return std::nullopt;
  return slurm_tag(*job, *task, JobEvidence::FileName);
}

std::optional<JobTag> job_from_path(std::string_view display_path) {
  if (std::optional<JobTag> tag = job_from_torchrun_dir(display_path)) return tag;
  const std::size_t slash = display_path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? display_path : display_path.substr(slash + 1);
  const std::string_view dir = slash == std::string_view::npos ? std::string_view() : display_path.substr(0, slash);
  return job_from_file_name(name, dir);
}

std::vector<std::optional<JobTag>> jobs_from_paths(const std::vector<std::string_view>& display_paths,
                                                   unsigned threads) {
  std::vector<std::optional<JobTag>> tags(display_paths.size());
  // A job of thousands of rank files: the names are read on every thread the report has.
  for_each_slice(
      threads, display_paths.size(), [](std::size_t) { return 1; },
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) tags[i] = job_from_path(display_paths[i]);
      });
  std::set<std::string> zero_families;
  for (std::size_t i = 0; i < display_paths.size(); ++i) {
    const std::string_view path = display_paths[i];
    // A 0 where a job id would be: `train-0.log` (parse_id_number refused it). Its family is
    // the name up to the number, as job_from_file_name cuts it.
    if (tags[i]) continue;
    const std::size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const std::optional<std::string_view> stem = log_stem(name);
    if (!stem || !(ends_with(*stem, "-0") || ends_with(*stem, "_0") || ends_with(*stem, ".0") || *stem == "0"))
      continue;
    std::string family(slash == std::string_view::npos ? std::string_view() : path.substr(0, slash));
    family.append("/").append(stem->substr(0, stem->size() - 1));
    zero_families.insert(std::move(family));
  }
  if (zero_families.empty()) return tags;
  for (auto& tag : tags)
    if (tag && tag->evidence == JobEvidence::FileName && zero_families.count(tag->family)) tag.reset();
  return tags;
}

bool may_name_slurm_job(std::string_view line) {
  return line.find('*') != std::string_view::npos || line.find("StepId=") != std::string_view::npos;
}

std::optional<JobTag> job_from_slurm_line(std::string_view line) {
  // Nearly every line holds neither a `*` nor `StepId=`: two looks, not one per marker.
  if (!may_name_slurm_job(line)) return std::nullopt;
  // Each marker, then the id up to the character that ends it.
  struct Marker {
    std::string_view text;
    char end;  // ' ' after a JOB id, '.' after a STEP or StepId job part
  };
  for (const Marker m : {Marker{"*** JOB ", ' '}, Marker{"*** STEP ", '.'}, Marker{"StepId=", '.'}}) {
    const std::size_t at = line.find(m.text);
    if (at == std::string_view::npos) continue;
    const std::string_view rest = line.substr(at + m.text.size());
    const std::size_t stop = rest.find(m.end);
    if (stop == std::string_view::npos) continue;
    std::optional<JobTag> tag = parse_slurm_job_id(rest.substr(0, stop));
    if (!tag) continue;
    tag->evidence = JobEvidence::SlurmLine;
    return tag;
  }
  return std::nullopt;
}

bool slurm_id_newer(const JobTag& a, const JobTag& b) {
  if (a.number != b.number) return a.number > b.number;
  return a.array_task > b.array_task;
}

}  // namespace megatriage
