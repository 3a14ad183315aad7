#include "cuda/stitch/sharpness.hpp"

namespace gp::stitch {

LaplacianSums laplacian_sums_cpu(const ImageView& luma) {
  LaplacianSums s;
  for (int y = 1; y + 1 < luma.height; ++y) {
    const std::uint8_t* up = luma.row<std::uint8_t>(y - 1);
    const std::uint8_t* row = luma.row<std::uint8_t>(y);
    const std::uint8_t* down = luma.row<std::uint8_t>(y + 1);
    for (int x = 1; x + 1 < luma.width; ++x) {
      const std::int64_t l = int(up[x]) + int(down[x]) + int(row[x - 1]) + int(row[x + 1]) - 4 * int(row[x]);
      s.sum += l;
      s.sum_squares += l * l;
    }
  }
  return s;
}

double laplacian_variance(const LaplacianSums& sums, int width, int height) {
  const double n = double(width - 2) * double(height - 2);
  if (width < 3 || height < 3) return 0.0;
  const double mean = double(sums.sum) / n;
  return double(sums.sum_squares) / n - mean * mean;
}

}  // namespace gp::stitch
