// The CUDA operators (cuda/infer/ops.hpp) against the CPU reference (src/infer/cpu_ops.hpp) on
// random tensors: odd sizes, SAME with an odd padding total, strides 2, dilation, depth
// multiplier 2, broadcast shapes, batch 3, every fused activation. Each case prints its largest
// difference and how many values differ at all.
//
// Tolerances: both sides add in the same order without fused multiply-adds, so most results
// should be bit-identical; the bound for accumulating operators is 1e-5 x max(1, |reference|).
// Selection and copies (RELU, RELU6, MAX_POOL, PAD, CONCATENATION, RESHAPE, DEQUANTIZE) must be
// exact. LOGISTIC and a fused TANH use CUDA's expf/tanhf: 4 ulp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/infer/ops.hpp"
#include "infer/cpu_ops.hpp"

using namespace gp::infer;

namespace {

class Gpu {
 public:
  Gpu() : rt_(gp::RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }

  template <class T>
  gp::DeviceBuffer upload(const std::vector<T>& host) {
    gp::DeviceBuffer d = rt_.device_alloc(std::max<std::size_t>(1, host.size()) * sizeof(T), stream_, "infer test");
    if (!host.empty()) stream_.copy_to_device(d.get(), host.data(), host.size() * sizeof(T));
    stream_.synchronize("infer test upload");
    return d;
  }
  // Filled with NaN bits, so an element a kernel forgets to write shows up as a difference.
  gp::DeviceBuffer output(std::int64_t count) {
    const std::size_t bytes = std::max<std::size_t>(1, static_cast<std::size_t>(count)) * sizeof(float);
    gp::DeviceBuffer d = rt_.device_alloc(bytes, stream_, "infer test");
    stream_.memset(d.get(), 0xff, bytes);
    return d;
  }
  std::vector<float> download(const gp::DeviceBuffer& d, std::int64_t count) {
    std::vector<float> host(static_cast<std::size_t>(count));
    if (count > 0) stream_.copy_to_host(host.data(), d.get(), host.size() * sizeof(float));
    stream_.synchronize("infer test download");
    return host;
  }

 private:
  gp::Runtime rt_;
  gp::Stream stream_;
};

std::vector<float> random_floats(std::int64_t count, std::uint32_t seed, float low = -1.0f, float high = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (float& x : v) x = dist(rng);
  return v;
}

struct Tolerance {
  double relative = 0.0;  // |gpu - cpu| <= relative * max(1, |cpu|)
  int ulp = 0;            // or within this many units in the last place
};
constexpr Tolerance kExact{0.0, 0};
constexpr Tolerance kSum{1e-5, 0};
constexpr Tolerance kTranscendental{0.0, 4};

std::int64_t ulp_distance(float a, float b) {
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = std::numeric_limits<std::int32_t>::min() - ia;  // monotonic integer order
  if (ib < 0) ib = std::numeric_limits<std::int32_t>::min() - ib;
  return std::llabs(std::int64_t{ia} - ib);
}

// Prints the case and CHECKs every element; NaN matches NaN.
void compare(const std::string& label, const std::vector<float>& gpu, const std::vector<float>& cpu, Tolerance tol) {
  REQUIRE(gpu.size() == cpu.size());
  double max_diff = 0.0;
  std::int64_t differing = 0, failing = 0, first_failure = -1;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const float g = gpu[i], c = cpu[i];
    if (std::isnan(g) && std::isnan(c)) continue;
    if (std::memcmp(&g, &c, 4) == 0) continue;
    ++differing;
    const double diff = std::isnan(g) || std::isnan(c) ? INFINITY : std::fabs(double(g) - double(c));
    if (!(diff <= max_diff)) max_diff = diff;
    // Exact cases allow no difference in the bits; the others the relative bound or the ulps.
    const bool exact = tol.relative == 0.0 && tol.ulp == 0;
    const bool ok = !exact && (diff <= tol.relative * std::max(1.0, std::fabs(double(c))) ||
                               (std::isfinite(g) && std::isfinite(c) && ulp_distance(g, c) <= tol.ulp));
    if (!ok && failing++ == 0) first_failure = static_cast<std::int64_t>(i);
  }
  std::printf("%-72s max |gpu - cpu| %.3g, %lld of %zu differ\n", label.c_str(), max_diff,
              static_cast<long long>(differing), cpu.size());
  INFO(label << ": " << failing << " values outside the tolerance; first at " << first_failure
             << (first_failure >= 0 ? " gpu " + std::to_string(gpu[first_failure]) + " cpu " +
                                          std::to_string(cpu[first_failure])
                                    : std::string()));
  CHECK(failing == 0);
}

