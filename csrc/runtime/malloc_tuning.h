// Process-wide malloc settings that keep a long-running, multi-threaded
// process's memory flat. glibc only; elsewhere a no-op.
#pragma once

namespace edgeocr {

constexpr int kDefaultMallocArenas = 2;
// Blocks of at least this many bytes get their own mapping (M_MMAP_THRESHOLD), fixed.
constexpr int kMallocMmapThreshold = 4 << 20;

// Caps glibc's malloc arenas at EDGEOCR_MALLOC_ARENA_MAX (default
// kDefaultMallocArenas) the first time it is called, unless the process set
// MALLOC_ARENA_MAX itself or EDGEOCR_MALLOC_ARENA_MAX is 0. Returns the cap
// applied, or -1 when malloc was left alone. With the cap it also fixes glibc's
// mmap threshold at kMallocMmapThreshold unless the process set
// MALLOC_MMAP_THRESHOLD_. Thread-safe; called by every Pipeline constructor.
int limit_malloc_arenas();

}  // namespace edgeocr
