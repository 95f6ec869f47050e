// The root cause's one-line summary and the name the verdict line gives the failure, with the
// figures that tell this failure from another (`No module named 'wandb' on rank 1`). Texts come
// from the rule's data (`headline`, `title`); this file only says who failed and where the
// figures go. OOM and hang headlines are composed with their checks (decide/checks.cc).
#pragma once

#include <string>
#include <vector>

#include "match/rules.h"
#include "model/report.h"

namespace megatriage {

/// Sets `r.failure_name` (the verdict line's `FAILURE — <name>`: the category for the known
/// ones, else the rule's title, or the exception's class for a traceback no specific rule
/// knows) and `r.same_failure_ranks` (every rank that failed as the root did, the root's
/// included: a symptom group of the root's rule with one event per rank, marked
/// `same_as_root`; for a catch-all rule only one event with the very same exception line), and, when checks left it empty, `r.headline`: the rule's
/// `headline` template (else its title, or the exception line for a catch-all), then who: "on
/// rank N", "on every rank" when every rank the job named failed alike, nothing for a job-wide
/// end (time limit, cancel) or an unknown rank. `rule` is the root's rule (null: none matched).
void compose_headline(RootCauseReport& r, const Rule* rule, std::vector<SymptomGroup>& symptoms,
                      const std::vector<int>& job_ranks);

/// The class of a Python exception line (`ValueError` of `ValueError: bad`, the last dotted
/// part of `torch.distributed.DistBackendError: ...`); empty when the line names none.
std::string exception_class(const std::string& exception_line);

}  // namespace megatriage