std::string str(const Nhwc& s) { return shape_string(s.shape()); }
std::string str(const Shape& s) { return shape_string(s); }

}  // namespace

TEST_CASE("CUDA CONV_2D matches the CPU reference", "[infer][gpu]") {
  struct Case {
    Nhwc in, filter;
    Conv2DOptions o;
    bool bias;
  };
  auto opts = [](Padding p, int sh, int sw, int dh, int dw, Activation a) {
    Conv2DOptions o;
    o.padding = p, o.stride_h = sh, o.stride_w = sw, o.dilation_h = dh, o.dilation_w = dw, o.activation = a;
    return o;
  };
  const std::vector<Case> cases = {
      // 1x1 stride 1: the pointwise GEMM path; M and O not multiples of the 64 x 64 tile.
      {{3, 17, 13, 37}, {70, 1, 1, 37}, opts(Padding::same, 1, 1, 1, 1, Activation::relu6), true},
      {{1, 16, 16, 8}, {16, 1, 1, 8}, opts(Padding::valid, 1, 1, 1, 1, Activation::none), false},
      {{2, 5, 7, 300}, {129, 1, 1, 300}, opts(Padding::same, 1, 1, 1, 1, Activation::relu), true},
      // SAME with an odd padding total (extra row/column after), stride 2.
      {{3, 16, 16, 5}, {9, 3, 3, 5}, opts(Padding::same, 2, 2, 1, 1, Activation::relu), true},
      {{2, 15, 11, 3}, {16, 3, 3, 3}, opts(Padding::same, 2, 2, 1, 1, Activation::none), true},
      // Dilation, unequal per axis; every fused activation.
      {{3, 19, 17, 6}, {7, 3, 3, 6}, opts(Padding::same, 1, 1, 2, 2, Activation::relu_n1_to_1), true},
      {{1, 20, 18, 4}, {5, 5, 5, 4}, opts(Padding::valid, 1, 1, 2, 3, Activation::tanh), true},
      // 1x1 with stride 2 (general path), K past several tiles; unequal strides.
      {{3, 9, 9, 130}, {67, 1, 1, 130}, opts(Padding::same, 2, 2, 1, 1, Activation::none), true},
      {{1, 8, 8, 256}, {24, 2, 2, 256}, opts(Padding::valid, 2, 1, 1, 1, Activation::relu6), false},
      // Filter larger than the input.
      {{2, 7, 5, 3}, {4, 7, 7, 3}, opts(Padding::same, 1, 1, 1, 1, Activation::none), true},
  };
  Gpu device;
  std::uint32_t seed = 1;
  for (const Case& c : cases) {
    const Nhwc out = conv2d_output(c.in, c.filter, c.o);
    const auto input = random_floats(c.in.count(), seed++);
    const auto filter = random_floats(c.filter.count(), seed++);
    const auto bias = random_floats(c.filter.n, seed++);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::conv2d(input.data(), c.in, filter.data(), c.filter, c.bias ? bias.data() : nullptr, c.o, expected.data());
    auto d_in = device.upload(input), d_filter = device.upload(filter), d_bias = device.upload(bias);
    auto d_out = device.output(out.count());
    gpu::conv2d_gpu(d_in.as<float>(), c.in, d_filter.as<float>(), c.filter, c.bias ? d_bias.as<float>() : nullptr,
                    c.o, d_out.as<float>(), device.stream());
    const std::string label = "CONV_2D " + str(c.in) + " filter " + str(c.filter) + " " + padding_name(c.o.padding) +
                              " s" + std::to_string(c.o.stride_h) + "x" + std::to_string(c.o.stride_w) + " d" +
                              std::to_string(c.o.dilation_h) + "x" + std::to_string(c.o.dilation_w) + " " +
                              activation_name(c.o.activation);
    compare(label, device.download(d_out, out.count()), expected, c.o.activation == Activation::tanh ? Tolerance{1e-5, 4} : kSum);
  }
}

