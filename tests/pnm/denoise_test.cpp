// CPU references of the denoise filters against hand-made cases and direct (non-separable,
// brute-force) computations with scipy.ndimage's 'reflect' borders.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/denoise_math.hpp"
#include "support/random_volumes.hpp"

using namespace gp::pnm;
using gp::test::Dims;

namespace {

// scipy's 'reflect' written the slow way: fold back at each edge until inside.
int reflect_slow(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i - 1;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

float at(const std::vector<float>& v, const Dims& d, int x, int y, int z) {
  return v[(std::size_t(z) * d.ny + y) * d.nx + x];
}

std::vector<float> median_brute_force(const std::vector<float>& v, const Dims& d) {
  std::vector<float> out(v.size());
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        std::vector<float> n;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              n.push_back(at(v, d, reflect_slow(x + dx, d.nx), reflect_slow(y + dy, d.ny), reflect_slow(z + dz, d.nz)));
        std::nth_element(n.begin(), n.begin() + 13, n.end());
        out[(std::size_t(z) * d.ny + y) * d.nx + x] = n[13];
      }
  return out;
}

// Direct 3-D correlation with the product kernel, in double, reflected borders.
std::vector<double> gaussian_direct(const std::vector<float>& v, const Dims& d, GaussianSigma s) {
  const std::vector<double> wx = gaussian_weights(s.x), wy = gaussian_weights(s.y), wz = gaussian_weights(s.z);
  const int rx = int(wx.size()) - 1, ry = int(wy.size()) - 1, rz = int(wz.size()) - 1;
  std::vector<double> out(v.size());
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        double sum = 0;
        for (int k = -rz; k <= rz; ++k)
          for (int j = -ry; j <= ry; ++j)
            for (int i = -rx; i <= rx; ++i)
              sum += wz[std::abs(k)] * wy[std::abs(j)] * wx[std::abs(i)] *
                     at(v, d, reflect_slow(x + i, d.nx), reflect_slow(y + j, d.ny), reflect_slow(z + k, d.nz));
        out[(std::size_t(z) * d.ny + y) * d.nx + x] = sum;
      }
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("reflect_index extends as d c b a | a b c d | d c b a, repeatedly", "[pnm][denoise]") {
  // n = 4: positions -8..-1 read 3 2 1 0 0 1 2 3 backwards from the edge, 4..11 read 3 2 1 0 0 1 2 3.
  const int left[8] = {0, 1, 2, 3, 3, 2, 1, 0};  // positions -1, -2, ..., -8
  const int right[8] = {3, 2, 1, 0, 0, 1, 2, 3};  // positions 4, 5, ..., 11
  for (int k = 0; k < 8; ++k) {
    CHECK(math::reflect_index(-1 - k, 4) == left[k]);
    CHECK(math::reflect_index(4 + k, 4) == right[k]);
  }
  for (int i = -20; i < 20; ++i) CHECK(math::reflect_index(i, 1) == 0);
  for (int i = -30; i < 30; ++i) CHECK(math::reflect_index(i, 3) == reflect_slow(i, 3));
}

TEST_CASE("median3 of hand-made neighbourhoods", "[pnm][denoise]") {
  SECTION("a 3x3x3 volume holding 0..26: the centre is 13") {
    std::vector<float> v(27);
    for (int i = 0; i < 27; ++i) v[i] = float((i * 10) % 27);  // a permutation of 0..26
    std::vector<float> out(27);
    median3_cpu(whole_volume<const float>(v.data(), 3, 3, 3), whole_volume(out.data(), 3, 3, 3));
    CHECK(out[13] == 13.0f);
  }
  SECTION("2x2x2 with value x + 2y + 4z: reflected corners") {
    // At (0,0,0) each coordinate reads 0, 0, 1 (index -1 reflects to 0): value v has multiplicity
    // 2^(number of zero bits of v); sorted 0 x8, 1 x4, 2 x4, ...: the 14th smallest is 2.
    // At (1,1,1) each coordinate reads 0, 1, 1: 0 x1, 1 x2, 2 x2, 3 x4, 4 x2, 5 x4: the 14th is 5.
    std::vector<float> v(8);
    for (int i = 0; i < 8; ++i) v[i] = float(i);
    std::vector<float> out(8);
    median3_cpu(whole_volume<const float>(v.data(), 2, 2, 2), whole_volume(out.data(), 2, 2, 2));
    CHECK(out[0] == 2.0f);
    CHECK(out[7] == 5.0f);
  }
}

TEST_CASE("median3 equals a brute-force median, whole and in slabs", "[pnm][denoise]") {
  const Dims d{13, 9, 11};
  const std::vector<float> v = gp::test::random_floats(d, 7);
  const std::vector<float> expected = median_brute_force(v, d);
  std::vector<float> out(v.size());
  median3_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz));
  CHECK(out == expected);

  std::vector<float> slabs(v.size(), -1.f);
  for (int first : {0, 4, 5, 9}) {
    const int count = first == 0 ? 4 : first == 4 ? 1 : first == 5 ? 4 : 2;
    const auto in = gp::test::with_halo(d, first, count, median3_halo);
    median3_cpu(gp::test::slab_of(v, d, in.first, in.count), gp::test::slab_of(slabs, d, first, count));
  }
  CHECK(slabs == expected);

  // Without its halo the input is refused.
  CHECK_THROWS(median3_cpu(gp::test::slab_of(v, d, 4, 2), gp::test::slab_of(slabs, d, 4, 2)));
}

