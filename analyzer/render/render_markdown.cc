// `--format markdown`: the report short enough for a CI job summary ($GITHUB_STEP_SUMMARY), a
// GitLab merge-request note or a chat message: the verdict, the root cause as a table, the
// checks with their status, the symptom groups. At most kMaxMarkdownLines lines whatever the job: long
// lists are cut and say how many rows were left out; the JSON report has everything.
#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "base/text_util.h"
#include "base/version.h"
#include "decide/classify.h"
#include "extract/timestamp.h"
#include "render/render.h"

namespace megatriage {
namespace {

// Rows of each table, chosen so that the longest report stays within kMaxMarkdownLines (60):
// verdict and headline 4 lines, the root table 13, checks 3 + 13 + 6 (heading, table with its
// "more" row, advice), symptoms 3 + 13, closing 2: 57.
constexpr std::size_t kCheckRows = 10;
constexpr std::size_t kAdviceItems = 5;
constexpr std::size_t kSymptomRows = 10;
// Log text is cut to this many characters in a cell: a summary, not the log.
constexpr std::size_t kCellChars = 240;

// Text from a log or a rule, made inert in Markdown: one line, no terminal escapes, the
// characters that Markdown, GitHub's extensions or inline HTML act on escaped, so a log line can
// neither break the table nor inject a link, an image (a remote fetch) or markup.
std::string md(std::string_view s, std::size_t max_chars = kCellChars) {
  std::string one_line(s);
  std::replace(one_line.begin(), one_line.end(), '\n', ' ');
  std::replace(one_line.begin(), one_line.end(), '\r', ' ');
  std::string text = printable(one_line);
  std::string out;
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80 && ++chars > max_chars) {  // count characters, not UTF-8 bytes
      out += "…";
      break;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~': case '$': case '@':
        // Emphasis, code, links and images, table cells, strikethrough, math and @-mentions
        // (a log's `@torch.compile` must not ping someone in a merge-request note).
        out += '\\';
        out += static_cast<char>(c);
        break;
      case '\t': out += ' '; break;
      default: out += static_cast<char>(c);
    }
  }
  return out;
}

