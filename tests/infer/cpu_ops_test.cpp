// CPU reference operators: small hand-checked cases (padding splits, strides, dilation,
// broadcasting, resize flags, transposed-convolution sizes) and random tensors against direct
// formulas written from the operators' definitions (double accumulation).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "infer/cpu_ops.hpp"
#include "cuda/common/half.hpp"
#include "cuda/infer/op_geometry.hpp"

using namespace gp::infer;
using gp::float_to_half;
using gp::half_to_float;
using Catch::Matchers::Contains;

namespace {

std::vector<float> random_values(std::size_t count, std::mt19937& rng, float low = -1.0f, float high = 1.0f) {
  std::uniform_real_distribution<float> dist(low, high);
  std::vector<float> out(count);
  for (auto& v : out) v = dist(rng);
  return out;
}

std::vector<float> iota_values(std::size_t count, float first = 1.0f) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = first + static_cast<float>(i);
  return out;
}

std::int64_t at(const Nhwc& s, int n, int y, int x, int c) {
  return ((std::int64_t{n} * s.h + y) * s.w + x) * s.c + c;
}

// |a - b| <= tolerance * (1 + |b|) element by element.
void require_close(const std::vector<float>& actual, const std::vector<double>& expected, double tolerance = 1e-5) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(actual[i] - expected[i]) <= tolerance * (1 + std::abs(expected[i])));
  }
}

double clamp_activation(double x, Activation a) {
  switch (a) {
    case Activation::relu: return std::max(x, 0.0);
    case Activation::relu6: return std::min(std::max(x, 0.0), 6.0);
    case Activation::relu_n1_to_1: return std::min(std::max(x, -1.0), 1.0);
    case Activation::tanh: return std::tanh(x);
    default: return x;
  }
}

// Padding before the window, from the padding's definition rather than window_axis: SAME pads
// so that out = ceil(in / stride) with the odd pixel after; VALID pads nothing.
int naive_pad_before(Padding padding, int in, int filter, int stride, int dilation, int out) {
  if (padding == Padding::valid) return 0;
  const int needed = (out - 1) * stride + (filter - 1) * dilation + 1 - in;
  return needed > 0 ? needed / 2 : 0;
}

}  // namespace

TEST_CASE("window_axis: TFLite output sizes and the odd padding after", "[infer]") {
  // SAME, even total padding: split evenly.
  auto a = window_axis(Padding::same, 5, 3, 2);
  CHECK(a.out == 3);
  CHECK(a.pad_before == 1);
  CHECK(a.pad_after == 1);
  // SAME, odd total: the extra row goes after (bottom/right).
  a = window_axis(Padding::same, 6, 3, 2);
  CHECK(a.out == 3);
  CHECK(a.pad_before == 0);
  CHECK(a.pad_after == 1);
  a = window_axis(Padding::same, 4, 4, 1);
  CHECK(a.out == 4);
  CHECK(a.pad_before == 1);
  CHECK(a.pad_after == 2);
  // VALID: no padding, floor((in - filter) / stride) + 1.
  a = window_axis(Padding::valid, 7, 3, 2);
  CHECK(a.out == 3);
  CHECK(a.pad_before + a.pad_after == 0);
  CHECK(window_axis(Padding::valid, 8, 3, 2).out == 3);
  // Dilation widens the filter: 3 taps at dilation 2 span 5.
  a = window_axis(Padding::same, 7, 3, 1, 2);
  CHECK(a.out == 7);
  CHECK(a.pad_before == 2);
  CHECK(window_axis(Padding::valid, 7, 3, 1, 2).out == 3);
  CHECK_THROWS_WITH(window_axis(Padding::valid, 2, 3, 1), Contains("gives no output"));
}

TEST_CASE("transpose_conv_axis: MediaPipe's output size", "[infer]") {
  // The selfie model: 128 -> 256 with a 2x2 filter at stride 2.
  auto a = transpose_conv_axis(Padding::same, 128, 2, 2);
  CHECK(a.out == 256);
  CHECK(a.pad_before == 0);
  // total = max(0, filter - (in - 1) % stride - 1); out = stride * (in - 1) + filter - total.
  a = transpose_conv_axis(Padding::same, 4, 3, 2);  // total 1
  CHECK(a.out == 8);
  CHECK(a.pad_before == 0);
  a = transpose_conv_axis(Padding::same, 5, 4, 2);  // total 3
  CHECK(a.out == 9);
  CHECK(a.pad_before == 1);
  a = transpose_conv_axis(Padding::valid, 4, 3, 2);
  CHECK(a.out == 9);
  CHECK(a.pad_before == 0);
}

