#pragma once
// Small-island removal on a binary mask (0 / 255): 8-connected foreground components smaller than
// min_foreground_area become background, then 8-connected background components (holes, and
// background bays touching the edge) smaller than min_hole_area become foreground. 0 turns a step
// off. Components come from the shared union-find labelling (cuda/labelling/components.hpp) run on a
// one-slice volume, where 26-connectivity is 2-D 8-connectivity; its roots are canonical (smallest
// pixel of the component), so GPU and CPU results are identical.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/views.hpp"

namespace gp::segbody {

struct IslandParams {
  int min_foreground_area = 0;  // pixels; foreground components below it are removed
  int min_hole_area = 0;        // pixels; background components below it are filled
};

std::size_t island_scratch_bytes(int width, int height);  // 8 bytes per pixel

// mask: u8 1 channel, packed (pitch == width), values 0 or 255 (others belong to neither phase
// and stay), changed in place. scratch: device memory for _gpu, host for _cpu, 16-byte aligned.
void remove_islands_gpu(const ImageView& mask, const IslandParams& p, void* scratch, std::size_t scratch_bytes,
                        cudaStream_t stream);
void remove_islands_cpu(const ImageView& mask, const IslandParams& p, void* scratch, std::size_t scratch_bytes);

}  // namespace gp::segbody
