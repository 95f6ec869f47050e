#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "base/text_util.h"
#include "base/version.h"
#include "extract/timestamp.h"
#include "model/typed_value.h"
#include "render/render.h"

namespace megatriage {
namespace {

// ordered_json keeps keys in the order written: schema_version and verdict first, as documented.
using json = nlohmann::ordered_json;

// `megatriage postmortem`: what SLURM said about the job (README "Post-mortem on SLURM").
json slurm_json(const SlurmJobInfo& s) {
  auto str = [](const std::string& v) { return v.empty() ? json(nullptr) : json(repair_utf8(v)); };
  auto num = [](long v) { return v >= 0 ? json(v) : json(nullptr); };
  json steps = json::array();
  for (const auto& st : s.steps)
    steps.push_back({{"id", repair_utf8(st.id)}, {"state", repair_utf8(st.state)}, {"exit_code", str(st.exit_code)}});
  return {{"job_id", s.job_id}, {"name", str(s.name)}, {"state", str(s.state)},
          {"exit_code", str(s.exit_code)}, {"exit_status", num(s.exit_status)}, {"signal", num(s.signal)},
          {"derived_exit_code", str(s.derived_exit_code)}, {"elapsed", str(s.elapsed)},
          {"time_limit", str(s.time_limit)}, {"node_list", str(s.node_list)}, {"work_dir", str(s.work_dir)},
          {"user", str(s.user)}, {"steps", steps}, {"cancelled_by", num(s.cancelled_by)},
          {"time_limit_hit", s.time_limit_hit}, {"out_of_memory", s.out_of_memory}, {"node_fail", s.node_fail}};
}

// Several jobs in the logs: which one this report is about (README "Several jobs in one folder").
json job_json(const JobChoice& c) {
  json jobs = json::array();
  for (const auto& id : c.jobs) jobs.push_back(repair_utf8(id));
  return {{"id", c.id.empty() ? json(nullptr) : json(repair_utf8(c.id))},
          {"pick", job_pick_name(c.pick)},
          {"newest_by", c.newest_by_mtime ? "file_time" : "job_id"},
          {"jobs", jobs},
          {"files", c.files},
          {"files_without_job", c.files_without_job}};
}

json nullable_int(int v) { return v >= 0 ? json(v) : json(nullptr); }
json nullable_str(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json nullable_time(const std::optional<std::int64_t>& us) {
  return us ? json(format_iso(*us)) : json(nullptr);
}
// Log text may hold invalid UTF-8 or escapes: repair before it enters the document.
std::string clean(const std::string& s) { return repair_utf8(s); }

// A fact or field as its type says: a number, a boolean, an array. A value that does not read as
// its type stays the string it was printed as (and build_report said so in a diagnostic).
json typed_json(FactType type, const std::string& printed) {
  const std::optional<TypedValue> v = read_typed_value(type, printed);
  if (!v) return clean(printed);
  auto scalar = [](const TypedValue& t) -> json {
    switch (t.type) {
      case FactType::Int: return t.int_value;
      case FactType::Float: return t.float_value;
      case FactType::Bool: return t.bool_value;
      case FactType::Text:
      case FactType::List: break;
    }
    return clean(t.text);
  };
  if (v->type != FactType::List) return scalar(*v);
  json items = json::array();
  for (const TypedValue& item : v->items) items.push_back(scalar(item));
  return items;
}

json frames_json(const std::vector<Frame>& frames) {
  json out = json::array();
  for (const auto& f : frames)
    out.push_back({{"path", clean(f.path)}, {"line", f.line}, {"function", clean(f.function)},
                   {"source", clean(f.source)}});
  return out;
}

// ---- direct writing of the long, flat arrays ----
// `files` (and often `diagnostics`) hold one object per input file: 9,000+ on a big job, where
// building them as a DOM cost more than analysing the files' tails. They are written straight
// into the text, in exactly the layout dump(2) gives everything else (a test compares both).

// Takes the text written so far, for render_json_streamed; false when it could not be written
// (the rest is still made, and dropped).
using Drain = std::function<bool(std::string_view)>;

// The text is handed to the drain once this much has gathered: a big job's report (9,000+ files)
// is megabytes that need not all be in memory at once, nor in fresh pages.
constexpr std::size_t kDrainBytes = 256 << 10;

// `drain` (when there is one) takes `text` if it holds kDrainBytes or more, which is then empty
// again; a failed drain is not asked again.
void drain_if_full(std::string& text, const Drain*& drain) {
  if (drain == nullptr || text.size() < kDrainBytes) return;
  if (!(*drain)(text)) drain = nullptr;
  text.clear();
}

// Writes at the end of a string through a pointer, growing the string (zero-filled) 64 KiB or
// more at a time; the destructor trims what was not written. A piece is then a compare and a
// memcpy instead of a std::string append, with its call and bookkeeping (the appends were
// most of the time of writing a 9,000-file job's files array). With a drain, the text is
// handed over whenever kDrainBytes have gathered, and the string reused from its start.
class Cursor {
 public:
  explicit Cursor(std::string& out, const Drain*& drain)
      : out_(out), drain_(drain), p_(out.data() + out.size()), end_(p_) {}
  ~Cursor() { out_.resize(static_cast<std::size_t>(p_ - out_.data())); }
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // Inlined so that a literal's size is a constant and its copy a few moves, not a call.
  [[gnu::always_inline]] Cursor& put(std::string_view s) {
    room(s.size());
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
    return *this;
  }
  Cursor& put(char c) {
    room(1);
    *p_++ = c;
    return *this;
  }
  Cursor& number(std::uint64_t v) {
    room(20);  // digits of the largest uint64_t
    p_ = std::to_chars(p_, p_ + 20, v).ptr;
    return *this;
  }

 private:
  static constexpr std::size_t kGrowBytes = 64 << 10;
  void room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) grow(n);
  }
  void grow(std::size_t n) {
    std::size_t at = static_cast<std::size_t>(p_ - out_.data());
    if (drain_ != nullptr && at >= kDrainBytes) {
      out_.resize(at);
      drain_if_full(out_, drain_);
      at = out_.size();
    }
    out_.resize(at + std::max(n, kGrowBytes));
    p_ = out_.data() + at;
    end_ = out_.data() + out_.size();
  }
  std::string& out_;
  const Drain*& drain_;
  char* p_;
  char* end_;
};

// Printable ASCII without `"` or `\`: dump() would write it as it is, between quotes. One test
// per byte without a branch, which the compiler turns into vector code.
bool plain_ascii(std::string_view s) {
  unsigned special = 0;
  for (unsigned char c : s) special |= (c < 0x20) | (c >= 0x7f) | (c == '"') | (c == '\\');
  return special == 0;
}

// A JSON string as dump() writes it (no ASCII escaping of UTF-8), log text repaired first like
// clean() does: plain printable ASCII is copied as it is; anything else goes through the
// library so escapes and repairs stay identical. `repair` false: a member the document took as
// it was (a rule's id and title, a host), where dump's replacement of invalid UTF-8 decides.
std::string dumped_string(std::string_view s, bool repair = true) {
  return json(repair ? repair_utf8(s) : std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

void append_string(Cursor& out, std::string_view s, bool repair = true) {
  if (!plain_ascii(s)) {
    out.put(dumped_string(s, repair));
  } else {
    out.put('"').put(s).put('"');
  }
}

void append_string(std::string& out, std::string_view s) {
  if (!plain_ascii(s)) {
    out += dumped_string(s);
  } else {
    out += '"';
    out += s;
    out += '"';
  }
}

Cursor& nullable(Cursor& out, long long v) {
  return v >= 0 ? out.number(static_cast<std::uint64_t>(v)) : out.put("null");
}

Cursor& nullable(Cursor& out, std::string_view s) {
  if (s.empty()) return out.put("null");
  append_string(out, s);
  return out;
}

// An array of objects spelled out in dump(2)'s layout, to follow `"key": `: an element indented
// by 4, its fields by 6. `write` puts an element's fields after `"<first_key>": `; each piece
// of layout is one literal, which the compiler copies inline.
template <class T, class Write>
void append_objects(std::string& text, const Drain*& drain, const std::vector<T>& items,
                    std::string_view first_key, Write write) {
  Cursor out(text, drain);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.put(i == 0 ? std::string_view("[\n    {\n      \"") : std::string_view(",\n    {\n      \""))
        .put(first_key)
        .put("\": ");
    write(out, items[i]);
    out.put("\n    }");
  }
  out.put(items.empty() ? "[]" : "\n  ]");
}

void append_files(std::string& text, const Drain*& drain, const std::vector<FileSummary>& files) {
  append_objects(text, drain, files, "path", [](Cursor& out, const FileSummary& f) {
    append_string(out, f.path);
    append_string(out.put(",\n      \"compression\": "), f.compression);
    out.put(",\n      \"size_bytes\": ").number(f.size_bytes);
    out.put(",\n      \"bytes\": ").number(f.bytes);
    out.put(",\n      \"lines\": ").number(f.lines);
    out.put(",\n      \"events\": ").number(f.events);
    nullable(out.put(",\n      \"rank\": "), f.rank);
    nullable(out.put(",\n      \"local_rank\": "), f.local_rank);
    nullable(out.put(",\n      \"task\": "), f.task);
    out.put(",\n      \"skipped\": ").put(f.skipped ? std::string_view("true") : std::string_view("false"));
  });
}

// A scalar array member in dump(2)'s layout inside an array element: its items indented by 8.
template <class T, class Put>
void append_list(Cursor& out, const std::vector<T>& items, Put put) {
  if (items.empty()) {
    out.put("[]");
    return;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.put(i == 0 ? std::string_view("[\n        ") : std::string_view(",\n        "));
    put(out, items[i]);
  }
  out.put("\n      ]");
}

// Written directly for the same reason as `files`: a symptom group of a big job lists thousands
// of ranks, which as library values (one each) cost more than every other member together.
void append_symptoms(std::string& text, const Drain*& drain, const std::vector<SymptomGroup>& symptoms) {
  append_objects(text, drain, symptoms, "rule", [](Cursor& out, const SymptomGroup& g) {
    append_string(out, g.rule, false);
    append_string(out.put(",\n      \"title\": "), g.title, false);
    append_string(out.put(",\n      \"category\": "), category_name(g.category));
    append_string(out.put(",\n      \"role\": "), role_name(g.role));
    out.put(",\n      \"count\": ").number(g.count);
    append_list(out.put(",\n      \"ranks\": "), g.ranks, [](Cursor& c, int rank) {
      if (rank < 0) c.put('-');
      c.number(rank < 0 ? 0 - static_cast<std::uint64_t>(static_cast<std::int64_t>(rank))
                        : static_cast<std::uint64_t>(rank));
    });
    append_list(out.put(",\n      \"hosts\": "), g.hosts, [](Cursor& c, const std::string& h) { append_string(c, h, false); });
    out.put(",\n      \"first_time\": ").put(nullable_time(g.first_us).dump());
    out.put(",\n      \"last_time\": ").put(nullable_time(g.last_us).dump());
    out.put(",\n      \"delay_seconds\": ")
        .put((g.delay_us ? json(static_cast<double>(*g.delay_us) / 1e6) : json(nullptr)).dump());
    append_string(out.put(",\n      \"example\": "), clean(g.example));
    append_string(out.put(",\n      \"first_file\": "), clean(g.first_file));
    out.put(",\n      \"first_line\": ").number(g.first_line);
    out.put(",\n      \"same_as_root\": ").put(g.same_as_root ? std::string_view("true") : std::string_view("false"));
  });
}

void append_diagnostics(std::string& text, const Drain*& drain, const std::vector<Diagnostic>& diagnostics) {
  append_objects(text, drain, diagnostics, "severity", [](Cursor& out, const Diagnostic& d) {
    append_string(out, severity_name(d.severity));
    append_string(out.put(",\n      \"code\": "), d.code);
    append_string(out.put(",\n      \"message\": "), d.message);
    nullable(out.put(",\n      \"path\": "), d.path);
    nullable(out.put(",\n      \"line\": "), d.line ? static_cast<long long>(d.line) : -1);
    nullable(out.put(",\n      \"hint\": "), d.hint);
    out.put(",\n      \"count\": ").number(d.count);
  });
}

// The report's text: all of it left in `out`, or with a drain, handed over in pieces (what is
// left at the end is in `out`).
void render_json_into(const Report& report, std::string& out, const Drain* drain) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["verdict"] = verdict_name(report.verdict);
  // Third, not second: own_report.cc recognises a report by `schema_version` then `verdict`.
  doc["megatriage_version"] = megatriage_version();
  if (report.job) doc["job"] = job_json(*report.job);
  if (report.root_cause) {
    const auto& r = *report.root_cause;
    json checks = json::array();
    for (const auto& c : r.checks)
      checks.push_back({{"id", c.id}, {"text", clean(c.text)}, {"status", check_status_name(c.status)}, {"detail", clean(c.detail)}});
    json fields = json::object();
    for (const auto& [k, v] : r.fields) {
      auto type = r.field_types.find(k);
      fields[k] = typed_json(type == r.field_types.end() ? FactType::Text : type->second, v);
    }
    json facts = json::object();
    for (const auto& [k, v] : r.facts) facts[k] = typed_json(fact_spec(k).type, v);
    json chain = json::array();
    for (const auto& c : r.chain) chain.push_back(clean(c));
    json context = json::array();
    for (const auto& c : r.context) context.push_back({{"line", c.line}, {"text", clean(c.text)}});
    doc["root_cause"] = {
        {"category", category_name(r.category)},
        {"rule", r.rule},
        {"title", r.title},
        {"explain", clean(r.explain)},
        {"evidence", evidence_json_name(r.evidence, r.fragment)},
        {"rank", nullable_int(r.rank)},
        {"rank_basis", rank_basis_name(r.rank_basis)},
        {"local_rank", nullable_int(r.local_rank)},
        {"task", nullable_int(r.task)},
        {"host", nullable_str(clean(r.host))},
        {"file", clean(r.file)},
        {"line", r.line},
        {"time", nullable_time(r.time_us)},
        {"time_basis", time_basis_name(r.time_basis)},
        {"time_after", nullable_time(r.after_us)},
        {"time_before", nullable_time(r.before_us)},
        {"year_inferred", r.year_inferred},
        {"exception", clean(r.exception)},
        {"chain", chain},
        {"frames", frames_json(r.frames)},
        {"headline", clean(r.headline)},
        {"failure_name", clean(r.failure_name)},
        {"same_failure_ranks", r.same_failure_ranks},
        {"every_rank", r.every_rank},
        {"context", std::move(context)},
        {"checks", checks},
        {"fields", fields},
        {"facts", facts},
        {"confidence", confidence_name(r.confidence)},
        {"basis", basis_name(r.basis)},
        {"reasons", r.reasons},
        {"tied_ranks", r.tied_ranks},
        {"tied_events", r.tied_events},
    };
  } else {
    doc["root_cause"] = nullptr;
  }
  doc["symptoms"] = nullptr;     // written directly, below
  doc["files"] = nullptr;        // written directly, below
  doc["diagnostics"] = nullptr;
  // Occurrences per diagnostic code: what the text report folds its lines by.
  json diagnostic_counts = json::object();
  for (const DiagnosticGroup& g : group_diagnostics_by_code(report.diagnostics))
    diagnostic_counts[std::string(g.code)] = g.occurrences;
  doc["diagnostic_counts"] = std::move(diagnostic_counts);
  doc["ordering"] = report.ordering;
  json scripts = json::array();
  for (const auto& path : report.scripts) scripts.push_back(clean(path));
  doc["scripts"] = std::move(scripts);
  doc["rules"] = {{"count", report.rule_count}};
  if (report.slurm) doc["slurm"] = slurm_json(*report.slurm);
  // The top-level object by hand, each member dumped by the library (replace, never throw, on
  // anything that slipped through unrepaired) and indented one level, except the arrays
  // written directly. Raw newlines in a dump only ever separate lines: strings escape theirs.
  out = "{";
  // The size, estimated from above from the long lists (files, diagnostics, each symptom's
  // ranks and hosts), so the text is written into one allocation (with a drain, pieces of
  // kDrainBytes and a little more).
  std::size_t size_hint = 64 << 10;
  for (const auto& f : report.files) size_hint += 260 + f.path.size();
  for (const auto& d : report.diagnostics) size_hint += 200 + d.message.size() + d.path.size() + d.hint.size();
  for (const auto& g : report.symptoms) {
    size_hint += 2048 + 16 * g.ranks.size();
    for (const auto& h : g.hosts) size_hint += 16 + h.size();
  }
  out.reserve(drain != nullptr ? std::min(size_hint, 2 * kDrainBytes) : size_hint);
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    drain_if_full(out, drain);
    out += first ? "\n  " : ",\n  ";
    first = false;
    append_string(out, key);
    out += ": ";
    if (key == "files") {
      append_files(out, drain, report.files);
    } else if (key == "symptoms") {
      append_symptoms(out, drain, report.symptoms);
    } else if (key == "diagnostics") {
      append_diagnostics(out, drain, report.diagnostics);
    } else {
      const std::string text = value.dump(2, ' ', false, json::error_handler_t::replace);
      for (std::size_t at = 0; at < text.size();) {
        std::size_t nl = text.find('\n', at);
        if (nl == std::string::npos) nl = text.size() - 1;
        out.append(text, at, nl + 1 - at);
        if (text[nl] == '\n') out += "  ";
        at = nl + 1;
      }
    }
  }
  out += "\n}\n";
}

}  // namespace

