// CPU side of binarize: range, numpy-style histogram, Otsu's threshold (against an independent
// brute-force maximisation of the between-class variance and hand-derived cases) and the threshold
// rule.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "cuda/pnm/binarize.hpp"
#include "support/random_volumes.hpp"

using namespace gp::pnm;
using gp::test::Dims;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();

// Otsu from its definition: for every split, class weights and means recomputed from scratch; the
// first split with the largest w0 * w1 * (mu0 - mu1)^2 wins.
float otsu_brute_force(const HistogramCounts& counts, float lo, float hi) {
  const auto edges = histogram_edges(lo, hi);
  int best = -1;
  double best_value = -1;
  for (int t = 0; t + 1 < histogram_bins; ++t) {
    double w0 = 0, w1 = 0, s0 = 0, s1 = 0;
    for (int i = 0; i < histogram_bins; ++i) {
      const double centre = (double(edges[i]) + double(edges[i + 1])) / 2;
      (i <= t ? w0 : w1) += double(counts[i]);
      (i <= t ? s0 : s1) += double(counts[i]) * centre;
    }
    if (w0 == 0 || w1 == 0) continue;
    const double d = s0 / w0 - s1 / w1;
    const double v = w0 * w1 * d * d;
    if (v > best_value * (1 + 1e-12)) {
      best_value = v;
      best = t;
    }
  }
  return (edges[best] + edges[best + 1]) / 2.0f;
}

HistogramCounts histogram_of(const std::vector<float>& v, float lo, float hi) {
  HistogramCounts counts{};
  histogram_cpu(whole_volume(v.data(), int(v.size()), 1, 1), lo, hi, counts);
  return counts;
}

}  // namespace

TEST_CASE("value_range skips NaN and infinities and merges over slabs", "[pnm][binarize]") {
  const Dims d{5, 4, 6};
  std::vector<float> v = gp::test::random_floats(d, 3, -50.f, 80.f);
  v[7] = nan_value;
  v[30] = inf;
  v[31] = -inf;
  v[40] = -120.5f;
  v[100] = 99.25f;
  const ValueRange whole = value_range_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz));
  CHECK(whole.lo == -120.5f);
  CHECK(whole.hi == 99.25f);
  ValueRange merged;
  CHECK(merged.empty());
  for (int z = 0; z < d.nz; z += 2) merged.include(value_range_cpu(gp::test::slab_of(v, d, z, 2)));
  CHECK(merged.lo == whole.lo);
  CHECK(merged.hi == whole.hi);

  const std::vector<float> none = {nan_value, inf};
  CHECK(value_range_cpu(whole_volume(none.data(), 2, 1, 1)).empty());
  const std::vector<float> zeros = {0.0f, -0.0f};
  const ValueRange z = value_range_cpu(whole_volume(zeros.data(), 2, 1, 1));
  CHECK(std::signbit(z.lo));  // -0 orders before +0, whatever the order met
  CHECK(!std::signbit(z.hi));
}

TEST_CASE("histogram edges and bins follow numpy.histogram", "[pnm][binarize]") {
  const auto edges = histogram_edges(0.f, 256.f);
  for (int i = 0; i <= histogram_bins; ++i) CHECK(edges[i] == float(i));
  const auto one = histogram_edges(3.f, 3.f);  // a single value: widened by 0.5 each side
  CHECK(one[0] == 2.5f);
  CHECK(one[histogram_bins] == 3.5f);
  CHECK(one[128] == 3.0f);

  // Each edge opens its bin; the last bin also holds hi; values outside [lo, hi] and NaN are dropped.
  std::vector<float> v = {0.f, 0.999f, 1.f, 255.f, 256.f, 17.5f, -0.5f, 256.5f, nan_value};
  const HistogramCounts c = histogram_of(v, 0.f, 256.f);
  CHECK(c[0] == 2);
  CHECK(c[1] == 1);
  CHECK(c[17] == 1);
  CHECK(c[255] == 2);
  std::uint64_t total = 0;
  for (auto n : c) total += n;
  CHECK(total == 6);

  // Summed over slabs = the whole volume's.
  const Dims d{7, 5, 9};
  const std::vector<float> r = gp::test::random_floats(d, 9, -3.f, 11.f);
  const ValueRange range = value_range_cpu(whole_volume(r.data(), d.nx, d.ny, d.nz));
  const HistogramCounts whole = histogram_of(r, range.lo, range.hi);
  HistogramCounts sum{};
  for (int z = 0; z < d.nz; z += 4)
    histogram_cpu(gp::test::slab_of(r, d, z, std::min(4, d.nz - z)), range.lo, range.hi, sum);
  CHECK(sum == whole);
  CHECK(whole[0] >= 1);
  CHECK(whole[histogram_bins - 1] >= 1);
}

