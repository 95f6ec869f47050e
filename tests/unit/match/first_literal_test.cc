// first_literal: the first position of any of a few literals is what a find() per literal
// gives, for texts of every length around the 32-byte blocks, and literal sets that take the
// SIMD filter (two-byte starts, a few of them) or not (one-byte literals, many starts).
#include "match/first_literal.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace megatriage;

namespace {

std::size_t naive(std::string_view text, const std::vector<std::string>& literals) {
  std::size_t first = std::string_view::npos;
  for (const std::string& l : literals) first = std::min(first, text.find(l));
  return first;
}

}  // namespace

TEST_CASE("first_literal: the first of the literals, as a find() per literal gives it") {
  const std::vector<std::vector<std::string>> sets = {
      {"[E", "[F"},                       // c10's error heads `[E`/`[F`: one first byte, two seconds
      {"[E12", "[EX", "ab"},               // shared starts, literals longer than their pair
      {"ab", "cd", "ef", "gh"},            // four pairs: the most the filter takes
      {"ab", "cd", "ef", "gh", "ij"},      // five: one find() each
      {"x", "[E"},                         // a one-byte literal: one find() each
      {},                                  // nothing to find
  };
  std::mt19937 rng(7);
  const std::string alphabet = "[EFX12abcdefghij ";
  for (const auto& literals : sets) {
    FirstLiteral first(literals);
    for (std::size_t length = 0; length < 140; ++length) {
      for (int round = 0; round < 8; ++round) {
        std::string text(length, ' ');
        for (char& c : text) c = alphabet[rng() % alphabet.size()];
        CAPTURE(text);
        CHECK(first.find(text) == naive(text, literals));
      }
    }
  }
  // A literal whose pair occurs often but which itself occurs only at the end of a long text.
  FirstLiteral one({"[E12"});
  std::string text(200, '[');
  for (std::size_t i = 0; i < text.size(); i += 2) text[i + 1] = 'E';
  CHECK(one.find(text) == std::string_view::npos);
  text += "[E12";
  CHECK(one.find(text) == 200);
}