TEST_CASE("CUDA DEPTHWISE_CONV_2D matches the CPU reference", "[infer][gpu]") {
  struct Case {
    Nhwc in, filter;
    DepthwiseConv2DOptions o;
    bool bias;
  };
  auto opts = [](Padding p, int s, int dh, int dw, int multiplier, Activation a) {
    DepthwiseConv2DOptions o;
    o.padding = p, o.stride_h = o.stride_w = s, o.dilation_h = dh, o.dilation_w = dw;
    o.depth_multiplier = multiplier, o.activation = a;
    return o;
  };
  const std::vector<Case> cases = {
      {{3, 17, 13, 16}, {1, 3, 3, 16}, opts(Padding::same, 1, 1, 1, 1, Activation::relu), true},
      {{3, 16, 16, 8}, {1, 3, 3, 8}, opts(Padding::same, 2, 1, 1, 1, Activation::none), true},  // odd padding
      {{2, 15, 13, 6}, {1, 5, 5, 12}, opts(Padding::same, 2, 1, 1, 2, Activation::relu6), true},
      {{1, 19, 17, 5}, {1, 3, 3, 10}, opts(Padding::valid, 1, 2, 2, 2, Activation::none), false},
      {{3, 9, 9, 32}, {1, 3, 3, 32}, opts(Padding::same, 1, 2, 3, 1, Activation::relu_n1_to_1), true},
  };
  Gpu device;
  std::uint32_t seed = 100;
  for (const Case& c : cases) {
    const Nhwc out = depthwise_conv2d_output(c.in, c.filter, c.o);
    const auto input = random_floats(c.in.count(), seed++);
    const auto filter = random_floats(c.filter.count(), seed++);
    const auto bias = random_floats(c.filter.c, seed++);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::depthwise_conv2d(input.data(), c.in, filter.data(), c.filter, c.bias ? bias.data() : nullptr, c.o,
                          expected.data());
    auto d_in = device.upload(input), d_filter = device.upload(filter), d_bias = device.upload(bias);
    auto d_out = device.output(out.count());
    gpu::depthwise_conv2d_gpu(d_in.as<float>(), c.in, d_filter.as<float>(), c.filter,
                              c.bias ? d_bias.as<float>() : nullptr, c.o, d_out.as<float>(), device.stream());
    const std::string label = "DEPTHWISE_CONV_2D " + str(c.in) + " filter " + str(c.filter) + " " +
                              padding_name(c.o.padding) + " s" + std::to_string(c.o.stride_h) + " d" +
                              std::to_string(c.o.dilation_h) + "x" + std::to_string(c.o.dilation_w) + " " +
                              activation_name(c.o.activation);
    compare(label, device.download(d_out, out.count()), expected, kSum);
  }
}

TEST_CASE("CUDA AVERAGE_POOL_2D and MAX_POOL_2D match the CPU reference", "[infer][gpu]") {
  struct Case {
    Nhwc in;
    Pool2DOptions o;
  };
  auto opts = [](Padding p, int fh, int fw, int s, Activation a) {
    Pool2DOptions o;
    o.padding = p, o.filter_h = fh, o.filter_w = fw, o.stride_h = o.stride_w = s, o.activation = a;
    return o;
  };
  const std::vector<Case> cases = {
      {{3, 16, 16, 8}, opts(Padding::valid, 2, 2, 2, Activation::none)},
      {{3, 15, 13, 5}, opts(Padding::same, 3, 3, 2, Activation::relu6)},  // odd sizes, windows cut by padding
      {{1, 8, 8, 3}, opts(Padding::valid, 8, 8, 1, Activation::none)},    // global
      {{2, 16, 16, 7}, opts(Padding::valid, 2, 2, 2, Activation::relu)},
      {{1, 7, 9, 4}, opts(Padding::same, 3, 2, 1, Activation::relu_n1_to_1)},
  };
  Gpu device;
  std::uint32_t seed = 200;
  for (const Case& c : cases) {
    const Nhwc out = pool2d_output(c.in, c.o);
    const auto input = random_floats(c.in.count(), seed++, -3.0f, 8.0f);
    auto d_in = device.upload(input);
    const std::string geometry = str(c.in) + " " + std::to_string(c.o.filter_h) + "x" + std::to_string(c.o.filter_w) +
                                 " " + padding_name(c.o.padding) + " s" + std::to_string(c.o.stride_h) + " " +
                                 activation_name(c.o.activation);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::average_pool2d(input.data(), c.in, c.o, expected.data());
    auto d_avg = device.output(out.count());
    gpu::average_pool2d_gpu(d_in.as<float>(), c.in, c.o, d_avg.as<float>(), device.stream());
    compare("AVERAGE_POOL_2D " + geometry, device.download(d_avg, out.count()), expected, kSum);

    cpu::max_pool2d(input.data(), c.in, c.o, expected.data());
    auto d_max = device.output(out.count());
    gpu::max_pool2d_gpu(d_in.as<float>(), c.in, c.o, d_max.as<float>(), device.stream());
    compare("MAX_POOL_2D " + geometry, device.download(d_max, out.count()), expected, kExact);
  }
}

