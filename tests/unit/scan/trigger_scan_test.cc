// trigger_scan: every hit the scanner reports is where a naive search finds it, in ascending
// order of end, on texts of every length around the SIMD block sizes, for both engines: the
// literals, the one-byte literal (ESC, found in the stamps' pass) and the `HH:MM:SS` stamps.
#include "scan/trigger_scan.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "base/diagnostics.h"

namespace megatriage {
namespace {

using Hits = std::vector<std::tuple<std::uint32_t, std::uint16_t, bool>>;

bool digit(char c) { return c >= '0' && c <= '9'; }

// Every literal occurrence (by index), every one-byte literal and every `DD:DD:DD`, sorted by
// end (a stamp and a literal never end on the same byte here: literals end in letters).
Hits naive(const std::string& text, const std::vector<std::string>& literals, const std::vector<std::uint16_t>& index,
           const std::vector<bool>& needle) {
  Hits out;
  for (std::size_t end = 0; end < text.size(); ++end) {
    for (std::size_t l = 0; l < literals.size(); ++l) {
      const std::string& lit = literals[l];
      if (end + 1 >= lit.size() && text.compare(end + 1 - lit.size(), lit.size(), lit) == 0)
        out.emplace_back(static_cast<std::uint32_t>(end), index[l], needle[l]);
    }
    if (end >= 7) {
      const char* p = text.data() + end - 7;
      if (digit(p[0]) && digit(p[1]) && p[2] == ':' && digit(p[3]) && digit(p[4]) && p[5] == ':' && digit(p[6]) &&
          digit(p[7]))
        out.emplace_back(static_cast<std::uint32_t>(end), TriggerScanner::kStamp, false);
    }
  }
  return out;
}

Hits scanned(const TriggerScanner& scanner, const std::string& text) {
  std::vector<TriggerScanner::Hit> hits;
  scanner.scan(text, hits);
  Hits out;
  for (const auto& h : hits) out.emplace_back(h.end, h.literal, h.needle);
  return out;
}

TEST_CASE("trigger_scan: hits are a naive search's, stamps and escapes included, at every length") {
  // The one-byte literal is ESC as the extractors watch it, or the stamps' own `:`.
  for (const std::string one_byte : {"\x1b", ":"})
  for (auto engine : {TriggerScanner::Engine::Best, TriggerScanner::Engine::Builtin}) {
    // No literal contains another: the scanner keeps them all.
    const std::vector<std::string> literals = {"Error", "Traceback", one_byte, "iteration"};
    const std::vector<bool> needle = {true, true, true, false};
    std::vector<TriggerScanner::Needle> needles = {{"Error", 0}, {"Traceback", 1}, {one_byte, 2}};
    DiagnosticSink diags;
    TriggerScanner scanner(needles, {"iteration"}, diags, engine);
    REQUIRE(scanner.ok());
    REQUIRE(scanner.literal_count() == literals.size());
    // The scanner's index of each literal: the one it reports for the literal alone.
    std::vector<std::uint16_t> index;
    for (const std::string& l : literals) {
      std::vector<TriggerScanner::Hit> alone;
      scanner.scan(l, alone);
      REQUIRE(alone.size() == 1);
      index.push_back(alone.front().literal);
    }
    std::mt19937 rng(19);
    // Pieces that make hits likely, and bytes that make near-misses.
    const std::vector<std::string> pieces = {"Error", "Traceback", "\x1b[0m", "iteration", "10:00:00", "1:2:3",
                                             "::", "9", "x", " ", "\n", "Err", "12:34:5"};
    for (std::size_t length = 0; length < 300; ++length) {
      std::string text;
      while (text.size() < length) text += pieces[rng() % pieces.size()];
      text.resize(length);
      CAPTURE(engine == TriggerScanner::Engine::Best ? "best" : "builtin");
      CAPTURE(one_byte);
      CAPTURE(length);
      CHECK(scanned(scanner, text) == naive(text, literals, index, needle));
    }
  }
}

TEST_CASE("trigger_scan: find_stamps() and first_stamp_end() find a naive search's stamps, at every length") {
  // One line's stamps (lazy stamps) are found without a one-byte literal, and the last bytes of
  // a text by a block that overlaps those before it: a stamp there must be found once.
  std::mt19937 rng(23);
  const std::vector<std::string> pieces = {"10:00:00", "1:2:3", "::", "9", "x", " ", "12:34:5", "23:59:59,123"};
  for (std::size_t length = 0; length < 300; ++length) {
    for (int variant = 0; variant < 4; ++variant) {
      std::string text;
      while (text.size() < length) text += pieces[rng() % pieces.size()];
      text.resize(length);
      if (variant == 3 && length >= 8) text.replace(length - 8, 8, "01:02:03");  // a stamp that ends the text
      Hits expected;
      for (const auto& [end, literal, needle] : naive(text, {}, {}, {}))
        expected.emplace_back(end + 1000, literal, needle);
      std::vector<TriggerScanner::Hit> hits = {{7, 3, true}};  // found before: kept as it is
      TriggerScanner::find_stamps(text, 1000, hits);
      REQUIRE(!hits.empty());
      CHECK(hits.front().end == 7);
      Hits found;
      for (std::size_t i = 1; i < hits.size(); ++i) found.emplace_back(hits[i].end, hits[i].literal, hits[i].needle);
      CAPTURE(length);
      CAPTURE(text);
      CHECK(found == expected);
      const std::size_t first = TriggerScanner::first_stamp_end(text);
      if (expected.empty())
        CHECK(first == TriggerScanner::npos);
      else
        CHECK(first + 1000 == std::get<0>(expected.front()));
    }
  }
}

}  // namespace
}  // namespace megatriage