TEST_CASE("conv2d: hand-checked SAME stride 2 with the odd padding after", "[infer]") {
  const Nhwc in{1, 4, 4, 1}, filter{1, 3, 3, 1};
  const auto input = iota_values(16);
  const std::vector<float> ones(9, 1.0f);
  Conv2DOptions o;
  o.padding = Padding::same;
  o.stride_h = o.stride_w = 2;
  REQUIRE(conv2d_output(in, filter, o) == Nhwc{1, 2, 2, 1});
  std::vector<float> out(4);
  cpu::conv2d(input.data(), in, ones.data(), filter, nullptr, o, out.data());
  // Total padding 1 per axis, all of it after: windows start at rows/columns 0 and 2.
  CHECK(out == std::vector<float>{54, 45, 72, 54});

  const float bias = -50.0f;
  o.activation = Activation::relu6;
  cpu::conv2d(input.data(), in, ones.data(), filter, &bias, o, out.data());
  CHECK(out == std::vector<float>{4, 0, 6, 4});
}

TEST_CASE("conv2d: dilation and VALID, hand-checked", "[infer]") {
  const Nhwc in{1, 5, 5, 1}, filter{1, 2, 2, 1};
  const auto input = iota_values(25);
  const std::vector<float> weights{1, 10, 100, 1000};
  Conv2DOptions o;
  o.padding = Padding::valid;
  o.dilation_h = o.dilation_w = 3;  // taps at 0 and 3
  REQUIRE(conv2d_output(in, filter, o) == Nhwc{1, 2, 2, 1});
  std::vector<float> out(4);
  cpu::conv2d(input.data(), in, weights.data(), filter, nullptr, o, out.data());
  // Output (0, 0) reads (0,0), (0,3), (3,0), (3,3) = 1, 4, 16, 19.
  CHECK(out[0] == 1 + 40 + 1600 + 19000);
  CHECK(out[3] == 7 + 100 + 2200 + 25000);
}

