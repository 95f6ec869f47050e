#include "lint/lint.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "support/repo_rules.h"

using namespace megatriage;

namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& v) {
    std::string s = "{";
    for (const std::string& e : v) s += (s.size() > 1 ? ", \"" : "\"") + e + "\"";
    return String((s + "}").c_str());
  }
};
}  // namespace doctest

namespace {

// The runbook's minimal sbatch script with its placeholders filled (as fixtures/lint/
// runbook-template.sbatch, shorter Megatron arguments). Lines matter: tests cite them.
const std::string kTemplate = R"(#!/bin/bash
#SBATCH --job-name=megatron
#SBATCH --account=llm-pretrain
#SBATCH --partition=gpu-h100
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
#SBATCH --time=12:00:00
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err

set -euo pipefail
cd /lustre/fsw/llm/megatron-lm

export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
export MASTER_PORT=${MASTER_PORT:-29500}
export NNODES=${SLURM_NNODES}
export GPUS_PER_NODE=8
export WORLD_SIZE=$((NNODES * GPUS_PER_NODE))

# Set CUDA_DEVICE_MAX_CONNECTIONS only when your configuration requires it
#   export CUDA_DEVICE_MAX_CONNECTIONS=1

srun --ntasks=${NNODES} --ntasks-per-node=1 bash -c '
  # NODE_RANK comes from SLURM_NODEID with one task per node.
  NODE_RANK=${SLURM_NODEID}
  uv run python -m torch.distributed.run \
    --nnodes='"${NNODES}"' \
    --nproc-per-node='"${GPUS_PER_NODE}"' \
    --node-rank=${NODE_RANK} \
    --master-addr='"${MASTER_ADDR}"' \
    --master-port='"${MASTER_PORT}"' \
    pretrain_gpt.py \
      --tensor-model-parallel-size 1 --pipeline-model-parallel-size 2 \
      --save /lustre/fsw/llm/checkpoints/gpt \
      --tensorboard-dir /lustre/fsw/llm/tensorboard/gpt
'
)";
// Line numbers in kTemplate.
constexpr std::uint64_t kCdLine = 13, kMasterAddrLine = 15, kGpusVarLine = 18,
                        kLauncherLine = 27;

// `from` must occur in the template; the test fails loudly otherwise.
std::string with(std::string s, const std::string& from, const std::string& to) {
  auto at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "not in script: " << from);
  s.replace(at, from.size(), to);
  return s;
}

std::vector<LintFinding> lint(const std::string& s, bool fs = false) {
  LintOptions o;
  o.check_filesystem = fs;
  o.texts = &test::repo_matcher().tables().lint_rules;
  o.gpus = &test::repo_matcher().tables().gpu_generations;
  return lint_script(s, o);
}

