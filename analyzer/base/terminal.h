// What the terminal and the locale allow the text report: its width in columns and whether it
// may print UTF-8. Asks the system; decides nothing about the report itself.
#pragma once

#include <cstddef>
#include <optional>

namespace megatriage {

/// The column count of the terminal on `fd` (TIOCGWINSZ); nothing when `fd` is not a terminal
/// or the terminal does not say.
std::optional<std::size_t> terminal_columns(int fd);

/// The width of a text report: the terminal's on `fd` when it is one, else a positive
/// `$COLUMNS`, else `fallback`.
std::size_t report_columns(int fd, std::size_t fallback);

/// Whether the user's locale (LC_ALL, else LC_CTYPE, else LANG, as setlocale(LC_CTYPE, "")
/// resolves them) uses UTF-8. An unset or `C`/`POSIX` locale does not.
bool locale_is_utf8();

}  // namespace megatriage
