#include "input/own_report.h"

#include <doctest/doctest.h>

#include <string>

#include "model/report.h"
#include "render/render.h"

namespace megatriage {
namespace {

TEST_SUITE("own_report") {
  TEST_CASE("own_report: every report megatriage writes is recognised from its first bytes") {
    Report none;
    CHECK(own_report_kind(render_json(none)) == OwnReportKind::Json);
    CHECK(own_report_kind(render_text(none, TextStyle{})) == OwnReportKind::Text);
    CHECK(own_report_kind(render_text(none, TextStyle{true, 100})) == OwnReportKind::Text);  // coloured
    Report failed;
    failed.verdict = Verdict::Failure;
    failed.root_cause.emplace();
    CHECK(own_report_kind(render_text(failed, TextStyle{})) == OwnReportKind::Text);
    CHECK(own_report_kind(render_text(failed, TextStyle{true, 100})) == OwnReportKind::Text);
    CHECK(own_report_kind(render_json(failed)) == OwnReportKind::Json);
    const std::vector<const Report*> both{&failed, &none};
    CHECK(own_report_kind(render_json_jobs(both)) == OwnReportKind::Json);
    CHECK(own_report_kind(render_text_jobs(both, TextStyle{})) == OwnReportKind::Text);
    // A partial report (megatriage partial): format first (app/partial_report_test.cc writes one).
    CHECK(own_report_kind(R"({"format":"megatriage-partial","version":1,"megatriage_version":"0.1.0")") ==
          OwnReportKind::Json);
    CHECK(own_report_kind(R"({"format":"other","version":1})") == OwnReportKind::None);
    // Only the first 4 KiB are looked at: a cut head still tells.
    CHECK(own_report_kind(render_json(failed).substr(0, 40)) == OwnReportKind::Json);
  }

  TEST_CASE("own_report: reports of schema versions 1 and 2 are both recognised") {
    // Version 1 reports (before typed facts) are still in users' log folders.
    for (const char* head : {
             "{\n  \"schema_version\": 1,\n  \"verdict\": \"failure\",\n  \"root_cause\": {",
             "{\n  \"schema_version\": 2,\n  \"verdict\": \"failure\",\n  \"megatriage_version\": \"0.1.0\",",
             "{\n  \"schema_version\": 1,\n  \"jobs\": [\n    {",
             "{\n  \"schema_version\": 2,\n  \"jobs\": [\n    {",
         }) {
      CAPTURE(head);
      CHECK(own_report_kind(head) == OwnReportKind::Json);
    }
    CHECK(render_json(Report{}).starts_with("{\n  \"schema_version\": 2,\n  \"verdict\""));
  }

  TEST_CASE("own_report: logs that look a little like a report are logs") {
    for (const char* head : {
             "",
             "{\"schema_version\": 1, \"loss\": 2.3}\n",              // a JSON-lines training log
             "{\"verdict\": \"failure\"}\n",
             "{\"step\": 10, \"schema_version\": 1, \"verdict\": 1}\n",
             "megatriage: error: path 'logs' does not exist\n",
             "megatriage postmortem: job 25 not found\n",
             "[rank0]: megatriage: FAILURE\n",
             "INFO megatriage: no failure found in 2 file(s)\n",
             "Traceback (most recent call last):\n",
         }) {
      CAPTURE(head);
      CHECK(own_report_kind(head) == OwnReportKind::None);
    }
  }
}

}  // namespace
}  // namespace megatriage
