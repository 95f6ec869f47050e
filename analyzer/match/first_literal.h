// Match stage: where the first of a few literals starts in a text (a rule's leading literals:
// no match of the rule starts before it). Asked of every line that holds a rule's needle, most
// of which the rule then turns down: on an srun file of c10 lines, half the lines hold
// `ProcessGroupNCCL.cpp:` and are asked for `[E` or `[F` before it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace megatriage {

class FirstLiteral {
 public:
  FirstLiteral() = default;
  explicit FirstLiteral(std::vector<std::string> literals);

  /// The smallest position at which one of the literals starts, or npos (also without any).
  std::size_t find(std::string_view text) const;

 private:
  bool starts_here(std::string_view text, std::size_t at) const;
#if defined(__x86_64__)
  std::size_t find_avx2(std::string_view text) const;  // text of 33 bytes or more
#endif

  std::vector<std::string> literals_;
  // The literals' distinct first two bytes, when every literal has two or more and they are
  // few: one SIMD pass finds the places where a literal may start (find() then checks them),
  // where a find() per literal walked the text once each and stopped at every first byte.
  static constexpr std::size_t kMaxPairs = 4;
  std::vector<std::string> pairs_;  // each two bytes; empty: one find() per literal
};

}  // namespace megatriage
