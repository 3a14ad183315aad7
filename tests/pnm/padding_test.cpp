// Padding (NaN in io::Volume, from DICOM PixelPaddingValue) through the CPU pipeline: left out of
// Otsu's histogram and never pore, with or without denoising.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "pnm/segmentation.hpp"

namespace {

// A CT slice stack: inside the scan circle, pores (-1000 HU) in solid (+1000 HU), with noise;
// outside, the padding, either as the scanner's -3024 or as NaN (what the reader makes of it).
gp::io::Volume scan(bool padding_as_nan) {
  gp::io::Volume v;
  v.dims = {40, 40, 26};
  v.values.resize(v.dims.voxels());
  std::mt19937 rng(9);
  std::normal_distribution<float> noise(0.f, 80.f);
  for (int z = 0; z < v.dims.nz; ++z)
    for (int y = 0; y < v.dims.ny; ++y)
      for (int x = 0; x < v.dims.nx; ++x) {
        const double dx = x - 19.5, dy = y - 19.5;
        float& value = v.values[v.index(x, y, z)];
        if (dx * dx + dy * dy > 18.0 * 18.0) {
          value = padding_as_nan ? std::numeric_limits<float>::quiet_NaN() : -3024.f;
        } else {
          // Pores: balls of radius 4 on a 10-voxel grid.
          const int cx = (x + 5) / 10 * 10, cy = (y + 5) / 10 * 10, cz = (z + 2) / 10 * 10 + 3;
          const bool pore = (x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= 16;
          value = (pore ? -1000.f : 1000.f) + noise(rng);
        }
      }
  return v;
}

}  // namespace

TEST_CASE("padding is out of Otsu's histogram and never pore", "[pnm][padding]") {
  for (const char* denoise : {"none", "median", "gaussian"}) {
    DYNAMIC_SECTION("denoise " << denoise) {
      gp::pnm::Settings s;
      s.denoise = denoise;
      s.write_intermediates = true;
      s.fill_closed_pores = false;
      s.remove_floating_solid = false;

      // As the padding was read before: Otsu splits the padding from the scan, and the padding is "pore".
      const gp::io::Volume raw = scan(false);
      const gp::pnm::Segmentation before = gp::pnm::segment_cpu(raw, s);
      std::size_t padding_pore = 0;
      for (std::size_t i = 0; i < raw.values.size(); ++i) padding_pore += raw.values[i] == -3024.f && before.intermediates.mask[i];
      CHECK(padding_pore > 0);

      const gp::io::Volume padded = scan(true);
      const gp::pnm::Segmentation after = gp::pnm::segment_cpu(padded, s);
      INFO("threshold " << after.threshold << ", porosity " << after.porosity << ", peaks " << after.markers.peaks
                         << ", markers " << after.markers.count);
      CHECK(after.threshold > -900);  // between the phases (any split in the gap is Otsu's maximum)
      CHECK(after.threshold < 900);
      std::size_t padding = 0, pore_inside = 0;
      for (std::size_t i = 0; i < padded.values.size(); ++i) {
        if (std::isnan(padded.values[i])) {
          ++padding;
          CHECK(after.intermediates.mask[i] == 0);
          CHECK(after.labels[i] == 0);
        } else {
          pore_inside += after.intermediates.mask[i];
        }
      }
      CHECK(padding > 0);
      CHECK(pore_inside > 0);
      CHECK(after.regions > 0);
    }
  }
}

