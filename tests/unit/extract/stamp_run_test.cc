// StampRunWalker: which lines after a routed stamp-only line a run takes, found from the trigger
// search's real hits on real-shaped lines (Python logging, c10), and every reason it stops
// before a line that the full path must see.
#include "extract/stamp_run.h"

#include <doctest/doctest.h>

#include <climits>
#include <string>
#include <vector>

#include "base/diagnostics.h"

using namespace megatriage;

namespace {

// The line the run's route was learnt from: its head and layout (the first stamp's).
struct Route {
  std::string head;
  TimeOfDayLayout layout;
};

// `from`: where the stamp starts (after the prefixes a parser names).
Route route_of(const std::string& line, std::size_t from = 0) {
  std::size_t time_at = from;
  while (time_at + 8 <= line.size() && !(line[time_at + 2] == ':' && line[time_at + 5] == ':')) ++time_at;
  std::optional<TimeOfDayLayout> layout = learn_time_layout(line, from, time_at);
  REQUIRE(layout.has_value());
  return {line.substr(0, time_at + 1), *layout};
}

struct Walked {
  StampRunWalk walk;
  std::string taken;  // the text of the bytes taken
};

// `text` searched as the analysis searches it (a needle and an anchor, and every stamp), as a
// run handed to a sink.
struct Searched {
  std::vector<TriggerScanner::Hit> hits;
  LineSink::StampRun run;
};

// Without `stamps`, as a region searched with lazy stamps (LineSearcher) is.
Searched search(const std::string& text, std::size_t max_line, bool stamps = true) {
  DiagnosticSink diags;
  static TriggerScanner scanner({{"ERROR", 7}}, {"Traceback"}, diags, TriggerScanner::Engine::Builtin);
  Searched s;
  scanner.scan(text, s.hits, stamps);
  s.run.without_stamps = !stamps;
  s.run.text = text;
  s.run.hits = s.hits.data();
  s.run.hit_count = s.hits.size();
  s.run.max_line = max_line;
  return s;
}

// `text` walked as a run of the route: by its stamp hits (walk()), or, `by_lines`, searched
// without stamps as a region with lazy stamps is, from line end to line end (walk_lines()).
Walked walk(const std::string& text, const Route& route, std::size_t max_line = 1000,
            long long floor = LLONG_MIN, bool check = true, bool by_lines = false) {
  const Searched s = search(text, max_line, !by_lines);
  if (by_lines) REQUIRE(s.run.hit_count <= 1);  // at most the needle or the anchor: no stamp
  const StampRunWalker walker(route.head, route.layout);
  Walked w{by_lines ? walker.walk_lines(s.run, floor, check) : walker.walk(s.run, floor, check), ""};
  w.taken = text.substr(0, w.walk.bytes);
  return w;
}

Walked walk_lines(const std::string& text, const Route& route, std::size_t max_line = 1000,
                  long long floor = LLONG_MIN, bool check = true) {
  return walk(text, route, max_line, floor, check, true);
}

const std::string kFirst = "2026-11-29 10:01:32,683 - INFO - megatron.training - iteration 1/500000\n";
// Three stamp-only lines of kFirst's writer, one after the other.
const std::string kThree =
    "2026-11-29 10:01:32,820 - INFO - megatron.core.timers - forward-backward: 1500.39 ms\n"
    "2026-11-29 10:01:32,957 - INFO - lightning.pytorch.utilities.rank_zero - Epoch 0\n"
    "2026-11-29 10:01:33,094 - INFO - nemo.collections.llm.gpt.data - Loading batch 85\n";

}  // namespace

TEST_CASE("a writer's stamp-only lines are taken whole, with the last one's time") {
  const Route route = route_of(kFirst);
  const std::string& text = kThree;
  const Walked w = walk(text, route);
  CHECK(w.walk.lines == 3);
  CHECK(w.taken == text);
  CHECK(w.walk.last.hour == 10);
  CHECK(w.walk.last.minute == 1);
  CHECK(w.walk.last.second == 33);
  CHECK(w.walk.last.micros == 94000);
}

