// `--all-jobs` as text: render_text's reports one after another, each under a header line, so
// that a reader (or `grep '^== job'`) finds where each job starts. The reports are unchanged.
#include <string>
#include <vector>

#include "render/render.h"

namespace megatriage {

std::string render_text_jobs(const std::vector<const Report*>& reports, const TextStyle& style) {
  // The first line starts like a report's own ("megatriage: "), which is how a report read
  // back as a log is recognised (input/own_report.h).
  std::string out = "megatriage: " + std::to_string(reports.size()) + " job(s) in the logs, newest first:";
  // As many ids as the width allows, room kept for " and N more".
  const std::size_t room = style.width > 16 ? style.width - 16 : 0;
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const Report& r = *reports[k];
    const std::string id = r.job && !r.job->id.empty() ? r.job->id : std::string("(none)");
    if (out.size() + 1 + id.size() > room && k + 1 < reports.size()) {
      out += " and " + std::to_string(reports.size() - k) + " more";
      break;
    }
    out += " " + id;
  }
  out += "\n";
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const Report& r = *reports[k];
    const std::string id = r.job && !r.job->id.empty() ? "job " + r.job->id : "files that name no job";
    out += "\n== " + id + " (" + std::to_string(k + 1) + " of " + std::to_string(reports.size()) + ") ==\n";
    out += render_text(r, style);
  }
  return out;
}

}  // namespace megatriage
