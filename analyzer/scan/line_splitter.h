// Split stage: cut a ByteSource into lines through one fixed buffer (memchr for '\n', tail
// moved to the front before a refill). Handles CRLF, '\r' progress bars (keeps the text after
// the last '\r'), NUL bytes, over-long lines (cut, reported once per file) and, when asked,
// terminal escape sequences (removed from a line, or from a whole buffer of lines at once, as
// the '\r' of CRLF line ends can be).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostics.h"
#include "input/reader.h"

namespace megatriage {

/// A view of one line without its terminator. Valid until the next call to next().
struct LineView {
  std::string_view text;
  std::uint64_t number = 0;  // 1-based, counting '\n'
  std::uint64_t offset = 0;  // byte offset of the line start in the decompressed stream
  bool cut = false;          // the line was longer than the limit; `text` is its head
  bool escapes_removed = false;  // clean() removed terminal escape sequences (RawLine::has_esc)
};

/// A line as it lies in the buffer, before clean(): valid until the next call to next_raw().
struct RawLine {
  char* data = nullptr;
  std::size_t size = 0;      // without '\n'; a cut line: its head
  std::uint64_t number = 0;
  std::uint64_t offset = 0;
  bool cut = false;
  bool has_nul = false;      // clean() will replace NULs (and report them)
  bool has_cr = false;       // clean() looks for '\r' (CRLF, progress-bar frames)
  /// Set by the caller: the line may hold an ESC, and clean() is to remove the terminal escape
  /// sequences from it (base/text_util.h), before taking a '\r' frame.
  bool has_esc = false;
};

struct SplitOptions {
  std::size_t buffer_bytes = 1 << 20;      // the fixed buffer (at least max_line_bytes + 2)
  std::size_t max_line_bytes = 64 << 10;   // longer lines are cut to this (rest skipped)
};

class LineSplitter {
 public:
  /// strip_ahead(): where the stream offsets of lines move. After `at` (up to the next
  /// Shift's) a line's input offset is its stream offset plus `removed`. One per line that lost
  /// bytes, `at` after its last sequence; only the buffer's are kept (refill() drops the others).
  struct Shift {
    std::uint64_t at, removed;
  };

  /// Requires: `source` and `diags` outlive the splitter. `display_path` names the file in
  /// diagnostics.
  LineSplitter(ByteSource& source, DiagnosticSink& diags, std::string display_path,
               SplitOptions options = {});
  ~LineSplitter();  // leaves its buffer to the thread's next splitter
  /// The input's first `want` bytes (fewer if it is shorter), read into the buffer but not
  /// consumed: a look at the head before splitting. Only before the first next()/next_raw().
  std::string_view head(std::size_t want);
  /// Next line, or false at end. Strips a trailing '\r'; for lines with interior '\r' keeps the
  /// text after the last one (a progress bar's final frame); replaces NUL bytes by spaces
  /// (reported once, code `split.nul-bytes`). Lines over the limit: `split.line-too-long`.
  bool next(LineView& line);

  /// The same line as next() without clean(): for callers that look at few lines. Every line
  /// later shown in a report must go through clean().
  bool next_raw(RawLine& line);
  /// What next() makes of a raw line (NULs, escapes when `has_esc`, CR frames, reports). Mutates
  /// the buffer in place; call it once per line.
  LineView clean(const RawLine& line);
  /// The next line, not consumed, when it lies whole in the buffer and next() would return it
  /// as it is: ended by '\n', within the length limit, with no NUL or '\r'. False otherwise
  /// (next_raw() then takes it). `line.number` is the number it will have.
  bool peek_plain_line(LineView& line) const;
  /// The buffered bytes from the next line on that hold no NUL or '\r', up to stream offset
  /// `until` at most (the last line in them may be partial), and the stream offset of their
  /// first byte: lines a caller may take whole with skip_lines_before() once it found their
  /// ends.
  std::string_view plain_ahead(std::uint64_t until, std::uint64_t& offset) const;
  /// The buffered bytes at stream offsets [from, to), which lookahead() or plain_ahead() showed
  /// and no line taken since has moved out of the buffer.
  std::string_view buffered(std::uint64_t from, std::uint64_t to) const {
    return std::string_view(buffer_.get() + (from - consumed_offset_), to - from);
  }
  /// Consumes the line peek_plain_line() just returned.
  void take_peeked(const LineView& line) {
    begin_ += line.text.size() + 1;
    line_number_ = line.number;
  }
  /// The buffered bytes from the start of the line last returned to the end of the last complete
  /// line after it (or the end of input), and the stream offset of its first byte. Lets a caller
  /// search many lines at once. Empty after a cut line.
  std::string_view lookahead(std::uint64_t& offset) const;
  /// Skips the buffered complete lines that end before stream offset `target`, counting them,
  /// without looking at them one by one. Skips nothing when one of them holds a NUL or is over
  /// the length limit (next_raw() then reports it as usual). True when the next line then
  /// holds stream offset `target` (no '\n' lies between its start and `target`).
  bool skip_lines_before(std::uint64_t target);
  /// Consumes the buffered bytes up to stream offset `end`: `lines` whole lines that the caller
  /// found in plain_ahead()'s text (so none holds a NUL or '\r' or is over the limit) and
  /// counted, which skip_lines_before() would count again.
  void take_counted_lines(std::uint64_t end, std::uint64_t lines);