std::string render_json(const Report& report) {
  std::string out;
  render_json_into(report, out, nullptr);
  return out;
}

bool render_json_streamed(const Report& report, const std::function<bool(std::string_view)>& write) {
  bool ok = true;
  const Drain drain = [&](std::string_view piece) { return ok = ok && write(piece); };
  std::string rest;
  render_json_into(report, rest, &drain);
  return drain(rest);
}

std::string render_json_jobs(const std::vector<const Report*>& reports) {
  // Each report exactly as render_json writes it, indented two levels inside the envelope.
  std::string out = "{\n  \"schema_version\": " + std::to_string(kSchemaVersion) + ",\n  \"jobs\": [";
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const std::string one = render_json(*reports[k]);
    out += k == 0 ? "\n    " : ",\n    ";
    // Raw newlines in a report only ever separate lines: strings escape theirs.
    for (std::size_t at = 0; at < one.size();) {
      std::size_t nl = one.find('\n', at);
      if (nl == std::string::npos) nl = one.size();
      out.append(one, at, nl - at);
      at = nl + 1;
      if (at < one.size()) out += "\n    ";
    }
  }
  // After the jobs: own_report.cc recognises the envelope by `schema_version` then `jobs`.
  out += reports.empty() ? "]" : "\n  ]";
  out += ",\n  \"megatriage_version\": \"" + std::string(megatriage_version()) + "\"\n}\n";
  return out;
}

}  // namespace megatriage