TEST_CASE("CUDA Convolution2DTransposeBias matches the CPU reference", "[infer][gpu]") {
  struct Case {
    Nhwc in, weights;
    TransposeConvBiasOptions o;
  };
  auto opts = [](Padding p, int sh, int sw) {
    TransposeConvBiasOptions o;
    o.padding = p, o.stride_h = sh, o.stride_w = sw;
    return o;
  };
  const std::vector<Case> cases = {
      {{3, 8, 8, 16}, {8, 2, 2, 16}, opts(Padding::same, 2, 2)},  // selfie segmentation's decoder shape
      {{2, 7, 5, 6}, {4, 4, 4, 6}, opts(Padding::same, 2, 2)},
      {{1, 6, 6, 5}, {3, 3, 3, 5}, opts(Padding::valid, 2, 2)},
      {{3, 5, 9, 4}, {5, 3, 3, 4}, opts(Padding::same, 1, 1)},
      {{1, 4, 4, 8}, {2, 4, 4, 8}, opts(Padding::same, 3, 2)},
  };
  Gpu device;
  std::uint32_t seed = 300;
  for (const Case& c : cases) {
    const Nhwc out = transpose_conv_bias_output(c.in, c.weights, c.o);
    const auto input = random_floats(c.in.count(), seed++);
    const auto weights = random_floats(c.weights.count(), seed++);
    const auto bias = random_floats(c.weights.n, seed++);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::transpose_conv_bias(input.data(), c.in, weights.data(), c.weights, bias.data(), c.o, expected.data());
    auto d_in = device.upload(input), d_weights = device.upload(weights), d_bias = device.upload(bias);
    auto d_out = device.output(out.count());
    gpu::transpose_conv_bias_gpu(d_in.as<float>(), c.in, d_weights.as<float>(), c.weights, d_bias.as<float>(), c.o,
                                 d_out.as<float>(), device.stream());
    const std::string label = "Convolution2DTransposeBias " + str(c.in) + " weights " + str(c.weights) + " " +
                              padding_name(c.o.padding) + " s" + std::to_string(c.o.stride_h) + "x" +
                              std::to_string(c.o.stride_w) + " -> " + str(out);
    compare(label, device.download(d_out, out.count()), expected, kSum);
  }
}

