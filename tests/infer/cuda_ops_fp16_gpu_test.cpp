// The FP16-storage CUDA operators (cuda/infer/ops.hpp, gpu::fp16) and the cuBLAS pointwise
// convolution (src/infer/cuda_gemm.hpp) against the CPU reference (src/infer/cpu_ops.hpp) run on
// the same half-rounded inputs, its result rounded to half. The FP16 kernels compute in float in
// the FP32 kernels' order (no fused multiply-adds) and round once, so they should give the
// reference's half exactly; the bound is 1 half ulp (2^-10 relative, 2^-24 absolute near zero)
// for the accumulating operators (averages over whole images, summed in another order, near zero
// at 1/64), 2 for LOGISTIC (CUDA's expf) and for the cuBLAS path (its own
// summation order, then a second rounding after the bias; near zero counted at 0.25, the inputs'
// scale), bit-exact for selection and copies.
#include <catch2/catch.hpp>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/infer/ops.hpp"
#include "infer/cpu_ops.hpp"
#include "infer/cuda_gemm.hpp"
#include "cuda/common/half.hpp"

using namespace gp::infer;
using gp::float_to_half;
using gp::half_to_float;

namespace {

float to_half_and_back(float v) { return half_to_float(float_to_half(v)); }

// Random values already representable in half.
std::vector<float> random_halves(std::int64_t count, std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (float& x : v) x = to_half_and_back(dist(rng));
  return v;
}

class Gpu {
 public:
  Gpu() : rt_(gp::RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }
  gp::Runtime& runtime() { return rt_; }
  const gp::Stream& gp_stream() const { return stream_; }

  // Floats as half bits on the device.
  gp::DeviceBuffer upload(const std::vector<float>& host) {
    std::vector<std::uint16_t> bits(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) bits[i] = float_to_half(host[i]);
    gp::DeviceBuffer d = rt_.device_alloc(std::max<std::size_t>(1, bits.size()) * 2, stream_, "fp16 test");
    if (!bits.empty()) stream_.copy_to_device(d.get(), bits.data(), bits.size() * 2);
    stream_.synchronize("fp16 test upload");
    return d;
  }
  gp::DeviceBuffer upload_floats(const std::vector<float>& host) {
    gp::DeviceBuffer d = rt_.device_alloc(std::max<std::size_t>(1, host.size()) * 4, stream_, "fp16 test");
    if (!host.empty()) stream_.copy_to_device(d.get(), host.data(), host.size() * 4);
    stream_.synchronize("fp16 test upload");
    return d;
  }
  // Filled with NaN bits (0xffff is a half NaN), so an element never written shows.
  gp::DeviceBuffer output(std::int64_t count, std::size_t element_bytes = 2) {
    const std::size_t bytes = std::max<std::size_t>(1, static_cast<std::size_t>(count)) * element_bytes;
    gp::DeviceBuffer d = rt_.device_alloc(bytes, stream_, "fp16 test");
    stream_.memset(d.get(), 0xff, bytes);
    return d;
  }
  std::vector<float> download(const gp::DeviceBuffer& d, std::int64_t count) {
    std::vector<std::uint16_t> bits(static_cast<std::size_t>(count));
    if (count > 0) stream_.copy_to_host(bits.data(), d.get(), bits.size() * 2);
    stream_.synchronize("fp16 test download");
    std::vector<float> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = half_to_float(bits[i]);
    return out;
  }
  std::vector<float> download_floats(const gp::DeviceBuffer& d, std::int64_t count) {
    std::vector<float> out(static_cast<std::size_t>(count));
    if (count > 0) stream_.copy_to_host(out.data(), d.get(), out.size() * 4);
    stream_.synchronize("fp16 test download");
    return out;
  }

 private:
  gp::Runtime rt_;
  gp::Stream stream_;
};

const __half* h(const gp::DeviceBuffer& b) { return b.as<const __half>(); }
__half* hm(const gp::DeviceBuffer& b) { return b.as<__half>(); }

// Half ulps between two half values (as floats), counted at the reference's magnitude or at
// `floor`, whichever is larger (below 2^-14 half spacing is constant); NaN only matches NaN.
double half_ulps(float gpu, float reference, double floor) {
  if (std::isnan(gpu) || std::isnan(reference)) return std::isnan(gpu) && std::isnan(reference) ? 0 : INFINITY;
  if (gpu == reference) return 0;
  const double magnitude = std::max({std::fabs(double(reference)), std::ldexp(1.0, -14), floor});
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(magnitude))) - 10);
  return std::fabs(double(gpu) - double(reference)) / ulp;
}

