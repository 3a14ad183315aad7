#pragma once
// OpenImageIO, loaded on first use from a module of its own (libgpuproc_oiio.so). Debian's
// libOpenImageIO pulls in about 250 shared libraries (OpenCV, GDAL, GStreamer...) whose loading
// and symbol binding cost a quarter of a second at every start of a program linked to it, also
// for jobs that never touch it (EXR in through OpenEXR's Core library, PNG out through our
// encoder). No OpenImageIO header is needed to use it.
#include <memory>
#include <string>
#include <vector>

#include "core/views.hpp"
#include "io/image_source.hpp"

namespace gp::io {

struct WriteOptions;

// One subimage and MIP level of an image, opened for `gpuproc compare`, read a row of floats at
// a time.
class FloatImage {
 public:
  virtual ~FloatImage() = default;
  int width = 0, height = 0, depth = 1, channels = 0;
  int x = 0, y = 0;               // data window origin
  bool integer_format = false;    // integer samples read as k / (2^bits - 1)
  int subimages = 1;              // in the file (EXR parts, TIFF pages)
  int miplevels = 1;              // of this subimage (tiled MIP-mapped TIFF/EXR)
  std::vector<std::string> channel_names;
  // Row `row` (0-based from the top of the data window) as floats. Throws std::runtime_error.
  virtual void read_row(int row, std::vector<float>& values) const = 0;
};

// A file's pages (subimages: the pages of a multi-page TIFF, or the one image of a single-page file)
// read as grey values for volume stacks. One object per thread.
class GreyPages {
 public:
  virtual ~GreyPages() = default;
  int pages = 0;
  int width = 0, height = 0;  // of page 0; read_page checks the others
  std::string format_name;    // "tiff"
  std::string sample_type;    // of page 0: "uint16", "float", ...
  // Page `page` as width * height values in stored units (integers are not scaled to 0..1), rows
  // top to bottom. Throws std::runtime_error for a page of another size or with several channels.
  virtual void read_page(int page, float* values) = 0;
};

class OiioModule {
 public:
  virtual ~OiioModule() = default;
  virtual std::unique_ptr<ImageSource> open_source(const std::string& path) const = 0;
  // Non-PNG outputs (checked by the caller); throw gp::ItemError(path, "encode", ...).
  virtual void write_image(const std::string& path, const ImageView& image, const WriteOptions& options) const = 0;
  virtual void write_mip_image(const std::string& path, const std::vector<ImageView>& levels,
                               const WriteOptions& options) const = 0;
  virtual bool can_write_extension(const std::string& extension) const = 0;  // ".webp": lowercase, with its dot
  // Throws std::runtime_error saying why the file (or that subimage or level) cannot be read.
  virtual std::unique_ptr<FloatImage> open_float_image(const std::string& path, int subimage = 0,
                                                       int miplevel = 0) const = 0;
  // Throws std::runtime_error saying why the file cannot be read (or has more than one channel).
  virtual std::unique_ptr<GreyPages> open_grey_pages(const std::string& path) const = 0;
  virtual std::string version() const = 0;
  virtual std::string formats() const = 0;
};

// The module, loaded on the first call (thread-safe): from $GPUPROC_OIIO_MODULE, else
// ../lib/gpuproc/ beside the executable (installed), else the build tree. Throws gp::Error naming
// the places it tried when none loads.
const OiioModule& oiio_module();

}  // namespace gp::io

// The module's entry point.
extern "C" const gp::io::OiioModule* gpuproc_oiio_module();
