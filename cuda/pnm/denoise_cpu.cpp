// CPU references of the denoise filters (also the CPU path): the same per-voxel arithmetic as the
// kernels (denoise_math.hpp), over threads by rows or slices.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/denoise_math.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {

int gaussian_radius(double sigma) {
  if (!(sigma >= 0) || !std::isfinite(sigma)) throw Error("gaussian filter: invalid sigma " + std::to_string(sigma));
  if (sigma <= 1e-15) return 0;
  const double r = 4.0 * sigma + 0.5;
  if (r > double(gaussian_max_radius) + 1) return gaussian_max_radius + 1;  // too large; reported by the caller
  return int(r);
}

std::vector<double> gaussian_weights(double sigma) {
  const int radius = gaussian_radius(sigma);
  if (radius > gaussian_max_radius)
    throw Error("gaussian filter: sigma " + std::to_string(sigma) + " voxels needs a radius above the supported " +
                std::to_string(gaussian_max_radius));
  std::vector<double> w(std::size_t(radius) + 1);
  if (radius == 0) {
    w[0] = 1.0;
    return w;
  }
  // scipy: phi = exp(-0.5 / sigma2 * x**2) for x in -radius..radius, divided by its sum.
  const double factor = -0.5 / (sigma * sigma);
  double sum = 0;
  for (int x = -radius; x <= radius; ++x) sum += std::exp(factor * double(x * x));
  for (int j = 0; j <= radius; ++j) w[j] = std::exp(factor * double(j * j)) / sum;
  return w;
}

namespace {

// One 1-D pass along `axis` (0 x, 1 y, 2 z): dst's slices from src, which holds them plus the
// radius along z (clamped).
void filter_axis_cpu(VolumeView<const float> src, VolumeView<float> dst, int axis, const std::vector<double>& w) {
  const int radius = int(w.size()) - 1;
  const int nx = dst.nx, ny = dst.ny;
  if (axis == 0) {
    parallel_for(long(dst.z_count) * ny, [&](long begin, long end) {
      std::vector<float> line(std::size_t(nx) + 2 * std::size_t(radius));
      for (long row = begin; row < end; ++row) {
        const int z = dst.z_first + int(row / ny), y = int(row % ny);
        for (int i = 0; i < nx + 2 * radius; ++i) line[i] = src.at(math::reflect_index(i - radius, nx), y, z);
        for (int x = 0; x < nx; ++x) dst.at(x, y, z) = math::symmetric_tap_sum(&line[x + radius], 1, w.data(), radius);
      }
    }, 4);
    return;
  }
  // Along y (per slice) or z (per row y): the 2 radius + n input rows of x values the outputs need,
  // reflected at the volume's borders, so taps are `nx` floats apart.
  const bool along_y = axis == 1;
  const int length = along_y ? ny : dst.nz;
  const int a_first = along_y ? 0 : dst.z_first;
  const int a_count = along_y ? ny : dst.z_count;
  const int others = along_y ? dst.z_count : ny;
  parallel_for(others, [&](long begin, long end) {
    std::vector<float> rows((std::size_t(a_count) + 2 * std::size_t(radius)) * std::size_t(nx));
    for (long o = begin; o < end; ++o) {
      const int other = int(o);
      for (int r = 0; r < a_count + 2 * radius; ++r) {
        const int a = math::reflect_index(a_first - radius + r, length);
        const float* from = along_y ? &src.at(0, a, dst.z_first + other) : &src.at(0, other, a);
        std::memcpy(&rows[std::size_t(r) * nx], from, std::size_t(nx) * sizeof(float));
      }
      for (int s = 0; s < a_count; ++s) {
        float* to = along_y ? &dst.at(0, s, dst.z_first + other) : &dst.at(0, other, a_first + s);
        const float* centre = &rows[std::size_t(s + radius) * nx];
        for (int x = 0; x < nx; ++x) to[x] = math::symmetric_tap_sum(centre + x, nx, w.data(), radius);
      }
    }
  }, 1);
}

}  // namespace

void median3_cpu(VolumeView<const float> in, VolumeView<float> out) {
  const char* op = "median3_cpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, median3_halo, op);
  checks::require(!checks::overlap(in, out), op, "input and output overlap");
  const int ny = out.ny;
  parallel_for(long(out.z_count) * ny, [&](long begin, long end) {
    float v[27];
    for (long row = begin; row < end; ++row) {
      const int z = out.z_first + int(row / ny), y = int(row % ny);
      for (int x = 0; x < out.nx; ++x) {
        math::gather_27(in, x, y, z, v);
        out.at(x, y, z) = math::median3_of(v);
      }
    }
  }, 4);
}

void gaussian_filter_cpu(VolumeView<const float> in, VolumeView<float> out, GaussianSigma sigma) {
  const char* op = "gaussian_filter_cpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, gaussian_halo(sigma.z), op);
  checks::require(!checks::overlap(in, out), op, "input and output overlap");
  struct Pass {
    int axis;
    std::vector<double> weights;
  };
  std::vector<Pass> passes;
  for (int axis : {2, 1, 0}) {
    std::vector<double> w = gaussian_weights(axis == 2 ? sigma.z : axis == 1 ? sigma.y : sigma.x);
    if (w.size() > 1) passes.push_back({axis, std::move(w)});
  }
  if (out.z_count == 0) return;
  if (passes.empty()) {
    std::memcpy(out.data, &in.at(0, 0, out.z_first), out.held_voxels() * sizeof(float));
    return;
  }
  std::vector<float> tmp_storage(passes.size() > 1 ? out.held_voxels() : 0);
  VolumeView<float> tmp = out;
  tmp.data = tmp_storage.data();
  const int k = int(passes.size());
  VolumeView<const float> src = in;
  for (int i = 0; i < k; ++i) {  // as on the GPU: the last pass writes `out`
    const VolumeView<float> dst = (k - 1 - i) % 2 == 0 ? out : tmp;
    filter_axis_cpu(src, dst, passes[i].axis, passes[i].weights);
    src = dst;
  }
}

}  // namespace gp::pnm
