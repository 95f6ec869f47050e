#include "app/job_selection.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

#include "base/fork_join.h"
#include "input/job_ids.h"

namespace megatriage {
namespace {

struct JobGroup {
  JobTag tag;                     // the first file's: its id, and SLURM order when comparable
  bool ordered = false;           // a file or line gave a SLURM id (a run id alone does not)
  std::int64_t newest_mtime_us = 0;
  std::vector<std::size_t> files;  // indexes into the results
};

// The job a file's SLURM lines print, for a file whose name gives none. Only the lines the
// rules matched (its RuleLine events) are looked at: no line is read again.
std::optional<JobTag> job_from_events(const FileResult& r) {
  if (!r.lines_may_name_job) return std::nullopt;
  for (const Event& e : r.events) {
    if (e.kind != EventKind::RuleLine) continue;
    if (std::optional<JobTag> tag = job_from_slurm_line(e.text)) return tag;
  }
  return std::nullopt;
}

struct Grouping {
  std::vector<JobGroup> jobs;        // newest first
  std::vector<std::size_t> without;  // files that name no job
  bool by_mtime = false;
};

Grouping group_by_job(const std::vector<FileResult>& results, unsigned threads) {
  std::vector<std::string_view> paths;
  paths.reserve(results.size());
  for (const FileResult& r : results) paths.push_back(r.file.display_path);
  std::vector<std::optional<JobTag>> tags = jobs_from_paths(paths, threads);
  for_each_slice(
      threads, results.size(), [&](std::size_t i) { return results[i].events.size() + 1; },
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          // A binary file (a core dump, a checkpoint) or one of our reports beside the logs is
          // no job's output, whatever its name holds; it is listed with every job.
          if (results[i].binary || results[i].own_report) tags[i].reset();
          if (!tags[i]) tags[i] = job_from_events(results[i]);
        }
      });
  Grouping g;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!tags[i]) {
      g.without.push_back(i);
      continue;
    }
    auto [it, added] = index.try_emplace(tags[i]->id, g.jobs.size());
    if (added) g.jobs.push_back({*tags[i], false, 0, {}});
    JobGroup& job = g.jobs[it->second];
    if (tags[i]->slurm_id && !job.ordered) {
      job.tag = *tags[i];
      job.ordered = true;
    }
    job.newest_mtime_us = std::max(job.newest_mtime_us, results[i].file.mtime_us);
    job.files.push_back(i);
  }
  // SLURM ids grow with submission: the highest is the newest. A run id (torchrun's
  // --rdzv-id, maybe $RANDOM or a name) gives no order: then the newest file decides.
  g.by_mtime = std::any_of(g.jobs.begin(), g.jobs.end(), [](const JobGroup& j) { return !j.ordered; });
  std::sort(g.jobs.begin(), g.jobs.end(), [&](const JobGroup& a, const JobGroup& b) {
    if (!g.by_mtime) return slurm_id_newer(a.tag, b.tag);
    if (a.newest_mtime_us != b.newest_mtime_us) return a.newest_mtime_us > b.newest_mtime_us;
    return a.tag.id > b.tag.id;
  });
  return g;
}

std::string paths_label(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return "'" + paths.front() + "' holds";
  return "the " + std::to_string(paths.size()) + " paths hold";
}

// `25 20 19 16 15`, at most ten named.
std::string id_list(const std::vector<std::string>& ids, const std::string& skip = "") {
  std::string out;
  std::size_t named = 0, left = 0;
  for (const std::string& id : ids) {
    if (id == skip) continue;
    if (named == 10) {
      ++left;
      continue;
    }
    out += (out.empty() ? "" : " ") + id;
    ++named;
  }
  if (left > 0) out += " and " + std::to_string(left) + " more";
  return out;
}

// Job `k`'s files and the shared ones, in their original order, renumbered from 0. `copy`:
// leave `results` intact (another job still needs the shared files).
std::vector<FileResult> take_files(std::vector<FileResult>& results, const std::vector<std::size_t>& own,
                                   const std::vector<std::size_t>& shared, bool copy) {
  std::vector<std::size_t> order(own);
  order.insert(order.end(), shared.begin(), shared.end());
  std::sort(order.begin(), order.end());
  std::vector<FileResult> out;
  out.reserve(order.size());
  for (std::size_t i : order) {
    const bool is_shared = std::binary_search(shared.begin(), shared.end(), i);
    if (copy && is_shared) {
      out.push_back(results[i]);
    } else {
      out.push_back(std::move(results[i]));
    }
    FileResult& r = out.back();
    const auto id = static_cast<FileId>(out.size() - 1);
    if (r.file.id != id) {
      r.file.id = id;
      for (Event& e : r.events) e.origin.file = id;
    }
  }
  return out;
}