TEST_CASE("conv2d and depthwise_conv2d against the direct formula on random tensors", "[infer]") {
  std::mt19937 rng(7);
  struct Case {
    Nhwc in;
    int kh, kw, out_c, multiplier, stride_h, stride_w, dilation_h, dilation_w;
    Padding padding;
    Activation activation;
  };
  const std::vector<Case> cases{
      {{2, 9, 7, 3}, 3, 3, 5, 1, 1, 1, 1, 1, Padding::same, Activation::none},
      {{1, 10, 11, 4}, 3, 3, 6, 2, 2, 2, 1, 1, Padding::same, Activation::relu},
      {{3, 8, 8, 2}, 5, 5, 4, 3, 2, 1, 1, 1, Padding::same, Activation::relu6},
      {{1, 12, 9, 3}, 3, 2, 2, 1, 1, 2, 2, 3, Padding::same, Activation::relu_n1_to_1},
      {{2, 9, 10, 3}, 3, 3, 4, 2, 2, 3, 1, 1, Padding::valid, Activation::none},
      {{1, 6, 6, 8}, 1, 1, 16, 1, 1, 1, 1, 1, Padding::valid, Activation::tanh},
      {{1, 5, 4, 2}, 4, 4, 3, 1, 3, 3, 1, 1, Padding::same, Activation::none},
  };
  for (const Case& k : cases) {
    INFO("input " << shape_string(k.in.shape()) << " filter " << k.kh << "x" << k.kw << " stride " << k.stride_h << "x"
                  << k.stride_w << " dilation " << k.dilation_h << "x" << k.dilation_w << " "
                  << padding_name(k.padding));
    const auto input = random_values(static_cast<std::size_t>(k.in.count()), rng);
    {
      const Nhwc filter{k.out_c, k.kh, k.kw, k.in.c};
      const auto weights = random_values(static_cast<std::size_t>(filter.count()), rng);
      const auto bias = random_values(static_cast<std::size_t>(k.out_c), rng);
      Conv2DOptions o{k.padding, k.stride_w, k.stride_h, k.dilation_w, k.dilation_h, k.activation};
      const Nhwc out = conv2d_output(k.in, filter, o);
      std::vector<float> actual(static_cast<std::size_t>(out.count()));
      cpu::conv2d(input.data(), k.in, weights.data(), filter, bias.data(), o, actual.data());
      const int pad_y = naive_pad_before(k.padding, k.in.h, k.kh, k.stride_h, k.dilation_h, out.h);
      const int pad_x = naive_pad_before(k.padding, k.in.w, k.kw, k.stride_w, k.dilation_w, out.w);
      std::vector<double> expected(actual.size());
      for (int n = 0; n < out.n; ++n)
        for (int y = 0; y < out.h; ++y)
          for (int x = 0; x < out.w; ++x)
            for (int oc = 0; oc < out.c; ++oc) {
              double sum = bias[static_cast<std::size_t>(oc)];
              for (int fy = 0; fy < k.kh; ++fy)
                for (int fx = 0; fx < k.kw; ++fx)
                  for (int ic = 0; ic < k.in.c; ++ic) {
                    const int iy = y * k.stride_h - pad_y + fy * k.dilation_h;
                    const int ix = x * k.stride_w - pad_x + fx * k.dilation_w;
                    if (iy < 0 || ix < 0 || iy >= k.in.h || ix >= k.in.w) continue;  // zero padding
                    sum += double{input[static_cast<std::size_t>(at(k.in, n, iy, ix, ic))]} *
                           weights[static_cast<std::size_t>(at(filter, oc, fy, fx, ic))];
                  }
              expected[static_cast<std::size_t>(at(out, n, y, x, oc))] = clamp_activation(sum, k.activation);
            }
      require_close(actual, expected);
    }
    {
      const Nhwc filter{1, k.kh, k.kw, k.in.c * k.multiplier};
      const auto weights = random_values(static_cast<std::size_t>(filter.count()), rng);
      const auto bias = random_values(static_cast<std::size_t>(filter.c), rng);
      DepthwiseConv2DOptions o{k.padding,    k.stride_w,   k.stride_h, k.dilation_w,
                               k.dilation_h, k.multiplier, k.activation};
      const Nhwc out = depthwise_conv2d_output(k.in, filter, o);
      REQUIRE(out.c == k.in.c * k.multiplier);
      std::vector<float> actual(static_cast<std::size_t>(out.count()));
      cpu::depthwise_conv2d(input.data(), k.in, weights.data(), filter, bias.data(), o, actual.data());
      const int pad_y = naive_pad_before(k.padding, k.in.h, k.kh, k.stride_h, k.dilation_h, out.h);
      const int pad_x = naive_pad_before(k.padding, k.in.w, k.kw, k.stride_w, k.dilation_w, out.w);
      std::vector<double> expected(actual.size());
      for (int n = 0; n < out.n; ++n)
        for (int y = 0; y < out.h; ++y)
          for (int x = 0; x < out.w; ++x)
            for (int oc = 0; oc < out.c; ++oc) {
              const int ic = oc / k.multiplier;
              double sum = bias[static_cast<std::size_t>(oc)];
              for (int fy = 0; fy < k.kh; ++fy)
                for (int fx = 0; fx < k.kw; ++fx) {
                  const int iy = y * k.stride_h - pad_y + fy * k.dilation_h;
                  const int ix = x * k.stride_w - pad_x + fx * k.dilation_w;
                  if (iy < 0 || ix < 0 || iy >= k.in.h || ix >= k.in.w) continue;
                  sum += double{input[static_cast<std::size_t>(at(k.in, n, iy, ix, ic))]} *
                         weights[static_cast<std::size_t>(at(filter, 0, fy, fx, oc))];
                }
              expected[static_cast<std::size_t>(at(out, n, y, x, oc))] = clamp_activation(sum, k.activation);
            }
      require_close(actual, expected);
    }
  }
}

TEST_CASE("depthwise_conv2d: depth multiplier, hand-checked", "[infer]") {
  const Nhwc in{1, 1, 2, 2}, filter{1, 1, 1, 4};
  const std::vector<float> input{1, 2, 3, 4};  // pixels (1, 2) and (3, 4)
  const std::vector<float> weights{10, 20, 30, 40};
  const std::vector<float> bias{0.5f, 0, 0, 0};
  DepthwiseConv2DOptions o;
  o.depth_multiplier = 2;
  std::vector<float> out(8);
  cpu::depthwise_conv2d(input.data(), in, weights.data(), filter, bias.data(), o, out.data());
  // Channel c * 2 + m reads input channel c.
  CHECK(out == std::vector<float>{10.5f, 20, 60, 80, 30.5f, 60, 120, 160});
}

