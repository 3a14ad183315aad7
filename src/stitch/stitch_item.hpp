#pragma once
// One panorama travelling through the stitch-360 pipeline: load -> compute -> save.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/views.hpp"
#include "stitch/output_masks.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/projector.hpp"

namespace gp::stitch {

struct StitchItem : PipelineItem {
  std::size_t input = 0;          // its input (a still panorama, or the video it is a frame of)
  std::optional<FrameTag> frame;  // a video's frame: its index and time in the output names
  // The JPEG's bytes when the GPU decodes it (nvJPEG), else empty and `pixels` holds the decoded
  // panorama on the host.
  std::vector<std::uint8_t> file;
  std::vector<std::uint8_t> pixels;  // RGB, packed
  ImageView panorama;                // size and channels always; data only when decoded on the host
  std::vector<OutputImage> outputs;  // pixels, or `encoded` when the GPU encoded them
  std::shared_ptr<const OutputMaskSet> masks;  // with /mask/enabled: one per output
  std::vector<std::string> written;
};

}  // namespace gp::stitch
