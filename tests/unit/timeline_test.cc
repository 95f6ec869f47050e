#include <doctest/doctest.h>

#include "timeline.h"

using namespace megatriage;

TEST_SUITE("timeline") {
TEST_CASE("timeline: unstamped events order by their upper bound, then file and line") {
  std::vector<FileResult> files(2);
  files[0].file.id = 0;
  files[1].file.id = 1;
  Event a;  // file 0, line 21: bounded before t=106
  a.origin = {0, 21, 0};
  a.before_us = 106;
  Event b;  // file 1, line 1: bounded before t=111
  b.origin = {1, 1, 0};
  b.before_us = 111;
  Event c;  // explicit t=50
  c.origin = {1, 9, 0};
  c.time = {50, TimeSource::Explicit, false};
  Event d;  // no time at all: after everything with a time
  d.origin = {0, 1, 0};
  files[0].events = {d, a};
  files[1].events = {b, c};
  auto t = merge_timeline(files);
  REQUIRE(t.size() == 4);
  CHECK(t[0].event->origin.line == 9);
  CHECK(t[1].event->origin.line == 21);
  CHECK(t[2].event->origin.line == 1);
  CHECK(t[2].event->origin.file == 1);
  CHECK_FALSE(t[3].key_us.has_value());
}

TEST_CASE("timeline: ordering time prefers explicit, then upper bound, then inherited") {
  Event e;
  CHECK_FALSE(ordering_time(e).has_value());
  e.time = {10, TimeSource::Inherited, false};
  CHECK(ordering_time(e) == 10);
  e.before_us = 20;
  CHECK(ordering_time(e) == 20);
  e.time = {30, TimeSource::Explicit, false};
  CHECK(ordering_time(e) == 30);
}
}
