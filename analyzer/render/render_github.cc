// `--format github`: GitHub Actions workflow commands, one per line, which the runner turns
// into annotations on the run: `::error` for the root cause (at its file and line), `::warning`
// for each failed check, `::notice` for the verdict. Text is escaped as the Actions toolkit does
// (actions/toolkit, command.ts), so no log line can end a command early or start another.
#include <string_view>
#include <utility>
#include <vector>

#include "base/text_util.h"
#include "render/render.h"

namespace megatriage {
namespace {

// The toolkit's annotation title is one short line; longer ones are cut by the UI anyway.
constexpr std::size_t kTitleChars = 120;

// Printable (no terminal escapes, valid UTF-8) but with its line breaks kept: the message of an
// annotation may span lines, escaped as %0A.
std::string clean_keep_lines(std::string_view s) {
  std::string out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = s.find('\n', start);
    out += printable(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

std::string cut(const std::string& s, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && ++chars > max_chars) return s.substr(0, i) + "…";
  return s;
}

// `::name key=value,key=value::message`; properties with empty values are left out.
std::string command(const char* name, const std::vector<std::pair<const char*, std::string>>& properties,
                    const std::string& message) {
  std::string out = std::string("::") + name;
  bool first = true;
  for (const auto& [key, value] : properties) {
    if (value.empty()) continue;
    out += first ? " " : ",";
    first = false;
    out += key;
    out += '=';
    out += github_escape_property(value);
  }
  return out + "::" + github_escape_data(message) + "\n";
}

}  // namespace

std::string github_escape_data(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      default: out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : github_escape_data(s)) {
    switch (c) {
      case ':': out += "%3A"; break;
      case ',': out += "%2C"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_github(const Report& report) {
  std::string out;
  const std::string job = report.job && !report.job->id.empty() ? " (job " + printable(report.job->id) + ")" : "";
  if (!report.root_cause) {
    out += command("notice", {{"title", "megatriage: no failure found" + job}},
                   "No failure in the " + std::to_string(report.files.size()) + " file(s) read.");
    return out;
  }
  const RootCauseReport& r = *report.root_cause;
  const std::string name = printable(!r.failure_name.empty() ? r.failure_name : category_name(r.category));
  // The root cause, on its own line of its file: the headline says what, the message the rest.
  std::string message = clean_keep_lines(r.headline.empty() ? r.exception : r.headline);
  if (!r.headline.empty() && !r.exception.empty()) message += "\n" + clean_keep_lines(r.exception);
  if (!r.explain.empty()) message += "\n" + clean_keep_lines(r.explain);
  message += "\nrule " + r.rule + ", category " + category_name(r.category) + ", confidence " +
             confidence_name(r.confidence);
  out += command("error",
                 {{"file", printable(r.file)},
                  {"line", r.line > 0 ? std::to_string(r.line) : ""},
                  {"title", cut("megatriage: " + name + job, kTitleChars)}},
                 message);
  for (const CheckResult& c : r.checks) {
    if (c.status != CheckStatus::Failed) continue;
    out += command("warning", {{"title", cut("Check failed: " + printable(c.text), kTitleChars)}},
                   clean_keep_lines(c.detail));
  }
  out += command("notice", {{"title", "megatriage: FAILURE — " + name + job}},
                 printable(r.headline) + "\nroot cause at " + printable(r.file) + ":" + std::to_string(r.line));
  return out;
}

}  // namespace megatriage
