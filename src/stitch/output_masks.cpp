#include "stitch/output_masks.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "io/oiio_module.hpp"
#include "io/png_encoder.hpp"
#include "stitch/projector.hpp"

namespace gp::stitch {
namespace {

// The mask image as 1 channel, 0 where it is dark (mean of its colour channels below half).
std::vector<std::uint8_t> read_mask_image(const std::string& path, int& width, int& height) {
  std::unique_ptr<io::FloatImage> image;
  try {
    image = io::oiio_module().open_float_image(path);
  } catch (const std::exception& e) {
    throw UsageError("/mask/image: " + path + ": " + e.what());
  }
  if (image->width < 2 || image->height < 1 || image->channels < 1)
    throw UsageError("/mask/image: " + path + ": not an image with pixels");
  width = image->width, height = image->height;
  const int colours = image->channels >= 3 ? 3 : 1;
  std::vector<std::uint8_t> mask(std::size_t(width) * height);
  std::vector<float> row;
  for (int y = 0; y < height; ++y) {
    try {
      image->read_row(y, row);
    } catch (const std::exception& e) {
      throw UsageError("/mask/image: " + path + ": " + e.what());
    }
    for (int x = 0; x < width; ++x) {
      float sum = 0;
      for (int c = 0; c < colours; ++c) sum += row[std::size_t(x) * image->channels + c];
      mask[std::size_t(y) * width + x] = sum >= 0.5f * colours ? 255 : 0;
    }
  }
  return mask;
}

}  // namespace

ImageView OutputMask::view() const {
  return packed_view(const_cast<std::uint8_t*>(pixels.data()), width, height, 1, PixelType::u8);
}

std::vector<std::uint8_t> panorama_mask(const ImageView& image, double nadir_deg, int width, int height) {
  std::vector<std::uint8_t> mask(std::size_t(width) * height, 255);
  for (int y = 0; y < height; ++y) {
    // Latitude of the row's centre, as the projections place equirect rows.
    const double latitude = 90.0 - (y + 0.5) * 180.0 / height;
    std::uint8_t* out = &mask[std::size_t(y) * width];
    if (nadir_deg > 0 && latitude < nadir_deg - 90.0) {
      std::fill(out, out + width, std::uint8_t(0));
      continue;
    }
    if (!image.data) continue;
    const int sy = std::min(image.height - 1, int(std::floor((y + 0.5) * image.height / height)));
    const std::uint8_t* in = image.row<std::uint8_t>(sy);
    for (int x = 0; x < width; ++x) out[x] = in[std::min(image.width - 1, int(std::floor((x + 0.5) * image.width / width)))];
  }
  return mask;
}

OutputMasks::OutputMasks(const Settings& settings) : settings_(settings) {
  settings_.interpolation = "nearest";
  settings_.antialias = false;
  const MaskConfig& m = settings.mask;
  if (!m.enabled) return;
  std::vector<std::uint8_t> image;
  int image_width = 0, image_height = 0;
  if (!m.image.empty()) image = read_mask_image(m.image, image_width, image_height);
  // The mask image's own size; a nadir cap alone is exact enough at 8192 x 4096 (0.04 degrees).
  panorama_width_ = image.empty() ? 8192 : image_width;
  panorama_height_ = image.empty() ? 4096 : image_height;
  const ImageView image_view = image.empty() ? ImageView{} : packed_view(image.data(), image_width, image_height, 1, PixelType::u8);
  panorama_ = panorama_mask(image_view, m.nadir_deg, panorama_width_, panorama_height_);
}

std::shared_ptr<const OutputMaskSet> OutputMasks::masks_for(const std::vector<PlannedOutput>& plan) {
  std::vector<std::pair<int, int>> sizes;
  for (const PlannedOutput& p : plan) sizes.emplace_back(p.width, p.height);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = sets_.find(sizes);
  if (found != sets_.end()) return found->second;

  std::vector<OutputImage> outputs;
  for (const PlannedOutput& p : plan) outputs.push_back(OutputImage{p});
  const Projector projector(settings_);
  std::vector<std::uint8_t> panorama = panorama_;
  projector.run_cpu(packed_view(panorama.data(), panorama_width_, panorama_height_, 1, PixelType::u8), outputs);
  auto set = std::make_shared<OutputMaskSet>();
  for (OutputImage& o : outputs) {
    OutputMask mask;
    mask.width = o.plan.width, mask.height = o.plan.height;
    mask.pixels = std::move(o.pixels);
    mask.png = io::encode_png(mask.view(), 9);
    set->push_back(std::move(mask));
  }
  sets_.emplace(sizes, set);
  return set;
}

}  // namespace gp::stitch
