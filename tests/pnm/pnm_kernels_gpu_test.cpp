// Denoise, binarize and components kernels against their CPU references (themselves checked against
// hand-made cases in denoise_test, binarize_test, fill_enclosed_test and labelling/components_test): bit for bit, on
// pseudo-random volumes of odd sizes that span several tiles, whole and in Z-slabs with halos.
// The [.perf] case times the kernels on 512^3 (run it explicitly: gpuproc_gpu_tests "[.perf]").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "cuda/pnm/binarize.hpp"
#include "cuda/labelling/components.hpp"
#include "cuda/pnm/fill_enclosed.hpp"
#include "cuda/pnm/denoise.hpp"
#include "pnm/pnm_gpu_fixture.hpp"
#include "support/random_volumes.hpp"

using namespace gp::pnm;
using namespace gp::labelling;
using gp::test::Dims;
using gp::test::PnmGpu;

namespace {

// Device copy of slices [first, first + count) of a host volume, as a slab view.
template <class T>
VolumeView<T> device_slab(PnmGpu& gpu, const std::vector<T>& whole, const Dims& d, int first, int count) {
  const std::vector<T> part(whole.begin() + std::ptrdiff_t(d.slice() * first),
                            whole.begin() + std::ptrdiff_t(d.slice() * (first + count)));
  VolumeView<T> v = gpu.upload(part, d.nx, d.ny, count);
  v.nz = d.nz;
  v.z_first = first;
  return v;
}
template <class T>
VolumeView<T> device_output(PnmGpu& gpu, const Dims& d, int first, int count) {
  VolumeView<T> v = gpu.zeros<T>(d.nx, d.ny, count);
  v.nz = d.nz;
  v.z_first = first;
  return v;
}

// The slices [first, first + count) of a host volume.
template <class T>
std::vector<T> slices(const std::vector<T>& whole, const Dims& d, int first, int count) {
  return std::vector<T>(whole.begin() + std::ptrdiff_t(d.slice() * first),
                        whole.begin() + std::ptrdiff_t(d.slice() * (first + count)));
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Slab splits of nz slices (first slices): one whole, one uneven with a one-slice slab.
std::vector<std::vector<int>> slab_splits(int nz) {
  std::vector<int> uneven;
  for (int z : {0, nz / 3, nz / 3 + 1, nz - 2})
    if (z >= 0 && z < nz && (uneven.empty() || z > uneven.back())) uneven.push_back(z);
  return {{0}, uneven};
}
int slab_end(const std::vector<int>& starts, std::size_t s, int nz) { return s + 1 < starts.size() ? starts[s + 1] : nz; }

}  // namespace

TEST_CASE("median3_gpu equals median3_cpu bit for bit", "[pnm][denoise][gpu]") {
  PnmGpu gpu;
  for (const Dims& d : {Dims{37, 29, 23}, Dims{1, 1, 1}, Dims{65, 3, 2}}) {
    for (int kind : {0, 1, 2}) {  // random, ties, random with NaN padding
      const bool ties = kind == 1;
      std::vector<float> v = ties ? gp::test::tied_floats(d, 3) : gp::test::random_floats(d, 4, -5.f, 5.f);
      if (kind == 2) gp::test::pad_outside_circle(v, d, 6);
      std::vector<float> expected(v.size());
      median3_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(expected.data(), d.nx, d.ny, d.nz));
      for (const auto& starts : slab_splits(d.nz)) {
        for (std::size_t s = 0; s < starts.size(); ++s) {
          const int first = starts[s], count = slab_end(starts, s, d.nz) - first;
          if (count <= 0) continue;
          const auto in = gp::test::with_halo(d, first, count, median3_halo);
          const auto din = device_slab(gpu, v, d, in.first, in.count);
          const auto dout = device_output<float>(gpu, d, first, count);
          median3_gpu(din, dout, gpu.stream());
          INFO(d.nx << "x" << d.ny << "x" << d.nz << " kind " << kind << " slab " << first << "+" << count);
          CHECK(same_bits(gpu.download(dout), slices(expected, d, first, count)));
        }
      }
    }
  }
}

