// CPU reference of filter_rows_gpu: the same cost, choice and bytes, row by row.
#include <array>

#include "core/parallel_for.hpp"
#include "cuda/png/png_checks.hpp"
#include "cuda/png/png_math.hpp"

namespace gp::png {

void filter_rows_cpu(const ImageView& image, std::uint8_t* filtered) {
  checks::check_filter(image, filtered, "filter_rows_cpu");
  const std::size_t n = image.row_bytes();
  const std::size_t bpp = std::size_t(image.channels) * pixel_type_bytes(image.type);
  const bool sixteen = image.type == PixelType::u16;
  parallel_for(image.height, [&](long begin, long end) {
    for (long y = begin; y < end; ++y) {
      const auto* row = image.row<const std::uint8_t>(int(y));
      const auto* above = y > 0 ? image.row<const std::uint8_t>(int(y - 1)) : nullptr;
      auto at = [&](std::size_t i, std::uint8_t& x, std::uint8_t& left, std::uint8_t& up) {
        x = math::png_byte(row, sixteen, i);
        left = i >= bpp ? math::png_byte(row, sixteen, i - bpp) : 0;
        up = above ? math::png_byte(above, sixteen, i) : 0;
      };
      std::array<unsigned, math::kFilterCount> cost{};
      for (std::size_t i = 0; i < n; ++i) {
        std::uint8_t x, left, up;
        at(i, x, left, up);
        for (int f = 0; f < math::kFilterCount; ++f) cost[f] += math::filter_cost(math::filtered_byte(f, x, left, up));
      }
      int best = 0;
      for (int f = 1; f < math::kFilterCount; ++f)
        if (cost[f] < cost[best]) best = f;
      std::uint8_t* out = filtered + (n + 1) * std::size_t(y);
      out[0] = std::uint8_t(best);
      for (std::size_t i = 0; i < n; ++i) {
        std::uint8_t x, left, up;
        at(i, x, left, up);
        out[1 + i] = math::filtered_byte(best, x, left, up);
      }
    }
  }, 8);
}

}  // namespace gp::png
