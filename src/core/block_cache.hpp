#pragma once
// Freed host blocks kept for reuse, by capacity: the policy the pageable (HostPool) and pinned
// (Runtime) pools share. Not thread-safe: each pool holds its own lock around it.
#include <cstddef>
#include <map>
#include <utility>

namespace gp {

class BlockCache {
 public:
  explicit BlockCache(std::size_t limit) : limit_(limit) {}

  // The best-fitting cached block for `bytes`, as long as it wastes no more than half of itself:
  // {pointer, capacity}, or {nullptr, 0} when none fits.
  std::pair<void*, std::size_t> take(std::size_t bytes) {
    auto it = blocks_.lower_bound(bytes);
    if (it == blocks_.end() || it->first > 2 * bytes + 4096) return {nullptr, 0};
    const std::pair<void*, std::size_t> block{it->second, it->first};
    cached_ -= it->first;
    blocks_.erase(it);
    return block;
  }
  // Keeps a freed block when the cache has room for it; false = the caller frees it.
  bool keep(void* ptr, std::size_t capacity) {
    if (cached_ + capacity > limit_) return false;
    blocks_.emplace(capacity, ptr);
    cached_ += capacity;
    return true;
  }
  // Hands every cached block to free_block and empties the cache.
  template <class FreeBlock>
  void clear(FreeBlock free_block) {
    for (auto& [capacity, ptr] : blocks_) free_block(ptr);
    blocks_.clear();
    cached_ = 0;
  }
  std::size_t cached_bytes() const { return cached_; }

 private:
  std::multimap<std::size_t, void*> blocks_;  // capacity -> block
  std::size_t cached_ = 0, limit_;
};

}  // namespace gp
