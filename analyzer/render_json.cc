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
  json files = json::array();
  for (const auto& f : report.files) {
    files.push_back({{"path", clean(f.path)},
                     {"compression", f.compression},
                     {"size_bytes", f.size_bytes},
                     {"bytes", f.bytes},
                     {"lines", f.lines},
                     {"events", f.events},
                     {"rank", nullable_int(f.rank)},
                     {"local_rank", nullable_int(f.local_rank)},
                     {"task", nullable_int(f.task)},
                     {"skipped", f.skipped}});
  }
  doc["files"] = files;
  json diags = json::array();
  for (const auto& d : report.diagnostics) {
    diags.push_back({{"severity", severity_name(d.severity)},
                     {"code", d.code},
                     {"message", clean(d.message)},
                     {"path", nullable_str(clean(d.path))},
                     {"line", d.line ? json(d.line) : json(nullptr)},
                     {"hint", nullable_str(clean(d.hint))},
                     {"count", d.count}});
  }
  doc["diagnostics"] = diags;
  doc["ordering"] = report.ordering;
  json scripts = json::array();
  for (const auto& path : report.scripts) scripts.push_back(clean(path));
  doc["scripts"] = scripts;
  doc["rules"] = {{"count", report.rule_count}};
  if (report.slurm) doc["slurm"] = slurm_json(*report.slurm);
  // Replace, never throw, on anything that slipped through unrepaired.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace megatriage
