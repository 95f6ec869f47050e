#include "model/typed_value.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace megatriage {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> read_int(std::string_view s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// JSON has no NaN or infinity, and Python prints them (`nan`, `inf`): those stay text.
std::optional<double> read_float(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// One list element: a quoted string (Python's repr of a str) is its text, an unquoted number a
// number, anything else its text as printed.
std::optional<TypedValue> read_item(std::string_view s) {
  TypedValue item;
  if (!s.empty() && (s.front() == '\'' || s.front() == '"')) {
    if (s.size() < 2 || s.back() != s.front()) return std::nullopt;
    item.text = std::string(s.substr(1, s.size() - 2));
    return item;
  }
  if (auto i = read_int(s)) {
    item.type = FactType::Int;
    item.int_value = *i;
  } else if (auto f = read_float(s)) {
    item.type = FactType::Float;
    item.float_value = *f;
  } else {
    item.text = std::string(s);
  }
  return item;
}

std::optional<TypedValue> read_list(std::string_view s) {
  TypedValue list;
  list.type = FactType::List;
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') return std::nullopt;
    s = trim(s.substr(1, s.size() - 2));
  }
  if (s.empty()) return list;
  // Split on commas outside quotes; a bracket inside (a nested list) is not read.
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : ',';
    if (quote) {
      if (c == quote) quote = 0;
      if (i == s.size()) return std::nullopt;  // unclosed quote
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == ']') {
      return std::nullopt;
    } else if (c == ',') {
      std::string_view piece = trim(s.substr(start, i - start));
      if (piece.empty()) {
        if (i == s.size() && !list.items.empty()) break;  // Python's trailing comma: `[1,]`
        return std::nullopt;
      }
      std::optional<TypedValue> item = read_item(piece);
      if (!item) return std::nullopt;
      list.items.push_back(std::move(*item));
      start = i + 1;
    }
  }
  return list;
}

}  // namespace

std::optional<TypedValue> read_typed_value(FactType type, std::string_view printed) {
  const std::string_view s = trim(printed);
  TypedValue v;
  v.type = type;
  switch (type) {
    case FactType::Text:
      v.text = std::string(printed);
      return v;
    case FactType::Int:
      if (auto i = read_int(s)) {
        v.int_value = *i;
        return v;
      }
      return std::nullopt;
    case FactType::Float:
      if (auto f = read_float(s)) {
        v.float_value = *f;
        return v;
      }
      return std::nullopt;
    case FactType::Bool:
      if (auto b = parse_fact_bool(s)) {
        v.bool_value = *b;
        return v;
      }
      return std::nullopt;
    case FactType::List:
      return read_list(s);
  }
  return std::nullopt;
}

std::optional<FactType> fact_type_from_name(std::string_view name) {
  for (FactType t : {FactType::Int, FactType::Float, FactType::Bool, FactType::Text, FactType::List})
    if (name == fact_type_name(t)) return t;
  return std::nullopt;
}

}  // namespace megatriage
