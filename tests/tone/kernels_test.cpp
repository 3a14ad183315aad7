// The tone operators' math and CPU references (cuda/tone: tonemap-exr and stitch-360's previews
// use them) against hand-computed values. The expected numbers were worked out in double precision
// (python3) from the published formulas; each comment gives the derivation. The GPU kernels are
// checked against these CPU references in kernels_gpu_test.cpp.
#include <catch2/catch.hpp>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/error.hpp"
#include "cuda/tone/exposure_math.hpp"
#include "cuda/tone/half_convert.hpp"
#include "cuda/tone/resample_math.hpp"
#include "cuda/tone/tone_kernels.hpp"
#include "cuda/tone/tone_math.hpp"

using namespace gp::tone;
using gp::ImageView;
using gp::PixelType;
using math::Rgb;

namespace {

// A host image whose rows may be padded (pitch > row bytes); padding bytes hold a sentinel so a
// test can tell that nothing was written past a row. Storage is 16-byte aligned (float4).
constexpr std::uint8_t sentinel = 0xA5;
struct HostImage {
  std::vector<float4> storage;
  ImageView view;

  HostImage(int width, int height, int channels, PixelType type, std::size_t row_padding = 0) {
    view = gp::packed_view(nullptr, width, height, channels, type);
    view.pitch = (view.row_bytes() + row_padding + 15) / 16 * 16;
    storage.resize(view.pitch * std::size_t(height) / 16 + 1);
    view.data = storage.data();
    std::memset(view.data, sentinel, storage.size() * sizeof(float4));
  }
  template <class T>
  T& at(int x, int y, int c = 0) const {
    return view.row<T>(y)[std::size_t(x) * view.channels + c];
  }
  float4& px(int x, int y) const { return view.row<float4>(y)[x]; }
  bool padding_untouched() const {
    for (int y = 0; y < view.height; ++y)
      for (std::size_t b = view.row_bytes(); b < view.pitch; ++b)
        if (view.row<const std::uint8_t>(y)[b] != sentinel) return false;
    return true;
  }
};

HostImage rgba_image(int width, int height, std::size_t padding = 0) {
  return HostImage(width, height, 4, PixelType::f32, padding);
}
void fill(HostImage& img, float4 v) {
  for (int y = 0; y < img.view.height; ++y)
    for (int x = 0; x < img.view.width; ++x) img.px(x, y) = v;
}
float4 grey(float v, float a = 1.0f) { return float4{v, v, v, a}; }

Rgb curve(Operator op, Rgb c, float white = 11.2f) {
  ToneParams p;
  p.op = op;
  p.white = white;
  return math::apply_tone_curve(c, p);
}
void check_rgb(Rgb got, double r, double g, double b, double rel = 2e-6) {
  CHECK(got.r == Approx(r).epsilon(rel).margin(1e-7));
  CHECK(got.g == Approx(g).epsilon(rel).margin(1e-7));
  CHECK(got.b == Approx(b).epsilon(rel).margin(1e-7));
}
void check_grey(Operator op, float in, double expected, double rel = 2e-6, float white = 11.2f) {
  INFO("operator " << int(op) << ", input " << in);
  check_rgb(curve(op, {in, in, in}, white), expected, expected, expected, rel);
}

}  // namespace

// ---- tone curves ---------------------------------------------------------------------------------

TEST_CASE("linear clamps to [0, 1]", "[tonemap]") {
  check_rgb(curve(Operator::linear, {0.25f, 2.0f, -1.0f}), 0.25, 1.0, 0.0);
}

TEST_CASE("Reinhard is x / (1 + x) per channel", "[tonemap]") {
  check_rgb(curve(Operator::reinhard, {1.0f, 3.0f, 0.0f}), 0.5, 0.75, 0.0);
  check_rgb(curve(Operator::reinhard, {-2.0f, 0.25f, 9.0f}), 0.0, 0.2, 0.9);  // negatives count as 0
}

TEST_CASE("extended Reinhard works on luminance and maps the white point to 1", "[tonemap]") {
  check_grey(Operator::reinhard_extended, 4.0f, 1.0, 2e-6, 4.0f);
  // L = 1, W = 4: 1 (1 + 1/16) / 2 = 0.53125
  check_grey(Operator::reinhard_extended, 1.0f, 0.53125, 2e-6, 4.0f);
  // (1, 0.5, 0.25): L = 0.2126 + 0.3576 + 0.01805 = 0.58825, k = (1 + L/16) / (1 + L) = 0.652772312;
  // every channel scaled by k, so the hue is kept.
  check_rgb(curve(Operator::reinhard_extended, {1.0f, 0.5f, 0.25f}, 4.0f), 0.652772312, 0.326386156, 0.163193078);
  check_grey(Operator::reinhard_extended, 0.0f, 0.0);
}