TEST_CASE("pools: average counts only in-bounds elements; max", "[infer]") {
  const Nhwc in{1, 3, 3, 1};
  const auto input = iota_values(9);
  Pool2DOptions o;
  o.padding = Padding::same;
  o.filter_h = o.filter_w = 2;
  o.stride_h = o.stride_w = 2;
  REQUIRE(pool2d_output(in, o) == Nhwc{1, 2, 2, 1});
  std::vector<float> out(4);
  cpu::average_pool2d(input.data(), in, o, out.data());
  CHECK(out == std::vector<float>{3, 4.5f, 7.5f, 9});
  cpu::max_pool2d(input.data(), in, o, out.data());
  CHECK(out == std::vector<float>{5, 6, 8, 9});
  // SAME 3x3 stride 1: the corner window sees 4 elements, padding before and after.
  o.filter_h = o.filter_w = 3;
  o.stride_h = o.stride_w = 1;
  std::vector<float> out9(9);
  cpu::average_pool2d(input.data(), in, o, out9.data());
  CHECK(out9[0] == Approx((1 + 2 + 4 + 5) / 4.0));
  CHECK(out9[4] == Approx(5));
  CHECK(out9[8] == Approx((5 + 6 + 8 + 9) / 4.0));
  // Global VALID pooling as the selfie model uses it, with a fused RELU on the max.
  const std::vector<float> signed_input{-1, -2, -3, -4};
  o = Pool2DOptions{Padding::valid, 2, 2, 2, 2, Activation::relu};
  std::vector<float> one(1);
  cpu::max_pool2d(signed_input.data(), {1, 2, 2, 1}, o, one.data());
  CHECK(one[0] == 0);
  o.activation = Activation::none;
  cpu::average_pool2d(signed_input.data(), {1, 2, 2, 1}, o, one.data());
  CHECK(one[0] == -2.5f);
}

TEST_CASE("transpose_conv_bias: hand-checked and bit-identical to MediaPipe's scatter loop", "[infer]") {
  {
    const Nhwc in{1, 2, 2, 1}, weights{1, 2, 2, 1};
    const std::vector<float> input{1, 2, 3, 4}, w{1, 10, 100, 1000}, bias{0.5f};
    const TransposeConvBiasOptions o{Padding::same, 2, 2};
    REQUIRE(transpose_conv_bias_output(in, weights, o) == Nhwc{1, 4, 4, 1});
    std::vector<float> out(16);
    cpu::transpose_conv_bias(input.data(), in, w.data(), weights, bias.data(), o, out.data());
    // Each input pixel v fills its own 2x2 block with v * weights + bias.
    CHECK(out == std::vector<float>{1.5f, 10.5f, 2.5f, 20.5f, 100.5f, 1000.5f, 200.5f, 2000.5f, 3.5f, 30.5f, 4.5f,
                                    40.5f, 300.5f, 3000.5f, 400.5f, 4000.5f});
  }
  std::mt19937 rng(11);
  struct Case {
    Nhwc in;
    int kh, kw, out_c, stride_h, stride_w;
    Padding padding;
  };
  for (const Case& k : std::vector<Case>{{{1, 4, 4, 3}, 2, 2, 2, 2, 2, Padding::same},
                                         {{2, 5, 4, 2}, 3, 3, 3, 2, 2, Padding::same},
                                         {{1, 5, 6, 4}, 4, 3, 2, 2, 3, Padding::same},
                                         {{1, 3, 4, 2}, 3, 2, 2, 2, 1, Padding::valid},
                                         {{1, 4, 3, 3}, 5, 5, 1, 1, 1, Padding::same}}) {
    INFO("input " << shape_string(k.in.shape()) << " filter " << k.kh << "x" << k.kw);
    const Nhwc weights{k.out_c, k.kh, k.kw, k.in.c};
    const auto input = random_values(static_cast<std::size_t>(k.in.count()), rng);
    const auto w = random_values(static_cast<std::size_t>(weights.count()), rng);
    const auto bias = random_values(static_cast<std::size_t>(k.out_c), rng);
    const TransposeConvBiasOptions o{k.padding, k.stride_w, k.stride_h};
    const Nhwc out = transpose_conv_bias_output(k.in, weights, o);
    std::vector<float> actual(static_cast<std::size_t>(out.count()));
    cpu::transpose_conv_bias(input.data(), k.in, w.data(), weights, bias.data(), o, actual.data());
    // MediaPipe's loop (transpose_conv_bias.cc): bias everywhere, then scatter every input.
    const int total_y = k.padding == Padding::same ? std::max(0, k.kh - (k.in.h - 1) % k.stride_h - 1) : 0;
    const int total_x = k.padding == Padding::same ? std::max(0, k.kw - (k.in.w - 1) % k.stride_w - 1) : 0;
    REQUIRE(out.h == k.stride_h * (k.in.h - 1) + k.kh - total_y);
    REQUIRE(out.w == k.stride_w * (k.in.w - 1) + k.kw - total_x);
    std::vector<float> expected(actual.size());
    for (int n = 0; n < out.n; ++n) {
      for (int y = 0; y < out.h; ++y)
        for (int x = 0; x < out.w; ++x)
          for (int oc = 0; oc < out.c; ++oc) expected[static_cast<std::size_t>(at(out, n, y, x, oc))] = bias[oc];
      for (int iy = 0; iy < k.in.h; ++iy)
        for (int ix = 0; ix < k.in.w; ++ix)
          for (int ic = 0; ic < k.in.c; ++ic)
            for (int fy = 0; fy < k.kh; ++fy)
              for (int fx = 0; fx < k.kw; ++fx)
                for (int oc = 0; oc < out.c; ++oc) {
                  const int y = iy * k.stride_h - total_y / 2 + fy, x = ix * k.stride_w - total_x / 2 + fx;
                  if (y < 0 || x < 0 || y >= out.h || x >= out.w) continue;
                  expected[static_cast<std::size_t>(at(out, n, y, x, oc))] +=
                      input[static_cast<std::size_t>(at(k.in, n, iy, ix, ic))] *
                      w[static_cast<std::size_t>(at(weights, oc, fy, fx, ic))];
                }
    }
    CHECK(actual == expected);
  }
}

