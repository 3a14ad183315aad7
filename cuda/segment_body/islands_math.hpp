#pragma once
// What the island kernels and their CPU reference share: the mask as a one-slice volume, the
// scratch layout, and the phases of the two steps.
#include <cstdint>

#include "core/views.hpp"
#include "cuda/common/volume_view.hpp"

namespace gp::segbody::math {

constexpr std::uint8_t foreground = 255, background = 0;

inline VolumeView<const std::uint8_t> mask_volume(const ImageView& mask) {
  return whole_volume(static_cast<const std::uint8_t*>(mask.data), mask.width, mask.height, 1);
}

struct IslandScratch {
  std::uint32_t* roots;   // per pixel: smallest pixel index of its component, labelling::no_root outside the phase
  std::uint32_t* counts;  // per pixel index: the area of the component rooted there
};

inline IslandScratch island_scratch(void* scratch, std::size_t pixels) {
  auto* base = static_cast<std::uint32_t*>(scratch);
  return IslandScratch{base, base + pixels};
}

}  // namespace gp::segbody::math