TEST_CASE("otsu_threshold: hand-derived cases", "[pnm][binarize]") {
  SECTION("two values: the first split separates them, threshold = centre of bin 0") {
    // skimage.filters.threshold_otsu(np.array([0, 0, 1, 1], np.float32)): edges i / 256, the zeros
    // in bin 0 and the ones in bin 255; every split between them has the same variance, np.argmax
    // takes the first: (0 + 1/256) / 2.
    const std::vector<float> v = {0.f, 0.f, 1.f, 1.f};
    CHECK(otsu_threshold(histogram_of(v, 0.f, 1.f), 0.f, 1.f) == 1.0f / 512.0f);
  }
  SECTION("two occupied bins: the threshold is the centre of the lower one") {
    // Splits below bin 10 leave class 1 empty and are skipped; from 10 to 199 the classes and so
    // the variance are the same: the first, 10, wins.
    HistogramCounts c{};
    c[10] = 5;
    c[200] = 7;
    const auto edges = histogram_edges(-100.f, 412.f);  // bin width 2
    CHECK(otsu_threshold(c, -100.f, 412.f) == (edges[10] + edges[11]) / 2.0f);
    CHECK(otsu_threshold(c, -100.f, 412.f) == -79.0f);
  }
  SECTION("one value: that value") {
    HistogramCounts c{};
    c[128] = 10;
    CHECK(otsu_threshold(c, 42.5f, 42.5f) == 42.5f);
  }
}

namespace {

// Air around -900 HU (40 %), rock around 1200 HU (60 %), with noise: 32 x 32 x 16 voxels.
std::vector<float> bimodal_volume() {
  const Dims d{32, 32, 16};
  std::vector<float> v = gp::test::random_floats(d, 21, -1.f, 1.f);
  const std::vector<float> pick = gp::test::random_floats(d, 22);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (pick[i] < 0.4f ? -900.f : 1200.f) + 250.f * v[i];
  return v;
}

}  // namespace

TEST_CASE("otsu_threshold of a bimodal volume agrees with the definition", "[pnm][binarize]") {
  const std::vector<float> v = bimodal_volume();
  const ValueRange range = value_range_cpu(whole_volume(v.data(), 32, 32, 16));
  const HistogramCounts counts = histogram_of(v, range.lo, range.hi);
  const float t = otsu_threshold(counts, range.lo, range.hi);
  CHECK(t == otsu_brute_force(counts, range.lo, range.hi));
  CHECK(t > -700.f);  // the centre of the bin holding the lower mode's largest value, or above
  CHECK(t < 950.f);
}

TEST_CASE("otsu_threshold of a scan of billions of voxels: the class weights' product does not wrap", "[pnm][binarize]") {
  // The bimodal histogram with every count times 2^20 (17 Gvoxel): scaling all counts by a power of
  // two scales every between-class variance exactly, so the threshold is the same. numpy's int64
  // product of the class weights wraps here (a 2048^3 benchmark scan got a threshold above its
  // solid phase); ours must not.
  const std::vector<float> v = bimodal_volume();
  const ValueRange range = value_range_cpu(whole_volume(v.data(), 32, 32, 16));
  const HistogramCounts counts = histogram_of(v, range.lo, range.hi);
  HistogramCounts scaled = counts;
  for (std::uint64_t& c : scaled) c <<= 20;
  const float t = otsu_threshold(counts, range.lo, range.hi);
  CHECK(otsu_threshold(scaled, range.lo, range.hi) == t);
}

TEST_CASE("threshold: pore = value <= t when pores are dark, value > t else; NaN is solid", "[pnm][binarize]") {
  const std::vector<float> v = {-1.f, 0.5f, 0.49999997f, 0.50000006f, 2.f, nan_value};
  std::vector<std::uint8_t> m(v.size());
  threshold_cpu(whole_volume(v.data(), 6, 1, 1), whole_volume(m.data(), 6, 1, 1), 0.5f, true);
  CHECK(m == std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0});
  threshold_cpu(whole_volume(v.data(), 6, 1, 1), whole_volume(m.data(), 6, 1, 1), 0.5f, false);
  CHECK(m == std::vector<std::uint8_t>{0, 0, 0, 1, 1, 0});

  // A slab of the output from an input holding more slices.
  const Dims d{3, 2, 5};
  const std::vector<float> r = gp::test::random_floats(d, 4);
  std::vector<std::uint8_t> whole(r.size()), slab(r.size(), 9);
  threshold_cpu(whole_volume(r.data(), d.nx, d.ny, d.nz), whole_volume(whole.data(), d.nx, d.ny, d.nz), 0.3f, true);
  threshold_cpu(gp::test::slab_of(r, d, 1, 3), gp::test::slab_of(slab, d, 2, 1), 0.3f, true);
  for (std::size_t i = 2 * d.slice(); i < 3 * d.slice(); ++i) CHECK(slab[i] == whole[i]);
  CHECK(slab[0] == 9);
}