// "line rule" for each finding, in report order.
std::vector<std::string> ids(const std::string& s, bool fs = false) {
  std::vector<std::string> out;
  for (const LintFinding& f : lint(s, fs)) out.push_back(std::to_string(f.line) + " " + f.rule);
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_SUITE("lint") {
TEST_CASE("lint: the filled runbook template is clean") {
  CHECK(ids(kTemplate) == V{});
  CHECK(ids(kTemplate, true) == V{});  // /lustre is absent here: no-venv says nothing
}

TEST_CASE("lint: the runbook template with its placeholders is clean") {
  std::string raw = with(with(kTemplate, "--account=llm-pretrain", "--account=<SLURM_ACCOUNT>"),
                         "cd /lustre/fsw/llm/megatron-lm", "cd <MEGATRON_WORKTREE>");
  raw = with(with(raw, "--nodes=4", "--nodes=<NODES>"), "--gpus-per-node=8",
             "--gpus-per-node=<GPUS_PER_NODE>");
  raw = with(raw, "GPUS_PER_NODE=8", "GPUS_PER_NODE=<GPUS_PER_NODE>");
  CHECK(ids(raw, true) == V{});
}

TEST_CASE("lint: no-cd-worktree") {
  std::string no_cd = with(kTemplate, "cd /lustre/fsw/llm/megatron-lm\n", "\n");
  CHECK(ids(no_cd) == V{std::to_string(kLauncherLine) + " lint.no-cd-worktree"});
  SUBCASE("cd after the launch does not count") {
    CHECK(ids(no_cd + "cd /lustre/fsw/llm/megatron-lm\n").size() == 1);
  }
  SUBCASE("cd inside the bash -c body before the launcher counts") {
    CHECK(ids(with(no_cd, "  NODE_RANK=${SLURM_NODEID}\n",
                   "  NODE_RANK=${SLURM_NODEID}\n  cd /lustre/fsw/llm/megatron-lm\n")) == V{});
  }
  SUBCASE("a commented cd does not count") {
    CHECK(ids(with(kTemplate, "cd /lustre", "# cd /lustre")).size() == 1);
  }
  SUBCASE("#SBATCH --chdir and srun --chdir also put the workers in the work tree") {
    CHECK(ids(with(no_cd, "#SBATCH --time", "#SBATCH --chdir=/lustre/w\n#SBATCH --time")) == V{});
    CHECK(ids(with(no_cd, "srun --ntasks", "srun --chdir /lustre/w --ntasks")) == V{});
  }
  SUBCASE("cd with no launch at all says nothing") {
    CHECK(ids("#!/bin/bash\necho hello\n") == V{});
  }
}

TEST_CASE("lint: ntasks-per-node") {
  CHECK(ids(with(kTemplate, "#SBATCH --ntasks-per-node=1", "#SBATCH --ntasks-per-node=8")) ==
        V{"6 lint.ntasks-per-node"});
  CHECK(ids(with(kTemplate, "#SBATCH --ntasks-per-node=1", "#SBATCH --tasks-per-node 2")) ==
        V{"6 lint.ntasks-per-node"});
  SUBCASE("--ntasks above --nodes without ntasks-per-node") {
    CHECK(ids(with(kTemplate, "#SBATCH --ntasks-per-node=1", "#SBATCH -n 32")) ==
          V{"6 lint.ntasks-per-node"});
    CHECK(ids(with(kTemplate, "#SBATCH --ntasks-per-node=1", "#SBATCH --ntasks=4")) == V{});
    CHECK(ids(with(kTemplate, "#SBATCH --ntasks-per-node=1", "#SBATCH -n4")) == V{});
  }
  SUBCASE("the srun line asks for several tasks per node") {
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1",
                   "srun --ntasks-per-node=8")) == V{"24 lint.ntasks-per-node"});
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1",
                   "srun --ntasks-per-node=${GPUS_PER_NODE}")) == V{"24 lint.ntasks-per-node"});
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1", "srun -n 32")) ==
          V{"24 lint.ntasks-per-node"});
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1",
                   "srun --ntasks=$WORLD_SIZE")) == V{"24 lint.ntasks-per-node"});
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1", "srun -N 4 -n 4")) ==
          V{});
    CHECK(ids(with(kTemplate, "srun --ntasks=${NNODES} --ntasks-per-node=1", "srun -l")) == V{});
  }
  SUBCASE("srun flags without values do not swallow the program; its options are its own") {
    CHECK(ids(with(kTemplate, "srun --ntasks=", "srun -l --kill-on-bad-exit --ntasks=")) == V{});
    CHECK(ids(kTemplate + "srun --ntasks-per-node=1 -l ./probe --ntasks-per-node 8\n") == V{});
  }
}

TEST_CASE("lint: bare-torchrun") {
  CHECK(ids(with(kTemplate, "uv run python -m torch.distributed.run", "torchrun")) ==
        V{std::to_string(kLauncherLine) + " lint.bare-torchrun"});
  CHECK(ids(with(kTemplate, "uv run python -m torch.distributed.run", "/opt/venv/bin/torchrun"))
            .size() == 1);
  SUBCASE("torchrun inside the venv, or merely mentioned, is fine") {
    CHECK(ids(with(kTemplate, "uv run python -m torch.distributed.run", "uv run torchrun")) ==
          V{});
    CHECK(ids(kTemplate + "echo torchrun finished\n") == V{});
  }
}

