#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "render/render.h"

using namespace megatriage;

namespace {

// A report whose every log-borne text is markup that would close the data blocks or run.
Report hostile_report() {
  Report r;
  r.verdict = Verdict::Failure;
  RootCauseReport rc;
  rc.rule = "python.unclassified-exception";
  rc.title = "t";
  rc.failure_name = "ValueError";
  rc.file = "logs/<img src=x onerror=alert(1)>.err";
  rc.line = 2;
  rc.rank = 1;
  rc.exception = "ValueError: </script><script>alert(1)</script><!--";
  rc.headline = "<b>headline</b>";
  rc.context = {{1, "before </script>"}, {2, rc.exception}, {3, "after <svg onload=x>"}};
  rc.frames.push_back(Frame{"/ws/<script>.py", 3, "<module>", "main(\"</script>\")"});
  r.root_cause = rc;
  SymptomGroup g;
  g.rule = "nccl.watchdog-timeout";
  g.title = "watchdog";
  g.example = "</script><script>alert(2)</script>";
  g.first_file = "logs/</script>.err";
  g.ranks = {0};
  r.symptoms.push_back(g);
  r.files.push_back(FileSummary{rc.file, "none", 10, 10, 3, 1, 1, -1, -1, false});
  RankTimeline t;
  t.ranks = {0, 1};
  t.rank_hosts = {"</script>", ""};
  TimelineMark root;
  root.rank = 1;
  root.time_us = 1'000'000;
  root.time_basis = TimeBasis::Explicit;
  root.file = rc.file;
  root.line = 2;
  root.text = rc.exception;
  TimelineMark w;
  w.rank = 0;
  w.host = "</script>";
  w.group = 0;
  w.after_us = 2'000'000;
  w.before_us = 3'000'000;
  w.time_basis = TimeBasis::Bounded;
  w.file = g.first_file;
  w.text = g.example;
  t.marks = {root, w};
  r.rank_timeline = t;
  return r;
}

// The text of the <script type="application/json" id=ID> element: from after its start tag to
// the first `</script>`, which is where a browser ends it whatever the JSON says.
std::string data_block(const std::string& page, const std::string& id) {
  const std::string open = "<script type=\"application/json\" id=\"" + id + "\">";
  const std::size_t at = page.find(open);
  if (at == std::string::npos) return {};
  const std::size_t from = at + open.size();
  return page.substr(from, page.find("</script>", from) - from);
}

// A mark's text as the page's script (textOf) rebuilds it: its shape, each U+E000 replaced by the
// next of its digit runs; no runs: the shape as it is.
std::string mark_text(const nlohmann::json& timeline, const nlohmann::json& mark) {
  const std::string shape = timeline["shapes"][mark[10].get<std::size_t>()];
  const std::string digits = mark[11];
  const std::string placeholder = "\xee\x80\x80";
  if (digits.empty()) return shape;
  std::string out;
  std::size_t from = 0, run = 0;
  for (std::size_t at = shape.find(placeholder); at != std::string::npos; at = shape.find(placeholder, from)) {
    out += shape.substr(from, at - from);
    const std::size_t end = digits.find(' ', run);
    out += digits.substr(run, end == std::string::npos ? std::string::npos : end - run);
    run = end == std::string::npos ? digits.size() : end + 1;
    from = at + placeholder.size();
  }
  return out + shape.substr(from);
}

}  // namespace

TEST_SUITE("render_html") {
TEST_CASE("render_html: the embedded JSON report is render_json's, whole, whatever the logs hold") {
  const Report r = hostile_report();
  const std::string page = render_html(r);
  nlohmann::json embedded;
  REQUIRE_NOTHROW(embedded = nlohmann::json::parse(data_block(page, "megatriage-report")));
  CHECK(embedded == nlohmann::json::parse(render_json(r)));
}

TEST_CASE("render_html: the timeline data is whole JSON with the report's marks") {
  const std::string page = render_html(hostile_report());
  nlohmann::json t;
  REQUIRE_NOTHROW(t = nlohmann::json::parse(data_block(page, "megatriage-timeline")));
  CHECK(t["ranks"] == nlohmann::json::parse(R"([[0,0],[1,-1]])"));
  CHECK(t["hosts"] == nlohmann::json::parse(R"(["</script>"])"));
  REQUIRE(t["marks"].size() == 2);
  // The root's time is 0; the other mark's bounds are relative to it, in milliseconds.
  const nlohmann::json& root = t["marks"][0];
  CHECK(root[0] == 1);      // rank
  CHECK(root[2] == -1);     // the root's group
  CHECK(root[4] == "e");    // explicit stamp...
  CHECK(root[5] == 0);      // ... at 0 ms, the origin
  CHECK(t["files"][root[8].get<std::size_t>()] == "logs/<img src=x onerror=alert(1)>.err");
  CHECK(root[9] == 2);
  CHECK(mark_text(t, root) == "ValueError: </script><script>alert(1)</script><!--");
  CHECK(root[11] == "1");
  CHECK(mark_text(t, t["marks"][1]) == "</script><script>alert(2)</script>");
  CHECK(t["marks"][1][4] == "b");
  CHECK(t["marks"][1][6] == 1000);
  CHECK(t["marks"][1][7] == 2000);
  CHECK(t["groups"][0]["rule"] == "nccl.watchdog-timeout");
}

TEST_CASE("render_html: a mark's text comes back whole from its shape and digit runs") {
  Report r = hostile_report();
  const std::string tricky[] = {"rank 12 of 1024 at 07:14:20.082863664 seq=0053", "no digits at all", "",
                                "42", "7 leading and trailing 8", "holds the mark \xee\x80\x80 itself 3",
                                "[Rank 1] timeout at 07:14:20", "[Rank 517] timeout at 08:00:01"};
  r.rank_timeline->marks.resize(1);
  for (const std::string& text : tricky) {
    TimelineMark m = r.rank_timeline->marks.front();
    m.text = text;
    r.rank_timeline->marks.push_back(m);
  }
  nlohmann::json t = nlohmann::json::parse(data_block(render_html(r), "megatriage-timeline"));
  REQUIRE(t["marks"].size() == 1 + std::size(tricky));
  for (std::size_t i = 0; i < std::size(tricky); ++i) CHECK(mark_text(t, t["marks"][i + 1]) == tricky[i]);
  // Lines of one kind share a shape.
  const std::size_t n = t["marks"].size();
  CHECK(t["marks"][n - 1][10] == t["marks"][n - 2][10]);
  CHECK(t["shapes"].size() == 1 + std::size(tricky) - 1);  // the root's, and one per text but the shared
}

TEST_CASE("render_html: log markup never opens an element: only the page's own scripts and no foreign tags") {
  const std::string page = render_html(hostile_report());
  std::size_t scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++scripts;
  CHECK(scripts == 3);
  for (const char* tag : {"<img", "<svg", "<b>", "<!--"}) CHECK_MESSAGE(page.find(tag) == std::string::npos, tag);
}

TEST_CASE("render_html: a report without a failure or a timeline still makes a page") {
  Report r;
  const std::string page = render_html(r);
  nlohmann::json t = nlohmann::json::parse(data_block(page, "megatriage-timeline"));
  CHECK(t["marks"].empty());
  CHECK(t["root"].is_null());
  CHECK(nlohmann::json::parse(data_block(page, "megatriage-report"))["verdict"] == "no_failure");
}
}
