// Unit tests for base/fork_join.h: every task runs once on any thread count, and an exception
// in a task reaches the caller only after every thread has stopped.
#include "base/fork_join.h"

#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace megatriage {
namespace {

TEST_SUITE("fork_join") {
  TEST_CASE("fork_join: for_each_index runs every index exactly once on any thread count") {
    for (unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{500}}) {
        CAPTURE(threads);
        CAPTURE(n);
        std::vector<std::atomic<int>> runs(n);
        for_each_index(threads, n, [&](std::size_t i) { ++runs[i]; });
        for (std::size_t i = 0; i < n; ++i) CHECK(runs[i] == 1);
      }
    }
  }

  TEST_CASE("fork_join: one thread runs the indices on the caller, in order") {
    std::vector<std::size_t> order;
    const std::thread::id caller = std::this_thread::get_id();
    bool on_caller = true;
    for_each_index(1, 5, [&](std::size_t i) {
      order.push_back(i);
      on_caller = on_caller && std::this_thread::get_id() == caller;
    });
    CHECK(order == std::vector<std::size_t>{0, 1, 2, 3, 4});
    CHECK(on_caller);
  }

  TEST_CASE("fork_join: run_workers calls the worker once per thread, never more than asked") {
    for (unsigned threads : {1u, 2u, 5u}) {
      CAPTURE(threads);
      std::atomic<unsigned> calls{0};
      run_workers(threads, [&] { ++calls; });
      CHECK(calls == threads);
    }
  }

  TEST_CASE("fork_join: a throwing task reaches the caller after every thread has stopped") {
    for (unsigned threads : {1u, 2u, 4u}) {
      CAPTURE(threads);
      std::atomic<int> running{0};
      std::atomic<std::size_t> ran{0};
      bool caught = false;
      try {
        for_each_index(threads, 1000, [&](std::size_t i) {
          ++running;
          ++ran;
          if (i == 10) {
            --running;
            throw std::runtime_error("task 10 failed");
          }
          --running;
        });
      } catch (const std::runtime_error& e) {
        caught = std::string(e.what()) == "task 10 failed";
        CHECK(running == 0);  // no task is still running on a helper
      }
      CHECK(caught);
      CHECK(ran >= 11);  // indices are handed out in order: 0..10 at least were taken
    }
  }

  TEST_CASE("fork_join: an exception that is not a std::exception is carried too") {
    bool caught = false;
    try {
      run_workers(3, [] { throw 42; });
    } catch (int v) {
      caught = v == 42;
    }
    CHECK(caught);
  }

  TEST_CASE("fork_join: for_each_slice covers [0, n) with disjoint slices and rethrows") {
    for (unsigned threads : {1u, 3u}) {
      std::vector<std::atomic<int>> seen(100);
      for_each_slice(threads, seen.size(), [](std::size_t i) { return i % 7 + 1; },
                     [&](std::size_t b, std::size_t e) {
                       for (std::size_t i = b; i < e; ++i) ++seen[i];
                     });
      for (const auto& s : seen) CHECK(s == 1);
      CHECK_THROWS_AS(for_each_slice(threads, 10, [](std::size_t) { return 1; },
                                     [](std::size_t b, std::size_t) {
                                       if (b == 0) throw std::logic_error("first slice");
                                     }),
                      std::logic_error);
    }
  }
}

}  // namespace
}  // namespace megatriage
