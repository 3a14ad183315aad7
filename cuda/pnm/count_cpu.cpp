#include <atomic>

#include "core/parallel_for.hpp"
#include "cuda/pnm/count.hpp"

namespace gp::pnm {

std::uint64_t count_equal_cpu(VolumeView<const std::uint8_t> mask, std::uint8_t value) {
  std::atomic<std::uint64_t> total{0};
  parallel_for(long(mask.held_voxels()), [&](long b, long e) {
    std::uint64_t n = 0;
    for (long i = b; i < e; ++i) n += mask.data[i] == value;
    total += n;
  }, 1 << 16);
  return total;
}

}  // namespace gp::pnm
