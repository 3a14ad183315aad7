#include "io/tiff_stack.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "io/oiio_module.hpp"
#include "io/parallel_items.hpp"

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
    if (!multi_page_) {
      check_numbering(files);
      check_headers(files, *first, options.threads > 0 ? options.threads : int(cpu_thread_count()));
    }
    if (options.spacing_given) spacing = options.spacing;
    const std::string kind = first->format_name == "tiff" ? "TIFF" : first->format_name;
    description = multi_page_ ? "multi-page " + kind + ", " + std::to_string(dims.nz) + " pages, " + first->sample_type
                              : kind + " stack, " + std::to_string(dims.nz) + " files, " + first->sample_type;
  }

  std::unique_ptr<SliceReader> reader() const override { return std::make_unique<Reader>(*this); }

 private:
  // Every file's header before any slice is read: one page of the first file's size and type.
  static void check_headers(const std::vector<std::string>& files, const GreyPages& first, int threads) {
    for_each_item(int(files.size()) - 1, threads, [&](int i) {
      const std::string& path = files[std::size_t(i) + 1];
      const auto pages = open_pages(path);
      if (pages->pages != 1)
        throw ItemError(path, "load", "has " + std::to_string(pages->pages) + " pages; the files of a stack need one page each");
      if (pages->width != first.width || pages->height != first.height)
        throw ItemError(path, "load", "is " + std::to_string(pages->width) + "x" + std::to_string(pages->height) + ", " +
                                          files.front() + " is " + std::to_string(first.width) + "x" +
                                          std::to_string(first.height) + ": the slices of a stack need one size");
      if (pages->sample_type != first.sample_type)
        throw ItemError(path, "load", "holds " + pages->sample_type + " samples, " + files.front() + " " +
                                          first.sample_type + ": the slices of a stack need one sample type");
    });
  }

  // Files named alike with a number (scan_0001.tif, scan_0002.tif, ...): the numbers must follow
  // each other by one step (the commonest), else a slice file is missing (or one is extra).
  static void check_numbering(const std::vector<std::string>& files) {
    struct Name {
      std::string prefix, suffix;
      long long number = -1;
    };
    std::vector<Name> names;
    for (const auto& path : files) {
      const std::string file = std::filesystem::path(path).filename().string();
      const std::size_t end = file.find_last_of("0123456789");
      if (end == std::string::npos) return;  // not numbered: nothing to check
      std::size_t begin = end;
      while (begin > 0 && std::isdigit(static_cast<unsigned char>(file[begin - 1]))) --begin;
      if (end + 1 - begin > 17) return;
      names.push_back({file.substr(0, begin), file.substr(end + 1), std::stoll(file.substr(begin, end + 1 - begin))});
    }
    if (names.size() < 3) return;
    for (const auto& n : names)
      if (n.prefix != names.front().prefix || n.suffix != names.front().suffix) return;  // mixed names
    std::map<long long, int> steps;
    for (std::size_t i = 1; i < names.size(); ++i) ++steps[names[i].number - names[i - 1].number];
    const long long step = std::max_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
                             return a.second < b.second;
                           })->first;
    if (step <= 0) return;
    for (std::size_t i = 1; i < names.size(); ++i) {
      const long long gap = names[i].number - names[i - 1].number;
      if (gap == step) continue;
      const long long missing = gap / step - 1;
      throw ItemError(files[i], "load",
                      gap > step && gap % step == 0
                          ? std::to_string(missing) + " slice file" + (missing > 1 ? "s" : "") + " missing before it: the stack's numbers go " +
                                std::to_string(names[i - 1].number) + " (" + files[i - 1] + "), " + std::to_string(names[i].number) +
                                ", the other files step by " + std::to_string(step)
                          : "its number " + std::to_string(names[i].number) + " does not follow " +
                                std::to_string(names[i - 1].number) + " (" + files[i - 1] + ") by the stack's step of " +
                                std::to_string(step));
    }
  }

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
