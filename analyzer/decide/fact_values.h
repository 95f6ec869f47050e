// Reading figures out of a report's facts and fields (string → string maps): the one way the
// checks, the headlines and the check evaluators turn `"16"` into 16 and bytes into `2.00 GiB`.
#pragma once

#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/text_util.h"
#include "model/fact_registry.h"

namespace megatriage::fact_values {

using Facts = std::map<std::string, std::string>;

/// The value of `key` as a whole number; nullopt when absent or not a plain integer.
inline std::optional<long long> as_int(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  if (it == f.end()) return std::nullopt;
  std::string_view s = trim_spaces(it->second);
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// True when `key` holds a true boolean (`True`, `true`, `1`).
inline bool is_true(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  return it != f.end() && parse_fact_bool(it->second).value_or(false);
}

/// The value of `key`, or "" when absent.
inline std::string get(const Facts& f, const std::string& key) {
  auto it = f.find(key);
  return it == f.end() ? std::string() : it->second;
}

/// `2.00 GiB`.
inline std::string gib(long long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace megatriage::fact_values
