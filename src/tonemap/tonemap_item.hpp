#pragma once
// One input image on its way through load -> compute -> save.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/host_pool.hpp"
#include "core/output_naming.hpp"
#include "core/pipeline.hpp"
#include "io/exr_blocks.hpp"
#include "io/image_io.hpp"
#include "tonemap/output_plan.hpp"

namespace gp::tonemap {

// An image ready to write and where it goes: either pixels (a view into TonemapItem::pixels) or,
// for the fast PNG path, a finished zlib stream in TonemapItem::png_streams.
struct EncodedImage {
  enum class Role { main, mip_level, thumbnail } role;
  int level = 0;
  std::string path;  // final path (mip levels of a tiled file share it)
  ImageView view;    // u8/u16 pixels in host memory; a fast PNG's shape only (data null)
  std::size_t png_word_offset = 0, png_bytes = 0;  // fast PNG: its zlib stream
  bool fast_png() const { return png_bytes > 0; }
};

struct TonemapItem : PipelineItem {
  InputItem input;  // its path and names (for {index}, {parent}...)
  io::ReadPlan plan;
  HostBuffer source;                        // decoded planned channels, rows plan.row_bytes() apart
  // EXR files for the block decoder (run.exr_decode): the file's bytes and its part's blocks,
  // decoded in the compute stage instead of into `source`.
  std::optional<io::ExrBlocks> exr_blocks;
  HostBuffer file;
  std::string decoder;                      // for the report: gpu, cpu (OpenEXR/OIIO), cpu-blocks
  bool has_alpha = false;
  OutputPlan outputs;
  HostBuffer pixels;                        // images written from pixels, back to back
  std::vector<std::uint32_t> png_streams;   // fast PNG zlib streams, back to back
  std::vector<EncodedImage> images;
  float exposure_scale = 1;     // what was applied (auto exposure result), for the report
  std::vector<std::string> written;
};

}  // namespace gp::tonemap
