#include "scan/line_splitter.h"

#include <algorithm>
#include <cstring>
#include <utility>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/simd_level.h"
#include "base/text_util.h"

namespace megatriage {
namespace {

// Counts the '\n' in [p, p + n), which starts at a line start and ends after a '\n'; false if a
// line there is longer than `max_line` bytes (counted only for lines of 64 bytes or more).
bool count_short_lines_scalar(const char* p, std::size_t n, std::size_t max_line, std::uint64_t& count) {
  const char* end = p + n;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr) nl = end;
    if (static_cast<std::size_t>(nl - p) > max_line) return false;
    ++count;
    p = nl + 1;
  }
  return true;
}

#if defined(__x86_64__)
// The '\n' of the 64-byte block at `i` (one bit per byte in `mask`, not 0) counted into `found`;
// false if the line that ends first in it is longer than `max_line` (lines inside one block are
// under 64 bytes; only the one that crosses into it can be long). Inlined into each width's loop.
[[gnu::always_inline]] inline bool take_newlines(std::uint64_t mask, std::size_t i, std::size_t max_line,
                                                 std::uint64_t& found, std::size_t& line_start) {
  found += static_cast<std::uint64_t>(__builtin_popcountll(mask));
  if (i + static_cast<std::size_t>(__builtin_ctzll(mask)) - line_start > max_line) return false;
  line_start = i + 63 - static_cast<std::size_t>(__builtin_clzll(mask)) + 1;
  return true;
}

// The rest from the last line start (no '\n' between it and the blocks' end, so nothing counted
// twice), then the total.
inline bool count_tail(const char* p, std::size_t n, std::size_t max_line, std::size_t line_start,
                       std::uint64_t found, std::uint64_t& count) {
  std::uint64_t tail = 0;
  if (!count_short_lines_scalar(p + line_start, n - line_start, max_line, tail)) return false;
  count += found + tail;
  return true;
}

__attribute__((target("avx2,popcnt"))) bool count_short_lines_avx2(
    const char* p, std::size_t n, std::size_t max_line, std::uint64_t& count) {
  const __m256i newline = _mm256_set1_epi8('\n');
  std::uint64_t found = 0;
  std::size_t line_start = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    std::uint64_t mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, newline))) |
                         static_cast<std::uint64_t>(static_cast<std::uint32_t>(
                             _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, newline)))) << 32;
    if (mask != 0 && !take_newlines(mask, i, max_line, found, line_start)) return false;
  }
  return count_tail(p, n, max_line, line_start, found, count);
}

// The same with one 64-byte compare into a mask a step (AVX-512BW).
__attribute__((target("avx512f,avx512bw,popcnt"))) bool count_short_lines_avx512(const char* p, std::size_t n,
                                                                                 std::size_t max_line,
                                                                                 std::uint64_t& count) {
  const __m512i newline = _mm512_set1_epi8('\n');
  std::uint64_t found = 0;
  std::size_t line_start = 0, i = 0;
  for (; i + 64 <= n; i += 64) {
    const std::uint64_t mask = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p + i), newline);
    if (mask != 0 && !take_newlines(mask, i, max_line, found, line_start)) return false;
  }
  return count_tail(p, n, max_line, line_start, found, count);
}
#endif

bool count_short_lines(const char* p, std::size_t n, std::size_t max_line, std::uint64_t& count) {
#if defined(__x86_64__)
  if (simd_level() >= SimdLevel::Avx512 && max_line >= 64)
    return count_short_lines_avx512(p, n, max_line, count);
  if (simd_level() >= SimdLevel::Avx2 && max_line >= 64) return count_short_lines_avx2(p, n, max_line, count);
#endif
  return count_short_lines_scalar(p, n, max_line, count);
}

// The index of the first NUL or '\r' in [p, p + n), or n: a buffer's bytes are looked at once
// for both (most logs hold neither), not once for each.
std::size_t first_nul_or_cr_scalar(const char* p, std::size_t n) {
  std::size_t i = 0;
  while (i < n && p[i] != '\0' && p[i] != '\r') ++i;
  return i;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) std::size_t first_nul_or_cr_avx2(const char* p, std::size_t n) {
  const __m256i nul = _mm256_setzero_si256(), cr = _mm256_set1_epi8('\r');
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    __m256i in_a = _mm256_or_si256(_mm256_cmpeq_epi8(a, nul), _mm256_cmpeq_epi8(a, cr));
    __m256i in_b = _mm256_or_si256(_mm256_cmpeq_epi8(b, nul), _mm256_cmpeq_epi8(b, cr));
    __m256i any = _mm256_or_si256(in_a, in_b);
    if (_mm256_testz_si256(any, any)) continue;
    const std::uint64_t mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(in_a)) |
                               static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(in_b)))
                                   << 32;
    return i + static_cast<std::size_t>(__builtin_ctzll(mask));
  }
  return i + first_nul_or_cr_scalar(p + i, n - i);
}

