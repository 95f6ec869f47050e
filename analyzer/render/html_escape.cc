#include "render/html_escape.h"

#include <cstdio>

#include "base/text_util.h"

namespace megatriage {

std::string html_text(std::string_view s) {
  const std::string shown = printable(s);
  std::string out;
  out.reserve(shown.size() + shown.size() / 8);
  for (char c : shown) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_for_script(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

std::string json_string(std::string_view s) {
  const std::string shown = printable(s);
  std::string out = "\"";
  out.reserve(shown.size() + 2);
  for (char c : shown) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '<': out += "\\u003c"; break;
      default:
        if (u < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace megatriage
