// line_searcher: which lines reach the sink (trigger hits, everything while the sink wants every
// line), what it is told about them, the head check, and following a growing source: bytes
// that arrive in pieces give the lines, offsets and reports of one read.
#include "scan/line_searcher.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "input/reader.h"
#include "support/generated_log.h"

namespace megatriage {
namespace {

// Bytes appended by the test; a read of 0 means "nothing more for now".
class GrowingSource final : public ByteSource {
 public:
  std::size_t read(char* buffer, std::size_t capacity) override {
    std::size_t n = std::min(capacity, bytes_.size() - pos_);
    std::memcpy(buffer, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  void append(std::string_view bytes) { bytes_.append(bytes); }

 private:
  std::string bytes_;
  std::size_t pos_ = 0;
};

// Records every line shown; wants every line while a line starting with "open" was shown
// more recently than one starting with "close".
class RecordingSink final : public LineSink {
 public:
  void on_line(const LineView& line, const LineHit& hit) override {
    std::string text(line.text);
    shown += std::to_string(line.number) + "@" + std::to_string(line.offset) + (hit.triggered ? " hit " : " ") +
             (line.cut ? "cut " : "") + "[" + text + "]";
    if (hit.candidates != nullptr)
      for (int c : *hit.candidates) shown += " r" + std::to_string(c);
    shown += "\n";
    if (text.rfind("open", 0) == 0) open_structures_ = 1;
    if (text.rfind("close", 0) == 0) open_structures_ = 0;
  }
  std::string shown;
};

std::string search_all(const std::string& bytes, const TriggerScanner* triggers, DiagnosticSink& diags,
                       SplitOptions split = {}) {
  auto source = memory_source(bytes, Compression::None, "x.log", diags);
  SearchOptions options;
  options.split = split;
  options.triggers = triggers;
  LineSearcher searcher(*source, diags, "x.log", options);
  REQUIRE(searcher.start() == SourceStart::Lines);
  RecordingSink sink;
  searcher.search(sink);
  return sink.shown + "lines " + std::to_string(searcher.lines_read()) + " bytes " +
         std::to_string(searcher.bytes_read()) + "\n";
}

// The same bytes fed `step` at a time, searching after each piece, then ended.
std::string search_following(const std::string& bytes, std::size_t step, const TriggerScanner* triggers,
                             DiagnosticSink& diags, SplitOptions split = {}) {
  GrowingSource source;
  SearchOptions options;
  options.split = split;
  options.triggers = triggers;
  options.follow = true;
  LineSearcher searcher(source, diags, "x.log", options);
  // The head is read only once it is complete, as the incremental analyzer does.
  std::size_t fed = std::min(bytes.size(), LineSearcher::kHeadBytes);
  source.append(std::string_view(bytes).substr(0, fed));
  if (fed < LineSearcher::kHeadBytes) searcher.end_input();
  REQUIRE(searcher.start() == SourceStart::Lines);
  RecordingSink sink;
  for (; fed < bytes.size(); fed += step) {
    source.append(std::string_view(bytes).substr(fed, step));
    searcher.search(sink);
  }
  searcher.end_input();
  searcher.search(sink);
  return sink.shown + "lines " + std::to_string(searcher.lines_read()) + " bytes " +
         std::to_string(searcher.bytes_read()) + "\n";
}

std::string diag_codes(const DiagnosticSink& diags) {
  std::string out;
  for (const auto& d : diags.items()) out += d.code + " x" + std::to_string(d.count) + " @" + std::to_string(d.line) + "\n";
  return out;
}

const TriggerScanner& test_triggers() {
  static DiagnosticSink diags;
  static TriggerScanner scanner({{"ERROR", 7}, {"FATAL", 9}}, {"open", "close"}, diags, TriggerScanner::Engine::Builtin);
  REQUIRE(scanner.ok());
  return scanner;
}

// Lines of every kind the splitter treats specially, with filler between them so that they fall
// on many read borders.
std::string awkward_log() {
  std::string log;
  for (int i = 0; i < 300; ++i) {
    log += "filler line " + std::to_string(i) + "\n";
    if (i % 7 == 0) log += "ERROR one\r\r\n";
    if (i % 11 == 3) log += "frame 1\rframe 2\rFATAL last frame\r\n";
    if (i % 13 == 5) log += std::string("a NUL\0 here ERROR\n", 18);
    if (i % 17 == 6) log += "open\nplain inside\nclose\n";
    if (i % 19 == 7) log += std::string(700, 'y') + " ERROR past the cut\n";
  }
  return log + "FATAL without newline";
}

}  // namespace

TEST_SUITE("line_searcher") {
TEST_CASE("line_searcher: without a trigger search every line is shown, as the splitter cuts it") {
  DiagnosticSink diags;
  CHECK(search_all("a\r\nb\rc\n\nlast", nullptr, diags) ==
        "1@0 hit [a]\n2@3 hit [c]\n3@7 hit []\n4@8 hit [last]\nlines 4 bytes 12\n");
}

TEST_CASE("line_searcher: only lines with a trigger reach the sink, with their rules") {
  DiagnosticSink diags;
  CHECK(search_all("noise\nan ERROR here\nnoise\nFATAL and ERROR\nnoise\n", &test_triggers(), diags) ==
        "2@6 hit [an ERROR here] r7\n4@26 hit [FATAL and ERROR] r7 r9\nlines 5 bytes 48\n");
}

TEST_CASE("line_searcher: a sink that wants every line gets the lines without triggers too") {
  DiagnosticSink diags;
  CHECK(search_all("noise\nopen\nplain\nclose\nnoise\n", &test_triggers(), diags) ==
        "2@6 hit [open]\n3@11 [plain]\n4@17 hit [close]\nlines 5 bytes 29\n");
}

TEST_CASE("line_searcher: cut lines and lines with NULs are always shown") {
  DiagnosticSink diags;
  SplitOptions split;
  split.max_line_bytes = 10;
  std::string noise;  // enough text that one NUL does not make the head look binary
  for (int i = 0; i < 20; ++i) noise += "noise\n";
  const std::string got = search_all(noise + std::string("NUL\0 x\n", 7) + std::string(30, 'z') + "\nnoise\n",
                                     &test_triggers(), diags, split);
  CHECK(got == "21@120 hit [NUL  x]\n22@127 hit cut [zzzzzzzzzz]\nlines 23 bytes 164\n");
  CHECK(diag_codes(diags) == "split.nul-bytes x1 @21\nsplit.line-too-long x1 @22\n");
}

TEST_CASE("line_searcher: the head tells empty and binary sources, with a diagnostic") {
  SUBCASE("empty") {
    DiagnosticSink diags;
    auto source = memory_source("", Compression::None, "x.log", diags);
    LineSearcher searcher(*source, diags, "x.log", SearchOptions{});
    CHECK(searcher.start() == SourceStart::Empty);
    CHECK(diag_codes(diags) == "read.empty-file x1 @0\n");
  }
  SUBCASE("binary") {
    DiagnosticSink diags;
    std::string bytes(5000, '\0');
    for (std::size_t i = 0; i < bytes.size(); i += 3) bytes[i] = static_cast<char>(i % 31);
    auto source = memory_source(bytes, Compression::None, "x.log", diags);
    LineSearcher searcher(*source, diags, "x.log", SearchOptions{});
    CHECK(searcher.start() == SourceStart::Binary);
    CHECK(diag_codes(diags) == "read.binary-file x1 @0\n");
  }
}

TEST_CASE("line_searcher: following a growing source gives the lines and reports of one read") {
  const std::string log = awkward_log();
  REQUIRE(log.size() > LineSearcher::kHeadBytes);
  SplitOptions split;
  split.max_line_bytes = 300;
  split.buffer_bytes = 302;
  for (const TriggerScanner* triggers : {static_cast<const TriggerScanner*>(nullptr), &test_triggers()}) {
    DiagnosticSink once_diags;
    const std::string once = search_all(log, triggers, once_diags, split);
    // The awkward lines do reach the sink (else the comparison proves little).
    CHECK(once.find("hit [ERROR one]") != std::string::npos);
    CHECK(once.find("hit [FATAL last frame]") != std::string::npos);
    CHECK(once.find("hit [FATAL without newline]") != std::string::npos);
    CHECK(once.find("[plain inside]") != std::string::npos);
    for (std::size_t step : {1u, 2u, 3u, 7u, 64u, 301u, 4096u, 1u << 20}) {
      INFO("step " << step << (triggers != nullptr ? ", triggers" : ""));
      DiagnosticSink diags;
      CHECK(search_following(log, step, triggers, diags, split) == once);
      CHECK(diag_codes(diags) == diag_codes(once_diags));
    }
  }
}

TEST_CASE("line_searcher: following searchers fed in turn (buffers parked between calls) stay apart") {
  const std::string one = awkward_log(), two = "other file\n" + awkward_log();
  DiagnosticSink once_diags;
  const std::string expected_one = search_all(one, &test_triggers(), once_diags);
  const std::string expected_two = search_all(two, &test_triggers(), once_diags);
  GrowingSource source_one, source_two;
  SearchOptions options;
  options.triggers = &test_triggers();
  options.follow = true;
  DiagnosticSink diags;
  LineSearcher a(source_one, diags, "one.log", options), b(source_two, diags, "two.log", options);
  source_one.append(one.substr(0, LineSearcher::kHeadBytes));
  source_two.append(two.substr(0, LineSearcher::kHeadBytes));
  REQUIRE(a.start() == SourceStart::Lines);
  REQUIRE(b.start() == SourceStart::Lines);
  RecordingSink sink_one, sink_two;
  for (std::size_t at = LineSearcher::kHeadBytes; at < two.size(); at += 13) {
    if (at < one.size()) source_one.append(std::string_view(one).substr(at, 13));
    source_two.append(std::string_view(two).substr(at, 13));
    a.search(sink_one);
    b.search(sink_two);
  }
  a.end_input();
  b.end_input();
  a.search(sink_one);
  b.search(sink_two);
  CHECK(sink_one.shown + "lines " + std::to_string(a.lines_read()) + " bytes " + std::to_string(a.bytes_read()) + "\n" ==
        expected_one);
  CHECK(sink_two.shown + "lines " + std::to_string(b.lines_read()) + " bytes " + std::to_string(b.bytes_read()) + "\n" ==
        expected_two);
}

TEST_CASE("line_searcher: a following search ended within its head shows the partial last line") {
  GrowingSource source;
  SearchOptions options;
  options.follow = true;
  DiagnosticSink diags;
  LineSearcher searcher(source, diags, "x.log", options);
  source.append("first\nsec");
  searcher.end_input();  // the head: all there is
  REQUIRE(searcher.start() == SourceStart::Lines);
  RecordingSink sink;
  searcher.search(sink);
  CHECK(sink.shown == "1@0 hit [first]\n2@6 hit [sec]\n");
}

TEST_CASE("line_searcher: a paused search keeps the partial line for the next call") {
  GrowingSource source;
  SearchOptions options;
  options.follow = true;
  DiagnosticSink diags;
  LineSearcher searcher(source, diags, "x.log", options);
  source.append(std::string(LineSearcher::kHeadBytes, 'h') + "\nsec");
  REQUIRE(searcher.start() == SourceStart::Lines);
  RecordingSink sink;
  searcher.search(sink);
  CHECK(searcher.lines_read() == 1);
  CHECK(searcher.bytes_split() == LineSearcher::kHeadBytes + 1);
  CHECK(sink.shown.find("[sec") == std::string::npos);
  source.append("ond\r\r\nthird");
  searcher.search(sink);
  CHECK(sink.shown.find("2@4097 hit [second]\n") != std::string::npos);
  CHECK(sink.shown.find("third") == std::string::npos);
  searcher.end_input();
  searcher.search(sink);
  CHECK(sink.shown.find("3@4106 hit [third]\n") != std::string::npos);
  CHECK(searcher.lines_read() == 3);
}
}

}  // namespace megatriage

namespace megatriage {
namespace {
// Records what the search says of each stamped line: where its stamp is, and whether it holds
// only stamps, or may hold an anchor.
class StampSink final : public LineSink {
 public:
  void on_line(const LineView& line, const LineHit& hit) override {
    shown += std::string(line.text) + " |";
    if (hit.stamp_at != LineHit::kNoStamp) shown += " stamp@" + std::to_string(hit.stamp_at);
    if (hit.only_stamps) shown += " only";
    if (hit.may_anchor) shown += " anchor";
    shown += "\n";
  }
  std::string shown;
};
}  // namespace

TEST_CASE("line_searcher: a stamped line says where its stamp is and whether an anchor may be there") {
  DiagnosticSink diags;
  // "pen" lies inside the anchor "open": found alone it may still be that anchor.
  TriggerScanner scanner({{"ERROR", 7}, {"pen", 8}}, {"open", "close"}, diags, TriggerScanner::Engine::Builtin);
  REQUIRE(scanner.ok());
  auto source = memory_source("[W1129 10:00:00.1 x] plain\n10:00:01 ERROR y\nclose at 10:00:02\n"
                              "no stamp ERROR\n  at 10:00:03 a pen\nx\rat 10:00:04 framed\n",
                              Compression::None, "x.log", diags);
  SearchOptions options;
  options.triggers = &scanner;
  LineSearcher searcher(*source, diags, "x.log", options);
  REQUIRE(searcher.start() == SourceStart::Lines);
  StampSink sink;
  searcher.search(sink);
  CHECK(sink.shown ==
        "[W1129 10:00:00.1 x] plain | stamp@7 only\n"
        "10:00:01 ERROR y | stamp@0\n"
        "close at 10:00:02 | stamp@9 anchor\n"
        "no stamp ERROR |\n"
        "  at 10:00:03 a pen | stamp@5 anchor\n"
        "at 10:00:04 framed |\n");  // a `\r` frame moved the text: no stamp position
}

}  // namespace megatriage

namespace megatriage {
namespace {
// Writes every line it is given in one form, whether it came as a stamp-only line or through
// on_line(): a search whose sink takes stamp-only lines must show the same lines, with the same
// numbers, offsets and stamp positions, as one whose sink takes none.
class StampLineSink final : public LineSink {
 public:
  explicit StampLineSink(bool takes) : takes_(takes) {}
  bool on_stamp_line(const LineView& line, std::uint32_t stamp_at, std::uint8_t) override {
    if (!takes_) return false;
    record(line, stamp_at, true);
    ++taken;
    return true;
  }
  void on_line(const LineView& line, const LineHit& hit) override {
    record(line, hit.stamp_at, hit.only_stamps);
    const std::string_view text = line.text;
    if (text.find("open") != std::string_view::npos) open_structures_ = 1;
    if (text.find("close") != std::string_view::npos) open_structures_ = 0;
  }
  std::string shown;
  int taken = 0;

