#pragma once
// Output masks (/mask): the configured panorama-space mask (an equirect image and/or the nadir
// cap) projected into each output's geometry with nearest sampling, 255 keep and 0 drop. A mask
// depends only on the outputs' geometry, not on the panorama's pixels, so each set is made once
// (per set of output sizes) and shared by every panorama, together with its PNG bytes.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/views.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {

struct OutputMask {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // 1 channel, packed: 255 keep, 0 drop
  std::vector<std::uint8_t> png;     // the same as a PNG file
  ImageView view() const;
};

using OutputMaskSet = std::vector<OutputMask>;  // in the order of a panorama's planned outputs

// The panorama-space mask, width x height (2:1): `image` (1 channel, any size, resampled nearest;
// data == nullptr: all kept) with the cap within `nadir_deg` of the nadir dropped.
std::vector<std::uint8_t> panorama_mask(const ImageView& image, double nadir_deg, int width, int height);

class OutputMasks {
 public:
  // Reads /mask/image now, so a missing or unreadable file fails the job before any panorama
  // (gp::UsageError naming the file and the field).
  explicit OutputMasks(const Settings& settings);

  // The masks of `plan` (one panorama's outputs). Thread-safe.
  std::shared_ptr<const OutputMaskSet> masks_for(const std::vector<PlannedOutput>& plan);

 private:
  Settings settings_;  // a copy with nearest sampling and no antialiasing, for the projector
  std::vector<std::uint8_t> panorama_;
  int panorama_width_ = 0, panorama_height_ = 0;
  std::mutex mutex_;
  std::map<std::vector<std::pair<int, int>>, std::shared_ptr<const OutputMaskSet>> sets_;  // by output sizes
};

}  // namespace gp::stitch