TEST_CASE("CUDA ADD, MUL and PRELU broadcast like the CPU reference", "[infer][gpu]") {
  struct Case {
    Shape a, b;
    Activation activation;
  };
  const std::vector<Case> cases = {
      {{3, 8, 8, 16}, {3, 8, 8, 16}, Activation::none},
      {{3, 8, 8, 16}, {1, 1, 1, 16}, Activation::relu},
      {{3, 8, 8, 16}, {16}, Activation::relu6},
      {{3, 8, 1, 1}, {1, 1, 7, 5}, Activation::relu_n1_to_1},  // both operands broadcast
      {{}, {3, 4, 5, 6}, Activation::none},                    // scalar
      {{2, 1, 3}, {4, 1}, Activation::tanh},
      {{3, 9, 7, 5}, {3, 1, 1, 5}, Activation::none},
  };
  Gpu device;
  std::uint32_t seed = 400;
  for (const Case& c : cases) {
    const Shape out = broadcast_shape(c.a, c.b);
    const std::int64_t count = element_count(out);
    const auto a = random_floats(element_count(c.a), seed++, -4.0f, 4.0f);
    const auto b = random_floats(element_count(c.b), seed++, -4.0f, 4.0f);
    auto d_a = device.upload(a), d_b = device.upload(b);
    const std::string shapes = str(c.a) + " and " + str(c.b) + " " + activation_name(c.activation);
    const Tolerance tol = c.activation == Activation::tanh ? kTranscendental : kExact;
    std::vector<float> expected(static_cast<std::size_t>(count));

    cpu::add(a.data(), c.a, b.data(), c.b, c.activation, expected.data());
    auto d_sum = device.output(count);
    gpu::add_gpu(d_a.as<float>(), c.a, d_b.as<float>(), c.b, c.activation, d_sum.as<float>(), device.stream());
    compare("ADD " + shapes, device.download(d_sum, count), expected, tol);

    cpu::mul(a.data(), c.a, b.data(), c.b, c.activation, expected.data());
    auto d_product = device.output(count);
    gpu::mul_gpu(d_a.as<float>(), c.a, d_b.as<float>(), c.b, c.activation, d_product.as<float>(), device.stream());
    compare("MUL " + shapes, device.download(d_product, count), expected, tol);
  }

  const std::vector<std::pair<Shape, Shape>> prelu_cases = {
      {{3, 8, 8, 16}, {1, 1, 16}}, {{3, 8, 8, 16}, {16}}, {{3, 7, 5, 3}, {7, 5, 3}}, {{2, 5, 3, 4}, {1, 1, 1, 4}}};
  for (const auto& [shape, alpha_shape] : prelu_cases) {
    const std::int64_t count = element_count(shape);
    const auto input = random_floats(count, seed++);
    const auto alpha = random_floats(element_count(alpha_shape), seed++, 0.0f, 0.5f);
    std::vector<float> expected(static_cast<std::size_t>(count));
    cpu::prelu(input.data(), shape, alpha.data(), alpha_shape, expected.data());
    auto d_in = device.upload(input), d_alpha = device.upload(alpha);
    auto d_out = device.output(count);
    gpu::prelu_gpu(d_in.as<float>(), shape, d_alpha.as<float>(), alpha_shape, d_out.as<float>(), device.stream());
    compare("PRELU " + str(shape) + " alpha " + str(alpha_shape), device.download(d_out, count), expected, kExact);
  }
  // Shape errors come from the host side, before anything is launched.
  CHECK_THROWS_AS(gpu::prelu_gpu(nullptr, {2, 3}, nullptr, {4}, nullptr, device.stream()), gp::Error);
  CHECK_THROWS_AS(gpu::add_gpu(nullptr, {2, 3}, nullptr, {2}, Activation::none, nullptr, device.stream()), gp::Error);
  CHECK_THROWS_AS(gpu::add_gpu(nullptr, {2, 3}, nullptr, {3}, Activation::sign_bit, nullptr, device.stream()), gp::Error);
}

TEST_CASE("CUDA RELU, RELU6, HARD_SWISH, LOGISTIC and DEQUANTIZE match the CPU reference", "[infer][gpu]") {
  // Random values over [-20, 20] (past LOGISTIC's cutoffs) and the edges: zeros, the clamps,
  // the cutoffs and their neighbours, huge values, infinities, NaN.
  auto values = random_floats(100003, 500, -20.0f, 20.0f);
  const float upper = 16.619047164916992188f, inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, -3.0f, 3.0f, 6.0f, -6.0f, upper, std::nextafter(upper, 20.0f),
                  std::nextafter(upper, 0.0f), -9.0f, std::nextafter(-9.0f, -10.0f), std::nextafter(-9.0f, 0.0f),
                  1e30f, -1e30f, -100.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN()}) {
    values.push_back(v);
  }
  const auto count = static_cast<std::int64_t>(values.size());
  Gpu device;
  auto d_in = device.upload(values);
  std::vector<float> expected(values.size());
  struct Unary {
    const char* name;
    void (*cpu)(const float*, std::int64_t, float*);
    void (*gpu)(const float*, std::int64_t, float*, cudaStream_t);
    Tolerance tol;
  };
  const Unary ops[] = {{"RELU", cpu::relu, gpu::relu_gpu, kExact},
                       {"RELU6", cpu::relu6, gpu::relu6_gpu, kExact},
                       {"HARD_SWISH", cpu::hard_swish, gpu::hard_swish_gpu, kExact},
                       {"LOGISTIC", cpu::logistic, gpu::logistic_gpu, kTranscendental},
                       {"RESHAPE (copy)", cpu::copy, gpu::copy_gpu, kExact}};
  for (const Unary& op : ops) {
    op.cpu(values.data(), count, expected.data());
    auto d_out = device.output(count);
    op.gpu(d_in.as<float>(), count, d_out.as<float>(), device.stream());
    compare(std::string(op.name) + " of " + std::to_string(count) + " values", device.download(d_out, count), expected,
            op.tol);
  }

  // Every binary16 bit pattern; NaN payloads compared bit for bit too.
  std::vector<std::uint16_t> halves(65536);
  for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<std::uint16_t>(i);
  std::vector<float> widened(halves.size());
  cpu::dequantize_fp16(halves.data(), 65536, widened.data());
  auto d_halves = device.upload(halves);
  auto d_widened = device.output(65536);
  gpu::dequantize_fp16_gpu(d_halves.as<std::uint16_t>(), 65536, d_widened.as<float>(), device.stream());
  const auto got = device.download(d_widened, 65536);
  compare("DEQUANTIZE every fp16 value", got, widened, kExact);
  CHECK(std::memcmp(got.data(), widened.data(), widened.size() * sizeof(float)) == 0);
}