TEST_CASE("Hable's filmic curve: bias 2, W/2 maps to 1", "[tonemap]") {
  // f(x) = (x(Ax + CB) + DE) / (x(Ax + B) + DF) - E/F; f(11.2) = 0.725129378.
  check_grey(Operator::hable, 5.6f, 1.0);
  check_grey(Operator::hable, 0.0f, 0.0);
  check_grey(Operator::hable, 1.0f, 0.492918546);   // f(2) / f(11.2)
  check_grey(Operator::hable, 0.18f, 0.128338449);  // f(0.36) / f(11.2)
  check_grey(Operator::hable, 100.0f, 1.0);         // past white: clipped
}

TEST_CASE("Narkowicz's ACES fit", "[tonemap]") {
  check_grey(Operator::aces_narkowicz, 0.0f, 0.0);
  check_grey(Operator::aces_narkowicz, 1.0f, 2.54 / 3.16);   // (2.51 + 0.03) / (2.43 + 0.59 + 0.14)
  check_grey(Operator::aces_narkowicz, 0.18f, 0.26689892);  // 0.18(2.51*0.18+0.03)/(0.18(2.43*0.18+0.59)+0.14)
  check_grey(Operator::aces_narkowicz, 1e4f, 1.0);
}

TEST_CASE("Hill's ACES fit (BakingLab)", "[tonemap]") {
  // The input matrix's rows sum to 1, so a grey stays grey: v = 0.18. RRTAndODTFit(0.18) =
  // (0.18 (0.18 + 0.0245786) - 0.000090537) / (0.18 (0.983729*0.18 + 0.432951) + 0.238081)
  // = 0.105591247. The output matrix's rows sum to 1, 1 and 0.99999.
  check_rgb(curve(Operator::aces_hill, {0.18f, 0.18f, 0.18f}), 0.105591247, 0.105591247, 0.105590191, 1e-5);
  // RRTAndODTFit(1) = 0.619115427
  check_rgb(curve(Operator::aces_hill, {1.0f, 1.0f, 1.0f}), 0.619115427, 0.619115427, 0.619109236, 1e-5);
  // A colour, through both matrices: (0.5, 0.2, 0.1) -> (0.365226743, 0.128806178, 0.053637323).
  check_rgb(curve(Operator::aces_hill, {0.5f, 0.2f, 0.1f}), 0.365226743, 0.128806178, 0.053637323, 1e-5);
  check_grey(Operator::aces_hill, 0.0f, 0.0);  // fit(0) = -0.000090537 / 0.238081 < 0: clipped
}

TEST_CASE("AgX (minimal, Wrensch) of 18% grey", "[tonemap]") {
  // inset(0.18 grey) = (0.180024553, 0.179993341, 0.179991401) (row sums are not exactly 1);
  // log2 encoded between -12.47393 and 4.026069: x = (log2 v + 12.47393) / 16.499999 ~ 0.60606;
  // the sigmoid fit gives (0.496755104, 0.496723912, 0.496721974); outset then gives
  // (0.496676189, 0.496744857, 0.496749130) -- mid grey lands near 0.5 in AgX's display encoding --
  // and ^2.2 back to display-linear.
  check_rgb(curve(Operator::agx, {0.18f, 0.18f, 0.18f}), 0.214467431, 0.214532669, 0.214536728, 2e-5);
  // 1.0 grey: (0.589976981, 0.590207155, 0.590221479).
  check_rgb(curve(Operator::agx, {1.0f, 1.0f, 1.0f}), 0.589976981, 0.590207155, 0.590221479, 2e-5);
  // Black: the sigmoid fit at 0 is -0.00232, clipped to 0.
  check_grey(Operator::agx, 0.0f, 0.0);
}

TEST_CASE("Khronos PBR Neutral", "[tonemap]") {
  // Below the compression start (peak < 0.76) it is linear with the 0.04 Fresnel offset removed:
  // channel differences are kept exactly.
  check_grey(Operator::pbr_neutral, 0.5f, 0.46);
  check_rgb(curve(Operator::pbr_neutral, {0.3f, 0.5f, 0.2f}), 0.26, 0.46, 0.16);
  // Near black the offset is x - 6.25 x^2: 0.04 - 6.25 * 0.0016 = 0.03, so 0.04 -> 0.01.
  check_grey(Operator::pbr_neutral, 0.04f, 0.01, 1e-5);
  // Compression of grey 1: peak = 0.96, d = 0.24, new peak = 1 - 0.0576 / (0.96 + 0.24 - 0.76)
  // = 0.869090909; a grey stays grey.
  check_grey(Operator::pbr_neutral, 1.0f, 0.869090909);
  // A saturated highlight (2, 0.5, 0.1): offset 0.04, peak 1.96, new peak 0.96, scaled by
  // 0.96/1.96 and mixed towards 0.96 with g = 1 - 1/(0.15 (1.96 - 0.96) + 1) = 0.130434783.
  check_rgb(curve(Operator::pbr_neutral, {2.0f, 0.5f, 0.1f}), 0.96, 0.321135759, 0.150771961, 1e-5);
}

