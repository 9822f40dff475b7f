#include "edgeocr/memory_pool.h"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <string>

#include "common/checked.h"
#include "edgeocr/status.h"

namespace edgeocr {

PoolBlock& PoolBlock::operator=(PoolBlock&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = std::move(o.pool_);
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  return *this;
}

void PoolBlock::reset() {
  if (data_ != nullptr && pool_) pool_->release(data_, capacity_);
  pool_.reset();
  data_ = nullptr;
  size_ = capacity_ = 0;
}

std::shared_ptr<MemoryPool> MemoryPool::create(std::size_t cap_bytes) {
  return std::shared_ptr<MemoryPool>(new MemoryPool(cap_bytes));
}

MemoryPool::~MemoryPool() {
  for (auto& b : free_) std::free(b.data);
}

static std::size_t round_up(std::size_t n, std::size_t a) {
  return checked_add(n, a - 1, "memory pool request") / a * a;
}

PoolBlock MemoryPool::acquire(std::size_t bytes) {
  const std::size_t need = round_up(std::max<std::size_t>(bytes, 1), kAlignment);
  std::lock_guard<std::mutex> lock(mu_);
  // Best fit among free blocks no more than twice the request.
  auto it = std::lower_bound(free_.begin(), free_.end(), need,
                             [](const FreeBlock& b, std::size_t n) { return b.capacity < n; });
  PoolBlock blk;
  if (it != free_.end() && it->capacity <= 2 * need) {
    blk.data_ = it->data;
    blk.capacity_ = it->capacity;
    free_.erase(it);
    ++stats_.hits;
  } else {
    if (cap_ != 0 && !fits_under_cap_locked(need)) free_idle_locked(need);
    if (cap_ != 0 && !fits_under_cap_locked(need)) {
      fail(StatusCode::kOutOfMemory,
           "memory pool cap of " + std::to_string(cap_ >> 20) +
               " MiB would be exceeded: " + std::to_string(stats_.in_use_bytes >> 20) +
               " MiB in use, request of " + std::to_string(need >> 10) + " KiB");
    }
    void* p = std::aligned_alloc(kAlignment, need);
    if (p == nullptr)
      fail(StatusCode::kOutOfMemory, "allocation of " + std::to_string(need) + " bytes failed");
    blk.data_ = p;
    blk.capacity_ = need;
    stats_.reserved_bytes += need;
    ++stats_.blocks;
    ++stats_.misses;
    stats_.high_water_bytes = std::max(stats_.high_water_bytes, stats_.reserved_bytes);
  }
  stats_.in_use_bytes += blk.capacity_;
  blk.size_ = bytes;
  blk.pool_ = shared_from_this();
  return blk;
}

void MemoryPool::release(void* data, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.in_use_bytes -= capacity;
  if (cap_ != 0 && stats_.reserved_bytes > cap_) {  // cap lowered while in use
    std::free(data);
    stats_.reserved_bytes -= capacity;
    --stats_.blocks;
    return;
  }
  FreeBlock fb{data, capacity};
  auto it = std::lower_bound(free_.begin(), free_.end(), capacity,
                             [](const FreeBlock& b, std::size_t n) { return b.capacity < n; });
  free_.insert(it, fb);
}

// reserved + need <= cap, written so that a huge `need` cannot wrap around.
bool MemoryPool::fits_under_cap_locked(std::size_t need) const {
  return need <= cap_ && stats_.reserved_bytes <= cap_ - need;
}

// Frees idle blocks, largest first, until `need` more bytes fit under the cap.
void MemoryPool::free_idle_locked(std::size_t need) {
  while (!free_.empty() && !fits_under_cap_locked(need)) {
    FreeBlock b = free_.back();
    free_.pop_back();
    std::free(b.data);
    stats_.reserved_bytes -= b.capacity;
    --stats_.blocks;
  }
}

PoolStats MemoryPool::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  PoolStats s = stats_;
  s.cap_bytes = cap_;
  return s;
}

void MemoryPool::set_cap(std::size_t cap_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  cap_ = cap_bytes;
}

void MemoryPool::trim() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& b : free_) {
    std::free(b.data);
    stats_.reserved_bytes -= b.capacity;
    --stats_.blocks;
  }
  free_.clear();
}

void MemoryPool::reset_counters() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.hits = stats_.misses = 0;
}

}  // namespace edgeocr
