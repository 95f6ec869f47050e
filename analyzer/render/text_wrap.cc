#include "render/text_wrap.h"

#include <array>
#include <utility>

namespace megatriage {

std::size_t display_columns(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

std::vector<std::string_view> wrap_at_spaces(std::string_view text, std::size_t first_room,
                                             std::size_t rest_room) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;  // the current line's first byte
  std::size_t end = 0;    // one past its last word (leading spaces of the text belong to it)
  while (end < text.size() && text[end] == ' ') ++end;
  std::size_t room = first_room;
  bool has_word = false;
  std::size_t at = end;
  while (at < text.size()) {
    std::size_t word_end = text.find(' ', at);
    if (word_end == std::string_view::npos) word_end = text.size();
    if (has_word && display_columns(text.substr(start, word_end - start)) > room) {
      // The word does not fit after what the line holds: the line ends before its spaces.
      lines.push_back(text.substr(start, end - start));
      start = at;
      room = rest_room;
    }
    end = word_end;
    has_word = true;
    at = word_end;
    while (at < text.size() && text[at] == ' ') ++at;
  }
  if (has_word || lines.empty()) lines.push_back(text.substr(start, end - start));
  return lines;
}

std::string ascii_glyphs(std::string_view text) {
  // The characters the report itself writes, and the box-drawing ones a log may bring along.
  static const std::array<std::pair<std::string_view, std::string_view>, 16> kGlyphs{{
      {"\u2014", "-"},    // — em dash
      {"\u2013", "-"},    // – en dash
      {"\u2192", "->"},   // →
      {"\u2190", "<-"},   // ←
      {"\u2026", "..."},  // …
      {"\u00d7", "x"},    // ×
      {"\u00b7", "|"},    // ·
      {"\u2022", "*"},    // •
      {"\u2500", "-"},    // ─
      {"\u2502", "|"},    // │
      {"\u250c", "+"},    // ┌
      {"\u2510", "+"},    // ┐
      {"\u2514", "+"},    // └
      {"\u2518", "+"},    // ┘
      {"\u2265", ">="},   // ≥
      {"\u2264", "<="},   // ≤
  }};
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      out += text[i++];
      continue;
    }
    bool replaced = false;
    for (const auto& [glyph, ascii] : kGlyphs) {
      if (text.substr(i, glyph.size()) == glyph) {
        out += ascii;
        i += glyph.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace megatriage
