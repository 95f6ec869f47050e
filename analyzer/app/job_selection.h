// Driver helper: a logs/ folder that collects every job's output (`--output=logs/%x-%j.out`)
// holds several jobs. Groups the analysed files by the job they name (input/job_ids.h; the
// SLURM lines among a file's events when its name says nothing) and picks the files of the job
// to report on: the newest, the one asked for, or each in turn. Decides nothing about failures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "extract/file_result.h"
#include "model/report.h"

namespace megatriage {

/// Which job(s) to report on.
struct JobRequest {
  JobPick pick = JobPick::Newest;
  std::vector<std::string> ids;  // JobPick::Asked: the job, under any of these ids (25, 25_3)
  bool required = true;          // Asked: an id no file names is a usage error; else all files
                                 // are read, with a diagnostic (postmortem, watch)
};

/// The input of one report.
struct JobFiles {
  std::vector<FileResult> files;          // ids renumbered from 0, in their original order
  std::optional<JobChoice> choice;        // absent when the logs hold one job (or none)
  std::vector<Diagnostic> diagnostics;    // about the choice, for this report
};

struct JobSelection {
  std::vector<JobFiles> reports;          // one, or one per job (newest first) with All
  std::string usage_error;                // an unknown required id: what to tell the user
};

/// Splits `results` (in file-id order) as `request` asks. `paths`: the arguments, named in the
/// diagnostics. Files that name no job go with every job. Reading events costs nothing new:
/// only the matched lines of files whose name gives no job are looked at (on up to `threads`
/// threads).
JobSelection select_jobs(std::vector<FileResult> results, const JobRequest& request,
                         const std::vector<std::string>& paths, unsigned threads = 1);

}  // namespace megatriage
