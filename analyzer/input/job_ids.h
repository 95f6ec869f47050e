// Discover stage helper: which job a log file belongs to, from what the file is called (sbatch's
// `%j`, `%A_%a`, torchrun's `<run_id>_<random>/attempt_N/` directory) or from a SLURM line that
// analysis already matched (`*** JOB 25 ON ...`, `StepId=25.0`). Pure string work on names and
// on lines already in hand: it never opens a file. Grouping files into jobs is app/'s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

/// Where a file's job id came from.
enum class JobEvidence : std::uint8_t {
  FileName,    // `train-25.out`, `slurm-25_3.out`, `job-25-3.err`, `25.log`
  TorchrunDir, // `<run_id>_<random>/attempt_N/<local_rank>/stderr.log`, run id not "none"
  SlurmLine,   // a matched `*** JOB N ON`, `*** STEP N.M ON` or `StepId=N.M` line
};

const char* job_evidence_name(JobEvidence e);

/// A job id as the logs print it. SLURM ids (`25`, array task `25_3`) grow with submission
/// time and are ordered by `number`/`array_task`; a torchrun run id is any string and is not.
struct JobTag {
  std::string id;
  JobEvidence evidence = JobEvidence::FileName;
  bool slurm_id = false;          // `id` is a SLURM job id (digits, or digits_digits)
  std::uint32_t number = 0;       // slurm_id: the job (or array job) number
  std::int64_t array_task = -1;   // slurm_id: the array task, -1 for a plain job
  /// The name with the id cut out (directory, text before it, extension): files of one family
  /// (`train-0.log`, `train-1.log`) that include a 0 are numbered by rank, not by job.
  std::string family;
};

/// The job `display_path` names, if its name says one: see README "Several jobs in one
/// folder" for the shapes read. A number after a rank-like word (`rank-3.log`, `worker_2`),
/// a date (`2026-11-29`), a number with leading zeros or beyond SLURM's largest job id, and
/// three or more numbers in a row are not job ids. Allocates only when one is found.
std::optional<JobTag> job_from_path(std::string_view display_path);

/// job_from_path over a list (on up to `threads` threads), then without the families that hold
/// a 0 (SLURM never gives job id 0: those numbers count ranks or retries).
std::vector<std::optional<JobTag>> jobs_from_paths(const std::vector<std::string_view>& display_paths,
                                                   unsigned threads = 1);

/// The job id a SLURM line prints: `*** JOB 25 ON node CANCELLED ...`, `*** STEP 25.0 ON ...`,
/// `... StepId=25.0 ...` (an array task's `25_3` too). Looks only for those three texts.
std::optional<JobTag> job_from_slurm_line(std::string_view line);

/// False when job_from_slurm_line() surely finds nothing in `line` (no `*`, no `StepId=`): two
/// looks, which the analysis takes while a line is in cache (FileResult::lines_may_name_job).
bool may_name_slurm_job(std::string_view line);

/// Parses a SLURM job id as typed (`25`, `25_3`); nullopt when it is not one.
std::optional<JobTag> parse_slurm_job_id(std::string_view id);

/// Newer first: higher job number, then higher array task. Requires: both slurm_id.
bool slurm_id_newer(const JobTag& a, const JobTag& b);

}  // namespace megatriage