TEST_CASE("gaussian weights follow scipy's _gaussian_kernel1d", "[pnm][denoise]") {
  CHECK(gaussian_radius(0.0) == 0);
  CHECK(gaussian_radius(1.0) == 4);     // int(4.0 + 0.5)
  CHECK(gaussian_radius(1.125) == 5);   // int(5.0) exactly
  CHECK(gaussian_radius(0.1) == 0);     // int(0.9)
  CHECK(gaussian_halo(2.0) == 8);
  const std::vector<double> w = gaussian_weights(1.0);
  REQUIRE(w.size() == 5);
  double sum = w[0];
  for (int j = 1; j <= 4; ++j) sum += 2 * w[j];
  CHECK(sum == Approx(1.0).epsilon(1e-15));
  for (int j = 1; j <= 4; ++j) CHECK(w[j] / w[0] == Approx(std::exp(-0.5 * j * j)).epsilon(1e-14));
  CHECK_THROWS(gaussian_weights(-1.0));
  CHECK_THROWS(gaussian_weights(40.0));  // radius 160 > gaussian_max_radius
}

TEST_CASE("gaussian_filter matches a direct 3-D correlation with reflected borders", "[pnm][denoise]") {
  const Dims d{12, 9, 4};  // z radius 5 > 4 slices: reflected more than once
  const std::vector<float> v = gp::test::random_floats(d, 11);
  for (GaussianSigma s : {GaussianSigma{1.0, 0.7, 1.3}, GaussianSigma{0.0, 1.5, 0.0}, GaussianSigma{2.2, 0.0, 0.6}}) {
    const std::vector<double> expected = gaussian_direct(v, d, s);
    std::vector<float> out(v.size());
    gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), s);
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); ++i) worst = std::max(worst, std::abs(double(out[i]) - expected[i]));
    INFO("sigma " << s.x << ", " << s.y << ", " << s.z);
    CHECK(worst < 1e-6);  // three float roundings of values in [0, 1)
  }
}

TEST_CASE("gaussian_filter: zero sigmas, slabs, halo", "[pnm][denoise]") {
  const Dims d{10, 7, 9};
  const std::vector<float> v = gp::test::random_floats(d, 5, -1000.f, 3000.f);
  std::vector<float> out(v.size());

  SECTION("all zero: a copy") {
    gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), {});
    CHECK(same_bits(out, v));
  }
  SECTION("sigma z 0: each slice on its own (a one-slice slab with no halo gives the same)") {
    const GaussianSigma s{1.2, 0.8, 0.0};
    CHECK(gaussian_halo(s.z) == 0);
    gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), s);
    std::vector<float> slice(v.size());
    for (int z = 0; z < d.nz; ++z)
      gaussian_filter_cpu(gp::test::slab_of(v, d, z, 1), gp::test::slab_of(slice, d, z, 1), s);
    CHECK(same_bits(out, slice));
    bool changed = false;
    for (std::size_t i = 0; i < v.size(); ++i) changed |= out[i] != v[i];
    CHECK(changed);
  }
  SECTION("slabs with their halo equal the whole volume, bit for bit") {
    const GaussianSigma s{0.9, 1.1, 0.8};  // z radius 3
    gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), s);
    std::vector<float> slabs(v.size());
    const int halo = gaussian_halo(s.z);
    for (int first = 0; first < d.nz; first += 4) {
      const int count = std::min(4, d.nz - first);
      const auto in = gp::test::with_halo(d, first, count, halo);
      gaussian_filter_cpu(gp::test::slab_of(v, d, in.first, in.count), gp::test::slab_of(slabs, d, first, count), s);
    }
    CHECK(same_bits(out, slabs));
    const auto short_halo = gp::test::with_halo(d, 4, 4, halo - 1);
    CHECK_THROWS(gaussian_filter_cpu(gp::test::slab_of(v, d, short_halo.first, short_halo.count),
                                     gp::test::slab_of(slabs, d, 4, 4), s));
  }
}

