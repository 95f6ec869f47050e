// Attribute stage, a run of one writer's stamped lines: in a log stamped on every line (Python
// logging, NeMo, Lightning) most lines hold a stamp and nothing else, and a writer prints many
// of them in a row. Once one of them is routed (StampRoutes), the lines after it that start
// with the same head and whose only trigger is their stamp go to the same stream, and all the
// stream needs of them is how many there were and the last stamp. This walk finds them from
// the trigger search's hits alone: a stamp hit sits `head + HH:MM:SS` after its line's start,
// so the byte before that start must be a '\n' and the head must be there; no search for line
// ends, no call per line. Where the search left stamps out (lazy stamps), the walk goes from
// line end to line end instead, and a line of the route with a fact's anchor is handed to the
// caller (AnchorLines) rather than ending the run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "extract/timestamp.h"
#include "scan/line_searcher.h"

namespace megatriage {

struct StampRunWalk {
  std::size_t bytes = 0;  // whole lines from the run's start: those taken and the unstamped ones before them
  std::size_t lines = 0;  // stamped lines taken (walk(): one hit each; walk_lines(): anchor lines too)
  std::size_t hits = 0;   // walk_lines(): the hits in the lines taken (those of the anchor lines)
  TimeOfDay last;         // the last one's time of day (when lines > 0)
};

/// What a walk without stamps asks of the one who walks it about a line of the route that holds
/// triggers (`first` to `last`, the run's hits in it): in a log stamped on every line the
/// lines with a fact's anchor (iteration lines) come every few lines, and sending each back to
/// the searcher's full path cost more than all the lines of the run together.
class AnchorLines {
 public:
  enum class Verdict {
    Stop,      // not taken: the walk stops before it
    Take,      // taken (its stamp counts as a stamp-only line's), and the walk goes on
    TakeLast,  // taken, and the walk stops after it
  };
  /// `line` without its '\n'; `number` its line number.
  virtual Verdict on_anchor_line(std::string_view line, std::uint64_t number, const TriggerScanner::Hit* first,
                                 const TriggerScanner::Hit* last) = 0;

 protected:
  ~AnchorLines() = default;
};

/// Whether `run` starts with a line of a route with `head`: its first hit is a stamp where the
/// head puts it, after a line start and the head. The cheap look before a walk (which looks
/// again), one that most runs offered do not pass: the next line is another writer's.
bool stamp_run_starts(const LineSink::StampRun& run, std::string_view head);

/// A route's walks, set up once for its head (a line's bytes up to and including the first
/// digit of its time of day) and its stamp's layout: a file of one writer walks thousands of
/// runs on one route, and each walk's setup cost as much as its lines. A writer whose heads
/// differ from line to line in a few ways only (the level before the stamp: `INFO 2026-...`,
/// `WARNING 2026-...`) has a route for each; the walker then holds them all (add_route()), and
/// a run goes on across them.
class StampRunWalker {
 public:
  StampRunWalker(std::string_view head, const TimeOfDayLayout& layout);

  /// Whether this walker was set up for `head` and `layout` (one of its routes).
  bool has_route(std::string_view head, const TimeOfDayLayout& layout) const;
  /// Adds a route whose lines go where the first one's go (the caller's to know), read with a
  /// layout of the same date. False, and nothing added, when there are kMaxRoutes already, the
  /// date differs, or the route cannot be walked.
  bool add_route(std::string_view head, const TimeOfDayLayout& layout);
  /// stamp_run_starts() for any of the routes.
  bool starts(const LineSink::StampRun& run) const;

  /// The lines at the start of `run` that the routes take, each with no trigger but its
  /// stamp, and the lines without a hit between them. Stops before a line with another head or
  /// another trigger, a stamp the layout does not read, a line that may be over the run's
  /// limit, and, with `check_steps_back`, a stamp more than a minute before the one before it
  /// (the first one: before `floor`, a time of day in seconds), which the caller's full path
  /// reports.
  StampRunWalk walk(const LineSink::StampRun& run, long long floor, bool check_steps_back) const;
  /// The same for a run whose hits hold no stamps (`run.without_stamps`): the lines are found
  /// from line end to line end, each must start with a head and a stamp its layout reads,
  /// and the walk stops before the line of the first hit. Every line taken is a stamped line
  /// (`lines` counts them all, so the bytes taken hold exactly that many). With `anchors`, a line
  /// of a route that holds hits is offered to it (as the `walk.lines`-th line from
  /// `run.first_line`), and the walk goes on past it when it takes it.
  StampRunWalk walk_lines(const LineSink::StampRun& run, long long floor, bool check_steps_back,
                          AnchorLines* anchors = nullptr) const;

  static constexpr std::size_t kMaxRoutes = 4;

 private:
  static constexpr std::size_t kLineStartBytes = 64;
  // One route's lines: the head's bytes, then the layout's (digits where it has a digit), as one
  // template compared 16 bytes at a time, where a head compare and a layout check cost twice
  // that.
  struct Shape {
    Shape(std::string_view head, const TimeOfDayLayout& layout);
    // Whether the `kLineStartBytes` bytes at `p` (all readable) start with the head and then
    // fit the layout; only when `one_look`.
    bool line_start_at(const char* p) const;
    // Whether the `available` bytes at `p` start with the head and a stamp the layout reads:
    // line_start_at() where it can look, else starts_slowly().
    bool starts_line(const char* p, std::size_t available) const {
      if (one_look && available >= kLineStartBytes) return line_start_at(p);
      return starts_slowly(p, available);
    }
    bool starts_slowly(const char* p, std::size_t available) const;

    std::string head;
    TimeOfDayLayout layout;
    alignas(16) char bytes[kLineStartBytes] = {};
    alignas(16) char digits[kLineStartBytes] = {};  // -1 where any digit fits
    unsigned wanted[kLineStartBytes / 16] = {};     // per 16 bytes, the template's positions
    bool one_look = false;                          // the template fits (and SSE2 is there)
    bool walkable;  // the head ends in the stamp's first digit, and the stamp does not end its line
  };
  // A shape other than `tried` whose line starts at `line`, or null.
  const Shape* other_shape_at(const char* line, std::size_t available, const Shape* tried) const;

  std::vector<Shape> shapes_;  // the walkable ones (the first may not be: then no walk)
};

}  // namespace megatriage
