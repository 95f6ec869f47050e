// fact_registry: known keys carry their type and merge policies; unknown keys fall back to
// text kept first; booleans parse in the spellings logs use.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "extract/extract.h"
#include "extract/megatron_config.h"
#include "input/reader.h"
#include "model/fact_registry.h"
#include "support/repo_rules.h"

using namespace megatriage;

TEST_SUITE("fact_registry") {
TEST_CASE("fact_registry: keys are unique, sorted, and each names a type and two merge policies") {
  std::set<std::string> seen;
  std::string previous;
  for (const FactSpec* s = fact_specs_begin(); s != fact_specs_end(); ++s) {
    CAPTURE(s->key);
    CHECK(seen.insert(std::string(s->key)).second);
    CHECK(previous < std::string(s->key));
    previous = std::string(s->key);
    CHECK(std::string(fact_type_name(s->type)) != "");
    CHECK(std::string(fact_merge_name(s->in_file)) != "");
    // Lookup finds every listed key as itself.
    REQUIRE(find_fact(s->key));
    CHECK(find_fact(s->key)->key == s->key);
  }
  CHECK(seen.size() > 40);
}

TEST_CASE("fact_registry: the report's JSON Schema types every known fact as the registry does") {
  // schema/report.schema.json is written by hand: a key added here must be added there too.
  std::ifstream in(MEGATRIAGE_SOURCE_SCHEMA_DIR "/report.schema.json");
  REQUIRE(in);
  const nlohmann::json schema = nlohmann::json::parse(in);
  const nlohmann::json& facts =
      schema["properties"]["root_cause"]["oneOf"][0]["properties"]["facts"]["properties"];
  CHECK(facts.size() == static_cast<std::size_t>(fact_specs_end() - fact_specs_begin()));
  for (const FactSpec* s = fact_specs_begin(); s != fact_specs_end(); ++s) {
    CAPTURE(s->key);
    REQUIRE(facts.contains(std::string(s->key)));
    const nlohmann::json& type = facts[std::string(s->key)]["type"];
    // A value that does not read as its type stays the string it was printed as.
    const char* json_type = s->type == FactType::Int     ? "integer"
                            : s->type == FactType::Float ? "number"
                            : s->type == FactType::Bool  ? "boolean"
                            : s->type == FactType::List  ? "array"
                                                         : "string";
    if (s->type == FactType::Text) {
      CHECK(type == "string");
    } else {
      CHECK(type == nlohmann::json::array({json_type, "string"}));
    }
  }
}

TEST_CASE("fact_registry: types of representative keys") {
  CHECK(fact_spec("tensor_model_parallel_size").type == FactType::Int);
  CHECK(fact_spec("peak_allocated_mb").type == FactType::Float);
  CHECK(fact_spec("use_torch_fsdp2").type == FactType::Bool);
  CHECK(fact_spec("master_addr").type == FactType::Text);
  CHECK(fact_spec("data_path").type == FactType::List);
}

TEST_CASE("fact_registry: each merge policy, within a file and across files") {
  SUBCASE("first: configuration") {
    CHECK(fact_spec("micro_batch_size").in_file == FactMerge::First);
    CHECK(fact_spec("micro_batch_size").across_files == FactMerge::First);
  }
  SUBCASE("latest in a file, furthest across the job: progress") {
    CHECK(fact_spec("last_iteration").in_file == FactMerge::Latest);
    CHECK(fact_spec("last_iteration").across_files == FactMerge::Max);
    CHECK(fact_spec("lm_loss").in_file == FactMerge::Latest);
  }
  SUBCASE("max per rank: memory peaks") {
    CHECK(fact_spec("peak_allocated_mb").in_file == FactMerge::MaxPerRank);
    CHECK(fact_spec("peak_allocated_mb").across_files == FactMerge::MaxPerRank);
    CHECK(fact_spec("max_reserved_mb").in_file == FactMerge::MaxPerRank);
  }
  SUBCASE("launch variants: what each node was launched with") {
    for (const char* k : {"master_addr", "master_port", "nnodes", "nproc_per_node", "world_size_env"}) {
      CAPTURE(k);
      CHECK(fact_spec(k).across_files == FactMerge::LaunchVariants);
    }
  }
  SUBCASE("per process: a rank's own number says nothing about the job") {
    CHECK(fact_spec("rank").across_files == FactMerge::PerProcess);
    CHECK(fact_spec("local_rank").across_files == FactMerge::PerProcess);
  }
}

TEST_CASE("fact_registry: an unknown key is text kept first, and find_fact says it is unknown") {
  CHECK_FALSE(find_fact("no_such_fact"));
  CHECK_FALSE(find_fact(""));
  FactSpec s = fact_spec("no_such_fact");
  CHECK(s.key == "no_such_fact");
  CHECK(s.type == FactType::Text);
  CHECK(s.in_file == FactMerge::First);
  CHECK(s.across_files == FactMerge::First);
}

TEST_CASE("fact_registry: booleans as Python, shells and JSON print them") {
  CHECK(parse_fact_bool("True") == true);
  CHECK(parse_fact_bool("true") == true);
  CHECK(parse_fact_bool("1") == true);
  CHECK(parse_fact_bool("False") == false);
  CHECK(parse_fact_bool("0") == false);
  CHECK_FALSE(parse_fact_bool("yes"));
  CHECK_FALSE(parse_fact_bool("None"));
  CHECK(fact_value_unset("None"));
  CHECK_FALSE(fact_value_unset("none"));
  CHECK_FALSE(fact_value_unset("0"));
}

TEST_CASE("fact_registry: every key the configuration extractor emits is known") {
  // One line of each kind the extractor reads (megatron_config_test has the variants), and a
  // dump listing every key it keeps: a new key must get a type and a merge policy here.
  std::vector<std::string> lines = {
      "------------------------ arguments ------------------------"};
  for (const char* k : {"world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size",
                        "context_parallel_size", "data_parallel_size", "expert_model_parallel_size",
                        "expert_tensor_parallel_size", "virtual_pipeline_model_parallel_size",
                        "micro_batch_size", "global_batch_size", "seq_length", "num_attention_heads",
                        "num_query_groups", "num_layers", "hidden_size", "ffn_hidden_size", "num_experts",
                        "sequence_parallel", "use_torch_fsdp2", "use_megatron_fsdp", "use_custom_fsdp",
                        "data_parallel_sharding_strategy", "overlap_moe_expert_parallel_comm",
                        "use_distributed_optimizer", "recompute_granularity", "train_iters",
                        "distributed_timeout_minutes", "bf16", "fp16", "save", "load", "tensorboard_dir",
                        "data_path", "rank", "local_rank"}) {
    std::string name = k;
    lines.push_back("  " + name + " " + std::string(name.size() < 48 ? 48 - name.size() : 0, '.') + " 7");
  }
  lines.insert(lines.end(), {
      "-------------------- end of arguments ---------------------",
      "setting global batch size to 8",
      "setting number of micro-batches to constant 64",
      "> initializing torch distributed with 4 workers ...",
      " [2024-05-01 12:00:00] iteration      100/   10000 | consumed samples:        25600 | "
      "global batch size:   256 | lm loss: 2.345678E+00 | loss scale: 1.0 |",
      "[Rank 12] (after 10 iterations) memory (MB) | allocated: 51234.12 | max allocated: 70321.55 | "
      "reserved: 72000.00 | max reserved: 72000.00",
      "Theoretical memory footprints: weight and optimizer=12345.67 MB, activation=2345.67 MB, "
      "total=14691.34 MB",
      "MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2 NODELIST=node[1-2]",
      "WORLD_SIZE=16 GPUS_PER_NODE=8 NODE_RANK=1 NPROC_PER_NODE=8",
      "CUDA_DEVICE_MAX_CONNECTIONS=1",
      "GPU 0: NVIDIA H200 (UUID: GPU-5c0a2c1e-1111-2222-3333-444455556666)",
      "CUDA capability sm_90",
  });
  ConfigExtractor x;
  std::vector<Fact> facts;
  for (std::size_t i = 0; i < lines.size(); ++i) x.feed(lines[i], i + 1, -1, facts);
  std::set<std::string> keys;
  for (const Fact& f : facts) keys.insert(f.key);
  CHECK(keys.size() >= 50);
  for (const std::string& k : keys) {
    CAPTURE(k);
    CHECK(find_fact(k));
  }
}

TEST_CASE("fact_registry: one file's repeated facts merge as the registry says (keep_facts)") {
  const std::string text =
      "------------------------ arguments ------------------------\n"
      "  micro_batch_size ................................ 4\n"
      "-------------------- end of arguments ---------------------\n"
      "setting global batch size to 8\n"
      "setting global batch size to 16\n"
      " iteration        1/      12 | consumed samples:           32 | lm loss: 6.4E+00 |\n"
      "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1.0 | max allocated: 180.53 | reserved: 2.0 | max reserved: 220.00\n"
      "[Rank 1] (after 1 iterations) memory (MB) | allocated: 1.0 | max allocated: 90.00 | reserved: 2.0 | max reserved: 100.00\n"
      " iteration        3/      12 | consumed samples:           96 | lm loss: 5.1E+00 |\n"
      "[Rank 0] (after 3 iterations) memory (MB) | allocated: 1.0 | max allocated: 150.00 | reserved: 2.0 | max reserved: 230.00\n";
  SourceFile file;
  file.path = file.display_path = "logs/x.out";
  DiagnosticSink diags;
  auto source = memory_source(text, Compression::None, file.path, diags);
  FileResult r = analyze_source(file, *source, test::repo_matcher(), AnalyzeOptions{}, diags);
  auto values = [&](const std::string& key) {
    std::vector<std::string> out;
    for (const Fact& f : r.facts)
      if (f.key == key) out.push_back(f.value + (f.rank >= 0 ? "@r" + std::to_string(f.rank) : ""));
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(values("micro_batch_size") == V{"4"});                      // first
  CHECK(values("global_batch_size") == V{"8"});                     // first
  CHECK(values("last_iteration") == V{"3"});                        // latest
  CHECK(values("lm_loss") == V{"5.1E+00"});                         // latest
  CHECK(values("peak_allocated_mb") == V{"180.53@r0", "90.00@r1"}); // max per rank
  CHECK(values("max_reserved_mb") == V{"230.00@r0", "100.00@r1"});
}
}
