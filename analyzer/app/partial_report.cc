#include "app/partial_report.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/text_util.h"
#include "base/version.h"

namespace megatriage {
namespace {

// Written with keys in this file's order (format and version first, so that a reader, or
// `head -c 80`, sees what the file is); read with any order.
using Out = nlohmann::ordered_json;
using In = nlohmann::json;

// ---------------------------------------------------------------- enums by name

const char* time_source_word(TimeSource s) {
  switch (s) {
    case TimeSource::Explicit: return "explicit";
    case TimeSource::Inherited: return "inherited";
    case TimeSource::None: break;
  }
  return "none";
}
TimeSource time_source_from(const std::string& w) {
  if (w == "explicit") return TimeSource::Explicit;
  if (w == "inherited") return TimeSource::Inherited;
  return TimeSource::None;
}
const char* kind_word(EventKind k) {
  switch (k) {
    case EventKind::Traceback: return "traceback";
    case EventKind::ChildFailure: return "child";
    case EventKind::RuleLine: break;
  }
  return "line";
}
EventKind kind_from(const std::string& w) {
  if (w == "traceback") return EventKind::Traceback;
  if (w == "child") return EventKind::ChildFailure;
  return EventKind::RuleLine;
}
Compression compression_from(const std::string& w) {
  for (Compression c : {Compression::Gzip, Compression::Bzip2, Compression::Xz, Compression::Zstd})
    if (w == compression_name(c)) return c;
  return Compression::None;
}
Severity severity_from(const std::string& w) {
  if (w == severity_name(Severity::Error)) return Severity::Error;
  if (w == severity_name(Severity::Info)) return Severity::Info;
  return Severity::Warning;
}
ChainKind chain_from(const std::string& w) {
  if (w == chain_kind_name(ChainKind::Cause)) return ChainKind::Cause;
  if (w == chain_kind_name(ChainKind::Context)) return ChainKind::Context;
  return ChainKind::None;
}

// ---------------------------------------------------------------- text
// Log text is kept as printed, and not all of it is UTF-8 (a Latin-1 file name, a cut
// character). JSON strings must be, so such a string is written as {"bytes": T}, T holding one
// character U+0000..U+00FF per byte: the merge gets the very bytes back, and with them the same
// captures and report as one scan.

Out text_json(const std::string& s) {
  if (is_valid_utf8(s)) return s;
  std::string latin;
  latin.reserve(s.size() * 2);
  for (unsigned char c : s) {
    if (c < 0x80) {
      latin += static_cast<char>(c);
    } else {
      latin += static_cast<char>(0xc0 | (c >> 6));
      latin += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  Out o;
  o["bytes"] = std::move(latin);
  return o;
}

std::string text_from(const In& j) {
  if (j.is_string()) return j.get<std::string>();
  const std::string latin = j.at("bytes").get<std::string>();
  std::string bytes;
  bytes.reserve(latin.size());
  for (std::size_t i = 0; i < latin.size(); ++i) {
    const auto c = static_cast<unsigned char>(latin[i]);
    if (c < 0x80) {
      bytes += static_cast<char>(c);
    } else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < latin.size()) {
      bytes += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(latin[++i]) & 0x3f));
    } else {
      throw std::runtime_error("a \"bytes\" string holds a character above U+00FF");
    }
  }
  return bytes;
}

std::string text_at(const In& o, const char* key) {
  auto it = o.find(key);
  return it == o.end() ? std::string() : text_from(*it);
}

// ---------------------------------------------------------------- writing
// Fields at their default value are left out: most events have no traceback, child, host or
// second stamp, and a node's partial should stay small (docs/partial-reports.md).

Out civil_json(const CivilTime& t) {
  return Out::array({t.year, t.month, t.day, t.hour, t.minute, t.second, t.micros});
}

Out attribution_json(const Attribution& a) {
  Out o = Out::object();
  if (a.rank >= 0) o["rank"] = a.rank;
  if (a.local_rank >= 0) o["local_rank"] = a.local_rank;
  if (a.task >= 0) o["task"] = a.task;
  if (!a.host.empty()) o["host"] = text_json(a.host);
  return o;
}

Out diagnostic_json(const Diagnostic& d) {
  Out o;
  o["severity"] = severity_name(d.severity);
  o["code"] = text_json(d.code);
  o["message"] = text_json(d.message);
  if (!d.path.empty()) o["path"] = text_json(d.path);
  if (d.line) o["line"] = d.line;
  if (!d.hint.empty()) o["hint"] = text_json(d.hint);
  if (d.count != 1) o["count"] = d.count;
  return o;
}

Out traceback_json(const Traceback& t) {
  Out o;
  Out blocks = Out::array();
  for (const ExceptionBlock& b : t.blocks) {
    Out j;
    j["header_line"] = b.header_line;
    j["exception_line"] = b.exception_line;
    j["exception_offset"] = b.exception_offset;
    j["exception"] = text_json(b.exception);
    if (!b.message_tail.empty()) j["message_tail"] = text_json(b.message_tail);
    Out frames = Out::array();
    for (const Frame& f : b.frames) frames.push_back(Out::array({text_json(f.path), f.line, text_json(f.function), text_json(f.source)}));
    j["frames"] = std::move(frames);
    if (b.frames_truncated) j["frames_truncated"] = true;
    if (b.frames_seen != b.frames.size()) j["frames_seen"] = b.frames_seen;
    if (b.message_truncated) j["message_truncated"] = true;
    if (b.embedded) j["embedded"] = true;
    blocks.push_back(std::move(j));
  }
  o["blocks"] = std::move(blocks);
  if (t.chain_kind != ChainKind::None) o["chain"] = chain_kind_name(t.chain_kind);
  if (t.exception_group) o["exception_group"] = true;
  if (t.incomplete) o["incomplete"] = true;
  if (t.headerless) o["headerless"] = true;
  o["first_line"] = t.first_line;
  o["last_line"] = t.last_line;
  o["first_offset"] = t.first_offset;
  return o;
}

Out event_json(const Event& e, const RuleMatcher& matcher) {
  Out o;
  o["kind"] = kind_word(e.kind);
  o["line"] = e.origin.line;
  o["offset"] = e.origin.offset;
  if (e.last_line != e.origin.line) o["last_line"] = e.last_line;
  if (e.decisive_block != -1) o["decisive_block"] = e.decisive_block;
  if (e.time.source != TimeSource::None || e.time.us != 0) {
    o["time_us"] = e.time.us;
    o["time_source"] = time_source_word(e.time.source);
  }
  if (e.time.year_inferred) o["year_inferred"] = true;
  if (e.before_us) o["before_us"] = *e.before_us;
  if (e.civil) o["civil"] = civil_json(*e.civil);
  if (e.before_civil) o["before_civil"] = civil_json(*e.before_civil);
  Out who = attribution_json(e.who);
  if (!who.empty()) o["who"] = std::move(who);
  o["text"] = text_json(e.text);
  if (!e.matches.empty()) {
    Out rules = Out::array();
    for (const RuleMatch& m : e.matches) rules.push_back(matcher.rules()[static_cast<std::size_t>(m.rule_index)].id);
    o["rules"] = std::move(rules);
  }
  if (e.matched_line) o["matched_line"] = text_json(*e.matched_line);
  if (e.kind == EventKind::Traceback) o["traceback"] = traceback_json(*e.traceback);
  if (e.kind == EventKind::ChildFailure) {
    const ChildFailure& c = *e.child;
    Out j;
    j["rank"] = c.rank;
    j["local_rank"] = c.local_rank;
    j["exitcode"] = c.exitcode;
    j["pid"] = c.pid;
    j["host"] = text_json(c.host);
    if (c.root_cause_section) j["root_cause_section"] = true;
    j["table_index"] = c.table_index;
    o["child"] = std::move(j);
  }
  return o;
}

Out file_json(const FileResult& r, const std::vector<ContextLine>& context, const RuleMatcher& matcher) {
  Out o;
  const SourceFile& f = r.file;
  o["path"] = text_json(f.display_path);
  o["read_as"] = text_json(f.path);
  o["size_bytes"] = f.size_bytes;
  o["mtime_us"] = f.mtime_us;
  if (f.sized) o["identity"] = Out::array({f.device, f.inode});
  o["compression"] = compression_name(f.compression);
  Out hint = attribution_json(f.hint);
  if (!hint.empty()) o["hint"] = std::move(hint);
  if (f.is_stdout) o["is_stdout"] = true;
  if (f.is_stdin) o["is_stdin"] = true;
  o["bytes"] = r.bytes;
  o["lines"] = r.lines;
  o["stamped_lines"] = r.stamped_lines;
  if (r.first_full_year) o["first_full_year"] = r.first_full_year;
  if (r.first_full_month) o["first_full_month"] = r.first_full_month;
  if (r.first_stamp) o["first_stamp"] = civil_json(*r.first_stamp);
  if (r.last_stamp) o["last_stamp"] = civil_json(*r.last_stamp);
  if (r.first_stamp_us) o["first_stamp_us"] = *r.first_stamp_us;
  if (r.last_stamp_us) o["last_stamp_us"] = *r.last_stamp_us;
  if (!r.named_ranks.empty()) o["named_ranks"] = r.named_ranks;
  if (r.binary) o["binary"] = true;
  if (r.own_report) o["own_report"] = true;
  if (r.unopened) o["unopened"] = true;
  Out events = Out::array();
  for (const Event& e : r.events) events.push_back(event_json(e, matcher));
  o["events"] = std::move(events);
  Out facts = Out::array();
  for (const Fact& fact : r.facts) {
    Out j = Out::array({text_json(fact.key), text_json(fact.value), fact.line});
    if (fact.rank >= 0) j.push_back(fact.rank);
    facts.push_back(std::move(j));
  }
  o["facts"] = std::move(facts);
  Out diags = Out::array();
  for (const Diagnostic& d : r.diagnostics) diags.push_back(diagnostic_json(d));
  o["diagnostics"] = std::move(diags);
  Out lines = Out::array();
  for (const ContextLine& c : context) lines.push_back(Out::array({c.line, text_json(c.text)}));
  o["context"] = std::move(lines);
  return o;
}

// ---------------------------------------------------------------- reading
// nlohmann's value() and get() throw on a wrong type; partial_from_json turns that into its
// error, so a damaged file is refused as a whole rather than half read.

CivilTime civil_from(const In& j) {
  CivilTime t;
  t.year = j.at(0).get<int>();
  t.month = j.at(1).get<int>();
  t.day = j.at(2).get<int>();
  t.hour = j.at(3).get<int>();
  t.minute = j.at(4).get<int>();
  t.second = j.at(5).get<int>();
  t.micros = j.at(6).get<int>();
  return t;
}

Attribution attribution_from(const In& o, const char* key) {
  Attribution a;
  auto it = o.find(key);
  if (it == o.end()) return a;
  a.rank = it->value("rank", -1);
  a.local_rank = it->value("local_rank", -1);
  a.task = it->value("task", -1);
  a.host = text_at(*it, "host");
  return a;
}

Diagnostic diagnostic_from(const In& j) {
  Diagnostic d;
  d.severity = severity_from(j.at("severity").get<std::string>());
  d.code = text_from(j.at("code"));
  d.message = text_from(j.at("message"));
  d.path = text_at(j, "path");
  d.line = j.value("line", std::uint64_t{0});
  d.hint = text_at(j, "hint");
  d.count = j.value("count", std::uint64_t{1});
  return d;
}

Traceback traceback_from(const In& j) {
  Traceback t;
  for (const In& b : j.at("blocks")) {
    ExceptionBlock x;
    x.header_line = b.at("header_line").get<std::uint64_t>();
    x.exception_line = b.at("exception_line").get<std::uint64_t>();
    x.exception_offset = b.at("exception_offset").get<std::uint64_t>();
    x.exception = text_from(b.at("exception"));
    x.message_tail = text_at(b, "message_tail");
    for (const In& f : b.at("frames"))
      x.frames.push_back(Frame{text_from(f.at(0)), f.at(1).get<int>(), text_from(f.at(2)), text_from(f.at(3))});
    x.frames_truncated = b.value("frames_truncated", false);
    x.frames_seen = b.value("frames_seen", x.frames.size());
    x.message_truncated = b.value("message_truncated", false);
    x.embedded = b.value("embedded", false);
    t.blocks.push_back(std::move(x));
  }
  t.chain_kind = chain_from(j.value("chain", std::string()));
  t.exception_group = j.value("exception_group", false);
  t.incomplete = j.value("incomplete", false);
  t.headerless = j.value("headerless", false);
  t.first_line = j.at("first_line").get<std::uint64_t>();
  t.last_line = j.at("last_line").get<std::uint64_t>();
  t.first_offset = j.at("first_offset").get<std::uint64_t>();
  return t;
}

struct RuleIndex {
  std::unordered_map<std::string, int> by_id;
  std::vector<std::string> unknown;  // ids this matcher lacks, once each
};

Event event_from(const In& j, FileId file, RuleIndex& rules) {
  Event e;
  e.kind = kind_from(j.at("kind").get<std::string>());
  e.origin = Origin{file, j.at("line").get<std::uint64_t>(), j.at("offset").get<std::uint64_t>()};
  e.last_line = j.value("last_line", e.origin.line);
  e.decisive_block = j.value("decisive_block", -1);
  e.time.us = j.value("time_us", std::int64_t{0});
  e.time.source = time_source_from(j.value("time_source", std::string()));
  e.time.year_inferred = j.value("year_inferred", false);
  if (auto it = j.find("before_us"); it != j.end()) e.before_us = it->get<std::int64_t>();
  if (auto it = j.find("civil"); it != j.end()) e.civil = civil_from(*it);
  if (auto it = j.find("before_civil"); it != j.end()) e.before_civil = civil_from(*it);
  e.who = attribution_from(j, "who");
  e.text = text_from(j.at("text"));
  if (auto it = j.find("rules"); it != j.end()) {
    for (const In& id : *it) {
      const std::string name = id.get<std::string>();
      auto found = rules.by_id.find(name);
      if (found != rules.by_id.end()) {
        e.matches.push_back(RuleMatch{found->second});
      } else if (std::find(rules.unknown.begin(), rules.unknown.end(), name) == rules.unknown.end()) {
        rules.unknown.push_back(name);
      }
    }
  }
  if (auto it = j.find("matched_line"); it != j.end())
    e.matched_line = std::make_shared<const std::string>(text_from(*it));
  if (e.kind == EventKind::Traceback) e.traceback = traceback_from(j.at("traceback"));
  if (e.kind == EventKind::ChildFailure) {
    const In& c = j.at("child");
    ChildFailure child;
    child.rank = c.at("rank").get<int>();
    child.local_rank = c.at("local_rank").get<int>();
    child.exitcode = c.at("exitcode").get<int>();
    child.pid = c.at("pid").get<int>();
    child.host = text_from(c.at("host"));
    child.root_cause_section = c.value("root_cause_section", false);
    child.table_index = c.at("table_index").get<int>();
    e.child = std::move(child);
  }
  return e;
}

FileResult file_from(const In& j, FileId id, RuleIndex& rules, std::vector<ContextLine>& context) {
  FileResult r;
  SourceFile& f = r.file;
  f.id = id;
  f.display_path = text_from(j.at("path"));
  f.path = text_from(j.at("read_as"));
  f.size_bytes = j.at("size_bytes").get<std::uint64_t>();
  f.mtime_us = j.at("mtime_us").get<std::int64_t>();
  if (auto it = j.find("identity"); it != j.end()) {
    f.sized = true;
    f.device = it->at(0).get<std::uint64_t>();
    f.inode = it->at(1).get<std::uint64_t>();
  }
  f.compression = compression_from(j.at("compression").get<std::string>());
  f.hint = attribution_from(j, "hint");
  f.is_stdout = j.value("is_stdout", false);
  f.is_stdin = j.value("is_stdin", false);
  r.bytes = j.at("bytes").get<std::uint64_t>();
  r.lines = j.at("lines").get<std::uint64_t>();
  r.stamped_lines = j.at("stamped_lines").get<std::uint64_t>();
  r.first_full_year = j.value("first_full_year", 0);
  r.first_full_month = j.value("first_full_month", 0);
  if (auto it = j.find("first_stamp"); it != j.end()) r.first_stamp = civil_from(*it);
  if (auto it = j.find("last_stamp"); it != j.end()) r.last_stamp = civil_from(*it);
  if (auto it = j.find("first_stamp_us"); it != j.end()) r.first_stamp_us = it->get<std::int64_t>();
  if (auto it = j.find("last_stamp_us"); it != j.end()) r.last_stamp_us = it->get<std::int64_t>();
  if (auto it = j.find("named_ranks"); it != j.end()) r.named_ranks = it->get<std::vector<int>>();
  r.binary = j.value("binary", false);
  r.own_report = j.value("own_report", false);
  r.unopened = j.value("unopened", false);
  const In& events = j.at("events");
  r.events.reserve(events.size());
  for (const In& e : events) r.events.push_back(event_from(e, id, rules));
  for (const In& fact : j.at("facts"))
    r.facts.push_back(Fact{text_from(fact.at(0)), text_from(fact.at(1)),
                           fact.at(2).get<std::uint64_t>(), fact.size() > 3 ? fact.at(3).get<int>() : -1});
  for (const In& d : j.at("diagnostics")) r.diagnostics.push_back(diagnostic_from(d));
  for (const In& c : j.at("context")) context.push_back(ContextLine{c.at(0).get<std::uint64_t>(), text_from(c.at(1))});
  return r;
}

}  // namespace