TEST_CASE("every curve stays in [0, 1] and is monotonic on greys", "[tonemap]") {
  for (Operator op : {Operator::linear, Operator::reinhard, Operator::reinhard_extended, Operator::hable,
                      Operator::aces_narkowicz, Operator::aces_hill, Operator::agx, Operator::pbr_neutral}) {
    INFO("operator " << int(op));
    float previous = -1.0f;
    for (float v = 1e-4f; v < 1e4f; v *= 1.25f) {
      const Rgb c = curve(op, {v, v, v});
      CHECK(c.g >= 0.0f);
      CHECK(c.g <= 1.0f);
      CHECK(c.g >= previous);
      previous = c.g;
    }
    const Rgb nan = curve(op, {std::nanf(""), 1.0f, 1.0f});
    CHECK(nan.r == curve(op, {0.0f, 1.0f, 1.0f}).r);  // NaN input is treated as black, never passed on
    const float inf = std::numeric_limits<float>::infinity();
    const Rgb white = curve(op, {inf, inf, inf});  // inf saturates like any huge value
    CHECK(white.g == curve(op, {1e9f, 1e9f, 1e9f}).g);
    CHECK(white.g >= previous);
  }
}

TEST_CASE("tonemap_cpu applies the scale, keeps alpha and may work in place", "[tonemap]") {
  HostImage img = rgba_image(3, 2, 48);  // padded rows
  fill(img, grey(0.5f, 0.25f));
  img.px(2, 1) = float4{1.5f, 0.0f, 3.0f, 0.75f};
  const float scale = 2.0f;
  ToneParams p;
  p.op = Operator::reinhard;
  p.premultiplied = false;  // straight colour: alpha plays no part
  tonemap_cpu(img.view, img.view, p, &scale);
  CHECK(img.px(0, 0).x == Approx(0.5));  // 0.5 * 2 -> 1 / (1 + 1)
  CHECK(img.px(0, 0).w == 0.25f);
  CHECK(img.px(2, 1).x == Approx(0.75));  // 3 / 4
  CHECK(img.px(2, 1).y == 0.0f);
  CHECK(img.px(2, 1).z == Approx(6.0 / 7.0));
  CHECK(img.px(2, 1).w == 0.75f);
  CHECK(img.padding_untouched());
}

TEST_CASE("tonemap_cpu tone-maps premultiplied colour straight", "[tonemap]") {
  HostImage img = rgba_image(4, 1);
  img.px(0, 0) = float4{0.25f, 0.25f, 0.25f, 0.5f};  // straight 0.5
  img.px(1, 0) = float4{0.3f, 0.3f, 0.3f, 0.0f};     // alpha 0: no colour to recover
  img.px(2, 0) = float4{3.0f, 3.0f, 3.0f, 1.0f};     // opaque: as without alpha
  img.px(3, 0) = float4{0.25f, 0.25f, 0.25f, 0.5f};
  const float scale = 1.0f;
  ToneParams p;
  p.op = Operator::reinhard;
  HostImage out = rgba_image(4, 1);
  tonemap_cpu(img.view, out.view, p, &scale);
  CHECK(out.px(0, 0).x == Approx(0.5 / 1.5 * 0.5));  // curve(0.25 / 0.5) * 0.5 = 0.166667
  CHECK(out.px(0, 0).w == 0.5f);
  CHECK(out.px(1, 0).x == 0.0f);
  CHECK(out.px(1, 0).w == 0.0f);
  CHECK(out.px(2, 0).x == Approx(0.75));
  p.premultiplied = false;
  tonemap_cpu(img.view, out.view, p, &scale);
  CHECK(out.px(3, 0).x == Approx(0.2));  // 0.25 / 1.25
}

// ---- transfer, dither, quantisation -------------------------------------------------------------

TEST_CASE("sRGB OETF at known points", "[tonemap]") {
  CHECK(math::srgb_oetf(0.0f) == 0.0f);
  CHECK(math::srgb_oetf(1.0f) == Approx(1.0).epsilon(1e-6));
  CHECK(math::srgb_oetf(0.001f) == Approx(0.01292));                // linear toe: 12.92 x
  CHECK(math::srgb_oetf(0.0031308f) == Approx(0.040449936));       // the breakpoint
  CHECK(math::srgb_oetf(0.18f) == Approx(0.461356130).epsilon(1e-6));  // 1.055 * 0.18^(1/2.4) - 0.055
  CHECK(math::srgb_oetf(0.5f) == Approx(0.735356983).epsilon(1e-6));
}

