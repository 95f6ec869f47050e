// Hashes of a few 8-byte words of a text rather than of every byte: for the lookups asked about
// most lines of a file (a route by the line's head, the memo of unmatched lines), whose keys of
// one kind differ near their ends. The caller compares equal hashes in full.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace megatriage {

/// The 8 bytes of `s` from `at` as a word, fewer (zero-filled) at its end. Requires at <= size.
inline std::uint64_t text_word(std::string_view s, std::size_t at) {
  std::uint64_t w = 0;
  std::memcpy(&w, s.data() + at, s.size() - at < 8 ? s.size() - at : 8);
  return w;
}

/// `h` with the word `w` mixed in.
inline std::uint64_t mix_word(std::uint64_t h, std::uint64_t w) {
  h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
  return h ^ (h >> 32);
}

/// The start of a hash of a text of `size` bytes.
inline std::uint64_t hash_seed(std::size_t size) { return size * 0x9E3779B97F4A7C15ULL; }

}  // namespace megatriage
