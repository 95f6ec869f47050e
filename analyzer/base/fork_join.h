// Fork-join on the caller plus helper threads, for work that ends (a tree walk, report building,
// rendering): each helper is joined on every path, and an exception in a task reaches the
// caller after the joins instead of ending the process. Never more threads than
// `threads`, the caller included; with 1 everything runs on the caller, in order. A helper
// that cannot be started is done without: the threads that run share its work.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace megatriage {

/// Calls `worker()` on the caller and on up to threads - 1 helper threads at once; returns when
/// every call has returned. Each worker takes its own share of the work (typically from an
/// atomic counter). An exception from any call is kept and rethrown once all have finished;
/// when several throw, one of them (the first to be caught) is rethrown.
/// Requires: worker is safe to call concurrently.
template <typename Worker>
void run_workers(unsigned threads, Worker&& worker) {
  if (threads < 2) {
    worker();
    return;
  }
  std::mutex error_mutex;
  std::exception_ptr error;
  auto guarded = [&] {
    try {
      worker();
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(guarded);
    } catch (...) {
      break;  // no thread (or no memory for one): fewer workers share the work
    }
  }
  guarded();
  for (std::thread& h : helpers) h.join();
  if (error) std::rethrow_exception(error);
}

/// Calls fn(i) once for every i in [0, n), handing out indices in increasing order to up to
/// `threads` threads (the caller included; never more threads than indices). After a call
/// throws no new index is handed out; the exception is rethrown once every thread has stopped.
/// Requires: fn is safe to run concurrently for different indices. Costs one atomic increment
/// per index: meant for tasks much larger than that (a file, a directory subtree).
template <typename Fn>
void for_each_index(unsigned threads, std::size_t n, Fn&& fn) {
  if (n == 0) return;
  std::atomic<std::size_t> next{0};
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, threads), n));
  run_workers(workers, [&] {
    try {
      for (std::size_t i = next++; i < n; i = next++) fn(i);
    } catch (...) {
      next = n;  // the other threads finish the call they are in and stop
      throw;
    }
  });
}

/// Runs `first` on the caller and `second` on a helper thread at the same time when threads > 1,
/// else `first` then `second`. Requires: the two touch no common data that either writes.
/// An exception from either is rethrown once both have finished (the first one's wins).
template <typename First, typename Second>
void run_beside(unsigned threads, First&& first, Second&& second) {
  if (threads < 2) {
    first();
    second();
    return;
  }
  std::exception_ptr first_error, second_error;
  auto run_second = [&] {
    try {
      second();
    } catch (...) {
      second_error = std::current_exception();
    }
  };
  std::thread helper;
  try {
    helper = std::thread(run_second);
  } catch (const std::system_error&) {
    // No thread to be had: the caller runs both, in order.
  }
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  if (helper.joinable()) helper.join();
  else run_second();
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
}

/// Cuts [0, n) into at most `threads` contiguous slices of about equal total weight(i) and calls
/// fn(begin, end) for each: the first slice on the caller, the others on helper threads.
/// Requires: fn is safe to run concurrently on disjoint slices. Exceptions as run_beside.
template <typename Weight, typename Fn>
void for_each_slice(unsigned threads, std::size_t n, Weight&& weight, Fn&& fn) {
  std::vector<std::size_t> cuts{0};
  if (threads > 1 && n > 1) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += weight(i);
    std::size_t sum = 0;
    for (std::size_t i = 0; i + 1 < n && cuts.size() < threads; ++i) {
      sum += weight(i);
      // Cut after i once the slices so far hold their share of the total.
      if (sum * threads >= total * cuts.size()) cuts.push_back(i + 1);
    }
  }
  cuts.push_back(n);
  const std::size_t slices = cuts.size() - 1;
  std::vector<std::exception_ptr> errors(slices);
  auto run_slice = [&](std::size_t k) {
    try {
      fn(cuts[k], cuts[k + 1]);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers(slices);
  for (std::size_t k = 1; k < slices; ++k) {
    try {
      helpers[k] = std::thread(run_slice, k);
    } catch (const std::system_error&) {
      // No thread to be had: the caller runs this slice after its own.
    }
  }
  run_slice(0);
  for (std::size_t k = 1; k < slices; ++k) {
    if (helpers[k].joinable()) helpers[k].join();
    else run_slice(k);
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace megatriage
