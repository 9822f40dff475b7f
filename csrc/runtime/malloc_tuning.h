// Process-wide malloc settings that keep a long-running, multi-threaded
// process's memory flat. glibc only; elsewhere a no-op.
#pragma once

namespace edgeocr {

constexpr int kDefaultMallocArenas = 2;

// Caps glibc's malloc arenas at EDGEOCR_MALLOC_ARENA_MAX (default
// kDefaultMallocArenas) the first time it is called, unless the process set
// MALLOC_ARENA_MAX itself or EDGEOCR_MALLOC_ARENA_MAX is 0. Returns the cap
// applied, or -1 when malloc was left alone. Thread-safe; called by every
// Pipeline constructor.
int limit_malloc_arenas();

}  // namespace edgeocr
