// CPU reference of the person-mask paste (also the CPU path).
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/person_masks.hpp"
#include "cuda/segment_body/person_masks_math.hpp"

namespace gp::segbody {

void paste_person_masks_cpu(const PersonMasks& people, const ImageView& canvas) {
  checks::require_person_masks(people, canvas, "paste_person_masks_cpu");
  for (int y = 0; y < canvas.height; ++y) {
    float* row = reinterpret_cast<float*>(static_cast<std::uint8_t*>(canvas.data) + std::size_t(y) * canvas.pitch);
    for (int x = 0; x < canvas.width; ++x) row[x] = math::canvas_value(people, canvas.width, canvas.height, x, y);
  }
}

}  // namespace gp::segbody