__attribute__((target("avx512f,avx512bw"))) std::size_t first_nul_or_cr_avx512(const char* p, std::size_t n) {
  const __m512i cr = _mm512_set1_epi8('\r');
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(p + i);
    // A NUL is a zero byte: testn sets its bit.
    const std::uint64_t mask = _mm512_testn_epi8_mask(v, v) | _mm512_cmpeq_epi8_mask(v, cr);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctzll(mask));
  }
  return i + first_nul_or_cr_scalar(p + i, n - i);
}
#endif

std::size_t first_nul_or_cr(const char* p, std::size_t n) {
#if defined(__x86_64__)
  if (simd_level() >= SimdLevel::Avx512) return first_nul_or_cr_avx512(p, n);
  if (simd_level() >= SimdLevel::Avx2) return first_nul_or_cr_avx2(p, n);
#endif
  return first_nul_or_cr_scalar(p, n);
}

#if defined(__x86_64__)
// The bytes of the 64 in `lo`, `hi` that equal those of `byte`, one bit each.
__attribute__((target("avx2"))) inline std::uint64_t equal_bytes(__m256i lo, __m256i hi, __m256i byte) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, byte))) |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, byte))))
             << 32;
}
#endif

// Moves a buffer's text down over what it removes from the lines (in place: `out` never passes
// `in`): terminal escape sequences, and the '\r' of each "\r\n". Records where the line starts
// move (LineSplitter::Shift).
class LineCompaction {
 public:
  // `text` is where the first removal is; a buffer address plus `stream_base` is its stream
  // offset; `removed_before` bytes were removed before `text`.
  LineCompaction(char* text, std::uint64_t stream_base, std::uint64_t removed_before,
                 std::vector<LineSplitter::Shift>& shifts)
      : in_(text), out_(text), stream_base_(stream_base), removed_before_(removed_before), shifts_(shifts) {}

  std::size_t removed() const { return static_cast<std::size_t>(in_ - out_); }

  // Removes the escape sequences (kEscapes) and the '\r' of each "\r\n" (kCrlf) of the text up
  // to `until` (a line start, or the end of the text).
  template <bool kEscapes, bool kCrlf>
  void strip_to(const char* until) {
#if defined(__x86_64__)
    if (!kEscapes && simd_level() >= SimdLevel::Avx2) {
      strip_crlf_avx2(until);
      return;
    }
#endif
    may_keep_cr_ = true;  // not looked at here
    // Locals, not members: a store through a char* may alias any member, which the compiler
    // would then load again after each one.
    const char* in = in_;
    char* out = out_;
    bool new_line = new_line_;
#if defined(__x86_64__)
    // 16 bytes at a time (SSE2): a coloured line has a sequence every few dozen bytes, and a
    // CRLF log a '\r' on every line, too close together for a memchr and a memmove each.
    const __m128i escape = _mm_set1_epi8('\x1b'), newline = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (in + 16 <= until) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
      const auto newlines = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline)));
      unsigned escapes = 0, crlfs = 0;
      if constexpr (kEscapes) escapes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, escape)));
      if constexpr (kCrlf) {
        // A '\r' whose next byte is a '\n'; the last byte's next is the next block's first.
        const auto crs = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr)));
        if (crs != 0)
          crlfs = crs & ((newlines >> 1) | (in + 16 < until && in[16] == '\n' ? 0x8000U : 0U));
      }
      const unsigned removals = escapes | crlfs;
      if (removals == 0) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
        in += 16;
        out += 16;
        new_line = new_line || newlines != 0;
        continue;
      }
      const auto k = static_cast<unsigned>(__builtin_ctz(removals));
      // All 16 bytes may be stored only where they cannot land on bytes not read yet.
      if (in == out || in - out >= 16)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
      else
        std::memmove(out, in, k);
      in += k;
      out += k;
      new_line = new_line || (newlines & ((1U << k) - 1)) != 0;
      if ((crlfs >> k) & 1U) {
        in += 1;
      } else {
        if (first_escape_ == nullptr) first_escape_ = out;
        in += sequence_length(in, until);
      }
      record_shift(in, out, new_line);
      new_line = false;
    }
#endif
    // The rest (all of it without SSE2): a run at a time.
    while (in < until) {
      const char* next = next_removal<kEscapes, kCrlf>(in, until);
      const auto run = static_cast<std::size_t>(next - in);
      new_line = new_line || std::memchr(in, '\n', run) != nullptr;
      std::memmove(out, in, run);
      in += run;
      out += run;
      if (next == until) break;
      if (*in == '\r') {
        in += 1;
      } else {
        if (first_escape_ == nullptr) first_escape_ = out;
        in += sequence_length(in, until);
      }
      record_shift(in, out, new_line);
      new_line = false;
    }
    in_ = in;
    out_ = out;
    new_line_ = new_line;
  }

