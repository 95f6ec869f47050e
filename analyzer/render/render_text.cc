#include <cstdio>

#include "base/text_util.h"
#include "decide/classify.h"
#include "extract/timestamp.h"
#include "render/render.h"
#include "slurm/slurm_job.h"

namespace megatriage {
namespace {

class Writer {
 public:
  explicit Writer(const TextStyle& style) : style_(style) {}
  std::string& out() { return out_; }

  std::string paint(const std::string& s, const char* code) const {
    if (!style_.color) return s;
    return std::string("\x1b[") + code + "m" + s + "\x1b[0m";
  }
  // Appended piece by piece: `"\n" + std::string` trips GCC 12's -Wrestrict false positive at -O3.
  void heading(const std::string& s) {
    out_ += '\n';
    out_ += paint(s, "1");
    out_ += '\n';
  }

  // Wraps `text` (already printable) at the width, first line after `first`, others after `rest`.
  void wrapped(const std::string& first, const std::string& rest, const std::string& text) {
    std::size_t width = style_.width;
    std::string indent = first;
    std::string_view remaining = text;
    do {
      std::size_t room = width > indent.size() + 10 ? width - indent.size() : 10;
      std::string_view piece = remaining;
      if (piece.size() > room) {
        std::size_t cut = piece.rfind(' ', room);
        if (cut == std::string_view::npos || cut < room / 2) cut = room;
        // Never split inside a UTF-8 sequence.
        while (cut > 0 && cut < piece.size() && (static_cast<unsigned char>(piece[cut]) & 0xc0) == 0x80) --cut;
        piece = piece.substr(0, cut);
      }
      out_ += indent;
      out_ += piece;
      out_ += '\n';
      remaining.remove_prefix(piece.size());
      while (!remaining.empty() && remaining.front() == ' ') remaining.remove_prefix(1);
      indent = rest;
    } while (!remaining.empty());
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

}  // namespace

std::string render_text(const Report& report, const TextStyle& style) {
  Writer w(style);
  if (!report.root_cause) {
    w.out() += w.paint("megatriage: no failure found", "1;32") + " in " +
               std::to_string(report.files.size()) + " file(s)\n";
  } else {
    const auto& r = *report.root_cause;
    const std::string category = category_name(r.category);
    std::string label = r.category == Category::Nccl ? "NCCL" : upper(category);
    // Verdict first; who and where follow in the headline and the root-cause block.
    w.out() += w.paint("megatriage: FAILURE — " + label, "1;31") + "\n";

    w.wrapped("", "  ", printable(r.headline));
    w.heading("Root cause  [" + category + " · " + r.rule + " · confidence " + confidence_name(r.confidence) + "]");
    w.wrapped("  ", "    ", printable(r.exception));
    // Wrapped at spaces: the place stays whole, who and how-known go on the next line if long.
    w.wrapped("  ", "    ", "at " + printable(r.file) + ":" + std::to_string(r.line) + "  " +
                               who(r.rank, r.rank_basis, r.local_rank, r.task, r.host));
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
    w.out() += when + "\n";
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

  if (!report.symptoms.empty()) {
    w.heading(report.root_cause ? "What followed (symptoms and other failures)" : "Noise seen");
    for (const auto& g : report.symptoms) {
      std::string line = printable(g.title) + " [" + g.rule + ", " + role_name(g.role) + "]: " +
                         std::to_string(g.count) + "×";
      if (!g.ranks.empty()) line += ", ranks " + compact_ranks(g.ranks);
      if (!g.hosts.empty()) line += ", " + std::to_string(g.hosts.size()) + " host(s)";
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
  if (!report.diagnostics.empty()) {
    w.heading("Diagnostics (" + std::to_string(report.diagnostics.size()) + ")");
    for (const auto& d : report.diagnostics) {
      std::string line = std::string(severity_name(d.severity)) + " " + d.code + " ";
      if (!d.path.empty()) line += printable(d.path) + (d.line ? ":" + std::to_string(d.line) : "") + ": ";
      line += printable(d.message);
      if (d.count > 1) line += " (×" + std::to_string(d.count) + ")";
      if (!d.hint.empty()) line += " — " + printable(d.hint);
      w.wrapped("  ", "    ", line);
    }
  }
  w.out() += "\n" + std::to_string(report.files.size()) + " file(s) read, " +
             std::to_string(report.rule_count) + " rules.\n";
  return w.out();
}

}  // namespace megatriage
