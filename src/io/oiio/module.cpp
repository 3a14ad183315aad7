// The entry point of libgpuproc_oiio.so (see io/oiio_module.hpp).
#include <OpenImageIO/imageio.h>

#include "io/oiio/module_parts.hpp"

namespace gp::io::oiio {
namespace {

class Module final : public OiioModule {
 public:
  // A file is read by the reader its extension names, never by each reader in turn: on a
  // zero-filled file (a render killed while writing it, a preallocated copy) the DICOM reader
  // took 40 s and 400 MB per 100 MB, so a large one stalled a batch for hours.
  Module() { OIIO::attribute("try_all_readers", 0); }
  std::unique_ptr<ImageSource> open_source(const std::string& path) const override { return oiio::open_source(path); }
  void write_image(const std::string& path, const ImageView& image, const WriteOptions& options) const override {
    oiio::write_image(path, image, options);
  }
  void write_mip_image(const std::string& path, const std::vector<ImageView>& levels,
                       const WriteOptions& options) const override {
    oiio::write_mip_image(path, levels, options);
  }
  bool can_write_extension(const std::string& extension) const override { return oiio::can_write_extension(extension); }
  std::unique_ptr<FloatImage> open_float_image(const std::string& path, int subimage, int miplevel) const override {
    return oiio::open_float_image(path, subimage, miplevel);
  }
  std::unique_ptr<GreyPages> open_grey_pages(const std::string& path) const override {
    return oiio::open_grey_pages(path);
  }
  std::string version() const override { return OIIO::get_string_attribute("version"); }
  std::string formats() const override { return OIIO::get_string_attribute("format_list"); }
};

}  // namespace
}  // namespace gp::io::oiio

extern "C" __attribute__((visibility("default"))) const gp::io::OiioModule* gpuproc_oiio_module() {
  static const gp::io::oiio::Module module;
  return &module;
}
