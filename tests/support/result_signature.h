// Everything a later stage reads from a FileResult, as text: the fast-path tests and fuzz_file
// compare two analyses of the same bytes through it.
#pragma once

#include <sstream>
#include <string>

#include "extract/extract.h"
#include "extract/timestamp.h"

namespace megatriage::test {

inline std::string signature(const FileResult& r) {
  std::ostringstream out;
  out << "lines " << r.lines << " bytes " << r.bytes << " stamped " << r.stamped_lines << " year "
      << r.first_full_year << " binary " << r.binary << "\n";
  if (r.first_stamp) out << "first " << to_debug_string(*r.first_stamp) << "\n";
  if (r.last_stamp) out << "last " << to_debug_string(*r.last_stamp) << "\n";
  for (const auto& e : r.events) {
    out << "event " << static_cast<int>(e.kind) << " line " << e.origin.line << "-" << e.last_line
        << " off " << e.origin.offset << " rank " << e.who.rank << " local " << e.who.local_rank
        << " task " << e.who.task << " host " << e.who.host << " text " << e.text;
    if (e.civil) out << " at " << to_debug_string(*e.civil);
    if (e.before_civil) out << " before " << to_debug_string(*e.before_civil);
    // Fields are captured later from the matched text: equal texts and rules, equal fields.
    for (const auto& m : e.matches) out << " rule " << m.rule_index;
    if (e.matched_line) out << " matched " << *e.matched_line;
    if (e.kind == EventKind::Traceback) out << "\n" << to_debug_string(*e.traceback);
    if (e.kind == EventKind::ChildFailure)
      out << " child " << e.child->rank << " " << e.child->exitcode << " " << e.child->host;
    out << "\n";
  }
  for (const auto& f : r.facts) out << "fact " << f.key << "=" << f.value << " @" << f.line << " r" << f.rank << "\n";
  for (const auto& d : r.diagnostics) out << "diag " << d.code << " x" << d.count << " @" << d.line << "\n";
  return out.str();
}

}  // namespace megatriage::test