// expected: the CPU reference's float result, rounded to half here. floor: see half_ulps (the
// cuBLAS path sums in its own order on tensor cores, whose float accumulation is not IEEE
// round-to-nearest: results that cancel to near zero are compared at the inputs' scale).
void compare(const std::string& label, const std::vector<float>& gpu, const std::vector<float>& expected,
             double max_ulps, double floor = 0) {
  REQUIRE(gpu.size() == expected.size());
  double worst = 0;
  std::int64_t differing = 0, failing = 0, first_failure = -1;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    const float reference = to_half_and_back(expected[i]);
    const double ulps = half_ulps(gpu[i], reference, floor);
    if (ulps > 0) ++differing;
    worst = std::max(worst, ulps);
    if (ulps > max_ulps && failing++ == 0) first_failure = static_cast<std::int64_t>(i);
  }
  std::printf("%-72s max %.2g half ulp, %lld of %zu differ\n", label.c_str(), worst, static_cast<long long>(differing),
              gpu.size());
  INFO(label << ": " << failing << " values beyond " << max_ulps << " half ulp; first at " << first_failure
             << (first_failure >= 0 ? " gpu " + std::to_string(gpu[static_cast<std::size_t>(first_failure)]) +
                                          " cpu " + std::to_string(expected[static_cast<std::size_t>(first_failure)])
                                    : std::string()));
  CHECK(failing == 0);
}

std::string str(const Nhwc& s) { return shape_string(s.shape()); }

}  // namespace

TEST_CASE("CUDA FP16 CONV_2D (tiled) and the cuBLAS pointwise convolution match the CPU reference",
          "[infer][gpu]") {
  struct Case {
    Nhwc in, filter;
    Conv2DOptions o;
    bool bias;
  };
  auto opts = [](Padding p, int s, int d, Activation a) {
    Conv2DOptions o;
    o.padding = p, o.stride_h = o.stride_w = s, o.dilation_h = o.dilation_w = d, o.activation = a;
    return o;
  };
  const std::vector<Case> cases = {
      {{2, 17, 13, 3}, {8, 3, 3, 3}, opts(Padding::same, 2, 1, Activation::relu6), true},  // a first layer
      {{1, 16, 16, 3}, {24, 5, 5, 3}, opts(Padding::same, 2, 1, Activation::none), true},
      {{3, 9, 7, 20}, {24, 1, 1, 20}, opts(Padding::same, 1, 1, Activation::relu), true},  // pointwise
      {{2, 11, 10, 36}, {70, 1, 1, 36}, opts(Padding::valid, 1, 1, Activation::none), false},
      {{1, 12, 12, 6}, {5, 2, 2, 6}, opts(Padding::valid, 1, 2, Activation::none), false},  // dilation
  };
  Gpu device;
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    const Nhwc out = conv2d_output(c.in, c.filter, c.o);
    const auto input = random_halves(c.in.count(), seed++);
    const auto filter = random_halves(c.filter.count(), seed++);
    const auto bias = random_halves(c.filter.n, seed++);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::conv2d(input.data(), c.in, filter.data(), c.filter, c.bias ? bias.data() : nullptr, c.o, expected.data());
    auto d_in = device.upload(input), d_filter = device.upload(filter), d_bias = device.upload(bias);
    const std::string label = "FP16 CONV_2D " + str(c.in) + " filter " + str(c.filter) + " s" +
                              std::to_string(c.o.stride_h) + " " + activation_name(c.o.activation);
    {
      auto d_out = device.output(out.count());
      gpu::fp16::conv2d_gpu(h(d_in), c.in, h(d_filter), c.filter, c.bias ? h(d_bias) : nullptr, c.o, hm(d_out),
                            device.stream());
      compare(label + " tiled", device.download(d_out, out.count()), expected, 1);
    }
    if (c.filter.h == 1 && c.filter.w == 1 && c.o.stride_h == 1) {
      // As the engine runs it: GEMM to half, then bias and activation in place.
      gp::DeviceBuffer workspace = device.runtime().device_alloc(CublasGemm::kWorkspaceBytes, device.gp_stream(), "cuBLAS");
      CublasGemm gemm(workspace.get(), workspace.size());
      auto d_out = device.output(out.count());
      const std::int64_t m = std::int64_t{c.in.n} * c.in.h * c.in.w;
      gemm.pointwise_fp16(h(d_in), m, c.in.c, h(d_filter), c.filter.n, hm(d_out), device.stream());
      gpu::fp16::bias_activation_gpu(hm(d_out), m, c.filter.n, c.bias ? h(d_bias) : nullptr, c.o.activation,
                                     device.stream());
      compare(label + " cuBLAS", device.download(d_out, out.count()), expected, 2, 0.25);
    }
  }
}

