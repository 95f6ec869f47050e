// Unit tests for the zstd frame walker (input/zstd_frames.h) and for what reader.cc makes of
// it: frames are built by hand (raw and RLE blocks need no compressor), so every byte offset
// of a frame end is known.
#include "input/zstd_frames.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/diagnostics.h"
#include "input/discover.h"
#include "input/reader.h"

namespace megatriage {
namespace {

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::string block_header(bool last, unsigned type, std::uint32_t size) {
  std::string h;
  put_le(h, (size << 3) | (type << 1) | (last ? 1u : 0u), 3);
  return h;
}

// A single-segment frame of one raw (stored) block holding `text` (under 256 bytes: its size
// fits the one-byte content size field). With `checksum`, four placeholder checksum bytes
// follow: the walker counts them, it does not verify them.
std::string raw_frame(const std::string& text, bool checksum = false) {
  std::string f = "\x28\xb5\x2f\xfd";
  f += static_cast<char>(0x20 | (checksum ? 0x04 : 0x00));  // single segment, no dictionary
  f += static_cast<char>(text.size());                     // content size, one byte
  f += block_header(true, 0, static_cast<std::uint32_t>(text.size()));
  f += text;
  if (checksum) f += "\x01\x02\x03\x04";
  return f;
}

// A frame with the widest header this walker must size: window descriptor, 4-byte dictionary
// id, 4-byte content size; then a raw block and an RLE block (one byte standing for 1000).
std::string wide_header_frame() {
  std::string f = "\x28\xb5\x2f\xfd";
  f += static_cast<char>(0x80 | 0x03);  // content size flag 2 (4 bytes), dictionary id 4 bytes
  f += '\x50';                          // window descriptor
  put_le(f, 0x11223344u, 4);            // dictionary id
  put_le(f, 1003u, 4);                  // content size
  f += block_header(false, 0, 3);
  f += "abc";
  f += block_header(true, 1, 1000);
  f += "z";
  return f;
}

std::string skippable_frame(const std::string& payload, unsigned variant = 3) {
  std::string f;
  put_le(f, 0x184D2A50u | variant, 4);
  put_le(f, payload.size(), 4);
  return f + payload;
}

// Feeds `bytes` in pieces of at most `piece`, looping as the caller of feed() must when a
// frame ends inside a piece. Returns the offsets at which feed() stopped early.
std::set<std::size_t> feed_all(ZstdFrameTracker& t, const std::string& bytes, std::size_t piece) {
  std::set<std::size_t> stops;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t want = std::min(piece, bytes.size() - pos);
    const std::size_t took = t.feed(reinterpret_cast<const unsigned char*>(bytes.data() + pos), want);
    REQUIRE(took > 0);
    REQUIRE(took <= want);
    pos += took;
    if (took < want) stops.insert(pos);
  }
  return stops;
}

// For every prefix of `bytes`: whether the walker says it ends between frames. The answer
// must be true exactly at `boundaries` (0 and the end of each frame).
void check_boundaries(const std::string& bytes, const std::set<std::size_t>& boundaries) {
  for (std::size_t keep = 0; keep <= bytes.size(); ++keep) {
    CAPTURE(keep);
    ZstdFrameTracker t;
    feed_all(t, bytes.substr(0, keep), 4096);
    CHECK(t.at_boundary() == (boundaries.count(keep) == 1));
    CHECK_FALSE(t.lost());
  }
}

const Diagnostic* find_code(const DiagnosticSink& diags, const std::string& code) {
  for (const Diagnostic& d : diags.items()) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

std::string decode(const std::string& data, DiagnosticSink& diags, std::size_t chunk = 4096) {
  std::unique_ptr<ByteSource> source = memory_source(data, Compression::Zstd, "mem.zst", diags);
  REQUIRE(source != nullptr);
  std::string out;
  std::vector<char> buffer(chunk);
  for (int guard = 0; guard < 100000; ++guard) {
    const std::size_t n = source->read(buffer.data(), buffer.size());
    if (n == 0) break;
    out.append(buffer.data(), n);
  }
  return out;
}

TEST_SUITE("zstd_frames") {
  TEST_CASE("zstd_frames: nothing fed is a boundary; one whole frame ends on one") {
    ZstdFrameTracker t;
    CHECK(t.at_boundary());
    CHECK(t.frames_completed() == 0);
    const std::string f = raw_frame("hello\n");
    CHECK(feed_all(t, f, 4096).empty());  // the frame ends at the end of the piece
    CHECK(t.at_boundary());
    CHECK(t.frames_completed() == 1);
  }

  TEST_CASE("zstd_frames: feed stops right after each frame end, in any piece size") {
    const std::string a = raw_frame("first\n");
    const std::string b = raw_frame("second frame\n", true);
    const std::string c = wide_header_frame();
    const std::string all = a + b + c;
    for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{4096}}) {
      CAPTURE(piece);
      ZstdFrameTracker t;
      std::set<std::size_t> stops = feed_all(t, all, piece);
      // Only frame ends stop a piece early; one byte at a time never stops early, and one big
      // piece stops at both inner frame ends.
      for (std::size_t s : stops) CHECK((s == a.size() || s == a.size() + b.size()));
      if (piece == 1) CHECK(stops.empty());
      if (piece == 4096) CHECK(stops == std::set<std::size_t>{a.size(), a.size() + b.size()});
      CHECK(t.frames_completed() == 3);
      CHECK(t.at_boundary());
    }
  }