TEST_CASE("add and mul broadcast as TFLite does", "[infer]") {
  CHECK(broadcast_shape({2, 1, 3}, {4, 1}) == Shape{2, 4, 3});
  CHECK(broadcast_shape({1, 64, 64, 16}, {1, 1, 1, 16}) == Shape{1, 64, 64, 16});
  CHECK(broadcast_shape({3, 1, 1, 5}, {1, 4, 1}) == Shape{3, 1, 4, 5});
  CHECK(broadcast_shape({}, {2, 3}) == Shape{2, 3});
  CHECK_THROWS_WITH(broadcast_shape({2, 3}, {4, 3}), Contains("do not broadcast"));

  // Hand-checked: [2,1,3] + [4,1].
  const auto a = iota_values(6, 0);            // a[i][0][k] = 3 i + k
  const std::vector<float> b{0, 10, 20, 30};  // b[j][0] = 10 j
  std::vector<float> out(24);
  cpu::add(a.data(), {2, 1, 3}, b.data(), {4, 1}, Activation::none, out.data());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) CHECK(out[static_cast<std::size_t>((i * 4 + j) * 3 + k)] == 3 * i + k + 10 * j);
  cpu::mul(a.data(), {2, 1, 3}, b.data(), {4, 1}, Activation::relu_n1_to_1, out.data());
  CHECK(out[0] == 0);
  CHECK(out[4] == 1);  // 1 * 10 clamped

  // Random shapes against the index formula, with a fused activation.
  std::mt19937 rng(3);
  const std::vector<std::pair<Shape, Shape>> pairs{{{2, 3, 4, 5}, {2, 3, 4, 5}}, {{2, 3, 4, 5}, {5}},
                                                   {{2, 1, 4, 1}, {1, 3, 1, 5}}, {{3, 1, 1, 6}, {3, 7, 9, 1}},
                                                   {{1}, {4, 2}},               {{4, 1, 3}, {2, 1}}};
  for (const auto& [sa, sb] : pairs) {
    INFO(shape_string(sa) << " and " << shape_string(sb));
    const Shape so = broadcast_shape(sa, sb);
    const auto va = random_values(static_cast<std::size_t>(element_count(sa)), rng, -4, 4);
    const auto vb = random_values(static_cast<std::size_t>(element_count(sb)), rng, -4, 4);
    std::vector<float> sum(static_cast<std::size_t>(element_count(so))), product(sum.size());
    cpu::add(va.data(), sa, vb.data(), sb, Activation::relu6, sum.data());
    cpu::mul(va.data(), sa, vb.data(), sb, Activation::none, product.data());
    const std::size_t rank = so.size();
    // Index into a broadcast operand from the output coordinates (aligned at the last axis).
    auto index = [&](const Shape& s, const std::vector<int>& coordinate) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < s.size(); ++d) {
        const int c = coordinate[d + rank - s.size()];
        offset = offset * s[d] + (s[d] == 1 ? 0 : c);
      }
      return static_cast<std::size_t>(offset);
    };
    std::vector<int> coordinate(rank, 0);
    for (std::size_t i = 0; i < sum.size(); ++i) {
      const float x = va[index(sa, coordinate)], y = vb[index(sb, coordinate)];
      REQUIRE(sum[i] == std::min(std::max(x + y, 0.0f), 6.0f));
      REQUIRE(product[i] == x * y);
      for (std::size_t d = rank; d-- > 0;) {
        if (++coordinate[d] < so[d]) break;
        coordinate[d] = 0;
      }
    }
  }
}

TEST_CASE("prelu: alpha per channel", "[infer]") {
  const std::vector<float> input{-2, 3, -4, 5, -6, -7};  // 1x1x2x3
  const std::vector<float> alpha{0.5f, 0.25f, -1};        // 1x1x3
  std::vector<float> out(6);
  cpu::prelu(input.data(), {1, 1, 2, 3}, alpha.data(), {1, 1, 3}, out.data());
  CHECK(out == std::vector<float>{-1, 3, 4, 5, -1.5f, 7});
  CHECK_THROWS(cpu::prelu(input.data(), {1, 1, 2, 3}, alpha.data(), {2, 1, 3}, out.data()));
}

