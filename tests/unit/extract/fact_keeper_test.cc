#include "extract/fact_keeper.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "extract/megatron_config.h"

namespace megatriage {
namespace {

std::string kept_text(FactKeeper& keeper) {
  std::string out;
  for (const Fact& f : keeper.take())
    out += f.key + "=" + f.value + "@" + std::to_string(f.line) + "/r" + std::to_string(f.rank) + "; ";
  return out;
}

}  // namespace

TEST_CASE("fact_keeper: keeps what the registry's in-file merge keeps, in first-seen order") {
  FactKeeper keeper;
  // global_batch_size: First. last_iteration, lm_loss: Latest. peak_allocated_mb: MaxPerRank.
  keeper.add("global_batch_size", "256", 1, 0);
  keeper.add("last_iteration", "1", 1, 0);
  keeper.add("peak_allocated_mb", "100.5", 2, 3);
  keeper.add("global_batch_size", "512", 3, 0);   // dropped: the first value stays
  keeper.add("last_iteration", "2", 3, 1);        // replaces, with its line and rank
  keeper.add("peak_allocated_mb", "90.0", 4, 3);  // lower for rank 3: dropped
  keeper.add("peak_allocated_mb", "80.0", 4, 5);  // another rank: a fact of its own
  keeper.add("peak_allocated_mb", "120.25", 5, 3);
  keeper.add("lm_loss", "2.5", 6, 0);
  CHECK(kept_text(keeper) ==
        "global_batch_size=256@1/r0; last_iteration=2@3/r1; peak_allocated_mb=120.25@5/r3; "
        "peak_allocated_mb=80.0@4/r5; lm_loss=2.5@6/r0; ");
}

TEST_CASE("fact_keeper: a replaced value may be longer or shorter than the kept one") {
  FactKeeper keeper;
  keeper.add("last_iteration", "9", 1, -1);
  keeper.add("last_iteration", std::string(40, '7'), 2, -1);
  keeper.add("last_iteration", "10", 3, -1);
  CHECK(kept_text(keeper) == "last_iteration=10@3/r-1; ");
}

TEST_CASE("fact_keeper: a copy keeps on its own, also once the original is gone") {
  // The sanitizer build reads freed memory here if a copy still used the original's keys.
  auto original = std::make_unique<FactKeeper>();
  original->add("last_iteration", "1", 1, 0);
  original->add("global_batch_size", "8", 1, 0);
  FactKeeper copy = *original;  // a watcher's snapshot
  FactKeeper assigned;
  assigned.add("lm_loss", "9", 1, 0);
  assigned = *original;
  original->add("last_iteration", "7", 9, 0);
  CHECK(kept_text(*original) == "last_iteration=7@9/r0; global_batch_size=8@1/r0; ");
  original.reset();
  copy.add("last_iteration", "2", 2, 0);
  copy.add("lm_loss", "3.5", 2, 0);
  assigned.add("last_iteration", "5", 4, 0);
  CHECK(kept_text(copy) == "last_iteration=2@2/r0; global_batch_size=8@1/r0; lm_loss=3.5@2/r0; ");
  CHECK(kept_text(assigned) == "last_iteration=5@4/r0; global_batch_size=8@1/r0; ");
}

}  // namespace megatriage

namespace megatriage {
namespace {

// Every fact of `lines`, each kept by add() as it comes (no line deferred): what a keeper
// that parses every iteration line at once keeps.
std::string kept_at_once(const std::vector<std::string>& lines) {
  std::vector<Fact> all;
  ConfigExtractor config;
  for (std::size_t i = 0; i < lines.size(); ++i) config.feed(lines[i], i + 1, static_cast<int>(i % 3), all);
  FactKeeper keeper;
  for (const Fact& f : all) keeper.add(f.key, f.value, f.line, f.rank);
  return kept_text(keeper);
}

std::string kept_deferred(const std::vector<std::string>& lines, std::size_t copy_at = SIZE_MAX) {
  FactKeeper keeper;
  ConfigExtractor config;
  std::unique_ptr<FactKeeper> copy;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == copy_at) copy = std::make_unique<FactKeeper>(keeper);  // a snapshot mid-way
    config.feed(lines[i], i + 1, static_cast<int>(i % 3), copy ? *copy : keeper);
  }
  return kept_text(copy ? *copy : keeper);
}

}  // namespace

TEST_CASE("fact_keeper: deferred iteration lines keep what parsing each at once keeps") {
  // Iteration lines with and without a loss or a batch size, prose that starts like one, and
  // other facts between them (a memory report, a world size), in random runs longer and
  // shorter than the lines a keeper holds back.
  const std::vector<std::string> kinds = {
      " [2026-11-29 10:00:00] iteration      {n}/  500000 | consumed samples: 256 | global batch size:   256 | lm loss: 6.{n}E+00 | loss scale: 1.0 |",
      " iteration      {n}/  500000 | consumed samples: 256 | lm loss: 7.{n}E+00 |",
      " iteration      {n}/  500000 | consumed samples: 256 | global batch size:   {n} |",
      " iteration {n}/10 of warmup",
      "[Rank 0] (after {n} iterations) memory (MB) | allocated: 1.0 | max allocated: {n}.5 | reserved: 2.0 | max reserved: 3.0",
      "using world size: 8, data-parallel size: 8, context-parallel size: 1, tensor-model-parallel size: 1, pipeline-model-parallel size: 1",
  };
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> lines;
    const std::size_t count = rng() % 70;
    const std::size_t mostly = rng() % 3;  // most lines of one iteration kind, as a log has
    for (std::size_t i = 0; i < count; ++i) {
      std::string line = kinds[rng() % 4 != 0 ? mostly : rng() % kinds.size()];
      for (std::size_t at; (at = line.find("{n}")) != std::string::npos;) line.replace(at, 3, std::to_string(i + 1));
      lines.push_back(line);
    }
    CAPTURE(round);
    const std::string expected = kept_at_once(lines);
    CHECK(kept_deferred(lines) == expected);
    // A copy taken mid-way keeps the pending lines too.
    if (count > 0) CHECK(kept_deferred(lines, rng() % count) == expected);
  }
}

}  // namespace megatriage
