// knowledge_tables: the tables in rules/ beside the rules (gpu_generations, oom_phases,
// lint_rules, slurm_states) load from the repository, a broken entry gives its `rules.*` diagnostic and is
// skipped, and a later rules directory overrides an entry by id in place.
#include "match/knowledge_tables.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "lint/gpu_generation.h"
#include "match/rules.h"

namespace megatriage {
namespace {

const Diagnostic* find_code(const DiagnosticSink& d, const std::string& code) {
  for (const auto& x : d.items())
    if (x.code == code) return &x;
  return nullptr;
}

// A file holding one table `key` with `entries` (raw JSON objects, comma-separated).
KnowledgeTables parse_table(const std::string& key, const std::string& entries, DiagnosticSink& d) {
  KnowledgeTables t;
  auto rules = parse_rules_text("{\"" + key + "\": [\n" + entries + "\n]}\n", "t.json", d, false, &t);
  CHECK(rules.empty());
  return t;
}

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& name) {
    path = std::filesystem::temp_directory_path() /
           ("megatriage-tables-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

}  // namespace

TEST_SUITE("knowledge_tables") {

TEST_CASE("knowledge_tables: the repository's tables load cleanly, in file order") {
  DiagnosticSink d;
  KnowledgeTables t;
  load_rules({default_rules_dir()}, d, 1, nullptr, &t);
  for (const auto& x : d.items()) FAIL_CHECK(x.message);
  REQUIRE(t.gpu_generations.size() == 4);
  CHECK(t.gpu_generations[0].generation == GpuGeneration::Blackwell);
  CHECK(t.gpu_generations[1].generation == GpuGeneration::Hopper);
  CHECK(t.gpu_generations[1].min_major == 9);
  CHECK(t.gpu_generations[1].source.find("gpus.json:") != std::string::npos);
  REQUIRE(t.oom_phases.size() == 5);
  CHECK(t.oom_phases[0].phase == "backward");
  CHECK(t.oom_phases[4].phase == "forward");
  CHECK(t.lint_rules.size() == 9);
  // Every cause the postmortem takes from sacct has its words, with a title and a headline.
  REQUIRE(t.slurm_states.size() == 5);
  for (std::string_view id : {slurm_state::kNodeFail, slurm_state::kOutOfMemory, slurm_state::kTimeout,
                              slurm_state::kCancelled, slurm_state::kFailed}) {
    CAPTURE(id);
    const SlurmStateEntry* e = find_slurm_state(t.slurm_states, id);
    REQUIRE(e != nullptr);
    CHECK_FALSE(e->title.empty());
    CHECK_FALSE(e->headline.empty());
    CHECK(e->source.find("slurm-states.json:") != std::string::npos);
  }
  CHECK(find_slurm_state(t.slurm_states, slurm_state::kOutOfMemory)->category == Category::Oom);
  CHECK(find_slurm_state(t.slurm_states, slurm_state::kTimeout)->category == Category::Unknown);
  CHECK(find_slurm_state(t.slurm_states, "sacct.preempted") == nullptr);
  // Tables are not rules: the rule count is that of the rule files alone.
  DiagnosticSink d2;
  KnowledgeTables only;
  CHECK(parse_rules_text("{\"lint_rules\": []}", "x.json", d2, false, &only).empty());
  CHECK(d2.empty());
}

TEST_CASE("knowledge_tables: each broken entry is reported and skipped, the others load") {
  struct Bad {
    const char* key;
    const char* entry;
    const char* code;
  };
  const Bad cases[] = {
      {"gpu_generations", R"({"id": "volta", "compute_capability_major": [7, 7], "models": []})", "rules.bad-value"},
      {"gpu_generations", R"({"id": "ampere", "compute_capability_major": [9, 8], "models": []})", "rules.bad-value"},
      {"gpu_generations", R"({"id": "ampere", "compute_capability_major": 8, "models": []})", "rules.bad-value"},
      {"gpu_generations", R"({"id": "ampere", "compute_capability_major": [8, 8], "models": [""]})", "rules.bad-value"},
      {"gpu_generations", R"({"id": "ampere", "compute_capability_major": [8, 8]})", "rules.missing-key"},
      {"gpu_generations", R"({"id": "ampere", "compute_capability_major": [8, 8], "models": [], "x": 1})",
       "rules.unknown-key"},
      {"oom_phases", R"({"id": "Backward", "functions": ["backward"], "path_parts": []})", "rules.bad-value"},
      {"oom_phases", R"({"id": "idle", "functions": [], "path_parts": []})", "rules.bad-value"},
      {"oom_phases", R"({"id": "data", "functions": "f", "path_parts": []})", "rules.bad-value"},
      {"lint_rules", R"({"id": "nccl.master-addr", "explains": ["nccl"]})", "rules.bad-value"},
      {"lint_rules", R"({"id": "lint.master-addr", "explains": ["network"]})", "rules.bad-value"},
      {"lint_rules", R"({"explains": ["nccl"]})", "rules.missing-key"},
      {"lint_rules", R"("lint.master-addr")", "rules.bad-value"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": {"default": {"why": "{dir} has no .venv",
                        "fix": "f"}}})", "rules.unknown-placeholder"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": {"default": {"why": "w"}}})",
       "rules.missing-key"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": {"default": {"why": "w", "fix": ""}}})",
       "rules.bad-value"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": {"Default": {"why": "w", "fix": "f"}}})",
       "rules.bad-value"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": [{"why": "w", "fix": "f"}]})",
       "rules.bad-value"},
      {"lint_rules", R"({"id": "lint.no-venv", "explains": [], "variants": {"default": {"why": "w", "fix": "f",
                        "see": "x"}}})", "rules.unknown-key"},
      {"slurm_states", R"({"id": "sacct.preempted", "category": "unknown", "title": "t", "explain": "e",
                          "checks": [], "headline": "h"})", "rules.bad-value"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "host", "title": "t", "explain": "e",
                          "checks": [], "headline": "h"})", "rules.bad-value"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "unknown", "title": "t", "explain": "e",
                          "checks": []})", "rules.missing-key"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "unknown", "title": "t", "explain": "e",
                          "checks": [], "headline": "h", "reason": "r"})", "rules.unknown-key"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "unknown", "title": "Job {jobid} ended",
                          "explain": "e", "checks": [], "headline": "h"})", "rules.unknown-placeholder"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "unknown", "title": "t", "explain": "e",
                          "checks": ["ask {owner}"], "headline": "h"})", "rules.unknown-placeholder"},
      {"slurm_states", R"({"id": "sacct.failed", "category": "unknown", "title": "t", "explain": "e",
                          "checks": "c", "headline": "h"})", "rules.bad-value"},
  };
  const std::string good_of[] = {
      R"({"id": "hopper", "compute_capability_major": [9, 9], "models": ["H100"]})",
      R"({"id": "forward", "functions": ["forward"], "path_parts": []})",
      R"({"id": "lint.no-venv", "explains": ["import"]})",
      R"({"id": "sacct.timeout", "category": "unknown", "title": "Time limit in {job} for {limit}",
          "explain": "e{progress}", "checks": ["sacct -j {job_id}"], "headline": "h{at_iteration}",
          "progress": " at {last_iteration}", "at_iteration": " after {last_iteration}"})",
  };
  for (const Bad& c : cases) {
    CAPTURE(c.entry);
    const std::string key = c.key;
    const std::string& good = key == "gpu_generations" ? good_of[0]
                              : key == "oom_phases"    ? good_of[1]
                              : key == "lint_rules"    ? good_of[2]
                                                       : good_of[3];
    DiagnosticSink d;
    KnowledgeTables t = parse_table(key, std::string(c.entry) + ",\n" + good, d);
    const Diagnostic* x = find_code(d, c.code);
    REQUIRE(x != nullptr);
    CHECK(x->message.find(key + " entry") != std::string::npos);
    CHECK(t.gpu_generations.size() + t.oom_phases.size() + t.lint_rules.size() + t.slurm_states.size() == 1);
  }
}

