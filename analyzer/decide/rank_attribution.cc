#include "decide/rank_attribution.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "base/text_util.h"
#include "decide/root_cause.h"
#include "match/rule_tags.h"

namespace megatriage {
namespace {

// The number a field starts with (`3` of `3 ` or `3(x2)`), nullopt when it starts with none.
std::optional<int> leading_int(std::string_view s) {
  int v = 0;
  std::string_view t = trim_spaces(s);
  if (std::from_chars(t.data(), t.data() + t.size(), v).ec != std::errc()) return std::nullopt;
  return v;
}

// A whole number (no other text), nullopt otherwise: a task list such as `0-3` or `1,2` is none.
std::optional<int> whole_int(std::string_view s) {
  std::string_view t = trim_spaces(s);
  if (t.empty() || t.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return leading_int(t);
}

std::optional<int> int_field(const Event& e, const RuleMatcher& matcher, std::string_view name) {
  std::optional<std::string> v = event_field(e, matcher, name);
  if (!v) return std::nullopt;
  return leading_int(*v);
}

bool is_python_traceback(const Event& e) {
  return e.kind == EventKind::Traceback && !e.traceback->incomplete && e.decisive_block >= 0;
}

// What a worker printed, cut off or not; the launcher's own tracebacks (ChildFailedError,
// SignalException) are teardown.
bool is_worker_traceback(const Event& e, const RuleMatcher& matcher) {
  return e.kind == EventKind::Traceback && event_role(e, matcher) != RuleRole::Teardown;
}

bool has_rule_tag(const Event& e, const RuleMatcher& matcher, std::string_view tag) {
  if (e.kind != EventKind::RuleLine) return false;
  for (const auto& m : e.matches)
    if (has_tag(matcher.rules()[static_cast<std::size_t>(m.rule_index)].tags, tag)) return true;
  return false;
}

// The launcher's report of one worker's exit (`failed (exitcode: 1) local_rank: 0 (pid: N)`).
bool is_worker_exit(const Event& e, const RuleMatcher& matcher) {
  return has_rule_tag(e, matcher, rule_tag::kWorkerExit);
}

// The SLURM task an srun line names (`srun: error: node2: task 3: ...`), when it names one.
std::optional<int> srun_task_of(const Event& e, const RuleMatcher& matcher) {
  if (e.kind != EventKind::RuleLine) return std::nullopt;
  std::optional<std::string> task = event_field(e, matcher, "task");
  if (!task) task = event_field(e, matcher, "tasks");
  if (!task) return std::nullopt;
  return whole_int(*task);
}

std::optional<int> fact_int(const FileResult& file, std::string_view key) {
  for (const auto& fact : file.facts)
    if (fact.key == key) return whole_int(fact.value);
  return std::nullopt;
}

std::string join_ranks(const std::set<int>& ranks) {
  std::string out;
  std::size_t i = 0;
  for (int r : ranks) {
    if (i > 0) out += i + 1 == ranks.size() ? " and " : ", ";
    out += std::to_string(r);
    if (++i == 8 && ranks.size() > 8) return out + ", ...";
  }
  return out;
}

// What the whole job shows, gathered in one pass over the timeline when the root's own file
// did not tell the rank.
struct JobView {
  std::vector<const FileResult*> files;  // by file id; null for files without events
  bool launcher_agent = false;  // a torchrun agent's table, exit report or local-rank streams
  bool several_nodes = false;   // nnodes > 1, node rank > 0, a second srun task or host, rank != local rank
  std::optional<int> world_size;
};

JobView view_job(const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher) {
  JobView job;
  std::set<std::string> hosts;
  for (const auto& entry : timeline) {
    const Event& e = *entry.event;
    const FileId id = e.origin.file;
    if (job.files.size() <= id) job.files.resize(id + 1, nullptr);
    job.files[id] = entry.file;
    if (e.kind == EventKind::ChildFailure) {
      job.launcher_agent = true;
      if (e.child->rank >= 0 && e.child->local_rank >= 0 && e.child->rank != e.child->local_rank)
        job.several_nodes = true;
    }
    if (e.who.local_rank >= 0 || is_worker_exit(e, matcher)) job.launcher_agent = true;
    if (e.who.task >= 1) job.several_nodes = true;
    if (!e.who.host.empty() && e.who.host != "localhost") hosts.insert(e.who.host);
  }
  if (hosts.size() > 1) job.several_nodes = true;
  for (const FileResult* file : job.files) {
    if (file == nullptr) continue;
    if (file->file.hint.local_rank >= 0) job.launcher_agent = true;
    if (file->file.hint.task >= 1) job.several_nodes = true;
    for (const auto& fact : file->facts) {
      std::optional<int> v = whole_int(fact.value);
      if (!v) continue;
      if ((fact.key == "nnodes" && *v > 1) || (fact.key == "node_rank" && *v > 0)) job.several_nodes = true;
      if ((fact.key == "world_size" || fact.key == "world_size_env") && !job.world_size) job.world_size = *v;
    }
  }
  return job;
}

class Attributor {
 public:
  Attributor(const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher, Finding& f)
      : timeline_(timeline), matcher_(matcher), root_(timeline[f.index]), e_(*root_.event),
        file_(*root_.file), f_(f), who_(f.who) {}

  void run() {
    who_ = e_.who;
    if (who_.rank >= 0) {
      const int hinted = file_.file.hint.rank;
      f_.rank_basis = hinted >= 0 && hinted == who_.rank ? RankBasis::FileName : RankBasis::Prefix;
    } else {
      attribute();
    }
    if (who_.rank < 0) {
      f_.rank_basis = RankBasis::Unknown;
      std::string why = "rank unknown: no rank prefix, file name or launcher evidence ties it to one rank";
      for (std::size_t i = 0; i < notes_.size(); ++i) why += (i == 0 ? " (" : "; ") + notes_[i];
      f_.reasons.push_back(notes_.empty() ? why : why + ")");
    }
    if (who_.host.empty()) {
      if (std::optional<std::string> h = event_field(e_, matcher_, "host")) who_.host = short_host(*h);
    }
    if (who_.host.empty()) host_for_rank();
    if (inferred_ && f_.confidence == Confidence::High) f_.confidence = Confidence::Medium;
  }

 private:
  void set_rank(int rank, RankBasis basis, std::string reason) {
    who_.rank = rank;
    f_.rank_basis = basis;
    f_.reasons.push_back(std::move(reason));
  }

  void attribute() {
    const bool traceback = e_.kind == EventKind::Traceback;
    if (traceback && from_local_rank_table()) return;
    if (traceback && from_node_rank()) return;
    if (traceback && from_launcher_report()) return;
    if (traceback && from_spawn_report()) return;
    // Its own local rank (`[default3]:`, `attempt_0/3/`) and nothing mapping it: one node only.
    if (who_.local_rank >= 0 &&
        from_local_rank(who_.local_rank, std::nullopt, RankBasis::NodeLocalRank,
                        file_.file.hint.local_rank >= 0 ? "its file's directory" : "its line prefix", false))
      return;
    if (is_python_traceback(e_) && from_failed_workers()) return;
    if (e_.kind == EventKind::RuleLine && event_category(e_, matcher_) == Category::Oom && from_sigkill()) return;
    if (from_same_file_ranks()) return;
    if (from_srun_task()) return;
    from_single_process();
  }

  const JobView& job() {
    if (!job_) job_ = view_job(timeline_, matcher_);
    return *job_;
  }

  // The root's local rank (tee prefix `[default1]:`, `attempt_0/1/`) is listed by exactly one
  // global rank in its launcher's table (same file, same srun task).
  bool from_local_rank_table() {
    if (who_.local_rank < 0) return false;
    std::set<int> ranks;
    std::uint64_t line = 0;
    for (const Event& e : file_.events) {
      if (e.kind == EventKind::ChildFailure && e.who.task == e_.who.task &&
          e.child->local_rank == who_.local_rank && e.child->rank >= 0) {
        ranks.insert(e.child->rank);
        if (line == 0) line = e.origin.line;
      }
    }
    if (ranks.size() != 1) return false;
    set_rank(*ranks.begin(), RankBasis::ChildFailureTable,
             "rank " + std::to_string(*ranks.begin()) + " is local rank " + std::to_string(who_.local_rank) +
                 " in its launcher's ChildFailedError table (line " + std::to_string(line) + ")");
    return true;
  }

  // Node rank and processes per node, both printed in the root's file, and its local rank. Not
  // in a file that several launchers wrote to: its node rank is one of theirs.
  bool node_rank_times_nproc(int local_rank, int& rank, std::string& how) const {
    std::set<int> tables, reports;
    for (const Event& e : file_.events) {
      if (e.kind == EventKind::ChildFailure) tables.insert(e.child->table_index);
      else if (is_worker_exit(e, matcher_))
        if (std::optional<int> pid = int_field(e, matcher_, "pid")) reports.insert(*pid);
    }
    if (tables.size() > 1 || reports.size() > 1) return false;
    std::optional<int> node = fact_int(file_, "node_rank");
    std::optional<int> nproc = fact_int(file_, "nproc_per_node");
    if (!node || !nproc || *nproc <= 0 || local_rank >= *nproc) return false;
    rank = *node * *nproc + local_rank;
    how = "node rank " + std::to_string(*node) + " x " + std::to_string(*nproc) + " processes per node + local rank " +
          std::to_string(local_rank);
    return true;
  }

  bool from_node_rank() {
    if (who_.local_rank < 0) return false;
    int rank = -1;
    std::string how;
    if (!node_rank_times_nproc(who_.local_rank, rank, how)) return false;
    set_rank(rank, RankBasis::NodeLocalRank, "rank " + std::to_string(rank) + " = " + how + " (printed in its file)");
    return true;
  }

  // The launcher logs `failed (exitcode: 1) local_rank: N (pid: P)` when it finds a worker
  // dead; a worker's traceback is printed before that. When the root is the only worker
  // traceback of its stream between the previous such report and the next, the next one is
  // its worker's.
  bool from_launcher_report() {
    const Event* report = nullptr;
    std::uint64_t previous = 0;
    std::set<int> pids;
    for (const Event& e : file_.events) {
      if (e.who.task != e_.who.task || !is_worker_exit(e, matcher_)) continue;
      if (std::optional<int> pid = int_field(e, matcher_, "pid")) pids.insert(*pid);
      if (e.origin.line < e_.origin.line) previous = e.origin.line;
      else if (report == nullptr && e.origin.line > e_.last_line) report = &e;
    }
    if (report == nullptr) return false;
    const std::string at = "the launcher's report at line " + std::to_string(report->origin.line);
    int tracebacks = 0;
    for (const Event& e : file_.events)
      if (e.origin.line > previous && e.origin.line < report->origin.line && e.who.rank < 0 &&
          e.who.task == e_.who.task && is_worker_traceback(e, matcher_))
        ++tracebacks;
    if (tracebacks != 1) {
      notes_.push_back(std::to_string(tracebacks) + " unprefixed tracebacks come before " + at +
                       ", which names one worker but not which traceback is its");
      return false;
    }
    std::optional<int> exitcode = int_field(*report, matcher_, "exitcode");
    std::optional<int> local = int_field(*report, matcher_, "local_rank");
    std::optional<int> pid = int_field(*report, matcher_, "pid");
    if (!exitcode || *exitcode <= 0 || !local) {
      notes_.push_back(at + " is of a worker killed by a signal, which need not have printed this traceback");
      return false;
    }
    // The report names the earliest failure by the error files' times; without them, the
    // lowest local rank among those found dead. When that launcher's table lists several failed
    // workers, the report does not say which one printed the traceback.
    if (pid) {
      int table = -1;
      std::set<int> failed;
      for (const Event& e : file_.events)
        if (e.kind == EventKind::ChildFailure && e.child->pid == *pid) table = e.child->table_index;
      for (const Event& e : file_.events)
        if (e.kind == EventKind::ChildFailure && table >= 0 && e.child->table_index == table && e.child->exitcode > 0)
          failed.insert(e.child->rank);
      if (failed.size() > 1) {
        notes_.push_back(at + " names local rank " + std::to_string(*local) + ", the lowest of the " +
                         std::to_string(failed.size()) + " failed workers its table lists (ranks " +
                         join_ranks(failed) + "), not necessarily this traceback's");
        return false;
      }
    }
    const bool shared = pids.size() > 1;
    const RankBasis basis = shared ? RankBasis::InferredOrder : RankBasis::LauncherReport;
    const std::string which = shared ? "the next of the " + std::to_string(pids.size()) +
                                           " launcher reports in this shared file (" + at + ")"
                                     : at;
    return from_local_rank(*local, pid, basis, "the only worker traceback before " + which, shared);
  }

  // torch.multiprocessing.spawn's parent re-raises a worker's exception with `-- Process N
  // terminated with the following error:` and that worker's traceback right after it. Read as
  // one traceback (the wrapper's message announces the worker's, an embedded block), the line
  // is inside the root; read as two, the wrapper's ends just before it.
  bool from_spawn_report() {
    for (const Event& e : file_.events) {
      if (e.who.task != e_.who.task || !has_rule_tag(e, matcher_, rule_tag::kSpawnProcess)) continue;
      const bool names_root = e.origin.line + 1 == e_.origin.line ||
                              (e.origin.line > e_.origin.line && e.origin.line <= e_.last_line + 2);
      if (!names_root) continue;
      std::optional<int> process = int_field(e, matcher_, "process");
      if (!process) return false;
      return from_local_rank(*process, std::nullopt, RankBasis::LauncherReport,
                             "torch.multiprocessing.spawn's report at line " + std::to_string(e.origin.line) +
                                 " of the traceback",
                             false, "process index");
    }
    return false;
  }

  // The global rank of the worker with local rank `local` that `lead` tied the root to: the
  // table entry of its pid, else node rank x nproc + local, else `local` where the job shows one
  // node only (inferred). `inferred_order`: the tie itself was by the order of several reports.
  bool from_local_rank(int local, std::optional<int> pid, RankBasis basis, const std::string& lead,
                       bool inferred_order, const std::string& local_name = "local rank") {
    who_.local_rank = local;
    const std::string head = lead + " (" + local_name + " " + std::to_string(local) +
                             (pid ? ", pid " + std::to_string(*pid) : std::string()) + ")";
    for (const Event& e : file_.events) {
      if (e.kind == EventKind::ChildFailure && pid && e.child->pid == *pid && e.child->rank >= 0 &&
          e.child->local_rank == local) {
        inferred_ = inferred_order;
        set_rank(e.child->rank, basis,
                 "rank " + std::to_string(e.child->rank) + ": " + head +
                     ", which its ChildFailedError table lists as rank " + std::to_string(e.child->rank) + " (line " +
                     std::to_string(e.origin.line) + ")");
        return true;
      }
    }
    int rank = -1;
    std::string how;
    if (node_rank_times_nproc(local, rank, how)) {
      inferred_ = inferred_order;
      set_rank(rank, basis, "rank " + std::to_string(rank) + ": " + head + "; " + how);
      return true;
    }
    if (job().several_nodes) {
      notes_.push_back(head + ": the job ran on several nodes and nothing says which node's it is");
      return false;
    }
    inferred_ = true;
    set_rank(local, basis,
             "rank " + std::to_string(local) + ": " + head + "; nothing in the logs shows a second node, so " +
                 local_name + " = rank (inferred)");
    return true;
  }

  // torchelastic's table lists every worker it found dead with an error at that moment. With
  // one such worker in the root's file, and no other unprefixed cause there, the root is its.
  bool from_failed_workers() {
    int unranked_causes = 0;
    bool table_after = false;
    std::set<int> failed;
    const Event* entry = nullptr;
    for (const Event& e : file_.events) {
      if (is_python_traceback(e) && e.who.rank < 0 && event_role(e, matcher_) == RuleRole::Cause) ++unranked_causes;
      if (e.kind != EventKind::ChildFailure || e.who.task != e_.who.task) continue;
      if (e.origin.line > e_.last_line) table_after = true;
      if (e.child->exitcode > 0 && e.child->rank >= 0) {
        failed.insert(e.child->rank);
        if (entry == nullptr) entry = &e;
      }
    }
    if (!table_after) return false;
    if (unranked_causes != 1) {
      if (notes_.empty())
        notes_.push_back("its file holds " + std::to_string(unranked_causes) +
                         " unprefixed failing tracebacks, and the launcher's table does not say which is whose");
      return false;
    }
    if (failed.size() != 1) {
      if (failed.size() > 1)
        notes_.push_back("the launcher tables there list " + std::to_string(failed.size()) +
                         " workers failed with an error (ranks " + join_ranks(failed) +
                         "), and without error files their \"Root Cause\" is just the lowest local rank");
      return false;
    }
    if (who_.local_rank < 0) who_.local_rank = entry->child->local_rank;
    set_rank(entry->child->rank, RankBasis::ChildFailureTable,
             "rank " + std::to_string(entry->child->rank) +
                 " is the only worker that the launcher's ChildFailedError table in its file lists as failed "
                 "with an error (line " + std::to_string(entry->origin.line) + ")");
    return true;
  }

  // A process killed by the kernel's OOM killer prints nothing; the launcher's table lists it
  // with exit code -9 (SIGKILL). One such worker in the whole job is the victim.
  bool from_sigkill() {
    std::set<int> killed;
    int local_rank = -1;
    for (const auto& entry : timeline_) {
      const Event& e = *entry.event;
      if (e.kind == EventKind::ChildFailure && e.child->exitcode == -9 && e.child->rank >= 0) {
        killed.insert(e.child->rank);
        local_rank = e.child->local_rank;
      }
    }
    if (killed.size() != 1) return false;
    if (who_.local_rank < 0) who_.local_rank = local_rank;
    set_rank(*killed.begin(), RankBasis::ChildFailureTable,
             "rank " + std::to_string(*killed.begin()) +
                 " is the only worker the launcher saw killed by SIGKILL (exitcode -9)");
    return true;
  }

  // A per-rank file: every line of it that names a rank names the same one. What SLURM or the
  // kernel writes into the job's files (srun and slurmstepd lines, OOM kills, time limits) is
  // nobody's output, so such a root is not that rank's.
  bool from_same_file_ranks() {
    if (e_.kind == EventKind::RuleLine) {
      for (std::string_view tag : {rule_tag::kHostOom, rule_tag::kTimeLimit, rule_tag::kNodeFailure,
                                   rule_tag::kCancelled})
        if (has_rule_tag(e_, matcher_, tag)) return false;
      if (srun_task_of(e_, matcher_)) return false;
    }
    std::set<int> ranks(file_.named_ranks.begin(), file_.named_ranks.end());
    for (const Event& e : file_.events) {
      if (&e == &e_) continue;
      if (e.who.rank >= 0) ranks.insert(e.who.rank);
      if (std::optional<int> task = srun_task_of(e, matcher_)) ranks.insert(*task);
    }
    for (const auto& fact : file_.facts)
      if (fact.rank >= 0) ranks.insert(fact.rank);
    if (ranks.size() != 1) {
      if (ranks.size() > 1 && notes_.empty())
        notes_.push_back("its file names several ranks (" + join_ranks(ranks) + "): it is not one rank's file");
      return false;
    }
    set_rank(*ranks.begin(), RankBasis::SameFileRanks,
             "rank " + std::to_string(*ranks.begin()) + ": every line of " + file_.file.display_path +
                 " that names a rank (prefixes, NCCL communicator lines, launcher tables) names this one");
    return true;
  }

  // srun started the ranks itself when no torchrun agent shows anywhere: the SLURM task id
  // (SLURM_PROCID) is then the rank.
  bool from_srun_task() {
    int task = who_.task;
    if (task < 0) {
      std::optional<int> t = srun_task_of(e_, matcher_);
      if (!t) return false;
      task = *t;
      who_.task = task;
    }
    if (job().launcher_agent) {
      notes_.push_back("SLURM task " + std::to_string(task) +
                       " ran a torchrun agent (its tables or reports are in the logs), so the task id is a node, "
                       "not a rank");
      return false;
    }
    set_rank(task, RankBasis::SrunTask,
             "rank " + std::to_string(task) + " is SLURM task " + std::to_string(task) +
                 ": no torchrun agent shows in the logs, so srun started the ranks and the task id is the rank");
    return true;
  }

  bool from_single_process() {
    if (job().world_size != 1) return false;
    set_rank(0, RankBasis::SingleProcess, "rank 0: the job's world size is 1 (one process)");
    return true;
  }

  // Host for a rank: the launcher's table (unless it says localhost), else the SLURM task that
  // ran the rank's node (one srun task per node: node index = (rank - local_rank) / nproc).
  void host_for_rank() {
    if (who_.rank < 0 && who_.task < 0) return;
    int nproc = 0;
    std::map<int, std::string> task_host;
    for (const auto& entry : timeline_) {
      const Event& e = *entry.event;
      if (e.kind == EventKind::ChildFailure) {
        nproc = std::max(nproc, e.child->local_rank + 1);
        std::string h = short_host(e.child->host);
        if (who_.rank >= 0 && e.child->rank == who_.rank && !h.empty() && h != "localhost") {
          who_.host = h;
          return;
        }
      }
      std::optional<std::string> host = event_field(e, matcher_, "host");
      if (!host) continue;
      std::optional<std::string> task = event_field(e, matcher_, "task");
      if (!task) task = event_field(e, matcher_, "tasks");
      if (task && task->find_first_of("-,") == std::string::npos) {
        if (std::optional<int> id = leading_int(*task)) task_host.emplace(*id, short_host(*host));
      }
    }
    if (who_.task >= 0) {
      auto it = task_host.find(who_.task);
      if (it != task_host.end()) {
        who_.host = it->second;
        f_.reasons.push_back("host " + who_.host + " from srun's line for task " + std::to_string(who_.task));
      }
      return;
    }
    if (nproc <= 0 || task_host.empty()) return;
    int local = who_.local_rank >= 0 ? who_.local_rank : who_.rank % nproc;
    int node = (who_.rank - local) / nproc;
    auto it = task_host.find(node);
    if (it != task_host.end()) {
      who_.host = it->second;
      f_.reasons.push_back("host " + who_.host + " from srun's task " + std::to_string(node) +
                           " (node index of rank " + std::to_string(who_.rank) + " with " + std::to_string(nproc) +
                           " workers per node)");
    }
  }

  const std::vector<TimelineEntry>& timeline_;
  const RuleMatcher& matcher_;
  const TimelineEntry& root_;
  const Event& e_;
  const FileResult& file_;
  Finding& f_;
  Attribution& who_;
  std::vector<std::string> notes_;  // why a source did not tie the root to a rank
  std::optional<JobView> job_;
  bool inferred_ = false;
};

}  // namespace

void attribute_rank(const std::vector<TimelineEntry>& timeline, const RuleMatcher& matcher, Finding& f) {
  Attributor(timeline, matcher, f).run();
}

}  // namespace megatriage
