// Grey pages for volume stacks (TIFF stacks, multi-page TIFF): stored values, not normalised.
#include <OpenImageIO/imageio.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "io/oiio/errors.hpp"
#include "io/oiio/module_parts.hpp"

namespace gp::io::oiio {
namespace {

using OIIO::ImageInput;
using OIIO::TypeDesc;

template <class T>
void widen(const unsigned char* bytes, std::size_t count, float* out) {
  for (std::size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, bytes + i * sizeof(T), sizeof(T));
    out[i] = float(v);
  }
}

class OiioGreyPages final : public GreyPages {
 public:
  explicit OiioGreyPages(const std::string& path) : path_(path) {
    input_ = ImageInput::open(path);
    if (!input_) throw std::runtime_error(oiio_message(OIIO::geterror(), "cannot open the file"));
    format_name = input_->format_name();
    const OIIO::ImageSpec& first = input_->spec();
    check_grey(first, 0);
    width = first.width;
    height = first.height;
    sample_type = first.format.c_str();
    for (pages = 1; input_->seek_subimage(pages, 0); ++pages) {
    }
    input_->geterror();  // seeking past the last page leaves an error; it is expected
  }

  void read_page(int page, float* values) override {
    if (page < 0 || page >= pages) throw std::runtime_error("no page " + std::to_string(page));
    if (!input_->seek_subimage(page, 0))
      throw std::runtime_error("page " + std::to_string(page) + ": " + oiio_message(input_->geterror(), "cannot seek"));
    const OIIO::ImageSpec& spec = input_->spec();
    check_grey(spec, page);
    if (spec.width != width || spec.height != height)
      throw std::runtime_error("page " + std::to_string(page) + " is " + std::to_string(spec.width) + "x" +
                               std::to_string(spec.height) + ", page 0 is " + std::to_string(width) + "x" +
                               std::to_string(height));
    const std::size_t count = std::size_t(width) * std::size_t(height);
    const TypeDesc type = spec.format;
    if (type.is_floating_point()) {  // half, float, double: converted without scaling
      if (!input_->read_image(page, 0, 0, 1, TypeDesc::FLOAT, values))
        throw std::runtime_error("page " + std::to_string(page) + ": " + oiio_message(input_->geterror(), "cannot read"));
      return;
    }
    bytes_.resize(count * type.size());
    if (!input_->read_image(page, 0, 0, 1, type, bytes_.data()))
      throw std::runtime_error("page " + std::to_string(page) + ": " + oiio_message(input_->geterror(), "cannot read"));
    const unsigned char* b = bytes_.data();
    switch (type.basetype) {
      case TypeDesc::UINT8: return widen<std::uint8_t>(b, count, values);
      case TypeDesc::INT8: return widen<std::int8_t>(b, count, values);
      case TypeDesc::UINT16: return widen<std::uint16_t>(b, count, values);
      case TypeDesc::INT16: return widen<std::int16_t>(b, count, values);
      case TypeDesc::UINT32: return widen<std::uint32_t>(b, count, values);
      case TypeDesc::INT32: return widen<std::int32_t>(b, count, values);
      default: throw std::runtime_error(std::string("unsupported sample type ") + type.c_str());
    }
  }

 private:
  static void check_grey(const OIIO::ImageSpec& spec, int page) {
    const std::string where = "page " + std::to_string(page) + " has ";
    if (spec.nchannels != 1)
      throw std::runtime_error(where + std::to_string(spec.nchannels) + " channels; volume slices need one grey channel");
    if (spec.depth > 1) throw std::runtime_error(where + "depth " + std::to_string(spec.depth) + "; expected 2-D pages");
    if (spec.deep) throw std::runtime_error(where + "deep data");
  }

  std::string path_;
  std::unique_ptr<ImageInput> input_;
  std::vector<unsigned char> bytes_;
};

}  // namespace

std::unique_ptr<GreyPages> open_grey_pages(const std::string& path) { return std::make_unique<OiioGreyPages>(path); }

}  // namespace gp::io::oiio