TEST_CASE("CUDA MEAN and PAD match the CPU reference", "[infer][gpu]") {
  Gpu device;
  std::uint32_t seed = 600;
  const std::vector<std::pair<Shape, std::vector<int>>> mean_cases = {
      {{3, 8, 8, 16}, {1, 2}}, {{3, 7, 5, 6}, {-1}}, {{3, 7, 5, 6}, {0, 3}}, {{2, 3, 4}, {1}},
      {{3, 9, 11, 5}, {2, 1, 2}}, {{4, 6}, {0, 1}}};
  for (const auto& [shape, axes] : mean_cases) {
    const Shape out = mean_output(shape, axes, false);
    const std::int64_t count = element_count(out);
    const auto input = random_floats(element_count(shape), seed++);
    std::vector<float> expected(static_cast<std::size_t>(count));
    cpu::mean(input.data(), shape, axes, expected.data());
    auto d_in = device.upload(input);
    auto d_out = device.output(count);
    gpu::mean_gpu(d_in.as<float>(), shape, axes, d_out.as<float>(), device.stream());
    std::string axes_text;
    for (int a : axes) axes_text += " " + std::to_string(a);
    compare("MEAN " + str(shape) + " axes" + axes_text, device.download(d_out, count), expected, kSum);
  }

  const std::vector<std::pair<Shape, std::vector<int>>> pad_cases = {
      {{3, 7, 5, 4}, {0, 0, 1, 2, 2, 1, 0, 0}},
      {{2, 3, 4, 5}, {1, 1, 0, 2, 3, 0, 2, 1}},
      {{5, 6}, {2, 3, 1, 0}},
      {{7}, {0, 3}},
  };
  for (const auto& [shape, paddings] : pad_cases) {
    const Shape out = pad_output(shape, paddings);
    const std::int64_t count = element_count(out);
    const auto input = random_floats(element_count(shape), seed++);
    std::vector<float> expected(static_cast<std::size_t>(count));
    cpu::pad(input.data(), shape, paddings, expected.data());
    auto d_in = device.upload(input);
    auto d_out = device.output(count);
    gpu::pad_gpu(d_in.as<float>(), shape, paddings, d_out.as<float>(), device.stream());
    compare("PAD " + str(shape) + " -> " + str(out), device.download(d_out, count), expected, kExact);
  }
}

TEST_CASE("CUDA DEPTH_TO_SPACE matches the CPU reference", "[infer][gpu]") {
  Gpu device;
  std::uint32_t seed = 650;
  for (const auto& [in, block] : std::vector<std::pair<Nhwc, int>>{
           {{1, 28, 28, 64}, 2}, {{3, 5, 7, 18}, 3}, {{2, 4, 4, 8}, 1}, {{1, 1, 1, 16}, 4}}) {
    const Nhwc out = depth_to_space_output(in, block);
    const auto input = random_floats(in.count(), seed++);
    std::vector<float> expected(static_cast<std::size_t>(out.count()));
    cpu::depth_to_space(input.data(), in, block, expected.data());
    auto d_in = device.upload(input);
    auto d_out = device.output(out.count());
    gpu::depth_to_space_gpu(d_in.as<float>(), in, block, d_out.as<float>(), device.stream());
    compare("DEPTH_TO_SPACE " + str(in) + " block " + std::to_string(block), device.download(d_out, out.count()),
            expected, kExact);
  }
}