  TEST_CASE("zstd_frames: only frame ends are boundaries (every cut point)") {
    SUBCASE("raw frames, with and without checksum") {
      const std::string a = raw_frame("one\n");
      const std::string b = raw_frame("two\n", true);
      check_boundaries(a + b, {0, a.size(), a.size() + b.size()});
    }
    SUBCASE("wide header, raw and RLE blocks") {
      const std::string f = wide_header_frame();
      check_boundaries(f, {0, f.size()});
    }
    SUBCASE("skippable frames before, between and after zstd frames") {
      const std::string s1 = skippable_frame("meta");
      const std::string z = raw_frame("text\n");
      const std::string s2 = skippable_frame("", 0xF);  // empty payload, last magic variant
      check_boundaries(s1 + z + s2, {0, s1.size(), s1.size() + z.size(), s1.size() + z.size() + s2.size()});
    }
  }

  TEST_CASE("zstd_frames: bytes that are not zstd are given up on, not tracked") {
    SUBCASE("unknown magic number") {
      ZstdFrameTracker t;
      const std::string text = "plain text, not a zstd stream\n";
      CHECK(t.feed(reinterpret_cast<const unsigned char*>(text.data()), text.size()) == text.size());
      CHECK(t.lost());
      CHECK(t.at_boundary());  // the decoder's own error is the one to report
    }
    SUBCASE("reserved block type") {
      std::string f = raw_frame("abc");
      f[6] = static_cast<char>(f[6] | 0x06);  // block type 3
      ZstdFrameTracker t;
      feed_all(t, f, 4096);
      CHECK(t.lost());
      CHECK(t.frames_completed() == 0);
    }
    SUBCASE("garbage after a good frame") {
      ZstdFrameTracker t;
      feed_all(t, raw_frame("ok\n") + "\xde\xad\xbe\xef junk", 4096);
      CHECK(t.frames_completed() == 1);
      CHECK(t.lost());
    }
  }

  TEST_CASE("zstd_frames: arbitrary bytes in arbitrary pieces never crash or stall") {
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&state] {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<unsigned>(state >> 33);
    };
    for (int round = 0; round < 200; ++round) {
      // Start most rounds with a valid magic so the header and block paths get random input.
      std::string bytes = round % 4 == 0 ? "" : "\x28\xb5\x2f\xfd";
      const std::size_t size = next() % 300;
      for (std::size_t i = 0; i < size; ++i) bytes += static_cast<char>(next() & 0xff);
      ZstdFrameTracker t;
      feed_all(t, bytes, 1 + next() % 17);
    }
  }

  TEST_CASE("zstd_frames: the reader reports a stream cut inside a frame as read.truncated-zstd") {
    const std::string a = raw_frame("first frame\n");
    const std::string b = raw_frame("second frame\n");
    SUBCASE("whole frames decode with no diagnostic") {
      DiagnosticSink diags;
      CHECK(decode(a + b, diags) == "first frame\nsecond frame\n");
      CHECK(diags.empty());
    }
    SUBCASE("cut in the second frame's header: the first frame is kept") {
      DiagnosticSink diags;
      CHECK(decode(a + b.substr(0, 5), diags, 3) == "first frame\n");
      REQUIRE(diags.items().size() == 1);
      CHECK(diags.items()[0].code == "read.truncated-zstd");
      CHECK(diags.items()[0].message.find("after 12 decoded bytes") != std::string::npos);
    }
    SUBCASE("cut on a frame boundary is a clean end") {
      DiagnosticSink diags;
      CHECK(decode(a, diags) == "first frame\n");
      CHECK(diags.empty());
    }
  }

  TEST_CASE("zstd_frames: garbage after a frame is read.corrupt-zstd and keeps the frame") {
    DiagnosticSink diags;
    CHECK(decode(raw_frame("kept\n") + "not zstd at all", diags) == "kept\n");
    const Diagnostic* d = find_code(diags, "read.corrupt-zstd");
    REQUIRE(d != nullptr);
    CHECK(d->message.find("after 5 decoded bytes") != std::string::npos);
    CHECK(find_code(diags, "read.truncated-zstd") == nullptr);
  }
}

}  // namespace
}  // namespace megatriage
