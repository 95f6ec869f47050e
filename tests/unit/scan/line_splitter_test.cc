#include "scan/line_splitter.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "input/reader.h"

namespace megatriage {
namespace {

// Hands out at most `step` bytes per read (cycling through `steps` if given), so line ends fall
// on every possible position relative to reads and refills. Records the largest request.
class TrickleSource final : public ByteSource {
 public:
  TrickleSource(std::string bytes, std::vector<std::size_t> steps)
      : bytes_(std::move(bytes)), steps_(std::move(steps)) {}
  std::size_t read(char* buffer, std::size_t capacity) override {
    largest_request = std::max(largest_request, capacity);
    std::size_t step = steps_[calls_++ % steps_.size()];
    std::size_t n = std::min({capacity, step, bytes_.size() - pos_});
    std::memcpy(buffer, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::size_t largest_request = 0;

 private:
  std::string bytes_;
  std::vector<std::size_t> steps_;
  std::size_t pos_ = 0, calls_ = 0;
};

struct Line {
  std::string text;
  std::uint64_t number;
  std::uint64_t offset;
  bool cut;
  bool operator==(const Line& o) const {
    return text == o.text && number == o.number && offset == o.offset && cut == o.cut;
  }
};

std::string to_string(const Line& l) {
  return std::to_string(l.number) + "@" + std::to_string(l.offset) + (l.cut ? " cut " : " ") +
         "[" + l.text + "]";
}

std::string to_string(const std::vector<Line>& lines) {
  std::string out;
  for (const Line& l : lines) out += to_string(l) + "\n";
  return out;
}

std::vector<Line> split(ByteSource& source, DiagnosticSink& diags, SplitOptions options = {}) {
  LineSplitter splitter(source, diags, "x.log", options);
  std::vector<Line> out;
  LineView v;
  while (splitter.next(v)) out.push_back({std::string(v.text), v.number, v.offset, v.cut});
  CHECK_FALSE(splitter.next(v));  // end is sticky
  return out;
}

std::vector<Line> split(std::string_view text, DiagnosticSink& diags, SplitOptions options = {}) {
  std::unique_ptr<ByteSource> source = memory_source(std::string(text), Compression::None,
                                                     "x.log", diags);
  return split(*source, diags, options);
}

// The contract written the slow, obvious way: split on '\n', cut to the limit, NULs to
// spaces, drop trailing '\r's, keep the text after the last remaining '\r'.
std::vector<Line> reference_split(std::string_view text, std::size_t max_line) {
  std::vector<Line> out;
  std::size_t start = 0;
  std::uint64_t number = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string raw(text.substr(start, end - start));
    std::size_t content = raw.size() - (!raw.empty() && raw.back() == '\r' ? 1 : 0);
    bool cut = content > max_line;
    if (cut) raw.resize(max_line);
    std::replace(raw.begin(), raw.end(), '\0', ' ');
    while (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::size_t cr = raw.rfind('\r');
    if (cr != std::string::npos) raw.erase(0, cr + 1);
    out.push_back({raw, ++number, start, cut});
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

const Diagnostic* find_code(const DiagnosticSink& diags, const std::string& code) {
  for (const Diagnostic& d : diags.items()) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("line_splitter") {
  TEST_CASE("line_splitter: line numbers and offsets") {
    DiagnosticSink diags;
    std::vector<Line> lines = split("alpha\nbb\n\nccc\n", diags);
    std::vector<Line> expected = {
        {"alpha", 1, 0, false}, {"bb", 2, 6, false}, {"", 3, 9, false}, {"ccc", 4, 10, false}};
    CHECK(to_string(lines) == to_string(expected));
    CHECK(diags.empty());
  }

  TEST_CASE("line_splitter: last line without newline is still returned") {
    DiagnosticSink diags;
    CHECK(to_string(split("one\ntwo", diags)) == "1@0 [one]\n2@4 [two]\n");
    CHECK(to_string(split("", diags)).empty());
    CHECK(to_string(split("\n", diags)) == "1@0 []\n");
    CHECK(to_string(split("last", diags)) == "1@0 [last]\n");
    CHECK(diags.empty());
  }

  TEST_CASE("line_splitter: CRLF loses its carriage return") {
    DiagnosticSink diags;
    CHECK(to_string(split("one\r\ntwo\r\nthree\r", diags)) ==
          "1@0 [one]\n2@5 [two]\n3@10 [three]\n");
  }

  TEST_CASE("line_splitter: carriage-return progress bars keep the last frame") {
    DiagnosticSink diags;
    SUBCASE("frames then newline") {
      CHECK(to_string(split(" 10%|#   |\r 50%|##  |\r100%|####|\nnext\n", diags)) ==
            "1@0 [100%|####|]\n2@33 [next]\n");
    }
    SUBCASE("a lone carriage return does not start a line") {
      CHECK(to_string(split("a\rb\nc\n", diags)) == "1@0 [b]\n2@4 [c]\n");
    }
    SUBCASE("a final redraw to nothing keeps the frame before it") {
      CHECK(to_string(split("a\r\r\n\rfoo\r\n", diags)) == "1@0 [a]\n2@4 [foo]\n");
    }
    CHECK(diags.empty());
  }

  TEST_CASE("line_splitter: NUL bytes become spaces, reported once per file") {
    DiagnosticSink diags;
    std::string text("ok\nab\0cd\n\0\0\nfine\n", 17);
    CHECK(to_string(split(text, diags)) == "1@0 [ok]\n2@3 [ab cd]\n3@9 [  ]\n4@12 [fine]\n");
    REQUIRE(diags.items().size() == 1);
    const Diagnostic& d = diags.items()[0];
    CHECK(d.code == "split.nul-bytes");
    CHECK(d.line == 2);
    CHECK(d.path == "x.log");
    CHECK(d.count == 2);  // two lines had NULs
  }

  TEST_CASE("line_splitter: a line longer than the buffer is cut and the rest skipped") {
    DiagnosticSink diags;
    SplitOptions options;
    options.buffer_bytes = 8;
    options.max_line_bytes = 4;
    std::string text = std::string(100, 'x') + "\nshort\n" + std::string(50, 'y') + "\nend";
    TrickleSource source(text, {3, 8, 1});
    CHECK(to_string(split(source, diags, options)) ==
          "1@0 cut [xxxx]\n2@101 cut [shor]\n3@107 cut [yyyy]\n4@158 [end]\n");
    // The buffer never grew: no read asked for more than its fixed size.
    CHECK(source.largest_request <= 8);
    const Diagnostic* d = find_code(diags, "split.line-too-long");
    REQUIRE(d != nullptr);
    CHECK(d->line == 1);
    CHECK(d->count == 3);
    CHECK(d->message.find("4 bytes") != std::string::npos);
    CHECK(diags.items().size() == 1);
  }

  TEST_CASE("line_splitter: the limit counts content, not the CRLF") {
    DiagnosticSink diags;
    SplitOptions options;
    options.buffer_bytes = 6;
    options.max_line_bytes = 4;
    CHECK(to_string(split("abcd\r\nabcde\r\nabcd", diags, options)) ==
          "1@0 [abcd]\n2@6 cut [abcd]\n3@13 [abcd]\n");
    CHECK(find_code(diags, "split.line-too-long")->count == 1);
  }

  TEST_CASE("line_splitter: a cut line in a large buffer is cut the same way") {
    DiagnosticSink diags;
    SplitOptions options;
    options.max_line_bytes = 5;
    CHECK(to_string(split("0123456789\nab\n", diags, options)) ==
          "1@0 cut [01234]\n2@11 [ab]\n");
  }

  TEST_CASE("line_splitter: refill boundaries match the reference for every buffer size") {
    // Short and empty lines, CRLF, progress frames, NULs, lines at and over the limit, and a
    // last line without newline.
    std::string text;
    const char* pieces[] = {"a\n", "\n", "bc\r\n", "12345\n", "123456\n", "x\ry\n", "\r\n",
                            "q\rw\re\r\n", "longer than five\n", "nul", "\n", "tail"};
    for (int round = 0; round < 7; ++round) {
      for (const char* p : pieces) {
        text += p;
        if (round % 3 == 1 && std::string_view(p) == "nul") text += '\0';
      }
    }
    const std::size_t max_line = 5;
    std::string expected = to_string(reference_split(text, max_line));
    for (std::size_t buffer : {7u, 8u, 9u, 13u, 64u, 4096u}) {
      for (std::vector<std::size_t> steps :
           {std::vector<std::size_t>{1}, {2}, {3, 1, 4}, {5}, {1000}}) {
        CAPTURE(buffer);
        CAPTURE(steps.size());
        CAPTURE(steps[0]);
        DiagnosticSink diags;
        SplitOptions options;
        options.buffer_bytes = buffer;
        options.max_line_bytes = max_line;
        TrickleSource source(text, steps);
        LineSplitter splitter(source, diags, "x.log", options);
        std::vector<Line> got;
        LineView v;
        while (splitter.next(v)) got.push_back({std::string(v.text), v.number, v.offset, v.cut});
        CHECK(to_string(got) == expected);
        CHECK(splitter.bytes_read() == text.size());
        CHECK(splitter.lines_read() == got.size());
        CHECK(source.largest_request <= std::max<std::size_t>(buffer, max_line + 2));
      }
    }
  }

  TEST_CASE("line_splitter: views point into the splitter's buffer, not fresh memory") {
    DiagnosticSink diags;
    auto source = memory_source("first\nsecond\n", Compression::None, "x.log", diags);
    LineSplitter splitter(*source, diags, "x.log");
    LineView a, b;
    REQUIRE(splitter.next(a));
    const char* first = a.text.data();
    REQUIRE(splitter.next(b));
    CHECK(b.text.data() == first + 6);  // same buffer, next line
  }

  TEST_CASE("line_splitter: looks_binary tells logs from binary data") {
    SUBCASE("ordinary logs are not binary") {
      CHECK_FALSE(looks_binary(""));
      CHECK_FALSE(looks_binary("[rank0]: Traceback (most recent call last):\n"));
      CHECK_FALSE(looks_binary("\x1b[31mERROR\x1b[0m colourful\r\n\tindented\f\n"));
      CHECK_FALSE(looks_binary("loss 2.3 \xe2\x9c\x93 ok \xe4\xb8\xad\xe6\x96\x87\n"));
      // A stray Latin-1 byte or two.
      CHECK_FALSE(looks_binary("caf\xe9 au lait: a log line long enough to dilute it\n"));
      // A multi-byte character cut by the 4096-byte block is not invalid.
      std::string block(4095, 'a');
      block += "\xe2\x9c\x93";
      CHECK_FALSE(looks_binary(block));
    }
    SUBCASE("binary data is binary") {
      CHECK(looks_binary(std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16)));
      std::string mostly_text(1000, 'a');
      for (int i = 0; i < 20; ++i) mostly_text[i * 50] = '\0';  // 2% NULs
      CHECK(looks_binary(mostly_text));
      std::string controls(1000, 'a');
      for (int i = 0; i < 120; ++i) controls[i * 8] = '\x01';  // 12% control bytes
      CHECK(looks_binary(controls));
      std::string latin(1000, 'a');
      for (int i = 0; i < 120; ++i) latin[i * 8] = '\xff';  // 12% invalid UTF-8
      CHECK(looks_binary(latin));
    }
    // Regression (tests/e2e/bad_input/utf8_nul.sh): a short traceback with one NUL run (a
    // crashed writer's preallocated block) was skipped as binary and the root cause lost.
    SUBCASE("a NUL run in a short log counts once") {
      std::string tb = "Traceback (most recent call last):\n  File \"/ws/t.py\", line 1, in f\n"
                       "  File \"/ws/megatron/training.py\", line 12, in train\n";
      tb += std::string(8, '\0') + "\nKeyError: 0\n";
      CHECK_FALSE(looks_binary(tb));
      CHECK_FALSE(looks_binary(std::string(4096, '\0')));
    }
    // The plain-ASCII fast path checks 64 bytes a step: junk after many clean steps, of every
    // kind of odd byte, must still be seen.
    SUBCASE("junk after a clean start is seen, whatever its byte") {
      for (unsigned char junk : {0x01, 0x08, 0x1f, 0x7f, 0x80, 0xc0, 0xff}) {
        for (std::size_t start : {std::size_t{64}, std::size_t{2000}, std::size_t{3071}}) {
          std::string block(4096, 'a');
          for (std::size_t i = start; i < 4096; i += 2) block[i] = static_cast<char>(junk);
          CAPTURE(static_cast<int>(junk));
          CAPTURE(start);
          CHECK(looks_binary(block));
        }
      }
      std::string text(4096, 'a');
      for (std::size_t i = 100; i < 4096; i += 3) text[i] = "\t\n\r"[i % 3];
      CHECK_FALSE(looks_binary(text));
    }
    SUBCASE("only the first 4096 bytes count") {
      std::string block(4096, 'a');
      block += std::string(4096, '\0');
      CHECK_FALSE(looks_binary(block));
    }
  }
}

}  // namespace megatriage
