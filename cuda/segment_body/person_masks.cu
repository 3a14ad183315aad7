// Person masks into the canvas on the GPU: one thread a canvas pixel, every person of the frame.
#include "cuda/segment_body/person_masks.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/person_masks_math.hpp"

namespace gp::segbody {
namespace {

__global__ void paste_kernel(PersonMasks people, ImageView canvas) {
  int x, y;
  if (!launch::pixel_of_thread(canvas.width, canvas.height, x, y)) return;
  float* row = reinterpret_cast<float*>(static_cast<std::uint8_t*>(canvas.data) + std::size_t(y) * canvas.pitch);
  row[x] = math::canvas_value(people, canvas.width, canvas.height, x, y);
}

}  // namespace

void paste_person_masks_gpu(const PersonMasks& people, const ImageView& canvas, cudaStream_t stream) {
  checks::require_person_masks(people, canvas, "paste_person_masks_gpu");
  if (canvas.width == 0 || canvas.height == 0) return;
  paste_kernel<<<launch::pixel_grid(canvas.width, canvas.height), launch::pixel_block(), 0, stream>>>(people, canvas);
  GP_CUDA_CHECK_LAUNCH("paste_kernel " + checks::size_text(canvas.width, canvas.height) + ", " +
                       std::to_string(people.count) + " people");
}

}  // namespace gp::segbody