TEST_CASE("element-wise activations and DEQUANTIZE", "[infer]") {
  const std::vector<float> x{-4, -3, -1, 0, 1, 3, 4, 7};
  std::vector<float> out(x.size());
  cpu::hard_swish(x.data(), 8, out.data());
  CHECK(out == std::vector<float>{0, 0, -1 * 2.0f / 6.0f, 0, 1 * 4.0f / 6.0f, 3, 4, 7});
  cpu::relu(x.data(), 8, out.data());
  CHECK(out == std::vector<float>{0, 0, 0, 0, 1, 3, 4, 7});
  cpu::relu6(x.data(), 8, out.data());
  CHECK(out == std::vector<float>{0, 0, 0, 0, 1, 3, 4, 6});
  cpu::logistic(x.data(), 8, out.data());
  CHECK(out[3] == 0.5f);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(out[i] == Approx(1 / (1 + std::exp(-double{x[i]}))));
  // Fused activations clamp to TFLite's activation range, NONE included.
  CHECK(cpu::activate(INFINITY, Activation::none) == std::numeric_limits<float>::max());
  CHECK(cpu::activate(-INFINITY, Activation::relu) == 0);
  CHECK(cpu::activate(7.5f, Activation::relu6) == 6);
  CHECK(cpu::activate(-7.5f, Activation::relu_n1_to_1) == -1);
  CHECK(cpu::activate(0.5f, Activation::tanh) == std::tanh(0.5f));
  CHECK_THROWS_WITH(cpu::activate(1, Activation::sign_bit), Contains("SIGN_BIT"));
  // TFLite's cutoffs: exactly 1 above 16.619047, exp(x) below -9.
  const std::vector<float> tails{-20, -9.5f, 16.7f, 40};
  std::vector<float> tail_out(4);
  cpu::logistic(tails.data(), 4, tail_out.data());
  CHECK(tail_out[0] == std::exp(-20.0f));
  CHECK(tail_out[1] == std::exp(-9.5f));
  CHECK(tail_out[2] == 1.0f);
  CHECK(tail_out[3] == 1.0f);
  // Large element counts take the threaded path.
  std::mt19937 rng(5);
  const auto many = random_values(100000, rng, -8, 8);
  std::vector<float> many_out(many.size());
  cpu::hard_swish(many.data(), static_cast<std::int64_t>(many.size()), many_out.data());
  for (std::size_t i = 0; i < many.size(); i += 997) {
    const double v = many[i];
    REQUIRE(many_out[i] == Approx(v * std::min(std::max(v + 3, 0.0), 6.0) / 6).margin(1e-6));
  }

  const std::vector<float> values{0, -0.0f, 1, -2.5f, 65504, 0.000061035156f, 5.9604645e-08f, 0.1f};
  std::vector<std::uint16_t> halves;
  for (const float v : values) halves.push_back(float_to_half(v));
  std::vector<float> widened(values.size());
  cpu::dequantize_fp16(halves.data(), static_cast<std::int64_t>(halves.size()), widened.data());
  for (std::size_t i = 0; i + 1 < values.size(); ++i) CHECK(widened[i] == values[i]);  // exact in half
  CHECK(widened.back() == 0.0999755859375f);  // 0.1 rounded to half
  CHECK(std::signbit(widened[1]));
}

TEST_CASE("mean over axes with and without keep_dims", "[infer]") {
  const auto input = iota_values(24, 0);  // 1x2x3x4
  CHECK(mean_output({1, 2, 3, 4}, {1, 2}, true) == Shape{1, 1, 1, 4});
  CHECK(mean_output({1, 2, 3, 4}, {2, 1, -3}, false) == Shape{1, 4});
  CHECK(mean_output({1, 2, 3, 4}, {-1}, false) == Shape{1, 2, 3});
  std::vector<float> out(4);
  cpu::mean(input.data(), {1, 2, 3, 4}, {1, 2}, out.data());
  // Channel c averages c, c + 4, ..., c + 20.
  CHECK(out == std::vector<float>{10, 11, 12, 13});
  std::vector<float> rows(6);
  cpu::mean(input.data(), {1, 2, 3, 4}, {-1}, rows.data());
  CHECK(rows == std::vector<float>{1.5f, 5.5f, 9.5f, 13.5f, 17.5f, 21.5f});
  std::vector<float> middle(8);
  cpu::mean(input.data(), {1, 2, 3, 4}, {2}, middle.data());  // 1x2x4
  CHECK(middle[0] == 4);
  CHECK(middle[7] == 19);
}