 private:
  void record(const LineView& line, std::uint32_t stamp_at, bool only) {
    shown += std::to_string(line.number) + "@" + std::to_string(line.offset) + " [" + std::string(line.text) + "]";
    if (stamp_at != LineHit::kNoStamp) shown += " stamp@" + std::to_string(stamp_at);
    if (only) shown += " only";
    shown += "\n";
  }
  bool takes_;
};

std::pair<std::string, int> search_stamp_lines(const std::string& bytes, bool takes, std::size_t buffer_bytes) {
  DiagnosticSink diags;
  TriggerScanner scanner({{"ERROR", 7}}, {"open", "close"}, diags, TriggerScanner::Engine::Builtin);
  REQUIRE(scanner.ok());
  auto source = memory_source(bytes, Compression::None, "x.log", diags);
  SearchOptions options;
  options.triggers = &scanner;
  options.split.buffer_bytes = buffer_bytes;
  options.split.max_line_bytes = 64;
  LineSearcher searcher(*source, diags, "x.log", options);
  REQUIRE(searcher.start() == SourceStart::Lines);
  StampLineSink sink(takes);
  searcher.search(sink);
  return {sink.shown + "lines " + std::to_string(searcher.lines_read()), sink.taken};
}
}  // namespace

TEST_CASE("line_searcher: stamp-only lines offered to the sink are the lines on_line() would get") {
  std::string log;
  for (int i = 0; i < 40; ++i) {
    const std::string t = "10:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    log += "2026-11-29 " + t + ",5 - INFO - step\n";           // stamp-only
    if (i % 7 == 0) log += "no trigger here\n";                    // skipped between them
    if (i % 9 == 0) log += t + " ERROR boom\n";                    // a needle: on_line()
    if (i % 11 == 0) log += "[W " + t + "] x\r[W " + t + "] y\n";  // a '\r' frame: on_line()
    if (i % 13 == 0) log += "at " + t + " two " + t + " stamps\n";  // only stamps, two of them
    if (i == 20) log += "open " + t + "\n2026-11-29 " + t + " inside\nclose " + t + "\n";
    if (i == 30) log += "2026-11-29 " + t + std::string(80, 'z') + "\n";  // cut: on_line()
    if (i == 33) log += "2026-11-29 " + t + std::string(" nul\0 byte\n", 11);
  }
  // A buffer of 256 bytes: lines cross refills and trigger regions.
  for (std::size_t buffer : {std::size_t{256}, std::size_t{1} << 20}) {
    CAPTURE(buffer);
    const std::pair<std::string, int> declined = search_stamp_lines(log, false, buffer);
    const std::pair<std::string, int> taken = search_stamp_lines(log, true, buffer);
    CHECK(declined.second == 0);
    // 40 stamp-only lines and 4 with two stamps, less the first line (the general path starts
    // the search); a small buffer also leaves the lines that cross a searched region's end to it.
    if (buffer > 256) CHECK(taken.second == 43);
    CHECK(taken.second > 30);
    CHECK(taken.first == declined.first);
  }
}

}  // namespace megatriage

namespace megatriage {
namespace {

// Every line as shown (number, offset, text), and the line the sink was told escapes start at.
class EveryLineSink final : public LineSink {
 public:
  EveryLineSink() { open_structures_ = 1; }
  void on_line(const LineView& line, const LineHit& hit) override {
    shown += std::to_string(line.number) + "@" + std::to_string(line.offset) + (line.cut ? " cut" : "") + " [" +
             std::string(line.text) + "]\n";
    // What the search says of a line it saw with escapes cannot be about the text without them.
    if (line.escapes_removed) CHECK(hit.candidates == nullptr);
    if (line.escapes_removed) first_escape = std::min(first_escape, line.number);
  }
  void on_escapes_removed(std::uint64_t line) override { first_escape = std::min(first_escape, line); }
  std::string shown;
  std::uint64_t first_escape = ~std::uint64_t{0};
};

// A coloured log with what makes a line keep its escapes until clean(): NULs, over-long lines,
// '\r' frames around sequences; sequences cut off by the line's end, and a line whose one
// sequence opens it.
std::string coloured_awkward_log() {
  std::string log;
  for (int i = 0; i < 400; ++i) {
    log += "plain " + std::to_string(i) + "\n";
    if (i < 20) continue;  // the first region holds no escape
    log += "\x1b[32m12:00:" + std::to_string(10 + i % 50) + "\x1b[0m \x1b[1mERROR\x1b[0m step " + std::to_string(i) + "\n";
    if (i % 7 == 0) log += "bar 10%\r\x1b[2Kbar 50%\x1b[0m\r\n";
    if (i % 11 == 3) log += std::string("a NUL\0 \x1b[31mred\x1b[0m \x1b\0X\n", 24);
    if (i % 13 == 5) log += "\x1b[33m" + std::string(90, 'y') + "\x1b[0m past the cut\n";
    if (i % 17 == 6) log += "cut off \x1b[1;3\n\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b(Bdone\x1b\n";
    if (i % 19 == 7) log += "\x1b[1monly its start is coloured\n";
  }
  return log + "\x1b[1mlast\x1b[0m without newline";
}

std::pair<std::string, std::uint64_t> every_line_of(const std::string& bytes, const TriggerScanner* triggers,
                                                    std::size_t buffer, std::size_t step) {
  DiagnosticSink diags;
  SearchOptions options;
  options.triggers = triggers;
  options.strip_escapes = true;
  options.split.buffer_bytes = buffer;
  options.split.max_line_bytes = 64;
  EveryLineSink sink;
  if (step == 0) {
    auto source = memory_source(bytes, Compression::None, "x.log", diags);
    LineSearcher searcher(*source, diags, "x.log", options);
    REQUIRE(searcher.start() == SourceStart::Lines);
    searcher.search(sink);
  } else {
    GrowingSource source;
    options.follow = true;
    LineSearcher searcher(source, diags, "x.log", options);
    source.append(std::string_view(bytes).substr(0, LineSearcher::kHeadBytes));
    REQUIRE(searcher.start() == SourceStart::Lines);
    for (std::size_t fed = LineSearcher::kHeadBytes; fed < bytes.size(); fed += step) {
      source.append(std::string_view(bytes).substr(fed, step));
      searcher.search(sink);
    }
    searcher.end_input();
    searcher.search(sink);
  }
  return {sink.shown, sink.first_escape};
}

}  // namespace

TEST_CASE("line_searcher: escapes removed from whole buffers leave each line as clean() alone leaves it") {
  const std::string log = coloured_awkward_log();
  // Without a trigger search every line is cleaned by itself (LineSplitter::clean with has_esc).
  const auto [expected, first_escape] = every_line_of(log, nullptr, 1 << 20, 0);
  CHECK(first_escape == 22);  // "plain 20" is line 21
  CHECK(expected.find("[12:00:30 ERROR step 20]") != std::string::npos);
  CHECK(expected.find("[bar 50%]") != std::string::npos);
  CHECK(expected.find("[a NUL  red ]") != std::string::npos);  // `ESC space X`, once the NUL is a space
  CHECK(expected.find("[link done]") != std::string::npos);
  CHECK(expected.find("[last without newline]") != std::string::npos);
  DiagnosticSink diags;
  TriggerScanner scanner({{"ERROR", 7}, {"\x1b", -1}}, {"open", "close"}, diags, TriggerScanner::Engine::Builtin);
  REQUIRE(scanner.ok());
  for (std::size_t buffer : {std::size_t{256}, std::size_t{4099}, std::size_t{1} << 20}) {
    for (std::size_t step : {std::size_t{0}, std::size_t{1000}, std::size_t{7777}}) {
      CAPTURE(buffer);
      CAPTURE(step);
      const auto [got, got_first] = every_line_of(log, &scanner, buffer, step);
      CHECK(got == expected);
      CHECK(got_first == first_escape);
    }
  }
  // The same through a pty: every line's '\r' goes in the same pass as its escapes, from the
  // first region on (the first holds no escape); the lines and offsets are clean()'s.
  const std::string crlf = test::with_crlf(log);
  const auto [crlf_expected, crlf_first] = every_line_of(crlf, nullptr, 1 << 20, 0);
  CHECK(crlf_first == 22);
  CHECK(crlf_expected.find("[12:00:30 ERROR step 20]") != std::string::npos);
  CHECK(crlf_expected.find("[bar 50%]") != std::string::npos);
  for (std::size_t buffer : {std::size_t{256}, std::size_t{4099}, std::size_t{1} << 20}) {
    for (std::size_t step : {std::size_t{0}, std::size_t{1000}}) {
      CAPTURE(buffer);
      CAPTURE(step);
      const auto [got, got_first] = every_line_of(crlf, &scanner, buffer, step);
      CHECK(got == crlf_expected);
      CHECK(got_first == crlf_first);
    }
  }
  // A last line without a '\n' that is nothing but escapes is an empty line, not none.
  const std::string ends_in_escapes = log + "\n\x1b[0m";
  const std::string empty_last = every_line_of(ends_in_escapes, nullptr, 1 << 20, 0).first;
  CHECK(empty_last.substr(empty_last.size() - 4) == " []\n");
  for (std::size_t buffer : {std::size_t{256}, std::size_t{1} << 20})
    CHECK(every_line_of(ends_in_escapes, &scanner, buffer, 0).first == empty_last);
}

}  // namespace megatriage
