// Runbook checks as data: which checks a root cause gets is the `runbook_checks` table
// (rules/checks.json; a site's --rules directory adds, rewords, reorders by id or turns off
// entries without a rebuild). This file applies the table: each entry whose `when` holds for the
// root is evaluated (check_evaluators.h), in table order. It also gives every check of a report a
// unique id.
#pragma once

#include <vector>

#include "decide/check_evaluators.h"
#include "match/knowledge_tables.h"
#include "model/report.h"

namespace megatriage {

/// True when every part of `c` holds for `root`, leaving its `decided` part aside (that one
/// needs the evaluation: run_check_table applies it).
bool condition_holds(const CheckCondition& c, const RootCauseReport& root);

/// The checks of `table` that apply to the scene's root, evaluated, in table order. An entry
/// applies where one of its conditions holds; where only `decided` ones hold, it is kept only
/// when its evaluation is not `unknown` (a figure the logs do give, not one more "?" row).
std::vector<CheckResult> run_check_table(const std::vector<RunbookCheckEntry>& table, const CheckScene& scene);

/// Makes every id in `checks` unique: the rule's advice is numbered `advice.1`, `advice.2`, ...
/// in the order shown, and a repeated id (the same lint finding on two lines or in two
/// scripts) gets `.2`, `.3`, ... from its second occurrence on. Idempotent.
void give_checks_unique_ids(std::vector<CheckResult>& checks);

}  // namespace megatriage