  /// Removes from the lines lookahead() shows, in place, the '\r' of each "\r\n" and, with
  /// `escapes`, the terminal escape sequences (base/text_util.h), moving the bytes after them
  /// down: a CRLF or coloured log is then searched and read as plain text. Each line loses what
  /// clean() (with `has_esc`) would take from it. A line that holds a NUL or is longer than the
  /// limit keeps them (clean() removes them after turning NULs into spaces, or from the part of a
  /// cut line that is kept), and so does the input's last line when it has no '\n' (without its
  /// escapes it could be no line at all). `line` is the line last returned (next_raw()); it
  /// shrinks by what it lost. Returns the number of bytes removed. From then on the splitter's
  /// stream offsets are those of the text without them; file_offset() gives a line's offset in
  /// the input.
  std::size_t strip_ahead(RawLine& line, bool escapes);
  /// The stream offset, after the call, of the text that followed the first escape sequence
  /// the last strip_ahead() removed: that sequence's line is the line of this offset (the
  /// bytes before it lost nothing but escapes and CRs). kNoEscape: it removed none.
  std::uint64_t first_escape_removed() const { return first_escape_removed_; }
  static constexpr std::uint64_t kNoEscape = static_cast<std::uint64_t>(-1);
  /// Whether the lines lookahead() shows hold a '\r' (`line` is the line last returned).
  bool cr_ahead(const RawLine& line) const;
  /// The input's offset of the line that starts at stream offset `offset`, which must not be
  /// before the line last returned: the offset plus the escape bytes removed before it.
  std::uint64_t file_offset(std::uint64_t offset) const;
  /// Whether strip_ahead() removed anything so far (file_offset() is then needed).
  bool offsets_moved() const { return removed_total() != 0; }

  /// From now on a read of 0 means "no more bytes for now" (a file still being written), not the
  /// end: next() then returns false before a partial last line and goes on when called again
  /// after more bytes arrived. Lines, offsets and reports are those of one read of the bytes.
  void follow() { following_ = true; }
  /// Ends follow(): the source's next 0 is its end, and a partial last line becomes a line.
  void end_input() { following_ = false; }
  /// Whether the source's end was reached (not merely a pause while following).
  bool at_end() const { return eof_; }
  /// Following, paused: keeps only the unsplit bytes (a partial line) and gives the buffer back
  /// to the thread, so that many followed files do not hold a buffer each. unpark() before the
  /// next use; nothing else may be called while parked.
  void park();
  void unpark();

  std::uint64_t bytes_read() const { return total_bytes_; }
  /// The bytes received but not yet part of a line returned or skipped: a partial last line.
  std::uint64_t unsplit_bytes() const { return end_ - begin_; }
  /// The stream offset of the next line (the first byte not yet returned or skipped).
  std::uint64_t next_line_offset() const { return consumed_offset_ + begin_; }
  std::uint64_t lines_read() const { return line_number_; }

 private:
  /// First occurrence of `code` in this file: a full diagnostic; later ones only count.
  void report(bool& reported, const char* code, std::string message, const char* hint);
  bool refill();
  void acquire_buffer();
  // `escapes_removed`: whether `has_esc` removed any.
  std::string_view clean(char* text, std::size_t size, bool has_nul, bool has_cr, bool has_esc,
                         bool& escapes_removed);
  void find_next_nul(std::size_t from);
  void find_next_cr(std::size_t from);
  void forget_shifts_before(std::uint64_t offset);
  // The bytes strip_ahead() removed so far (the last shift's count).
  std::uint64_t removed_total() const { return shifts_.empty() ? removed_before_shifts_ : shifts_.back().removed; }
  ByteSource& source_;
  DiagnosticSink& diags_;
  std::string display_path_;
  SplitOptions options_;
  // Not a std::vector: zero-filling 1 MiB per file dominated jobs of many small files.
  std::unique_ptr<char[]> buffer_;
  std::size_t buffer_size_ = 0;
  std::size_t begin_ = 0, end_ = 0;     // unconsumed bytes are buffer_[begin_, end_)
  bool eof_ = false;
  bool following_ = false;              // follow(): a read of 0 is a pause, not the end
  bool skipping_ = false;               // inside the unread rest of a cut line
  bool last_cut_ = false;
  std::size_t last_start_ = 0;          // buffer index of the line last returned
  std::size_t next_nul_ = 0;            // buffer index of the first NUL at/after begin_, or end_
  std::size_t next_cr_ = 0;             // ... of the first '\r' (one memchr per refill, not per line)
  std::uint64_t line_number_ = 0;
  std::uint64_t total_bytes_ = 0;       // bytes received from the source
  std::uint64_t consumed_offset_ = 0;   // stream offset of buffer_[0]
  bool reported_nul_ = false, reported_long_ = false;
  std::string parked_;                  // park(): the bytes [begin_, end_) while the buffer is away
  // The line peek_plain_line() last found, by stream offset and length: a caller that then takes
  // it with next_raw() (its hits make it no stamp line) does not look for its end again.
  mutable std::uint64_t peeked_offset_ = static_cast<std::uint64_t>(-1);
  mutable std::size_t peeked_length_ = 0;
  // Before the first of `shifts_`, a line's input offset is its stream offset plus this.
  std::uint64_t removed_before_shifts_ = 0;
  std::vector<Shift> shifts_;
  std::uint64_t first_escape_removed_ = kNoEscape;  // first_escape_removed()
};

/// True when `text` looks like binary data rather than a log (many control bytes / invalid
/// UTF-8 in the first block). Used to skip core dumps and .pt files with a diagnostic.
bool looks_binary(std::string_view first_block);

}  // namespace megatriage