#if defined(__x86_64__)
  // strip_to<false, true>() on AVX2: only the '\r' of each "\r\n", the bulk of a CRLF log.
  // 64 bytes are looked at a step, and the text between two line ends is moved at once. Reads
  // up to 31 bytes past `until` (kCopySlack).
  __attribute__((target("avx2"))) void strip_crlf_avx2(const char* until) {
    const char* in = in_;
    char* out = out_;
    bool new_line = new_line_;
    const __m256i cr = _mm256_set1_epi8('\r'), newline = _mm256_set1_epi8('\n');
    for (const char* block = in; block < until; block += 64) {
      // The last bytes, fewer than 64, from a copy padded with NULs.
      alignas(32) char tail[64];
      const char* bytes = block;
      if (until - block < 64) {
        std::memset(tail, 0, sizeof tail);
        std::memcpy(tail, block, static_cast<std::size_t>(until - block));
        bytes = tail;
      }
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 32));
      const std::uint64_t crs = equal_bytes(lo, hi, cr);
      if (crs == 0) continue;
      // A '\r' whose next byte is a '\n'; the last byte's next is the next block's first.
      const std::uint64_t next_newline = block + 64 < until && block[64] == '\n' ? std::uint64_t{1} << 63 : 0;
      std::uint64_t ends = crs & ((equal_bytes(lo, hi, newline) >> 1) | next_newline);
      may_keep_cr_ = may_keep_cr_ || crs != ends;
      for (; ends != 0; ends &= ends - 1) {
        // The text before the '\r', then the '\r'.
        const char* at = block + __builtin_ctzll(ends);
        out = move_down(out, in, static_cast<std::size_t>(at - in));
        in = at + 1;
        record_shift(in, out, new_line);
        new_line = true;  // the '\n' after it
      }
    }
    // `until` follows a '\n' (a line start).
    new_line_ = new_line || until > in;
    out_ = move_down(out, in, static_cast<std::size_t>(until - in));
    in_ = until;
  }
#endif

  // Where the text after the first escape sequence removed went (null: none removed).
  const char* first_escape() const { return first_escape_; }

  // Whether the text passed may still hold a '\r': one that ends no line, one of a line copied
  // as it is, or any after the SSE2 and byte loops, which do not keep count.
  bool may_keep_cr() const { return may_keep_cr_; }

  // Moves the text up to `until` (a line start) down as it is: lines that keep their escapes.
  void copy_to(const char* until) {
    const auto run = static_cast<std::size_t>(until - in_);
    may_keep_cr_ = may_keep_cr_ || std::memchr(in_, '\r', run) != nullptr;
    new_line_ = new_line_ || std::memchr(in_, '\n', run) != nullptr;
    std::memmove(out_, in_, run);
    in_ += run;
    out_ += run;
  }

 private:
#if defined(__x86_64__)
  // Moves `n` bytes from `in` down to `out` (out <= in). 32 at a time where they lie 32 or more
  // bytes apart: a store then lands only on bytes already read, the last one's tail too (up to
  // 31 bytes past `out + n`); the last load reads up to 31 bytes past `in + n`.
  __attribute__((target("avx2"), always_inline)) static inline char* move_down(char* out, const char* in, std::size_t n) {
    if (in - out < 32) {
      std::memmove(out, in, n);
      return out + n;
    }
    for (std::size_t i = 0; i < n; i += 32)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    return out + n;
  }
#endif

  // The first ESC (kEscapes) or '\r' before a '\n' (kCrlf) in [in, until), or `until`.
  template <bool kEscapes, bool kCrlf>
  static const char* next_removal(const char* in, const char* until) {
    const char* next = until;
    if constexpr (kEscapes) {
      if (const void* esc = std::memchr(in, '\x1b', static_cast<std::size_t>(until - in)))
        next = static_cast<const char*>(esc);
    }
    if constexpr (kCrlf) {
      for (const char* p = in; p < next; ++p) {
        p = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(next - p)));
        if (p == nullptr) break;
        if (p + 1 < until && p[1] == '\n') return p;
      }
    }
    return next;
  }

  // The length of the sequence at `at` (an ESC), which ends before `until` (terminal_escape_end()
  // stops at a '\n'). Most are colours, `ESC [ 1;32 m`: parameter bytes (0x30-0x3f) and a final
  // byte, read here; the others as terminal_escape_end() says.
  static std::size_t sequence_length(const char* at, const char* until) {
    if (at + 1 < until && at[1] == '[') {
      const char* p = at + 2;
      while (p < until && *p >= 0x30 && *p <= 0x3f) ++p;
      if (p < until && *p >= 0x40 && *p <= 0x7e) return static_cast<std::size_t>(p + 1 - at);
    }
    return terminal_escape_end(std::string_view(at, static_cast<std::size_t>(until - at)), 0);
  }

  // Only line starts are ever mapped (file_offset()): one shift per line, from its last sequence
  // on (`in` and `out` are after it).
  void record_shift(const char* in, char* out, bool new_line) {
    const LineSplitter::Shift shift{stream_base_ + reinterpret_cast<std::uintptr_t>(out),
                                    removed_before_ + static_cast<std::uint64_t>(in - out)};
    if (new_line)
      shifts_.push_back(shift);
    else
      shifts_.back() = shift;
  }

  const char* in_;
  char* out_;
  std::uint64_t stream_base_, removed_before_;
  std::vector<LineSplitter::Shift>& shifts_;
  bool new_line_ = true;  // a '\n' was passed since the last shift: the next one is another line's
  bool may_keep_cr_ = false;
  char* first_escape_ = nullptr;
};