TEST_CASE("lines without a hit between stamped ones go with the run") {
  const Route route = route_of(kFirst);
  const std::string text =
      "2026-11-29 10:01:32,820 - WARNING - py.warnings - checkpoint.py:61: UserWarning: None of the inputs\n"
      "  warnings.warn(\n"
      "\n"
      "2026-11-29 10:01:32,957 - INFO - megatron.core.optimizer - step 1: found inf/nan: False\n";
  const Walked w = walk(text, route);
  CHECK(w.walk.lines == 2);
  CHECK(w.taken == text);
}

TEST_CASE("the run stops before a line the full path must see") {
  const Route route = route_of(kFirst);
  const std::string before = "2026-11-29 10:01:32,820 - INFO - megatron.core.timers - forward-backward: 1500.39 ms\n";
  SUBCASE("the line after the one taken") {
    const char* stoppers[] = {
        "2026-11-29 10:01:32,957 - ERROR - nemo.collections.llm.api - training step failed\n",  // another trigger
        "Traceback (most recent call last):\n",                                  // ... on an unstamped line
        "2026-11-29 10:01:32,957 - INFO - barrier - started at 10:01:30 done\n",  // a second time of day
        "2026-11-30 10:01:32,957 - INFO - next day\n",                            // another head: the date,
        "[rank1]: 2026-11-29 10:01:32,957 - INFO - a prefix\n",                   // a prefix,
        "2026-11-29 20:01:32,957 - INFO - the hour's first digit is in the head\n",
        "2026-11-29 10:01:32.957 - INFO - a point, not a comma\n",               // a stamp the layout does not read
        "2026-11-29 10:01:32,95 - INFO - two fraction digits\n",
        "2026-11-29 10:61:32,957 - INFO - minute 61\n",
        "2026-11-29 10:01:32,957 - INFO - cut by the buffer",                      // no end in the text
    };
    for (const std::string other : stoppers) {
      CAPTURE(other);
      const Walked w = walk(before + other, route);
      CHECK(w.walk.lines == 1);
      CHECK(w.taken == before);
    }
  }
  SUBCASE("the line's own text holds a trigger after the stamp") {
    const Walked w = walk("2026-11-29 10:01:32,820 - INFO - x - ERROR in a message\n" + before, route);
    CHECK(w.walk.lines == 0);
    CHECK(w.taken.empty());
  }
  SUBCASE("a clock stepping back by more than a minute") {
    const std::string back = "2026-11-29 10:00:31,000 - INFO - 61 s earlier\n";
    Walked w = walk(before + back, route);
    CHECK(w.walk.lines == 1);
    w = walk(before + "2026-11-29 10:00:32,820 - INFO - 60 s earlier\n", route);
    CHECK(w.walk.lines == 2);
    w = walk(before + back, route, 1000, LLONG_MIN, false);  // reported already: no check
    CHECK(w.walk.lines == 2);
    // The first line is held to the floor the caller gives.
    w = walk(before, route, 1000, 10 * 3600 + 2 * 60);
    CHECK(w.walk.lines == 0);
  }
  SUBCASE("a line over the limit, or one between") {
    Walked w = walk(before + "2026-11-29 10:01:33,000 - INFO - " + std::string(200, 'x') + "\n", route, 120);
    CHECK(w.walk.lines == 1);
    CHECK(w.taken == before);
    w = walk(before + std::string(200, 'y') + "\n2026-11-29 10:01:33,000 - INFO - short\n", route, 120);
    CHECK(w.walk.lines == 1);
    CHECK(w.taken == before);
  }
}

