// Read stage helper: is this file one of megatriage's own reports? `postmortem` writes
// megatriage-<jobid>.json into the log folder and people save text reports beside the logs;
// read back as logs they would add our own words to the next report. Decided from the first
// bytes that every read looks at anyway (LineSearcher's head), never from the name alone and
// never by reading more.
#pragma once

#include <string_view>

namespace megatriage {

enum class OwnReportKind { None, Json, Text };

const char* own_report_kind_name(OwnReportKind k);

/// Whether `head` (a file's first bytes) starts a megatriage report: the JSON report or the
/// `--all-jobs` envelope (`{"schema_version": N,` then `"verdict"` or `"jobs"`), a partial report
/// (`{"format": "megatriage-partial"`, app/partial_report.h), or the text
/// report's first line (`megatriage: FAILURE`, `megatriage: no failure found`,
/// `megatriage: N job(s) in the logs`), coloured or not. Looks at the first line only.
OwnReportKind own_report_kind(std::string_view head);

}  // namespace megatriage