// Bytes after a buffer's end that a copy 32 bytes at a time may read and write past the text
// (LineCompaction).
constexpr std::size_t kCopySlack = 32;

// The last buffer a splitter on this thread released, for the next file: a fresh 1 MiB
// allocation per file costs page faults and heap trimming that dominate small files.
struct SpareBuffer {
  std::unique_ptr<char[]> bytes;
  std::size_t size = 0;
};
thread_local SpareBuffer spare_buffer;

}  // namespace

LineSplitter::~LineSplitter() {
  if (!spare_buffer.bytes && buffer_) {
    spare_buffer.bytes = std::move(buffer_);
    spare_buffer.size = buffer_size_;
  }
}

LineSplitter::LineSplitter(ByteSource& source, DiagnosticSink& diags, std::string display_path,
                           SplitOptions options)
    : source_(source), diags_(diags), display_path_(std::move(display_path)), options_(options) {
  options_.max_line_bytes = std::max<std::size_t>(options_.max_line_bytes, 1);
  // Room for a whole line of the maximum length plus "\r\n": a buffer full of one line then
  // always means "too long", so a refill can never find the buffer full.
  buffer_size_ = std::max(options_.buffer_bytes, options_.max_line_bytes + 2);
  acquire_buffer();
}

void LineSplitter::acquire_buffer() {
  if (spare_buffer.bytes && spare_buffer.size == buffer_size_) {
    buffer_ = std::move(spare_buffer.bytes);
    spare_buffer.size = 0;
  } else {
    buffer_.reset(new char[buffer_size_ + kCopySlack]);
  }
}

void LineSplitter::park() {
  if (!buffer_) return;
  parked_.assign(buffer_.get() + begin_, end_ - begin_);
  consumed_offset_ += begin_;
  forget_shifts_before(consumed_offset_);
  next_nul_ -= std::min(next_nul_, begin_);
  next_cr_ -= std::min(next_cr_, begin_);
  last_start_ -= std::min(last_start_, begin_);
  end_ -= begin_;
  begin_ = 0;
  if (!spare_buffer.bytes) {
    spare_buffer.bytes = std::move(buffer_);
    spare_buffer.size = buffer_size_;
  }
  buffer_.reset();
}

void LineSplitter::unpark() {
  if (buffer_) return;
  acquire_buffer();
  std::memcpy(buffer_.get(), parked_.data(), parked_.size());
  parked_.clear();
}

std::string_view LineSplitter::head(std::size_t want) {
  want = std::min(want, buffer_size_);
  while (end_ < want && refill()) {
  }
  return std::string_view(buffer_.get(), std::min(end_, want));
}

bool LineSplitter::refill() {
  if (eof_) return false;
  peeked_offset_ = static_cast<std::uint64_t>(-1);
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    consumed_offset_ += begin_;
    forget_shifts_before(consumed_offset_);
    next_nul_ -= std::min(next_nul_, begin_);
    next_cr_ -= std::min(next_cr_, begin_);
    last_start_ -= std::min(last_start_, begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  const bool nul_ahead = next_nul_ < end_;  // one still in the kept tail: no search needed
  const bool cr_ahead = next_cr_ < end_;
  const std::size_t old_end = end_;
  std::size_t n = source_.read(buffer_.get() + end_, buffer_size_ - end_);
  if (n == 0) {
    eof_ = !following_;
    return false;
  }
  end_ += n;
  total_bytes_ += n;
  if (!nul_ahead && !cr_ahead) {
    // Both looked for in one pass; after the first found, the other by itself.
    const std::size_t first = old_end + first_nul_or_cr(buffer_.get() + old_end, end_ - old_end);
    next_nul_ = next_cr_ = end_;
    if (first < end_ && buffer_[first] == '\0') {
      next_nul_ = first;
      find_next_cr(first);
    } else if (first < end_) {
      next_cr_ = first;
      find_next_nul(first);
    }
  } else {
    if (!nul_ahead) find_next_nul(old_end);
    if (!cr_ahead) find_next_cr(old_end);
  }
  return true;
}

// One memchr per refill instead of one per line: NULs are rare.
void LineSplitter::find_next_nul(std::size_t from) {
  from = std::max(from, begin_);
  const void* nul = from < end_ ? std::memchr(buffer_.get() + from, '\0', end_ - from) : nullptr;
  next_nul_ = nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - buffer_.get()) : end_;
}

