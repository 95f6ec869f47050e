#include "input/own_report.h"

namespace megatriage {

const char* own_report_kind_name(OwnReportKind k) {
  switch (k) {
    case OwnReportKind::None: return "none";
    case OwnReportKind::Json: return "JSON";
    case OwnReportKind::Text: return "text";
  }
  return "none";
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}
  void skip_spaces() {
    while (!rest_.empty() && is_space(rest_.front())) rest_.remove_prefix(1);
  }
  bool take(std::string_view literal) {
    if (rest_.substr(0, literal.size()) != literal) return false;
    rest_.remove_prefix(literal.size());
    return true;
  }
  bool take_digits() {
    std::size_t n = 0;
    while (n < rest_.size() && is_digit(rest_[n])) ++n;
    rest_.remove_prefix(n);
    return n > 0;
  }
  // A terminal colour (`--color always` saved to a file): ESC [ digits and ';' m.
  void skip_colour() {
    if (rest_.substr(0, 2) != "\x1b[") return;
    std::size_t n = 2;
    while (n < rest_.size() && (is_digit(rest_[n]) || rest_[n] == ';')) ++n;
    if (n < rest_.size() && rest_[n] == 'm') rest_.remove_prefix(n + 1);
  }

 private:
  std::string_view rest_;
};

// render_json writes `schema_version` first and `verdict` (a report) or `jobs` (--all-jobs)
// second; a training log that starts with that object is not likely.
bool json_report(std::string_view head) {
  Cursor c(head);
  c.skip_spaces();
  if (!c.take("{")) return false;
  c.skip_spaces();
  if (!c.take("\"schema_version\"")) return false;
  c.skip_spaces();
  if (!c.take(":")) return false;
  c.skip_spaces();
  if (!c.take_digits()) return false;
  c.skip_spaces();
  if (!c.take(",")) return false;
  c.skip_spaces();
  return c.take("\"verdict\"") || c.take("\"jobs\"");
}

// A partial report (`megatriage partial`) writes its format first, then its version.
bool partial_report(std::string_view head) {
  Cursor c(head);
  c.skip_spaces();
  if (!c.take("{")) return false;
  c.skip_spaces();
  if (!c.take("\"format\"")) return false;
  c.skip_spaces();
  if (!c.take(":")) return false;
  c.skip_spaces();
  return c.take("\"megatriage-partial\"");
}

bool text_report(std::string_view head) {
  Cursor c(head);
  c.skip_colour();
  if (!c.take("megatriage: ")) return false;
  if (c.take("FAILURE") || c.take("no failure found")) return true;
  return c.take_digits() && c.take(" job(s) in the logs");
}

}  // namespace

OwnReportKind own_report_kind(std::string_view head) {
  if (json_report(head) || partial_report(head)) return OwnReportKind::Json;
  if (text_report(head)) return OwnReportKind::Text;
  return OwnReportKind::None;
}

}  // namespace megatriage