TEST_CASE("c10 stamps: the head holds the rank prefix, the fraction is not kept") {
  const Route route = route_of(
      "[rank5]:[W1129 10:00:00.015838 ProcessGroupNCCL.cpp:4718] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS\n", 8);
  CHECK_FALSE(route.layout.keeps_fraction);
  const std::string text =
      "[rank5]:[W1129 10:00:01.015838 CUDAAllocatorConfig.h:28] Warning: expandable_segments\n"
      "[rank5]:[W1129 10:00:02.115838 Utils.hpp:135] Warning: Environment variable\n"
      "[rank6]:[W1129 10:00:03.015838 Utils.hpp:135] Warning: Environment variable\n";
  const Walked w = walk(text, route);
  CHECK(w.walk.lines == 2);
  CHECK(w.walk.last.second == 2);
  CHECK(w.walk.last.micros == 0);
}

TEST_CASE("heads longer than the compare's buffer are compared in place") {
  const std::string prefix(80, 'p');
  const Route route = route_of(prefix + " 2026-11-29 10:01:32,683 - INFO - first\n", prefix.size() + 1);
  const std::string text = prefix + " 2026-11-29 10:01:32,820 - INFO - second\n" + prefix.substr(1) +
                           "q 2026-11-29 10:01:32,957 - INFO - another head\n";
  const Walked w = walk(text, route);
  CHECK(w.walk.lines == 1);
}

TEST_CASE("the cheap look before a walk agrees with the walk's first line") {
  const Route route = route_of(kFirst);
  for (const std::string& text : {std::string("2026-11-29 10:01:32,820 - INFO - same writer\n"),
                                 std::string("2026-11-29 20:01:32,820 - INFO - the hour's first digit differs\n"),
                                 std::string("[rank1]: 2026-11-29 10:01:32,820 - INFO - another writer\n"),
                                 std::string("ERROR 2026-11-29 10:01:32,820 - a needle first\n"),
                                 std::string("no stamp at all\n")}) {
    CAPTURE(text);
    const Searched s = search(text, 1000);
    const LineSink::StampRun& run = s.run;
    const bool starts = stamp_run_starts(run, route.head);
    CHECK(starts == (StampRunWalker(route.head, route.layout).walk(run, LLONG_MIN, true).lines == 1));
    CHECK(starts == (text.find("same writer") != std::string::npos));
  }
}

