#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <tuple>

#include "decide/timeline.h"

using namespace megatriage;

namespace {

// The order merge_timeline promises, by a plain comparison sort: (has a time, time, file id,
// line), ties in file and event order.
std::vector<const Event*> reference_order(const std::vector<FileResult>& files) {
  std::vector<std::tuple<bool, std::int64_t, FileId, std::uint64_t, std::size_t, const Event*>> keys;
  for (const auto& f : files)
    for (const auto& e : f.events) {
      auto t = ordering_time(e);
      keys.emplace_back(!t, t.value_or(0), e.origin.file, e.origin.line, keys.size(), &e);
    }
  std::sort(keys.begin(), keys.end());
  std::vector<const Event*> out;
  for (const auto& k : keys) out.push_back(std::get<5>(k));
  return out;
}

}  // namespace

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
TEST_CASE("timeline: the order is the reference order for any thread count and input shape") {
  // Events out of line order in a file (a traceback is emitted when it ends), ties in time and
  // line, no time, extreme times; files in id order, then shuffled and with a repeated id.
  std::mt19937_64 rng(7);
  const std::int64_t extremes[] = {std::numeric_limits<std::int64_t>::min(), -1, 0,
                                   std::numeric_limits<std::int64_t>::max()};
  for (int shape = 0; shape < 3; ++shape) {
    std::vector<FileResult> files(300);
    for (std::size_t i = 0; i < files.size(); ++i) {
      files[i].file.id = static_cast<FileId>(i);
      std::uint64_t line = 1;
      for (std::uint64_t n = rng() % 9; n > 0; --n) {
        Event e;
        line += rng() % 3;  // repeats a line now and then
        e.origin = {files[i].file.id, rng() % 6 == 0 ? line + rng() % 40 : line, 0};
        switch (rng() % 5) {
          case 0: break;  // no time
          case 1: e.time = {extremes[rng() % 4], TimeSource::Explicit, false}; break;
          case 2: e.before_us = 1'000'000 + static_cast<std::int64_t>(rng() % 50); break;
          case 3: e.time = {1'000'000 + static_cast<std::int64_t>(rng() % 50), TimeSource::Inherited, false}; break;
          default: e.time = {1'000'000 + static_cast<std::int64_t>(rng() % 50) * 1'000'003, TimeSource::Explicit, false};
        }
        files[i].events.push_back(e);
      }
    }
    if (shape >= 1) std::shuffle(files.begin(), files.end(), rng);
    if (shape == 2) {
      for (auto& e : files[5].events) e.origin.file = files[6].file.id;
      files[5].file.id = files[6].file.id;
    }
    const std::vector<const Event*> want = reference_order(files);
    for (unsigned threads : {1u, 2u, 3u}) {
      CAPTURE(shape);
      CAPTURE(threads);
      auto got = merge_timeline(files, threads);
      REQUIRE(got.size() == want.size());
      bool same = true;
      for (std::size_t k = 0; k < got.size(); ++k) {
        same = same && got[k].event == want[k];
        auto t = ordering_time(*got[k].event);
        same = same && got[k].key_us == t;
        same = same && &got[k].file->events.front() <= got[k].event && got[k].event <= &got[k].file->events.back();
      }
      CHECK(same);
    }
  }
}
}