TEST_CASE("CUDA RESIZE_BILINEAR matches the CPU reference with both flags", "[infer][gpu]") {
  struct Case {
    Nhwc in;
    int out_h, out_w;
  };
  const std::vector<Case> cases = {
      {{3, 8, 6, 5}, 16, 12}, {{2, 17, 13, 3}, 7, 5}, {{1, 1, 1, 4}, 3, 3}, {{1, 5, 5, 2}, 1, 1}, {{3, 6, 10, 7}, 13, 9}};
  Gpu device;
  std::uint32_t seed = 700;
  for (const Case& c : cases) {
    const auto input = random_floats(c.in.count(), seed++);
    auto d_in = device.upload(input);
    for (const bool align_corners : {false, true}) {
      for (const bool half_pixel_centers : {false, true}) {
        // TFLite allows one at most (the model reader rejects both): out of range taps otherwise.
        if (align_corners && half_pixel_centers) continue;
        ResizeBilinearOptions o;
        o.align_corners = align_corners, o.half_pixel_centers = half_pixel_centers;
        const Nhwc out = resize_output(c.in, c.out_h, c.out_w);
        std::vector<float> expected(static_cast<std::size_t>(out.count()));
        cpu::resize_bilinear(input.data(), c.in, c.out_h, c.out_w, o, expected.data());
        auto d_out = device.output(out.count());
        gpu::resize_bilinear_gpu(d_in.as<float>(), c.in, c.out_h, c.out_w, o, d_out.as<float>(), device.stream());
        const std::string label = "RESIZE_BILINEAR " + str(c.in) + " -> " + str(out) +
                                  " align_corners=" + std::to_string(align_corners) +
                                  " half_pixel_centers=" + std::to_string(half_pixel_centers);
        compare(label, device.download(d_out, out.count()), expected, kSum);
      }
    }
  }
}

TEST_CASE("CUDA CONCATENATION matches the CPU reference", "[infer][gpu]") {
  struct Case {
    std::vector<Shape> shapes;
    int axis;
    Activation activation;
  };
  const std::vector<Case> cases = {
      {{{3, 4, 5, 2}, {3, 4, 5, 7}, {3, 4, 5, 1}}, -1, Activation::none},
      {{{3, 2, 5, 2}, {3, 6, 5, 2}}, 1, Activation::none},
      {{{1, 4, 4}, {2, 4, 4}}, 0, Activation::relu},
      {{{3, 5, 1, 3}, {3, 5, 4, 3}, {3, 5, 2, 3}}, 2, Activation::relu6},
      {{{2, 896, 12}, {2, 1, 12}}, 1, Activation::none},
  };
  Gpu device;
  std::uint32_t seed = 800;
  for (const Case& c : cases) {
    std::vector<std::vector<float>> inputs;
    std::vector<gp::DeviceBuffer> d_inputs;
    std::vector<const float*> host_ptrs, device_ptrs;
    std::string label = "CONCATENATION axis " + std::to_string(c.axis) + " " + activation_name(c.activation) + ":";
    for (const Shape& s : c.shapes) {
      inputs.push_back(random_floats(element_count(s), seed++, -8.0f, 8.0f));
      d_inputs.push_back(device.upload(inputs.back()));
      label += " " + str(s);
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      host_ptrs.push_back(inputs[i].data());
      device_ptrs.push_back(d_inputs[i].as<float>());
    }
    const Shape out = concatenation_output(c.shapes, c.axis);
    const std::int64_t count = element_count(out);
    std::vector<float> expected(static_cast<std::size_t>(count));
    cpu::concatenation(host_ptrs, c.shapes, c.axis, c.activation, expected.data());
    auto d_out = device.output(count);
    gpu::concatenation_gpu(device_ptrs, c.shapes, c.axis, c.activation, d_out.as<float>(), device.stream());
    compare(label, device.download(d_out, count), expected, kExact);
  }
}