TEST_CASE("CUDA FP16 DEPTHWISE_CONV_2D, pools and the transposed convolution match the CPU reference",
          "[infer][gpu]") {
  Gpu device;
  {
    const Nhwc in{2, 15, 13, 6}, filter{1, 5, 5, 12};
    DepthwiseConv2DOptions o;
    o.stride_h = o.stride_w = 2, o.depth_multiplier = 2, o.activation = Activation::relu6;
    const Nhwc out = depthwise_conv2d_output(in, filter, o);
    const auto x = random_halves(in.count(), 11), w = random_halves(filter.count(), 12), b = random_halves(12, 13);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::depthwise_conv2d(x.data(), in, w.data(), filter, b.data(), o, expected.data());
    auto dx = device.upload(x), dw = device.upload(w), db = device.upload(b), dout = device.output(out.count());
    gpu::fp16::depthwise_conv2d_gpu(h(dx), in, h(dw), filter, h(db), o, hm(dout), device.stream());
    compare("FP16 DEPTHWISE_CONV_2D " + str(in) + " 5x5 s2 x2", device.download(dout, out.count()), expected, 1);
  }
  for (const bool max : {false, true}) {
    const Nhwc in{3, 16, 15, 7};
    Pool2DOptions o;
    o.padding = max ? Padding::valid : Padding::same;
    o.stride_h = o.stride_w = 2, o.filter_h = o.filter_w = 3;
    const Nhwc out = pool2d_output(in, o);
    const auto x = random_halves(in.count(), max ? 21 : 22);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    auto dx = device.upload(x), dout = device.output(out.count());
    if (max) {
      cpu::max_pool2d(x.data(), in, o, expected.data());
      gpu::fp16::max_pool2d_gpu(h(dx), in, o, hm(dout), device.stream());
    } else {
      cpu::average_pool2d(x.data(), in, o, expected.data());
      gpu::fp16::average_pool2d_gpu(h(dx), in, o, hm(dout), device.stream());
    }
    compare(std::string("FP16 ") + (max ? "MAX" : "AVERAGE") + "_POOL_2D " + str(in), device.download(dout, out.count()),
            expected, max ? 0 : 1);
  }
  // Windows over the whole image (the reduction kernel): VALID, and SAME with a larger filter;
  // more than 32 channels; MEAN over H and W.
  for (const Nhwc in : {Nhwc{3, 37, 29, 16}, Nhwc{2, 9, 16, 70}}) {
    for (const Padding padding : {Padding::valid, Padding::same}) {
      Pool2DOptions o;
      o.padding = padding;
      o.filter_h = in.h + (padding == Padding::same ? 2 : 0), o.filter_w = in.w;
      o.stride_h = o.filter_h, o.stride_w = o.filter_w;
      o.activation = Activation::relu;
      const Nhwc out = pool2d_output(in, o);
      REQUIRE(out.h == 1);
      const auto x = random_halves(in.count(), 23 + in.c);
      std::vector<float> expected(static_cast<std::size_t>(out.count()));
      auto dx = device.upload(x), dout = device.output(out.count());
      cpu::average_pool2d(x.data(), in, o, expected.data());
      gpu::fp16::average_pool2d_gpu(h(dx), in, o, hm(dout), device.stream());
      compare(std::string("FP16 AVERAGE_POOL_2D whole image ") + padding_name(padding) + " " + str(in),
              device.download(dout, out.count()), expected, 1, 1.0 / 64);
    }
    const std::vector<int> axes{1, 2};
    const auto x = random_halves(in.count(), 25 + in.c);
    std::vector<float> expected(static_cast<std::size_t>(std::int64_t{in.n} * in.c));
    auto dx = device.upload(x), dout = device.output(std::int64_t{in.n} * in.c);
    cpu::mean(x.data(), in.shape(), axes, expected.data());
    gpu::fp16::mean_gpu(h(dx), in.shape(), axes, hm(dout), device.stream());
    compare("FP16 MEAN over H, W " + str(in), device.download(dout, std::int64_t{in.n} * in.c), expected, 1, 1.0 / 64);
  }
  {
    const Nhwc in{2, 8, 7, 5}, weights{3, 2, 2, 5};
    TransposeConvBiasOptions o;
    o.stride_h = o.stride_w = 2;
    const Nhwc out = transpose_conv_bias_output(in, weights, o);
    const auto x = random_halves(in.count(), 31), w = random_halves(weights.count(), 32), b = random_halves(3, 33);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::transpose_conv_bias(x.data(), in, w.data(), weights, b.data(), o, expected.data());
    auto dx = device.upload(x), dw = device.upload(w), db = device.upload(b), dout = device.output(out.count());
    gpu::fp16::transpose_conv_bias_gpu(h(dx), in, h(dw), weights, h(db), o, hm(dout), device.stream());
    compare("FP16 Convolution2DTransposeBias " + str(in), device.download(dout, out.count()), expected, 1);
  }
}