TEST_CASE("lint: master-addr") {
  const std::string line =
      "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)";
  const V bad{std::to_string(kMasterAddrLine) + " lint.master-addr"};
  SUBCASE("accepted spellings") {
    for (const char* ok : {
             "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)",
             "export MASTER_ADDR=\"$(scontrol show hostnames \"${SLURM_NODELIST}\" | head -1)\"",
             "MASTER_ADDR=`scontrol show hostnames $SLURM_JOB_NODELIST | head -n1`",
             "nodes=($(scontrol show hostnames \"$SLURM_JOB_NODELIST\")); export "
             "MASTER_ADDR=${nodes[0]}",
             "head=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)\n"
             "ip=$(getent hosts \"$head\" | awk '{print $1}')\nexport MASTER_ADDR=$ip",
         }) {
      CAPTURE(ok);
      CHECK(ids(with(kTemplate, line, ok)) == V{});
    }
  }
  SUBCASE("hard-coded, localhost or per-node values") {
    auto localhost = lint(with(kTemplate, line, "export MASTER_ADDR=localhost"));
    REQUIRE(localhost.size() == 1);
    CHECK(localhost[0].line == kMasterAddrLine);
    CHECK(localhost[0].why.find("localhost") != std::string::npos);
    CHECK(ids(with(kTemplate, line, "export MASTER_ADDR=10.0.3.17")) == bad);
    CHECK(ids(with(kTemplate, line, "export MASTER_ADDR=$(hostname)")) == bad);
    CHECK(ids(with(kTemplate, line,
                   "export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | tail "
                   "-n1)")) == bad);
  }
  SUBCASE("never set, or hard-coded on the launcher") {
    CHECK(ids(with(kTemplate, line + "\n", "\n")) ==
          V{std::to_string(kLauncherLine) + " lint.master-addr"});
    CHECK(ids(with(kTemplate, "--master-addr='\"${MASTER_ADDR}\"'", "--master-addr=127.0.0.1")) ==
          V{std::to_string(kLauncherLine) + " lint.master-addr"});
  }
}

TEST_CASE("lint: launcher-args names what is missing") {
  auto f = lint(with(with(kTemplate, "    --node-rank=${NODE_RANK} \\\n", ""),
                     "    --master-port='\"${MASTER_PORT}\"' \\\n", ""));
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "lint.launcher-args");
  CHECK(f[0].line == kLauncherLine);
  CHECK(f[0].why.find("--node-rank, --master-port") != std::string::npos);
  CHECK(f[0].why.find("--nnodes") == std::string::npos);
  CHECK(f[0].fix.find("--master-port='\"${MASTER_PORT}\"'") != std::string::npos);
  SUBCASE("underscore spellings count") {
    CHECK(ids(with(with(kTemplate, "--nproc-per-node=", "--nproc_per_node="),
                   "--node-rank=", "--node_rank=")) == V{});
  }
  SUBCASE("c10d rendezvous replaces address, port and node rank") {
    std::string rdzv = with(with(with(kTemplate, "    --node-rank=${NODE_RANK} \\\n", ""),
                                 "--master-addr='\"${MASTER_ADDR}\"'", "--rdzv-backend=c10d"),
                            "--master-port='\"${MASTER_PORT}\"'",
                            "--rdzv-endpoint='\"${MASTER_ADDR}:${MASTER_PORT}\"'");
    CHECK(ids(rdzv) == V{});
    CHECK(ids(with(rdzv, "    --nnodes='\"${NNODES}\"' \\\n", "")) ==
          V{std::to_string(kLauncherLine) + " lint.launcher-args"});
  }
  SUBCASE("arguments kept in a variable, as in Megatron's examples") {
    std::string s = R"(#!/bin/bash
#SBATCH --nodes=2
#SBATCH --gpus-per-node=8
cd /lustre/w
export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
DISTRIBUTED_ARGS=(
  --nproc_per_node 8 --nnodes $SLURM_NNODES --node_rank $SLURM_NODEID
  --master_addr $MASTER_ADDR --master_port 6000
)
srun --ntasks-per-node=1 uv run python -m torch.distributed.run ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py
)";
    CHECK(ids(s) == V{});
    CHECK(ids(with(s, "--master_port 6000", "")) == V{"10 lint.launcher-args"});
    CHECK(ids(with(s, "--nproc_per_node 8", "--nproc_per_node 4")) == V{"10 lint.nproc-vs-gpus"});
  }
  SUBCASE("outside a bash -c body the fix is spelled plainly") {
    std::string s =
        "#!/bin/bash\ncd /w\nsrun uv run python -m torch.distributed.run "
        "--nnodes=2 --nproc-per-node=8 --node-rank=$SLURM_NODEID "
        "--master-addr=$MASTER_ADDR train.py\n";
    auto g = lint(with(s, "#!/bin/bash\n",
                       "#!/bin/bash\nexport MASTER_ADDR=$(scontrol show hostnames "
                       "$SLURM_NODELIST | head -n1)\n"));
    REQUIRE(g.size() == 1);
    CHECK(g[0].fix == "add --master-port=${MASTER_PORT} to the torch.distributed.run arguments");
  }
}

