#include "app/root_context.h"

#include <string>

#include "base/diagnostics.h"

namespace megatriage {

std::vector<ContextLine> read_context_lines(SourceFile file, std::uint64_t line, std::size_t n,
                                            const ReadLimits& limits, const SplitOptions& split) {
  std::vector<ContextLine> out;
  if (n == 0 || line == 0) return out;
  // The analysis already reported what is wrong with this file; a second report would only
  // repeat it.
  DiagnosticSink ignored;
  std::unique_ptr<ByteSource> source = open_source(file, limits, ignored);
  if (!source) return out;
  LineSplitter splitter(*source, ignored, file.display_path, split);
  const std::uint64_t first = line > n ? line - n : 1;
  const std::uint64_t last = line + n;
  RawLine raw;
  while (splitter.next_raw(raw)) {
    if (raw.number < first) continue;  // not looked at: memchr's pace
    if (raw.number > last) break;
    LineView view = splitter.clean(raw);
    std::string text(view.text.substr(0, kContextLineBytes));
    if (view.text.size() > kContextLineBytes || view.cut) {
      // Cut on a character boundary, then mark the cut.
      while (!text.empty() && (static_cast<unsigned char>(text.back()) & 0xc0) == 0x80) text.pop_back();
      if (!text.empty() && static_cast<unsigned char>(text.back()) >= 0xc0) text.pop_back();
      text += "\u2026";
    }
    out.push_back(ContextLine{view.number, std::move(text)});
  }
  return out;
}

}  // namespace megatriage
