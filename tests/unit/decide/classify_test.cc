#include <doctest/doctest.h>

#include "decide/classify.h"

using namespace megatriage;

TEST_SUITE("classify") {
TEST_CASE("classify: rank sets are written compactly") {
  CHECK(compact_ranks({}) == "");
  CHECK(compact_ranks({3}) == "3");
  CHECK(compact_ranks({0, 1, 2, 3, 7, 9, 10}) == "0-3,7,9-10");
}
}
