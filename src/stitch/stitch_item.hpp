#pragma once
// One panorama travelling through the stitch-360 pipeline: load -> compute -> save.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/views.hpp"
#include "cuda/frames/frame.hpp"
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
  std::vector<std::uint8_t> pixels;  // RGB, packed; or a video frame's YUV planes (`yuv`)
  // A video frame left as decoded for the GPU worker to convert (8-bit outputs on a GPU): its
  // YUV 4:2:0 planes packed in `pixels` (frames::frame_at's layout, half the bytes of RGB to
  // upload, no conversion on the host) and described here over that buffer; `panorama` then has
  // the frame's size and no data.
  std::optional<frames::FrameSource> yuv;
  ImageView panorama;                // size and channels always; data only when decoded on the host
  std::vector<OutputImage> outputs;  // pixels, or `encoded` when the GPU encoded them
  std::shared_ptr<const OutputMaskSet> masks;  // with /mask/enabled: one per output
  std::vector<std::string> written;
};

}  // namespace gp::stitch