// Likewise for '\r': most logs have none, and clean() then skips its look for them.
void LineSplitter::find_next_cr(std::size_t from) {
  from = std::max(from, begin_);
  const void* cr = from < end_ ? std::memchr(buffer_.get() + from, '\r', end_ - from) : nullptr;
  next_cr_ = cr != nullptr ? static_cast<std::size_t>(static_cast<const char*>(cr) - buffer_.get()) : end_;
}

void LineSplitter::report(bool& reported, const char* code, std::string message, const char* hint) {
  if (!reported) {
    reported = true;
    diags_.add(Severity::Warning, code, std::move(message), display_path_, line_number_, hint);
    return;
  }
  Diagnostic repeat;  // folded into the first one's count by the sink
  repeat.code = code;
  repeat.path = display_path_;
  diags_.add(std::move(repeat));
}

std::string_view LineSplitter::clean(char* text, std::size_t size, bool has_nul, bool has_cr, bool has_esc,
                                     bool& escapes_removed) {
  if (char* nul = has_nul ? static_cast<char*>(std::memchr(text, '\0', size)) : nullptr) {
    char* end = text + size;
    for (; nul != nullptr; nul = static_cast<char*>(std::memchr(nul, '\0', end - nul))) *nul = ' ';
    report(reported_nul_, "split.nul-bytes",
           "NUL bytes in the text (replaced by spaces); first seen on this line",
           "usually a file that was preallocated or cut by a crashed node; the count is "
           "the number of lines with NULs");
  }
  // Escapes before frames: a terminal shows a frame's text without them, whatever the frames.
  if (has_esc) {
    const std::size_t plain = strip_terminal_escapes_in_place(text, size);
    escapes_removed = plain < size;
    size = plain;
  }
  if (!has_cr) return std::string_view(text, size);
  // CRLF, and the blank redraws some progress bars end with.
  while (size > 0 && text[size - 1] == '\r') --size;
  std::string_view view(text, size);
  // A progress bar redrawn with '\r': the terminal would show only the last frame.
  // memrchr, not string_view::rfind: the latter is a byte loop and ran on every line.
  if (const void* cr = size > 0 ? ::memrchr(text, '\r', size) : nullptr)
    view.remove_prefix(static_cast<std::size_t>(static_cast<const char*>(cr) - text) + 1);
  return view;
}

bool LineSplitter::next(LineView& line) {
  RawLine raw;
  if (!next_raw(raw)) return false;
  line = clean(raw);
  return true;
}

LineView LineSplitter::clean(const RawLine& raw) {
  LineView line;
  line.number = raw.number;
  line.offset = raw.offset;
  line.cut = raw.cut;
  line.text = clean(raw.data, raw.size, raw.has_nul, raw.has_cr, raw.has_esc, line.escapes_removed);
  return line;
}

std::string_view LineSplitter::lookahead(std::uint64_t& offset) const {
  offset = consumed_offset_ + last_start_;
  if (last_cut_ || last_start_ >= end_) return {};
  std::size_t stop = end_;
  if (!eof_) {
    const void* nl = begin_ < end_ ? ::memrchr(buffer_.get() + begin_, '\n', end_ - begin_) : nullptr;
    stop = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get()) + 1 : begin_;
  }
  return std::string_view(buffer_.get() + last_start_, stop - last_start_);
}

bool LineSplitter::cr_ahead(const RawLine& line) const {
  std::uint64_t offset = 0;
  const std::string_view region = lookahead(offset);
  return !region.empty() && (line.has_cr || next_cr_ < last_start_ + region.size());
}

