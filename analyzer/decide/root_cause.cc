#include "decide/root_cause.h"

#include <charconv>
#include <map>
#include <set>

#include "base/text_util.h"
#include "decide/rank_attribution.h"
#include "match/rule_tags.h"

namespace megatriage {
namespace {

bool is_python_traceback(const Event& e) {
  return e.kind == EventKind::Traceback && !e.traceback->incomplete && e.decisive_block >= 0;
}

}  // namespace

RuleRole event_role(const Event& e, const RuleMatcher& matcher) {
  if (e.kind == EventKind::ChildFailure) return RuleRole::Context;
  if (!e.matches.empty())
    return matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)].role;
  return e.kind == EventKind::Traceback ? RuleRole::Cause : RuleRole::Context;
}

Category event_category(const Event& e, const RuleMatcher& matcher) {
  if (!e.matches.empty())
    return matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)].category;
  return Category::Unknown;
}

std::optional<std::string> event_field(const Event& e, const RuleMatcher& matcher, std::string_view name) {
  std::optional<std::string> text;  // the matched text, rebuilt once and only when needed
  for (const auto& m : e.matches) {
    if (!matcher.has_group(m.rule_index, name)) continue;
    if (!text) text = matched_text(e);
    std::optional<std::string> value = matcher.field(m, *text, name);
    if (value && !value->empty()) return value;
  }
  return std::nullopt;
}

namespace {

// ---- Root selection (which event is the root) ----

const Rule* best_rule(const Event& e, const RuleMatcher& matcher) {
  if (e.matches.empty()) return nullptr;
  return &matcher.rules()[static_cast<std::size_t>(e.matches.front().rule_index)];
}

bool rule_has_tag(const Event& e, const RuleMatcher& matcher, std::string_view tag) {
  const Rule* r = best_rule(e, matcher);
  return r != nullptr && has_tag(r->tags, tag);
}

// How SLURM ended the job, when the event is such an end.
enum class JobEnd : std::uint8_t { None, TimeLimit, Cancelled, NodeFailure };

JobEnd job_end(const Event& e, const RuleMatcher& matcher) {
  const Rule* r = best_rule(e, matcher);
  if (r == nullptr || e.kind != EventKind::RuleLine) return JobEnd::None;
  if (has_tag(r->tags, rule_tag::kNodeFailure)) return JobEnd::NodeFailure;
  if (has_tag(r->tags, rule_tag::kTimeLimit)) return JobEnd::TimeLimit;
  if (has_tag(r->tags, rule_tag::kCancelled)) return JobEnd::Cancelled;
  return JobEnd::None;
}

const char* job_end_words(JobEnd end) {
  switch (end) {
    case JobEnd::TimeLimit: return "the job's time limit";
    case JobEnd::Cancelled: return "the job's cancellation";
    case JobEnd::NodeFailure: return "the node failure";
    case JobEnd::None: break;
  }
  return "the job's end";
}

std::string where(const TimelineEntry& entry) {
  return entry.file->file.display_path + ":" + std::to_string(entry.event->origin.line);
}

// Evidence the job outlived: after it, its file still records training progress (a Megatron
// iteration line, a trainer's logged loss dict).
// Synchronous training advances only while every rank takes part, so the error was caught,
// retried or harmless, not fatal (a retried download, a logged warning naming an Error class, a
// transient NCCL WARN). Only weak evidence is weighed so: a headerless fragment or lone
// exception line, a line only a family catch-all recognised, or an NCCL symptom (the fallback
// root). A whole traceback of a specific rule keeps its weight: a process may print one and go
// on only when its code says so, which a log cannot show.
bool outlived_by_progress(const TimelineEntry& entry, const RuleMatcher& matcher, bool weak) {
  const Event& e = *entry.event;
  const bool headerless = e.kind == EventKind::Traceback && e.traceback->headerless;
  if (!weak) weak = headerless || rule_has_tag(e, matcher, rule_tag::kFamilyFallback);
  if (!weak) return false;
  // A headerless event is placed at its exception line; the lines it took as the message's
  // continuation are a guess, and progress printed there counts.
  const std::uint64_t after_line = headerless ? e.origin.line : e.last_line;
  for (const Fact& f : entry.file->facts)
    if ((f.key == "last_iteration" || f.key == "logged_progress") && f.line > after_line) return true;
  return false;
}

// A cause that is not an end of the job.
bool is_failure_cause(const Event& e, const RuleMatcher& matcher) {
  if (e.kind == EventKind::Traceback && !is_python_traceback(e)) return false;
  return event_role(e, matcher) == RuleRole::Cause && job_end(e, matcher) == JobEnd::None;
}

// The kernel's own assertion line for a root that reports a device-side assert: in the root's
// file first (the failing process's own output), else the job's earliest.
std::optional<std::size_t> kernel_assertion_for(const std::vector<TimelineEntry>& timeline, std::size_t root,
                                                const RuleMatcher& matcher) {
  const Event& e = *timeline[root].event;
  if (e.kind != EventKind::Traceback || !rule_has_tag(e, matcher, rule_tag::kDeviceAssert)) return std::nullopt;
  std::optional<std::size_t> same_file, any;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const Event& k = *timeline[i].event;
    if (k.kind != EventKind::RuleLine || !rule_has_tag(k, matcher, rule_tag::kDeviceAssert)) continue;
    if (!any) any = i;
    if (!same_file && k.origin.file == e.origin.file) same_file = i;
  }
  return same_file ? same_file : any;
}

