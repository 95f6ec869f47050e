#include <charconv>
#include <nlohmann/json.hpp>

#include "render.h"
#include "text_util.h"
#include "timestamp.h"

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

json nullable_int(int v) { return v >= 0 ? json(v) : json(nullptr); }
json nullable_str(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }
json nullable_time(const std::optional<std::int64_t>& us) {
  return us ? json(format_iso(*us)) : json(nullptr);
}
// Log text may hold invalid UTF-8 or escapes: repair before it enters the document.
std::string clean(const std::string& s) { return repair_utf8(s); }

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

// A JSON string as dump() writes it (no ASCII escaping of UTF-8), log text repaired first like
// clean() does: plain printable ASCII is copied as it is; anything else goes through the
// library so escapes and repairs stay identical.
void append_string(std::string& out, const std::string& s) {
  bool plain = true;
  for (unsigned char c : s) plain = plain && c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  if (!plain) {
    out += json(clean(s)).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

void append_number(std::string& out, std::uint64_t v) {
  char digits[24];
  out.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, v).ptr - digits));
}

// One object of scalar fields at `depth` (an element of a top-level array: depth 2).
class FlatObject {
 public:
  FlatObject(std::string& out, int depth) : out_(out), depth_(depth) {
    out_.append(static_cast<std::size_t>(2 * depth_), ' ');
    out_ += '{';
  }
  ~FlatObject() {
    out_ += '\n';
    out_.append(static_cast<std::size_t>(2 * depth_), ' ');
    out_ += '}';
  }
  FlatObject& str(const char* key, const std::string& v) { return append_string(start(key), v), *this; }
  FlatObject& null_str(const char* key, const std::string& v) {
    if (v.empty()) start(key) += "null";
    else append_string(start(key), v);
    return *this;
  }
  FlatObject& num(const char* key, std::uint64_t v) { return append_number(start(key), v), *this; }
  FlatObject& null_int(const char* key, long long v) {
    if (v >= 0) append_number(start(key), static_cast<std::uint64_t>(v));
    else start(key) += "null";
    return *this;
  }
  FlatObject& boolean(const char* key, bool v) { return start(key) += v ? "true" : "false", *this; }

 private:
  std::string& start(const char* key) {
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
    out_.append(static_cast<std::size_t>(2 * depth_ + 2), ' ');
    out_ += '"';
    out_ += key;
    out_ += "\": ";
    return out_;
  }
  std::string& out_;
  int depth_;
  bool first_ = true;
};

// A top-level array of flat objects, appended to `out` as the value after `"key": `.
template <typename T, typename Write>
void append_flat_array(std::string& out, const std::vector<T>& items, Write write) {
  if (items.empty()) {
    out += "[]";
    return;
  }
  out += '[';
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    FlatObject object(out, 2);
    write(object, items[i]);
  }
  out += "\n  ]";
}

void append_files(std::string& out, const std::vector<FileSummary>& files) {
  append_flat_array(out, files, [](FlatObject& o, const FileSummary& f) {
    o.str("path", f.path)
        .str("compression", f.compression)
        .num("size_bytes", f.size_bytes)
        .num("bytes", f.bytes)
        .num("lines", f.lines)
        .num("events", f.events)
        .null_int("rank", f.rank)
        .null_int("local_rank", f.local_rank)
        .null_int("task", f.task)
        .boolean("skipped", f.skipped);
  });
}

void append_diagnostics(std::string& out, const std::vector<Diagnostic>& diagnostics) {
  append_flat_array(out, diagnostics, [](FlatObject& o, const Diagnostic& d) {
    o.str("severity", severity_name(d.severity))
        .str("code", d.code)
        .str("message", d.message)
        .null_str("path", d.path)
        .null_int("line", d.line ? static_cast<long long>(d.line) : -1)
        .null_str("hint", d.hint)
        .num("count", d.count);
  });
}

}  // namespace

