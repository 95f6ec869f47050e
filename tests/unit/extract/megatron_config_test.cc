#include "extract/megatron_config.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/facts.h"

namespace megatriage {
namespace {

// `key=value` (plus `@rN` when the fact carries a rank), joined with "; ".
std::string to_debug_string(const std::vector<Fact>& facts) {
  std::string s;
  for (const Fact& f : facts) {
    if (!s.empty()) s += "; ";
    s += f.key;
    s += '=';
    s += f.value;
    if (f.rank >= 0) s += "@r" + std::to_string(f.rank);
  }
  return s;
}

struct Row {
  std::string_view input;
  std::string_view expected;  // to_debug_string of the facts; "" = no facts
};

// Feeds each row to a fresh extractor (rank unknown) and compares the facts.
template <std::size_t N>
void check_feed_rows(const Row (&rows)[N]) {
  for (const Row& row : rows) {
    CAPTURE(row.input);
    ConfigExtractor x;
    std::vector<Fact> out;
    x.feed(row.input, 7, -1, out);
    CHECK(to_debug_string(out) == row.expected);
    for (const Fact& f : out) CHECK(f.line == 7);
  }
}

// Feeds a multi-line text (one body per line, numbered from 1) to one extractor.
std::vector<Fact> feed_text(std::string_view text, int rank = -1) {
  ConfigExtractor x;
  std::vector<Fact> out;
  std::uint64_t line = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view body = text.substr(0, nl);
    x.feed(body, ++line, rank, out);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// Real lines from fixtures/megatron-none-1gpu/logs/megatron-4730.out (megatron.core 0.20.0):
// the header, a selection of the arguments dump (wanted keys, unwanted neighbours, the 51- and
// 48-char names without dots, a list value), the startup prints and two training iterations.
constexpr std::string_view kExcerpt4730 = R"(> PyTorch version ................ 2.11.0+cu130
> Megatron-Core version .......... 0.20.0
> Transformer Engine version ... 0.0.0
using world size: 1, data-parallel size: 1, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 1, pipeline-model-parallel size: 1
Number of virtual stages per pipeline stage: None
accumulate and all-reduce gradients in fp32 for bfloat16 data type.
using torch.bfloat16 for parameters ...
------------------------ arguments ------------------------
  _is_global_batch_size_explicitly_specified ...... True
  bf16 ............................................ True
  context_parallel_size ........................... 1
  cp_comm_type .................................... ['p2p']
  data_parallel_size .............................. 1
  data_path ....................................... None
  ddp_param_name_patterns_for_fp32_local_accumulation  []
  global_batch_size ............................... 8
  micro_batch_size ................................ 4
  microbatch_group_size_per_vp_stage .............. None
  num_attention_heads ............................. 4
  pipeline_model_parallel_size .................... 1
  rank ............................................ 0
  recompute_granularity ........................... None
  seq_length ...................................... 512
  sequence_parallel ............................... False
  tensor_model_parallel_size ...................... 1
  tokenizer_sentencepiece_ignore_extra_whitespaces  True
  world_size ...................................... 1
  yarn_original_max_position_embeddings ........... None
-------------------- end of arguments ---------------------
INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant 2
INFO:megatron.core.tokenizers.utils.build_tokenizer: > padded vocab (size: 1024) with 0 dummy tokens (new size: 1024)
WARNING:megatron.core.rerun_state_machine:RerunStateMachine initialized in mode RerunMode.VALIDATE_RESULTS
> initializing torch distributed ...
> initialized tensor model parallel with size 1
> initialized gtp weight remat with size 1
> initialized pipeline model parallel with size 1
> setting random seeds to 1234 ...
vm:644:644 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so
vm:644:644 [0] NCCL INFO Channel 04/64 : 0
    model-and-optimizer-setup ......................: (75.28, 75.28)
training ...
 [2026-11-29 15:40:06.551313] iteration        1/      20 | consumed samples:            8 | elapsed time per iteration (ms): 868.4 | learning rate: 5.000000E-05 | global batch size:     8 | lm loss: 6.978727E+00 | loss scale: 1.0 | grad norm: 1.067 | number of skipped iterations:   0 | number of nan iterations:   0 |
Theoretical memory footprints: weight and optimizer=31.54 MB, activation=41.49 MB, total=73.04 MB

[Rank 0] (after 1 iterations) memory (MB) | allocated: 105.88 | max allocated: 180.53 | reserved: 220.00 | max reserved: 220.00
 [2026-11-29 15:40:06.617284] iteration        2/      20 | consumed samples:           16 | elapsed time per iteration (ms): 467.2 | learning rate: 1.000000E-04 | global batch size:     8 | lm loss: 6.977317E+00 | loss scale: 1.0 | grad norm: 1.051 | number of skipped iterations:   0 | number of nan iterations:   0 |
 validation loss at iteration 20 on validation set | lm loss value: 6.283173E+00 | lm loss PPL: 5.354851E+02 | )";

}  // namespace

TEST_SUITE("megatron_config") {

TEST_CASE("megatron_config: world-size line, every version shape") {
  const Row rows[] = {
      // ≤core_v0.8: no comma after the CP value, trailing space.
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1 tensor-model-parallel size: 4, pipeline-model-parallel size: 2 ",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      // core_v0.9: encoder sizes after the decoder ones.
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1, tensor-model-parallel size: 4, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 2, encoder-pipeline-model-parallel size: 0",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      // core_v0.13 and ≥core_v0.14.
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 4, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 2, encoder-pipeline-model-parallel size: 0",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      // megatron.core 0.20.0, as printed in fixtures/megatron-shape-tp-heads-pernode.
      {"using world size: 2, data-parallel size: 1, context-parallel size: 1, hierarchical context-parallel sizes: None, tensor-model-parallel size: 2, pipeline-model-parallel size: 1",
       "world_size=2; data_parallel_size=1; context_parallel_size=1; tensor_model_parallel_size=2; pipeline_model_parallel_size=1"},
      // Before context parallelism (2022-23 Megatron-LM): `data-parallel-size`.
      {"using world size: 8, data-parallel-size: 1, tensor-model-parallel size: 8, pipeline-model-parallel size: 1 ",
       "world_size=8; data_parallel_size=1; tensor_model_parallel_size=8; pipeline_model_parallel_size=1"},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: world-size line, core_r0.10 glued separator") {
  const Row rows[] = {
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1, hierarchical context-parallel sizes: Nonetensor-model-parallel size: 4, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 2, encoder-pipeline-model-parallel size: 0",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      // r0.10 branch without encoder sizes and with a trailing `, `.
      {"using world size: 16, data-parallel size: 2, context-parallel size: 1, hierarchical context-parallel sizes: Nonetensor-model-parallel size: 4, pipeline-model-parallel size: 2, ",
       "world_size=16; data_parallel_size=2; context_parallel_size=1; tensor_model_parallel_size=4; pipeline_model_parallel_size=2"},
      // Hierarchical sizes given: the list is glued instead of None.
      {"using world size: 64, data-parallel size: 1, context-parallel size: 8, hierarchical context-parallel sizes: [2, 4]tensor-model-parallel size: 8, encoder-tensor-model-parallel size: 0, pipeline-model-parallel size: 1, encoder-pipeline-model-parallel size: 0",
       "world_size=64; data_parallel_size=1; context_parallel_size=8; tensor_model_parallel_size=8; pipeline_model_parallel_size=1"},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: parse_world_size_line returns the facts or false") {
  std::vector<Fact> out;
  CHECK(parse_world_size_line(
      "using world size: 4, data-parallel size: 4, context-parallel size: 1, hierarchical "
      "context-parallel sizes: None, tensor-model-parallel size: 1, pipeline-model-parallel size: 1",
      out));
  CHECK(to_debug_string(out) ==
        "world_size=4; data_parallel_size=4; context_parallel_size=1; "
        "tensor_model_parallel_size=1; pipeline_model_parallel_size=1");
  for (const Fact& f : out) {
    CHECK(f.line == 0);
    CHECK(f.rank == -1);
  }

  const std::string_view rejects[] = {
      "using world size: abc, data-parallel size: 2, tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
      "using world size: 16, garbage",
      "using world size: 16x, data-parallel size: 2, tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
      "using world size: 16, data-parallel size: two, tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
      "using world size: 16, data-parallel size: 2, encoder-tensor-model-parallel size: 4, pipeline-model-parallel size: 2",
      "using world size: ",
      "using world size:",
      "using torch.bfloat16 for parameters ...",
      "",
  };
  for (std::string_view input : rejects) {
    CAPTURE(input);
    std::vector<Fact> none;
    CHECK_FALSE(parse_world_size_line(input, none));
    CHECK(none.empty());
  }
}

TEST_CASE("megatron_config: args-dump lines from the fixtures") {
  struct DumpRow {
    std::string_view input, key, value;
  };
  const DumpRow rows[] = {
      {"  adam_beta1 ...................................... 0.9", "adam_beta1", "0.9"},
      {"  bf16 ............................................ True", "bf16", "True"},
      {"  data_path ....................................... None", "data_path", "None"},
      {"  cp_comm_type .................................... ['p2p']", "cp_comm_type", "['p2p']"},
      {"  cuda_graph_modules .............................. []", "cuda_graph_modules", "[]"},
      {"  data_parallel_sharding_strategy ................. optim_grads_params",
       "data_parallel_sharding_strategy", "optim_grads_params"},
      {"  _is_global_batch_size_explicitly_specified ...... True",
       "_is_global_batch_size_explicitly_specified", "True"},
      // Names of 48+ chars: no dots, two spaces.
      {"  ddp_param_name_patterns_for_fp32_local_accumulation  []",
       "ddp_param_name_patterns_for_fp32_local_accumulation", "[]"},
      {"  tokenizer_sentencepiece_ignore_extra_whitespaces  True",
       "tokenizer_sentencepiece_ignore_extra_whitespaces", "True"},
      {"  inference_dynamic_batching_cuda_graph_sizing_distribution  exponential",
       "inference_dynamic_batching_cuda_graph_sizing_distribution", "exponential"},
      // Value shapes from the reference: lists with spaces, blends, trailing blanks.
      {"  adam_betas ...................................... [0.9, 0.95]", "adam_betas", "[0.9, 0.95]"},
      {"  data_path ....................................... ['0.5', '/data/a_text_document', '0.5', '/data/b']",
       "data_path", "['0.5', '/data/a_text_document', '0.5', '/data/b']"},
      {"  world_size ...................................... 128  \r", "world_size", "128"},
      // Empty string value: Python prints nothing after the dots.
      {"  wandb_project ................................... ", "wandb_project", ""},
      {"  a ............................................... 1", "a", "1"},
  };
  for (const DumpRow& row : rows) {
    CAPTURE(row.input);
    std::string key, value;
    REQUIRE(parse_args_dump_line(row.input, key, value));
    CHECK(key == row.key);
    CHECK(value == row.value);
  }

  const std::string_view rejects[] = {
      "------------------------ arguments ------------------------",
      "-------------------- end of arguments ---------------------",
      R"(  File "x", line 3, in f)",
      R"(  File "/ws/megatron/training/training.py", line 386, in pretrain)",
      "    model-and-optimizer-setup ......................: (75.28, 75.28)",
      "    train/valid/test-data-iterators-setup ..........: (133.97, 133.97)",
      "> PyTorch version ................ 2.11.0+cu130",
      "vm:644:644 [0] NCCL INFO Channel 04/64 : 0",
      "  bf16 ...x True",
      "  bf16 True",
      "  bf16",
      "   bf16 ............................................ True",
      "  ",
      "",
  };
  for (std::string_view input : rejects) {
    CAPTURE(input);
    std::string key, value;
    CHECK_FALSE(parse_args_dump_line(input, key, value));
  }
}

TEST_CASE("megatron_config: feed over a real megatron-4730 excerpt") {
  std::vector<Fact> facts = feed_text(kExcerpt4730);
  CHECK(to_debug_string(facts) ==
        "world_size=1; data_parallel_size=1; context_parallel_size=1; "
        "tensor_model_parallel_size=1; pipeline_model_parallel_size=1; "
        // the dump: wanted keys only, in printed order
        "bf16=True; context_parallel_size=1; data_parallel_size=1; data_path=None; "
        "global_batch_size=8; micro_batch_size=4; num_attention_heads=4; "
        "pipeline_model_parallel_size=1; rank=0; recompute_granularity=None; seq_length=512; "
        "sequence_parallel=False; tensor_model_parallel_size=1; world_size=1; args_dump_seen=1; "
        "num_microbatches=2; tensor_model_parallel_size=1; pipeline_model_parallel_size=1; "
        "last_iteration=1; train_iters_total=20; global_batch_size=8; lm_loss=6.978727E+00; "
        "theoretical_total_mb=73.04; "
        "peak_allocated_mb=180.53@r0; max_reserved_mb=220.00@r0; "
        "last_iteration=2; train_iters_total=20; global_batch_size=8; lm_loss=6.977317E+00");
  // Line numbers are the excerpt's: the world-size line is line 4, the end banner line 29.
  REQUIRE(facts.size() > 6);
  CHECK(facts[0].line == 4);
  for (const Fact& f : facts) {
    if (f.key == "args_dump_seen") CHECK(f.line == 29);
  }
}

TEST_CASE("megatron_config: the stream rank is attached, the memory report's own rank wins") {
  std::vector<Fact> facts = feed_text(
      "------------------------ arguments ------------------------\n"
      "  micro_batch_size ................................ 2\n"
      "-------------------- end of arguments ---------------------\n"
      "[Rank 12] (after 10 iterations) memory (MB) | allocated: 51234.12 | max allocated: "
      "70321.55 | reserved: 72000.00 | max reserved: 72000.00",
      3);
  CHECK(to_debug_string(facts) ==
        "micro_batch_size=2@r3; args_dump_seen=1@r3; peak_allocated_mb=70321.55@r12; "
        "max_reserved_mb=72000.00@r12");
}

TEST_CASE("megatron_config: dump-looking lines outside a dump give nothing") {
  std::vector<Fact> facts = feed_text(
      "  world_size ...................................... 128\n"
      "  tensor_model_parallel_size ...................... 8\n"
      "    model-and-optimizer-setup ......................: (75.28, 75.28)\n"
      "------------------------ arguments ------------------------\n"
      "  micro_batch_size ................................ 2\n"
      "-------------------- end of arguments ---------------------\n"
      "  micro_batch_size ................................ 4\n"
      "-------------------- end of arguments ---------------------\n"
      "------------------------------------------------------------------------------------\n"
      "  global_batch_size ............................... 512\n");
  // The second end banner has no dump open, so no second args_dump_seen.
  CHECK(to_debug_string(facts) == "micro_batch_size=2; args_dump_seen=1");
}

TEST_CASE("megatron_config: a dump without its end banner is closed after a gap") {
  std::string text = "------------------------ arguments ------------------------\n"
                     "  micro_batch_size ................................ 2\n";
  for (int i = 0; i < 100; ++i) text += "vm:644:644 [0] NCCL INFO Channel 04/64 : 0\n";
  text += "  micro_batch_size ................................ 4\n";
  CHECK(to_debug_string(feed_text(text)) == "micro_batch_size=2");

  // A few foreign lines inside the dump do not close it.
  std::string interleaved = "------------------------ arguments ------------------------\n"
                            "  micro_batch_size ................................ 2\n"
                            "vm:644:644 [0] NCCL INFO Channel 04/64 : 0\n"
                            "  seq_length ...................................... 4096\n"
                            "-------------------- end of arguments ---------------------\n";
  CHECK(to_debug_string(feed_text(interleaved)) ==
        "micro_batch_size=2; seq_length=4096; args_dump_seen=1");
}

TEST_CASE("megatron_config: every wanted dump key, and only those") {
  const char* const wanted[] = {
      "world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size",
      "context_parallel_size", "data_parallel_size", "expert_model_parallel_size",
      "expert_tensor_parallel_size", "virtual_pipeline_model_parallel_size", "micro_batch_size",
      "global_batch_size", "seq_length", "num_attention_heads", "num_query_groups", "num_layers",
      "hidden_size", "ffn_hidden_size", "num_experts", "sequence_parallel", "use_torch_fsdp2",
      "use_megatron_fsdp", "use_custom_fsdp", "data_parallel_sharding_strategy",
      "overlap_moe_expert_parallel_comm", "use_distributed_optimizer", "recompute_granularity",
      "train_iters", "distributed_timeout_minutes", "bf16", "fp16", "save", "load",
      "tensorboard_dir", "data_path", "rank", "local_rank"};
  const char* const unwanted[] = {"adam_beta1", "max_position_embeddings", "rampup_batch_size",
                                  "world_size_x", "ranks", "seq_len", "lr"};
  for (const char* k : wanted) {
    CAPTURE(k);
    std::string name = k;
    std::string dump = "------------------------ arguments ------------------------\n  " + name +
                       " " + std::string(name.size() < 48 ? 48 - name.size() : 0, '.') +
                       " 7\n";
    CHECK(to_debug_string(feed_text(dump)) == name + "=7");
  }
  for (const char* k : unwanted) {
    CAPTURE(k);
    std::string name = k;
    std::string dump = "------------------------ arguments ------------------------\n  " + name +
                       " " + std::string(48 - name.size(), '.') + " 7\n";
    CHECK(feed_text(dump).empty());
  }
}

TEST_CASE("megatron_config: batch sizes, micro-batches and parallel-group prints") {
  const Row rows[] = {
      {"setting global batch size to 8", "global_batch_size=8"},
      {"setting number of micro-batches to constant 64", "num_microbatches=64"},
      {"INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant 64",
       "num_microbatches=64"},
      {"> initialized tensor model parallel with size 8", "tensor_model_parallel_size=8"},
      {"> initialized pipeline model parallel with size 4", "pipeline_model_parallel_size=4"},
      {"> initialized data parallel with size 4", "data_parallel_size=4"},
      {"> initializing torch distributed with 4 workers ...", "world_size=4"},
      // Seen in the same logs, but carry no fact.
      {"> initializing torch distributed ...", ""},
      {"> initialized gtp weight remat with size 1", ""},
      {"> setting random seeds to 1234 ...", ""},
      {"setting number of micro-batches to constant", ""},
      {"setting global batch size to eight", ""},
      {"INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to 64", ""},
      {"> initialized tensor model parallel with size 8x", ""},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: iteration lines, every stamp shape") {
  const Row rows[] = {
      // core ≤0.15: whole seconds.
      {" [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples:        25600 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 400.1 | learning rate: 3.000000E-04 | global batch size:   256 | lm loss: 2.345678E+00 | loss scale: 1.0 | grad norm: 0.345 | number of skipped iterations:   0 | number of nan iterations:   0 |",
       "last_iteration=100; train_iters_total=10000; global_batch_size=256; lm_loss=2.345678E+00"},
      // core ≥0.16: microseconds (fixtures/megatron-none-1gpu).
      {" [2026-11-29 15:40:07.154508] iteration       20/      20 | consumed samples:          160 | elapsed time per iteration (ms): 31.6 | learning rate: 1.000000E-05 | global batch size:     8 | lm loss: 6.369929E+00 | loss scale: 1.0 | grad norm: 1.036 | number of skipped iterations:   0 | number of nan iterations:   0 |",
       "last_iteration=20; train_iters_total=20; global_batch_size=8; lm_loss=6.369929E+00"},
      // No stamp, no global batch size (fixtures/slurm-*, after `[default0]:` was removed).
      {" iteration        1/      12 | consumed samples:           32 | elapsed time per iteration (ms): 578.7 | learning rate: 1.000E-04 | lm loss: 6.417805E+00 | number of skipped iterations:   0 |",
       "last_iteration=1; train_iters_total=12; lm_loss=6.417805E+00"},
      // Prefix stripping that also ate the leading space.
      {"iteration        3/      12 | consumed samples:           96 |",
       "last_iteration=3; train_iters_total=12"},
      // A NaN loss is printed as such and kept.
      {" [2024-05-01 12:00:00] iteration      7/   100 | lm loss: NAN | loss scale: 1.0 |",
       "last_iteration=7; train_iters_total=100; lm_loss=NAN"},
      // Losses in every shape a number can take, and what std::from_chars refuses: a value out
      // of range, a dangling exponent, a second point.
      {"iteration 1/9 | lm loss: -1.5 |", "last_iteration=1; train_iters_total=9; lm_loss=-1.5"},
      {"iteration 1/9 | lm loss: 7 |", "last_iteration=1; train_iters_total=9; lm_loss=7"},
      {"iteration 1/9 | lm loss: 2. |", "last_iteration=1; train_iters_total=9; lm_loss=2."},
      {"iteration 1/9 | lm loss: .25 |", "last_iteration=1; train_iters_total=9; lm_loss=.25"},
      {"iteration 1/9 | lm loss: 1e5 |", "last_iteration=1; train_iters_total=9; lm_loss=1e5"},
      {"iteration 1/9 | lm loss: 9.9E-99 |", "last_iteration=1; train_iters_total=9; lm_loss=9.9E-99"},
      {"iteration 1/9 | lm loss: 1.0E+400 |", "last_iteration=1; train_iters_total=9"},
      {"iteration 1/9 | lm loss: 1.0E+ |", "last_iteration=1; train_iters_total=9"},
      {"iteration 1/9 | lm loss: 1.0.2 |", "last_iteration=1; train_iters_total=9"},
      {"iteration 1/9 | lm loss: inf |", "last_iteration=1; train_iters_total=9; lm_loss=inf"},
      {"iteration 1/9 | lm loss: 123456789012345678901.5 |",  // past the shape's 20 digits
       "last_iteration=1; train_iters_total=9; lm_loss=123456789012345678901.5"},
      // A label at the very end, and one cut by the line's end.
      {"iteration 1/9 | lm loss:", "last_iteration=1; train_iters_total=9"},
      {"iteration 1/9 | lm los", "last_iteration=1; train_iters_total=9"},
      // The labels are found behind any `|`, also one glued to the field before.
      {"iteration 1/9 || lm loss: 3.0 |x| global batch size: 4 |", "last_iteration=1; train_iters_total=9; global_batch_size=4; lm_loss=3.0"},
      // Look-alikes.
      {" validation loss at iteration 20 on validation set | lm loss value: 6.283173E+00 | lm loss PPL: 5.354851E+02 | ",
       ""},
      {"Evaluating iter 1/1", ""},
      {"iteration 3/10 of warmup", ""},
      {" [2024-05-01 12:00:00] saving checkpoint at iteration     100 to /ckpt", ""},
      {"saving checkpoint at iteration      12 to checkpoints", ""},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: memory report and theoretical footprint") {
  const Row rows[] = {
      {"[Rank 12] (after 10 iterations) memory (MB) | allocated: 51234.12 | max allocated: 70321.55 | reserved: 72000.00 | max reserved: 72000.00",
       "peak_allocated_mb=70321.55@r12; max_reserved_mb=72000.00@r12"},
      {"[Rank 0] (after 1 iterations) memory (MB) | allocated: 105.88 | max allocated: 180.53 | reserved: 220.00 | max reserved: 220.00",
       "peak_allocated_mb=180.53@r0; max_reserved_mb=220.00@r0"},
      {"Theoretical memory footprints: weight and optimizer=12345.67 MB, activation=2345.67 MB, total=14691.34 MB",
       "theoretical_total_mb=14691.34"},
      {"Theoretical memory footprints: weight and optimizer=12345.67 MB", ""},
      {"[Rank 3] Watchdog caught collective operation timeout", ""},
      {"[Rank x] (after 10 iterations) memory (MB) | max allocated: 1.0", ""},
      {"[Rank 3] (after 10 iterations) memory (MB) | max allocated: lots", ""},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: launcher echoes") {
  const Row rows[] = {
      // fixtures/slurm-a1-exception-peer-reset/logs/gpt-tiny-25.out
      {"MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2 NODELIST=node[1-2]",
       "master_addr=node1; master_port=29510; nnodes=2; nodelist=node[1-2]"},
      {"WORLD_SIZE=16 GPUS_PER_NODE=8 NODE_RANK=1 NPROC_PER_NODE=8",
       "world_size_env=16; gpus_per_node=8; node_rank=1; nproc_per_node=8"},
      {"CUDA_DEVICE_MAX_CONNECTIONS=1", "cuda_device_max_connections=1"},
      {"SLURM_JOB_NODELIST=gpu[001-004,007]", "nodelist=gpu[001-004,007]"},
      {"+ export MASTER_ADDR=node01", "master_addr=node01"},
      {"++ NNODES=4", "nnodes=4"},
      {"export MASTER_PORT=6000", "master_port=6000"},
      {R"(Launching with MASTER_ADDR="10.0.0.1" MASTER_PORT='29500', NNODES=2;)",
       "master_addr=10.0.0.1; master_port=29500; nnodes=2"},
      // Not echoes of a value.
      {"MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)", ""},
      {"MY_MASTER_ADDR=node1 XNNODES=2", ""},
      {"MASTER_ADDR=", ""},
      {"START TIME: Sun Nov 29 15:54:12 UTC 2026", ""},
      // Lower-case first byte: the env gate does not look (see parse_startup_line).
      {"torchrun --master-addr=node1 --nnodes=2", ""},
      {"INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config DistributedDataParallelConfig(grad_reduce_in_fp32=True, use_distributed_optimizer=False)",
       ""},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: GPU model and compute capability") {
  const Row rows[] = {
      {"GPU 0: NVIDIA H200 (UUID: GPU-5c0a2c1e-1111-2222-3333-444455556666)", "gpu_model=H200"},
      {"|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |",
       "gpu_model=H100"},
      {"|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |",
       "gpu_model=A100"},
      {"|   0  Tesla V100-SXM2-32GB           On  | 00000000:06:00.0 Off |                    0 |",
       "gpu_model=V100"},
      {"GPU 3: NVIDIA B200 (UUID: GPU-0)", "gpu_model=B200"},
      {"GPU 0: NVIDIA GB200 (UUID: GPU-0)", "gpu_model=GB200"},
      {"GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-0)", "gpu_model=GeForce RTX 4090"},
      // Real lines from the fixtures.
      {"[node 0] initialized process group: rank 0/2 local_rank 0 on vm (NVIDIA H200)",
       "gpu_model=H200"},
      {"  device            = NVIDIA H200", "gpu_model=H200"},
      {"devices 2 ['NVIDIA H200', 'NVIDIA H200']", "gpu_model=H200"},
      {"0, NVIDIA H200, 580.159.04, 143771 MiB", "gpu_model=H200"},
      // Compute capability when the line pairs it with the GPU.
      {"GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0", "gpu_model=H100; compute_capability=9.0"},
      {"NVIDIA H200 with CUDA capability sm_90 is not compatible with the current PyTorch installation.",
       "gpu_model=H200; compute_capability=9.0"},
      {"Found GPU0 NVIDIA B200 which is of cuda capability 10.0.",
       "gpu_model=B200; compute_capability=10.0"},
      {"device NVIDIA H100 80GB HBM3 capability (9, 0)", "gpu_model=H100; compute_capability=9.0"},
      {"_CudaDeviceProperties(name='NVIDIA A100-SXM4-80GB', major=8, minor=0, total_memory=81050MB, multi_processor_count=108)",
       "gpu_model=A100; compute_capability=8.0"},
      {"GPU NVIDIA B200 arch sm_100a", "gpu_model=B200; compute_capability=10.0"},
      // Prose that mentions the vendor, and capability without a GPU.
      {"WARNING: one_logger package is required to enable e2e metrics tracking. please go to https://confluence.nvidia.com/display/MLWFO/Package+Repositories for details to install it",
       ""},
      {"00:04.0 3D controller: NVIDIA Corporation Device 2335 (rev a1)", ""},
      {"| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |",
       ""},
      {"Apex not found; NVIDIA Apex is optional", ""},
      {"compute capability 9.0", ""},
  };
  check_feed_rows(rows);
}

TEST_CASE("megatron_config: ordinary lines give nothing and do not disturb the state") {
  const std::string_view noise[] = {
      "vm:644:644 [0] NCCL INFO ncclCommInitRankConfig comm 0x38b3a5a0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 60 commId 0x5ee8c2e20ba8d20a - Init COMPLETE",
      "node02:8811:8811 [3] NCCL INFO Bootstrap : Using ib0:10.1.0.3<0>",
      "[2024-05-01 12:00:00] node01:1234:1290 [0] misc/socket.cc:484 NCCL WARN socket error",
      R"(  File "x", line 3, in f)",
      "Traceback (most recent call last):",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
      "using world size: lots, data-parallel size: 2",
      "using world size: 16, data-parallel size: 2, context-parallel size: 1, ??? garbage",
      "[after megatron is initialized] datetime: 2026-11-29 15:40:05.463640 ",
      " > number of parameters on (tensor, pipeline) model parallel rank (0, 1): 1234567",
      "\tmodule.decoder.final_layernorm.bias (param.main_grad.dtype=torch.float32)",
      "time to initialize megatron (seconds): 12.345",
      "-",
      "---",
      "[",
      "> ",
      " ",
      "",
  };
  ConfigExtractor x;
  std::vector<Fact> out;
  for (std::string_view line : noise) {
    CAPTURE(line);
    x.feed(line, 1, 0, out);
    CHECK(out.empty());
    CHECK_FALSE(x.in_args_dump());
  }
}

TEST_CASE("megatron_config: long values are capped") {
  std::string value = "['" + std::string(5000, 'a') + "']";
  std::vector<Fact> facts = feed_text(
      "------------------------ arguments ------------------------\n"
      "  data_path ....................................... " + value + "\n");
  REQUIRE(facts.size() == 1);
  CHECK(facts[0].value.size() == ConfigExtractor::kMaxFactValueBytes);
  CHECK(facts[0].value.substr(facts[0].value.size() - 3) == "...");
  CHECK(facts[0].value.substr(0, 4) == "['aa");
}

TEST_CASE("megatron_config: a trainer's logged progress dict, also glued to a tqdm bar") {
  CHECK(to_debug_string(feed_text("{'loss': 1.2345, 'grad_norm': 3.2, 'learning_rate': 1e-05, 'epoch': 0.12}\n")) ==
        "logged_progress=0.12");
  CHECK(to_debug_string(feed_text(" 10%|#   | 10/100 [00:10<01:30,  1.00it/s]{'eval_loss': 2.0, 'epoch': 1.0}\n")) ==
        "logged_progress=1.0");
  CHECK(to_debug_string(feed_text("{'train_runtime': 123.4, 'train_samples_per_second': 8.1}\n")) ==
        "logged_progress=yes");
  CHECK(feed_text("the loss is {'loss' without a value\n").empty());
  // Other braces before it, and two dicts on one line: the list's first head counts, and its
  // epoch is the one read (a later dict's, not an earlier one's).
  CHECK(to_debug_string(feed_text("{x} {'eval_loss': 2.0, 'epoch': 1.0} {'loss': 1.0, 'epoch': 2.0}\n")) ==
        "logged_progress=2.0");
  CHECK(to_debug_string(feed_text("{'epoch': 5} {{'loss': 1.0}\n")) == "logged_progress=yes");
}

}  // TEST_SUITE
}  // namespace megatriage
