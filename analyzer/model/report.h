// The report model: everything a renderer needs, decided already. Renderers format only.
// Every closed set of values is an enum; its user-visible name comes from one `*_name()`
// function (report.cc), called only where text for users is composed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "model/fact_registry.h"
#include "model/slurm_job_info.h"
#include "model/traceback.h"
#include "model/types.h"

namespace megatriage {

/// The JSON report's version (README "The JSON report"): 2 gave facts and fields their types.
constexpr int kSchemaVersion = 2;

/// What the logs say about a check.
enum class CheckStatus : std::uint8_t {
  Failed,   // the figures break it
  Passed,   // the figures satisfy it
  Unknown,  // a fact is missing (detail says which), or runbook advice nobody can decide
};

/// What kind of evidence the root cause is.
enum class Evidence : std::uint8_t {
  Traceback,  // a Python traceback's decisive exception
  Line,       // one log line that a rule knows
  Sacct,      // SLURM's accounting (`megatriage postmortem`), no log line
};

/// What a Traceback root's evidence lacks: whole, a traceback whose header is not in the log (an
/// excerpt, a log cut above it), or one exception line with no traceback around it.
enum class Fragment : std::uint8_t { None, HeaderlessTraceback, ExceptionLine };

/// How the root cause's time is known.
enum class TimeBasis : std::uint8_t {
  Explicit,   // printed on its own line
  Bounded,    // between the last stamp before it and the first after it in its stream
  Inherited,  // only the last stamp before it
  None,       // no stamp anywhere in its stream
};

/// How well the timeline separates the root cause from the next candidate.
enum class Confidence : std::uint8_t { High, Medium, Low };

/// Which of the root-cause policy's steps chose the root.
enum class Basis : std::uint8_t {
  Cause,             // the earliest cause
  NcclFallback,      // no cause anywhere: the earliest NCCL-category symptom
  TeardownFallback,  // neither: the earliest teardown traceback
  External,          // not chosen from the timeline (SLURM's accounting); rendered empty
};

/// How the root cause's rank is known: the first source, in this order, that ties the root to
/// one rank (see decide/rank_attribution.h). Unknown when nothing does; the reasons say why.
enum class RankBasis : std::uint8_t {
  Prefix,             // the root's own lines carry it (`[rank3]:`)
  FileName,           // its file's name or directory (`rank3.log`)
  LauncherReport,     // the launcher's `failed (exitcode: 1) local_rank: N (pid: P)` right after it
  ChildFailureTable,  // torchelastic's ChildFailedError table: its only failed worker, or its local rank
  NodeLocalRank,      // node rank x processes per node + local rank, all printed
  InferredOrder,      // which of several launchers' reports in one shared file follows it
  SameFileRanks,      // every rank-bearing line of its file names the same rank
  SrunTask,           // the SLURM task id, where srun started the ranks itself (no torchrun agent)
  SingleProcess,      // the job ran one process (world size 1)
  Unknown,            // nothing in the logs ties the root to a rank
};

/// Whether the job failed.
enum class Verdict : std::uint8_t { Failure, NoFailure };

const char* check_status_name(CheckStatus s);
const char* evidence_name(Evidence e);
/// The JSON `evidence` of a root: evidence_name(), or for a fragment `headerless_traceback` /
/// `exception_line`.
const char* evidence_json_name(Evidence e, Fragment f);
const char* time_basis_name(TimeBasis b);
const char* confidence_name(Confidence c);
const char* basis_name(Basis b);
const char* rank_basis_name(RankBasis b);
const char* verdict_name(Verdict v);

/// One suggested check, evaluated as far as the logs allow.
struct CheckResult {
  std::string id;      // stable: world_size_product, heads_divisible_by_tp, ..., or kAdviceCheckId
  std::string text;    // what to check
  CheckStatus status = CheckStatus::Unknown;
  std::string detail;  // the figures; for unknown, which fact is missing and where to find it
  bool advice = false; // runbook advice from a rule (id kAdviceCheckId): shown, never decided
};

/// The id every piece of runbook advice carries in the report.
inline constexpr const char* kAdviceCheckId = "advice";

/// Runbook advice: shown to the user, not decided from the logs.
CheckResult advice_check(std::string text, std::string detail);

/// One raw log line near the root cause (`--context N`), read back from its file after the
/// analysis (never kept during the scan). `text` is as the splitter gives it, not yet printable.
struct ContextLine {
  std::uint64_t line = 0;  // 1-based, as `RootCauseReport::line`
  std::string text;
};

struct RootCauseReport {
  Category category = Category::Unknown;
  std::string rule;            // rule id
  std::vector<std::string> rule_tags;  // the rule's tags: what later stages decide on (never the id)
  std::string title;
  std::string explain;         // placeholders filled
  Evidence evidence = Evidence::Line;
  Fragment fragment = Fragment::None;  // evidence Traceback only
  int rank = -1, local_rank = -1;
  int task = -1;               // SLURM task id (srun --label, %t in the file name)
  RankBasis rank_basis = RankBasis::Unknown;  // how `rank` is known
  std::string host;
  std::string file;            // display path
  std::uint64_t line = 0;
  std::optional<std::int64_t> time_us;    // best estimate (see time_basis)
  std::optional<std::int64_t> after_us;   // lower bound (last stamp before, same stream)
  std::optional<std::int64_t> before_us;  // upper bound (first stamp after, same stream)
  TimeBasis time_basis = TimeBasis::None;
  bool year_inferred = false;
  std::string exception;       // the decisive exception line
  std::vector<std::string> chain;  // every exception line of the chain, oldest first
  std::vector<Frame> frames;   // innermost frames, outermost of them first
  std::string headline;        // one line of figures, e.g. `OOM on rank 12 (node03, GPU 4) during backward: ...`
  std::vector<CheckResult> checks;
  std::map<std::string, std::string> fields;  // named groups of the rule
  std::map<std::string, FactType> field_types;  // the fields that are not text (the rule's field_types)
  std::map<std::string, std::string> facts;   // figures from the logs (snake_case keys)
  Confidence confidence = Confidence::Low;
  Basis basis = Basis::External;
  std::vector<std::string> reasons;  // why this and not something else
  // Other causes the logs cannot order against this one (the same second, or no stamps): their
  // ranks (sorted, unique, without the root's) and how many such events; see reasons.
  std::vector<int> tied_ranks;
  std::size_t tied_events = 0;
  std::string failure_name;    // the verdict line's name for it: `IMPORT`, `ValueError`, a rule's title
  // Every rank that failed with the root's rule (the root's included), sorted; `every_rank` when
  // that is every rank of the job.
  std::vector<int> same_failure_ranks;
  bool every_rank = false;
  std::vector<ContextLine> context;  // --context N: lines line-N .. line+N of `file` (fewer at its ends)
};

/// One info diagnostic (`report.untyped-value`) per fact or field whose printed value does not
/// read as its type (model/typed_value.h): the JSON report writes it as a string instead, and
/// says so here rather than dropping or bending the value.
std::vector<Diagnostic> untyped_value_diagnostics(const RootCauseReport& r);

struct SymptomGroup {
  std::string rule;            // rule id, or python.unclassified-exception
  std::string title;
  Category category = Category::Unknown;
  RuleRole role = RuleRole::Symptom;  // symptom | teardown | cause (same or other causes, later)
  std::uint64_t count = 0;
  std::vector<int> ranks;      // sorted, unique
  std::vector<std::string> hosts;  // sorted, unique
  std::optional<std::int64_t> first_us, last_us;
  std::optional<std::int64_t> delay_us;  // first_us - root time
  std::string example;         // one example text (first in time)
  std::string first_file;
  std::uint64_t first_line = 0;
  // The root's own failure on other ranks (one event per rank): the report says it with the
  // root, in one line, not as something that followed (decide/headline.cc).
  bool same_as_root = false;
};

struct FileSummary {
  std::string path;
  std::string compression;
  std::uint64_t size_bytes = 0, bytes = 0, lines = 0, events = 0;
  int rank = -1, local_rank = -1, task = -1;
  bool skipped = false;
};

/// Why a report covers the job it covers, when the logs hold several (README "Several jobs in
/// one folder").
enum class JobPick : std::uint8_t {
  Newest,  // the default: the newest job
  Asked,   // --job ID (or the job postmortem / watch were given)
  All,     // --all-jobs: one report per job
};
const char* job_pick_name(JobPick p);

/// The job a report is about, among the jobs the logs hold. Set only when they hold more than
/// one, or with --all-jobs.
struct JobChoice {
  std::string id;                       // empty: files that name no job
  JobPick pick = JobPick::Newest;
  bool newest_by_mtime = false;         // ids give no order (a run id): newest modified file
  std::vector<std::string> jobs;        // every job found, newest first
  std::size_t files = 0;                // files that name this job
  std::size_t files_without_job = 0;    // files that name none: read with every job
};

/// One mark of the HTML report's rank timeline: the first event of one group (the root, or a
/// symptom group) on one writer, with how many events of that group the writer had. Aggregated
/// so that a 1,000-rank job's page stays small: a rank's 500 watchdog lines are one mark.
struct TimelineMark {
  static constexpr int kRoot = -1;  // `group` of the root cause's mark
  int rank = -1;                    // -1: the event names no rank (then `host` is its own, if any)
  std::string host;                 // short host name; empty: unknown
  int group = kRoot;                // index into Report::symptoms, or kRoot
  std::uint64_t count = 1;          // events of that group on this writer
  std::optional<std::int64_t> time_us;    // printed on its line (time_basis Explicit)
  std::optional<std::int64_t> after_us;   // unstamped: lower bound (its stream's last stamp)
  std::optional<std::int64_t> before_us;  // unstamped: upper bound (its stream's next stamp)
  TimeBasis time_basis = TimeBasis::None;
  std::string file;                 // display path
  std::uint64_t line = 0;
  std::string text;                 // the event's line (its exception line), capped, not yet printable
};

/// What the HTML report draws: one row per rank the logs name (grouped by host), one mark per
/// (writer, group). Filled only when a renderer asks for it (TriageOptions::rank_timeline).
struct RankTimeline {
  std::vector<int> ranks;               // every rank the job's events or file names name, sorted
  std::vector<std::string> rank_hosts;  // parallel to `ranks`: the rank's host, empty when unknown
  std::vector<TimelineMark> marks;      // timeline order (the root's first when there is one)
};

struct Report {
  Verdict verdict = Verdict::NoFailure;
  std::optional<RootCauseReport> root_cause;
  std::vector<SymptomGroup> symptoms;
  std::vector<FileSummary> files;
  std::vector<Diagnostic> diagnostics;
  std::vector<std::string> rules_dirs;
  std::vector<std::string> scripts;   // batch scripts linted into the checks
  std::size_t rule_count = 0;
  std::string ordering;        // how sure the ordering is, in words
  std::optional<SlurmJobInfo> slurm;  // `megatriage postmortem`: what SLURM says about the job
  std::optional<JobChoice> job;       // several jobs in the logs: which one this is
  std::optional<RankTimeline> rank_timeline;  // --format html only; not in the JSON report
};

}  // namespace megatriage