TEST_CASE("CUDA FP16 element-wise and layout operators match the CPU reference", "[infer][gpu]") {
  Gpu device;
  const Shape shape{2, 5, 4, 6};
  const std::int64_t count = element_count(shape);
  const auto x = random_halves(count, 41, -8.0f, 8.0f);
  auto dx = device.upload(x);
  {
    const Shape b_shape{1, 1, 1, 6}, m_shape{2, 1, 1, 6};
    const auto b = random_halves(6, 42), m = random_halves(12, 43);
    auto db = device.upload(b), dm = device.upload(m);
    std::vector<float> expected(static_cast<std::size_t>(count));
    auto dout = device.output(count);
    cpu::add(x.data(), shape, b.data(), b_shape, Activation::relu, expected.data());
    gpu::fp16::add_gpu(h(dx), shape, h(db), b_shape, Activation::relu, hm(dout), device.stream());
    compare("FP16 ADD broadcast RELU", device.download(dout, count), expected, 0);
    cpu::mul(x.data(), shape, m.data(), m_shape, Activation::none, expected.data());
    gpu::fp16::mul_gpu(h(dx), shape, h(dm), m_shape, Activation::none, hm(dout), device.stream());
    compare("FP16 MUL broadcast", device.download(dout, count), expected, 0);
    cpu::prelu(x.data(), shape, b.data(), Shape{1, 1, 6}, expected.data());
    gpu::fp16::prelu_gpu(h(dx), shape, h(db), Shape{1, 1, 6}, hm(dout), device.stream());
    compare("FP16 PRELU", device.download(dout, count), expected, 0);
  }
  {
    std::vector<float> expected(static_cast<std::size_t>(count));
    auto dout = device.output(count);
    cpu::relu(x.data(), count, expected.data());
    gpu::fp16::relu_gpu(h(dx), count, hm(dout), device.stream());
    compare("FP16 RELU", device.download(dout, count), expected, 0);
    cpu::relu6(x.data(), count, expected.data());
    gpu::fp16::relu6_gpu(h(dx), count, hm(dout), device.stream());
    compare("FP16 RELU6", device.download(dout, count), expected, 0);
    cpu::hard_swish(x.data(), count, expected.data());
    gpu::fp16::hard_swish_gpu(h(dx), count, hm(dout), device.stream());
    compare("FP16 HARD_SWISH", device.download(dout, count), expected, 0);
    cpu::logistic(x.data(), count, expected.data());
    gpu::fp16::logistic_gpu(h(dx), count, hm(dout), device.stream());
    compare("FP16 LOGISTIC", device.download(dout, count), expected, 2);
    cpu::copy(x.data(), count, expected.data());
    gpu::fp16::copy_gpu(h(dx), count, hm(dout), device.stream());
    compare("FP16 RESHAPE copy", device.download(dout, count), expected, 0);
  }
  {
    const std::vector<int> axes{1, 2};
    const Shape out = mean_output(shape, axes, true);
    std::vector<float> expected(static_cast<std::size_t>(element_count(out)));
    auto dout = device.output(element_count(out));
    cpu::mean(x.data(), shape, axes, expected.data());
    gpu::fp16::mean_gpu(h(dx), shape, axes, hm(dout), device.stream());
    compare("FP16 MEAN over H, W", device.download(dout, element_count(out)), expected, 1);
  }
  {
    const std::vector<int> paddings{0, 0, 1, 2, 0, 1, 0, 3};
    const Shape out = pad_output(shape, paddings);
    std::vector<float> expected(static_cast<std::size_t>(element_count(out)));
    auto dout = device.output(element_count(out));
    cpu::pad(x.data(), shape, paddings, expected.data());
    gpu::fp16::pad_gpu(h(dx), shape, paddings, hm(dout), device.stream());
    compare("FP16 PAD", device.download(dout, element_count(out)), expected, 0);
  }
  {
    const Nhwc in{2, 3, 2, 16};
    const Nhwc out = depth_to_space_output(in, 2);
    const auto values = random_halves(in.count(), 45);
    auto dv = device.upload(values);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::depth_to_space(values.data(), in, 2, expected.data());
    auto dout = device.output(out.count());
    gpu::fp16::depth_to_space_gpu(h(dv), in, 2, hm(dout), device.stream());
    compare("FP16 DEPTH_TO_SPACE", device.download(dout, out.count()), expected, 0);
  }
  for (const bool half_pixel : {false, true}) {
    ResizeBilinearOptions o;
    o.half_pixel_centers = half_pixel;
    o.align_corners = !half_pixel;
    const Nhwc in = Nhwc::of(shape);
    const Nhwc out = resize_output(in, 11, 7);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    auto dout = device.output(out.count());
    cpu::resize_bilinear(x.data(), in, 11, 7, o, expected.data());
    gpu::fp16::resize_bilinear_gpu(h(dx), in, 11, 7, o, hm(dout), device.stream());
    compare(std::string("FP16 RESIZE_BILINEAR ") + (half_pixel ? "half pixel" : "align corners"),
            device.download(dout, out.count()), expected, 1);
  }
  {
    const Shape other{2, 5, 4, 3};
    const auto y = random_halves(element_count(other), 44);
    auto dy = device.upload(y);
    const Shape out = concatenation_output({shape, other}, 3);
    std::vector<float> expected(static_cast<std::size_t>(element_count(out)));
    auto dout = device.output(element_count(out));
    cpu::concatenation({x.data(), y.data()}, {shape, other}, 3, Activation::none, expected.data());
    gpu::fp16::concatenation_gpu({h(dx), h(dy)}, {shape, other}, 3, Activation::none, hm(dout), device.stream());
    compare("FP16 CONCATENATION channels", device.download(dout, element_count(out)), expected, 0);
  }
}

TEST_CASE("CUDA float <-> half conversions are exact (round to nearest even)", "[infer][gpu]") {
  Gpu device;
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 65520.0f, 1e6f, -1e6f, 6.1e-5f, 5.96e-8f,
                               2.98e-8f, 1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, INFINITY, -INFINITY};
  std::mt19937 rng(52);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (int i = 0; i < 1000; ++i) values.push_back(dist(rng));  // not representable: rounding
  const auto count = static_cast<std::int64_t>(values.size());
  auto d_floats = device.upload_floats(values);
  auto d_halves = device.output(count);
  gpu::fp16::float_to_half_gpu(d_floats.as<const float>(), count, hm(d_halves), device.stream());
  const auto halves = device.download(d_halves, count);
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO("value " << values[i]);
    const float expected = to_half_and_back(values[i]);
    REQUIRE(std::memcmp(&halves[i], &expected, 4) == 0);
  }
  auto d_back = device.output(count, 4);
  gpu::fp16::half_to_float_gpu(h(d_halves), count, d_back.as<float>(), device.stream());
  const auto back = device.download_floats(d_back, count);
  CHECK(std::memcmp(back.data(), halves.data(), back.size() * 4) == 0);
}
