// Attribute stage, part 3: line prefixes no parser in line_prefix.h names, learnt from the file
// itself — pdsh/DeepSpeed hosts `node7: `, Ray `(TaskRunner pid=N) `, Open MPI/Horovod
// `[1,3]<stderr>:`, counters `[80746] `, editor line numbers ` 13 `, and whatever stands before
// `Traceback (most recent call last):` on a header line (logging heads, a progress bar). The
// enumerated parsers stay the fast path; this only runs when something was learnt. It decides
// which text is a prefix, not what a line means.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract/line_prefix.h"
#include "model/types.h"

namespace megatriage {

/// The families of per-line prefixes a file may be found to carry on most of its lines.
enum class PrefixKind : std::uint8_t {
  None,
  Ray,      // `(TaskRunner pid=84989) `, `(WorkerDict pid=1, ip=10.0.0.1) `, `(raylet) `
  Host,     // `node7: `, `rdma-test-gpu-worker-1: ` (pdsh, DeepSpeed's multi-node runner)
  Counter,  // `[80746] ` (a counter, or a writer's number when few values repeat)
  Editor,   // ` 13 `, `13 | ` (line numbers pasted with the log), increasing
  Header,   // the text before a traceback header, matched by shape on later lines
  Mpi,      // Open MPI / Horovod `--tag-output`: `[1,3]<stderr>:` (job, rank)
};

/// One learnt prefix at the start of a body.
struct LearntPrefix {
  std::size_t length = 0;  // bytes of the body it takes; 0: none
  PrefixKind kind = PrefixKind::None;
  /// The writer: a hash of the prefix with its varying parts (stamps, line numbers, counters)
  /// masked, so lines of one writer share it and two writers do not. Never 0 when length > 0.
  std::uint64_t writer = 0;
};

/// Learns a file's unnamed prefixes and finds them on its lines. Learning comes only from data
/// that every way of reading the file sees alike (its head, traceback header lines), so the
/// result does not depend on the prefilter, chunking or `watch`. Copyable; no views kept.
class PrefixLearner {
 public:
  /// Looks at the first lines of the file (`head`, its first bytes; `whole`: the whole file, so
  /// the last line is complete). A family seen on at least 3 lines and on half the non-blank
  /// lines is adopted: later lines starting with one of its shape are peeled.
  void learn_from_head(std::string_view head, bool whole);

  /// True once anything was learnt (else peel() is a no-op and costs a branch).
  bool any() const { return kinds_ != 0 || !header_shapes_.empty(); }

  /// The learnt prefix `body` starts with, if any. Cost: a few byte compares per adopted family
  /// (a recent writer's exact text is recognised without parsing). Not thread-safe (a cache).
  LearntPrefix match(std::string_view body) const;

  /// One learnt prefix peeled off a line: its text (a view into the line) and the writer of
  /// all learnt prefixes up to and including it.
  struct Layer {
    std::string_view text;
    std::uint64_t writer = 0;
  };
  /// Peels learnt prefixes off `p.body` (up to two, each followed by the known prefixes again:
  /// `node7: [rank3]: ...`), filling the fields of `p` the outer parse left empty. Appends the
  /// layers peeled to `layers` (outermost first); returns the writer of them all (0: none).
  std::uint64_t peel(LinePrefix& p, std::vector<Layer>& layers) const;

  /// The writer of prefix `inner` standing behind the prefixes of writer `outer` (0: none).
  static std::uint64_t combine(std::uint64_t outer, std::uint64_t inner) {
    return outer == 0 ? inner : ((outer * 1099511628211ULL) ^ inner) | 1;
  }

  /// `residual` is the text before `Traceback (most recent call last):` on a line: the header's
  /// prefix unless it is a blank or an indented field label (length 0 then). When it ends like
  /// a prefix, its shape is learnt for later lines too. Returns length == residual.size().
  LearntPrefix learn_header_prefix(std::string_view residual);

  /// Adopts `kind` for the rest of the file (tests; learn_from_head does it from the data).
  void adopt(PrefixKind kind) { kinds_ |= bit(kind); }

  /// Where a traceback header starts in `body` when text stands before it (the exception-group
  /// form and its `+`/`|` margin included): the length of that text; 0 when the body has no
  /// header or nothing but blanks and margins before it.
  static std::size_t header_residual(std::string_view body);

  /// What a learnt prefix's text says of its writer: `rank:  3 |`, `[rank3]`, `RANK=3` give
  /// the rank (-1: none); a host prefix `node7: ` or Ray's `ip=10.0.0.1` the host (empty: none).
  static int rank_of(std::string_view prefix_text);
  static std::string host_of(std::string_view prefix_text);
  /// A timestamp inside a learnt prefix (`rank:  3 | 2022-04-03 18:44:26,615 CRITICAL | `),
  /// looked for after each blank, `[` or `|`.
  static std::optional<CivilTime> stamp_in(std::string_view prefix_text);

  /// The family parsers, exposed for tests: the length of a `kind` prefix at the start of
  /// `body`, 0 when there is none.
  static std::size_t kind_length(PrefixKind kind, std::string_view body);
  /// The length of the start of `line` that has the shape of `prefix` (digits may differ, and
  /// the padding before a number), 0 when it has not.
  static std::size_t shape_length(std::string_view prefix, std::string_view line);
  /// The prefix with its varying parts masked (`#`) and space runs folded: one writer's key.
  static std::string identity(std::string_view prefix_text);

 private:
  static constexpr std::uint8_t bit(PrefixKind k) { return static_cast<std::uint8_t>(1U << static_cast<unsigned>(k)); }
  /// The writer of a learnt prefix's text: its identity's hash, or its exact text's where the
  /// numbers are the writer (MPI tags; counters that repeat few values, as MPICH's `[3] `).
  std::uint64_t writer_for(std::string_view text) const;

  std::uint8_t kinds_ = 0;                  // adopted families (bit per PrefixKind)
  bool counters_name_writers_ = false;      // `[N] ` repeats few values in the head
  // The Ray tags and hosts matched last (interleaved writers: a few), with their results.
  struct Recent {
    std::string text;
    LearntPrefix match;
  };
  mutable std::array<Recent, 4> recent_;
  mutable std::size_t next_recent_ = 0;
  std::vector<std::string> header_shapes_;  // learnt from header lines, capped
};

/// Canonical form for table tests: `kind=<name> len=<n> text="<prefix>"`, or `none`.
std::string to_debug_string(const LearntPrefix& m, std::string_view body);

}  // namespace megatriage
