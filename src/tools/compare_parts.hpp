#pragma once
// What compare.cpp (kinds, folders, results) and the comparers of each format family
// (compare_<family>.cpp) share. Internal to `gpuproc compare`.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tools/compare.hpp"

namespace gp::io {
class FloatImage;
}

namespace gp::tools::compare {

// The comparisons read every file through io's readers.
using namespace gp::io;
using json = nlohmann::ordered_json;

// A file that cannot be compared (unreadable, unparseable, of a variant compare does not read):
// the result is "cannot compare" (exit 2), never "different". The message names the file.
class Uncomparable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one pair of files gave; differences without the file name (the caller adds it).
struct FileComparison {
  bool equal = true;
  std::string error;  // why the files could not be compared; empty when they were
  std::vector<std::string> differences;
  json details = json::object();

  void differ(std::string what) {
    equal = false;
    differences.push_back(std::move(what));
  }
};

// The two tolerances of CompareOptions; NaN equals NaN and an infinity only the same infinity.
inline bool numbers_close(double a, double b, const CompareOptions& o, bool relative = true) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  if (std::isinf(a) || std::isinf(b)) return false;  // the relative bound would be infinite
  const double diff = std::fabs(a - b);
  return diff <= o.tolerance || (relative && diff <= o.relative_tolerance * std::max(std::fabs(a), std::fabs(b)));
}

// |a-b| for metrics: 0 where numbers_close calls them the same without tolerance, infinite for a
// NaN against a number or for different infinities.
inline double abs_difference(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
  const double d = std::fabs(a - b);
  return std::isnan(d) ? HUGE_VAL : d;
}

// A JSON number for metrics, null where JSON has none (inf, nan).
inline json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// A value quoted as JSON, for messages ("x.png", 40.0 is "40.0").
std::string quote(std::string_view s);
// Item i of a row of cells or tokens, quoted, or "(none)" past its end; for details, null there.
template <class Strings>
std::string quote_at(const Strings& items, std::size_t i) {
  return i < items.size() ? quote(items[i]) : "(none)";
}
template <class Strings>
json json_at(const Strings& items, std::size_t i) {
  return i < items.size() ? json(std::string(items[i])) : json(nullptr);
}

// Numbers as C writes them ("1.5", "-2e-3", "+3", "inf", "nan"), surrounding blanks allowed;
// locale-free. nullopt for anything else.
std::optional<double> as_number(std::string_view text);

// Whitespace-separated tokens: numbers match within the tolerances, other tokens exactly.
std::vector<std::string_view> split_tokens(std::string_view line, std::string_view separators = " \t\r");
bool tokens_match(std::string_view a, std::string_view b, const CompareOptions& o);

// A regular file's whole text (bounded by its size; a FIFO or device is refused).
std::string read_text(const std::string& path);

// ---- the comparers: each reads both files and throws Uncomparable when one cannot be read ----

FileComparison compare_images(const std::string& a, const std::string& b, const CompareOptions& o);  // compare_image.cpp
FileComparison compare_videos(const std::string& a, const std::string& b, const CompareOptions& o);  // compare_video.cpp
FileComparison compare_nrrd(const std::string& a, const std::string& b, const CompareOptions& o);    // compare_volume.cpp
FileComparison compare_vtp(const std::string& a, const std::string& b, const CompareOptions& o);     // compare_vtp.cpp
FileComparison compare_text(const std::string& a, const std::string& b, const CompareOptions& o);    // compare_text.cpp
FileComparison compare_csv(const std::string& a, const std::string& b, const CompareOptions& o);     // compare_csv.cpp
FileComparison compare_json(const std::string& a, const std::string& b, const CompareOptions& o);    // compare_json.cpp

// ---- images and video frames (compare_image.cpp) ----

// How two images of the same size and channel count differ.
struct ImageDifference {
  std::vector<double> channel_max;  // largest |a-b| per channel
  double sum_squares = 0;
  std::size_t samples = 0, differing_pixels = 0, pixels_over_tolerance = 0;
  int worst_x = 0, worst_y = 0, worst_channel = 0;
  double worst = 0;

  double psnr_db() const;  // peak 1; infinite when identical
  // Within the tolerance everywhere, or (with min_psnr_db) close enough overall.
  bool acceptable(const CompareOptions& o) const;
};

// Why two images cannot be compared pixel by pixel (size or channels), or nullopt.
std::optional<std::string> image_shape_difference(const FloatImage& a, const FloatImage& b);
ImageDifference measure_images(const FloatImage& a, const FloatImage& b, const CompareOptions& o);
json image_metrics(const FloatImage& image, const ImageDifference& d);
// "12 of 100 pixels differ by more than 0 (max abs difference R 0.1, ...; worst at x= y=; PSNR ..)".
std::string describe_image_difference(const FloatImage& image, const ImageDifference& d, const CompareOptions& o);

}  // namespace gp::tools::compare
