// A partial report (`megatriage partial`, read by `megatriage merge`): what "analyze one file"
// gave for every file one node could read, written so that another machine can run the
// job-wide stages on it as if it had read the files itself. JSON, documented in
// docs/partial-reports.md; this file is its only reader and writer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "app/script_discovery.h"
#include "base/diagnostics.h"
#include "extract/file_result.h"
#include "match/rule_matcher.h"
#include "model/report.h"

namespace megatriage {

/// What the first key says; a reader refuses any other `format` or `version`.
inline constexpr const char* kPartialFormat = "megatriage-partial";
/// 2: `scripts` (the batch scripts found beside the logs) was added.
inline constexpr int kPartialVersion = 2;

/// One node's partial report.
struct PartialReport {
  int version = kPartialVersion;
  std::string megatriage_version;     // the writer's
  std::string job_id;                 // SLURM_JOB_ID or --job; empty: not known
  std::string cluster;                // SLURM_CLUSTER_NAME; empty: not known
  std::string host;                   // whose files these are; empty: paths are not qualified
  std::vector<std::string> nodes;     // every node of the job (SLURM_JOB_NODELIST, expanded)
  std::string rules_fingerprint;      // rules_fingerprint() of the writer's rules
  std::size_t context_lines = 0;      // lines kept each side of an event that can be a root
  std::string problem;                // why the node had nothing usable (a missing path); empty
  std::vector<Diagnostic> diagnostics;  // run-level (the walk's, duplicates), not the rules'
  // The batch scripts beside the node's log folders, read (the merge decides which are the
  // job's: that takes every node's log names).
  std::vector<FoundScript> scripts;
  std::vector<FileResult> files;        // in file-id order, ids from 0
  // Per file (same index): the raw lines around the events that can be a root cause, sorted
  // by line, for `--context` in a merge that cannot read the file.
  std::vector<std::vector<ContextLine>> context;
};

/// A short hex digest of the rules' ids and regexes, in load order: two processes that agree
/// on it match lines alike.
std::string rules_fingerprint(const RuleMatcher& matcher);

/// The partial report as JSON (one line). Rule matches are written as rule ids of `matcher`,
/// which may be null only when no file is in the report (a header: a timeout).
std::string partial_to_json(const PartialReport& partial, const RuleMatcher* matcher);

/// What partial_from_json read.
struct PartialParse {
  std::optional<PartialReport> partial;  // none: `error` says why (not a partial, unknown version)
  std::string error;
  std::vector<Diagnostic> diagnostics;   // what was read but could not be used (an unknown rule)
};

/// Reads a partial report written by partial_to_json. Rule ids are looked up in `matcher`; one
/// it lacks is left out of the event's matches, with a `merge.unknown-rule` diagnostic.
/// `name` is the file's name, for the messages. Never throws.
/// `with_context` false: the files' context lines are skipped (a merge needs those of one file,
/// the root's, and reads them later with partial_context_from_json; they are ~40 % of a report).
PartialParse partial_from_json(std::string_view text, const RuleMatcher& matcher, const std::string& name,
                               bool with_context = true);

/// The context lines of file `index` of a partial report; nullopt when it cannot be read.
std::optional<std::vector<ContextLine>> partial_context_from_json(std::string_view text, std::size_t index);

}  // namespace megatriage
