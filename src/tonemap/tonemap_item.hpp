#pragma once
// One input image on its way through load -> compute -> save.
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/pipeline.hpp"
#include "io/image_io.hpp"
#include "tonemap/output_plan.hpp"

namespace gp::tonemap {

// An encoded image ready to write: a view into TonemapItem::encoded and where it goes.
struct EncodedImage {
  enum class Role { main, mip_level, thumbnail } role;
  int level = 0;
  std::string path;  // final path (mip levels of a tiled file share it)
  ImageView view;    // host memory, u8/u16
};

struct TonemapItem : PipelineItem {
  std::size_t input_index = 0;  // position in the full input list (for {index})
  io::ReadPlan plan;
  PinnedBuffer source;          // decoded planned channels, rows plan.row_bytes() apart
  bool has_alpha = false;
  OutputPlan outputs;
  PinnedBuffer encoded;         // every output image back to back
  std::vector<EncodedImage> images;
  float exposure_scale = 1;     // what was applied (auto exposure result), for the report
  std::vector<std::string> written;
};

}  // namespace gp::tonemap
