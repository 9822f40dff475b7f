#include "runtime/malloc_tuning.h"

#include <cstdlib>
#include <mutex>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace edgeocr {

int limit_malloc_arenas() {
  static int applied = -1;
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    // glibc gives each thread that allocates its own arena (up to 8 per core)
    // and never hands freed memory from one arena to another thread: with a
    // Predictor shared by 8 threads, RSS kept growing after warm-up (soak:
    // +3.2% over 300 calls, flat with 2 arenas). A caller's own
    // MALLOC_ARENA_MAX wins; EDGEOCR_MALLOC_ARENA_MAX=0 leaves malloc alone.
    if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
    int n = kDefaultMallocArenas;
    if (const char* v = std::getenv("EDGEOCR_MALLOC_ARENA_MAX")) {
      char* end = nullptr;
      const long parsed = std::strtol(v, &end, 10);
      if (end == v || *end != '\0' || parsed < 0 || parsed > 1024)
        return;  // unusable: leave malloc alone
      n = static_cast<int>(parsed);
    }
    if (n == 0) return;
    if (mallopt(M_ARENA_MAX, n) == 1) applied = n;
#endif
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    // glibc serves a block above its mmap threshold with its own mapping, given back when it
    // is freed, but raises the threshold to the size of each such block freed (up to 32 MiB):
    // after the first page, the decoded pages and other per-call buffers of a few MiB come
    // from the arenas' heaps, which 8 threads leave fragmented (benchmarks/thread_rss.py on
    // file paths: RSS +5.4% after warm-up, +3.4% with a fixed threshold, the rest being the
    // pipeline pool's new blocks). A fixed threshold (which also fixes the trim threshold)
    // keeps them mapped; the process's own MALLOC_MMAP_THRESHOLD_ wins.
    if (std::getenv("MALLOC_MMAP_THRESHOLD_") == nullptr)
      mallopt(M_MMAP_THRESHOLD, kMallocMmapThreshold);
#endif
  });
  return applied;
}

}  // namespace edgeocr