TEST_CASE("knowledge_tables: a duplicate id in one file keeps the first; not an array is reported") {
  DiagnosticSink d;
  KnowledgeTables t = parse_table("lint_rules",
                                  R"({"id": "lint.no-venv", "explains": ["import"]},)"
                                  "\n"
                                  R"({"id": "lint.no-venv", "explains": []})",
                                  d);
  REQUIRE(find_code(d, "rules.duplicate-id") != nullptr);
  CHECK(find_code(d, "rules.duplicate-id")->message.find("t.json:3") != std::string::npos);
  REQUIRE(t.lint_rules.size() == 1);
  CHECK(t.lint_rules[0].explains.size() == 1);
  DiagnosticSink d2;
  KnowledgeTables t2;
  parse_rules_text(R"({"oom_phases": {}})", "t.json", d2, false, &t2);
  CHECK(find_code(d2, "rules.bad-value") != nullptr);
  DiagnosticSink d3;
  parse_rules_text(R"({"gpus": []})", "t.json", d3, false, &t2);
  CHECK(find_code(d3, "rules.unknown-key") != nullptr);
  CHECK(find_code(d3, "rules.missing-key") != nullptr);
}

TEST_CASE("knowledge_tables: a later directory overrides an entry in place and adds new ones") {
  TempDir site("site");
  // A site knows a GPU the built-in table does not, and adds a phase after the built-in ones.
  site.write("site-gpus.json", R"({"gpu_generations": [
    {"id": "hopper", "compute_capability_major": [9, 9], "models": ["H20", "H100"]}
  ], "oom_phases": [
    {"id": "logging", "functions": ["log_metrics"], "path_parts": []}
  ]})");
  DiagnosticSink d;
  KnowledgeTables t;
  load_rules({default_rules_dir(), site.path.string()}, d, 1, nullptr, &t);
  const Diagnostic* over = find_code(d, "rules.override");
  REQUIRE(over != nullptr);
  CHECK(over->message.find("gpu_generations entry 'hopper' overrides") != std::string::npos);
  REQUIRE(t.gpu_generations.size() == 4);
  CHECK(t.gpu_generations[1].generation == GpuGeneration::Hopper);  // same place in lookup order
  CHECK(gpu_generation("", "NVIDIA H20", t.gpu_generations) == GpuGeneration::Hopper);
  REQUIRE(t.oom_phases.size() == 6);
  CHECK(t.oom_phases.back().phase == "logging");
  // The same id twice within one directory is an error, not an override.
  site.write("site-more.json", R"({"oom_phases": [{"id": "logging", "functions": ["f"], "path_parts": []}]})");
  DiagnosticSink d2;
  KnowledgeTables t2;
  load_rules({default_rules_dir(), site.path.string()}, d2, 1, nullptr, &t2);
  CHECK(find_code(d2, "rules.duplicate-id") != nullptr);
  CHECK(t2.oom_phases.back().functions.front() == "log_metrics");
}

