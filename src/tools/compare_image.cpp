// Images (any format OpenImageIO reads): every subimage (EXR parts, TIFF pages) and every MIP level
// (tonemap-exr's tiled MIP TIFF/EXR), pixel by pixel. The measuring is shared with video frames.
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "tools/compare_parts.hpp"
#include "io/oiio_module.hpp"

namespace gp::tools::compare {
namespace {

// Integer samples come out as k / (2^bits - 1) in float, so the same value stored at two bit
// depths (8-bit PNG, 16-bit TIFF) may differ by a float rounding step (~6e-8), and one 8-bit step
// is not exactly 1/255. Differences this small are noise for integer formats: far below one
// 16-bit step (1.5e-5). Float formats get no slack, so tolerance 0 stays exact for them.
constexpr double integer_rounding_slack = 1e-6;

std::unique_ptr<FloatImage> open_image(const std::string& path, int subimage, int miplevel) {
  try {
    return oiio_module().open_float_image(path, subimage, miplevel);
  } catch (const std::exception& e) {
    throw Uncomparable(e.what());
  }
}

// Row y of `image`; a failure to read it means the file cannot be compared.
void read_row(const FloatImage& image, int y, std::vector<float>& row) {
  try {
    image.read_row(y, row);
  } catch (const std::exception& e) {
    throw Uncomparable(e.what());
  }
}

std::string channel_name(const FloatImage& image, int c) {
  const std::string name = image.channel_names[std::size_t(c)];
  return name.empty() ? "channel" + std::to_string(c) : name;
}

}  // namespace

double ImageDifference::psnr_db() const {
  const double mse = sum_squares / double(std::max<std::size_t>(samples, 1));
  return mse > 0 ? 10 * std::log10(1 / mse) : std::numeric_limits<double>::infinity();
}

bool ImageDifference::acceptable(const CompareOptions& o) const {
  return pixels_over_tolerance == 0 || (o.min_psnr_db > 0 && psnr_db() >= o.min_psnr_db);
}

std::optional<std::string> image_shape_difference(const FloatImage& a, const FloatImage& b) {
  if (a.width == b.width && a.height == b.height && a.depth == b.depth && a.channels == b.channels) return std::nullopt;
  return fmt::format("size {}x{} with {} channel(s) differs from {}x{} with {}", a.width, a.height, a.channels, b.width,
                     b.height, b.channels);
}

// Samples differing by more than the integer noise make a pixel differ; beyond the tolerances, fail.
ImageDifference measure_images(const FloatImage& a, const FloatImage& b, const CompareOptions& o) {
  const bool integer = a.integer_format || b.integer_format;
  CompareOptions limits = o;
  limits.tolerance += integer ? integer_rounding_slack : 0.0;
  const double noise = integer ? integer_rounding_slack : 0.0;
  const int channels = a.channels;
  ImageDifference d;
  d.channel_max.assign(std::size_t(channels), 0.0);
  std::vector<float> row_a, row_b;
  for (int y = 0; y < a.height; ++y) {
    read_row(a, y, row_a);
    read_row(b, y, row_b);
    for (int x = 0; x < a.width; ++x) {
      bool differs = false, over = false;
      for (int c = 0; c < channels; ++c) {
        const std::size_t i = std::size_t(x) * std::size_t(channels) + std::size_t(c);
        const double diff = abs_difference(row_a[i], row_b[i]);
        d.sum_squares += diff * diff;
        ++d.samples;
        differs = differs || diff > noise;
        over = over || !numbers_close(row_a[i], row_b[i], limits, /*relative=*/!integer);
        d.channel_max[std::size_t(c)] = std::max(d.channel_max[std::size_t(c)], diff);
        if (diff > d.worst) {
          d.worst = diff;
          d.worst_x = a.x + x;
          d.worst_y = a.y + y;
          d.worst_channel = c;
        }
      }
      d.differing_pixels += differs;
      d.pixels_over_tolerance += over;
    }
  }
  return d;
}

json image_metrics(const FloatImage& image, const ImageDifference& d) {
  json channel_max = json::object();
  for (int c = 0; c < image.channels; ++c)
    channel_max[channel_name(image, c)] = finite_or_null(d.channel_max[std::size_t(c)]);
  json metrics{{"max_abs_difference", channel_max},
               {"differing_pixels", d.differing_pixels},
               {"pixels_over_tolerance", d.pixels_over_tolerance},
               {"psnr_db", finite_or_null(d.psnr_db())}};
  if (d.worst > 0)
    metrics["worst"] = {{"x", d.worst_x}, {"y", d.worst_y}, {"channel", channel_name(image, d.worst_channel)}};
  return metrics;
}

std::string describe_image_difference(const FloatImage& image, const ImageDifference& d, const CompareOptions& o) {
  std::vector<std::string> channel_max;
  for (int c = 0; c < image.channels; ++c)
    channel_max.push_back(fmt::format("{} {:.6g}", channel_name(image, c), d.channel_max[std::size_t(c)]));
  const std::string relative = !image.integer_format && o.relative_tolerance > 0
                                   ? fmt::format(" and {:.6g} relative", o.relative_tolerance)
                                   : std::string();
  return fmt::format("{} of {} pixels differ by more than {:.6g}{} (max abs difference {}; worst at x={} y={}; "
                     "PSNR {:.2f} dB{})",
                     d.pixels_over_tolerance, std::size_t(image.width) * std::size_t(image.height), o.tolerance, relative,
                     fmt::join(channel_max, ", "), d.worst_x, d.worst_y, d.psnr_db(),
                     o.min_psnr_db > 0 ? fmt::format(", below {:.2f}", o.min_psnr_db) : std::string());
}

FileComparison compare_images(const std::string& a, const std::string& b, const CompareOptions& o) {
  FileComparison result;
  // One level of each file in memory at a time.
  std::unique_ptr<FloatImage> ia = open_image(a, 0, 0), ib = open_image(b, 0, 0);
  const int subimages = std::min(ia->subimages, ib->subimages);
  if (ia->subimages != ib->subimages) result.differ(fmt::format("{} subimages vs {} in {}", ia->subimages, ib->subimages, b));
  const bool several_levels = ia->subimages > 1 || ia->miplevels > 1;  // then messages name the level
  json levels = json::array();
  for (int s = 0; s < subimages; ++s) {
    if (s > 0) ia = open_image(a, s, 0), ib = open_image(b, s, 0);
    if (ia->miplevels != ib->miplevels)
      result.differ(fmt::format("subimage {}: {} MIP levels vs {} in {}", s, ia->miplevels, ib->miplevels, b));
    const int miplevels = std::min(ia->miplevels, ib->miplevels);
    for (int m = 0; m < miplevels; ++m) {
      if (m > 0) ia = open_image(a, s, m), ib = open_image(b, s, m);
      const std::string where = several_levels ? fmt::format("subimage {} MIP level {}: ", s, m) : "";
      json metrics{{"width", ia->width}, {"height", ia->height}, {"channels", ia->channels}};
      bool equal = false;
      if (const auto shape = image_shape_difference(*ia, *ib)) {
        result.differ(fmt::format("{}{} in {}", where, *shape, b));
      } else {
        const ImageDifference d = measure_images(*ia, *ib, o);
        metrics.update(image_metrics(*ia, d));
        equal = d.acceptable(o);
        if (!equal) result.differ(where + describe_image_difference(*ia, d, o));
      }
      if (levels.empty()) result.details = metrics;  // the first level's at the top, as for a single image
      levels.push_back(json{{"subimage", s}, {"miplevel", m}, {"equal", equal}});
      levels.back().update(metrics);
    }
  }
  if (levels.size() > 1) result.details["levels"] = std::move(levels);
  return result;
}

}  // namespace gp::tools::compare
