// Compositing, Gaussian blur and RGB -> YUV 4:2:0 on the GPU (composite_math.hpp). The blur's
// weights are computed on the host and passed by value (kernel parameters), so both sides use the
// same floats.
#include "cuda/segment_body/composite.hpp"

#include "cuda/common/cuda_check.hpp"
#include "cuda/segment_body/checks.hpp"
#include "cuda/segment_body/composite_math.hpp"
#include "cuda/common/pixel_launch.cuh"

namespace gp::segbody {
namespace {

__global__ void composite_kernel(FrameSource frame, ImageView alpha, Background bg, ImageView out) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  math::composite_pixel(frame, alpha, bg, out, x, y);
}

// The block's rows, converted to RGB once into shared memory (a 32-pixel span plus r on each side),
// so each frame pixel is converted about 1 + 2r/32 times instead of 2r + 1.
constexpr int blur_span_max = launch::block_w + 2 * gaussian_max_radius;

__global__ void blur_rows_kernel(FrameSource frame, math::GaussianTaps taps, float4* rows) {
  __shared__ float span[launch::block_h][blur_span_max][3];
  const int r = taps.radius, tx = int(threadIdx.x), ty = int(threadIdx.y);
  const int x0 = int(blockIdx.x) * launch::block_w, y = int(blockIdx.y) * launch::block_h + ty;
  if (y < frame.height)
    for (int i = tx; i < launch::block_w + 2 * r; i += launch::block_w) {
      const math::Rgb c = math::frame_pixel(frame, math::clampi(x0 - r + i, 0, frame.width - 1), y);
      span[ty][i][0] = c.r;
      span[ty][i][1] = c.g;
      span[ty][i][2] = c.b;
    }
  __syncthreads();
  const int x = x0 + tx;
  if (x >= frame.width || y >= frame.height) return;
  const float(*row)[3] = span[ty];
  rows[std::size_t(y) * frame.width + x] = math::blur_row(taps, [&](int k) {
    const float* c = row[tx + r + k];
    return math::Rgb{c[0], c[1], c[2]};
  });
}

__global__ void blur_columns_kernel(const float4* rows, math::GaussianTaps taps, ImageView out) {
  int x, y;
  if (!launch::pixel_of_thread(out.width, out.height, x, y)) return;
  math::store_rgb(out, x, y, math::blur_column(rows, out.width, out.height, taps, x, y), 255);
}

__global__ void yuv420_kernel(ImageView rgb, Yuv420Planes out, YuvMatrix m, bool full_range) {
  int bx, by;
  if (!launch::pixel_of_thread(chroma_size(rgb.width), chroma_size(rgb.height), bx, by)) return;
  math::yuv420_block([&](int x, int y) { return math::image_pixel(rgb, x, y); }, rgb.width, rgb.height, out, m,
                     full_range, bx, by);
}

__global__ void composite_yuv420_kernel(FrameSource frame, ImageView alpha, Background bg, Yuv420Planes out,
                                        YuvMatrix m, bool full_range) {
  int bx, by;
  if (!launch::pixel_of_thread(chroma_size(frame.width), chroma_size(frame.height), bx, by)) return;
  math::yuv420_block([&](int x, int y) { return math::composited_u8(frame, alpha, bg, x, y); }, frame.width,
                     frame.height, out, m, full_range, bx, by);
}

}  // namespace

void composite_gpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                   const ImageView& out, cudaStream_t stream) {
  checks::require_composite(frame, alpha, background, out, "composite_gpu");
  composite_kernel<<<launch::pixel_grid(out.width, out.height), launch::pixel_block(), 0, stream>>>(frame, alpha,
                                                                                                    background, out);
  GP_CUDA_CHECK_LAUNCH("composite_kernel " + checks::size_text(out.width, out.height));
}

void gaussian_blur_gpu(const FrameSource& frame, float sigma, const ImageView& out, void* scratch,
                       std::size_t scratch_bytes, cudaStream_t stream) {
  checks::require_blur(frame, sigma, out, scratch, scratch_bytes, "gaussian_blur_gpu");
  const math::GaussianTaps taps = math::gaussian_taps(sigma);
  auto* rows = static_cast<float4*>(scratch);
  const dim3 grid = launch::pixel_grid(frame.width, frame.height), block = launch::pixel_block();
  const std::string size = checks::size_text(frame.width, frame.height) + " sigma " + std::to_string(sigma);
  blur_rows_kernel<<<grid, block, 0, stream>>>(frame, taps, rows);
  GP_CUDA_CHECK_LAUNCH("blur_rows_kernel " + size);
  blur_columns_kernel<<<grid, block, 0, stream>>>(rows, taps, out);
  GP_CUDA_CHECK_LAUNCH("blur_columns_kernel " + size);
}

void rgb_to_yuv420_gpu(const ImageView& rgb, const Yuv420Planes& out, YuvMatrix matrix, bool full_range,
                       cudaStream_t stream) {
  checks::require_yuv420(rgb, out, "rgb_to_yuv420_gpu");
  yuv420_kernel<<<launch::pixel_grid(chroma_size(rgb.width), chroma_size(rgb.height)), launch::pixel_block(), 0,
                  stream>>>(rgb, out, matrix, full_range);
  GP_CUDA_CHECK_LAUNCH("yuv420_kernel " + checks::size_text(rgb.width, rgb.height));
}

void composite_yuv420_gpu(const FrameSource& frame, const ImageView& alpha, const Background& background,
                          const Yuv420Planes& out, YuvMatrix matrix, bool full_range, cudaStream_t stream) {
  checks::require_composite_yuv420(frame, alpha, background, out, "composite_yuv420_gpu");
  composite_yuv420_kernel<<<launch::pixel_grid(chroma_size(frame.width), chroma_size(frame.height)),
                            launch::pixel_block(), 0, stream>>>(frame, alpha, background, out, matrix, full_range);
  GP_CUDA_CHECK_LAUNCH("composite_yuv420_kernel " + checks::size_text(frame.width, frame.height));
}

}  // namespace gp::segbody