// Tracebacks cut off by another header right before the root, in the root's stream: several
// processes printed at once into one stream and their lines interleave; the run's first header
// is where the failure starts. The index of that first cut traceback, nullopt when none.
std::optional<std::size_t> interleaved_start(const std::vector<TimelineEntry>& timeline, std::size_t root) {
  const Event& e = *timeline[root].event;
  if (e.kind != EventKind::Traceback) return std::nullopt;
  auto same_stream = [&](const Event& c) {
    return c.origin.file == e.origin.file && c.who.rank == e.who.rank && c.who.task == e.who.task &&
           c.who.local_rank == e.who.local_rank;
  };
  std::optional<std::size_t> start;
  std::uint64_t first_line = e.origin.line;
  for (bool extended = true; extended;) {
    extended = false;
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      const Event& c = *timeline[i].event;
      if (c.kind != EventKind::Traceback || !c.traceback->incomplete || !same_stream(c)) continue;
      // Cut by the next header: it ends on the line before the run's first header.
      if (c.origin.line < first_line && c.last_line + 1 >= first_line && c.last_line < first_line) {
        start = i;
        first_line = c.origin.line;
        extended = true;
      }
    }
  }
  return start;
}

bool same_writer(const Event& a, const Event& b) {
  return a.origin.file == b.origin.file && a.who.rank == b.who.rank && a.who.task == b.who.task &&
         a.who.local_rank == b.who.local_rank;
}

// Why the root is weaker evidence than a whole traceback, nullopt when it is not: frames
// without their `Traceback` header (an excerpt, a log cut above it), or a lone exception line.
std::optional<std::string> fragment_reason(const Event& e) {
  if (e.kind != EventKind::Traceback || !e.traceback->headerless) return std::nullopt;
  return e.traceback->blocks.front().frames_seen == 0
             ? "a lone exception line with no traceback around it: weaker evidence"
             : "a traceback whose header is not in the log (an excerpt, or a log cut above it): weaker evidence";
}

// The wrapper's exception line when the root's error was printed inside another exception's
// message: an exception line embedded in the decisive block's message tail, or a block whose
// previous block's message announced it (`... the following error:`).
std::optional<std::string> wrapper_of(const Event& e) {
  if (e.kind != EventKind::Traceback || e.decisive_block < 0) return std::nullopt;
  const auto& blocks = e.traceback->blocks;
  const ExceptionBlock& b = blocks[static_cast<std::size_t>(e.decisive_block)];
  auto shown = [](const std::string& line) { return line.size() > 160 ? line.substr(0, 157) + "..." : line; };
  if (e.text != b.exception) return shown(b.exception);
  if (b.embedded && e.decisive_block > 0) {
    int w = e.decisive_block - 1;  // the outermost wrapper of a run of embedded blocks
    while (w > 0 && blocks[static_cast<std::size_t>(w)].embedded) --w;
    return shown(blocks[static_cast<std::size_t>(w)].exception);
  }
  return std::nullopt;
}

constexpr std::int64_t kTieWindowUs = 1000000;  // "the same second"

