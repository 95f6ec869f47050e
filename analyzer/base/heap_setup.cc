#include "base/heap_setup.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#if defined(__linux__) && defined(__GLIBC__)
extern "C" void* __libc_malloc(std::size_t size);  // glibc's own, under every interposer
#endif

namespace megatriage {
namespace {

#if defined(__linux__) && defined(__GLIBC__)
std::atomic<bool> heap_set_up{false};

// A glibc arena reserves tens of MB at most: a bigger region holding a fresh block is not one.
constexpr std::uintptr_t kMaxArena = std::uintptr_t{256} << 20;

// One line of /proc/self/maps: [begin, end), and whether it names a file or a pseudo-region
// ("[heap]", "[stack]") or is a plain anonymous mapping.
struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  bool heap = false, anonymous = false;
};

bool parse_mapping(const char* line, Mapping& m) {
  unsigned long begin = 0, end = 0;
  int path_at = -1;
  if (std::sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &begin, &end, &path_at) < 2 || path_at < 0)
    return false;
  m.begin = begin;
  m.end = end;
  const char* path = line + path_at;
  m.heap = std::strncmp(path, "[heap]", 6) == 0;
  // Newer kernels may name an anonymous mapping (`[anon:...]`); it is still no file's.
  m.anonymous = *path == '\n' || *path == '\0' || std::strncmp(path, "[anon:", 6) == 0;
  return true;
}

// The mapping that holds `address`, from /proc/self/maps.
bool mapping_of(const void* address, Mapping& found) {
  std::FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool have = false;
  char line[4096];
  while (!have && std::fgets(line, sizeof line, maps) != nullptr) {
    Mapping m;
    have = parse_mapping(line, m) && at >= m.begin && at < m.end;
    if (have) found = m;
  }
  std::fclose(maps);
  return have;
}

void ask_huge_pages(std::uintptr_t begin, std::uintptr_t end) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  begin &= ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}
#endif

}  // namespace

void set_up_heap() {
#if defined(__linux__) && defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // The main heap grows by this much at a time: one region, asked for huge pages in one call.
  mallopt(M_TOP_PAD, 64 << 20);
  heap_set_up = true;
#endif
}

bool heap_is_glibcs() {
#if defined(__linux__) && defined(__GLIBC__)
  // A sanitizer or a preloaded allocator puts its own malloc first: its regions are not arenas.
  return reinterpret_cast<void*>(&std::malloc) == reinterpret_cast<void*>(&__libc_malloc);
#else
  return false;
#endif
}

void ask_huge_pages_for_thread_heap() {
#if defined(__linux__) && defined(__GLIBC__)
  thread_local bool asked = false;
  if (asked || !heap_set_up || !heap_is_glibcs()) return;
  asked = true;
  void* probe = std::malloc(64);
  Mapping heap;
  if (probe != nullptr && mapping_of(probe, heap)) {
    if (heap.heap) {
      // The main thread's: what lies above what is in use already.
      ask_huge_pages(reinterpret_cast<std::uintptr_t>(probe), heap.end);
    } else if (heap.anonymous && heap.end - heap.begin <= kMaxArena) {
      // A thread's glibc arena: with set_up_heap()'s pad it is read-write from the start.
      ask_huge_pages(heap.begin, heap.end);
    }
  }
  std::free(probe);
#endif
}

}  // namespace megatriage