TEST_CASE("knowledge_tables: a slurm_states entry parses with every text and placeholder kept") {
  DiagnosticSink d;
  KnowledgeTables t = parse_table("slurm_states", R"({"id": "sacct.cancelled", "category": "unknown",
      "title": "Cancelled by {who}", "explain": "{job} was cancelled by {who}.",
      "checks": ["Ask {who}.", "Look at {nodes}."], "headline": "Cancelled after {limit}",
      "confirm_reason": "sacct: CANCELLED by {uid}"})", d);
  for (const auto& x : d.items()) FAIL_CHECK(x.message);
  REQUIRE(t.slurm_states.size() == 1);
  const SlurmStateEntry& e = t.slurm_states[0];
  CHECK(e.id == "sacct.cancelled");
  CHECK(e.title == "Cancelled by {who}");
  CHECK(e.explain == "{job} was cancelled by {who}.");
  CHECK(e.checks == std::vector<std::string>{"Ask {who}.", "Look at {nodes}."});
  CHECK(e.headline == "Cancelled after {limit}");
  CHECK(e.confirm_reason == "sacct: CANCELLED by {uid}");
  CHECK(e.traceback_reason.empty());  // optional texts left out stay empty
  CHECK(e.progress.empty());
  CHECK(e.source == "t.json:2");
  CHECK(is_slurm_state_placeholder("last_iteration"));
  CHECK_FALSE(is_slurm_state_placeholder("rank"));
  CHECK(is_slurm_state_id("sacct.node-fail"));
  CHECK_FALSE(is_slurm_state_id("slurm.node-fail"));
}

