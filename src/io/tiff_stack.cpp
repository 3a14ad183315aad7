#include "io/tiff_stack.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "io/oiio_module.hpp"

namespace gp::io {
namespace {

std::unique_ptr<GreyPages> open_pages(const std::string& path) {
  try {
    return oiio_module().open_grey_pages(path);
  } catch (const ItemError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw ItemError(path, "load", e.what());
  }
}

class TiffSource final : public SliceSource {
 public:
  TiffSource(const std::vector<std::string>& files, const VolumeReadOptions& options)
      : files_(files), slope_(options.slope), intercept_(options.intercept) {
    auto first = open_pages(files.front());
    multi_page_ = files.size() == 1;
    dims = {first->width, first->height, multi_page_ ? first->pages : int(files.size())};
    name = files.front();
    if (options.spacing_given) spacing = options.spacing;
    const std::string kind = first->format_name == "tiff" ? "TIFF" : first->format_name;
    description = multi_page_ ? "multi-page " + kind + ", " + std::to_string(dims.nz) + " pages, " + first->sample_type
                              : kind + " stack, " + std::to_string(dims.nz) + " files, " + first->sample_type;
  }

  std::unique_ptr<SliceReader> reader() const override { return std::make_unique<Reader>(*this); }

 private:
  class Reader final : public SliceReader {
   public:
    explicit Reader(const TiffSource& source) : source_(source) {}

    void read(int z, float* values) override {
      const auto& s = source_;
      const std::string& path = s.multi_page_ ? s.files_.front() : s.files_[std::size_t(z)];
      if (!s.multi_page_ || !pages_) pages_ = open_pages(path);
      if (!s.multi_page_) {
        if (pages_->pages != 1)
          throw ItemError(path, "load", "has " + std::to_string(pages_->pages) +
                                            " pages; the files of a stack need one page each");
        if (pages_->width != s.dims.nx || pages_->height != s.dims.ny)
          throw ItemError(path, "load", "is " + std::to_string(pages_->width) + "x" + std::to_string(pages_->height) +
                                            ", " + s.files_.front() + " is " + std::to_string(s.dims.nx) + "x" +
                                            std::to_string(s.dims.ny));
      }
      try {
        pages_->read_page(s.multi_page_ ? z : 0, values);
      } catch (const std::runtime_error& e) {
        throw ItemError(path, "load", e.what());
      }
      if (s.slope_ != 1 || s.intercept_ != 0)
        for (std::size_t i = 0, n = s.dims.slice_voxels(); i < n; ++i)
          values[i] = float(double(values[i]) * s.slope_ + s.intercept_);
    }

   private:
    const TiffSource& source_;
    std::unique_ptr<GreyPages> pages_;  // a multi-page file stays open for the reader's next pages
  };

  std::vector<std::string> files_;
  double slope_, intercept_;
  bool multi_page_ = false;
};

}  // namespace

std::unique_ptr<SliceSource> open_tiff_stack(const std::vector<std::string>& files, const VolumeReadOptions& options) {
  return std::make_unique<TiffSource>(files, options);
}

}  // namespace gp::io
