// sort_unique: the table path and the sort path give what std::sort + std::unique give.
#include "base/sort_unique.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <vector>

namespace megatriage {

TEST_SUITE("sort_unique") {
  TEST_CASE("sort_unique: every range and size, by table or by sort, as sort + unique") {
    std::mt19937 random(7);
    const std::vector<std::vector<int>> fixed = {
        {}, {5}, {3, 3, 3}, {INT_MAX, INT_MIN, 0, INT_MAX, -1}, std::vector<int>(100, -7)};
    std::vector<std::vector<int>> cases = fixed;
    for (int n : {10, 63, 64, 65, 1000, 50000})
      for (int range : {1, 8, 4096, 1 << 20}) {
        std::uniform_int_distribution<int> pick(-range / 3, range);
        std::vector<int> v(static_cast<std::size_t>(n));
        for (int& x : v) x = pick(random);
        cases.push_back(v);
        v.push_back(INT_MAX);  // one far value: the range is too wide for a table
        cases.push_back(v);
        v.back() = INT_MIN;
        cases.push_back(v);
      }
    for (const std::vector<int>& values : cases) {
      CAPTURE(values.size());
      std::vector<int> want = values;
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      std::vector<int> got = values;
      sort_unique(got);
      CHECK(got == want);
    }
  }
}

}  // namespace megatriage