// Causes the timeline cannot tell from the root: stamped within kTieWindowUs of it, or with no
// time at all when the root has none either and they are in another file (line order orders
// one file only). Fills the finding's tie list and says so in its reasons.
void find_ties(const std::vector<TimelineEntry>& timeline, std::size_t root, const RuleMatcher& matcher,
               Finding& f) {
  const TimelineEntry& r = timeline[root];
  const Event& e = *r.event;
  const Rule* root_rule = best_rule(e, matcher);
  std::set<int> same, other;
  std::size_t same_events = 0, other_events = 0, unranked_same = 0;
  std::set<Category> other_categories;
  for (std::size_t i = root + 1; i < timeline.size(); ++i) {
    const TimelineEntry& t = timeline[i];
    if (r.key_us) {
      if (!t.key_us || *t.key_us - *r.key_us >= kTieWindowUs) break;
    } else if (t.event->origin.file == e.origin.file) {
      continue;  // the same file without stamps: its line order is the order
    }
    const Event& c = *t.event;
    if (&c == &e || !is_failure_cause(c, matcher)) continue;
    // One writer fails once: its later failures are consequences. A stream without a rank may
    // be several processes (spawn workers sharing a file): the same error there is a tie.
    if (same_writer(c, e) && !(e.who.rank < 0 && best_rule(c, matcher) == root_rule && c.kind == e.kind))
      continue;
    if (c.kind == EventKind::Traceback && e.kind == EventKind::Traceback && c.text == e.text &&
        c.who.rank == e.who.rank && c.who.local_rank == e.who.local_rank &&
        (c.who.rank >= 0 || c.who.local_rank >= 0) && c.origin.file != e.origin.file)
      continue;  // a copy of the root (torchrun --tee)
    if (best_rule(c, matcher) == root_rule) {
      ++same_events;
      if (c.who.rank >= 0 && c.who.rank != e.who.rank) same.insert(c.who.rank);
      if (c.who.rank < 0) ++unranked_same;
    } else {
      ++other_events;
      if (c.who.rank >= 0 && c.who.rank != e.who.rank) other.insert(c.who.rank);
      other_categories.insert(event_category(c, matcher));
    }
  }
  if (same_events + other_events == 0) return;
  std::set<int> all = same;
  all.insert(other.begin(), other.end());
  f.tied_ranks.assign(all.begin(), all.end());
  f.tied_events = same_events + other_events;
  const std::string when = r.key_us ? "within the same second" : "with no timestamp to order them";
  auto rank_list = [](const std::set<int>& ranks) {
    std::string out;
    std::size_t n = 0;
    for (int rank : ranks) {
      ++n;
      if (n > 1) out += n == ranks.size() ? " and " : ", ";
      out += std::to_string(rank);
    }
    return std::string(ranks.size() == 1 ? "rank " : "ranks ") + out;
  };
  if (same_events > 0) {
    std::string who = !same.empty() ? rank_list(same)
                                    : std::to_string(same_events) + " other writer(s) without a rank";
    if (!same.empty() && unranked_same > 0) who += " and " + std::to_string(unranked_same) + " writer(s) without a rank";
    std::string what = root_rule != nullptr ? "failed the same way (" + root_rule->title + ")"
                                            : "raised the same kind of unrecognised exception";
    f.reasons.push_back(who + " also " + what + " " + when + "; the earliest line was taken");
  }
  if (other_events > 0) {
    std::string cats;
    for (Category c : other_categories) cats += std::string(cats.empty() ? "" : ", ") + category_name(c);
    f.reasons.push_back(std::to_string(other_events) + " other failure(s) of another kind (" + cats + ")" +
                        (other.empty() ? "" : " on " + rank_list(other)) + " came " + when +
                        ": which one came first is not certain");
  }
}

}  // namespace

