// Small text helpers shared by stages: terminal-escape removal, UTF-8 repair, trimming.
// Pure functions; allocate only when the input needs changing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace megatriage {

/// Removes ANSI/VT escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \`, ESC with
/// intermediates and a final byte as `ESC ( B`, two-byte `ESC x`) and returns the rest. A
/// sequence ends at a '\n' or '\r' at the latest, which stays. Requires: nothing; returns `s`
/// unchanged when it has no ESC.
std::string strip_terminal_escapes(std::string_view s);
/// The same into `out` (replaced), reusing its buffer: a coloured log has escapes on every line.
void strip_terminal_escapes(std::string_view s, std::string& out);
/// The same in place: removes the sequences from text[0, size) and returns the new size.
std::size_t strip_terminal_escapes_in_place(char* text, std::size_t size);
/// Where the escape sequence that starts at s[esc] (an ESC) ends: the index after its last byte,
/// at most s.size(): an unfinished sequence runs to the next '\n' or '\r', or to the end of `s`.
std::size_t terminal_escape_end(std::string_view s, std::size_t esc);

/// True when `s` is valid UTF-8.
bool is_valid_utf8(std::string_view s);

/// Replaces each invalid UTF-8 sequence by U+FFFD.
std::string repair_utf8(std::string_view s);

/// Makes `s` safe to print on a terminal: valid UTF-8, escapes removed, other C0/C1 controls
/// (except tab) shown as `\xNN`.
std::string printable(std::string_view s);

std::string_view trim_spaces(std::string_view s);

/// Short host name: cut at the first '.', as NCCL prints it. IPs are kept whole.
std::string short_host(std::string_view host);

}  // namespace megatriage