TEST_CASE("random runs: the walk takes the lines that a line-by-line reading takes") {
  // Lines of one writer with stamps that are mostly fine and sometimes not (an hour, minute or
  // second out of range, another date, a point for the comma, a letter in the fraction, a step
  // back by more than a minute), each still `DD:DD:DD` so that the search hits it. A line-by-line
  // reading with the layout's own reader says which lines a run takes: up to the first line
  // that does not fit. Short heads, heads that with the layout fill most of the walker's
  // 64-byte template and heads beyond it, and the last lines of the text (fewer than 64 bytes
  // left, checked one by one), all take the lines a reading takes.
  std::uint64_t state = 12345;
  auto next = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  auto two = [](std::uint64_t v) { return std::string(1, static_cast<char>('0' + v / 10)) + static_cast<char>('0' + v % 10); };
  for (const std::string& prefix :
       {std::string(), std::string("[rank12]: "), std::string(30, 'p') + " ", std::string(60, 'p') + " "}) {
    const Route route = route_of(prefix + "2026-11-29 10:01:32,683 - INFO - first\n", prefix.size());
    for (int round = 0; round < 300; ++round) {
      CAPTURE(round);
      std::string text;
      int seconds = 10 * 3600 + 60 + 32;
      const int count = 1 + static_cast<int>(next(12));
      for (int k = 0; k < count; ++k) {
        seconds += static_cast<int>(next(90));
        if (next(25) == 0) seconds -= 70 + static_cast<int>(next(100));  // steps back
        std::uint64_t hour = static_cast<std::uint64_t>(seconds / 3600 % 24), minute = static_cast<std::uint64_t>(seconds / 60 % 60),
                      second = static_cast<std::uint64_t>(seconds % 60);
        std::string date = "2026-11-29 ", comma = ",", fraction = two(next(100)) + "7";
        switch (next(40)) {
          case 0: hour = 24 + next(6); break;
          case 1: minute = 60 + next(40); break;
          case 2: second = 61 + next(39); break;
          case 3: second = 60; break;  // a leap second: fine
          case 4: date = "2026-11-30 "; break;
          case 5: comma = "."; break;
          case 6: fraction[1] = 'x'; break;
          case 7: hour = 20 + next(4); break;  // the hour's first digit is in the head
          default: break;
        }
        text += prefix + date + two(hour) + ":" + two(minute) + ":" + two(second) + comma + fraction + " - INFO - line " +
                std::to_string(k) + "\n";
      }
      // A line-by-line reading.
      std::size_t at = 0, lines = 0, bytes = 0;
      long long floor = LLONG_MIN;
      TimeOfDay last;
      while (at < text.size()) {
        const std::size_t end = text.find('\n', at);
        const std::size_t time_at = at + route.layout.time_at;
        TimeOfDay t;
        if (text.compare(at, route.head.size(), route.head) != 0 ||
            !read_time_of_day(route.layout, text.data() + time_at, text.size() - time_at, t) || t.seconds() < floor)
          break;
        floor = t.seconds() - 60;
        last = t;
        ++lines;
        bytes = end + 1;
        at = end + 1;
      }
      const Walked w = walk(text, route);
      CHECK(w.walk.lines == lines);
      CHECK(w.walk.bytes == bytes);
      if (lines > 0) {
        CHECK(w.walk.last.seconds() == last.seconds());
        CHECK(w.walk.last.micros == last.micros);
      }
    }
  }
}

TEST_CASE("without stamp hits the walk finds line ends itself, counts every line and stops as the other") {
  const Route route = route_of(kFirst);
  const std::string& three = kThree;
  Walked w = walk_lines(three, route);
  CHECK(w.walk.lines == 3);
  CHECK(w.taken == three);
  CHECK(w.walk.last.second == 33);
  CHECK(w.walk.last.micros == 94000);
  const std::string before = three.substr(0, three.find('\n') + 1);
  const std::string stoppers[] = {
      "2026-11-29 10:01:32,957 - ERROR - nemo.collections.llm.api - training step failed\n",  // the hit's line
      "Traceback (most recent call last):\n",
      "  warnings.warn(\n",  // an unstamped line: the other walk takes it between stamped ones, this one stops
      "2026-11-30 10:01:32,957 - INFO - next day\n",
      "[rank1]: 2026-11-29 10:01:32,957 - INFO - a prefix\n",
      "2026-11-29 20:01:32,957 - INFO - the hour's first digit is in the head\n",
      "2026-11-29 10:01:32.957 - INFO - a point, not a comma\n",
      "2026-11-29 10:61:32,957 - INFO - minute 61\n",
      "2026-11-29 10:00:31,000 - INFO - 61 s earlier\n",
      "2026-11-29 10:01:33,000 - INFO - over the limit of 1000 bytes " + std::string(1000, 'x') + "\n",
  };
  for (const std::string& other : stoppers) {
    CAPTURE(other);
    w = walk_lines(before + other + three, route);
    CHECK(w.walk.lines == 1);
    CHECK(w.taken == before);
  }
  w = walk_lines(before + "2026-11-29 10:01:32,957 - INFO - cut by the buffer", route);  // no end in the text
  CHECK(w.walk.lines == 1);
  CHECK(w.taken == before);
  // A second time of day in a message is not a hit here: the line goes with the run (the full
  // path would take it as a stamp-only line too).
  w = walk_lines(before + "2026-11-29 10:01:32,957 - INFO - barrier - started at 10:01:30 done\n", route);
  CHECK(w.walk.lines == 2);
  // The first line's own hit, and the caller's floor, hold from the first line on.
  CHECK(walk_lines("2026-11-29 10:01:32,820 - INFO - x - ERROR in a message\n" + before, route).walk.lines == 0);
  CHECK(walk_lines(before, route, 1000, 10 * 3600 + 2 * 60).walk.lines == 0);
  CHECK(walk_lines(before + "2026-11-29 10:00:31,000 - INFO - back\n", route, 1000, LLONG_MIN, false).walk.lines == 2);
}

