// lint_rules: which launch-script finding can explain which report category, as the
// repository's rules/lint.json says, and that every rule lint_script() reports is in it.
#include "lint/lint_rules.h"

#include <doctest/doctest.h>

#include <string>

#include "lint/lint.h"
#include "support/repo_rules.h"

namespace megatriage {

namespace {
const std::vector<LintRuleEntry>& repo_table() { return test::repo_matcher().tables().lint_rules; }
}  // namespace

TEST_SUITE("lint_rules") {

TEST_CASE("lint_rules: a finding explains only the categories its rule names") {
  const auto& t = repo_table();
  CHECK(lint_finding_explains("lint.bare-torchrun", "import", t));
  CHECK(lint_finding_explains("lint.no-cd-worktree", "import", t));
  CHECK(lint_finding_explains("lint.no-venv", "import", t));
  CHECK(lint_finding_explains("lint.master-addr", "nccl", t));
  CHECK(lint_finding_explains("lint.launcher-args", "nccl", t));
  CHECK(lint_finding_explains("lint.ntasks-per-node", "nccl", t));
  CHECK(lint_finding_explains("lint.nproc-vs-gpus", "shape", t));
  CHECK_FALSE(lint_finding_explains("lint.nproc-vs-gpus", "nccl", t));
  CHECK_FALSE(lint_finding_explains("lint.master-addr", "import", t));
  CHECK_FALSE(lint_finding_explains("lint.cuda-device-max-connections", "unknown", t));
  CHECK_FALSE(lint_finding_explains("lint.node-local-path", "oom", t));
  CHECK_FALSE(lint_finding_explains("lint.no-such-rule", "import", t));
  CHECK_FALSE(lint_finding_explains("lint.bare-torchrun", "import", {}));
}

TEST_CASE("lint_rules: the table lists every rule a bad script gets") {
  // No cd, bare torchrun, a fixed CUDA_DEVICE_MAX_CONNECTIONS, a node-local path, nproc != GPUs.
  const std::string script =
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\n"
      "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
      "srun torchrun --nproc-per-node=4 pretrain_gpt.py --data-path /tmp/data\n";
  LintOptions options;
  options.check_filesystem = false;
  options.texts = &repo_table();
  const auto findings = lint_script(script, options);
  REQUIRE(!findings.empty());
  for (const LintFinding& f : findings) {
    CAPTURE(f.rule);
    bool listed = false;
    for (const LintRuleEntry& e : repo_table()) listed = listed || e.id == f.rule;
    CHECK(listed);
  }
}

TEST_CASE("lint_rules: the table has words for every variant the checks choose") {
  // Scripts that between them reach each variant of rules/lint.json (a typo in a variant name in
  // lint.cc would give the stand-in words instead).
  const char* const scripts[] = {
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n#SBATCH --gpus-per-node=8\n"
      "export MASTER_ADDR=localhost\nsrun torchrun --nproc-per-node=4 x.py --save /tmp/ckpt > /tmp/x.log\n",
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks=16\n#SBATCH --gres=gpu:h100:8\nGPUS=16\n"
      "export MASTER_ADDR=node001\ncd /shared/wt\nsrun --ntasks=$GPUS_PER_NODE bash -c \"uv run python -m "
      "torch.distributed.run --nproc-per-node=$GPUS --master-addr=10.0.0.1 x.py --log-dir $TMPDIR/tb\"\n",
      "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --gpus-per-node=8\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
      "srun --ntasks-per-node=$GPUS_PER_NODE uv run python -m torch.distributed.run --nproc-per-node=$NP "
      "--master-addr=$MASTER_ADDR x.py --use-torch-fsdp2\n",
      "#!/bin/bash\n#SBATCH --nodes=2\nexport CUDA_DEVICE_MAX_CONNECTIONS=8\nexport MASTER_ADDR=$HEAD\n"
      "srun --ntasks=4 --nodes=2 python -m torch.distributed.run x.py --overlap-moe-expert-parallel-comm\n",
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\nOUT=/tmp/run1\ncd /shared/wt\n"
      "srun uv run python -m torch.distributed.run --nproc-per-node=${NPROC:-4} x.py --save $OUT/ckpt\n",
  };
  LintOptions options;
  options.check_filesystem = false;
  options.texts = &repo_table();
  std::size_t findings = 0;
  for (const char* script : scripts) {
    for (const LintFinding& f : lint_script(script, options)) {
      CAPTURE(f.rule);
      CAPTURE(f.why);
      ++findings;
      CHECK(f.why.find("have no words for variant") == std::string::npos);
      CHECK(f.why.find('{') == std::string::npos);  // every placeholder filled
    }
  }
  CHECK(findings >= 20);
}

}  // TEST_SUITE
}  // namespace megatriage
