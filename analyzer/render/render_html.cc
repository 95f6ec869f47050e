// `--format html`: the report as one self-contained page. The summary (verdict, root cause, its
// log lines, checks, symptom groups, files, diagnostics) is HTML written here, so it reads with
// scripts off; the rank timeline is drawn in the browser by html/report.js from a small JSON
// block (`megatriage-timeline`), as a 1,000-rank picture is cheaper to send as data than as
// markup. The JSON report itself is embedded unchanged (`megatriage-report`) for tools.
// Every text that came from a log goes through html_text() or json_string() (html_escape.h).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "base/diagnostics.h"
#include "base/text_util.h"
#include "decide/classify.h"
#include "extract/timestamp.h"
#include "render/html_assets.h"
#include "render/html_escape.h"
#include "render/render.h"
#include "slurm/slurm_job.h"

namespace megatriage {
namespace {

// The page's Content-Security-Policy. It asks for nothing outside itself, so it opens the same
// offline and no request can leave it; and the only script allowed to run is the page's own, by
// its hash, so even markup that slipped through escaping could not run one (escaping is the first
// guard, this the second).
std::string content_policy() {
  static constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (std::size_t i = 0; i + 1 < kReportJsSha256Hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(std::string(kReportJsSha256Hex.substr(i, 2)), nullptr, 16));
  std::string hash;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k)
      v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) hash += k <= n ? kBase64[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" + hash + "'";
}

// Files listed in the page's table; the embedded JSON report lists them all. A 1,000-rank job
// has thousands of files, and the page must stay small (README: about 2 MB for 1,024 ranks).
constexpr std::size_t kFilesShown = 200;

std::string num(std::uint64_t n) { return std::to_string(n); }

// 1234567 -> 1,234,567: sizes and counts read at a glance.
std::string grouped(std::uint64_t n) {
  std::string s = std::to_string(n), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// What the verdict line calls the failure: as the text report does.
std::string failure_label(const RootCauseReport& r) {
  if (!r.failure_name.empty()) return r.failure_name;
  return r.category == Category::Nccl ? "NCCL" : upper(category_name(r.category));
}

std::string delay_words(std::int64_t us) {
  const double s = static_cast<double>(us) / 1e6;
  char buf[48];
  if (s > -0.5 && s < 0.5) return "same second as the root";
  std::snprintf(buf, sizeof buf, "%.0f s %s the root", s < 0 ? -s : s, s < 0 ? "before" : "after");
  return buf;
}

std::string time_words(const RootCauseReport& r) {
  std::string when;
  switch (r.time_basis) {
    case TimeBasis::Explicit: when = format_iso(*r.time_us); break;
    case TimeBasis::Bounded:
      when = "before " + format_iso(*r.before_us);
      if (r.after_us) when += ", after " + format_iso(*r.after_us);
      break;
    case TimeBasis::Inherited: when = "after " + format_iso(*r.after_us) + " (last stamp before it)"; break;
    case TimeBasis::None: when = "unknown (no timestamp in its stream)"; break;
  }
  if (r.year_inferred) when += " [year inferred]";
  return when;
}

class Page {
 public:
  std::string& out() { return out_; }
  Page& raw(std::string_view s) {
    out_ += s;
    return *this;
  }
  Page& text(std::string_view s) {
    out_ += html_text(s);
    return *this;
  }
  // <tag class="cls">text</tag>, text escaped.
  Page& el(const char* tag, const char* cls, std::string_view s) {
    out_ += '<';
    out_ += tag;
    if (cls && *cls) {
      out_ += " class=\"";
      out_ += cls;
      out_ += '"';
    }
    out_ += '>';
    text(s);
    out_ += "</";
    out_ += tag;
    out_ += '>';
    return *this;
  }
  Page& row(std::initializer_list<std::string_view> cells) {
    out_ += "<tr>";
    for (std::string_view c : cells) el("td", "", c);
    out_ += "</tr>\n";
    return *this;
  }
  Page& dt(std::string_view term, std::string_view value) {
    el("dt", "", term);
    el("dd", "", value);
    out_ += '\n';
    return *this;
  }

 private:
  std::string out_;
};

void header(Page& p, const Report& report) {
  const std::string title =
      report.root_cause ? "FAILURE — " + failure_label(*report.root_cause) : std::string("no failure found");
  p.raw("<header class=\"verdict ").raw(report.root_cause ? "failure" : "ok").raw("\">\n");
  p.el("p", "tool", "megatriage");
  p.el("h1", "", title);
  if (report.root_cause) p.el("p", "headline", report.root_cause->headline);
  for (const Diagnostic& d : report.diagnostics)
    if (d.code == "discover.several-jobs") p.el("p", "job-choice", d.message + " (" + d.hint + ")");
  p.raw("</header>\n");
}

void context_lines(Page& p, const RootCauseReport& r) {
  p.raw("<h3>The log around it</h3>\n");
  if (r.context.empty()) {
    // The lines are read back after the scan (app/root_context.h): standard input cannot be read
    // twice, and a file that changed or vanished since has no lines to give.
    p.el("p", "note", "The lines around line " + num(r.line) + " of " + r.file +
                          " could not be read back (standard input, or a file that changed since the scan).");
    return;
  }
  p.raw("<pre class=\"context\" id=\"root-context\">");
  for (const ContextLine& c : r.context) {
    const bool root = c.line == r.line;
    p.raw(root ? "<span class=\"cl root-line\" id=\"root-line\">" : "<span class=\"cl\">");
    // Each line a block of its own (the root's is highlighted whole), so no newline between them.
    p.el("span", "ln", num(c.line)).text(c.text).raw("</span>");
  }
  p.raw("</pre>\n");
}

void root_cause(Page& p, const RootCauseReport& r) {
  p.raw("<section id=\"root-cause\">\n<h2>Root cause</h2>\n");
  p.raw("<p class=\"tags\">");
  p.el("span", "tag", category_name(r.category)).raw(" ");
  p.el("span", "tag", r.rule).raw(" ");
  p.el("span", std::string("tag conf-").append(confidence_name(r.confidence)).c_str(),
       std::string("confidence ") + confidence_name(r.confidence));
  p.raw("</p>\n");
  p.el("pre", "exception", r.exception);
  p.raw("<dl class=\"facts\">\n");
  if (!r.file.empty()) p.dt("where", r.file + ":" + num(r.line));
  p.dt("rank", (r.rank >= 0 ? std::to_string(r.rank) : std::string("unknown")) + " (known from: " +
                   rank_basis_name(r.rank_basis) + ")");
  if (r.local_rank >= 0) p.dt("local rank", std::to_string(r.local_rank));
  if (r.task >= 0) p.dt("SLURM task", std::to_string(r.task));
  p.dt("host", r.host.empty() ? std::string("unknown") : r.host);
  p.dt("time", time_words(r));
  if (r.same_failure_ranks.size() > 1)
    p.dt("same failure", std::string(r.every_rank ? "every rank: " : "") + num(r.same_failure_ranks.size()) +
                             " ranks (" + compact_ranks(r.same_failure_ranks) + ")");
  if (r.tied_events > 0)
    p.dt("tied", num(r.tied_events) + " other failure(s) the logs cannot order against it" +
                     (r.tied_ranks.empty() ? std::string() : " (ranks " + compact_ranks(r.tied_ranks) + ")"));
  p.raw("</dl>\n");
  if (!r.explain.empty()) p.el("p", "explain", r.explain);
  if (!r.file.empty() && r.line > 0) context_lines(p, r);
  if (!r.frames.empty()) {
    p.raw("<h3>Innermost frames</h3>\n<ol class=\"frames\">\n");
    for (const Frame& f : r.frames) {
      p.raw("<li>");
      p.el("code", "where", f.path + ":" + num(f.line)).raw(" ");
      if (!f.function.empty()) p.text("in ").el("code", "", f.function);
      if (!f.source.empty()) p.el("pre", "source", f.source);
      p.raw("</li>\n");
    }
    p.raw("</ol>\n");
  }
  if (r.chain.size() > 1 || (r.chain.size() == 1 && r.chain[0] != r.exception)) {
    p.raw("<h3>Exception chain (oldest first)</h3>\n<ol class=\"chain\">\n");
    for (const std::string& c : r.chain) p.el("li", "", c);
    p.raw("</ol>\n");
  }
  p.raw("</section>\n");
}

void checks(Page& p, const RootCauseReport& r) {
  if (r.checks.empty()) return;
  p.raw("<section id=\"checks\">\n<h2>Checks</h2>\n<table class=\"checks\">\n");
  p.raw("<thead><tr><th>status</th><th>check</th><th>figures</th></tr></thead><tbody>\n");
  for (const CheckResult& c : r.checks) {
    if (c.advice) continue;
    const char* status = check_status_name(c.status);
    p.raw("<tr data-check=\"").text(c.id).raw("\">");
    p.raw("<td>").el("span", (std::string("status ") + status).c_str(), status).raw("</td>");
    p.el("td", "", c.text).el("td", "", c.detail).raw("</tr>\n");
  }
  p.raw("</tbody></table>\n");
  bool any_advice = false;
  for (const CheckResult& c : r.checks) {
    if (!c.advice) continue;
    if (!any_advice) p.raw("<h3>Runbook advice</h3>\n<ol class=\"advice\">\n");
    any_advice = true;
    p.el("li", "", c.text).raw("\n");
  }
  if (any_advice) p.raw("</ol>\n");
  p.raw("</section>\n");
}

void symptoms(Page& p, const Report& report) {
  if (report.symptoms.empty()) return;
  p.raw("<section id=\"symptoms\">\n<h2>").text(report.root_cause ? "What followed" : "Noise seen").raw("</h2>\n");
  p.raw("<table class=\"symptoms\">\n<thead><tr><th>group</th><th>role</th><th>events</th><th>ranks</th>"
        "<th>hosts</th><th>first</th><th>first at</th></tr></thead><tbody>\n");
  for (const SymptomGroup& g : report.symptoms) {
    std::string hosts = g.hosts.size() <= 3 ? std::string() : num(g.hosts.size()) + " hosts";
    for (std::size_t i = 0; g.hosts.size() <= 3 && i < g.hosts.size(); ++i) hosts += (i ? ", " : "") + g.hosts[i];
    std::string first = g.delay_us ? delay_words(*g.delay_us) : g.first_us ? format_iso(*g.first_us) : "";
    p.raw("<tr data-rule=\"").text(g.rule).raw("\"><td>");
    p.text(g.title).raw("<br>").el("code", "", g.rule);
    if (g.same_as_root) p.raw(" ").el("span", "tag", "same as the root");
    p.raw("</td>");
    p.el("td", "", role_name(g.role)).el("td", "num", grouped(g.count)).el("td", "", compact_ranks(g.ranks));
    p.el("td", "", hosts).el("td", "", first);
    p.raw("<td>").el("code", "", g.first_file + ":" + num(g.first_line)).el("pre", "example", g.example);
    p.raw("</td></tr>\n");
  }
  p.raw("</tbody></table>\n</section>\n");
}

void reasons(Page& p, const Report& report) {
  if (!report.root_cause || report.root_cause->reasons.empty()) return;
  p.raw("<section id=\"why\">\n<h2>Why this one</h2>\n<ul>\n");
  for (const std::string& r : report.root_cause->reasons) p.el("li", "", r).raw("\n");
  p.el("li", "", "ordering: " + report.ordering).raw("\n</ul>\n</section>\n");
}

void slurm(Page& p, const SlurmJobInfo& s) {
  p.raw("<section id=\"slurm\">\n<h2>SLURM</h2>\n<dl class=\"facts\">\n");
  p.dt("job", s.job_id + (s.name.empty() ? "" : " (" + s.name + ")"));
  if (!s.user.empty()) p.dt("user", s.user);
  if (!s.node_list.empty()) p.dt("nodes", s.node_list);
  p.dt("state", s.state + (s.cancelled_by >= 0 ? " by uid " + std::to_string(s.cancelled_by) : ""));
  p.dt("exit code", describe_exit_code(s.exit_code));
  p.dt("elapsed", (s.elapsed.empty() ? "?" : s.elapsed) + " of limit " + (s.time_limit.empty() ? "?" : s.time_limit));
  for (const SlurmStep& st : s.steps) p.dt("step " + st.id, st.state + " " + st.exit_code);
  p.raw("</dl>\n</section>\n");
}

void files(Page& p, const Report& report) {
  p.raw("<section id=\"files\">\n<h2>Files (").raw(grouped(report.files.size())).raw(")</h2>\n");
  p.raw("<table class=\"files\">\n<thead><tr><th>path</th><th>compression</th><th>bytes</th><th>lines</th>"
        "<th>events</th><th>rank</th><th></th></tr></thead><tbody>\n");
  for (std::size_t i = 0; i < report.files.size() && i < kFilesShown; ++i) {
    const FileSummary& f = report.files[i];
    p.raw("<tr>").el("td", "path", f.path).el("td", "", f.compression).el("td", "num", grouped(f.bytes));
    p.el("td", "num", grouped(f.lines)).el("td", "num", grouped(f.events));
    p.el("td", "num", f.rank >= 0 ? std::to_string(f.rank) : "").el("td", "", f.skipped ? "skipped" : "");
    p.raw("</tr>\n");
  }
  p.raw("</tbody></table>\n");
  if (report.files.size() > kFilesShown)
    p.el("p", "note", "The first " + num(kFilesShown) + " of " + grouped(report.files.size()) +
                          " files; the JSON report embedded in this page lists them all (files).");
  p.raw("</section>\n");
}

// Folded by code as the text report folds them: one row per code, the first as example.
void diagnostics(Page& p, const Report& report) {
  p.raw("<section id=\"diagnostics\">\n<h2>Diagnostics (").raw(grouped(report.diagnostics.size())).raw(")</h2>\n");
  if (report.diagnostics.empty()) {
    p.el("p", "note", "No problem with the input.").raw("</section>\n");
    return;
  }
  p.raw("<table class=\"diagnostics\">\n<thead><tr><th>severity</th><th>code</th><th>count</th><th>message</th>"
        "<th>where</th><th>hint</th></tr></thead><tbody>\n");
  for (const DiagnosticGroup& g : group_diagnostics_by_code(report.diagnostics)) {
    const Diagnostic& d = *g.items.front();
    std::string where;
    std::size_t named = 0;
    for (const Diagnostic* item : g.items) {
      if (item->path.empty()) continue;
      if (named == 3) {
        where += " and " + num(g.paths - named) + " more";
        break;
      }
      where += (named++ ? ", " : "") + item->path + (item->line ? ":" + num(item->line) : "");
    }
    const char* severity = severity_name(g.severity);
    p.raw("<tr><td>").el("span", (std::string("sev ") + severity).c_str(), severity).raw("</td>");
    p.el("td", "", std::string(g.code)).el("td", "num", grouped(g.occurrences)).el("td", "", d.message);
    p.el("td", "", where).el("td", "", d.hint).raw("</tr>\n");
  }
  p.raw("</tbody></table>\n</section>\n");
}

// ---- the timeline's data (drawn by html/report.js)

std::string opt_ms(std::optional<std::int64_t> us, std::int64_t origin_us) {
  if (!us) return "null";
  return std::to_string((*us - origin_us) / 1000);
}

char basis_code(TimeBasis b) {
  switch (b) {
    case TimeBasis::Explicit: return 'e';
    case TimeBasis::Bounded: return 'b';
    case TimeBasis::Inherited: return 'i';
    case TimeBasis::None: return 'n';
  }
  return 'n';
}

// The log lines of one kind of event differ mostly in their numbers (stamps, ranks, sequence
// numbers), so each mark's text is sent as a shape shared by every mark with the same one, the
// digit runs cut out and replaced by kDigitsMark, plus its own digit runs: a 1,024-rank job's
// 5,000 watchdog lines become a few dozen shapes, and its page about half the size. A text that
// holds kDigitsMark itself (U+E000, private use) is sent whole, as a shape with no digits.
constexpr std::string_view kDigitsMark = "\xee\x80\x80";

struct ShapedText {
  std::string shape;   // printable text, each digit run replaced by kDigitsMark
  std::string digits;  // the runs, separated by spaces
};

ShapedText shape_of(std::string_view text) {
  ShapedText out;
  const std::string shown = printable(text);
  if (shown.find(kDigitsMark) != std::string::npos) {
    out.shape = shown;
    return out;
  }
  for (std::size_t i = 0; i < shown.size();) {
    if (shown[i] < '0' || shown[i] > '9') {
      out.shape += shown[i++];
      continue;
    }
    if (!out.digits.empty()) out.digits += ' ';
    while (i < shown.size() && shown[i] >= '0' && shown[i] <= '9') out.digits += shown[i++];
    out.shape += kDigitsMark;
  }
  return out;
}

// Where a mark sits when it must be one point: its stamp, else the bound that orders it.
std::optional<std::int64_t> point_of(const TimelineMark& m) {
  if (m.time_us) return m.time_us;
  if (m.before_us) return m.before_us;
  return m.after_us;
}

// The format (also in html/report.js): times in milliseconds from `origin_us` (the root's time,
// else the earliest mark's); a mark is [rank, host, group, count, basis, time, after, before,
// file, line, shape, digits], host and file indexes into `hosts` and `files` (-1: none), group an index
// into `groups` (-1: the root), basis e|b|i|n (explicit, bounded, inherited, none), and the text
// as an index into `shapes` plus its digit runs (shape_of).
std::string timeline_json(const Report& report, const RankTimeline& t) {
  std::optional<std::int64_t> origin;
  for (const TimelineMark& m : t.marks)
    if (m.group == TimelineMark::kRoot) origin = point_of(m);
  if (!origin)
    for (const TimelineMark& m : t.marks)
      if (auto at = point_of(m); at && (!origin || *at < *origin)) origin = at;
  const std::int64_t o = origin.value_or(0);

  std::vector<std::string> hosts, files, shapes;
  std::map<std::string, long> host_ids, file_ids, shape_ids;
  auto id_of = [](std::map<std::string, long>& ids, std::vector<std::string>& table, const std::string& s) -> long {
    if (s.empty()) return -1;
    auto [it, added] = ids.emplace(s, static_cast<long>(table.size()));
    if (added) table.push_back(s);
    return it->second;
  };
  std::string ranks = "[";
  for (std::size_t i = 0; i < t.ranks.size(); ++i) {
    if (i) ranks += ',';
    ranks += '[' + std::to_string(t.ranks[i]) + ',' + std::to_string(id_of(host_ids, hosts, t.rank_hosts[i])) + ']';
  }
  ranks += ']';
  std::string marks = "[";
  for (std::size_t i = 0; i < t.marks.size(); ++i) {
    const TimelineMark& m = t.marks[i];
    if (i) marks += ",\n";
    marks += '[' + std::to_string(m.rank) + ',' + std::to_string(id_of(host_ids, hosts, m.host)) + ',' +
             std::to_string(m.group) + ',' + std::to_string(m.count) + ",\"" + basis_code(m.time_basis) + "\"," +
             opt_ms(m.time_us, o) + ',' + opt_ms(m.after_us, o) + ',' + opt_ms(m.before_us, o) + ',' +
             std::to_string(id_of(file_ids, files, m.file)) + ',' + std::to_string(m.line) + ',';
    ShapedText text = shape_of(m.text);
    auto [at, added] = shape_ids.emplace(text.shape, static_cast<long>(shapes.size()));
    if (added) shapes.push_back(text.shape);
    marks += std::to_string(at->second) + ",\"" + text.digits + "\"]";
  }
  marks += ']';
  std::string groups = "[";
  for (std::size_t i = 0; i < report.symptoms.size(); ++i) {
    const SymptomGroup& g = report.symptoms[i];
    if (i) groups += ",\n";
    groups += "{\"title\":" + json_string(g.title) + ",\"rule\":" + json_string(g.rule) + ",\"role\":\"" +
              role_name(g.role) + "\",\"count\":" + std::to_string(g.count) + ",\"ranks\":" +
              std::to_string(g.ranks.size()) + ",\"same_as_root\":" + (g.same_as_root ? "true" : "false") +
              ",\"first\":" + opt_ms(g.first_us, o) + ",\"last\":" + opt_ms(g.last_us, o) +
              ",\"delay\":" + (g.delay_us ? std::to_string(*g.delay_us / 1000) : std::string("null")) + '}';
  }
  groups += ']';
  auto table = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + json_string(v[i]);
    return s + ']';
  };
  std::string root = "null";
  if (report.root_cause) root = "{\"title\":" + json_string(failure_label(*report.root_cause)) + '}';
  return "{\"version\":1,\"origin\":" + (origin ? json_string(format_iso(o)) : std::string("null")) +
         ",\n\"root\":" + root + ",\n\"hosts\":" + table(hosts) + ",\n\"files\":" + table(files) + ",\n\"shapes\":" + table(shapes) +
         ",\n\"ranks\":" + ranks + ",\n\"groups\":" + groups + ",\n\"marks\":" + marks + "}";
}

}  // namespace

