// Extract stage: text a program printed inside a quoted string, escaped. A container runtime's
// JSON record holds each printed line in a member (docker's json-file `log`); a structured
// logger's record holds logger.exception()'s traceback in one (`"exc_info": "Traceback (most
// recent call last):\n  File \"/w/train.py\", ..."`); a repr() of an error does the same with
// Python's escapes. Decoded, such text goes through the extractors as if printed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace megatriage {

/// `s` from `from` up to the first `quote` that no backslash escapes (or the end of `s`), with
/// JSON's and Python's escapes decoded (`\n \t \r \" \' \\ \/ \b \f \uXXXX \xHH`; an unknown or
/// bad one is kept as written). At most `max_bytes` bytes.
std::string decode_escaped(std::string_view s, std::size_t from, char quote, std::size_t max_bytes);

/// Calls `visit(key, at)` for each of the first `max_members` members of the flat JSON object
/// that `s` starts with (blanks before it allowed): `key` as written, without its quotes; `at`
/// the index of the value's first byte (a string's opening quote). Stops when `visit` returns
/// true (returns that `at`), at a value that is an object or an array, or at anything that is no
/// member (returns npos).
template <class Visit>
std::size_t find_json_member(std::string_view s, int max_members, Visit&& visit) {
  constexpr std::size_t npos = std::string_view::npos;
  auto blanks = [&](std::size_t& j) {
    while (j < s.size() && s[j] == ' ') ++j;
  };
  // Past the string that opens at s[j], escapes included; npos when it does not end.
  auto past_string = [&](std::size_t j) {
    for (++j; j < s.size(); ++j) {
      if (s[j] == '\\') ++j;
      else if (s[j] == '"') return j + 1;
    }
    return npos;
  };
  std::size_t j = 0;
  blanks(j);
  if (j >= s.size() || s[j] != '{') return npos;
  ++j;
  for (int member = 0; member < max_members; ++member) {
    blanks(j);
    if (j >= s.size() || s[j] != '"') return npos;
    const std::size_t key = j + 1;
    j = past_string(j);
    if (j == npos) return npos;
    const std::string_view name = s.substr(key, j - 1 - key);
    blanks(j);
    if (j >= s.size() || s[j] != ':') return npos;
    ++j;
    blanks(j);
    if (j >= s.size() || s[j] == '{' || s[j] == '[') return npos;
    if (visit(name, j)) return j;
    if (s[j] == '"') {
      j = past_string(j);
      if (j == npos) return npos;
    } else {
      while (j < s.size() && s[j] != ',' && s[j] != '}') ++j;  // a number, true, false, null
    }
    blanks(j);
    if (j >= s.size() || s[j] != ',') return npos;
    ++j;
  }
  return npos;
}

/// The printed line of a container runtime's JSON record (docker's json-file driver, fluentd:
/// `{"log":"  File \"/w/train.py\", line 3, in f\n","stream":"stderr","time":"..."}`): its `log`
/// member's string among the record's first four, decoded, without the line end the record
/// keeps. nullopt when `line` is no such record. At most `max_bytes`. (A structured logger's
/// `message` stays in its record: the record is the line, its stamp and its members.)
std::optional<std::string> json_record_text(std::string_view line, std::size_t max_bytes);

/// The decoded text of the traceback that `line` holds escaped: from its header
/// (`Traceback (most recent call last):` followed by an escaped newline, the two bytes `\n`) to
/// the end of the quoted string the header stands in (decode_escaped). Empty when the line
/// holds no such header inside a string. At most `max_bytes` bytes.
std::string escaped_traceback(std::string_view line, std::size_t max_bytes);

}  // namespace megatriage
