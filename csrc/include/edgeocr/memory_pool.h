// MemoryPool: 64-byte aligned blocks reused across calls.
//
// Blocks are kept on a free list after release and handed out again to any
// request they fit without wasting more than half their capacity, so a
// workload that repeats a small set of shapes stops allocating after its
// first call per shape. An optional cap turns "would exceed" into an
// OutOfMemory error instead of an OOM kill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace edgeocr {

struct PoolStats {
  std::size_t reserved_bytes = 0;    // held by the pool, in use or free
  std::size_t in_use_bytes = 0;      // handed out and not yet returned
  std::size_t high_water_bytes = 0;  // max of reserved_bytes over the pool's life
  std::size_t cap_bytes = 0;         // 0 = no cap
  std::uint64_t hits = 0;            // requests served from the free list
  std::uint64_t misses = 0;          // requests that allocated a new block
  std::uint64_t blocks = 0;          // blocks held
};

class MemoryPool;

// A block handed out by a pool; returns itself to the pool on destruction.
// Move-only. The pool must outlive its blocks (pools are shared_ptr-owned
// and blocks keep their pool alive).
class PoolBlock {
 public:
  PoolBlock() = default;
  PoolBlock(PoolBlock&& o) noexcept { *this = std::move(o); }
  PoolBlock& operator=(PoolBlock&& o) noexcept;
  PoolBlock(const PoolBlock&) = delete;
  PoolBlock& operator=(const PoolBlock&) = delete;
  ~PoolBlock() { reset(); }

  void* data() const { return data_; }
  std::size_t size() const { return size_; }          // bytes requested
  std::size_t capacity() const { return capacity_; }  // bytes available
  explicit operator bool() const { return data_ != nullptr; }
  void reset();

 private:
  friend class MemoryPool;
  std::shared_ptr<MemoryPool> pool_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Thread-safe.
class MemoryPool : public std::enable_shared_from_this<MemoryPool> {
 public:
  static constexpr std::size_t kAlignment = 64;

  // cap_bytes = 0: no cap.
  static std::shared_ptr<MemoryPool> create(std::size_t cap_bytes = 0);
  ~MemoryPool();

  // A block of at least `bytes` (rounded up to the alignment). Throws
  // OutOfMemory when the cap would be exceeded even after freeing idle blocks.
  PoolBlock acquire(std::size_t bytes);

  PoolStats stats() const;
  void set_cap(std::size_t cap_bytes);
  // Frees every idle block (keeps blocks in use).
  void trim();
  // Zeroes hits/misses (not the high-water mark).
  void reset_counters();

 private:
  explicit MemoryPool(std::size_t cap_bytes) : cap_(cap_bytes) {}
  friend class PoolBlock;
  void release(void* data, std::size_t capacity);
  void free_idle_locked(std::size_t need);
  bool fits_under_cap_locked(std::size_t need) const;

  struct FreeBlock {
    void* data;
    std::size_t capacity;
  };
  mutable std::mutex mu_;
  std::vector<FreeBlock> free_;  // sorted by capacity
  std::size_t cap_ = 0;
  PoolStats stats_;
};

}  // namespace edgeocr