TEST_CASE("knowledge_tables: a later directory overrides a slurm_states entry in place") {
  TempDir site("slurm");
  site.write("site-slurm.json", R"({"slurm_states": [
    {"id": "sacct.timeout", "category": "unknown", "title": "Wall clock exhausted for {job}",
     "explain": "e", "checks": [], "headline": "h"}
  ]})");
  DiagnosticSink d;
  KnowledgeTables t;
  load_rules({default_rules_dir(), site.path.string()}, d, 1, nullptr, &t);
  const Diagnostic* over = find_code(d, "rules.override");
  REQUIRE(over != nullptr);
  CHECK(over->message.find("slurm_states entry 'sacct.timeout' overrides") != std::string::npos);
  REQUIRE(t.slurm_states.size() == 5);
  CHECK(t.slurm_states[2].id == "sacct.timeout");  // same place as in the built-in file
  CHECK(t.slurm_states[2].title == "Wall clock exhausted for {job}");
  CHECK(t.slurm_states[2].checks.empty());
  CHECK(t.slurm_states[2].source.find("site-slurm.json:") != std::string::npos);
}

TEST_CASE("knowledge_tables: a lint_rules entry keeps each variant's words; ${NAME} is the script's") {
  DiagnosticSink d;
  KnowledgeTables t = parse_table("lint_rules", R"j({"id": "lint.ntasks-per-node", "explains": ["nccl"],
      "variants": {"srun-ntasks": {"why": "srun --ntasks={value} on {nodes} node(s)",
                                   "fix": "use `srun --ntasks=${NNODES}`"},
                   "sbatch-ntasks": {"why": "w", "fix": "f"}}})j", d);
  for (const auto& x : d.items()) FAIL_CHECK(x.message);
  REQUIRE(t.lint_rules.size() == 1);
  const LintText* srun = find_lint_text(t.lint_rules, "lint.ntasks-per-node", "srun-ntasks");
  REQUIRE(srun != nullptr);
  CHECK(srun->why == "srun --ntasks={value} on {nodes} node(s)");
  CHECK(srun->fix == "use `srun --ntasks=${NNODES}`");
  CHECK(find_lint_text(t.lint_rules, "lint.ntasks-per-node", "sbatch-ntasks")->fix == "f");
  // A missing variant or entry is no text, not a crash.
  CHECK(find_lint_text(t.lint_rules, "lint.ntasks-per-node", "sbatch-per-node") == nullptr);
  CHECK(find_lint_text(t.lint_rules, "lint.master-addr", "localhost") == nullptr);
  CHECK(find_lint_text({}, "lint.master-addr", "localhost") == nullptr);
  // An entry without variants (only its categories) still loads.
  DiagnosticSink d2;
  KnowledgeTables t2 = parse_table("lint_rules", R"({"id": "lint.no-venv", "explains": ["import"]})", d2);
  REQUIRE(t2.lint_rules.size() == 1);
  CHECK(t2.lint_rules[0].variants.empty());
  CHECK(is_lint_placeholder("gpus"));
  CHECK_FALSE(is_lint_placeholder("NNODES"));
}

