#include <algorithm>
#include <cstdio>
#include <string_view>

#include "base/text_util.h"
#include "decide/classify.h"
#include "extract/timestamp.h"
#include "render/render.h"
#include "render/text_wrap.h"
#include "slurm/slurm_job.h"

namespace megatriage {
namespace {

class Writer {
 public:
  explicit Writer(const TextStyle& style) : style_(style) {}
  std::string& out() { return out_; }
  const TextStyle& style() const { return style_; }

  std::string paint(const std::string& s, const char* code) const {
    if (!style_.color) return s;
    return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
  }
  // The report's own glyphs in ASCII when the locale cannot show them (before measuring, so the
  // widths are those printed).
  std::string glyphs(std::string_view s) const { return style_.ascii ? ascii_glyphs(s) : std::string(s); }
  // Appended piece by piece: `"\n" + std::string` trips GCC 12's -Wrestrict false positive at -O3.
  void heading(const std::string& s) {
    out_ += '\n';
    const std::string shown = glyphs(s);
    const char* indent = "";
    for (std::string_view piece : wrap_at_spaces(shown, style_.width, style_.width > 14 ? style_.width - 4 : 10)) {
      out_ += indent;
      out_ += paint(std::string(piece), "1");
      out_ += '\n';
      indent = "    ";
    }
  }

  // Wraps `text` (already printable) at the width, first line after `first`, others after
  // `rest`; only at spaces, so a path or a `file:line` is never cut (a longer one overflows).
  void wrapped(const std::string& first, const std::string& rest, const std::string& text) {
    const std::string shown = glyphs(text);
    auto room = [&](const std::string& indent) {
      std::size_t used = display_columns(indent);
      return style_.width > used + 10 ? style_.width - used : 10;
    };
    const std::string* indent = &first;
    for (std::string_view piece : wrap_at_spaces(shown, room(first), room(rest))) {
      out_ += *indent;
      out_ += piece;
      out_ += '\n';
      indent = &rest;
    }
  }