std::optional<Finding> select_root_cause(const std::vector<TimelineEntry>& timeline,
                                         const RuleMatcher& matcher) {
  std::optional<std::size_t> cause, nccl_symptom, teardown, end;
  std::size_t symptoms_before_cause = 0;
  for (std::size_t i = 0; i < timeline.size(); ++i) {
    const Event& e = *timeline[i].event;
    if (e.kind == EventKind::Traceback && !is_python_traceback(e)) continue;  // cut off
    RuleRole role = event_role(e, matcher);
    if ((role == RuleRole::Cause || role == RuleRole::Symptom) &&
        outlived_by_progress(timeline[i], matcher, /*weak=*/role == RuleRole::Symptom))
      continue;
    if (role == RuleRole::Cause) {
      // An end is the root only when nothing failed before it; what fails after it is its
      // consequence, so the scan stops at the first end or cause.
      if (job_end(e, matcher) != JobEnd::None) {
        end = i;
      } else {
        cause = i;
      }
      break;
    }
    if (role == RuleRole::Symptom) ++symptoms_before_cause;
    if (role == RuleRole::Symptom && !nccl_symptom && event_category(e, matcher) == Category::Nccl)
      nccl_symptom = i;
    if (role == RuleRole::Teardown && !teardown && e.kind == EventKind::Traceback) teardown = i;
  }

  // Events without any time sort after every timed one: a traceback of a stream that printed
  // no stamp, above the end's line in the same file, was printed before it.
  if (end) {
    const Event& end_event = *timeline[*end].event;
    for (std::size_t i = *end + 1; i < timeline.size(); ++i) {
      const Event& e = *timeline[i].event;
      if (timeline[i].key_us || e.origin.file != end_event.origin.file || e.origin.line >= end_event.origin.line)
        continue;
      if (is_failure_cause(e, matcher)) {
        if (!cause || e.origin.line < timeline[*cause].event->origin.line) cause = i;
      } else if (!nccl_symptom && (e.kind != EventKind::Traceback || is_python_traceback(e)) &&
                 event_role(e, matcher) == RuleRole::Symptom && event_category(e, matcher) == Category::Nccl) {
        nccl_symptom = i;
      }
    }
  }

  Finding f;
  JobEnd end_kind = end ? job_end(*timeline[*end].event, matcher) : JobEnd::None;
  if (cause) {
    f.index = *cause;
    f.basis = Basis::Cause;
    const Event& e = *timeline[*cause].event;
    f.reasons.push_back(e.kind == EventKind::Traceback
                            ? "earliest traceback whose exception is not an NCCL/teardown symptom"
                            : "earliest line that is a cause by itself");
    if (end)
      f.reasons.push_back(std::string("it was printed above ") + job_end_words(end_kind) + " (" +
                          where(timeline[*end]) + "), which is therefore not the cause");
    if (symptoms_before_cause > 0)
      f.reasons.push_back(std::to_string(symptoms_before_cause) +
                          " symptom event(s) ordered before it were set aside");
    if (std::optional<std::size_t> kernel = kernel_assertion_for(timeline, *cause, matcher)) {
      f.index = *kernel;
      f.reasons.push_back("a CUDA kernel's own assertion line (" + where(timeline[*kernel]) +
                          ") is what the device-side assert at " + where(timeline[*cause]) + " reports");
    }
  } else if (end && nccl_symptom && end_kind != JobEnd::NodeFailure) {
    f.index = *nccl_symptom;
    f.basis = Basis::NcclFallback;
    f.reasons.push_back(std::string("the earliest NCCL/rendezvous error came before ") + job_end_words(end_kind) +
                        " (" + where(timeline[*end]) + "): that end is a consequence, not the cause");
  } else if (end) {
    f.index = *end;
    f.basis = Basis::Cause;
    if (end_kind == JobEnd::NodeFailure && nccl_symptom)
      f.reasons.push_back("a node of the job failed; the NCCL/connection errors before it are what its "
                          "peers saw of it");
    else
      f.reasons.push_back(std::string("nothing failed before ") + job_end_words(end_kind) +
                          ": the end of the job is the root");
  } else if (nccl_symptom) {
    f.index = *nccl_symptom;
    f.basis = Basis::NcclFallback;
    f.reasons.push_back("no Python traceback other than NCCL/collective symptoms: the earliest "
                        "NCCL/rendezvous error is the root");
  } else if (teardown) {
    f.index = *teardown;
    f.basis = Basis::TeardownFallback;
    f.reasons.push_back("only teardown tracebacks (signals, launcher summaries) were found");
  } else {
    return std::nullopt;
  }
  if (cause || (end && f.index == *end)) find_ties(timeline, f.index, matcher, f);

  const TimelineEntry& root = timeline[f.index];
  const Event& e = *root.event;
  f.location = f.index;
  if (std::optional<std::size_t> first = interleaved_start(timeline, f.index)) {
    f.location = *first;
    f.reasons.push_back("tracebacks of several processes are interleaved in one stream here; the "
                        "first header of the run (line " + std::to_string(timeline[*first].event->origin.line) +
                        ") is where it starts");
  }
  if (e.kind == EventKind::Traceback && root.file->file.hint.local_rank < 0) {
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      const Event& copy = *timeline[i].event;
      if (copy.kind == EventKind::Traceback && copy.text == e.text && copy.who.rank == e.who.rank &&
          timeline[i].file->file.hint.local_rank >= 0) {
        f.location = i;
        f.reasons.push_back("the worker's own log holds the original; the console copy at " +
                            root.file->file.display_path + ":" + std::to_string(e.origin.line) +
                            " gave its time");
        break;
      }
    }
  }
  // Confidence: how well the time line separates the root from the next candidate.
  if (!root.key_us) {
    f.confidence = Confidence::Low;
    f.reasons.push_back("no timestamps: ordered by file and line only");
  } else if (e.time.source == TimeSource::Explicit || e.before_us) {
    f.confidence = Confidence::High;
  } else {
    f.confidence = Confidence::Medium;
  }
  // Lowered by what makes the choice uncertain.
  auto at_most = [&](Confidence c) {
    if (static_cast<int>(f.confidence) < static_cast<int>(c)) f.confidence = c;
  };
  if (f.tied_events > 0) at_most(Confidence::Medium);  // the reasons name the ties
  if (std::optional<std::string> why = fragment_reason(e)) {
    at_most(Confidence::Medium);
    f.reasons.push_back(*why);
  }
  if (std::optional<std::string> wrapper = wrapper_of(e))
    f.reasons.push_back("the error was carried inside the message of a wrapper exception (" + *wrapper +
                        "): the inner error is the cause");
  attribute_rank(timeline, matcher, f);  // whose failure it is (rank, host), and how that is known
  return f;
}

}  // namespace megatriage