const char* status_mark(CheckStatus s) {
  switch (s) {
    case CheckStatus::Failed: return "❌ failed";
    case CheckStatus::Passed: return "✅ passed";
    case CheckStatus::Unknown: return "❔ unknown";
  }
  return "❔ unknown";
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string when(const RootCauseReport& r) {
  switch (r.time_basis) {
    case TimeBasis::Explicit: return format_iso(*r.time_us);
    case TimeBasis::Bounded:
      return "before " + format_iso(*r.before_us) + (r.after_us ? ", after " + format_iso(*r.after_us) : "");
    case TimeBasis::Inherited: return "after " + format_iso(*r.after_us);
    case TimeBasis::None: break;
  }
  return "";
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void root_table(std::string& out, const RootCauseReport& r) {
  auto row = [&](const char* key, const std::string& value) {
    if (!value.empty()) out += std::string("| ") + key + " | " + value + " |\n";
  };
  out += "| | |\n| --- | --- |\n";
  row("category", md(category_name(r.category)));
  row("rule", md(r.rule) + " — " + md(r.title));
  row("confidence", md(confidence_name(r.confidence)));
  row("where", md(r.file + ":" + std::to_string(r.line)));
  row("rank", r.rank >= 0 ? std::to_string(r.rank) + " (" + md(rank_basis_name(r.rank_basis)) + ")" : "unknown");
  if (r.same_failure_ranks.size() > 1)
    row("same failure", (r.every_rank ? "every rank: " : "ranks ") + md(compact_ranks(r.same_failure_ranks)));
  row("host", md(r.host));
  row("time", md(when(r)));
  row("exception", md(r.exception));
  row("explanation", md(r.explain));
  if (!r.frames.empty()) {
    const Frame& f = r.frames.back();  // innermost
    row("raised at", md(f.path + ":" + std::to_string(f.line) + (f.function.empty() ? "" : " in " + f.function)));
  }
}

void checks_section(std::string& out, const RootCauseReport& r) {
  std::vector<const CheckResult*> evaluated, advice;
  for (const CheckResult& c : r.checks) (c.advice ? advice : evaluated).push_back(&c);
  if (evaluated.empty() && advice.empty()) return;
  out += "\n### Checks\n\n";
  if (!evaluated.empty()) {
    // Failed first: they are what a reader of a summary acts on.
    std::stable_sort(evaluated.begin(), evaluated.end(), [](const CheckResult* a, const CheckResult* b) {
      return a->status == CheckStatus::Failed && b->status != CheckStatus::Failed;
    });
    out += "| status | check | detail |\n| --- | --- | --- |\n";
    for (std::size_t i = 0; i < evaluated.size() && i < kCheckRows; ++i)
      out += std::string("| ") + status_mark(evaluated[i]->status) + " | " + md(evaluated[i]->text) + " | " +
             md(evaluated[i]->detail) + " |\n";
    if (evaluated.size() > kCheckRows)
      out += "| | " + plural(evaluated.size() - kCheckRows, "more check", "more checks") + " in the JSON report | |\n";
  }
  if (!advice.empty()) {
    out += "\n";
    for (std::size_t i = 0; i < advice.size() && i < kAdviceItems; ++i)
      out += std::to_string(i + 1) + ". " + md(advice[i]->text) + "\n";
  }
}

std::string delay(const SymptomGroup& g) {
  if (!g.delay_us) return "";
  const long long s = static_cast<long long>(static_cast<double>(*g.delay_us) / 1e6 + (*g.delay_us < 0 ? -0.5 : 0.5));
  return std::to_string(s) + " s";
}

// An empty cell reads as a rendering fault: say that nothing is known.
std::string or_dash(std::string s) { return s.empty() ? "—" : s; }

void symptoms_section(std::string& out, const Report& report) {
  std::vector<const SymptomGroup*> groups;
  for (const SymptomGroup& g : report.symptoms)
    if (!g.same_as_root) groups.push_back(&g);  // said with the root, in the `same failure` row
  if (groups.empty()) return;
  out += report.root_cause ? "\n### What followed\n\n" : "\n### Noise seen\n\n";
  out += "| failure | role | count | ranks | after the root | first at |\n| --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < groups.size() && i < kSymptomRows; ++i) {
    const SymptomGroup& g = *groups[i];
    out += "| " + md(g.title) + " (" + md(g.rule) + ") | " + role_name(g.role) + " | " + std::to_string(g.count) +
           " | " + or_dash(md(compact_ranks(g.ranks), 60)) + " | " + or_dash(delay(g)) + " | " +
           md(g.first_file + ":" + std::to_string(g.first_line)) + " |\n";
  }
  if (groups.size() > kSymptomRows)
    out += "| " + plural(groups.size() - kSymptomRows, "more group", "more groups") + " in the JSON report | | | | | |\n";
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out;
  const std::string job = report.job && !report.job->id.empty() ? " (job " + md(report.job->id) + ")" : "";
  if (!report.root_cause) {
    out += "## megatriage: no failure found" + job + "\n\n";
    out += "No failure in " + plural(report.files.size(), "file", "files") + " read.\n";
  } else {
    const RootCauseReport& r = *report.root_cause;
    const std::string name = !r.failure_name.empty() ? r.failure_name
                             : r.category == Category::Nccl ? "NCCL" : upper(category_name(r.category));
    out += "## megatriage: FAILURE — " + md(name) + job + "\n\n";
    if (!r.headline.empty()) out += "**" + md(r.headline) + "**\n\n";
    root_table(out, r);
    checks_section(out, r);
  }
  symptoms_section(out, report);
  std::size_t warnings = 0;
  for (const Diagnostic& d : report.diagnostics) warnings += d.severity == Severity::Info ? 0 : 1;
  out += "\n<sub>" + plural(report.files.size(), "file", "files") + " read, " +
         plural(warnings, "input problem", "input problems") + " · megatriage " + md(megatriage_version()) +
         "</sub>\n";
  return out;
}

}  // namespace megatriage
