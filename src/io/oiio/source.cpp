// HDR sources through OpenImageIO: .hdr, float TIFF, and the EXRs OpenEXR's Core library does not
// read (DWAA/DWAB, subsampled channels).
#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"
#include "io/oiio/errors.hpp"
#include "io/oiio/module_parts.hpp"

namespace gp::io {
namespace {

using OIIO::ImageInput;
using OIIO::TypeDesc;

SourcePart describe(const OIIO::ImageSpec& spec) {
  SourcePart part;
  part.name = spec.get_string_attribute("oiio:subimagename");
  part.channels = spec.channelnames;
  for (int c = 0; c < spec.nchannels; ++c) part.channel_is_half.push_back(spec.channelformat(c) == TypeDesc::HALF);
  part.width = spec.width;  // the data window: pixels outside it are not stored
  part.height = spec.height;
  part.y_begin = spec.y;
  part.tiled = spec.tile_width > 0;
  part.deep = spec.deep;
  part.volume = spec.depth > 1;
  return part;
}

// Rows [y0, y1) of the planned channel range (y relative to the data window) into dst's rows.
bool read_rows(ImageInput& input, const ReadPlan& plan, int y0, int y1, void* dst, std::size_t pitch) {
  const TypeDesc type = plan.type == PixelType::f16 ? TypeDesc::HALF : TypeDesc::FLOAT;
  const auto pixel_bytes = OIIO::stride_t(plan.channels.size() * pixel_type_bytes(plan.type));
  const int begin = plan.channels.front(), end = plan.channels.back() + 1;
  auto* first_row = static_cast<unsigned char*>(dst) + pitch * std::size_t(y0);
  if (y0 == 0 && y1 == plan.height)
    return input.read_image(plan.subimage, 0, begin, end, type, first_row, pixel_bytes, OIIO::stride_t(pitch));
  return input.read_scanlines(plan.subimage, 0, plan.y_begin + y0, plan.y_begin + y1, 0, begin, end, type, first_row,
                              pixel_bytes, OIIO::stride_t(pitch));
}

class OiioSource final : public ImageSource {
 public:
  explicit OiioSource(std::string path) : path_(std::move(path)) {
    input_ = ImageInput::open(path_);
    if (!input_) throw ItemError(path_, "decode", oiio_message(OIIO::geterror(), "cannot open the file"));
    for (int s = 0; input_->seek_subimage(s, 0); ++s) parts_.push_back(describe(input_->spec()));
    input_->geterror();  // seeking past the last subimage leaves an error; it is expected
    if (parts_.empty()) throw ItemError(path_, "decode", "the file has no images");
  }

  const std::vector<SourcePart>& parts() const override { return parts_; }
  std::string format_name() const override { return input_->format_name(); }
  bool reads_channel_ranges() const override { return true; }

  // threads > 1 splits a scanline file's rows into that many bands, each decoded through its own
  // handle on the file: one file then keeps several cores busy.
  void read(const ReadPlan& plan, void* dst, std::size_t pitch, int threads) override {
    // Bands of whole 64-row groups, so compressed blocks (16 or 32 rows) are not decoded twice.
    constexpr int kRowAlign = 64;
    int strips = std::max(1, threads);
    const int rows_per_strip = (plan.height / strips + kRowAlign - 1) / kRowAlign * kRowAlign;
    if (plan.tiled || rows_per_strip >= plan.height) strips = 1;

    std::vector<std::string> errors(static_cast<std::size_t>(strips));
    auto run_strip = [&](int k) {
      const int y0 = k * rows_per_strip, y1 = strips == 1 ? plan.height : std::min(plan.height, y0 + rows_per_strip);
      if (y0 >= y1) return;
      try {
        std::unique_ptr<ImageInput> own;
        ImageInput* input = input_.get();
        if (k > 0) {
          own = ImageInput::open(path_);
          if (!own) throw std::runtime_error(oiio_message(OIIO::geterror(), "cannot open the file again"));
          input = own.get();
        }
        if (!read_rows(*input, plan, y0, y1, dst, pitch))
          errors[std::size_t(k)] = oiio_message(input->geterror(), "the pixels could not be read");
      } catch (const std::exception& e) {  // plugins catch their libraries' exceptions; this is a backstop
        errors[std::size_t(k)] = e.what();
      }
    };
    std::vector<std::thread> helpers;
    for (int k = 1; k < strips; ++k) helpers.emplace_back(run_strip, k);
    run_strip(0);
    for (auto& t : helpers) t.join();
    for (auto& e : errors)
      if (!e.empty()) throw ItemError(path_, "decode", e);
  }

 private:
  std::string path_;
  std::unique_ptr<ImageInput> input_;
  std::vector<SourcePart> parts_;
};

}  // namespace

namespace oiio {
std::unique_ptr<ImageSource> open_source(const std::string& path) { return std::make_unique<OiioSource>(path); }
}  // namespace oiio

}  // namespace gp::io