TEST_CASE("pad: zero padding from a paddings tensor", "[infer]") {
  const std::vector<float> input{1, 2, 3, 4, 5, 6};  // 1x2x3x1
  const std::vector<int> paddings{0, 0, 1, 0, 0, 2, 0, 1};
  REQUIRE(pad_output({1, 2, 3, 1}, paddings) == Shape{1, 3, 5, 2});
  std::vector<float> out(30, -1);
  cpu::pad(input.data(), {1, 2, 3, 1}, paddings, out.data());
  const std::vector<float> expected{0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   // padded row
                                    1, 0, 2, 0, 3, 0, 0, 0, 0, 0,   // row 0
                                    4, 0, 5, 0, 6, 0, 0, 0, 0, 0};  // row 1
  CHECK(out == expected);
  // Channel padding as face detection uses it (24 -> 28 channels, after).
  std::mt19937 rng(2);
  const auto big = random_values(2 * 4 * 4 * 24, rng);
  std::vector<float> padded(2 * 4 * 4 * 28);
  cpu::pad(big.data(), {2, 4, 4, 24}, {0, 0, 0, 0, 0, 0, 0, 4}, padded.data());
  for (int p = 0; p < 32; ++p)
    for (int c = 0; c < 28; ++c) REQUIRE(padded[p * 28 + c] == (c < 24 ? big[p * 24 + c] : 0.0f));
  CHECK_THROWS(pad_output({1, 2}, {0, 0, 1}));
}

TEST_CASE("depth_to_space: TFLite's DCR order, hand-checked", "[infer]") {
  // 1x1x2x8, block 2: each pixel's 8 channels become a 2x2 block of 2 channels, channel groups in
  // (dy, dx) order: group (dy * 2 + dx) holds the output pixel (2y + dy, 2x + dx).
  std::vector<float> input(16);
  for (int i = 0; i < 16; ++i) input[std::size_t(i)] = float(i);
  REQUIRE(depth_to_space_output({1, 1, 2, 8}, 2) == Nhwc{1, 2, 4, 2});
  std::vector<float> out(16, -1);
  cpu::depth_to_space(input.data(), {1, 1, 2, 8}, 2, out.data());
  const std::vector<float> expected{0, 1,  2,  3,  8,  9,  10, 11,   // output row 0: dy = 0
                                    4, 5,  6,  7,  12, 13, 14, 15};  // output row 1: dy = 1
  CHECK(out == expected);
  // Block 3 over a batch of 2 against the formula.
  const Nhwc in{2, 3, 2, 18};
  std::mt19937 rng(5);
  const auto values = random_values(std::size_t(in.count()), rng);
  const Nhwc o = depth_to_space_output(in, 3);
  REQUIRE(o == Nhwc{2, 9, 6, 2});
  std::vector<float> got(std::size_t(o.count()));
  cpu::depth_to_space(values.data(), in, 3, got.data());
  for (int n = 0; n < o.n; ++n)
    for (int y = 0; y < o.h; ++y)
      for (int x = 0; x < o.w; ++x)
        for (int c = 0; c < o.c; ++c) {
          const int ic = ((y % 3) * 3 + x % 3) * o.c + c;
          const float want = values[std::size_t(((n * in.h + y / 3) * in.w + x / 3) * in.c + ic)];
          REQUIRE(got[std::size_t(((n * o.h + y) * o.w + x) * o.c + c)] == want);
        }
  CHECK_THROWS(depth_to_space_output({1, 2, 2, 6}, 2));  // 6 channels: not a multiple of 4
  CHECK_THROWS(depth_to_space_output({1, 2, 2, 4}, 0));
}