 private:
  const TextStyle& style_;
  std::string out_;
};

std::string seconds(std::int64_t us) {
  char buf[32];
  double s = static_cast<double>(us) / 1e6;
  if (s > -0.5 && s < 0.5) return "within the same second as";
  if (s < 0) std::snprintf(buf, sizeof buf, "%.0f s before", -s);
  else std::snprintf(buf, sizeof buf, "%.0f s after", s);
  return buf;
}

// How the rank is known, in a few words after it.
const char* rank_basis_phrase(RankBasis b) {
  switch (b) {
    case RankBasis::Prefix: return "from its line prefix";
    case RankBasis::FileName: return "from its file name";
    case RankBasis::LauncherReport: return "from the launcher's exit report";
    case RankBasis::ChildFailureTable: return "from the launcher's failure table";
    case RankBasis::NodeLocalRank: return "from node rank and local rank";
    case RankBasis::InferredOrder: return "inferred from the order of launcher reports";
    case RankBasis::SameFileRanks: return "the only rank its file names";
    case RankBasis::SrunTask: return "from the SLURM task id";
    case RankBasis::SingleProcess: return "a one-process job";
    case RankBasis::Unknown: return "nothing in the logs ties it to a rank";
  }
  return "";
}

std::string who(int rank, RankBasis basis, int local_rank, int task, const std::string& host) {
  std::string s = rank >= 0 ? "rank " + std::to_string(rank) : "rank unknown";
  s += std::string(" (") + rank_basis_phrase(basis) + ")";
  if (task >= 0) s += ", SLURM task " + std::to_string(task);
  if (local_rank >= 0) s += ", local rank " + std::to_string(local_rank);
  if (!host.empty()) s += ", host " + printable(host);
  return s;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// `megatriage postmortem`: the job as SLURM saw it.
void slurm_section(Writer& w, const SlurmJobInfo& s) {
  w.heading("SLURM");
  std::string job = "job " + printable(s.job_id) + (s.name.empty() ? "" : " (" + printable(s.name) + ")");
  if (!s.user.empty()) job += ", user " + printable(s.user);
  if (!s.node_list.empty()) job += ", nodes " + printable(s.node_list);
  w.wrapped("  ", "    ", job);
  std::string state = "state " + printable(s.state);
  if (s.cancelled_by >= 0) state += " by uid " + std::to_string(s.cancelled_by);
  state += ", exit code " + describe_exit_code(s.exit_code);
  if (!s.derived_exit_code.empty()) state += ", derived " + describe_exit_code(s.derived_exit_code);
  w.wrapped("  ", "    ", state);
  w.wrapped("  ", "    ", "elapsed " + (s.elapsed.empty() ? std::string("?") : printable(s.elapsed)) + " of limit " +
                             (s.time_limit.empty() ? std::string("?") : printable(s.time_limit)));
  std::string steps;
  for (const auto& st : s.steps)
    steps += (steps.empty() ? "steps: " : ", ") + printable(st.id) + " " + printable(st.state) + " " + printable(st.exit_code);
  if (!steps.empty()) w.wrapped("  ", "    ", steps);
}

// `--context N`: the raw lines around the root, numbered, the root's own marked. Log text, so
// made printable; wrapped at spaces under its number like any other line.
void context_block(Writer& w, const RootCauseReport& r) {
  std::size_t digits = std::to_string(r.context.back().line).size();
  for (const ContextLine& c : r.context) {
    std::string number = std::to_string(c.line);
    std::string gutter = std::string(c.line == r.line ? "  > " : "    ") +
                         std::string(digits - number.size(), ' ') + number + " | ";
    w.wrapped(gutter, std::string(gutter.size() - 2, ' ') + "| ", printable(c.text));
  }
}

// How many example paths a folded diagnostic names without -v.
constexpr std::size_t kExamplePaths = 3;

// One line per code: a code seen in many files says how many and names a few of them (all with
// -v). `info` codes only with -v (an empty srun task `.out` is normal); the header says how many
// were left out, so that nothing vanishes silently.
// Which job of a shared logs/ folder this report is about: said under the verdict, where it
// cannot be missed, and not again among the diagnostics.
constexpr std::string_view kJobChoiceCode = "discover.several-jobs";

void job_choice_line(Writer& w, const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics)
    if (d.code == kJobChoiceCode) w.wrapped("", "  ", printable(d.message + " (" + d.hint + ")"));
}

void diagnostics_section(Writer& w, const std::vector<Diagnostic>& all) {
  std::vector<Diagnostic> diagnostics;
  for (const Diagnostic& d : all)
    if (d.code != kJobChoiceCode) diagnostics.push_back(d);
  if (diagnostics.empty()) return;
  std::vector<DiagnosticGroup> groups = group_diagnostics_by_code(diagnostics);
  std::size_t shown = 0, hidden = 0;
  for (const DiagnosticGroup& g : groups)
    (g.severity == Severity::Info && !w.style().verbose ? hidden : shown) += g.items.size();
  if (shown == 0) return;  // the closing line counts the hidden ones
  std::string head = "Diagnostics (" + std::to_string(shown + hidden);
  if (hidden > 0) head += "; " + std::to_string(hidden) + " info not shown, -v shows them";
  w.heading(head + ")");
  for (const DiagnosticGroup& g : groups) {
    if (g.severity == Severity::Info && !w.style().verbose) continue;
    const Diagnostic& d = *g.items.front();
    std::string line = std::string(severity_name(g.severity)) + " " + d.code + " ";
    if (g.items.size() == 1) {
      if (!d.path.empty()) line += printable(d.path) + (d.line ? ":" + std::to_string(d.line) : "") + ": ";
      line += printable(d.message);
      if (d.count > 1) line += " (×" + std::to_string(d.count) + ")";
    } else {
      // The first one's message stands for all: its figures are that file's.
      line += (g.paths > 0 ? std::to_string(g.paths) + " files: " : std::to_string(g.items.size()) + " times: ") +
              printable(d.message);
      if (g.occurrences > g.items.size()) line += " (×" + std::to_string(g.occurrences) + " in all)";
      std::string examples;
      std::size_t named = 0;
      for (const Diagnostic* item : g.items) {
        if (item->path.empty()) continue;
        if (!w.style().verbose && named == kExamplePaths) break;
        examples += (named++ > 0 ? ", " : "") + printable(item->path);
        if (item->line) examples += ":" + std::to_string(item->line);
      }
      if (!examples.empty()) {
        line += (w.style().verbose ? " — in " : " — e.g. ") + examples;
        if (named < g.paths) line += " and " + std::to_string(g.paths - named) + " more";
      }
    }
    if (!d.hint.empty()) line += " — " + printable(d.hint);
    w.wrapped("  ", "    ", line);
  }
}

}  // namespace

std::string render_text(const Report& report, const TextStyle& style) {
  Writer w(style);
  if (!report.root_cause) {
    w.out() += w.paint("megatriage: no failure found", "1;32") + " in " +
               std::to_string(report.files.size()) + " file(s)\n";
    job_choice_line(w, report.diagnostics);
  } else {
    const auto& r = *report.root_cause;
    const std::string category = category_name(r.category);
    // A root made outside the timeline (postmortem's SLURM state) may carry no name: its category.
    std::string label = !r.failure_name.empty() ? r.failure_name
                        : r.category == Category::Nccl ? "NCCL" : upper(category);
    // Verdict first; who and where follow in the headline and the root-cause block.
    w.out() += w.paint(w.glyphs("megatriage: FAILURE — " + label), "1;31") + "\n";

    w.wrapped("", "  ", printable(r.headline));
    job_choice_line(w, report.diagnostics);
    w.heading("Root cause  [" + category + " · " + r.rule + " · confidence " + confidence_name(r.confidence) + "]");
    w.wrapped("  ", "    ", printable(r.exception));
    // Wrapped at spaces: the place stays whole, who and how-known go on the next line if long.
    w.wrapped("  ", "    ", "at " + printable(r.file) + ":" + std::to_string(r.line) + "  " +
                               who(r.rank, r.rank_basis, r.local_rank, r.task, r.host));
    if (r.same_failure_ranks.size() > 1) {
      std::string n = std::to_string(r.same_failure_ranks.size());
      w.wrapped("  ", "    ", (r.every_rank ? "all " + n + " ranks" : n + " ranks") +
                                  " failed the same way: ranks " + compact_ranks(r.same_failure_ranks));
    }
    if (r.tied_events > 0) {
      std::string tied = "  tied: " + std::to_string(r.tied_events) +
                         " other failure(s) the logs cannot order against it";
      if (!r.tied_ranks.empty()) {
        tied += " (rank";
        tied += r.tied_ranks.size() > 1 ? "s " : " ";
        for (std::size_t i = 0; i < r.tied_ranks.size(); ++i)
          tied += (i > 0 ? ", " : "") + std::to_string(r.tied_ranks[i]);
        tied += ")";
      }
      w.wrapped("", "    ", tied);
    }
    std::string when = "  time: ";
    switch (r.time_basis) {
      case TimeBasis::Explicit:
        when += format_iso(*r.time_us);
        break;
      case TimeBasis::Bounded:
        when += "before " + format_iso(*r.before_us);
        if (r.after_us) when += ", after " + format_iso(*r.after_us);
        break;
      case TimeBasis::Inherited:
        when += "after " + format_iso(*r.after_us) + " (last stamp before it)";
        break;
      case TimeBasis::None:
        when += "unknown (no timestamp in its stream)";
        break;
    }
    if (r.year_inferred) when += "  [year inferred]";
    w.wrapped("", "    ", when);
    if (!r.context.empty()) context_block(w, r);
    if (!r.explain.empty()) w.wrapped("  ", "  ", printable(r.explain));
    if (!r.frames.empty()) {
      w.out() += "  innermost frames:\n";
      for (const auto& f : r.frames) {
        w.wrapped("    ", "      ", printable(f.path) + ":" + std::to_string(f.line) +
                                          (f.function.empty() ? "" : " in " + printable(f.function)));
        if (!f.source.empty()) w.wrapped("        ", "        ", printable(f.source));
      }
    }
    if (r.chain.size() > 1 || (r.chain.size() == 1 && r.chain[0] != r.exception)) {
      w.out() += "  exception chain (oldest first):\n";
      for (const auto& c : r.chain) w.wrapped("    - ", "      ", printable(c));
    }
  }
  if (report.slurm) slurm_section(w, *report.slurm);

  const bool only_same_failure = std::all_of(report.symptoms.begin(), report.symptoms.end(),
                                             [](const SymptomGroup& g) { return g.same_as_root; });
  if (!report.symptoms.empty() && !only_same_failure) {
    w.heading(report.root_cause ? "What followed (symptoms and other failures)" : "Noise seen");
    for (const auto& g : report.symptoms) {
      if (g.same_as_root) continue;  // said in one line with the root
      std::string line = printable(g.title) + " [" + g.rule + ", " + role_name(g.role) + "]: " +
                         std::to_string(g.count) + "×";
      if (!g.ranks.empty()) line += ", ranks " + compact_ranks(g.ranks);
      // A few hosts are named (people look for the node); many are counted.
      if (g.hosts.size() == 1) line += ", host " + printable(g.hosts[0]);
      else if (g.hosts.size() >= 2 && g.hosts.size() <= 3) {
        line += ", hosts ";
        for (std::size_t i = 0; i < g.hosts.size(); ++i) line += (i > 0 ? ", " : "") + printable(g.hosts[i]);
      } else if (!g.hosts.empty()) line += ", " + std::to_string(g.hosts.size()) + " hosts";
      if (g.delay_us) line += ", first " + seconds(*g.delay_us) + " the root";
      line += " — first at " + printable(g.first_file) + ":" + std::to_string(g.first_line);
      w.wrapped("  - ", "    ", line);
    }
  }

  if (report.root_cause && !report.root_cause->checks.empty()) {
    w.heading("Checks");
    for (const auto& c : report.root_cause->checks) {
      if (c.advice) continue;
      std::string mark = c.status == CheckStatus::Failed ? w.paint("FAILED ", "1;31")
                         : c.status == CheckStatus::Passed ? w.paint("passed ", "32") : "  ?    ";
      w.wrapped("  " + mark, "         ", printable(c.text) + ": " + printable(c.detail));
    }
    int n = 1;
    for (const auto& c : report.root_cause->checks) {
      if (!c.advice) continue;
      std::string num = "  " + std::to_string(n++) + ". ";
      w.wrapped(num, std::string(num.size(), ' '), printable(c.text));
    }
  }
  if (report.root_cause && !report.root_cause->reasons.empty()) {
    w.heading("Why this one");
    for (const auto& reason : report.root_cause->reasons) w.wrapped("  - ", "    ", printable(reason));
    w.wrapped("  - ", "    ", "ordering: " + report.ordering);
  }
  if (!report.diagnostics.empty()) diagnostics_section(w, report.diagnostics);
  std::string closing = std::to_string(report.files.size()) + " file(s) read, " +
                        std::to_string(report.rule_count) + " rules";
  const std::size_t info_hidden = style.verbose ? 0 : std::count_if(report.diagnostics.begin(), report.diagnostics.end(), [](const Diagnostic& d) {
    return d.severity == Severity::Info;
  });
  if (info_hidden > 0 && info_hidden == report.diagnostics.size())
    closing += ", " + std::to_string(info_hidden) + " info diagnostic(s) not shown (-v shows them)";
  w.out() += '\n';
  w.wrapped("", "", closing + ".");
  // What the renderer wrote itself outside wrapped() (the ×, the chain's headings) in ASCII too.
  if (style.ascii) return ascii_glyphs(w.out());
  return w.out();
}

}  // namespace megatriage