namespace {

// An AnchorLines that answers from a script and notes what it was offered.
struct ScriptedAnchors final : AnchorLines {
  std::vector<Verdict> verdicts;  // in the order of the lines offered
  struct Offer {
    std::string line;
    std::uint64_t number;
    std::size_t hits;
  };
  std::vector<Offer> offers;
  Verdict on_anchor_line(std::string_view line, std::uint64_t number, const TriggerScanner::Hit* first,
                         const TriggerScanner::Hit* last) override {
    offers.push_back({std::string(line), number, static_cast<std::size_t>(last - first)});
    return offers.size() <= verdicts.size() ? verdicts[offers.size() - 1] : Verdict::Stop;
  }
};

}  // namespace

TEST_CASE("a walk without stamp hits offers its route's lines with hits, and goes past those taken") {
  const Route route = route_of(kFirst);
  const std::string plain = "2026-11-29 10:01:32,820 - INFO - megatron.core.timers - forward-backward: 1500.39 ms\n";
  const std::string anchor = "2026-11-29 10:01:32,957 - INFO - x - Traceback quoted, twice: Traceback\n";
  const std::string needle = "2026-11-29 10:01:33,094 - ERROR - nemo - failed\n";
  const std::string text = plain + anchor + plain + needle + plain;
  Searched s = search(text, 1000, false);
  REQUIRE(s.run.hit_count == 3);  // two anchors on one line, one needle
  s.run.first_line = 41;
  const StampRunWalker walker(route.head, route.layout);
  using Verdict = AnchorLines::Verdict;

  SUBCASE("taken lines and their hits count; the walk stops before a line declined") {
    ScriptedAnchors anchors;
    anchors.verdicts = {Verdict::Take, Verdict::Stop};
    const StampRunWalk walk = walker.walk_lines(s.run, LLONG_MIN, true, &anchors);
    REQUIRE(anchors.offers.size() == 2);
    CHECK(anchors.offers[0].line + "\n" == anchor);  // without its '\n'
    CHECK(anchors.offers[0].number == 42);
    CHECK(anchors.offers[0].hits == 2);
    CHECK(anchors.offers[1].line + "\n" == needle);
    CHECK(anchors.offers[1].number == 44);
    CHECK(walk.lines == 3);
    CHECK(walk.hits == 2);
    CHECK(walk.bytes == (plain + anchor + plain).size());
  }
  SUBCASE("the walk stops after a line taken as the last") {
    ScriptedAnchors anchors;
    anchors.verdicts = {Verdict::TakeLast};
    const StampRunWalk walk = walker.walk_lines(s.run, LLONG_MIN, true, &anchors);
    CHECK(anchors.offers.size() == 1);
    CHECK(walk.lines == 2);
    CHECK(walk.hits == 2);
    CHECK(walk.bytes == (plain + anchor).size());
    CHECK(walk.last.micros == 957000);  // the anchor line's stamp is the run's last
  }
  SUBCASE("every line taken: the walk ends with the text") {
    ScriptedAnchors anchors;
    anchors.verdicts = {Verdict::Take, Verdict::Take};
    const StampRunWalk walk = walker.walk_lines(s.run, LLONG_MIN, true, &anchors);
    CHECK(walk.lines == 5);
    CHECK(walk.hits == 3);
    CHECK(walk.bytes == text.size());
  }
  SUBCASE("a line with hits that is not the route's is not offered") {
    ScriptedAnchors anchors;
    anchors.verdicts = {Verdict::Take};
    const std::string other = "[rank1]: 2026-11-29 10:01:32,957 - INFO - Traceback\n";
    const std::string other_text = plain + other + plain;  // the run's text views it
    Searched t = search(other_text, 1000, false);
    const StampRunWalk walk = walker.walk_lines(t.run, LLONG_MIN, true, &anchors);
    CHECK(anchors.offers.empty());
    CHECK(walk.lines == 1);
  }
}

