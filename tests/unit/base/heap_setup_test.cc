// Unit tests for base/heap_setup.h: after set_up_heap(), a worker thread that asks has its heap
// marked for huge pages (the `hg` flag /proc/self/smaps shows), and a thread that does not ask
// keeps the kernel's default; glibc's malloc is told from a sanitizer's.
#include "base/heap_setup.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace megatriage {
namespace {

// The VmFlags of the mapping that holds `address`, from /proc/self/smaps; "" when not found.
std::string vm_flags_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = at >= begin && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8);
  }
  return "";
}

// What a thread's fresh allocation lies in, after asking for huge pages or not.
std::string flags_of_thread_heap(bool ask) {
  std::string flags;
  std::thread worker([&] {
    if (ask) ask_huge_pages_for_thread_heap();
    void* block = std::malloc(64);
    flags = vm_flags_of(block);
    std::free(block);
  });
  worker.join();
  return flags;
}

bool huge_pages_in_kernel() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

TEST_SUITE("heap_setup") {
  TEST_CASE("heap_setup: glibc's malloc is told from a sanitizer's") {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    CHECK_FALSE(heap_is_glibcs());
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
    CHECK_FALSE(heap_is_glibcs());
#endif
#if defined(__linux__) && defined(__GLIBC__) && !defined(MEGATRIAGE_CHECK_LEAKS)
    CHECK(heap_is_glibcs());  // builds without sanitizers use glibc's
#endif
  }

  TEST_CASE("heap_setup: a worker thread that asks gets its heap marked for huge pages") {
#if defined(__linux__) && defined(__GLIBC__)
    // A kernel built without them: nothing to ask for; a sanitizer's malloc: nothing asked.
    if (!huge_pages_in_kernel() || !heap_is_glibcs()) return;
    set_up_heap();
    const std::string asked = flags_of_thread_heap(true);
    REQUIRE_FALSE(asked.empty());
    CHECK(asked.find(" hg") != std::string::npos);
#endif
  }

  TEST_CASE("heap_setup: a thread that does not ask keeps the default") {
#if defined(__linux__) && defined(__GLIBC__)
    if (!huge_pages_in_kernel() || !heap_is_glibcs()) return;
    set_up_heap();
    // A new thread may reuse the arena of one that asked before (glibc hands out free arenas);
    // one that is still running keeps its own, so hold one busy while the other looks.
    std::string flags;
    std::thread first([&] {
      void* mine = std::malloc(64);
      std::thread second([&] {
        void* block = std::malloc(64);
        flags = vm_flags_of(block);
        std::free(block);
      });
      second.join();
      std::free(mine);
    });
    first.join();
    CHECK_FALSE(flags.empty());
    CHECK(flags.find(" hg") == std::string::npos);
#endif
  }
}

}  // namespace
}  // namespace megatriage