std::string render_html(const Report& report) {
  Page p;
  const std::string title = report.root_cause ? "megatriage: FAILURE — " + failure_label(*report.root_cause)
                                              : std::string("megatriage: no failure found");
  p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  p.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"").raw(content_policy()).raw("\">\n");
  p.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
  p.el("title", "", title).raw("\n<style>\n").raw(kReportCss).raw("</style>\n</head>\n<body>\n");
  header(p, report);
  p.raw("<main>\n");
  if (report.root_cause) root_cause(p, *report.root_cause);
  if (report.slurm) slurm(p, *report.slurm);
  if (report.root_cause) checks(p, *report.root_cause);
  p.raw("<section id=\"timeline-section\">\n<h2>Rank timeline</h2>\n");
  p.raw("<div id=\"timeline\" class=\"tl\"><p class=\"note\">The timeline is drawn by this page's script; "
        "it needs JavaScript.</p></div>\n<div id=\"tl-detail\" class=\"detail\" hidden></div>\n</section>\n");
  symptoms(p, report);
  reasons(p, report);
  files(p, report);
  diagnostics(p, report);
  p.raw("</main>\n<footer>");
  p.text(grouped(report.files.size()) + " file(s) read, " + grouped(report.rule_count) + " rules");
  p.raw("</footer>\n");
  p.raw("<script type=\"application/json\" id=\"megatriage-report\">\n")
      .raw(json_for_script(render_json(report)))
      .raw("</script>\n");
  p.raw("<script type=\"application/json\" id=\"megatriage-timeline\">\n")
      .raw(timeline_json(report, report.rank_timeline ? *report.rank_timeline : RankTimeline{}))
      .raw("</script>\n<script>")  // the element's text is kReportJs exactly: the CSP's hash is of it
      .raw(kReportJs)
      .raw("</script>\n</body>\n</html>\n");
  return std::move(p.out());
}

}  // namespace megatriage