TEST_CASE("knowledge_tables: every built-in lint variant has words, and a later directory rewords one") {
  DiagnosticSink d0;
  KnowledgeTables built_in;
  load_rules({default_rules_dir()}, d0, 1, nullptr, &built_in);
  REQUIRE(built_in.lint_rules.size() == 9);
  for (const LintRuleEntry& e : built_in.lint_rules) {
    CAPTURE(e.id);
    CHECK_FALSE(e.variants.empty());
  }
  TempDir site("lint");
  site.write("site-lint.json", R"({"lint_rules": [
    {"id": "lint.bare-torchrun", "explains": [], "variants": {"default": {"why": "no torchrun here", "fix": "use srun"}}}
  ]})");
  DiagnosticSink d;
  KnowledgeTables t;
  load_rules({default_rules_dir(), site.path.string()}, d, 1, nullptr, &t);
  const Diagnostic* over = find_code(d, "rules.override");
  REQUIRE(over != nullptr);
  CHECK(over->message.find("lint_rules entry 'lint.bare-torchrun' overrides") != std::string::npos);
  REQUIRE(t.lint_rules.size() == 9);
  CHECK(t.lint_rules[0].id == "lint.bare-torchrun");  // same place as in the built-in file
  CHECK(t.lint_rules[0].explains.empty());
  const LintText* text = find_lint_text(t.lint_rules, "lint.bare-torchrun", "default");
  REQUIRE(text != nullptr);
  CHECK(text->why == "no torchrun here");
  CHECK(text->fix == "use srun");
}

TEST_CASE("knowledge_tables: a runbook_checks entry parses its evaluator, conditions and words") {
  DiagnosticSink d;
  KnowledgeTables t = parse_table("runbook_checks", R"(
    {"id": "host_memory_request", "text": "Memory request", "evaluate": "template",
     "when": [{"categories": ["oom"], "tags_any": ["host-oom"], "decided": true}, {"frames_any": ["/x/"]}],
     "status": "unknown", "detail": "on {node}", "otherwise": {"status": "failed", "detail": "somewhere"}},
    {"id": "layers", "text": "Layers", "evaluate": "divisible", "dividend": "num_layers",
     "divisors": ["pipeline_model_parallel_size"], "divisor_factor": 2, "when": []},
    {"id": "world_size_product", "text": "Product", "evaluate": "world_size_product",
     "when": [{"facts_any": ["args_dump_seen"], "tags_none": ["host-oom"]}]})", d);
  for (const auto& x : d.items()) FAIL_CHECK(x.message);
  REQUIRE(t.runbook_checks.size() == 3);
  const RunbookCheckEntry& host = t.runbook_checks[0];
  CHECK(host.evaluate == "template");
  REQUIRE(host.when.size() == 2);
  CHECK(host.when[0].categories == std::vector<Category>{Category::Oom});
  CHECK(host.when[0].tags_any == std::vector<std::string>{"host-oom"});
  CHECK(host.when[0].decided);
  CHECK(host.when[1].frames_any == std::vector<std::string>{"/x/"});
  CHECK(host.detail == "on {node}");
  CHECK(host.has_otherwise);
  CHECK(host.otherwise_status == CheckStatus::Failed);
  CHECK(t.runbook_checks[1].divisor_factor == 2);
  CHECK(t.runbook_checks[1].when.empty());  // turned off
  CHECK(t.runbook_checks[2].when[0].tags_none == std::vector<std::string>{"host-oom"});
}

