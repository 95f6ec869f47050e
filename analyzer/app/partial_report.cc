#include "app/partial_report.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/json_cursor.h"
#include "base/text_util.h"
#include "base/version.h"

namespace megatriage {
namespace {

// Written with keys in this file's order (format and version first, so that a reader, or
// `head -c 80`, sees what the file is); read with any order but those two first.
using Out = nlohmann::ordered_json;

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

Out text_json(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
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

std::string text_from(JsonCursor& in) {
  if (in.peek() == '"') return in.string();
  std::string latin;
  in.object([&](std::string_view key) {
    if (key == "bytes") latin = in.string();
    else in.skip();
  });
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
    for (std::size_t i = 0; i < b.frames.size(); ++i)
      frames.push_back(Out::array({text_json(b.frames.path(i)), b.frames.line(i), text_json(b.frames.function(i)),
                                   text_json(b.frames.source(i))}));
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

Out script_json(const FoundScript& f) {
  Out o;
  o["path"] = text_json(f.name);
  o["read_as"] = text_json(f.path);
  if (f.text) o["text"] = text_json(*f.text);
  if (!f.problems.empty()) {
    Out diags = Out::array();
    for (const Diagnostic& d : f.problems) diags.push_back(diagnostic_json(d));
    o["diagnostics"] = std::move(diags);
  }
  return o;
}

// ---------------------------------------------------------------- reading
// A pull reader (base/json_cursor.h), not a tree: a merge of 1,024 reports is mostly reading
// them. Keys are taken in any order and unknown ones skipped; a value of the wrong kind throws,
// and partial_from_json refuses the file as a whole rather than half read.

CivilTime civil_from(JsonCursor& in) {
  int v[7] = {};
  std::size_t n = 0;
  in.array([&] {
    const int x = in.int32();
    if (n < 7) v[n] = x;
    ++n;
  });
  if (n != 7) throw std::runtime_error("a stamp is not 7 numbers");
  return CivilTime{v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

Attribution attribution_from(JsonCursor& in) {
  Attribution a;
  in.object([&](std::string_view key) {
    if (key == "rank") a.rank = in.int32();
    else if (key == "local_rank") a.local_rank = in.int32();
    else if (key == "task") a.task = in.int32();
    else if (key == "host") a.host = text_from(in);
    else in.skip();
  });
  return a;
}

Diagnostic diagnostic_from(JsonCursor& in) {
  Diagnostic d;
  in.object([&](std::string_view key) {
    if (key == "severity") d.severity = severity_from(in.string());
    else if (key == "code") d.code = text_from(in);
    else if (key == "message") d.message = text_from(in);
    else if (key == "path") d.path = text_from(in);
    else if (key == "line") d.line = in.uint64();
    else if (key == "hint") d.hint = text_from(in);
    else if (key == "count") d.count = in.uint64();
    else in.skip();
  });
  return d;
}

FoundScript script_from(JsonCursor& in) {
  FoundScript f;
  in.object([&](std::string_view key) {
    if (key == "path") f.name = text_from(in);
    else if (key == "read_as") f.path = text_from(in);
    else if (key == "text") f.text = text_from(in);
    else if (key == "diagnostics") in.array([&] { f.problems.push_back(diagnostic_from(in)); });
    else in.skip();
  });
  return f;
}

ExceptionBlock block_from(JsonCursor& in) {
  ExceptionBlock x;
  bool seen = false;
  in.object([&](std::string_view key) {
    if (key == "header_line") x.header_line = in.uint64();
    else if (key == "exception_line") x.exception_line = in.uint64();
    else if (key == "exception_offset") x.exception_offset = in.uint64();
    else if (key == "exception") x.exception = text_from(in);
    else if (key == "message_tail") x.message_tail = text_from(in);
    else if (key == "frames")
      in.array([&] {
        Frame f;
        std::size_t n = 0;
        in.array([&] {
          switch (n++) {
            case 0: f.path = text_from(in); break;
            case 1: f.line = in.int32(); break;
            case 2: f.function = text_from(in); break;
            case 3: f.source = text_from(in); break;
            default: in.skip();
          }
        });
        x.frames.push_back(std::move(f));
      });
    else if (key == "frames_truncated") x.frames_truncated = in.boolean();
    else if (key == "frames_seen") { x.frames_seen = in.uint64(); seen = true; }
    else if (key == "message_truncated") x.message_truncated = in.boolean();
    else if (key == "embedded") x.embedded = in.boolean();
    else in.skip();
  });
  if (!seen) x.frames_seen = x.frames.size();
  x.frames.shrink_to_fit();  // kept until the merged report, as the analysis keeps them
  return x;
}

Traceback traceback_from(JsonCursor& in) {
  Traceback t;
  in.object([&](std::string_view key) {
    if (key == "blocks") in.array([&] { t.blocks.push_back(block_from(in)); });
    else if (key == "chain") t.chain_kind = chain_from(in.string());
    else if (key == "exception_group") t.exception_group = in.boolean();
    else if (key == "incomplete") t.incomplete = in.boolean();
    else if (key == "headerless") t.headerless = in.boolean();
    else if (key == "first_line") t.first_line = in.uint64();
    else if (key == "last_line") t.last_line = in.uint64();
    else if (key == "first_offset") t.first_offset = in.uint64();
    else in.skip();
  });
  return t;
}

ChildFailure child_from(JsonCursor& in) {
  ChildFailure c;
  in.object([&](std::string_view key) {
    if (key == "rank") c.rank = in.int32();
    else if (key == "local_rank") c.local_rank = in.int32();
    else if (key == "exitcode") c.exitcode = in.int32();
    else if (key == "pid") c.pid = in.int32();
    else if (key == "host") c.host = text_from(in);
    else if (key == "root_cause_section") c.root_cause_section = in.boolean();
    else if (key == "table_index") c.table_index = in.int32();
    else in.skip();
  });
  return c;
}

struct RuleIndex {
  std::unordered_map<std::string, int> by_id;
  std::vector<std::string> unknown;  // ids this matcher lacks, once each
};

Event event_from(JsonCursor& in, FileId file, RuleIndex& rules) {
  Event e;
  e.origin.file = file;
  bool last_seen = false;
  in.object([&](std::string_view key) {
    if (key == "kind") e.kind = kind_from(in.string());
    else if (key == "line") e.origin.line = in.uint64();
    else if (key == "offset") e.origin.offset = in.uint64();
    else if (key == "last_line") { e.last_line = in.uint64(); last_seen = true; }
    else if (key == "decisive_block") e.decisive_block = in.int32();
    else if (key == "time_us") e.time.us = in.int64();
    else if (key == "time_source") e.time.source = time_source_from(in.string());
    else if (key == "year_inferred") e.time.year_inferred = in.boolean();
    else if (key == "before_us") e.before_us = in.int64();
    else if (key == "civil") e.civil = civil_from(in);
    else if (key == "before_civil") e.before_civil = civil_from(in);
    else if (key == "who") e.who = attribution_from(in);
    else if (key == "text") e.text = text_from(in);
    else if (key == "rules")
      in.array([&] {
        std::string name = in.string();
        auto found = rules.by_id.find(name);
        if (found != rules.by_id.end()) {
          e.matches.push_back(RuleMatch{found->second});
        } else if (std::find(rules.unknown.begin(), rules.unknown.end(), name) == rules.unknown.end()) {
          rules.unknown.push_back(std::move(name));
        }
      });
    else if (key == "matched_line") e.matched_line = std::make_shared<const std::string>(text_from(in));
    else if (key == "traceback") e.traceback = traceback_from(in);
    else if (key == "child") e.child = child_from(in);
    else in.skip();
  });
  if (!last_seen) e.last_line = e.origin.line;
  return e;
}

std::vector<ContextLine> context_from(JsonCursor& in) {
  std::vector<ContextLine> context;
  in.array([&] {
    ContextLine c;
    std::size_t n = 0;
    in.array([&] {
      switch (n++) {
        case 0: c.line = in.uint64(); break;
        case 1: c.text = text_from(in); break;
        default: in.skip();
      }
    });
    context.push_back(std::move(c));
  });
  return context;
}

FileResult file_from(JsonCursor& in, FileId id, RuleIndex& rules, std::vector<ContextLine>* context) {
  FileResult r;
  SourceFile& f = r.file;
  f.id = id;
  in.object([&](std::string_view key) {
    if (key == "path") f.display_path = text_from(in);
    else if (key == "read_as") f.path = text_from(in);
    else if (key == "size_bytes") f.size_bytes = in.uint64();
    else if (key == "mtime_us") f.mtime_us = in.int64();
    else if (key == "identity") {
      std::size_t n = 0;
      in.array([&] { (n++ == 0 ? f.device : f.inode) = in.uint64(); });
      f.sized = true;
    } else if (key == "compression") f.compression = compression_from(in.string());
    else if (key == "hint") f.hint = attribution_from(in);
    else if (key == "is_stdout") f.is_stdout = in.boolean();
    else if (key == "is_stdin") f.is_stdin = in.boolean();
    else if (key == "bytes") r.bytes = in.uint64();
    else if (key == "lines") r.lines = in.uint64();
    else if (key == "stamped_lines") r.stamped_lines = in.uint64();
    else if (key == "first_full_year") r.first_full_year = in.int32();
    else if (key == "first_full_month") r.first_full_month = in.int32();
    else if (key == "first_stamp") r.first_stamp = civil_from(in);
    else if (key == "last_stamp") r.last_stamp = civil_from(in);
    else if (key == "first_stamp_us") r.first_stamp_us = in.int64();
    else if (key == "last_stamp_us") r.last_stamp_us = in.int64();
    else if (key == "named_ranks") in.array([&] { r.named_ranks.push_back(in.int32()); });
    else if (key == "binary") r.binary = in.boolean();
    else if (key == "own_report") r.own_report = in.boolean();
    else if (key == "unopened") r.unopened = in.boolean();
    else if (key == "events") in.array([&] { r.events.push_back(event_from(in, id, rules)); });
    else if (key == "facts")
      in.array([&] {
        Fact fact;
        std::size_t n = 0;
        in.array([&] {
          switch (n++) {
            case 0: fact.key = text_from(in); break;
            case 1: fact.value = text_from(in); break;
            case 2: fact.line = in.uint64(); break;
            case 3: fact.rank = in.int32(); break;
            default: in.skip();
          }
        });
        r.facts.push_back(std::move(fact));
      });
    else if (key == "diagnostics") in.array([&] { r.diagnostics.push_back(diagnostic_from(in)); });
    else if (key == "context" && context != nullptr) *context = context_from(in);
    else in.skip();
  });
  // Kept until the report, as a scan keeps its own (extract.cc): without the growth slack.
  r.events.shrink_to_fit();
  r.facts.shrink_to_fit();
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
  Out scripts = Out::array();
  for (const FoundScript& f : p.scripts) scripts.push_back(script_json(f));
  o["scripts"] = std::move(scripts);
  Out files = Out::array();
  static const std::vector<ContextLine> kNone;
  for (std::size_t i = 0; i < p.files.size() && matcher != nullptr; ++i)
    files.push_back(file_json(p.files[i], i < p.context.size() ? p.context[i] : kNone, *matcher));
  o["files"] = std::move(files);
  // Invalid UTF-8 in a log line (the analysis keeps bytes as printed) is replaced, not fatal.
  return o.dump(-1, ' ', false, Out::error_handler_t::replace) + "\n";
}

PartialParse partial_from_json(std::string_view text, const RuleMatcher& matcher, const std::string& name,
                               bool with_context) {
  PartialParse out;
  // Thrown when the first keys say this is no partial report of a version we read.
  struct Refused {
    std::string why;
  };
  try {
    JsonCursor in(text);
    if (in.peek() != '{') throw Refused{name + " is not a megatriage partial report (no JSON object)"};
    PartialReport p;
    RuleIndex rules;
    for (std::size_t i = 0; i < matcher.rules().size(); ++i) rules.by_id.emplace(matcher.rules()[i].id, static_cast<int>(i));
    bool format = false, version = false;
    const std::string not_ours = name + " is not a megatriage partial report (no \"format\": \"" + kPartialFormat + "\" first)";
    in.object([&](std::string_view key) {
      // The writer puts format and version first: nothing else is read before they are known.
      if (key == "format") {
        if (in.peek() != '"' || in.string() != kPartialFormat) throw Refused{not_ours};
        format = true;
        return;
      }
      if (!format) throw Refused{not_ours};
      if (key == "version") {
        const bool number = in.peek() == '-' || (in.peek() >= '0' && in.peek() <= '9');
        const std::int64_t v = number ? in.int64() : -1;
        if (!number) in.skip();
        if (v != kPartialVersion)
          throw Refused{name + " is a partial report of version " + (number ? std::to_string(v) : "?") +
                        "; this megatriage (" + megatriage_version() + ") reads version " +
                        std::to_string(kPartialVersion) + ": write it again with this version"};
        version = true;
        return;
      }
      if (!version) throw Refused{name + " is a partial report without a version"};
      if (key == "megatriage_version") p.megatriage_version = in.string();
      else if (key == "job")
        in.object([&](std::string_view k) {
          if (k == "id") p.job_id = in.string();
          else if (k == "cluster") p.cluster = in.string();
          else in.skip();
        });
      else if (key == "host") p.host = in.string();
      else if (key == "nodes") in.array([&] { p.nodes.push_back(in.string()); });
      else if (key == "rules_fingerprint") p.rules_fingerprint = in.string();
      else if (key == "context_lines") p.context_lines = in.uint64();
      else if (key == "problem") p.problem = in.string();
      else if (key == "diagnostics") in.array([&] { p.diagnostics.push_back(diagnostic_from(in)); });
      else if (key == "scripts") in.array([&] { p.scripts.push_back(script_from(in)); });
      else if (key == "files")
        in.array([&] {
          p.context.emplace_back();
          p.files.push_back(file_from(in, static_cast<FileId>(p.files.size()), rules,
                                      with_context ? &p.context.back() : nullptr));
        });
      else in.skip();
    });
    if (!in.at_end()) throw std::runtime_error("text after the report");
    if (!format) throw Refused{not_ours};
    if (!version) throw Refused{name + " is a partial report without a version"};
    for (const std::string& id : rules.unknown)
      out.diagnostics.push_back({Severity::Warning, "merge.unknown-rule",
                                 name + " names rule '" + id + "', which these rules do not have: its matches are left out",
                                 name, 0, "merge with the rules the partial report was written with (--rules)", 1});
    out.partial = std::move(p);
  } catch (const Refused& r) {
    out.partial.reset();
    out.error = r.why;
  } catch (const std::exception& e) {
    out.partial.reset();
    out.error = name + " cannot be read as a partial report: " + e.what();
  }
  return out;
}

std::optional<std::vector<ContextLine>> partial_context_from_json(std::string_view text, std::size_t index) {
  try {
    JsonCursor in(text);
    std::optional<std::vector<ContextLine>> found;
    in.object([&](std::string_view key) {
      if (key != "files") return in.skip();
      std::size_t i = 0;
      in.array([&] {
        if (i++ != index) return in.skip();
        in.object([&](std::string_view k) {
          if (k == "context") found = context_from(in);
          else in.skip();
        });
      });
    });
    return found;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace megatriage
