#pragma once
// The fast PNG path (png_compression 1) inside the compute stage: quantised images are filtered
// and entropy coded where they are (on the GPU, or by the CPU references), and only the finished
// zlib streams come back to the host, ready to be wrapped in PNG chunks by the save stage.
#include <cstdint>
#include <vector>

#include "core/views.hpp"
#include "tonemap/compute_backend.hpp"

namespace gp::tonemap {

struct FastPngStream {
  std::size_t word_offset = 0;  // where its zlib stream starts in the streams vector
  std::size_t bytes = 0;        // its size
};

// `images`: quantised u8/u16 images in working memory. Appends the streams to `streams`.
std::vector<FastPngStream> encode_fast_pngs(const std::vector<ImageView>& images, ComputeBackend& b,
                                            std::vector<std::uint32_t>& streams);

}  // namespace gp::tonemap