std::size_t LineSplitter::strip_ahead(RawLine& line, bool escapes) {
  first_escape_removed_ = kNoEscape;
  std::uint64_t region_offset = 0;
  const std::string_view region = lookahead(region_offset);
  if (region.empty() || (escapes && line.has_nul)) return 0;
  char* const buf = buffer_.get();
  const std::size_t from = last_start_, stop = from + region.size();
  // The first '\r' (next_cr_ is the first after the line last returned), then the first ESC
  // before it: where the first removal may be.
  std::size_t first = next_cr_ < stop ? next_cr_ : stop;
  if (line.has_cr) first = static_cast<std::size_t>(static_cast<const char*>(std::memchr(buf + from, '\r', line.size)) - buf);
  const bool crlf = first < stop;
  if (escapes) {
    if (const void* esc = std::memchr(buf + from, '\x1b', first - from))
      first = static_cast<std::size_t>(static_cast<const char*>(esc) - buf);
    else if (!crlf)
      return 0;
  } else if (!crlf) {
    return 0;
  }
  auto line_start = [&](std::size_t at) {
    const void* nl = at > from ? ::memrchr(buf + from, '\n', at - from) : nullptr;
    return nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf) + 1 : from;
  };
  const std::size_t first_line = line_start(first);
  // The input's last line without a '\n' keeps its escapes too: with none left it would be no
  // line at all, where clean() leaves an empty one.
  const std::size_t strip_stop = buf[stop - 1] == '\n' ? stop : line_start(stop);
  if (strip_stop <= first) return 0;

  LineCompaction compaction(buf + first, consumed_offset_ - reinterpret_cast<std::uintptr_t>(buf), removed_total(),
                            shifts_);
  auto strip_to = [&](std::size_t until) {
    if (escapes && crlf)
      compaction.strip_to<true, true>(buf + until);
    else if (escapes)
      compaction.strip_to<true, false>(buf + until);
    else
      compaction.strip_to<false, true>(buf + until);
  };
  std::uint64_t lines = 0;
  if (!escapes) {
    // A line's '\r' goes whatever the line: clean() would drop it after the NULs, and an
    // over-long line is cut where it would be (the limit does not count a CRLF's '\r').
    strip_to(strip_stop);
  } else if (next_nul_ >= strip_stop &&
      count_short_lines(buf + first_line, strip_stop - first_line, options_.max_line_bytes, lines)) {
    strip_to(strip_stop);
  } else {
    // A line with a NUL, or one longer than the limit, keeps its escapes and '\r' for clean(),
    // which removes them after turning NULs into spaces, or from the part of a cut line that is
    // kept.
    std::size_t nul = next_nul_;
    for (std::size_t at = first_line; at < strip_stop;) {
      const std::size_t end = static_cast<std::size_t>(static_cast<const char*>(std::memchr(buf + at, '\n', strip_stop - at)) - buf);
      if (nul < at) {
        const void* n = std::memchr(buf + at, '\0', stop - at);
        nul = n != nullptr ? static_cast<std::size_t>(static_cast<const char*>(n) - buf) : stop;
      }
      if (end - at > options_.max_line_bytes || nul < end) {
        strip_to(std::max(at, first));
        compaction.copy_to(buf + end + 1);
      }
      at = end + 1;
    }
    strip_to(strip_stop);
  }
  compaction.copy_to(buf + stop);
  if (compaction.first_escape() != nullptr)
    first_escape_removed_ = consumed_offset_ + static_cast<std::uint64_t>(compaction.first_escape() - buf);
  const std::size_t removed = compaction.removed();
  if (removed == 0) return 0;
  std::memmove(buf + stop - removed, buf + stop, end_ - stop);
  end_ -= removed;
  // The line last returned, and the next line's start, when a sequence was removed from it.
  if (first < from + line.size) {
    if (begin_ == from + line.size + 1) {  // it ended with a '\n' (else it ended the input)
      line.size = static_cast<std::size_t>(static_cast<const char*>(std::memchr(buf + from, '\n', end_ - from)) - (buf + from));
      begin_ = from + line.size + 1;
    } else {
      line.size = end_ - from;
      begin_ = end_;
    }
    if (line.has_cr) line.has_cr = std::memchr(line.data, '\r', line.size) != nullptr;
  }
  // The first NUL and '\r' from begin_ on (none: the buffer's end).
  if (next_nul_ >= stop)
    next_nul_ = next_nul_ >= end_ + removed ? end_ : next_nul_ - removed;
  else
    find_next_nul(begin_);
  if (next_cr_ >= stop)
    next_cr_ = next_cr_ >= end_ + removed ? end_ : next_cr_ - removed;
  else if (next_cr_ >= first)
    // (When the text stripped has no '\r' left, only the bytes after it may hold one.)
    find_next_cr(compaction.may_keep_cr() || strip_stop < stop ? begin_ : stop - removed);
  peeked_offset_ = static_cast<std::uint64_t>(-1);
  return removed;
}

// A shift applies to the line starts after its `at`, not at it: a line whose only sequences
// open it starts where they ended, and its input offset is before them.
std::uint64_t LineSplitter::file_offset(std::uint64_t offset) const {
  auto from = std::lower_bound(shifts_.begin(), shifts_.end(), offset,
                               [](const Shift& s, std::uint64_t o) { return s.at < o; });
  return offset + (from == shifts_.begin() ? removed_before_shifts_ : std::prev(from)->removed);
}

void LineSplitter::forget_shifts_before(std::uint64_t offset) {
  auto from = std::lower_bound(shifts_.begin(), shifts_.end(), offset,
                               [](const Shift& s, std::uint64_t o) { return s.at < o; });
  if (from == shifts_.begin()) return;
  removed_before_shifts_ = std::prev(from)->removed;
  shifts_.erase(shifts_.begin(), from);
}