TEST_CASE("resize_bilinear: both flags, hand-checked", "[infer]") {
  const std::vector<float> input{0, 1, 2, 3};  // 1x2x2x1
  const Nhwc in{1, 2, 2, 1};
  std::vector<float> out(16);
  cpu::resize_bilinear(input.data(), in, 4, 4, {false, true}, out.data());
  // Half-pixel centres: sources -0.25, 0.25, 0.75, 1.25, clamped to the edge rows/columns.
  CHECK(out == std::vector<float>{0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f, 1.5f, 1.75f, 2.25f, 2.5f, 2, 2.25f,
                                  2.75f, 3});
  std::vector<float> out9(9);
  cpu::resize_bilinear(input.data(), in, 3, 3, {true, false}, out9.data());
  CHECK(out9 == std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
  cpu::resize_bilinear(input.data(), in, 4, 4, {false, false}, out.data());
  CHECK(out == std::vector<float>{0, 0.5f, 1, 1, 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 2, 2.5f, 3, 3});
}

TEST_CASE("resize_bilinear reproduces a linear ramp at TFLite's clamped source coordinates", "[infer]") {
  // Bilinear interpolation is exact on a*y + b*x + c, so each output must be the ramp at the
  // source coordinate, clamped to [0, size - 1] as TFLite's neighbours are.
  struct Case {
    int in_h, in_w, out_h, out_w;
    bool align_corners, half_pixel_centers;
  };
  for (const Case& k : std::vector<Case>{{6, 6, 12, 12, false, true},
                                         {5, 7, 13, 4, false, true},
                                         {5, 7, 13, 4, true, false},
                                         {5, 7, 13, 4, false, false},
                                         {9, 3, 4, 8, false, true},
                                         {4, 4, 1, 1, true, false}}) {
    INFO(k.in_h << "x" << k.in_w << " -> " << k.out_h << "x" << k.out_w << " align_corners " << k.align_corners
                << " half_pixel_centers " << k.half_pixel_centers);
    const Nhwc in{2, k.in_h, k.in_w, 2};
    std::vector<float> input(static_cast<std::size_t>(in.count()));
    auto ramp = [](int n, int c, double y, double x) { return 0.5 * y - 0.25 * x + n + 10 * c; };
    for (int n = 0; n < 2; ++n)
      for (int y = 0; y < k.in_h; ++y)
        for (int x = 0; x < k.in_w; ++x)
          for (int c = 0; c < 2; ++c) input[static_cast<std::size_t>(at(in, n, y, x, c))] = static_cast<float>(ramp(n, c, y, x));
    const Nhwc out = resize_output(in, k.out_h, k.out_w);
    std::vector<float> actual(static_cast<std::size_t>(out.count()));
    cpu::resize_bilinear(input.data(), in, k.out_h, k.out_w, {k.align_corners, k.half_pixel_centers}, actual.data());
    auto source = [&](int index, int in_size, int out_size) {
      double scale = double(in_size) / out_size;
      if (k.align_corners && out_size > 1) scale = double(in_size - 1) / (out_size - 1);
      const double v = k.half_pixel_centers ? (index + 0.5) * scale - 0.5 : index * scale;
      return std::min(std::max(v, 0.0), double(in_size - 1));
    };
    std::vector<double> expected(actual.size());
    for (int n = 0; n < 2; ++n)
      for (int y = 0; y < out.h; ++y)
        for (int x = 0; x < out.w; ++x)
          for (int c = 0; c < 2; ++c)
            expected[static_cast<std::size_t>(at(out, n, y, x, c))] =
                ramp(n, c, source(y, k.in_h, k.out_h), source(x, k.in_w, k.out_w));
    require_close(actual, expected, 1e-5);
  }
}

TEST_CASE("concatenation along any axis with a fused activation", "[infer]") {
  const std::vector<float> a{1, 2, 3, 4}, b{-5, 6};  // 1x2x2 and 1x2x1
  CHECK(concatenation_output({{1, 2, 2}, {1, 2, 1}}, -1) == Shape{1, 2, 3});
  std::vector<float> out(6);
  cpu::concatenation({a.data(), b.data()}, {{1, 2, 2}, {1, 2, 1}}, 2, Activation::none, out.data());
  CHECK(out == std::vector<float>{1, 2, -5, 3, 4, 6});
  cpu::concatenation({a.data(), b.data()}, {{1, 2, 2}, {1, 2, 1}}, -1, Activation::relu, out.data());
  CHECK(out == std::vector<float>{1, 2, 0, 3, 4, 6});
  // Axis 1 as face detection joins its anchors: 1x2x2 + 1x1x2.
  const std::vector<float> c{7, 8};
  cpu::concatenation({a.data(), c.data()}, {{1, 2, 2}, {1, 1, 2}}, 1, Activation::none, out.data());
  CHECK(out == std::vector<float>{1, 2, 3, 4, 7, 8});
  std::vector<float> out8(8);
  cpu::concatenation({a.data(), a.data()}, {{2, 2}, {2, 2}}, 0, Activation::none, out8.data());
  CHECK(out8 == std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4});
  CHECK_THROWS_WITH(concatenation_output({{1, 2, 2}, {1, 3, 1}}, 2), Contains("cannot concatenate"));
}

TEST_CASE("reshape_output resolves -1 and rejects mismatches", "[infer]") {
  CHECK(reshape_output({1, 16, 16, 32}, {1, -1, 16}) == Shape{1, 512, 16});
  CHECK(reshape_output({2, 3, 4}, {4, 6}) == Shape{4, 6});
  CHECK_THROWS_WITH(reshape_output({2, 3, 4}, {-1, -1}), Contains("more than one -1"));
  CHECK_THROWS_WITH(reshape_output({2, 3, 4}, {5, -1}), Contains("cannot reshape"));
  CHECK_THROWS_WITH(reshape_output({2, 3, 4}, {4, 5}), Contains("cannot reshape"));
}