std::string rules_fingerprint(const RuleMatcher& matcher) {
  // FNV-1a, 64 bits: a check that two runs loaded the same rules, not a defence.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const Rule& r : matcher.rules()) {
    mix(r.id);
    mix(r.regex);
    mix(role_name(r.role));
    mix(category_name(r.category));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string partial_to_json(const PartialReport& p, const RuleMatcher* matcher) {
  Out o;
  o["format"] = kPartialFormat;
  o["version"] = p.version;
  o["megatriage_version"] = p.megatriage_version;
  Out job = Out::object();
  if (!p.job_id.empty()) job["id"] = p.job_id;
  if (!p.cluster.empty()) job["cluster"] = p.cluster;
  o["job"] = std::move(job);
  o["host"] = p.host;
  o["nodes"] = p.nodes;
  o["rules_fingerprint"] = p.rules_fingerprint;
  o["context_lines"] = p.context_lines;
  if (!p.problem.empty()) o["problem"] = p.problem;
  Out diags = Out::array();
  for (const Diagnostic& d : p.diagnostics) diags.push_back(diagnostic_json(d));
  o["diagnostics"] = std::move(diags);
  Out files = Out::array();
  static const std::vector<ContextLine> kNone;
  for (std::size_t i = 0; i < p.files.size() && matcher != nullptr; ++i)
    files.push_back(file_json(p.files[i], i < p.context.size() ? p.context[i] : kNone, *matcher));
  o["files"] = std::move(files);
  // Invalid UTF-8 in a log line (the analysis keeps bytes as printed) is replaced, not fatal.
  return o.dump(-1, ' ', false, Out::error_handler_t::replace) + "\n";
}

PartialParse partial_from_json(std::string_view text, const RuleMatcher& matcher, const std::string& name) {
  PartialParse out;
  try {
    const In j = In::parse(text);
    if (!j.is_object() || j.value("format", std::string()) != kPartialFormat) {
      out.error = name + " is not a megatriage partial report (no \"format\": \"" + kPartialFormat + "\")";
      return out;
    }
    const In& version = j.at("version");
    if (!version.is_number_integer() || version.get<int>() != kPartialVersion) {
      out.error = name + " is a partial report of version " + version.dump() + "; this megatriage (" +
                  megatriage_version() + ") reads version " + std::to_string(kPartialVersion) +
                  ": write it again with this version";
      return out;
    }
    PartialReport p;
    p.megatriage_version = j.value("megatriage_version", std::string());
    const In& job = j.at("job");
    p.job_id = job.value("id", std::string());
    p.cluster = job.value("cluster", std::string());
    p.host = j.at("host").get<std::string>();
    p.nodes = j.at("nodes").get<std::vector<std::string>>();
    p.rules_fingerprint = j.value("rules_fingerprint", std::string());
    p.context_lines = j.value("context_lines", std::size_t{0});
    p.problem = j.value("problem", std::string());
    for (const In& d : j.at("diagnostics")) p.diagnostics.push_back(diagnostic_from(d));
    RuleIndex rules;
    for (std::size_t i = 0; i < matcher.rules().size(); ++i) rules.by_id.emplace(matcher.rules()[i].id, static_cast<int>(i));
    const In& files = j.at("files");
    p.files.reserve(files.size());
    p.context.resize(files.size());
    for (std::size_t i = 0; i < files.size(); ++i)
      p.files.push_back(file_from(files[i], static_cast<FileId>(i), rules, p.context[i]));
    for (const std::string& id : rules.unknown)
      out.diagnostics.push_back({Severity::Warning, "merge.unknown-rule",
                                 name + " names rule '" + id + "', which these rules do not have: its matches are left out",
                                 "", 0, "merge with the rules the partial report was written with (--rules)", 1});
    out.partial = std::move(p);
  } catch (const std::exception& e) {
    out.partial.reset();
    out.error = name + " cannot be read as a partial report: " + e.what();
  }
  return out;
}

}  // namespace megatriage
