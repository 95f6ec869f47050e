// `megatriage watch`: follow a running job's logs, report the root cause the moment it is
// decided, optionally cancel the job. Polls file sizes (inotify misses writes from other NFS /
// Lustre clients) and analyses only the appended bytes.
#pragma once

#include <iosfwd>
#include <string>

#include "app/triage.h"
#include "render/render.h"

namespace megatriage {

struct WatchOptions {
  TriageOptions triage;        // paths, rules, analysis limits
  double interval_s = 1.0;     // between polls
  double nccl_grace_s = 60.0;  // NCCL-only evidence waits this long for an earlier cause
  double timeout_s = 0;        // give up after this long (0: never)
  std::string job_id;          // stop when SLURM says this job ended
  bool cancel = false;         // scancel the job once the root cause is known
  bool json = false;           // report format
  TextStyle text;              // the text report's layout (cli/shared_flags.h: text_style)
};

/// Runs until a root cause is reported, the job ends, the timeout passes, or squeue keeps
/// failing (each failure is retried after a backoff: the interval, doubled each time, at most
/// 60 s, 6 retries). Progress lines go to `err`, the report to `out`. Returns the exit code
/// (base/exit_codes.h): 1 a root cause, 0 the job ended with no failure in its logs, 2 usage
/// error (a missing path, no rules) or the job ended with nothing readable, 4 timed out,
/// 5 squeue kept failing.
int run_watch(const WatchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace megatriage
