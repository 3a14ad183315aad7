#include "core/compressed_scratch.hpp"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/error.hpp"

namespace gp {
namespace {

// zstd's fastest level: label blocks compress 10-50x at several hundred MB/s a core.
constexpr int compression_level = 1;
// The file grows in steps, so a full disk shows early and the file system keeps it in few extents.
constexpr std::uint64_t growth_bytes = std::uint64_t(256) << 20;
// Slots get a little room, so a block rewritten a little larger stays in place.
std::uint64_t slot_capacity(std::uint64_t size) { return (size + size / 8 + 4095) & ~std::uint64_t(4095); }

struct ContextFree {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

// Each thread's zstd contexts and packed-block buffer, kept from block to block: a fresh context
// and a zero-filled buffer per block cost about as much as compressing it.
struct Workspace {
  std::unique_ptr<ZSTD_CCtx, ContextFree> compress{ZSTD_createCCtx()};
  std::unique_ptr<ZSTD_DCtx, ContextFree> decompress{ZSTD_createDCtx()};
  std::unique_ptr<char[]> buffer;
  std::size_t capacity = 0;
  char* room(std::size_t bytes) {
    if (bytes > capacity) {
      buffer.reset(new char[bytes]);  // not zero-filled
      capacity = bytes;
    }
    return buffer.get();
  }
};
Workspace& workspace() {
  thread_local Workspace w;
  if (!w.compress || !w.decompress) throw Error("zstd: cannot create a context");
  return w;
}

}  // namespace

CompressedScratch::CompressedScratch(ScratchSpace& space, const std::string& name, std::size_t blocks)
    : file_(space.create(name, 0)), slots_(blocks) {}

CompressedScratch::Slot CompressedScratch::place(std::size_t block, std::uint64_t size) {
  Slot& slot = slots_[block];
  if (size <= slot.capacity) {
    slot.size = size;
    return slot;
  }
  if (slot.capacity) free_.push_back(slot);
  const auto fits = std::find_if(free_.begin(), free_.end(), [&](const Slot& s) { return s.capacity >= size; });
  if (fits != free_.end()) {
    slot = *fits;
    free_.erase(fits);
  } else {
    slot.offset = end_;
    slot.capacity = slot_capacity(size);
    end_ += slot.capacity;
    if (end_ > file_.size()) file_.extend(std::max(end_, file_.size() + growth_bytes));
  }
  slot.size = size;
  return slot;
}

void CompressedScratch::write_block(std::size_t block, const void* src, std::size_t bytes) {
  if (block >= slots_.size()) throw Error("compressed scratch " + file_.name() + ": block out of range");
  Workspace& w = workspace();
  const std::size_t bound = ZSTD_compressBound(bytes);
  char* packed = w.room(bound);
  const std::size_t size = ZSTD_compressCCtx(w.compress.get(), packed, bound, src, bytes, compression_level);
  if (ZSTD_isError(size))
    throw Error("compressing a block of scratch file " + file_.name() + ": " + ZSTD_getErrorName(size));
  Slot slot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot = place(block, size);
  }
  file_.write(slot.offset, packed, size);
}

void CompressedScratch::read_block(std::size_t block, void* dst, std::size_t bytes) const {
  if (block >= slots_.size()) throw Error("compressed scratch " + file_.name() + ": block out of range");
  Slot slot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot = slots_[block];
  }
  if (slot.size == 0) {
    std::memset(dst, 0, bytes);
    return;
  }
  Workspace& w = workspace();
  char* packed = w.room(slot.size);
  file_.read(slot.offset, packed, slot.size);
  const std::size_t got = ZSTD_decompressDCtx(w.decompress.get(), dst, bytes, packed, slot.size);
  if (ZSTD_isError(got) || got != bytes)
    throw Error("scratch file " + file_.name() + ": a block did not decompress to its size" +
                (ZSTD_isError(got) ? std::string(" (") + ZSTD_getErrorName(got) + ")" : std::string()));
}

std::uint64_t CompressedScratch::stored_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint64_t total = 0;
  for (const Slot& s : slots_) total += s.size;
  return total;
}

}  // namespace gp