TEST_CASE("lint: nproc-vs-gpus") {
  const V bad{std::to_string(kLauncherLine) + " lint.nproc-vs-gpus"};
  SUBCASE("through a variable assigned a literal") {
    auto f = lint(with(kTemplate, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=4"));
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == kLauncherLine);
    CHECK(f[0].why.find("GPUS_PER_NODE=4 on line " + std::to_string(kGpusVarLine)) !=
          std::string::npos);
    CHECK(f[0].fix.find("GPUS_PER_NODE=8") != std::string::npos);
  }
  SUBCASE("a literal on the launcher, --gres and ${X:-default}") {
    CHECK(ids(with(kTemplate, "--nproc-per-node='\"${GPUS_PER_NODE}\"'", "--nproc-per-node=2")) ==
          bad);
    CHECK(ids(with(kTemplate, "--gpus-per-node=8", "--gpus-per-node=h100:4")) == bad);
    CHECK(ids(with(kTemplate, "#SBATCH --gpus-per-node=8", "#SBATCH --gres=gpu:h100:4")) == bad);
    CHECK(ids(with(kTemplate, "#SBATCH --gpus-per-node=8", "#SBATCH --gres=gpu:8")) == V{});
    CHECK(ids(with(kTemplate, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=${GPUS:-4}")) ==
          bad);
  }
  SUBCASE("unknown values are not compared") {
    CHECK(ids(with(kTemplate, "export GPUS_PER_NODE=8",
                   "export GPUS_PER_NODE=$SLURM_GPUS_ON_NODE")) == V{});
    CHECK(ids(with(kTemplate, "export GPUS_PER_NODE=8",
                   "export GPUS_PER_NODE=<GPUS_PER_NODE>")) == V{});
    CHECK(ids(with(kTemplate, "#SBATCH --gpus-per-node=8\n", "")) == V{});
    // A value chosen in an if/else is not a literal the script always has.
    CHECK(ids(with(kTemplate, "export GPUS_PER_NODE=8",
                   "if [[ $SLURM_JOB_PARTITION == small ]]; then\n  GPUS_PER_NODE=4\nfi")) ==
          V{});
  }
}

TEST_CASE("lint: cuda-device-max-connections") {
  const std::string comment = "#   export CUDA_DEVICE_MAX_CONNECTIONS=1";
  const std::string tp1 = "--tensor-model-parallel-size 1 --pipeline-model-parallel-size 2";
  SUBCASE("1 with TP=1 and CP=1 is not needed: the finding names the sizes") {
    auto f = lint(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == 22);
    CHECK(f[0].rule == "lint.cuda-device-max-connections");
    CHECK_FALSE(f[0].note);
    CHECK_MESSAGE(f[0].why.find("TP=1 (line 34)") != std::string::npos, f[0].why);
  }
  SUBCASE("inside if/case, after && or commented: no finding") {
    CHECK(ids(with(kTemplate, comment,
                   "if (( TP > 1 )); then\n  export CUDA_DEVICE_MAX_CONNECTIONS=1\nfi")) == V{});
    CHECK(ids(with(kTemplate, comment,
                   "case $GPU in\n  h100) export CUDA_DEVICE_MAX_CONNECTIONS=1 ;;\nesac")) ==
          V{});
    CHECK(ids(with(kTemplate, comment,
                   "[[ $TP -gt 1 ]] && export CUDA_DEVICE_MAX_CONNECTIONS=1")) == V{});
    CHECK(ids(kTemplate) == V{});
  }
  SUBCASE("the runbook's recommendation: TP 2 on H100 without FSDP, exporting 1, is clean") {
    const std::string tp2 = with(kTemplate, tp1, "--tensor-model-parallel-size 2");
    CHECK(ids(with(tp2, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1")) == V{});
    // The size through a variable, plain or braced, or an argument array.
    const std::string var = with(with(kTemplate, comment, "TP=2\nexport CUDA_DEVICE_MAX_CONNECTIONS=1"), tp1,
                                 "--tensor-model-parallel-size ${TP}");
    CHECK(ids(var) == V{});
    CHECK(ids(with(var, "${TP}", "$TP")) == V{});
    const std::string array = with(with(kTemplate, comment,
                                        "GPT_ARGS=(\n  --tensor-model-parallel-size 2\n  --context-parallel-size 1\n)\n"
                                        "export CUDA_DEVICE_MAX_CONNECTIONS=1"),
                                   tp1, "${GPT_ARGS[@]}");
    CHECK(ids(array) == V{});
    // CP>1 needs 1 as TP>1 does.
    CHECK(ids(with(with(kTemplate, tp1, "--context-parallel-size 2"), comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1")) ==
          V{});
  }
  SUBCASE("what contradicts the script's TP on Hopper: another value, or none") {
    const std::string tp2 = with(kTemplate, tp1, "--tensor-model-parallel-size 2");
    auto f = lint(with(tp2, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=8"));
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == 22);
    CHECK_FALSE(f[0].note);
    CHECK(f[0].why.find("TP=2") != std::string::npos);
    CHECK(f[0].why.find("gpu-h100") != std::string::npos);
    auto missing = lint(tp2);
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].line == kLauncherLine);
    CHECK_FALSE(missing[0].note);
    CHECK(missing[0].why.find("not set") != std::string::npos);
    // Set where lint does not look: nothing, or a note when a sourced file may set it.
    CHECK(ids(with(tp2, "srun --ntasks", "srun --export=ALL,CUDA_DEVICE_MAX_CONNECTIONS=1 --ntasks")) == V{});
    auto sourced = lint(with(tp2, "set -euo pipefail", "set -euo pipefail; source ./env.sh"));
    REQUIRE(sourced.size() == 1);
    CHECK(sourced[0].note);
    CHECK(sourced[0].why.find("./env.sh (line 12)") != std::string::npos);
  }
  SUBCASE("what the script does not show is a note, not a finding") {
    // No GPU type anywhere: TP 2 without the export might be Blackwell.
    const std::string tp2 = with(with(kTemplate, tp1, "--tensor-model-parallel-size 2"), "--partition=gpu-h100",
                                 "--partition=batch");
    auto f = lint(tp2);
    REQUIRE(f.size() == 1);
    CHECK(f[0].note);
    CHECK(f[0].why.find("does not name its GPUs") != std::string::npos);
    CHECK(ids(with(tp2, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1")) == V{});
    // TP from the environment: lint cannot tell whether 1 is right.
    auto env = lint(with(with(kTemplate, tp1, "--tensor-model-parallel-size $TP"), comment,
                         "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
    REQUIRE(env.size() == 1);
    CHECK(env[0].note);
    CHECK(env[0].why.find("cannot tell") != std::string::npos);
    // Arguments handed in from outside ("$@") may hold any TP.
    auto outside = lint(with(with(kTemplate, tp1, "\"$@\""), comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
    REQUIRE(outside.size() == 1);
    CHECK(outside[0].note);
    // On Blackwell the variable has no effect: a note.
    auto blackwell = lint(with(with(with(kTemplate, tp1, "--tensor-model-parallel-size 2"), "--partition=gpu-h100",
                                    "--partition=gb200"),
                               comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
    REQUIRE(blackwell.size() == 1);
    CHECK(blackwell[0].note);
    CHECK(blackwell[0].why.find("Blackwell") != std::string::npos);
  }
  SUBCASE("the GPU type from --gres or a constraint") {
    const std::string tp2 = with(with(kTemplate, tp1, "--tensor-model-parallel-size 2"), "--partition=gpu-h100",
                                 "--partition=batch");
    auto gres = lint(with(tp2, "--gpus-per-node=8", "--gres=gpu:a100:8"));
    REQUIRE(gres.size() == 1);
    CHECK_FALSE(gres[0].note);
    CHECK(gres[0].why.find("gpu:a100:8") != std::string::npos);
    CHECK(lint(with(tp2, "--partition=batch", "--partition=batch\n#SBATCH --constraint=h100")).at(0).note == false);
    // A constraint naming two generations says nothing.
    CHECK(lint(with(tp2, "--partition=batch", "--partition=batch\n#SBATCH --constraint=h100|b200")).at(0).note);
  }
  SUBCASE("1 with FSDP is the stronger finding, once") {
    std::string s = with(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"),
                         "--pipeline-model-parallel-size 2", "--use-megatron-fsdp");
    auto f = lint(s);
    REQUIRE(f.size() == 1);
    CHECK(f[0].line == 22);
    CHECK(f[0].why.find("--use-megatron-fsdp (line 34)") != std::string::npos);
    CHECK(f[0].why.find("must not run with 1") != std::string::npos);
    // The FSDP flag alone (export still commented) is fine.
    CHECK(ids(with(kTemplate, "--pipeline-model-parallel-size 2", "--use-torch-fsdp2")) == V{});
  }
  SUBCASE("32 with --overlap-moe-expert-parallel-comm is what the runbook asks for") {
    std::string moe =
        with(kTemplate, "--pipeline-model-parallel-size 2", "--overlap-moe-expert-parallel-comm");
    CHECK(ids(with(moe, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=32")) == V{});
    auto f = lint(with(moe, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"));
    REQUIRE(f.size() == 1);
    CHECK(f[0].why.find("wants 32") != std::string::npos);
    auto missing = lint(moe);
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].why.find("wants 32") != std::string::npos);
  }
}

TEST_CASE("lint: Megatron's example shape, launcher arguments in arrays with a $(...) element") {
  const std::string script = R"(#!/bin/bash
#SBATCH --nodes=2 --ntasks-per-node=1 --gres=gpu:h100:8
set -e
cd /shared/megatron
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $SLURM_NNODES
    --node-rank $SLURM_NODEID
    --master_addr $(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)
    --master_port 6000
)
MODEL_PARALLEL_ARGS=(
	--tensor-model-parallel-size 8
	--pipeline-model-parallel-size 16
)
srun uv run python -m torch.distributed.run ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${MODEL_PARALLEL_ARGS[@]}
)";
  CHECK(ids(script) == V{});
  CHECK(ids(with(script, "export CUDA_DEVICE_MAX_CONNECTIONS=1\n", "")) == V{"17 lint.cuda-device-max-connections"});  // the srun line, one up
}

TEST_CASE("lint: suppression by comment and by option") {
  const std::string comment = "#   export CUDA_DEVICE_MAX_CONNECTIONS=1";
  const std::string id = "lint.cuda-device-max-connections";
  auto suppressed = [](const std::vector<LintFinding>& f) {
    std::vector<std::string> out;
    for (const LintFinding& x : f) out.push_back(std::to_string(x.line) + " " + x.rule + (x.suppressed ? " off" : " on"));
    return out;
  };
  SUBCASE("on the line: that line only") {
    const std::string s = with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1  # megatriage: disable=" + id);
    CHECK(suppressed(lint(s)) == V{"22 " + id + " off"});
    // The same comment on another line does not reach it.
    CHECK(suppressed(lint(with(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"), "set -euo pipefail",
                               "set -euo pipefail  # megatriage: disable=" + id))) == V{"22 " + id + " on"});
  }
  SUBCASE("alone near the top: the whole file, with or without the lint. prefix, several ids") {
    const std::string s = with(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"), "#SBATCH --job-name",
                               "# megatriage: disable=bare-torchrun,cuda-device-max-connections\n#SBATCH --job-name");
    CHECK(suppressed(lint(s)) == V{"23 " + id + " off"});
  }
  SUBCASE("on the last line of a continued command") {
    const std::string s = with(with(kTemplate, "cd /lustre/fsw/llm/megatron-lm\n", "\n"),
                               "--tensorboard-dir /lustre/fsw/llm/tensorboard/gpt",
                               "--tensorboard-dir /lustre/fsw/llm/tensorboard/gpt  # megatriage: disable=lint.no-cd-worktree");
    CHECK(suppressed(lint(s)) == V{std::to_string(kLauncherLine) + " lint.no-cd-worktree off"});
  }
  SUBCASE("--disable") {
    LintOptions o;
    o.check_filesystem = false;
    o.texts = &test::repo_matcher().tables().lint_rules;
    o.disabled = {id};
    CHECK(suppressed(lint_script(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1"), o)) ==
          V{"22 " + id + " off"});
  }
  SUBCASE("suppressed findings are not shown and are counted apart") {
    std::vector<LintFinding> f = lint(with(kTemplate, comment, "export CUDA_DEVICE_MAX_CONNECTIONS=1  # megatriage: disable=" + id));
    CHECK(render_lint("job.sbatch", f).empty());
    LintTally t;
    t.add(f);
    CHECK(render_lint_summary(t) == "1 script, 1 finding (1 suppressed)\n");
    CHECK(t.failing() == 0);
    t.add({});
    CHECK(render_lint_summary(t) == "2 scripts, 1 finding (1 suppressed)\n");
  }
}

TEST_CASE("lint: summary line") {
  LintTally t;
  t.add({});
  t.add({});
  CHECK(render_lint_summary(t) == "2 scripts, 0 findings\n");
  LintFinding note{3, "lint.cuda-device-max-connections", "w", "f", true, false};
  LintFinding finding{4, "lint.bare-torchrun", "w", "f", false, false};
  t.add({note, finding});
  t.not_linted = 1;
  CHECK(render_lint_summary(t) == "3 scripts, 1 finding, 1 note, 1 path not linted\n");
  CHECK(t.failing() == 1);
  CHECK(render_lint("a", {note}) == "a:3: note: lint.cuda-device-max-connections: w\n  fix: f\n");
}

TEST_CASE("lint: node-local-path") {
  const std::string rule = " lint.node-local-path";
  CHECK(ids(with(kTemplate, "--output=logs/%x-%j.out", "--output=/tmp/%x-%j.out")) ==
        V{"9" + rule});
  CHECK(ids(with(kTemplate, "#SBATCH --error=logs/%x-%j.err", "#SBATCH -e /dev/shm/%j.err")) ==
        V{"10" + rule});
  const std::string line = std::to_string(kLauncherLine) + rule;
  CHECK(ids(with(kTemplate, "--save /lustre/fsw/llm/checkpoints/gpt", "--save ${TMPDIR}/ckpt")) ==
        V{line});
  CHECK(ids(with(kTemplate, "--save /lustre/fsw/llm/checkpoints/gpt",
                 "--save=/local_nvme/ckpt")) == V{line});
  CHECK(ids(with(kTemplate, "--tensorboard-dir /lustre/fsw/llm/tensorboard/gpt",
                 "--tensorboard-dir /tmp/tb")) == V{line});
  SUBCASE("through a variable, an ARGS string, a redirection, tee and mkdir") {
    std::string s =
        with(kTemplate, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=8\nCKPT=/tmp/$USER/ckpt");
    CHECK(ids(with(s, "--save /lustre/fsw/llm/checkpoints/gpt", "--save $CKPT")) ==
          V{std::to_string(kLauncherLine + 1) + rule});
    CHECK(ids(kTemplate + "EXTRA=\"--log-dir /dev/shm/logs --eval-iters 1\"\n") ==
          V{"38" + rule});
    CHECK(ids(with(kTemplate, "pretrain_gpt.py \\",
                   "pretrain_gpt.py > /tmp/train.log 2>&1 \\")) == V{line});
    CHECK(ids(with(kTemplate, "pretrain_gpt.py \\", "pretrain_gpt.py &>$TMPDIR/train.log \\")) ==
          V{line});
    CHECK(ids(kTemplate + "echo done | tee -a /tmp/status.txt\n") == V{"38" + rule});
    CHECK(ids(kTemplate + "mkdir -p /tmp/$USER/logs\n") == V{"38" + rule});
  }
  SUBCASE("shared and harmless paths") {
    CHECK(ids(kTemplate + "mkdir -p /tmp/triton-cache\n") == V{});
    CHECK(ids(kTemplate + "echo start >/dev/null 2>&1\n") == V{});
    CHECK(ids(kTemplate + "echo start > /tmpfs-shared/x.log\n") == V{});
    CHECK(ids(with(kTemplate, "--save /lustre/fsw/llm/checkpoints/gpt", "--load /tmp/base")) ==
          V{});
  }
}

TEST_CASE("lint: no-venv looks at the cd target on disk") {
  // The only check that reads the file system; the directory is private to this process.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec) / ("megatriage-lint-" + std::to_string(::getpid()));
  fs::create_directories(dir, ec);
  REQUIRE_FALSE(ec);
  std::string s = with(kTemplate, "cd /lustre/fsw/llm/megatron-lm", "cd " + dir.string());
  auto f = lint(s, true);
  REQUIRE(f.size() == 1);
  CHECK(f[0].rule == "lint.no-venv");
  CHECK(f[0].line == kCdLine);
  CHECK(f[0].fix.find("cd " + dir.string() + " && uv sync") != std::string::npos);
  CHECK(ids(s, false) == V{});  // check_filesystem off
  SUBCASE("through a variable") {
    CHECK(ids(with(s, "cd " + dir.string(), "WT=" + dir.string() + "\ncd \"$WT\""), true) ==
          V{std::to_string(kCdLine + 1) + " lint.no-venv"});
  }
  fs::create_directory(dir / ".venv", ec);
  CHECK(ids(s, true) == V{});
  fs::remove_all(dir, ec);
}

TEST_CASE("lint: continuation lines keep the first line's number") {
  std::string s =
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gpus-per-node=8\ncd /w\n"
      "export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n1)\n"
      "srun --ntasks-per-node=1 \\\n  torchrun \\\n   --nnodes=2 \\\n"
      "   --nproc-per-node=4 \\\n   --node-rank=$SLURM_NODEID --master-addr=$MASTER_ADDR \\\n"
      "   --master-port=29500 train.py\n";
  CHECK(ids(s) == V{"6 lint.bare-torchrun", "6 lint.nproc-vs-gpus"});
  SUBCASE("CRLF line ends") {
    std::string crlf;
    for (char c : s) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    CHECK(ids(crlf) == V{"6 lint.bare-torchrun", "6 lint.nproc-vs-gpus"});
  }
}

TEST_CASE("lint: bash -c bodies, one-liners and here-documents") {
  std::string s =
      "#!/bin/bash\n#SBATCH --nodes=2\n"
      "srun --ntasks-per-node=1 bash -c \"cd /w && torchrun --nnodes=2 "
      "--nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=$MASTER_ADDR:29500 t.py\"\n";
  CHECK(ids(s) == V{"3 lint.bare-torchrun"});
  SUBCASE("a here-document is data, not commands") {
    CHECK(ids("#!/bin/bash\ncat > cfg.sh <<'EOF'\ntorchrun --nnodes=1 t.py\nEOF\necho ok\n") ==
          V{});
  }
  SUBCASE("bash -lc and sh -c are bodies too") {
    CHECK(ids(with(s, "bash -c", "bash -lc")) == V{"3 lint.bare-torchrun"});
    CHECK(ids(with(s, "bash -c", "sh -c")) == V{"3 lint.bare-torchrun"});
  }
}

TEST_CASE("lint: garbage and cut-off scripts do not crash") {
  for (const char* s : {"", "\\", "'", "\"", "$(", "${", "`", "srun bash -c '", "#SBATCH",
                        "#SBATCH --nodes", "srun -n", "torchrun --nproc-per-node", "cat <<",
                        "export MASTER_ADDR=", "fi\ndone\nesac\n", "srun bash -c", "\0\xff\n"}) {
    CAPTURE(s);
    CHECK_NOTHROW(lint(s, true));
  }
}

TEST_CASE("lint: the findings' words come from the lint_rules table, a missing variant is named") {
  const std::string script = "#!/bin/bash\n#SBATCH --nodes=2\nexport MASTER_ADDR=localhost\n";
  LintOptions o;
  o.check_filesystem = false;
  // The repository's words, with the script's value filled in.
  o.texts = &test::repo_matcher().tables().lint_rules;
  auto found = lint_script(script, o);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rule == "lint.master-addr");
  CHECK(found[0].why.rfind("MASTER_ADDR is localhost: every node", 0) == 0);
  // A site's override rewords it; the decision (rule, line) is the same.
  std::vector<LintRuleEntry> site = test::repo_matcher().tables().lint_rules;
  for (LintRuleEntry& e : site)
    if (e.id == "lint.master-addr") e.variants = {LintText{"localhost", "{value} is this node only", "ask ops"}};
  o.texts = &site;
  found = lint_script(script, o);
  REQUIRE(found.size() == 1);
  CHECK(found[0].line == 3);
  CHECK(found[0].why == "localhost is this node only");
  CHECK(found[0].fix == "ask ops");
  // The variant gone (or no table at all): still one finding, whose words say what is missing.
  site.clear();
  const std::vector<LintRuleEntry>* const tables[] = {&site, nullptr};
  for (const std::vector<LintRuleEntry>* table : tables) {
    o.texts = table;
    found = lint_script(script, o);
    REQUIRE(found.size() == 1);
    CHECK(found[0].rule == "lint.master-addr");
    CHECK(found[0].why == "the rules in use have no words for variant 'localhost' of lint.master-addr");
  }
}

TEST_CASE("lint: render") {
  std::vector<LintFinding> f{{0, "lint.x", "whole script", "do it"},
                             {7, "lint.y", "why", "first\nsecond"}};
  CHECK(render_lint("run.sbatch", f) ==
        "run.sbatch: lint.x: whole script\n  fix: do it\n"
        "run.sbatch:7: lint.y: why\n  fix: first\n       second\n");
  CHECK(render_lint("run.sbatch", {}) == "");
}
}