bool LineSplitter::skip_lines_before(std::uint64_t target) {
  if (skipping_ || target <= consumed_offset_ + begin_) return false;
  // (A target beyond the buffer may lie past lines not read yet.)
  const bool within = target - consumed_offset_ <= end_;
  const auto target_index = static_cast<std::size_t>(std::min<std::uint64_t>(target - consumed_offset_, end_));
  const void* nl = ::memrchr(buffer_.get() + begin_, '\n', target_index - begin_);
  if (nl == nullptr) return within;  // the next line reaches the target already
  std::size_t stop = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer_.get()) + 1;
  if (next_nul_ < stop) return false;
  std::uint64_t lines = 0;
  if (!count_short_lines(buffer_.get() + begin_, stop - begin_, options_.max_line_bytes, lines)) return false;
  line_number_ += lines;
  begin_ = stop;
  next_nul_ = std::max(next_nul_, begin_);
  if (next_cr_ < begin_) find_next_cr(begin_);
  return within;
}

void LineSplitter::take_counted_lines(std::uint64_t end, std::uint64_t lines) {
  if (skipping_ || end <= consumed_offset_ + begin_) return;
  begin_ = static_cast<std::size_t>(std::min<std::uint64_t>(end - consumed_offset_, end_));
  line_number_ += lines;
}

std::string_view LineSplitter::plain_ahead(std::uint64_t until, std::uint64_t& offset) const {
  offset = next_line_offset();
  if (skipping_ || until <= offset) return {};
  const std::size_t stop = static_cast<std::size_t>(
      std::min<std::uint64_t>({until - consumed_offset_, end_, next_nul_, next_cr_}));
  return stop > begin_ ? std::string_view(buffer_.get() + begin_, stop - begin_) : std::string_view{};
}

bool LineSplitter::peek_plain_line(LineView& line) const {
  if (skipping_ || begin_ >= end_) return false;
  const char* start = buffer_.get() + begin_;
  const std::size_t pending = end_ - begin_;
  const auto* nl = static_cast<const char*>(std::memchr(start, '\n', std::min(pending, options_.max_line_bytes + 1)));
  if (nl == nullptr) return false;
  const auto length = static_cast<std::size_t>(nl - start);
  peeked_offset_ = consumed_offset_ + begin_;
  peeked_length_ = length;
  // next_nul_ and next_cr_ are at or after begin_: the line holds neither when both lie beyond it.
  if (length > options_.max_line_bytes || next_nul_ < begin_ + length || next_cr_ < begin_ + length) return false;
  line.text = std::string_view(start, length);
  line.number = line_number_ + 1;
  line.offset = consumed_offset_ + begin_;
  line.cut = false;
  return true;
}

bool LineSplitter::next_raw(RawLine& line) {
  const std::size_t max_line = options_.max_line_bytes;
  for (;;) {
    if (skipping_) {
      // The tail of a cut line: drop bytes up to its '\n' without keeping them.
      void* nl = std::memchr(buffer_.get() + begin_, '\n', end_ - begin_);
      if (nl == nullptr) {
        begin_ = end_;
        if (!refill()) return false;
        continue;
      }
      begin_ = static_cast<std::size_t>(static_cast<char*>(nl) - buffer_.get()) + 1;
      skipping_ = false;
      if (next_nul_ < begin_) find_next_nul(begin_);
      if (next_cr_ < begin_) find_next_cr(begin_);
    }

    char* start = buffer_.get() + begin_;
    std::size_t pending = end_ - begin_;
    char* nl = peeked_offset_ == consumed_offset_ + begin_ ? start + peeked_length_
                                                         : static_cast<char*>(std::memchr(start, '\n', pending));
    std::size_t length = nl != nullptr ? static_cast<std::size_t>(nl - start) : pending;
    // A '\r' right before the end may be half of a CRLF: it does not count towards the limit.
    std::size_t content = length - (length > 0 && start[length - 1] == '\r' ? 1 : 0);

    if (content > max_line || nl != nullptr || (eof_ && pending > 0)) {
      line.number = ++line_number_;
      line.offset = consumed_offset_ + begin_;
      line.data = start;
      line.cut = content > max_line;
      line.size = line.cut ? max_line : length;
      line.has_nul = next_nul_ < begin_ + line.size;
      line.has_cr = next_cr_ < begin_ + line.size;
      line.has_esc = false;
      last_start_ = begin_;
      last_cut_ = line.cut;
      if (line.cut) {
        report(reported_long_, "split.line-too-long",
               "line longer than " + std::to_string(max_line) + " bytes; only its first " +
                   std::to_string(max_line) + " bytes were kept",
               "often a dumped tensor or a progress bar without newlines; the count is the "
               "number of cut lines");
      }
      if (nl != nullptr) {
        begin_ += length + 1;
      } else {
        begin_ = end_;
        skipping_ = line.cut;
      }
      if (next_nul_ < begin_) find_next_nul(begin_);
      if (next_cr_ < begin_) find_next_cr(begin_);
      return true;
    }
    if (eof_) return false;
    // Following: no more bytes for now; the partial line stays for the next call.
    if (!refill() && !eof_) return false;
  }
}

