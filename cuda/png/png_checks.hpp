#pragma once
// Argument checks shared by the fast-PNG launchers and their CPU references.
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "core/views.hpp"
#include "cuda/png/png_kernels.hpp"

namespace gp::png::checks {

using kernel_checks::require;

inline void check_filter(const ImageView& image, const std::uint8_t* filtered, const char* function) {
  require(image.type == PixelType::u8 || image.type == PixelType::u16, function, "image must be u8 or u16");
  require(image.channels >= 1 && image.channels <= 4, function, "image must have 1 to 4 channels");
  require(image.width >= 1 && image.height >= 1 && image.data && image.pitch >= image.row_bytes(), function,
          "bad image view (" + std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
  require(image.height <= 2147483647 && filtered != nullptr, function, "no output buffer");
}

inline void check_stream(const std::uint8_t* filtered, std::size_t n, const char* function) {
  require(filtered != nullptr && n > 0, function, "no filtered bytes");
}

}  // namespace gp::png::checks
