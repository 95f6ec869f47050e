#include "app/postmortem.h"

#include "base/process.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include "app/partial.h"
#include "app/rules_lookup.h"
#include "app/script_findings.h"
#include "app/triage.h"
#include "base/exit_codes.h"
#include "base/run_cache.h"
#include "decide/runbook_checks.h"
#include "match/knowledge_tables.h"
#include "match/rule_matcher.h"
#include "match/rule_tags.h"
#include "match/rules.h"
#include "render/render.h"
#include "slurm/slurm_commands.h"

namespace megatriage {
namespace {

namespace fs = std::filesystem;

// sacct columns we ask for. JobIDRaw (last) gives an array task's own id for %j; StdOut/StdErr
// do not exist before 24.05 and would make 22.05's sacct fail, so they are asked for separately.
constexpr const char* kSacctFormat =
    "JobID,JobName,State,ExitCode,DerivedExitCode,Elapsed,Timelimit,NodeList,WorkDir,SubmitLine,"
    "User,UID,Start,End,JobIDRaw";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool is_report_name(const std::string& name) {
  return (name.rfind("megatriage-", 0) == 0 && name.size() > 5 &&
          name.compare(name.size() - 5, 5, ".json") == 0) ||
         name.rfind(".megatriage-", 0) == 0;
}

bool exists_file(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string user_name(long uid) {
  if (uid < 0) return "";
  passwd* pw = getpwuid(static_cast<uid_t>(uid));
  return pw ? std::string(pw->pw_name) : std::string();
}

}  // namespace

// Drops to the job owner's uid/gid (and their groups) so that only what the owner may read is
// read and the report is written as the owner. Requires: running as root.
bool drop_privileges(const SlurmJobInfo& job, std::string& err) {
  uid_t uid = static_cast<uid_t>(job.uid);
  passwd* pw = getpwuid(uid);
  gid_t gid = job.gid >= 0 ? static_cast<gid_t>(job.gid) : pw ? pw->pw_gid : static_cast<gid_t>(-1);
  if (gid == static_cast<gid_t>(-1)) {
    std::string g = env("SLURM_JOB_GID");
    if (g.empty()) {
      err = "cannot tell the group of uid " + std::to_string(job.uid);
      return false;
    }
    gid = static_cast<gid_t>(std::atol(g.c_str()));
  }
  int rc = pw ? initgroups(pw->pw_name, gid) : setgroups(1, &gid);
  if (rc != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
    err = std::string("cannot switch to the job's user: ") + std::strerror(errno);
    return false;
  }
  if (setuid(0) == 0) {
    err = "dropping privileges did not stick";
    return false;
  }
  return true;
}

namespace {

// Files in `dir` (not recursed) whose names mention the job, reports excluded.
void add_siblings(const std::string& dir, const std::string& job_id, std::set<std::string>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (is_report_name(name) || !name_mentions_job(name, job_id)) continue;
    std::error_code ec2;
    auto st = it->symlink_status(ec2);
    if (ec2) continue;
    // Symlinks are passed on as named: the reader opens them with the job owner's rights.
    if (fs::is_regular_file(st) || fs::is_symlink(st)) out.insert(it->path().string());
  }
}

// Files under `root` (depth <= 3, at most 20000 entries) whose names mention the job.
void scan_work_dir(const std::string& root, const std::string& job_id, std::set<std::string>& out) {
  std::error_code ec;
  std::size_t seen = 0;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end && seen < 20000; it.increment(ec), ++seen) {
    if (it.depth() >= 3) it.disable_recursion_pending();
    std::string name = it->path().filename().string();
    if (is_report_name(name) || !name_mentions_job(name, job_id)) continue;
    std::error_code ec2;
    if (it->is_regular_file(ec2)) out.insert(it->path().string());
  }
}

std::string dir_of(const std::string& path) {
  std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

bool write_atomically(const std::string& dir, const std::string& name, const std::string& data,
                      std::string& err) {
  std::string tmpl = dir + "/.megatriage-" + name + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd < 0) {
    err = "cannot create a file in " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::string tmp(buf.data());
  const char* p = data.data();
  std::size_t left = data.size();
  bool ok = true;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ok = false; break; }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ok = ok && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) {
    err = "cannot write " + dir + "/" + name + ": " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

CheckResult advice(std::string text) { return advice_check(std::move(text), ""); }

std::string where_of(const RootCauseReport& r) {
  return r.file.empty() ? std::string("sacct") : r.file + ":" + std::to_string(r.line);
}

std::string limit_text(const SlurmJobInfo& job) {
  std::string s = "elapsed " + (job.elapsed.empty() ? std::string("unknown") : job.elapsed);
  if (!job.time_limit.empty()) s += " of a " + job.time_limit + " limit";
  return s;
}

// The words of the sacct causes (rules/slurm-states.json) with this job's values filled in.
// The decisions are apply_slurm_facts'; this only phrases them.
class StateWords {
 public:
  StateWords(const std::vector<SlurmStateEntry>& table, const Report& report, const SlurmJobInfo& job)
      : table_(table) {
    values_["job"] = "job " + job.job_id;
    values_["job_id"] = job.job_id;
    values_["nodes"] = job.node_list;
    values_["limit"] = limit_text(job);
    values_["state"] = job.state;
    values_["exit_code"] = describe_exit_code(job.exit_code);
    values_["meaning"] = state_meaning(job.state);
    if (job.cancelled_by >= 0) {
      // A name lookup (NSS) only where someone cancelled the job.
      const std::string name = user_name(job.cancelled_by);
      const std::string uid = std::to_string(job.cancelled_by);
      values_["uid"] = uid;
      values_["who"] = name.empty() ? "uid " + uid : name + " (uid " + uid + ")";
    }
    if (report.root_cause) {
      values_["where"] = where_of(*report.root_cause);
      const auto it = report.root_cause->facts.find("last_iteration");
      if (it != report.root_cause->facts.end()) values_["last_iteration"] = it->second;
    }
  }

  /// The entry `id`, every text filled. Where the rules in use lack it (an override that
  /// dropped or broke it), a plain stand-in named by the state, and a warning in `report`.
  SlurmStateEntry filled(std::string_view id, Report& report) {
    const SlurmStateEntry* found = find_slurm_state(table_, id);
    SlurmStateEntry e;
    if (found != nullptr) {
      e = *found;
    } else {
      e.id = std::string(id);
      e.title = e.headline = "SLURM state {state}";
      e.explain = "SLURM reports {state} for {job}.";
      report.diagnostics.push_back({Severity::Warning, "postmortem.slurm-state-missing",
                                    "the rules in use have no slurm_states entry '" + e.id +
                                        "': its cause is given without its texts",
                                    "", 0, "restore the entry (see rules/slurm-states.json)", 1});
    }
    // {progress} and {at_iteration} are the entry's own texts, used only where the logs tell
    // the last iteration.
    const bool iteration_known = values_.count("last_iteration") > 0;
    values_["progress"] = iteration_known ? fill_placeholders(e.progress, values_) : std::string();
    values_["at_iteration"] = iteration_known ? fill_placeholders(e.at_iteration, values_) : std::string();
    for (std::string* text : {&e.title, &e.explain, &e.headline, &e.confirm_reason, &e.traceback_reason})
      *text = fill_placeholders(*text, values_);
    for (std::string& c : e.checks) c = fill_placeholders(c, values_);
    return e;
  }

 private:
  const std::vector<SlurmStateEntry>& table_;
  std::map<std::string, std::string> values_;
};

void add_reason(RootCauseReport& r, const std::string& reason) {
  if (!reason.empty()) r.reasons.push_back(reason);
}

// A root cause that comes from sacct alone, in the words of `w`. The logs' own candidate, if
// any, stays as a reason.
RootCauseReport sacct_root(const Report& report, const SlurmStateEntry& w) {
  RootCauseReport r;
  r.category = w.category;
  r.rule = w.id;
  r.title = w.title;
  r.explain = w.explain;
  r.evidence = Evidence::Sacct;
  r.time_basis = TimeBasis::None;
  r.confidence = Confidence::High;
  r.basis = Basis::External;
  if (report.root_cause) {
    r.facts = report.root_cause->facts;
    r.reasons.push_back("the logs' own candidate, " + report.root_cause->title + " at " +
                        where_of(*report.root_cause) + ", has no Python traceback; SLURM's state decides");
  }
  for (const std::string& c : w.checks) r.checks.push_back(advice(c));
  give_checks_unique_ids(r.checks);  // advice.1, advice.2, ...
  r.headline = w.headline;
  return r;
}

}  // namespace

void apply_slurm_facts(Report& report, const SlurmJobInfo& job, const std::vector<SlurmStateEntry>& words) {
  report.slurm = job;
  const bool traceback = report.root_cause && report.root_cause->evidence == Evidence::Traceback;
  StateWords say(words, report, job);
  // What the logs' own root cause is, by tag (a renamed rule keeps its meaning here).
  const std::vector<std::string> no_tags;
  const std::vector<std::string>& tags = report.root_cause ? report.root_cause->rule_tags : no_tags;

  if (job.node_fail) {
    const SlurmStateEntry w = say.filled(slurm_state::kNodeFail, report);
    if (has_tag(tags, rule_tag::kNodeFailure)) {
      add_reason(*report.root_cause, w.confirm_reason);
    } else {
      RootCauseReport r = sacct_root(report, w);
      if (traceback) add_reason(r, w.traceback_reason);
      report.root_cause = std::move(r);
    }
  } else if (job.out_of_memory && !traceback) {
    const SlurmStateEntry w = say.filled(slurm_state::kOutOfMemory, report);
    if (report.root_cause && report.root_cause->category == Category::Oom) {
      add_reason(*report.root_cause, w.confirm_reason);
    } else {
      report.root_cause = sacct_root(report, w);
    }
  } else if (job.time_limit_hit && !traceback) {
    const SlurmStateEntry w = say.filled(slurm_state::kTimeout, report);
    if (has_tag(tags, rule_tag::kTimeLimit)) {
      auto& r = *report.root_cause;
      r.explain += " " + w.explain;
      add_reason(r, w.confirm_reason);
    } else {
      report.root_cause = sacct_root(report, w);
    }
  } else if (job.state == "CANCELLED" && job.cancelled_by >= 0 &&
             (!report.root_cause || has_tag(tags, rule_tag::kCancelled))) {
    const SlurmStateEntry w = say.filled(slurm_state::kCancelled, report);
    if (report.root_cause) {
      // The logs saw the cancellation too: their cause stays, named by who cancelled.
      auto& r = *report.root_cause;
      r.title = w.title;
      r.explain += " " + w.explain;
      r.headline = w.title;
      add_reason(r, w.confirm_reason);
    } else {
      report.root_cause = sacct_root(report, w);
    }
  } else if (!report.root_cause && !job.state.empty() && job.state != "COMPLETED" && is_final_state(job.state)) {
    RootCauseReport r = sacct_root(report, say.filled(slurm_state::kFailed, report));
    r.confidence = Confidence::Low;
    report.root_cause = std::move(r);
  }
  report.verdict = report.root_cause ? Verdict::Failure : Verdict::NoFailure;
}

// ---- run_postmortem, step by step ----

namespace {

// sacct's own words when it failed (accounting disabled: "Slurm accounting storage is
// disabled"; slurmdbd down: "Problem talking to the database"), empty when it answered.
std::string sacct_failure(const CommandResult& r) {
  if (!r.started) return "sacct could not be run (is SLURM installed and on PATH?)";
  if (r.status == 0) return "";
  std::string words = r.err;
  while (!words.empty() && (words.back() == '\n' || words.back() == ' ')) words.pop_back();
  // Its first three lines are enough; a stuck controller can repeat its complaint many times.
  std::size_t cut = std::string::npos;
  for (int line = 0, from = 0; line < 3; ++line) {
    cut = words.find('\n', static_cast<std::size_t>(from));
    if (cut == std::string::npos) break;
    from = static_cast<int>(cut) + 1;
  }
  if (cut != std::string::npos) words = words.substr(0, cut) + " ...";
  for (char& c : words)
    if (c == '\n') c = ' ';
  return words.empty() ? "sacct exited with status " + std::to_string(r.status)
                       : words + " (sacct exit status " + std::to_string(r.status) + ")";
}

struct JobArgument {
  std::string id;         // as given: 123, or 123_4 for an array task
  bool from_env = false;  // this job's own epilog: its environment describes the job
};

// The job to ask about: the argument, else SLURM_JOB_ID. nullopt (and a message) on a usage
// error.
std::optional<JobArgument> find_job_argument(const PostmortemOptions& options, std::string& err) {
  JobArgument arg{options.job_id, false};
  if (arg.id.empty()) {
    arg.id = env("SLURM_JOB_ID");
    arg.from_env = true;
  } else {
    arg.from_env = arg.id == env("SLURM_JOB_ID") && !env("SLURM_SCRIPT_CONTEXT").empty();
  }
  if (arg.id.empty()) {
    err += "megatriage postmortem: no JOBID given and SLURM_JOB_ID is not set\n";
    return std::nullopt;
  }
  SlurmJobId id = parse_job_id(arg.id);
  if (id.heterogeneous) {
    err += "megatriage postmortem: " + arg.id +
           " is a component of a heterogeneous job; heterogeneous jobs are not supported "
           "(run megatriage on the logs of the component instead)\n";
    return std::nullopt;
  }
  if (!id.valid) {
    err += "megatriage postmortem: '" + arg.id + "' is not a job id (123, or 123_4 for an array task)\n";
    return std::nullopt;
  }
  return arg;
}

// Adds what SLURM's commands did not say: scontrol's fields, then (in the job's own epilog)
// EpilogSlurmctld's environment, then the owner's primary group.
void complete_job_info(SlurmJobInfo& job, const std::map<std::string, std::string>& scontrol,
                       bool from_env) {
  merge_scontrol(job, scontrol);
  if (from_env) {
    // EpilogSlurmctld's environment: patterns, not expanded paths (expanded later).
    if (job.std_out.empty()) job.std_out = env("SLURM_JOB_STDOUT");
    if (job.std_err.empty()) job.std_err = env("SLURM_JOB_STDERR");
    if (job.work_dir.empty()) job.work_dir = env("SLURM_JOB_WORK_DIR");
    if (job.user.empty()) job.user = env("SLURM_JOB_USER");
    if (job.uid < 0 && !env("SLURM_JOB_UID").empty()) job.uid = std::atol(env("SLURM_JOB_UID").c_str());
    if (job.gid < 0 && !env("SLURM_JOB_GID").empty()) job.gid = std::atol(env("SLURM_JOB_GID").c_str());
  }
  if (job.uid >= 0 && job.gid < 0) {
    if (passwd* pw = getpwuid(static_cast<uid_t>(job.uid))) job.gid = static_cast<long>(pw->pw_gid);
  }
}

// The job's own stdout/stderr paths, stderr first: as SLURM gives them; else, unless `ask_script`
// is false, from the batch script's #SBATCH --output/--error or SLURM's default names.
std::vector<std::string> named_log_paths(SlurmCommands& slurm, const SlurmJobInfo& job,
                                         const std::string& job_arg, bool ask_script) {
  PatternContext ctx{job.job_id_raw, job.array_job_id, job.array_task_id, job.name, job.user,
                     hostlist_first(job.node_list)};
  std::vector<std::string> named;
  auto add_named = [&](const std::string& p, bool expanded) {
    if (p.empty()) return;
    std::string path = expanded ? p : expand_slurm_pattern(p, ctx, job.work_dir);
    if (path == "/dev/null" || std::find(named.begin(), named.end(), path) != named.end()) return;
    named.push_back(path);
  };
  add_named(job.std_err, job.std_paths_expanded);
  add_named(job.std_out, job.std_paths_expanded);
  if (named.empty() && ask_script) {
    CommandResult b = slurm.batch_script(job_arg);
    OutputPatterns p = output_patterns(b.started && b.status == 0 ? b.out : "", job.submit_line);
    std::string output = p.output.empty() ? (job.array_job_id.empty() ? "slurm-%j.out" : "slurm-%A_%a.out")
                                          : p.output;
    add_named(p.error.empty() ? output : p.error, false);
    add_named(output, false);
  }
  return named;
}

// From here on logs are read: as the job's owner, never as root. False (and a message) when
// running as root and that cannot be done.
bool become_job_owner(const SlurmJobInfo& job, const std::string& job_arg, std::string& err) {
  if (geteuid() != 0 || job.uid == 0) return true;
  if (job.uid < 0) {
    err += "megatriage postmortem: running as root and the owner of job " + job_arg +
           " is unknown; refusing to read its logs as root\n";
    return false;
  }
  std::string why;
  if (!drop_privileges(job, why)) {
    err += "megatriage postmortem: " + why + "; refusing to read logs as root\n";
    return false;
  }
  return true;
}

struct JobLogs {
  std::vector<std::string> paths;  // sorted
  std::string report_dir;          // empty when no log was found and none was asked for
};

// The files to triage and where the report goes: `--logs` (a directory's entries or one file),
// else the named logs that exist, their per-task siblings, and as a last resort files under
// WorkDir that name the job.
JobLogs find_job_logs(const PostmortemOptions& options, const std::vector<std::string>& named,
                      const SlurmJobInfo& job) {
  std::set<std::string> files;
  std::string report_dir = options.report_dir;
  if (!options.logs_dir.empty()) {
    std::error_code ec;
    if (fs::is_directory(options.logs_dir, ec)) {
      // Each entry of DIR except our own reports (re-reading one would change the next report).
      std::string root = fs::weakly_canonical(options.logs_dir, ec).string();
      for (fs::directory_iterator it(options.logs_dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (is_report_name(name)) continue;
        std::error_code ec2;
        if (it->is_symlink(ec2)) {
          // As a tree walk would: a symlink leaving DIR is not followed.
          std::string target = fs::weakly_canonical(it->path(), ec2).string();
          if (ec2 || target.rfind(root + "/", 0) != 0) continue;
        }
        files.insert(it->path().string());
      }
    } else {
      files.insert(options.logs_dir);
    }
    if (report_dir.empty()) {
      for (const auto& n : named)
        if (exists_file(n)) { report_dir = dir_of(n); break; }
    }
    if (report_dir.empty()) report_dir = fs::is_directory(options.logs_dir, ec) ? options.logs_dir : dir_of(options.logs_dir);
  } else {
    std::set<std::string> dirs;
    for (const auto& n : named) {
      if (!exists_file(n)) continue;
      files.insert(n);
      dirs.insert(dir_of(n));
      if (report_dir.empty()) report_dir = dir_of(n);
    }
    // Per-task files (srun --output=%x-%j-%t.err) beside the job's own logs.
    for (const auto& d : dirs) add_siblings(d, job.job_id_raw, files);
    if (files.empty() && !job.work_dir.empty()) {
      scan_work_dir(job.work_dir, job.job_id_raw, files);
      if (!job.array_job_id.empty()) {
        std::set<std::string> arr;
        scan_work_dir(job.work_dir, job.array_job_id, arr);
        for (const auto& f : arr)
          if (name_mentions_job(fs::path(f).filename().string(), job.array_task_id)) files.insert(f);
      }
      if (report_dir.empty() && !files.empty()) report_dir = dir_of(*files.begin());
    }
  }
  return {std::vector<std::string>(files.begin(), files.end()), std::move(report_dir)};
}

// Runs the triage pipeline on `paths` and lets SLURM's facts (`job`; none: the logs alone)
// decide what the logs cannot. nullopt, with the message in `err`, when the rules could not be
// loaded (the same usage error as the other commands).
// `batch_script`: the script as SLURM kept it (sacct --batch-script), linted when no script was
// found beside the logs; empty: none.
std::optional<Report> triage_job(const PostmortemOptions& options, const std::vector<std::string>& paths,
                                 const SlurmJobInfo* job, const std::string& job_arg, std::string& err,
                                 const std::string& batch_script = "") {
  TriageOptions topts;
  topts.paths = paths;
  topts.context_lines = options.context_lines;
  topts.rank_timeline = options.format == "html";
  topts.cache = &RunCache::from_environment();
  topts.rules_dirs = options.rules_dirs;
  // A logs/ folder shared by several jobs: this job's files (by the ids their names carry).
  // Without SLURM's facts, the id as given (`25`, `25_3`).
  std::vector<std::string> ids = job != nullptr ? std::vector<std::string>{job->job_id, job->job_id_raw}
                                                : std::vector<std::string>{job_arg};
  topts.job = {JobPick::Asked, std::move(ids), /*required=*/false};
  Report report;
  // The words of the sacct causes come with the rules (slurm_states), so --rules can change them.
  std::vector<SlurmStateEntry> words;
  // The nodes' partial reports (`megatriage partial` in an Epilog or the job): --partials, else
  // WorkDir/megatriage/JOBID when it exists. Merged with the logs read here.
  std::string partials = options.partials_dir;
  if (partials.empty() && job != nullptr && !job->work_dir.empty()) {
    std::error_code ec;
    const std::string place = job->work_dir + "/megatriage/" + job->job_id;
    if (fs::is_directory(place, ec)) partials = place;
  }
  if (!partials.empty() && job != nullptr) wait_for_partials(partials, hostlist_count(job->node_list), kPartialsWait);
  if (!partials.empty() && !partial_files_in(partials).empty()) {
    MergeOptions merge;
    merge.triage = topts;
    merge.inputs = {partials};
    // A node Epilog is given no node list (SLURM 22.05): SLURM's own names the silent nodes.
    if (job != nullptr && !job->node_list.empty()) merge.nodes = {job->node_list};
    MergeOutcome merged = run_merge(merge);
    if (merged.triage.rules_missing || (merged.triage.usage_error && merged.partials == 0)) {
      err += "megatriage postmortem: " + merged.triage.usage_message + "\n";
      return std::nullopt;
    }
    report = std::move(merged.triage.report);
    if (merged.triage.usage_error) report.verdict = Verdict::NoFailure;
    if (merged.triage.leftovers && merged.triage.leftovers->matcher)
      words = merged.triage.leftovers->matcher->tables().slurm_states;
  } else if (!paths.empty()) {
    TriageOutcome outcome = run_triage(topts);
    if (outcome.rules_missing) {
      err += "megatriage postmortem: " + outcome.usage_message + "\n";
      return std::nullopt;
    }
    report = std::move(outcome.report);
    if (outcome.usage_error) report.verdict = Verdict::NoFailure;
    if (outcome.leftovers && outcome.leftovers->matcher) {
      const KnowledgeTables& tables = outcome.leftovers->matcher->tables();
      words = tables.slurm_states;
      if (report.scripts.empty() && !batch_script.empty()) {
        DiagnosticSink diags;
        add_script_text_findings(report, "sacct:" + job_arg, batch_script, tables, diags);
        for (auto& d : diags.take()) report.diagnostics.push_back(std::move(d));
      }
    }
  } else {
    // No triage, so no matcher: the tables alone. Problems with the rules are left out of this
    // report, as they were before the words moved to rules/ (a missing entry still says so).
    const std::vector<std::string> dirs = rules_search_path(options.rules_dirs);
    DiagnosticSink loading;
    KnowledgeTables tables;
    const std::size_t rule_count = load_rules(dirs, loading, 1, topts.cache, &tables).size();
    if (std::string why = rules_unusable_message(dirs, rule_count, loading.items()); !why.empty()) {
      err += "megatriage postmortem: " + why + "\n";
      return std::nullopt;
    }
    words = std::move(tables.slurm_states);
    // No log at all: the report still carries SLURM's facts and rule count.
    topts.paths = {};
    report.verdict = Verdict::NoFailure;
    report.ordering = "no logs found";
    report.diagnostics.push_back({Severity::Warning, "postmortem.no-logs",
                                  "no log of job " + job_arg + " was found (StdOut/StdErr, batch script, "
                                  "files under WorkDir naming the job)",
                                  "", 0, "pass --logs DIR", 1});
  }
  if (job != nullptr) apply_slurm_facts(report, *job, words);
  return report;
}

// Renders `report` to `out` and writes megatriage-<jobid>.json into `report_dir`.
void write_report(const PostmortemOptions& options, const Report& report, const std::string& job_id,
                  const std::string& report_dir, std::string& out, std::string& err) {
  std::string json = render_json(report);
  std::string rendered = options.format == "json"   ? json
                         : options.format == "html" ? render_html(report)
                                                    : render_text(report, TextStyle{options.color, options.width, options.verbose, false});
  out += rendered;
  if (report_dir.empty()) {
    err += "megatriage postmortem: no directory for the report (no log found); use --report-dir\n";
    return;
  }
  std::string why;
  std::string name = "megatriage-" + job_id + ".json";
  if (write_atomically(report_dir, name, json, why)) {
    if (options.format == "text") out += "Report: " + report_dir + "/" + name + "\n";
  } else {
    err += "megatriage postmortem: " + why + "\n";
  }
}

// Neither sacct nor scontrol can tell about the job, but the user named its logs: the report
// of the logs alone, without a `slurm` block, saying why. Same reading rules as with facts:
// as root, only as the job's owner (known here from the epilog's environment, if at all).
int postmortem_from_logs(const PostmortemOptions& options, const JobArgument& arg,
                         const std::string& sacct_error, std::string& out, std::string& err) {
  SlurmJobInfo owner;
  owner.job_id = owner.job_id_raw = arg.id;
  complete_job_info(owner, {}, arg.from_env);
  if (!become_job_owner(owner, arg.id, err)) return kExitUsage;
  JobLogs logs = find_job_logs(options, {}, owner);
  std::optional<Report> report = triage_job(options, logs.paths, nullptr, arg.id, err);
  if (!report) return kExitUsage;
  report->diagnostics.insert(
      report->diagnostics.begin(),
      {Severity::Warning, "postmortem.no-slurm-facts",
       "sacct failed (" + sacct_error + ") and scontrol does not know job " + arg.id +
           ": this report is from the --logs alone, without SLURM's state (time limit, host OOM, "
           "node failure, cancellation are not known)",
       "", 0, "check accounting (sacctmgr, slurmdbd) and run the post-mortem again", 1});
  write_report(options, *report, arg.id, logs.report_dir, out, err);
  return report->root_cause ? kExitFailure : kExitNoFailure;
}

}  // namespace

SlurmAnswer wait_for_final_state(SlurmCommands& slurm, const std::string& job_id) {
  // sacct lags right after the end (PENDING, a short NodeList): re-query for up to ~10 s while
  // scontrol says the job is over (or no longer knows it) but sacct disagrees.
  SlurmAnswer answer;
  const auto start = slurm.now();
  const auto deadline = start + kSacctSettleWait;
  // Steps can take KillWait (30 s by default) to die after a time limit or scancel.
  const auto steps_deadline = start + kStepsEndWait;
  for (int attempt = 0;; ++attempt) {
    ++answer.queries;
    CommandResult s = slurm.show_job(job_id);
    if (s.started && s.status == 0) answer.scontrol = parse_scontrol_show_job(s.out);
    CommandResult a = slurm.sacct(job_id, kSacctFormat);
    answer.sacct_ran = answer.sacct_ran || a.started;
    answer.sacct_error = sacct_failure(a);
    answer.job.reset();
    if (a.started && a.status == 0) answer.job = slurm_job_from_sacct(parse_sacct_parsable(a.out), job_id);
    // Heterogeneous jobs show up as 123+0, 123+1 rows even when asked for 123.
    if (answer.job && answer.job->job_id.find('+') != std::string::npos) {
      answer.heterogeneous = true;
      return answer;
    }
    const std::map<std::string, std::string>& sc = answer.scontrol;
    const std::optional<SlurmJobInfo>& job = answer.job;
    auto field = [&sc](const char* key) {
      auto it = sc.find(key);
      return it == sc.end() ? std::string() : it->second;
    };
    std::string sc_state = field("JobState");
    bool sc_over = sc_state.empty() || is_final_state(sc_state) || sc_state == "COMPLETING";
    bool retry = false, steps_running = false;
    // A failing sacct is asked again too (slurmdbd can be briefly busy right after a job's end);
    // past the settle wait, scontrol's facts stand in for it (run_postmortem).
    if (!job) retry = !sc.empty();
    else if (!is_final_state(job->state)) retry = sc_over;
    else if (sc.count("NodeList") && hostlist_count(field("NodeList")) > hostlist_count(job->node_list)) retry = true;
    if (job && is_final_state(job->state) && sc_over) {
      // EpilogSlurmctld starts as soon as the controller decides (TIMEOUT, scancel), before
      // slurmstepd has killed the steps and written its last lines: wait for the step rows.
      // The extern step only ends after every epilog.
      for (const auto& st : job->steps)
        if (!is_final_state(st.state) && !st.id.ends_with(".extern"))
          steps_running = true;
    }
    auto now = slurm.now();
    if (steps_running && now < steps_deadline) retry = true;
    if (!retry || (now >= deadline && !steps_running) || now >= steps_deadline) break;
    slurm.sleep_for(std::chrono::milliseconds(attempt < 4 ? 250 : 500));
  }
  return answer;
}

int run_postmortem(const PostmortemOptions& options, std::string& out, std::string& err) {
  SystemSlurmCommands slurm;
  return run_postmortem(options, slurm, out, err);
}

int run_postmortem(const PostmortemOptions& options, SlurmCommands& slurm, std::string& out,
                   std::string& err) {
  std::optional<JobArgument> arg = find_job_argument(options, err);
  if (!arg) return kExitUsage;
  const std::string& job_arg = arg->id;

  SlurmAnswer answer = wait_for_final_state(slurm, job_arg);
  if (answer.heterogeneous) {
    err += "megatriage postmortem: job " + job_arg + " is heterogeneous; not supported\n";
    return kExitUsage;
  }
  std::vector<Diagnostic> notes;  // how the facts were had, for the report
  if (!answer.job && !answer.sacct_error.empty()) {
    if (!answer.scontrol.empty()) {
      // Accounting cannot answer, the controller still knows the job: its facts, less the steps.
      answer.job = slurm_job_from_scontrol(answer.scontrol, job_arg);
      notes.push_back({Severity::Warning, "postmortem.sacct-failed",
                       "sacct failed: " + answer.sacct_error +
                           "; the job's facts come from `scontrol show job` (no step states, no "
                           "cancelling user)",
                       "", 0, "check accounting (sacctmgr, slurmdbd) for the full facts", 1});
    } else if (!options.logs_dir.empty()) {
      return postmortem_from_logs(options, *arg, answer.sacct_error, out, err);
    }
  }
  if (!answer.job) {
    if (!answer.sacct_error.empty()) {
      err += "megatriage postmortem: job " + job_arg + ": sacct failed: " + answer.sacct_error +
             "; scontrol does not know the job either (the controller forgets a job MinJobAge "
             "after its end, 300 s by default). Pass --logs DIR to triage its logs without "
             "SLURM's facts\n";
    } else {
      err += "megatriage postmortem: job " + job_arg + " not found (sacct and scontrol do not know it)\n";
    }
    return kExitUsage;
  }
  SlurmJobInfo& job = *answer.job;
  complete_job_info(job, answer.scontrol, arg->from_env);

  std::vector<std::string> named = named_log_paths(slurm, job, job_arg, options.logs_dir.empty());
  if (!become_job_owner(job, job_arg, err)) return kExitUsage;
  JobLogs logs = find_job_logs(options, named, job);
  // The job's batch script as SLURM kept it: its launch problems join the checks when no script
  // lies beside the logs.
  CommandResult script = slurm.batch_script(job_arg);
  std::optional<Report> report = triage_job(options, logs.paths, &job, job_arg, err,
                                            script.started && script.status == 0 ? script.out : "");
  if (!report) return kExitUsage;
  report->diagnostics.insert(report->diagnostics.begin(), notes.begin(), notes.end());
  write_report(options, *report, job.job_id, logs.report_dir, out, err);
  return report->root_cause ? kExitFailure : kExitNoFailure;
}

}  // namespace megatriage