namespace {

// Length of the UTF-8 sequence at `p` (RFC 3629: no overlongs, surrogates or > U+10FFFF), 0 if
// invalid, or -1 if it is valid so far but runs past `end` (a block cut mid-character).
int utf8_sequence(const unsigned char* p, const unsigned char* end) {
  unsigned char c = p[0];
  int len;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (int i = 1; i < len; ++i) {
    if (p + i >= end) return -1;
    unsigned char lo_i = i == 1 ? lo : 0x80, hi_i = i == 1 ? hi : 0xBF;
    if (p[i] < lo_i || p[i] > hi_i) return 0;
  }
  return len;
}

#if defined(__x86_64__)
// Bytes of `v` that are neither printable ASCII nor tab, LF or CR.
__attribute__((target("avx2"))) inline __m256i odd_ascii_bytes(__m256i v) {
  // Signed compare: bytes >= 0x80 are negative, so `< 0x20` catches them with the controls.
  __m256i odd = _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v),
                                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f)));
  __m256i fine = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t')),
                                 _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')),
                                                 _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'))));
  return _mm256_andnot_si256(fine, odd);
}

// 64 bytes a step, one test per step: every file's first 4 KiB goes through here.
__attribute__((target("avx2"))) std::size_t plain_ascii_prefix_avx2(const unsigned char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32));
    __m256i odd = _mm256_or_si256(odd_ascii_bytes(a), odd_ascii_bytes(b));
    if (!_mm256_testz_si256(odd, odd)) break;
  }
  return i;  // the caller checks from here on (the step that failed, and the tail)
}

__attribute__((target("avx512f,avx512bw"))) std::size_t plain_ascii_prefix_avx512(const unsigned char* p,
                                                                                  std::size_t n) {
  const __m512i space = _mm512_set1_epi8(0x20), del = _mm512_set1_epi8(0x7f), tab = _mm512_set1_epi8('\t'),
                lf = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r');
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(p + i);
    // Unsigned: bytes >= 0x80 are above DEL, controls below the space.
    const std::uint64_t odd = _mm512_cmplt_epu8_mask(v, space) | _mm512_cmpge_epu8_mask(v, del);
    const std::uint64_t fine = _mm512_cmpeq_epi8_mask(v, tab) | _mm512_cmpeq_epi8_mask(v, lf) |
                               _mm512_cmpeq_epi8_mask(v, cr);
    if ((odd & ~fine) != 0) break;
  }
  return i;  // as plain_ascii_prefix_avx2
}
#endif

// Printable ASCII, tab, LF and CR only.
bool is_plain_ascii_text(const unsigned char* p, std::size_t n) {
  std::size_t i = 0;
#if defined(__x86_64__)
  if (simd_level() >= SimdLevel::Avx512) {
    i = plain_ascii_prefix_avx512(p, n);
  } else if (simd_level() >= SimdLevel::Avx2) {
    i = plain_ascii_prefix_avx2(p, n);
  }
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f), tab = _mm_set1_epi8('\t'),
                lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed compare: bytes >= 0x80 are negative, so `< 0x20` catches them with the controls.
    __m128i odd = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
    __m128i fine = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
    if (_mm_movemask_epi8(_mm_andnot_si128(fine, odd)) != 0) return false;
  }
#endif
  for (; i < n; ++i) {
    unsigned char c = p[i];
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7f) return false;
  }
  return true;
}

}  // namespace

bool looks_binary(std::string_view first_block) {
  // 4 KiB is enough to tell a core dump or a checkpoint from a log; thresholds leave room for
  // logs with colour codes, a stray control byte, or a little Latin-1.
  const std::size_t n = std::min<std::size_t>(first_block.size(), 4096);
  if (n == 0) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(first_block.data());
  // Nearly every log is plain ASCII text: say so without the per-byte UTF-8 walk.
  if (is_plain_ascii_text(p, n)) return false;
  const unsigned char* end = p + n;
  // A run of NULs counts once: a crashed writer leaves NUL runs (preallocated blocks) inside a
  // short log, binary data scatters them.
  std::size_t control = 0, nul = 0, invalid = 0;
  for (const unsigned char* q = p; q < end;) {
    unsigned char c = *q;
    if (c < 0x80) {
      bool run = c == 0 && q > p && q[-1] == 0;
      if (c == 0 && !run) ++nul;
      if (((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b) ||
           c == 0x7f) && !run)
        ++control;
      ++q;
      continue;
    }
    int len = utf8_sequence(q, end);
    if (len < 0) break;  // cut by the block boundary, not invalid
    if (len == 0) {
      ++invalid;
      ++q;
    } else {
      q += len;
    }
  }
  return control * 10 > n || nul * 100 > n || invalid * 10 > n;
}

}  // namespace megatriage