TEST_CASE("TPDF noise is deterministic, within (-1, 1) and centred", "[tonemap]") {
  double sum = 0, sum_sq = 0;
  const int n = 256;
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float v = math::tpdf_noise(x, y, 1, 7);
      REQUIRE(v > -1.0f);
      REQUIRE(v < 1.0f);
      sum += v;
      sum_sq += double(v) * v;
    }
  const double count = double(n) * n;
  CHECK(sum / count == Approx(0.0).margin(0.01));
  CHECK(sum_sq / count == Approx(1.0 / 6.0).epsilon(0.02));  // variance of the sum of two U(0,1)
  CHECK(math::tpdf_noise(5, 9, 2, 3) == math::tpdf_noise(5, 9, 2, 3));
  CHECK(math::tpdf_noise(5, 9, 2, 3) != math::tpdf_noise(5, 9, 2, 4));
  CHECK(math::tpdf_noise(5, 9, 2, 3) != math::tpdf_noise(5, 9, 1, 3));
}

namespace {

// Encodes one RGBA value (as a 1x1 image) and returns its codes.
template <class T>
std::vector<unsigned> encode_one(float4 v, int channels, EncodeParams p = {}) {
  HostImage src = rgba_image(1, 1);
  src.px(0, 0) = v;
  HostImage dst(1, 1, channels, sizeof(T) == 1 ? PixelType::u8 : PixelType::u16);
  encode_cpu(src.view, dst.view, p);
  std::vector<unsigned> codes;
  for (int c = 0; c < channels; ++c) codes.push_back(dst.at<T>(0, 0, c));
  return codes;
}

}  // namespace

TEST_CASE("encode: end points, sRGB mid grey, clamping", "[tonemap]") {
  using V = std::vector<unsigned>;
  CHECK(encode_one<std::uint8_t>(float4{0, 1, 0.5f, 1}, 4) == V{0, 255, 188, 255});  // 0.5 -> 0.735357*255 = 187.52
  CHECK(encode_one<std::uint16_t>(float4{0, 1, 0.5f, 1}, 4) == V{0, 65535, 48192, 65535});  // 48191.62
  CHECK(encode_one<std::uint8_t>(float4{-0.5f, 2.0f, std::nanf(""), 1}, 3) == V{0, 255, 0});
  EncodeParams gamma;
  gamma.transfer = Transfer::gamma;
  gamma.gamma = 2.2f;
  CHECK(encode_one<std::uint8_t>(grey(0.5f), 3, gamma) == V{186, 186, 186});  // 0.5^(1/2.2) * 255 = 186.08
  EncodeParams linear;
  linear.transfer = Transfer::linear;
  CHECK(encode_one<std::uint8_t>(grey(0.5f), 3, linear) == V{128, 128, 128});  // 127.5 rounds up
}

TEST_CASE("encode: alpha is quantised linearly, never transfer-encoded or dithered", "[tonemap]") {
  EncodeParams p;
  p.dither = true;
  for (int i = 0; i < 50; ++i) {
    p.seed = unsigned(i);
    const auto codes = encode_one<std::uint8_t>(float4{0.5f, 0.5f, 0.5f, 0.5f}, 4, p);
    CHECK(codes[3] == 128u);  // 0.5 * 255 = 127.5 -> 128, not the sRGB 188
  }
  CHECK(encode_one<std::uint16_t>(float4{0, 0, 0, 0.25f}, 4)[3] == 16384u);  // 16383.75
  CHECK(encode_one<std::uint8_t>(float4{0, 0, 0, 1.0f}, 4)[3] == 255u);
}

TEST_CASE("encode: dither moves codes by at most 1 LSB and keeps the mean", "[tonemap]") {
  // Linear transfer and a value whose exact code is 100.3: plain rounding gives 100 everywhere;
  // TPDF dither spreads it over 99..101 with mean 100.3.
  const int w = 256, h = 256;
  HostImage src = rgba_image(w, h);
  fill(src, grey(100.3f / 255.0f));
  HostImage plain(w, h, 3, PixelType::u8), dithered(w, h, 3, PixelType::u8);
  EncodeParams p;
  p.transfer = Transfer::linear;
  encode_cpu(src.view, plain.view, p);
  p.dither = true;
  p.seed = 42;
  encode_cpu(src.view, dithered.view, p);
  double sum = 0;
  int changed = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        const int a = plain.at<std::uint8_t>(x, y, c), b = dithered.at<std::uint8_t>(x, y, c);
        REQUIRE(a == 100);
        REQUIRE(std::abs(a - b) <= 1);
        changed += a != b;
        sum += b;
      }
  CHECK(sum / (3.0 * w * h) == Approx(100.3).margin(0.01));
  CHECK(changed > w * h / 4);
}

