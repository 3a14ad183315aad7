#pragma once
// A scratch file whose blocks are kept compressed (zstd, fast level): for volumes that compress
// well (label volumes: runs of one value, zeros in the solid), several times less disk than a
// plain scratch file. Each block is written and read whole; a block written again goes back into
// its slot when it fits, else into a free slot or the end of the file, which grows as needed.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/scratch_space.hpp"

namespace gp {

class CompressedScratch {
 public:
  CompressedScratch(ScratchSpace& space, const std::string& name, std::size_t blocks);

  // Safe from several threads for different blocks. A block never written reads as zeros.
  void write_block(std::size_t block, const void* src, std::size_t bytes);
  void read_block(std::size_t block, void* dst, std::size_t bytes) const;

  std::size_t blocks() const { return slots_.size(); }
  std::uint64_t stored_bytes() const;  // compressed bytes of the blocks as they are now

 private:
  struct Slot {
    std::uint64_t offset = 0, capacity = 0, size = 0;  // size 0: never written
  };
  Slot place(std::size_t block, std::uint64_t size);  // under mutex_

  ScratchFile file_;
  mutable std::mutex mutex_;
  std::vector<Slot> slots_;
  std::vector<Slot> free_;  // slots given up by blocks that outgrew them
  std::uint64_t end_ = 0;   // bytes of the file in use (its size may be larger)
};

}  // namespace gp
