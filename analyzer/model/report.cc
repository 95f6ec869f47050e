// Names of the report's enums, as the text and JSON reports print them. Code decides on the
// enums; these strings are only for people and for the JSON schema.
#include "model/report.h"

#include "model/typed_value.h"

namespace megatriage {

const char* check_status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::Failed: return "failed";
    case CheckStatus::Passed: return "passed";
    case CheckStatus::Unknown: return "unknown";
  }
  return "unknown";
}

const char* evidence_name(Evidence e) {
  switch (e) {
    case Evidence::Traceback: return "traceback";
    case Evidence::Line: return "line";
    case Evidence::Sacct: return "sacct";
  }
  return "line";
}

const char* evidence_json_name(Evidence e, Fragment f) {
  switch (f) {
    case Fragment::None: break;
    case Fragment::HeaderlessTraceback: return "headerless_traceback";
    case Fragment::ExceptionLine: return "exception_line";
  }
  return evidence_name(e);
}

const char* time_basis_name(TimeBasis b) {
  switch (b) {
    case TimeBasis::Explicit: return "explicit";
    case TimeBasis::Bounded: return "bounded";
    case TimeBasis::Inherited: return "inherited";
    case TimeBasis::None: return "none";
  }
  return "none";
}

const char* confidence_name(Confidence c) {
  switch (c) {
    case Confidence::High: return "high";
    case Confidence::Medium: return "medium";
    case Confidence::Low: return "low";
  }
  return "low";
}

// A sacct root cause has no basis on the timeline; the report has always left the field empty
// for it, and the JSON schema keeps that.
const char* basis_name(Basis b) {
  switch (b) {
    case Basis::Cause: return "cause";
    case Basis::NcclFallback: return "nccl-fallback";
    case Basis::TeardownFallback: return "teardown-fallback";
    case Basis::External: return "";
  }
  return "";
}

const char* rank_basis_name(RankBasis b) {
  switch (b) {
    case RankBasis::Prefix: return "prefix";
    case RankBasis::FileName: return "file_name";
    case RankBasis::LauncherReport: return "launcher_report";
    case RankBasis::ChildFailureTable: return "child_failure_table";
    case RankBasis::NodeLocalRank: return "node_local_rank";
    case RankBasis::InferredOrder: return "inferred_order";
    case RankBasis::SameFileRanks: return "same_file_ranks";
    case RankBasis::SrunTask: return "srun_task";
    case RankBasis::SingleProcess: return "single_process";
    case RankBasis::Unknown: return "unknown";
  }
  return "unknown";
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Failure: return "failure";
    case Verdict::NoFailure: return "no_failure";
  }
  return "no_failure";
}

const char* job_pick_name(JobPick p) {
  switch (p) {
    case JobPick::Newest: return "newest";
    case JobPick::Asked: return "asked";
    case JobPick::All: return "all";
  }
  return "newest";
}

CheckResult advice_check(std::string text, std::string detail) {
  return CheckResult{kAdviceCheckId, std::move(text), CheckStatus::Unknown, std::move(detail), true};
}

std::vector<Diagnostic> untyped_value_diagnostics(const RootCauseReport& r) {
  std::vector<Diagnostic> out;
  auto check = [&](const char* what, const std::string& key, FactType type, const std::string& value) {
    if (read_typed_value(type, value)) return;
    const char* type_name = fact_type_name(type);
    out.push_back({Severity::Info, "report.untyped-value",
                   std::string(what) + " '" + key + "' is \"" + value + "\", which is not " +
                       (type == FactType::Int ? "an " : "a ") + type_name +
                       ": the JSON report gives it as a string",
                   "", 0, "", 1});
  };
  for (const auto& [key, value] : r.facts) check("fact", key, fact_spec(key).type, value);
  for (const auto& [key, type] : r.field_types) {
    auto it = r.fields.find(key);
    if (it != r.fields.end()) check("field", key, type, it->second);
  }
  return out;
}

}  // namespace megatriage
