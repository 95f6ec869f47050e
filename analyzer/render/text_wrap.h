// Render helpers for the text report: fitting text to a column width and to the locale's
// character set. Text only; what the report says is decided before it gets here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

/// Columns `text` takes on a terminal: one per UTF-8 code point (continuation bytes add none).
/// Wide (CJK) characters count as one; log text is nearly all ASCII.
std::size_t display_columns(std::string_view text);

/// Cuts `text` into lines of at most `first_room` columns (the first line) and `rest_room` (the
/// others), breaking only at spaces: a `file:line`, a path or a URL is never split, so a word
/// longer than the room stays whole on a line of its own (over the width). The spaces at a break
/// are dropped; spaces inside a line are kept as they are. The views point into `text`.
std::vector<std::string_view> wrap_at_spaces(std::string_view text, std::size_t first_room,
                                             std::size_t rest_room);

/// `text` with the report's typographic characters in ASCII (`—` to `-`, `→` to `->`, `…` to
/// `...`, `×` to `x`, box-drawing lines to `-` and `|`), for a terminal whose locale is not UTF-8.
/// Other bytes are kept.
std::string ascii_glyphs(std::string_view text);

}  // namespace megatriage
