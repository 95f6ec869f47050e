// How the heap is set up for a run, which builds its results once and frees them at exit.
//
// A job of thousands of rank files leaves tens of MB of small results (events, their texts and
// frames) that live until the report, and the kernel faults each 4 KiB page of them in on its
// own: a page fault costs about as much as analysing a few log lines, more in a virtual machine
// that hands freed pages back to its host. Backed by 2 MiB pages the same memory takes one fault
// in 512. The kernel does that where a program asks (madvise MADV_HUGEPAGE, when
// /sys/kernel/mm/transparent_hugepage/enabled is "madvise", the common setting, or "always").
// glibc asks for its heaps only under GLIBC_TUNABLES, which a program cannot set for itself, so
// these ask for the heaps it allocates from.
#pragma once

#include <cstddef>

namespace megatriage {

/// From how many files (listed by one walker thread, or analysed in one run) asking for huge
/// pages pays: a job of hundreds of files keeps more pages of results than finding a heap costs.
inline constexpr std::size_t kFilesForHugePages = 256;

/// Call first thing in main(), before any thread starts. Freed memory stays for reuse (giving
/// it back page by page costs faults later); the main heap grows in large steps; blocks of up to
/// tens of MB (a big job's result list) come from the heaps rather than from a mapping each, so
/// that huge pages back them too.
void set_up_heap();

/// Whether malloc is glibc's own (not a sanitizer's, not a preloaded allocator's).
bool heap_is_glibcs();

/// Asks for huge pages on the heap the calling thread allocates from: the main heap above what
/// is in use, or a worker thread's own glibc arena (a region of the padded size, mapped at
/// once). Once per thread, for threads about to build many results (a look at
/// /proc/self/maps); a no-op before set_up_heap(), unless heap_is_glibcs(), or where the heap
/// is not found. Harmless where huge pages are off.
void ask_huge_pages_for_thread_heap();

}  // namespace megatriage
