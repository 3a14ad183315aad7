// Images for `gpuproc compare`, any format OpenImageIO reads, as rows of floats.
#include <OpenImageIO/imagebuf.h>

#include <stdexcept>

#include "io/oiio/module_parts.hpp"

namespace gp::io::oiio {
namespace {

class OiioFloatImage final : public FloatImage {
 public:
  explicit OiioFloatImage(const std::string& path) : image_(path) {
    if (!image_.read(0, 0, /*force=*/true)) throw std::runtime_error("cannot read " + path + ": " + image_.geterror());
    if (image_.deep()) throw std::runtime_error(path + ": deep images are not supported");
    const auto& spec = image_.spec();
    width = spec.width;
    height = spec.height;
    depth = spec.depth;
    channels = spec.nchannels;
    x = spec.x;
    y = spec.y;
    integer_format = !spec.format.is_floating_point();
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

std::unique_ptr<FloatImage> open_float_image(const std::string& path) { return std::make_unique<OiioFloatImage>(path); }

}  // namespace gp::io::oiio
