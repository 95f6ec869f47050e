// report: every enum value of the report model has its own, distinct name, and the names are
// the strings the JSON schema has always carried.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "model/report.h"
#include "model/traceback.h"
#include "model/types.h"

using namespace megatriage;

namespace {

// Names of values first..last of an enum whose values are contiguous from 0.
template <typename Enum, typename NameOf>
std::set<std::string> names(Enum last, NameOf name_of) {
  std::set<std::string> out;
  for (int v = 0; v <= static_cast<int>(last); ++v) out.insert(name_of(static_cast<Enum>(v)));
  return out;
}

}  // namespace

TEST_SUITE("report") {
TEST_CASE("report: each enum value has its own name, the one the JSON schema uses") {
  CHECK(names(CheckStatus::Unknown, check_status_name) == std::set<std::string>{"failed", "passed", "unknown"});
  CHECK(names(Evidence::Sacct, evidence_name) == std::set<std::string>{"traceback", "line", "sacct"});
  CHECK(names(Fragment::ExceptionLine, [](Fragment f) { return evidence_json_name(Evidence::Traceback, f); }) ==
        std::set<std::string>{"traceback", "headerless_traceback", "exception_line"});
  CHECK(names(TimeBasis::None, time_basis_name) ==
        std::set<std::string>{"explicit", "bounded", "inherited", "none"});
  CHECK(names(Confidence::Low, confidence_name) == std::set<std::string>{"high", "medium", "low"});
  CHECK(names(Basis::External, basis_name) ==
        std::set<std::string>{"cause", "nccl-fallback", "teardown-fallback", ""});
  CHECK(names(RankBasis::Unknown, rank_basis_name) ==
        std::set<std::string>{"prefix", "file_name", "launcher_report", "child_failure_table", "node_local_rank",
                              "inferred_order", "same_file_ranks", "srun_task", "single_process", "unknown"});
  CHECK(names(Verdict::NoFailure, verdict_name) == std::set<std::string>{"failure", "no_failure"});
  CHECK(names(Category::Unknown, category_name) ==
        std::set<std::string>{"oom", "shape", "import", "nccl", "unknown"});
  CHECK(names(RuleRole::Teardown, role_name) == std::set<std::string>{"cause", "symptom", "context", "teardown"});
  CHECK(names(ChainKind::Context, chain_kind_name) == std::set<std::string>{"", "cause", "context"});
}

TEST_CASE("report: names match their values, not just the set") {
  CHECK(std::string(check_status_name(CheckStatus::Failed)) == "failed");
  CHECK(std::string(time_basis_name(TimeBasis::Bounded)) == "bounded");
  CHECK(std::string(basis_name(Basis::NcclFallback)) == "nccl-fallback");
  CHECK(std::string(basis_name(Basis::External)).empty());
  CHECK(std::string(verdict_name(Verdict::NoFailure)) == "no_failure");
  CHECK(std::string(role_name(RuleRole::Symptom)) == "symptom");
  CHECK(std::string(chain_kind_name(ChainKind::Cause)) == "cause");
}

TEST_CASE("report: advice is marked as advice, carries the advice id and is never decided") {
  CheckResult a = advice_check("Resubmit from the last checkpoint.", "runbook");
  CHECK(a.advice);
  CHECK(a.id == kAdviceCheckId);
  CHECK(a.status == CheckStatus::Unknown);
  CHECK(a.detail == "runbook");
  CHECK_FALSE(CheckResult{}.advice);
}

TEST_CASE("report: defaults say nothing was decided") {
  Report r;
  CHECK(r.verdict == Verdict::NoFailure);
  RootCauseReport rc;
  CHECK(rc.category == Category::Unknown);
  CHECK(rc.time_basis == TimeBasis::None);
  CHECK(rc.basis == Basis::External);
}
}
