// StampRoutes: a route is found by exactly the head it was kept for, copies start empty, and
// a file whose heads never repeat cannot grow it without bound.
#include "extract/stamp_routes.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace megatriage;

namespace {
struct Stream {
  int id = 0;
};
}  // namespace

TEST_CASE("a route is found by its exact head only") {
  StampRoutes<Stream> routes;
  Stream a{1}, b{2};
  CHECK(routes.find("[rank1]:[W1129 1") == nullptr);
  routes.keep("[rank1]:[W1129 1", StampRoute<Stream>{&a, 8, 8, false, -1, std::nullopt});
  routes.keep("2026-11-29 0", StampRoute<Stream>{&b, 0, 0, true, 3, std::nullopt});
  const StampRoute<Stream>* r = routes.find("[rank1]:[W1129 1");
  REQUIRE(r != nullptr);
  CHECK(r->stream == &a);
  CHECK(r->named_at == 8);
  CHECK_FALSE(r->launcher);
  // The last route taken is checked first; another head still finds its own.
  r = routes.find("2026-11-29 0");
  REQUIRE(r != nullptr);
  CHECK(r->stream == &b);
  CHECK(r->srun_task == 3);
  CHECK(routes.find("[rank1]:[W1129 1")->stream == &a);
  CHECK(routes.find("[rank1]:[W1129 2") == nullptr);  // the stamp's first byte is part of the head
  CHECK(routes.find("[rank1]:[W1129 ") == nullptr);
  CHECK(routes.find("[rank11]:[W1129 1") == nullptr);
}

TEST_CASE("copies and cleared routes are empty") {
  StampRoutes<Stream> routes;
  Stream a;
  routes.keep("node7: [2026-11-29 1", StampRoute<Stream>{&a, 0, 7, true, -1, std::nullopt});
  REQUIRE(routes.find("node7: [2026-11-29 1") != nullptr);
  StampRoutes<Stream> copy = routes;  // its routes would point at the original's streams
  CHECK(copy.find("node7: [2026-11-29 1") == nullptr);
  StampRoutes<Stream> assigned;
  assigned.keep("x 1", StampRoute<Stream>{&a, 0, 0, true, -1, std::nullopt});
  assigned = routes;
  CHECK(assigned.find("x 1") == nullptr);
  routes.clear();
  CHECK(routes.find("node7: [2026-11-29 1") == nullptr);
}

TEST_CASE("heads that never repeat stop being kept") {
  StampRoutes<Stream> routes;
  Stream a;
  for (int i = 0; i < 10000; ++i) routes.keep("[" + std::to_string(i) + "] 1", StampRoute<Stream>{&a, 0, 0, true, -1, std::nullopt});
  CHECK(routes.find("[0] 1") != nullptr);
  CHECK(routes.find("[9999] 1") == nullptr);
}

TEST_CASE("many writers taking turns each find their own route, as the table of recent ones grows") {
  StampRoutes<Stream> routes;
  std::vector<Stream> streams(600);
  auto head = [](int i) {  // heads of one length that differ only in the middle (a rank)
    std::string rank = std::to_string(i);
    return "  3: [default3]:[rank" + std::string(3 - rank.size(), '0') + rank + "]:[W1129 1";
  };
  for (int i = 0; i < 600; ++i) {
    streams[i].id = i;
    routes.keep(head(i), StampRoute<Stream>{&streams[i], 0, 0, false, -1, std::nullopt});
    // Every route kept so far is still found, with the right stream, while the table grows.
    for (int j = 0; j <= i; j += 37) {
      const StampRoute<Stream>* r = routes.find(head(j));
      REQUIRE(r != nullptr);
      CHECK(r->stream->id == j);
    }
  }
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < 600; ++i) {
      const StampRoute<Stream>* r = routes.find(head(i));
      REQUIRE(r != nullptr);
      CHECK(r->stream->id == i);
      CHECK(routes.last_head() == head(i));
    }
  CHECK(routes.find("  3: [default3]:[rank600]:[W1129 1") == nullptr);
  CHECK(routes.find("  3: [default3]:[rank000]:[W1129 2") == nullptr);
}
