#include "extract/child_failure_table.h"

#include <charconv>

#include "base/text_util.h"

namespace megatriage {
namespace {

// Table rows, as torchelastic formats them: two spaces, the field name left-aligned in ten
// columns, ':' (`  rank      : 3 (local_rank: 1)`). The same strings are the trigger search's
// anchors for these lines.
constexpr std::string_view kTimeField = "  time      :", kHostField = "  host      :",
                           kRankField = "  rank      :", kExitcodeField = "  exitcode  :";
constexpr std::string_view kFailuresHead = "Failures:", kRootCauseHead = "Root Cause (first observed failure)";

bool table_field(std::string_view body, std::string_view field, std::string_view& value) {
  if (body.size() <= field.size() || body.substr(0, field.size()) != field) return false;
  value = trim_spaces(body.substr(field.size()));
  return true;
}

int parse_int(std::string_view s) {
  s = trim_spaces(s);
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  (void)p;
  return ec == std::errc() ? v : -1;
}

}  // namespace

const std::vector<std::string_view>& ChildFailureTable::trigger_literals() {
  static const std::vector<std::string_view> literals{kTimeField, kHostField, kRankField, kExitcodeField,
                                                      kFailuresHead, kRootCauseHead};
  return literals;
}

bool ChildFailureTable::feed_row(std::string_view body, std::uint64_t line, std::uint64_t offset,
                                 const std::optional<CivilTime>& stamp) {
  if (body == kFailuresHead) {
    ++table_index_;
    in_root_section_ = false;
    return false;
  }
  if (body.substr(0, kRootCauseHead.size()) == kRootCauseHead) {
    in_root_section_ = true;
    return false;
  }
  std::string_view value;
  ChildFailure& child = pending_.child;
  if (table_field(body, kTimeField, value)) {
    pending_ = ChildFailureEntry{};
    pending_.stamp = stamp;
    pending_.first_line = line;
    pending_.first_offset = offset;
    have_pending_ = true;
  } else if (!have_pending_) {
    return false;
  } else if (table_field(body, kHostField, value)) {
    child.host = std::string(value.substr(0, 256));
  } else if (table_field(body, kRankField, value)) {
    child.rank = parse_int(value.substr(0, value.find(' ')));
    auto lr = value.find("local_rank:");
    if (lr != std::string_view::npos) child.local_rank = parse_int(value.substr(lr + 11, value.find(')') - lr - 11));
  } else if (table_field(body, kExitcodeField, value)) {
    child.exitcode = parse_int(value.substr(0, value.find(' ')));
    auto pid = value.find("pid:");
    if (pid != std::string_view::npos) child.pid = parse_int(value.substr(pid + 4, value.find(')') - pid - 4));
    child.root_cause_section = in_root_section_;
    child.table_index = table_index_ - 1;
    have_pending_ = false;
    return true;
  }
  return false;
}

}  // namespace megatriage