TEST_CASE("encode: straight colour for output with alpha, premultiplied without", "[tonemap]") {
  using V = std::vector<unsigned>;
  EncodeParams linear;
  linear.transfer = Transfer::linear;
  const float4 half_covered{0.25f, 0.125f, 0.0f, 0.5f};  // straight (0.5, 0.25, 0)
  CHECK(encode_one<std::uint8_t>(half_covered, 4, linear) == V{128, 64, 0, 128});  // 127.5, 63.75
  CHECK(encode_one<std::uint8_t>(half_covered, 3, linear) == V{64, 32, 0});        // over black: 63.75, 31.875
  CHECK(encode_one<std::uint8_t>(float4{0.3f, 0.3f, 0.3f, 0.0f}, 4, linear) == V{0, 0, 0, 0});
  linear.unpremultiply = false;
  CHECK(encode_one<std::uint8_t>(half_covered, 4, linear) == V{64, 32, 0, 128});
}

TEST_CASE("encode: dither leaves exact black and white alone", "[tonemap]") {
  HostImage src = rgba_image(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) src.px(x, y) = grey(x < 32 ? 0.0f : 1.0f);
  HostImage dst(64, 64, 3, PixelType::u8);
  EncodeParams p;
  p.dither = true;
  encode_cpu(src.view, dst.view, p);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) REQUIRE(dst.at<std::uint8_t>(x, y, 1) == (x < 32 ? 0 : 255));
}

TEST_CASE("encode into pitched and unaligned outputs", "[tonemap]") {
  HostImage src = rgba_image(5, 3, 32);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x) src.px(x, y) = float4{x / 4.0f, y / 2.0f, 0.5f, 0.5f};
  HostImage packed(5, 3, 4, PixelType::u8);
  encode_cpu(src.view, packed.view, {});
  HostImage pitched(5, 3, 4, PixelType::u8, 13);
  ImageView odd = pitched.view;  // starts one byte in, as packed outputs back to back may
  odd.data = static_cast<char*>(odd.data) + 1;
  odd.pitch -= 16;
  encode_cpu(src.view, odd, {});
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 4; ++c) CHECK(odd.row<std::uint8_t>(y)[x * 4 + c] == packed.at<std::uint8_t>(x, y, c));
  CHECK(static_cast<std::uint8_t*>(pitched.view.data)[0] == sentinel);
}

// ---- source conversion ----------------------------------------------------------------------------

TEST_CASE("half -> float is exact for every bit pattern", "[tonemap]") {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    __half_raw raw;
    raw.x = std::uint16_t(bits);
    const float expected = __half2float(__half(raw));
    const float got = half_bits_to_float(std::uint16_t(bits));
    if (std::isnan(expected)) {
      REQUIRE(std::isnan(got));
    } else {
      std::uint32_t a, b;
      std::memcpy(&a, &expected, 4);
      std::memcpy(&b, &got, 4);
      INFO("half bits 0x" << std::hex << bits);
      REQUIRE(a == b);  // bit-exact, signed zeros included
    }
  }
  CHECK(half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(half_bits_to_float(0x7bff) == 65504.0f);
  CHECK(half_bits_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("to_rgba_f32 with f32 and f16 sources and channel maps", "[tonemap]") {
  const int w = 3, h = 2;
  auto value = [](int x, int y, int c) { return 0.125f * float(x + 10 * y) + float(c); };  // exact in f16 too

  SECTION("f32 BGR, pitched source and destination, opaque alpha") {
    HostImage src(w, h, 3, PixelType::f32, 20);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) src.at<float>(x, y, c) = value(x, y, c);
    HostImage dst = rgba_image(w, h, 32);
    ChannelMap bgr;
    bgr.index[0] = 2;
    bgr.index[1] = 1;
    bgr.index[2] = 0;
    bgr.index[3] = -1;
    to_rgba_f32_cpu(src.view, bgr, dst.view);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float4 p = dst.px(x, y);
        CHECK(p.x == value(x, y, 2));
        CHECK(p.y == value(x, y, 1));
        CHECK(p.z == value(x, y, 0));
        CHECK(p.w == 1.0f);
      }
    CHECK(dst.padding_untouched());
  }
  SECTION("f16 RGBA with alpha") {
    HostImage src(w, h, 4, PixelType::f16, 6);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 4; ++c) {
          const __half_raw raw = __half(value(x, y, c));
          src.at<std::uint16_t>(x, y, c) = raw.x;
        }
    HostImage dst = rgba_image(w, h);
    ChannelMap rgba;
    rgba.index[3] = 3;
    to_rgba_f32_cpu(src.view, rgba, dst.view);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        CHECK(dst.px(x, y).x == value(x, y, 0));
        CHECK(dst.px(x, y).w == value(x, y, 3));
      }
  }
  SECTION("one channel (luminance) is spread to grey") {
    HostImage src(w, h, 1, PixelType::f32);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) src.at<float>(x, y) = value(x, y, 0);
    HostImage dst = rgba_image(w, h);
    ChannelMap mono;
    mono.index[1] = mono.index[2] = 0;
    to_rgba_f32_cpu(src.view, mono, dst.view);
    CHECK(dst.px(2, 1).x == value(2, 1, 0));
    CHECK(dst.px(2, 1).z == value(2, 1, 0));
    CHECK(dst.px(2, 1).w == 1.0f);
  }
  SECTION("bad channel maps and types are refused") {
    HostImage src(w, h, 3, PixelType::f32);
    HostImage dst = rgba_image(w, h);
    ChannelMap beyond;
    beyond.index[3] = 3;  // only 3 channels
    CHECK_THROWS_AS(to_rgba_f32_cpu(src.view, beyond, dst.view), gp::Error);
    HostImage bytes(w, h, 3, PixelType::u8);
    CHECK_THROWS_AS(to_rgba_f32_cpu(bytes.view, ChannelMap{}, dst.view), gp::Error);
    HostImage smaller = rgba_image(w - 1, h);
    CHECK_THROWS_AS(to_rgba_f32_cpu(src.view, ChannelMap{}, smaller.view), gp::Error);
  }
}

