#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/peak_test.hpp"
#include "cuda/pnm/peaks.hpp"

namespace gp::pnm {

std::vector<std::uint32_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max) {
  const auto ball = peak_detail::make_ball(spacing, r_max);
  std::vector<std::vector<std::uint32_t>> per_slice(std::size_t(mask.nz));
  parallel_for(long(mask.nz), [&](long z0, long z1) {
    for (long z = z0; z < z1; ++z)
      for (int y = 0; y < mask.ny; ++y)
        for (int x = 0; x < mask.nx; ++x)
          if (peak_detail::is_peak(mask.data, distance.data, mask.nx, mask.ny, mask.nz, x, y, int(z), ball))
            per_slice[std::size_t(z)].push_back(std::uint32_t(mask.offset(x, y, int(z))));
  }, 1);
  std::vector<std::uint32_t> peaks;
  for (const auto& s : per_slice) peaks.insert(peaks.end(), s.begin(), s.end());
  return peaks;
}

}  // namespace gp::pnm