// NaN marks padding (voxels outside the image, io::Volume). Brute force: the median of the valid
// neighbours (the lower middle one of an even count), the Gaussian as three 1-D normalised
// convolutions over the valid taps.
TEST_CASE("median3 with NaN padding: padding stays, valid voxels take the median of valid neighbours", "[pnm][denoise]") {
  const Dims d{15, 13, 6};
  std::vector<float> v = gp::test::random_floats(d, 21, -1000.f, 1000.f);
  gp::test::pad_outside_circle(v, d, 3);
  std::vector<float> out(v.size());
  median3_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz));
  int padded = 0, mixed = 0;
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        const std::size_t i = (std::size_t(z) * d.ny + y) * d.nx + x;
        if (std::isnan(v[i])) {
          ++padded;
          CHECK(std::isnan(out[i]));
          continue;
        }
        std::vector<float> valid;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const float n = at(v, d, reflect_slow(x + dx, d.nx), reflect_slow(y + dy, d.ny), reflect_slow(z + dz, d.nz));
              if (!std::isnan(n)) valid.push_back(n);
            }
        mixed += valid.size() < 27;
        std::sort(valid.begin(), valid.end());
        INFO("voxel " << x << "," << y << "," << z << ": " << valid.size() << " valid neighbours");
        CHECK(out[i] == valid[(valid.size() - 1) / 2]);
      }
  CHECK(padded > 0);
  CHECK(mixed > 50);  // the test reaches the boundary of the padding
}

TEST_CASE("gaussian_filter with NaN padding: padding stays, sums renormalised over valid taps", "[pnm][denoise]") {
  const Dims d{16, 14, 7};
  std::vector<float> v = gp::test::random_floats(d, 23, -1000.f, 1000.f);
  gp::test::pad_outside_circle(v, d, 5);
  const GaussianSigma s{1.0, 0.8, 0.6};
  std::vector<float> out(v.size());
  gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(out.data(), d.nx, d.ny, d.nz), s);

  // z, then y, then x, each a 1-D normalised convolution in double rounded to float.
  std::vector<float> expected = v;
  const int strides[3] = {1, d.nx, d.nx * d.ny}, lengths[3] = {d.nx, d.ny, d.nz};
  for (int axis : {2, 1, 0}) {
    const std::vector<double> w = gaussian_weights(axis == 2 ? s.z : axis == 1 ? s.y : s.x);
    const int radius = int(w.size()) - 1;
    std::vector<float> next = expected;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (std::isnan(expected[i])) continue;
      const int pos = int(i / std::size_t(strides[axis]) % std::size_t(lengths[axis]));
      const std::size_t line0 = i - std::size_t(pos) * std::size_t(strides[axis]);
      double sum = 0, weight = 0;
      for (int k = -radius; k <= radius; ++k) {
        const float t = expected[line0 + std::size_t(reflect_slow(pos + k, lengths[axis])) * std::size_t(strides[axis])];
        if (!std::isnan(t)) sum += double(t) * w[std::size_t(std::abs(k))], weight += w[std::size_t(std::abs(k))];
      }
      next[i] = float(sum / weight);
    }
    expected = next;
  }
  double worst = 0;
  int padded = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      ++padded;
      CHECK(std::isnan(out[i]));
      continue;
    }
    REQUIRE(std::isfinite(out[i]));
    worst = std::max(worst, std::abs(double(out[i]) - double(expected[i])));
  }
  CHECK(padded > 0);
  CHECK(worst < 1e-3);  // values up to 1000: a few float roundings apart (sums in another order)
}
