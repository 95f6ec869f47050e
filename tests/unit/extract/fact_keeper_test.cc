#include "extract/fact_keeper.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>

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

TEST_CASE("fact_keeper: a key is settled once a first value is kept, never when the latest is") {
  FactKeeper keeper;
  CHECK_FALSE(keeper.settled("global_batch_size"));  // First: nothing kept yet
  keeper.add("global_batch_size", "256", 1, 0);
  CHECK(keeper.settled("global_batch_size"));
  keeper.add("last_iteration", "1", 2, 0);  // Latest: a later value replaces it
  CHECK_FALSE(keeper.settled("last_iteration"));
  CHECK_FALSE(keeper.settled(""));
  // The first value stays whatever comes after it.
  keeper.add("global_batch_size", "512", 3, 0);
  CHECK(kept_text(keeper) == "global_batch_size=256@1/r0; last_iteration=1@2/r0; ");
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