TEST_CASE("knowledge_tables: a broken runbook_checks entry is reported and skipped") {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"id": "x", "text": "t", "evaluate": "magic", "when": []})", "rules.bad-value"},
      {R"({"id": "advice.1", "text": "t", "evaluate": "hang", "when": []})", "rules.bad-value"},
      {R"({"id": "x", "text": "t", "evaluate": "hang"})", "rules.missing-key"},
      {R"({"id": "x", "text": "t", "evaluate": "hang", "when": [{"category": ["oom"]}]})", "rules.unknown-key"},
      {R"({"id": "x", "text": "t", "evaluate": "hang", "when": [{"categories": ["memory"]}]})", "rules.bad-value"},
      {R"({"id": "x", "text": "t", "evaluate": "hang", "when": [], "detail": "d"})", "rules.bad-value"},
      {R"({"id": "x", "text": "t", "evaluate": "template", "when": [], "status": "fine", "detail": "d"})", "rules.bad-value"},
      {R"({"id": "x", "text": "t", "evaluate": "template", "when": []})", "rules.missing-key"},
      {R"({"id": "x", "text": "t", "evaluate": "divisible", "when": [], "dividend": "a"})", "rules.missing-key"},
      {R"({"id": "x", "text": "t", "evaluate": "divisible", "when": [], "dividend": "a", "divisors": ["b"],
          "divisor_factor": 0})", "rules.bad-value"},
  };
  for (const auto& c : cases) {
    const char* entry = c.first;  // named, not bound: CAPTURE captures it
    const char* code = c.second;
    CAPTURE(entry);
    DiagnosticSink d;
    KnowledgeTables t = parse_table("runbook_checks", std::string(entry) + R"(,
      {"id": "ok", "text": "t", "evaluate": "hang", "when": []})", d);
    CHECK(find_code(d, code) != nullptr);
    REQUIRE(t.runbook_checks.size() == 1);
    CHECK(t.runbook_checks[0].id == "ok");
  }
}

TEST_CASE("knowledge_tables: a site turns a built-in check off and adds its own, without a rebuild") {
  TempDir site("checks");
  site.write("site.json", R"({"runbook_checks": [
    {"id": "oom_fragmentation", "text": "off here", "evaluate": "oom_fragmentation", "when": []},
    {"id": "site_scratch", "text": "Scratch quota", "evaluate": "template",
     "when": [{"categories": ["oom"]}], "status": "unknown", "detail": "lfs quota -u $USER /scratch"}
  ]})");
  DiagnosticSink d;
  KnowledgeTables builtin, t;
  load_rules({default_rules_dir()}, d, 1, nullptr, &builtin);
  load_rules({default_rules_dir(), site.path.string()}, d, 1, nullptr, &t);
  REQUIRE(t.runbook_checks.size() == builtin.runbook_checks.size() + 1);
  for (std::size_t i = 0; i < builtin.runbook_checks.size(); ++i) {
    CHECK(t.runbook_checks[i].id == builtin.runbook_checks[i].id);  // in place, order kept
    if (t.runbook_checks[i].id == "oom_fragmentation") CHECK(t.runbook_checks[i].when.empty());
  }
  CHECK(t.runbook_checks.back().id == "site_scratch");
}

TEST_CASE("knowledge_tables: `rules check` names a tag a check's condition asks for that no rule carries") {
  DiagnosticSink d;
  KnowledgeTables t;
  auto rules = load_rules({default_rules_dir()}, d, 1, nullptr, &t);
  DiagnosticSink clean;
  CHECK(check_table_tags(rules, t, clean) == 0);  // every tag checks.json asks for is carried
  CHECK(clean.items().empty());
  RunbookCheckEntry typo;
  typo.id = "site_check";
  typo.source = "site.json:3";
  CheckCondition c;
  c.tags_any = {"host_oom"};  // `_`, not `-`: would never hold
  typo.when = {c};
  t.runbook_checks.push_back(typo);
  DiagnosticSink warned;
  CHECK(check_table_tags(rules, t, warned) == 1);
  const Diagnostic* w = find_code(warned, "rules.tag-not-carried");
  REQUIRE(w != nullptr);
  CHECK(w->message.find("\"host_oom\" (runbook_checks entry 'site_check', site.json:3)") != std::string::npos);
}

TEST_CASE("knowledge_tables: generation names round-trip") {
  for (GpuGeneration g : {GpuGeneration::Older, GpuGeneration::Ampere, GpuGeneration::Hopper, GpuGeneration::Blackwell}) {
    GpuGeneration back = GpuGeneration::Unknown;
    CHECK(parse_generation(generation_name(g), back));
    CHECK(back == g);
  }
  GpuGeneration out = GpuGeneration::Hopper;
  CHECK_FALSE(parse_generation("", out));
  CHECK_FALSE(parse_generation("volta", out));
  CHECK(generation_name(GpuGeneration::Unknown).empty());
}

}  // TEST_SUITE
}  // namespace megatriage
