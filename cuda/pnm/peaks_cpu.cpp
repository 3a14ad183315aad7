#include <string>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/peak_test.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {

int peak_halo(Spacing spacing, float r_max) { return peak_detail::make_ball(spacing, r_max).rz; }

namespace peak_detail {

// Shared argument checks of both versions: the views hold [z_begin, z_end) and its halo.
void check_peak_args(const VolumeView<const std::uint8_t>& mask, const VolumeView<const float>& distance,
                     Spacing spacing, float r_max, int z_begin, int z_end, const char* op) {
  checks::require_view(mask, op, "mask");
  checks::require_view(distance, op, "distance");
  checks::require(z_begin >= 0 && z_begin <= z_end && z_end <= mask.nz, op,
                  "slices [" + std::to_string(z_begin) + ", " + std::to_string(z_end) + ") outside the volume");
  const VolumeView<const std::uint8_t> wanted{nullptr, mask.nx, mask.ny, mask.nz, z_begin, z_end - z_begin};
  const int halo = peak_halo(spacing, r_max);
  checks::require_halo(mask, wanted, halo, op);
  checks::require_halo(distance, wanted, halo, op);
}

}  // namespace peak_detail

std::vector<std::uint64_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, int z_begin, int z_end) {
  peak_detail::check_peak_args(mask, distance, spacing, r_max, z_begin, z_end, "find_peaks_cpu");
  const auto ball = peak_detail::make_ball(spacing, r_max);
  std::vector<std::vector<std::uint64_t>> per_slice(std::size_t(z_end - z_begin));
  parallel_for(long(z_end - z_begin), [&](long first, long last) {
    for (long k = first; k < last; ++k) {
      const int z = z_begin + int(k);
      for (int y = 0; y < mask.ny; ++y)
        for (int x = 0; x < mask.nx; ++x)
          if (peak_detail::is_peak(mask, distance, x, y, z, ball))
            per_slice[std::size_t(k)].push_back(
                (std::uint64_t(z) * std::uint64_t(mask.ny) + std::uint64_t(y)) * std::uint64_t(mask.nx) + std::uint64_t(x));
    }
  }, 1);
  std::vector<std::uint64_t> peaks;
  for (const auto& s : per_slice) peaks.insert(peaks.end(), s.begin(), s.end());
  return peaks;
}

std::vector<std::uint64_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max) {
  return find_peaks_cpu(mask, distance, spacing, r_max, 0, mask.nz);
}

}  // namespace gp::pnm
