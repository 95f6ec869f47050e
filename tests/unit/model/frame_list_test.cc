// frame_list: the packed frames of an exception block read back exactly as the Frames put in,
// through every edit the traceback builder makes (the cap's erase, a source line set later).
#include <doctest/doctest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/frame_list.h"

using namespace megatriage;

namespace {

bool same(const Frame& a, const Frame& b) {
  return a.path == b.path && a.line == b.line && a.function == b.function && a.source == b.source;
}

// Every way of reading the list gives the reference's frames.
void check_equal(const FrameList& list, const std::vector<Frame>& want) {
  REQUIRE(list.size() == want.size());
  CHECK(list.empty() == want.empty());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(same(list[i], want[i]));
    CHECK(list.path(i) == want[i].path);
    CHECK(list.function(i) == want[i].function);
    CHECK(list.source(i) == want[i].source);
    CHECK(list.line(i) == want[i].line);
  }
  std::size_t i = 0;
  for (const Frame& f : list) CHECK(same(f, want[i++]));
  CHECK(i == want.size());
  if (!want.empty()) {
    CHECK(same(list.front(), want.front()));
    CHECK(same(list.back(), want.back()));
  }
}

Frame frame(int n, bool with_function, bool with_source) {
  Frame f;
  f.path = "/ws/pkg/module_" + std::to_string(n) + ".py";
  f.line = n;
  if (with_function) f.function = "fn_" + std::to_string(n);
  if (with_source) f.source = "return step(" + std::string(static_cast<std::size_t>(n % 7), 'x') + ")";
  return f;
}

}  // namespace

TEST_SUITE("frame_list") {
TEST_CASE("frame_list: frames read back as put in, empty parts included") {
  FrameList list;
  std::vector<Frame> want;
  check_equal(list, want);
  for (int n = 0; n < 12; ++n) {
    want.push_back(frame(n, n % 3 != 0, n % 2 == 0));
    list.push_back(want.back());
  }
  check_equal(list, want);
  CHECK(same(list.at(11), want[11]));
  CHECK_THROWS_AS(list.at(12), std::out_of_range);

  std::vector<Frame> tail = list.to_vector(9);
  REQUIRE(tail.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(same(tail[i], want[9 + i]));
  CHECK(list.to_vector(12).empty());
  CHECK(list.to_vector(40).empty());

  list.shrink_to_fit();
  check_equal(list, want);
}

TEST_CASE("frame_list: the source line arrives after its frame") {
  FrameList list;
  list.push_back("/ws/a.py", 3, "main");
  list.push_back("/ws/b.py", 9, "step");
  list.set_last_source("loss = model(batch)");
  CHECK(list.source(0).empty());
  CHECK(list.source(1) == "loss = model(batch)");
  list.set_last_source("again");  // a second one replaces it
  CHECK(list.source(1) == "again");
  CHECK(list.path(1) == "/ws/b.py");
  CHECK(list.function(1) == "step");
  FrameList none;
  none.set_last_source("ignored");  // no frame: nothing to set
  CHECK(none.empty());
}

TEST_CASE("frame_list: the cap's erase on every frame of an endless traceback keeps the right ones") {
  // What TracebackBuilder does at a cap of 64: drop the 17th frame whenever the list is full.
  FrameList list;
  std::vector<Frame> want;
  for (int n = 0; n < 5000; ++n) {
    if (want.size() >= 64) {
      list.erase(16);
      want.erase(want.begin() + 16);
    }
    want.push_back(frame(n, true, false));
    list.push_back(want.back());
    list.set_last_source("src " + std::to_string(n));
    want.back().source = "src " + std::to_string(n);
  }
  check_equal(list, want);
  CHECK(list.front().line == 0);
  CHECK(list.back().line == 4999);
  list.erase(64);  // past the end: nothing happens
  check_equal(list, want);
}

TEST_CASE("frame_list: random edits match a vector of Frames") {
  std::mt19937 random(20261204);
  for (int round = 0; round < 200; ++round) {
    FrameList list;
    std::vector<Frame> want;
    for (int step = 0; step < 60; ++step) {
      const unsigned what = random() % 10;
      if (what < 5 || want.empty()) {
        want.push_back(frame(static_cast<int>(random() % 1000), random() % 2 == 0, random() % 2 == 0));
        list.push_back(want.back());
      } else if (what < 8) {
        const std::size_t i = random() % want.size();
        list.erase(i);
        want.erase(want.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        // Also after the last frame was erased: the new last one's texts no longer end the buffer.
        std::string source(random() % 40, 's');
        list.set_last_source(source);
        want.back().source = source;
      }
      if (random() % 16 == 0) list.shrink_to_fit();
    }
    check_equal(list, want);
  }
}
}
