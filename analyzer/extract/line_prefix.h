// Attribute stage, part 1: peel the stacked prefixes off a line (srun --label, torchrun tee
// `[defaultN]:` / `[node01:3]:`, PyTorch `[rankN]:`) and read the NCCL `host:pid:tid [dev]`
// header. Hand-written, allocation-free; the returned views point into the line. Prefixes not
// listed here (pdsh hosts, Ray tags, logging heads) are learnt per file: prefix_learning.h.
#pragma once

#include <string>
#include <string_view>

namespace megatriage {

/// What the prefixes of one line say. -1 / empty view: not present.
struct LinePrefix {
  std::string_view body;       // the line after all recognised prefixes
  int srun_task = -1;          // `  3: ` (srun --label, right-aligned task id)
  int tee_local_rank = -1;     // `[default3]:` or `[<role>3]:` or `[node01:3]:`
  std::string_view tee_role;   // `default`, `node01:` ...
  int rank = -1;               // `[rank12]:` or `[rank12]: ` (global rank)
  // NCCL header inside the body: `[<stamp>] node01:4242:4250 [3] ...NCCL INFO|WARN`.
  std::string_view nccl_host;
  int nccl_pid = -1;
  int nccl_device = -1;
};

/// Parses prefixes in their stacking order (outermost first). Never fails: unknown shapes are
/// left in `body`. `[rankN]: ` loses exactly one space (traceback indentation survives); text
/// after a tee prefix is kept as is. Requires: `line` has no terminator.
LinePrefix parse_prefix(std::string_view line);

/// parse_prefix(line).body without the look for an NCCL header (which never changes the body):
/// for a caller that reads only the body, such as prefix learning over every file's head.
std::string_view prefix_body(std::string_view line);

/// Canonical form for table tests. Space-separated, in stacking order, each part only when present:
/// `task=<n> tee=<role>/<local_rank> rank=<n> nccl=<host>:<pid>/[<dev>] body="<body>"`; `body=`
/// is always last and always present, copied verbatim (no escaping). E.g.
/// `task=3 tee=default/3 rank=12 body="Traceback (most recent call last):"`. Allocates.
std::string to_debug_string(const LinePrefix& p);

}  // namespace megatriage