TEST_CASE("a walker with the routes of a writer's level-first heads walks across them") {
  // `%(levelname)s %(asctime)s ...`: the level is in the head, so each level is a route of its own.
  const Route info = route_of("INFO 2026-11-29 10:01:32,683 megatron.training - iteration 1/500000\n");
  const Route warning = route_of("WARNING 2026-11-29 10:01:32,700 py.warnings - x\n");
  const Route debug = route_of("DEBUG 2026-11-29 10:01:32,710 torch.distributed - barrier\n");
  const std::string text =
      "INFO 2026-11-29 10:01:32,820 megatron.core.timers - forward-backward: 1500.39 ms\n"
      "DEBUG 2026-11-29 10:01:32,957 torch.distributed - barrier on group 2 done\n"
      "INFO 2026-11-29 10:01:33,094 nemo.collections.llm.gpt.data - Loading batch 85\n"
      "WARNING 2026-11-29 10:01:33,231 megatron.core.optimizer - step 1: found inf/nan: False\n";
  for (bool by_lines : {false, true}) {
    CAPTURE(by_lines);
    const Searched s = search(text, 1000, !by_lines);
    StampRunWalker walker(info.head, info.layout);
    auto walked = [&] { return by_lines ? walker.walk_lines(s.run, LLONG_MIN, true) : walker.walk(s.run, LLONG_MIN, true); };
    CHECK(walked().lines == 1);  // INFO only: it stops before the DEBUG line
    REQUIRE(walker.add_route(debug.head, debug.layout));
    CHECK(walker.has_route(debug.head, debug.layout));
    CHECK(walked().lines == 3);  // ... and now before the WARNING line
    REQUIRE(walker.add_route(warning.head, warning.layout));
    const StampRunWalk w = walked();
    CHECK(w.lines == 4);
    CHECK(w.bytes == text.size());
    // The last line's time, read on its own route's layout.
    CHECK(w.last.second == 33);
    CHECK(w.last.micros == 231000);
  }
  // A run may start on any of the routes.
  const std::string from_debug = text.substr(text.find("DEBUG"));
  const Searched s = search(from_debug, 1000);
  StampRunWalker walker(info.head, info.layout);
  CHECK_FALSE(walker.starts(s.run));
  walker.add_route(debug.head, debug.layout);
  CHECK(walker.starts(s.run));
}

TEST_CASE("a walker takes a few routes of one date only") {
  const Route info = route_of("INFO 2026-11-29 10:01:32,683 x\n");
  StampRunWalker walker(info.head, info.layout);
  CHECK_FALSE(walker.add_route(route_of("DEBUG 2026-11-30 10:01:32,683 x\n").head,
                               route_of("DEBUG 2026-11-30 10:01:32,683 x\n").layout));  // another day
  const char* others[] = {"DEBUG 2026-11-29 10:01:32,683 x\n", "WARNING 2026-11-29 10:01:32,683 x\n",
                          "ERROR 2026-11-29 10:01:32,683 x\n", "CRITICAL 2026-11-29 10:01:32,683 x\n"};
  std::size_t added = 0;
  for (const char* line : others) {
    const Route r = route_of(line);
    if (walker.add_route(r.head, r.layout)) ++added;
  }
  CHECK(added == StampRunWalker::kMaxRoutes - 1);
}