TEST_CASE("gaussian_filter_gpu equals gaussian_filter_cpu bit for bit", "[pnm][denoise][gpu]") {
  PnmGpu gpu;
  struct Case {
    Dims d;
    GaussianSigma s;
  };
  const Case cases[] = {
      {{45, 31, 27}, {1.0, 1.0, 1.0}},   {{45, 31, 27}, {0.6, 2.5, 0.0}}, {{45, 31, 27}, {0.0, 0.0, 3.0}},
      {{45, 31, 27}, {0.0, 0.0, 0.0}},   {{300, 9, 5}, {4.0, 0.3, 1.7}},  {{33, 140, 70}, {1.3, 2.0, 0.8}},
      {{5, 3, 2}, {3.0, 3.0, 3.0}},      // radius 12 on 2..5 voxels: reflected several times
      {{17, 19, 3}, {37.0, 1.0, 10.0}},  // the largest radius (148)
  };
  for (const Case& c : cases)
  for (bool padded : {false, true}) {  // with NaN padding: left out of the sums on both sides
    const Dims& d = c.d;
    std::vector<float> v = gp::test::random_floats(d, 9, -1000.f, 2000.f);
    if (padded) gp::test::pad_outside_circle(v, d, 10);
    std::vector<float> expected(v.size());
    gaussian_filter_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(expected.data(), d.nx, d.ny, d.nz), c.s);
    const int halo = gaussian_halo(c.s.z);
    for (const auto& starts : slab_splits(d.nz)) {
      for (std::size_t s = 0; s < starts.size(); ++s) {
        const int first = starts[s], count = slab_end(starts, s, d.nz) - first;
        if (count <= 0) continue;
        const auto in = gp::test::with_halo(d, first, count, halo);
        const auto din = device_slab(gpu, v, d, in.first, in.count);
        const auto dout = device_output<float>(gpu, d, first, count);
        gaussian_filter_gpu(din, dout, c.s, gpu.scratch(), gpu.stream());
        INFO(d.nx << "x" << d.ny << "x" << d.nz << " padded " << padded << " sigma " << c.s.x << "," << c.s.y << "," << c.s.z << " slab "
                  << first << "+" << count);
        CHECK(same_bits(gpu.download(dout), slices(expected, d, first, count)));
        gpu.release_scratch();
      }
    }
  }
}

TEST_CASE("value range, histogram and threshold on the GPU equal the CPU's", "[pnm][binarize][gpu]") {
  PnmGpu gpu;
  const Dims d{101, 37, 13};
  std::vector<float> v = gp::test::random_floats(d, 17, -1200.f, 2500.f);
  v[5] = std::numeric_limits<float>::quiet_NaN();
  v[700] = std::numeric_limits<float>::infinity();
  v[701] = -std::numeric_limits<float>::infinity();
  v[9000] = -0.0f;
  const ValueRange range = value_range_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz));
  HistogramCounts expected{};
  histogram_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), range.lo, range.hi, expected);

  for (const auto& starts : slab_splits(d.nz)) {
    ValueRange r;
    HistogramCounts counts{};
    std::vector<VolumeView<float>> slabs;
    for (std::size_t s = 0; s < starts.size(); ++s) {
      const int first = starts[s], count = slab_end(starts, s, d.nz) - first;
      if (count <= 0) continue;
      slabs.push_back(device_slab(gpu, v, d, first, count));
      r.include(value_range_gpu(slabs.back(), gpu.scratch(), gpu.stream()));
    }
    CHECK(std::memcmp(&r.lo, &range.lo, sizeof(float)) == 0);
    CHECK(std::memcmp(&r.hi, &range.hi, sizeof(float)) == 0);
    for (const auto& slab : slabs) histogram_gpu(slab, r.lo, r.hi, counts, gpu.scratch(), gpu.stream());
    CHECK(counts == expected);
    gpu.release_scratch();
  }

  const float t = otsu_threshold(expected, range.lo, range.hi);
  for (bool dark : {true, false}) {
    std::vector<std::uint8_t> mask(v.size());
    threshold_cpu(whole_volume(v.data(), d.nx, d.ny, d.nz), whole_volume(mask.data(), d.nx, d.ny, d.nz), t, dark);
    const auto din = device_slab(gpu, v, d, 2, 9);
    const auto dout = device_output<std::uint8_t>(gpu, d, 4, 5);
    threshold_gpu(din, dout, t, dark, gpu.stream());
    CHECK(gpu.download(dout) == slices(mask, d, 4, 5));
  }
}

