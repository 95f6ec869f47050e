#include "app/root_context.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <string_view>

#include "base/diagnostics.h"
#include "base/unique_fd.h"

namespace megatriage {

namespace {

// Splits `source` (its first line numbered `first_number`) and keeps lines first..last.
std::vector<ContextLine> collect(ByteSource& source, const std::string& display_path, std::uint64_t first_number,
                                 std::uint64_t first, std::uint64_t last, const SplitOptions& split) {
  std::vector<ContextLine> out;
  DiagnosticSink ignored;
  LineSplitter splitter(source, ignored, display_path, split);
  RawLine raw;
  while (splitter.next_raw(raw)) {
    const std::uint64_t number = first_number + raw.number - 1;
    if (number < first) continue;  // not looked at: memchr's pace
    if (number > last) break;
    LineView view = splitter.clean(raw);
    std::string text(view.text.substr(0, kContextLineBytes));
    if (view.text.size() > kContextLineBytes || view.cut) {
      // Cut on a character boundary, then mark the cut.
      while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) text.pop_back();
      if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xc0) text.pop_back();
      text += "\u2026";
    }
    out.push_back(ContextLine{number, std::move(text)});
  }
  return out;
}

// The bytes [from, from + size) of a plain file; fewer at its end; nothing on an error.
std::optional<std::string> read_range(const std::string& path, std::uint64_t from, std::uint64_t size) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::string bytes(size, '\0');
  std::size_t got = 0;
  while (got < size) {
    ssize_t r = ::pread(fd.get(), bytes.data() + got, size - got, static_cast<off_t>(from + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return std::nullopt;
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  bytes.resize(got);
  return bytes;
}

}  // namespace

std::vector<ContextLine> read_context_lines(SourceFile file, std::uint64_t line, std::uint64_t offset,
                                            std::size_t n, const ReadLimits& limits, const SplitOptions& split) {
  if (n == 0 || line == 0) return {};
  const std::uint64_t first = line > n ? line - n : 1;
  const std::uint64_t last = line + n;
  if (file.compression == Compression::None && offset > kContextWindowBytes) {
    // Deep in a plain file: read a window around the line instead of the file up to it. The
    // line numbers come from the root's own: the window's '\n's before `offset` count back.
    const std::uint64_t start = offset - kContextWindowBytes;
    std::optional<std::string> bytes = read_range(file.path, start, 2 * kContextWindowBytes);
    if (!bytes || bytes->size() <= kContextWindowBytes) return {};
    std::string_view window(*bytes);
    const std::size_t root_at = static_cast<std::size_t>(offset - start);
    if (root_at > 0 && window[root_at - 1] != '\n') return {};  // not the analysis's bytes any more
    const std::uint64_t newlines_before = static_cast<std::uint64_t>(
        std::count(window.begin(), window.begin() + static_cast<long>(root_at), '\n'));
    // The window begins inside a line: drop it, start after its '\n'.
    const std::size_t begin = window.find('\n') + 1;
    const std::uint64_t first_number = line - newlines_before + 1;
    // A line the window's end cuts is not shown cut: end at its last '\n'.
    std::size_t end = window.size();
    if (bytes->size() == 2 * kContextWindowBytes) end = window.rfind('\n') + 1;
    DiagnosticSink ignored;
    std::unique_ptr<ByteSource> source =
        memory_source(std::string(window.substr(begin, end - begin)), Compression::None, file.display_path, ignored);
    return collect(*source, file.display_path, first_number, first, last, split);
  }
  // The analysis already reported what is wrong with this file; a second report would only
  // repeat it.
  DiagnosticSink ignored;
  std::unique_ptr<ByteSource> source = open_source(file, limits, ignored);
  if (!source) return {};
  return collect(*source, file.display_path, 1, first, last, split);
}

std::vector<ContextLine> kept_context_lines(const std::vector<ContextLine>& kept, std::uint64_t line, std::size_t n) {
  std::vector<ContextLine> out;
  if (n == 0 || line == 0) return out;
  const std::uint64_t first = line > n ? line - n : 1, last = line + n;
  auto it = std::lower_bound(kept.begin(), kept.end(), first,
                             [](const ContextLine& c, std::uint64_t l) { return c.line < l; });
  for (; it != kept.end() && it->line <= last; ++it) out.push_back(*it);
  return out;
}

std::vector<ContextLine> read_context_around(SourceFile file, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& anchors,
                                             std::size_t n, const ReadLimits& limits, const SplitOptions& split) {
  std::vector<ContextLine> out;
  if (n == 0) return out;
  for (const auto& [line, offset] : anchors) {
    // Windows of neighbouring events overlap (a traceback's lines, every rank's watchdog line):
    // read only from the first line not yet kept.
    if (!out.empty() && out.back().line >= line + n) continue;
    std::vector<ContextLine> lines = read_context_lines(file, line, offset, n, limits, split);
    for (ContextLine& c : lines)
      if (out.empty() || c.line > out.back().line) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace megatriage

