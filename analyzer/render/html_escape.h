// Escaping for the HTML report (render_html.cc): log text as HTML text or attribute values, and
// data as JSON inside a <script> element, so that a log line holding `<script>` or `</script>`
// stays text. Pure functions; no HTML is composed here.
#pragma once

#include <string>
#include <string_view>

namespace megatriage {

/// `s` made printable (text_util.h printable(): valid UTF-8, terminal escapes removed, other
/// controls as `\xNN`) with `&`, `<`, `>`, `"` and `'` as character references: safe as element
/// text and inside a quoted attribute value.
std::string html_text(std::string_view s);

/// JSON text made safe inside <script type="application/json">: every `<` becomes `\u003c`.
/// In JSON a `<` can only stand inside a string, where `\u003c` is the same character, so the
/// value is unchanged; and without `<` no `</script>` or `<!--` can end or bend the element.
std::string json_for_script(std::string_view json);

/// `s` as a JSON string literal (quotes included), made printable first, with `<` as `\u003c`
/// (safe inside a script element, as json_for_script).
std::string json_string(std::string_view s);

}  // namespace megatriage