// ---- auto exposure --------------------------------------------------------------------------------

TEST_CASE("log2_portable matches log2 and log-luminance bins match CUB's rule", "[tonemap]") {
  for (float x = 1e-6f; x < 1e9f; x *= 1.037f) CHECK(math::log2_portable(x) == Approx(std::log2(double(x))).margin(4e-7 * (1 + std::fabs(std::log2(x)))));
  CHECK(math::log2_portable(1.0f) == 0.0f);
  CHECK(math::log2_portable(0.25f) == -2.0f);
  CHECK(math::log_lum_bin(-2.0f) == 480);  // (-2 + 32) * 16
  CHECK(math::log_lum_bin(-2.001f) == 479);
  // l - min is rounded to float as in CUB, so a value within a rounding step below an edge lands
  // in the upper bin -- the same on both paths, and the clamp that follows moves it by 2e-7 stops.
  CHECK(math::log_lum_bin(std::nextafter(-2.0f, -3.0f)) == 480);
  CHECK(math::log_lum_bin(math::log2_luminance({1e30f, 1e30f, 1e30f})) == math::log_lum_bins - 1);
  CHECK(math::log_lum_bin(math::log2_luminance({0, 0, 0})) == int((std::log2(1e-6) + 32) * 16));
  CHECK(math::log_lum_bin(math::log2_luminance({std::nanf(""), 0, 0})) == math::log_lum_bin(math::log2_luminance({0, 0, 0})));
}

namespace {

// 10x10 grey image: `count_a` pixels at a, the rest at b.
HostImage two_level_image(float a, int count_a, float b) {
  HostImage img = rgba_image(10, 10, 16);
  for (int i = 0; i < 100; ++i) img.px(i % 10, i / 10) = grey(i < count_a ? a : b);
  return img;
}

}  // namespace

TEST_CASE("auto exposure: exact log-average of two luminances", "[tonemap]") {
  // Half at Y = 0.02, half at Y = 2: log-average = sqrt((0.02 + 1e-6)(2 + 1e-6)) = 0.200005050.
  const HostImage img = two_level_image(0.02f, 50, 2.0f);
  AutoExposureParams p;  // key 0.18, no percentile clamp
  float out[2];
  auto_exposure_cpu(img.view, p, 1.0f, out);
  CHECK(out[1] == Approx(0.200005050).epsilon(1e-6));
  CHECK(out[0] == Approx(0.899977276).epsilon(1e-6));  // 0.18 / 0.200005050
  auto_exposure_cpu(img.view, p, 2.0f, out);            // base scale (2^EV) multiplies in
  CHECK(out[0] == Approx(1.799954552).epsilon(1e-6));
  p.max_scale = 1.5f;
  auto_exposure_cpu(img.view, p, 2.0f, out);
  CHECK(out[0] == 1.5f);
}

