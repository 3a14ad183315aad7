#pragma once
// The flooding cost of watershed.hpp packed in 64 bits so keys compare as integers:
// high word = the level c as an order-preserving integer, low word = steps d at that level.
#include <cstdint>

#include "core/views.hpp"  // GP_VIEW_HD

namespace gp::pnm::watershed_detail {

constexpr std::uint64_t unreached = ~std::uint64_t(0);

// Order-preserving map of a float's bits to an unsigned integer (negative floats reversed).
GP_VIEW_HD inline std::uint32_t ordered_bits(float value) {
  union {
    float f;
    std::uint32_t u;
  } bits{value};
  return (bits.u & 0x80000000u) ? ~bits.u : (bits.u | 0x80000000u);
}

// The elevation of a voxel whose distance to the solid is `distance`.
GP_VIEW_HD inline std::uint32_t level_of(float distance) { return ordered_bits(-distance); }

GP_VIEW_HD inline std::uint64_t marker_key(std::uint32_t level) { return std::uint64_t(level) << 32; }

// The key a voxel at `level` gets from a neighbour with key `from`.
GP_VIEW_HD inline std::uint64_t step(std::uint64_t from, std::uint32_t level) {
  if (from == unreached) return unreached;
  const std::uint32_t c = std::uint32_t(from >> 32);
  if (level > c) return std::uint64_t(level) << 32;
  return from + 1;  // same level: one more step (d never reaches 2^32 in a volume < 2^32 voxels)
}

// Whether a neighbour with key `from` and label `label`, which gives a voxel the key `key`, is
// a better source of its label than the best so far: smaller key given, then flooded earlier
// (smaller key of its own), then smaller label.
GP_VIEW_HD inline bool is_better(std::uint64_t key, std::uint64_t from, std::uint32_t label, std::uint64_t best_key,
                                 std::uint64_t best_from, std::uint32_t best_label) {
  if (key != best_key) return key < best_key;
  if (from != best_from) return from < best_from;
  return label < best_label;
}

// A voxel's state before flooding: markers (on pore voxels) hold their key and label, the rest
// are unreached.
GP_VIEW_HD inline void initial_state(std::uint8_t mask, float distance, std::uint32_t marker, std::uint64_t& key,
                                     std::uint32_t& label) {
  const std::uint32_t m = mask ? marker : 0;
  key = m ? marker_key(level_of(distance)) : unreached;
  label = m;
}

}  // namespace gp::pnm::watershed_detail
