// Images for `gpuproc compare`, any format OpenImageIO reads, as rows of floats: one subimage
// and MIP level at a time.
#include <OpenImageIO/imagebuf.h>

#include <stdexcept>

#include "io/oiio/module_parts.hpp"

namespace gp::io::oiio {
namespace {

// " (subimage 1, MIP level 2)" for messages; "" for the first image.
std::string level_name(int subimage, int miplevel) {
  if (subimage == 0 && miplevel == 0) return "";
  return " (subimage " + std::to_string(subimage) + ", MIP level " + std::to_string(miplevel) + ")";
}

class OiioFloatImage final : public FloatImage {
 public:
  OiioFloatImage(const std::string& path, int subimage, int miplevel) : image_(path, subimage, miplevel) {
    if (!image_.read(subimage, miplevel, /*force=*/true))
      throw std::runtime_error("cannot read " + path + level_name(subimage, miplevel) + ": " + image_.geterror());
    if (image_.deep()) throw std::runtime_error(path + ": deep images are not supported");
    const auto& spec = image_.spec();
    width = spec.width;
    height = spec.height;
    depth = spec.depth;
    channels = spec.nchannels;
    x = spec.x;
    y = spec.y;
    integer_format = !spec.format.is_floating_point();
    subimages = image_.nsubimages();
    miplevels = image_.nmiplevels();
    for (int c = 0; c < channels; ++c) channel_names.push_back(spec.channel_name(c));
  }

  void read_row(int row, std::vector<float>& values) const override {
    const auto& spec = image_.spec();
    values.resize(std::size_t(spec.width) * std::size_t(spec.nchannels));
    const OIIO::ROI roi(spec.x, spec.x + spec.width, spec.y + row, spec.y + row + 1, spec.z, spec.z + 1, 0, spec.nchannels);
    if (!image_.get_pixels(roi, OIIO::TypeFloat, values.data()))
      throw std::runtime_error("cannot read pixels of " + std::string(image_.name()) + ": " + image_.geterror());
  }

 private:
  OIIO::ImageBuf image_;
};

}  // namespace

std::unique_ptr<FloatImage> open_float_image(const std::string& path, int subimage, int miplevel) {
  return std::make_unique<OiioFloatImage>(path, subimage, miplevel);
}

}  // namespace gp::io::oiio
