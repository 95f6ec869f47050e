// lint_rules: which launch-script finding can explain which report category.
#include "lint/lint_rules.h"

#include <doctest/doctest.h>

#include <string>

namespace megatriage {

TEST_SUITE("lint_rules") {

TEST_CASE("lint_rules: the table is sorted by id, ids are unique and well formed") {
  std::string previous;
  for (const LintRule& r : lint_rules()) {
    CAPTURE(r.id);
    CHECK(r.id.rfind("lint.", 0) == 0);
    CHECK(std::string(r.id) > previous);
    previous = std::string(r.id);
    for (std::string_view c : r.explains) CHECK((c == "oom" || c == "shape" || c == "import" || c == "nccl"));
  }
  CHECK(lint_rules().size() == 9);
}

TEST_CASE("lint_rules: a finding explains only the categories its rule names") {
  CHECK(lint_finding_explains("lint.bare-torchrun", "import"));
  CHECK(lint_finding_explains("lint.no-cd-worktree", "import"));
  CHECK(lint_finding_explains("lint.no-venv", "import"));
  CHECK(lint_finding_explains("lint.master-addr", "nccl"));
  CHECK(lint_finding_explains("lint.launcher-args", "nccl"));
  CHECK(lint_finding_explains("lint.ntasks-per-node", "nccl"));
  CHECK(lint_finding_explains("lint.nproc-vs-gpus", "shape"));
  CHECK_FALSE(lint_finding_explains("lint.nproc-vs-gpus", "nccl"));
  CHECK_FALSE(lint_finding_explains("lint.master-addr", "import"));
  CHECK_FALSE(lint_finding_explains("lint.cuda-device-max-connections", "unknown"));
  CHECK_FALSE(lint_finding_explains("lint.node-local-path", "oom"));
  CHECK_FALSE(lint_finding_explains("lint.no-such-rule", "import"));
}

}  // TEST_SUITE
}  // namespace megatriage