JobChoice make_choice(const Grouping& g, std::size_t k, JobPick pick, const std::vector<std::string>& ids) {
  JobChoice c;
  c.pick = pick;
  c.newest_by_mtime = g.by_mtime;
  c.jobs = ids;
  if (k < g.jobs.size()) {
    c.id = g.jobs[k].tag.id;
    c.files = g.jobs[k].files.size();
  }
  c.files_without_job = g.without.size();
  return c;
}

std::vector<Diagnostic> choice_diagnostics(const Grouping& g, const JobChoice& c,
                                           const std::vector<FileResult>& results,
                                           const std::vector<std::string>& paths) {
  std::vector<Diagnostic> out;
  if (g.jobs.size() > 1) {
    std::string message = paths_label(paths) + " " + std::to_string(g.jobs.size()) + " jobs; this is job " + c.id;
    switch (c.pick) {
      case JobPick::Newest:
        message += g.by_mtime ? ", the newest by file time (run ids give no order)" : ", the newest";
        break;
      case JobPick::Asked: message += ", as asked"; break;
      case JobPick::All: message += " (--all-jobs: one report per job)"; break;
    }
    message += "; others: " + id_list(c.jobs, c.id);
    out.push_back({Severity::Warning, "discover.several-jobs", message, "", 0,
                   c.pick == JobPick::All ? "--job ID gives one job's report alone"
                                          : "use --job ID for another job, --all-jobs for one report per job",
                   1});
  }
  if (!g.jobs.empty() && !g.without.empty() && (g.jobs.size() > 1 || c.pick == JobPick::All)) {
    const std::string& example = results[g.without.front()].file.display_path;
    out.push_back({Severity::Warning, "discover.files-without-job",
                   std::to_string(g.without.size()) + " file(s) name no job (e.g. '" + example +
                       "'); they are read with every job",
                   "", 0, "name logs with %j (#SBATCH --output=logs/%x-%j.out) so each belongs to one job", 1});
  }
  return out;
}

}  // namespace

JobSelection select_jobs(std::vector<FileResult> results, const JobRequest& request,
                         const std::vector<std::string>& paths, unsigned threads) {
  JobSelection sel;
  const Grouping g = group_by_job(results, threads);
  std::vector<std::string> ids;
  for (const JobGroup& j : g.jobs) ids.push_back(j.tag.id);

  auto single = [&](std::optional<JobChoice> choice) {
    JobFiles part;
    part.files = std::move(results);
    part.choice = std::move(choice);
    sel.reports.push_back(std::move(part));
  };
  auto job_report = [&](std::size_t k, JobPick pick, bool copy_shared) {
    JobFiles part;
    part.choice = make_choice(g, k, pick, ids);
    part.diagnostics = choice_diagnostics(g, *part.choice, results, paths);
    part.files = take_files(results, g.jobs[k].files, g.without, copy_shared);
    sel.reports.push_back(std::move(part));
  };

  switch (request.pick) {
    case JobPick::Newest:
      if (g.jobs.size() <= 1) {
        single(std::nullopt);
      } else {
        job_report(0, JobPick::Newest, false);
      }
      return sel;
    case JobPick::Asked: {
      std::size_t k = 0;
      while (k < g.jobs.size() &&
             std::find(request.ids.begin(), request.ids.end(), g.jobs[k].tag.id) == request.ids.end())
        ++k;
      const std::string asked = request.ids.empty() ? std::string() : request.ids.front();
      if (k == g.jobs.size()) {
        if (request.required) {
          sel.usage_error = "job " + asked + " is not in the logs; " +
                            (ids.empty() ? std::string("no file names a job (see README \"Several jobs in one folder\")")
                                         : "they hold job(s) " + id_list(ids));
          return sel;
        }
        std::optional<JobChoice> none;
        std::vector<Diagnostic> diags;
        if (g.jobs.size() > 1) {
          diags.push_back({Severity::Warning, "discover.job-not-named",
                           paths_label(paths) + " " + std::to_string(g.jobs.size()) + " jobs (" + id_list(ids) +
                               ") but no file names job " + asked + "; every file was read",
                           "", 0, "pass the job's own log files, or name logs with %j", 1});
        }
        single(std::move(none));
        sel.reports.back().diagnostics = std::move(diags);
        return sel;
      }
      if (g.jobs.size() <= 1) {
        single(std::nullopt);
      } else {
        job_report(k, JobPick::Asked, false);
      }
      return sel;
    }
    case JobPick::All:
      if (g.jobs.empty()) {
        single(make_choice(g, 0, JobPick::All, ids));
        return sel;
      }
      for (std::size_t k = 0; k < g.jobs.size(); ++k) job_report(k, JobPick::All, k + 1 < g.jobs.size());
      return sel;
  }
  return sel;
}

}  // namespace megatriage