TEST_CASE("component roots, labels and fill_enclosed on the GPU equal the CPU's", "[pnm][components][gpu]") {
  PnmGpu gpu;
  struct Case {
    Dims d;
    double density;  // < 0: blobby mask at level -density
  };
  const Case cases[] = {{{70, 19, 21}, 0.3}, {{70, 19, 21}, 0.5}, {{70, 19, 21}, 0.7}, {{33, 9, 17}, -0.5},
                        {{129, 3, 2}, 0.6},  {{1, 1, 1}, 1.0},    {{40, 40, 40}, -0.52}};
  unsigned seed = 1;
  for (const Case& c : cases) {
    const Dims& d = c.d;
    const auto m = c.density < 0 ? gp::test::blobby_mask(d, -c.density, seed++) : gp::test::random_mask(d, c.density, seed++);
    for (Connectivity conn : {Connectivity::c6, Connectivity::c26}) {
      for (std::uint8_t value : {std::uint8_t(1), std::uint8_t(0)}) {
        INFO(d.nx << "x" << d.ny << "x" << d.nz << " density " << c.density << " connectivity " << int(conn)
                  << " value " << int(value));
        // Roots of the whole volume and of a slab.
        for (const auto& slab : {gp::test::SlabRange{0, d.nz}, gp::test::SlabRange{d.nz / 3, d.nz - d.nz / 3}}) {
          if (slab.count <= 0) continue;
          std::vector<std::uint32_t> expected(d.slice() * slab.count);
          component_roots_cpu(gp::test::slab_of(m, d, slab.first, slab.count), value, conn,
                              VolumeView<std::uint32_t>{expected.data(), d.nx, d.ny, d.nz, slab.first, slab.count});
          const auto dmask = device_slab(gpu, m, d, slab.first, slab.count);
          const auto droots = device_output<std::uint32_t>(gpu, d, slab.first, slab.count);
          component_roots_gpu(dmask, value, conn, droots, gpu.stream());
          CHECK(gpu.download(droots) == expected);
          // The out-of-core fill's pieces on the slab's labels: face flags, and the change of the
          // components a keep table leaves out (here every third label besides those on a face).
          std::vector<std::uint32_t> slab_labels(expected.size());
          const VolumeView<std::uint32_t> labels_view{slab_labels.data(), d.nx, d.ny, d.nz, slab.first, slab.count};
          const std::uint32_t count =
              label_components_cpu(gp::test::slab_of(m, d, slab.first, slab.count), value, conn, labels_view);
          std::vector<std::uint8_t> flags(std::size_t(count) + 1, 7);
          mark_face_labels_cpu(labels_view, count, flags.data());
          const auto dlabels = device_slab(gpu, slab_labels, d, 0, slab.count);
          const VolumeView<const std::uint32_t> dlabels_view{dlabels.data, d.nx, d.ny, d.nz, slab.first, slab.count};
          auto dflags = gpu.alloc(flags.size());
          mark_face_labels_gpu(dlabels_view, count, dflags.as<std::uint8_t>(), gpu.stream());
          std::vector<std::uint8_t> got_flags(flags.size());
          gpu.stream_copy_to_host(got_flags.data(), dflags.get(), got_flags.size());
          CHECK(got_flags == flags);
          auto keep = flags;
          for (std::uint32_t l = 1; l <= count; l += 3) keep[l] = 1;
          auto changed_mask = slices(m, d, slab.first, slab.count);
          const std::uint64_t changed = change_unkept_labels_cpu(
              VolumeView<std::uint8_t>{changed_mask.data(), d.nx, d.ny, d.nz, slab.first, slab.count}, labels_view,
              keep.data(), std::uint8_t(1 - value));
          const auto dkeep = gpu.upload(keep, int(keep.size()), 1, 1);
          CHECK(change_unkept_labels_gpu(dmask, dlabels_view, dkeep.data, std::uint8_t(1 - value), gpu.scratch(),
                                         gpu.stream()) == changed);
          CHECK(gpu.download(dmask) == changed_mask);  // the roots' mask, not read again
          gpu.release_scratch();
        }
        // Labels.
        std::vector<std::uint32_t> labels(d.voxels());
        const std::uint32_t k = label_components_cpu(whole_volume(m.data(), d.nx, d.ny, d.nz), value, conn,
                                                     whole_volume(labels.data(), d.nx, d.ny, d.nz));
        const auto dmask = device_slab(gpu, m, d, 0, d.nz);
        const auto dlabels = device_output<std::uint32_t>(gpu, d, 0, d.nz);
        CHECK(label_components_gpu(dmask, value, conn, dlabels, gpu.scratch(), gpu.stream()) == k);
        CHECK(gpu.download(dlabels) == labels);
        gpu.release_scratch();
        // Fill enclosed components of `value`.
        auto filled = m;
        const std::uint64_t changed = fill_enclosed_cpu(whole_volume(filled.data(), d.nx, d.ny, d.nz), value, conn);
        const auto dfill = device_slab(gpu, m, d, 0, d.nz);
        CHECK(fill_enclosed_gpu(dfill, value, conn, gpu.scratch(), gpu.stream()) == changed);
        CHECK(gpu.download(dfill) == filled);
        gpu.release_scratch();
      }
    }
  }
}