TEST_CASE("auto exposure: percentile clamping at histogram bin edges", "[tonemap]") {
  // Bins are 1/16 stop from -32. log2(0.3 + 1e-6) = -1.736961 lies in bin 484 = [-1.75, -1.6875);
  // log2(50) = 5.643856 in bin 602; log2(0.001001) = -9.964 in bin 352.
  const double log_a = std::log2(0.3 + 1e-6), log_b = std::log2(50 + 1e-6), log_d = std::log2(0.001 + 1e-6);
  AutoExposureParams p;
  float out[2];

  SECTION("90 pixels at 0.3, 10 at 50; high percentile 80 falls in 0.3's bin") {
    const HostImage img = two_level_image(0.3f, 90, 50.0f);
    p.percentile_high = 80;  // 80th sample is in bin 484: the 50s are lowered to its end, -1.6875
    auto_exposure_cpu(img.view, p, 1.0f, out);
    CHECK(out[1] == Approx(std::exp2(0.9 * log_a + 0.1 * -1.6875)).epsilon(1e-6));  // 0.301031277
    p.percentile_high = 95;  // the 95th sample is a 50: nothing clamped
    auto_exposure_cpu(img.view, p, 1.0f, out);
    CHECK(out[1] == Approx(std::exp2(0.9 * log_a + 0.1 * log_b)).epsilon(1e-6));  // 0.500388631
  }
  SECTION("10 pixels at 0.001, 90 at 0.3; low percentile 20 falls in 0.3's bin") {
    const HostImage img = two_level_image(0.001f, 10, 0.3f);
    auto_exposure_cpu(img.view, p, 1.0f, out);
    CHECK(out[1] == Approx(std::exp2(0.1 * log_d + 0.9 * log_a)).epsilon(1e-6));  // 0.169610932
    p.percentile_low = 20;  // the dark pixels are raised to bin 484's start, -1.75
    auto_exposure_cpu(img.view, p, 1.0f, out);
    CHECK(out[1] == Approx(std::exp2(0.1 * -1.75 + 0.9 * log_a)).epsilon(1e-6));  // 0.299729979
    p.percentile_low = 10;  // the 10th sample is still dark: nothing clamped
    auto_exposure_cpu(img.view, p, 1.0f, out);
    CHECK(out[1] == Approx(std::exp2(0.1 * log_d + 0.9 * log_a)).epsilon(1e-6));
  }
}

TEST_CASE("auto exposure of an empty image is the base scale times the key", "[tonemap]") {
  HostImage img = rgba_image(0, 0);
  float out[2];
  auto_exposure_cpu(img.view, AutoExposureParams{}, 1.0f, out);
  CHECK(out[1] == 1.0f);
  CHECK(out[0] == Approx(0.18));
}

// ---- resampling ----------------------------------------------------------------------------------

namespace {

HostImage resampled(const HostImage& src, int w, int h, Filter f, std::size_t padding = 0) {
  HostImage dst = rgba_image(w, h, padding);
  resample_cpu(src.view, dst.view, f);
  return dst;
}

// A horizontal ramp: pixel x holds x in every channel (alpha too).
HostImage ramp(int w, int h) {
  HostImage img = rgba_image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img.px(x, y) = grey(float(x), float(x));
  return img;
}

}  // namespace

TEST_CASE("resample: a constant image stays constant for every filter and size", "[tonemap]") {
  HostImage src = rgba_image(37, 23, 16);
  fill(src, float4{0.25f, 0.5f, 0.75f, 1.0f});
  for (Filter f : {Filter::box, Filter::triangle, Filter::lanczos3})
    for (auto [w, h] : {std::pair{12, 9}, std::pair{19, 12}, std::pair{1, 1}, std::pair{80, 50}, std::pair{37, 23}}) {
      INFO("filter " << int(f) << " -> " << w << "x" << h);
      const HostImage dst = resampled(src, w, h, f, 32);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          REQUIRE(dst.px(x, y).x == Approx(0.25).epsilon(1e-6));
          REQUIRE(dst.px(x, y).z == Approx(0.75).epsilon(1e-6));
          REQUIRE(dst.px(x, y).w == Approx(1.0).epsilon(1e-6));
        }
      CHECK(dst.padding_untouched());
    }
}

TEST_CASE("resample: box at exactly 2x is the 2x2 average", "[tonemap]") {
  HostImage src = rgba_image(8, 6, 48);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) src.px(x, y) = float4{float(x * x + 3 * y) / 8.0f, float(y * y), float(x ^ y), 1.0f};
  const HostImage dst = resampled(src, 4, 3, Filter::box);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x) {
      auto avg = [&](float float4::*c) {
        return (src.px(2 * x, 2 * y).*c + src.px(2 * x + 1, 2 * y).*c + src.px(2 * x, 2 * y + 1).*c +
                src.px(2 * x + 1, 2 * y + 1).*c) / 4.0f;
      };
      CHECK(dst.px(x, y).x == avg(&float4::x));  // dyadic values: exact
      CHECK(dst.px(x, y).y == avg(&float4::y));
      CHECK(dst.px(x, y).z == avg(&float4::z));
      CHECK(dst.px(x, y).w == 1.0f);
    }
}