std::string render_json(const Report& report) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["verdict"] = report.verdict;
  if (report.root_cause) {
    const auto& r = *report.root_cause;
    json checks = json::array();
    for (const auto& c : r.checks)
      checks.push_back({{"id", c.id}, {"text", clean(c.text)}, {"status", c.status}, {"detail", clean(c.detail)}});
    json fields = json::object();
    for (const auto& [k, v] : r.fields) fields[k] = clean(v);
    json facts = json::object();
    for (const auto& [k, v] : r.facts) facts[k] = clean(v);
    json chain = json::array();
    for (const auto& c : r.chain) chain.push_back(clean(c));
    doc["root_cause"] = {
        {"category", r.category},
        {"rule", r.rule},
        {"title", r.title},
        {"explain", clean(r.explain)},
        {"evidence", r.evidence},
        {"rank", nullable_int(r.rank)},
        {"local_rank", nullable_int(r.local_rank)},
        {"task", nullable_int(r.task)},
        {"host", nullable_str(clean(r.host))},
        {"file", clean(r.file)},
        {"line", r.line},
        {"time", nullable_time(r.time_us)},
        {"time_basis", r.time_basis},
        {"time_after", nullable_time(r.after_us)},
        {"time_before", nullable_time(r.before_us)},
        {"year_inferred", r.year_inferred},
        {"exception", clean(r.exception)},
        {"chain", chain},
        {"frames", frames_json(r.frames)},
        {"headline", clean(r.headline)},
        {"checks", checks},
        {"fields", fields},
        {"facts", facts},
        {"confidence", r.confidence},
        {"basis", r.basis},
        {"reasons", r.reasons},
    };
  } else {
    doc["root_cause"] = nullptr;
  }
  json symptoms = json::array();
  for (const auto& g : report.symptoms) {
    symptoms.push_back({
        {"rule", g.rule},
        {"title", g.title},
        {"category", g.category},
        {"role", g.role},
        {"count", g.count},
        {"ranks", g.ranks},
        {"hosts", g.hosts},
        {"first_time", nullable_time(g.first_us)},
        {"last_time", nullable_time(g.last_us)},
        {"delay_seconds", g.delay_us ? json(static_cast<double>(*g.delay_us) / 1e6) : json(nullptr)},
        {"example", clean(g.example)},
        {"first_file", clean(g.first_file)},
        {"first_line", g.first_line},
    });
  }
  doc["symptoms"] = symptoms;
  doc["files"] = nullptr;        // written directly, below
  doc["diagnostics"] = nullptr;
  doc["ordering"] = report.ordering;
  json scripts = json::array();
  for (const auto& path : report.scripts) scripts.push_back(clean(path));
  doc["scripts"] = scripts;
  doc["rules"] = {{"count", report.rule_count}};
  if (report.slurm) doc["slurm"] = slurm_json(*report.slurm);
  // The top-level object by hand, each member dumped by the library (replace, never throw, on
  // anything that slipped through unrepaired) and indented one level, except the two arrays
  // written directly. Raw newlines in a dump only ever separate lines: strings escape theirs.
  std::string out = "{";
  // The size, estimated from above from the long lists (files, diagnostics, each symptom's
  // ranks and hosts), so the text is written into one allocation.
  std::size_t size_hint = 64 << 10;
  for (const auto& f : report.files) size_hint += 260 + f.path.size();
  for (const auto& d : report.diagnostics) size_hint += 200 + d.message.size() + d.path.size() + d.hint.size();
  for (const auto& g : report.symptoms) {
    size_hint += 2048 + 16 * g.ranks.size();
    for (const auto& h : g.hosts) size_hint += 16 + h.size();
  }
  out.reserve(size_hint);
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    append_string(out, key);
    out += ": ";
    if (key == "files") {
      append_files(out, report.files);
    } else if (key == "diagnostics") {
      append_diagnostics(out, report.diagnostics);
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
  return out;
}

}  // namespace megatriage