TEST_CASE("segment-pnm kernel timings on 512^3", "[.perf][pnm][gpu]") {
  PnmGpu gpu;
  const Dims d{512, 512, 512};
  std::vector<float> v(d.voxels());
  std::vector<std::uint8_t> m(d.voxels());
  std::uint64_t x = 88172645463325252ull;
  for (std::size_t i = 0; i < v.size(); ++i) {  // xorshift: fast enough for 134 M voxels
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v[i] = float(x >> 40) * 0x1p-24f;
    m[i] = (x >> 20) & 1;
  }
  const auto dv = gpu.upload(v, d.nx, d.ny, d.nz);
  const auto dout = gpu.zeros<float>(d.nx, d.ny, d.nz);
  const auto dm = gpu.upload(m, d.nx, d.ny, d.nz);
  const auto dl = gpu.zeros<std::uint32_t>(d.nx, d.ny, d.nz);
  const double median_ms = gpu.best_ms([&] { median3_gpu(dv, dout, gpu.stream()); });
  const double gauss1_ms = gpu.best_ms([&] { gaussian_filter_gpu(dv, dout, {1, 1, 1}, gpu.scratch(), gpu.stream()); });
  const double gauss3_ms = gpu.best_ms([&] { gaussian_filter_gpu(dv, dout, {3, 3, 3}, gpu.scratch(), gpu.stream()); });
  std::uint32_t k6 = 0, k26 = 0;
  const double roots6_ms = gpu.best_ms([&] { component_roots_gpu(dm, 1, Connectivity::c6, dl, gpu.stream()); });
  const double roots26_ms = gpu.best_ms([&] { component_roots_gpu(dm, 1, Connectivity::c26, dl, gpu.stream()); });
  const double label6_ms =
      gpu.best_ms([&] { k6 = label_components_gpu(dm, 1, Connectivity::c6, dl, gpu.scratch(), gpu.stream()); });
  const double label26_ms =
      gpu.best_ms([&] { k26 = label_components_gpu(dm, 1, Connectivity::c26, dl, gpu.scratch(), gpu.stream()); });
  std::printf("512^3 on %s: median3 %.2f ms, gaussian sigma 1 %.2f ms, sigma 3 %.2f ms; 50%% random mask: "
              "roots c6 %.2f ms, c26 %.2f ms; labels c6 %.2f ms (K %u), c26 %.2f ms (K %u)\n",
              gpu.runtime().device_name().c_str(), median_ms, gauss1_ms, gauss3_ms, roots6_ms, roots26_ms, label6_ms,
              k6, label26_ms, k26);
  CHECK(k6 > k26);
}