TEST_CASE("resample: box at an odd ratio averages pixel areas", "[tonemap]") {
  // 7 -> 3: each output covers 7/3 source pixels. Output 0 covers [0, 7/3): pixels 0 and 1 fully,
  // a third of pixel 2: (0 + 1 + 2/3) / (7/3) = 5/7. Output 1 covers [7/3, 14/3): 2/3 of pixel 2,
  // pixel 3, 2/3 of pixel 4: (4/3 + 3 + 8/3) / (7/3) = 3. Output 2: (4/3 + 5 + 6) / (7/3) = 37/7.
  const HostImage dst = resampled(ramp(7, 5), 3, 2, Filter::box);
  for (int y = 0; y < 2; ++y) {
    CHECK(dst.px(0, y).x == Approx(5.0 / 7.0).epsilon(1e-6));
    CHECK(dst.px(1, y).x == Approx(3.0).epsilon(1e-6));
    CHECK(dst.px(2, y).x == Approx(37.0 / 7.0).epsilon(1e-6));
  }
}

TEST_CASE("resample: symmetric filters reproduce a ramp away from the edges", "[tonemap]") {
  // At 2x and 3x the taps sit symmetrically around each output centre, so any normalised
  // symmetric filter returns the ramp's value at the centre: pixel x holds x at position x + 0.5,
  // output o is centred at (o + 0.5) * s, i.e. value (o + 0.5) * s - 0.5.
  for (int s : {2, 3})
    for (Filter f : {Filter::triangle, Filter::lanczos3}) {
      INFO("filter " << int(f) << " scale " << s);
      const int n = 30 * s;
      const HostImage dst = resampled(ramp(n, 4), n / s, 4, f);
      const int margin = 3 * 3 + 1;  // lanczos3's reach in output samples, plus one
      for (int o = margin; o < n / s - margin; ++o) CHECK(dst.px(o, 2).x == Approx((o + 0.5) * s - 0.5).epsilon(1e-5));
    }
}

TEST_CASE("resample: enlarging stays within the source range and keeps order", "[tonemap]") {
  const HostImage src = ramp(4, 4);
  for (Filter f : {Filter::box, Filter::triangle}) {
    const HostImage dst = resampled(src, 9, 7, f);
    float previous = -1;
    for (int x = 0; x < 9; ++x) {
      const float v = dst.px(x, 3).x;
      CHECK(v >= 0.0f);
      CHECK(v <= 3.0f);
      CHECK(v >= previous);
      previous = v;
    }
    // Output 4 is centred at 4.5 * 4/9 = 2.0, halfway between pixels 1 and 2.
    CHECK(dst.px(4, 3).x == Approx(1.5).epsilon(1e-6));
  }
  // Lanczos may ring but must stay close to the range and hit the midpoint too.
  const HostImage l = resampled(src, 9, 7, Filter::lanczos3);
  CHECK(l.px(4, 3).x == Approx(1.5).epsilon(1e-5));
}

TEST_CASE("resample: tap weights", "[tonemap]") {
  // Exact 2x box: output 1 is centred at 3 with footprint [2, 4): pixels 2 and 3 weigh 1, 1 and 4 nothing.
  const math::Footprint fp = math::footprint(1, 8, 4, Filter::box);
  CHECK(fp.centre == 3.0f);
  CHECK(math::tap_weight(Filter::box, fp, 1) == 0.0f);
  CHECK(math::tap_weight(Filter::box, fp, 2) == 1.0f);
  CHECK(math::tap_weight(Filter::box, fp, 3) == 1.0f);
  CHECK(math::tap_weight(Filter::box, fp, 4) == 0.0f);
  CHECK(math::lanczos3(0.0f) == 1.0f);
  CHECK(math::lanczos3(1.0f) == Approx(0.0).margin(1e-6));
  CHECK(math::lanczos3(2.0f) == Approx(0.0).margin(1e-6));
  CHECK(math::lanczos3(-1.5f) == Approx(-0.135094912).epsilon(1e-5));  // sinc(1.5) sinc(0.5) = -0.212207 * 0.636620
  CHECK(math::lanczos3(0.5f) == Approx(0.607927102).epsilon(1e-6));  // sinc(0.5) sinc(1/6) = 0.63662 * 0.95493
  CHECK(math::lanczos3(3.0f) == 0.0f);
}

TEST_CASE("the references refuse views that break the contract", "[tonemap]") {
  HostImage rgba = rgba_image(4, 4);
  HostImage rgb(4, 4, 3, PixelType::f32);
  HostImage bytes(4, 4, 4, PixelType::u8);
  const float scale = 1;
  CHECK_THROWS_AS(tonemap_cpu(rgb.view, rgba.view, ToneParams{}, &scale), gp::Error);
  CHECK_THROWS_AS(resample_cpu(rgba.view, rgb.view, Filter::box), gp::Error);
  CHECK_THROWS_AS(encode_cpu(rgb.view, bytes.view, EncodeParams{}), gp::Error);
  HostImage two(4, 4, 2, PixelType::u8);
  CHECK_THROWS_AS(encode_cpu(rgba.view, two.view, EncodeParams{}), gp::Error);
  float out[2];
  CHECK_THROWS_AS(auto_exposure_cpu(bytes.view, AutoExposureParams{}, 1.0f, out), gp::Error);
}
