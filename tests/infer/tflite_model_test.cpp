// The .tflite reader: the real MediaPipe models (operator sets, shapes, options), small models
// built here with the schema's generated builder (one defect each, checked against the error
// message), FP16 conversion, and corrupted copies of a real model (truncations, bit flips).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <random>

#include "gpuproc/infer/tflite_schema_generated.h"
#include "cuda/common/half.hpp"
#include "infer/model_files.hpp"
#include "infer/tflite_model.hpp"

using namespace gp::infer;
using gp::float_to_half;
using gp::half_to_float;
namespace tfl = gp::infer::tfl;
using Catch::Matchers::Contains;

namespace {

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// ---- small models built with the generated flatbuffers builder ---------------------------------

struct TensorSpec {
  std::vector<int> shape;
  tfl::TensorType type = tfl::TensorType::FLOAT32;
  std::uint32_t buffer = 0;
  std::string name;
};
using OptionsFactory =
    std::function<std::pair<tfl::BuiltinOptions, flatbuffers::Offset<void>>(flatbuffers::FlatBufferBuilder&)>;
struct OpSpec {
  std::uint32_t opcode_index = 0;
  std::vector<int> inputs, outputs;
  OptionsFactory options;  // none when empty
  std::vector<std::uint8_t> custom_options;
};
struct CodeSpec {
  std::int32_t code = 0;
  std::string custom;
};
struct GraphSpec {
  std::uint32_t version = 3;
  int subgraphs = 1;
  std::vector<std::vector<std::uint8_t>> buffers;
  std::vector<TensorSpec> tensors;
  std::vector<CodeSpec> codes;
  std::vector<OpSpec> ops;
  std::vector<int> inputs, outputs;
  std::string min_runtime_version;  // stored as metadata in a last buffer when set
};

OptionsFactory conv_options(int stride, tfl::Padding padding, tfl::ActivationFunctionType activation) {
  return [=](flatbuffers::FlatBufferBuilder& b) {
    return std::pair{tfl::BuiltinOptions::Conv2DOptions,
                     tfl::CreateConv2DOptions(b, padding, stride, stride, activation).Union()};
  };
}

std::vector<std::uint8_t> halves(std::initializer_list<float> values) {
  std::vector<std::uint8_t> bytes;
  for (const float v : values) {
    const std::uint16_t h = float_to_half(v);
    bytes.push_back(static_cast<std::uint8_t>(h & 0xff));
    bytes.push_back(static_cast<std::uint8_t>(h >> 8));
  }
  return bytes;
}

std::vector<std::uint8_t> floats(std::initializer_list<float> values) {
  std::vector<std::uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

// DEQUANTIZE(fp16 filter) -> filter; CONV_2D(input, filter, bias) -> output, stride 2, RELU6.
GraphSpec tiny_conv_graph() {
  GraphSpec g;
  g.buffers = {{}, halves({0.5f, -1.0f, 2.0f, 0.25f, -0.125f, 65504.0f}), floats({1.0f, 2.0f, 3.0f})};
  g.tensors = {{{1, 4, 4, 2}, tfl::TensorType::FLOAT32, 0, "input"},
               {{3, 1, 1, 2}, tfl::TensorType::FLOAT16, 1, "filter_fp16"},
               {{3, 1, 1, 2}, tfl::TensorType::FLOAT32, 0, "filter"},
               {{1, 2, 2, 3}, tfl::TensorType::FLOAT32, 0, "output"},
               {{3}, tfl::TensorType::FLOAT32, 2, "bias"}};
  g.codes = {{6, ""}, {3, ""}};
  g.ops = {{0, {1}, {2}, {}, {}},
           {1, {0, 2, 4}, {3}, conv_options(2, tfl::Padding::SAME, tfl::ActivationFunctionType::RELU6), {}}};
  g.inputs = {0};
  g.outputs = {3};
  return g;
}

std::vector<std::uint8_t> build(const GraphSpec& g) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers;
  for (const auto& data : g.buffers) buffers.push_back(tfl::CreateBufferDirect(b, data.empty() ? nullptr : &data));
  std::vector<flatbuffers::Offset<tfl::Metadata>> metadata;
  if (!g.min_runtime_version.empty()) {
    std::vector<std::uint8_t> text(g.min_runtime_version.begin(), g.min_runtime_version.end());
    text.resize(16, 0);  // converters pad the version string with NULs
    buffers.push_back(tfl::CreateBufferDirect(b, &text));
    metadata.push_back(tfl::CreateMetadataDirect(b, "min_runtime_version", static_cast<std::uint32_t>(buffers.size() - 1)));
  }
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> codes;
  for (const auto& c : g.codes) {
    // Like current converters: codes below 127 in both fields, larger ones in builtin_code only.
    const auto deprecated = static_cast<std::int8_t>(std::min(c.code, 127));
    codes.push_back(tfl::CreateOperatorCodeDirect(b, deprecated, c.custom.empty() ? nullptr : c.custom.c_str(), 1, c.code));
  }
  std::vector<flatbuffers::Offset<tfl::SubGraph>> subgraphs;
  for (int s = 0; s < g.subgraphs; ++s) {
    std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
    for (const auto& t : g.tensors) {
      tensors.push_back(tfl::CreateTensorDirect(b, &t.shape, t.type, t.buffer, t.name.c_str()));
    }
    std::vector<flatbuffers::Offset<tfl::Operator>> ops;
    for (const auto& op : g.ops) {
      auto [type, options] = op.options ? op.options(b) : std::pair{tfl::BuiltinOptions::NONE, flatbuffers::Offset<void>()};
      ops.push_back(tfl::CreateOperatorDirect(b, op.opcode_index, &op.inputs, &op.outputs, type, options,
                                              op.custom_options.empty() ? nullptr : &op.custom_options));
    }
    subgraphs.push_back(tfl::CreateSubGraphDirect(b, &tensors, &g.inputs, &g.outputs, &ops, "main"));
  }
  auto model = tfl::CreateModelDirect(b, g.version, &codes, &subgraphs, "test model", &buffers, nullptr,
                                      metadata.empty() ? nullptr : &metadata);
  tfl::FinishModelBuffer(b, model);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

Model load(const GraphSpec& g) { return Model::from_bytes(build(g), "tiny.tflite"); }

// The ModelError message for a graph, or "" when it loads.
std::string error_of(const GraphSpec& g) {
  try {
    load(g);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("half to float: known values, every binary16 value, rounding back", "[infer]") {
  CHECK(half_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(half_to_float(0x8000) == 0.0f);
  CHECK(half_to_float(0x3c00) == 1.0f);
  CHECK(half_to_float(0xc000) == -2.0f);
  CHECK(half_to_float(0x3555) == 0.333251953125f);
  CHECK(half_to_float(0x7bff) == 65504.0f);
  CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));          // smallest normal
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));          // smallest subnormal
  CHECK(half_to_float(0x03ff) == std::ldexp(1023.0f, -24));       // largest subnormal
  CHECK(half_to_float(0x8200) == -std::ldexp(512.0f, -24));
  CHECK(half_to_float(0x7c00) == std::numeric_limits<float>::infinity());
  CHECK(half_to_float(0xfc00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_to_float(0x7e00)));
  CHECK(std::isnan(half_to_float(0x7c01)));  // signalling NaN stays NaN
  CHECK(std::isnan(half_to_float(0xfe00)));

  // Every value against the definition (-1)^s * 2^(e-15) * (1 + m/1024), subnormals 2^-14 * m/1024.
  int mismatches = 0;
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const int s = (h >> 15) & 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (e == 31) {
      if (m == 0 ? !std::isinf(f) : !std::isnan(f)) ++mismatches;
      if (std::signbit(f) != (s == 1)) ++mismatches;
      continue;
    }
    const double magnitude = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
    const double expected = s ? -magnitude : magnitude;
    if (static_cast<double>(f) != expected || std::signbit(f) != (s == 1)) ++mismatches;
    if (float_to_half(f) != h) ++mismatches;  // exact values convert back unchanged
  }
  CHECK(mismatches == 0);

  // Rounding to nearest, ties to even, overflow and underflow.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie, even stays
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie, rounds up to even
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3c01);
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);  // rounds up to inf
  CHECK(float_to_half(1e10f) == 0x7c00);
  CHECK(float_to_half(-1e10f) == 0xfc00);
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);              // tie with zero: even
  CHECK(float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(float_to_half(std::ldexp(3.0f, -25)) == 0x0002);              // 1.5 units: tie to even
  CHECK(float_to_half(std::ldexp(2047.0f, -25)) == 0x0400);           // carries into the smallest normal
  CHECK(float_to_half(std::ldexp(1.0f, -30)) == 0x0000);
  CHECK(float_to_half(-std::ldexp(1.0f, -30)) == 0x8000);
  CHECK((float_to_half(std::numeric_limits<float>::quiet_NaN()) & 0x7e00) == 0x7e00);
}

TEST_CASE("densified_floats: CSR and block-sparse layouts as TFLite's FormatConverter expands them", "[infer]") {
  const Model m = load(tiny_conv_graph());  // only names the errors
  // The 4x4 matrix of TFLite's sparsity examples.
  const std::vector<float> dense{1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6};
  auto sparse = [](const std::vector<std::uint8_t>& bytes, Sparsity s) {
    Tensor t;
    t.name = "w";
    t.shape = {4, 4};
    t.type = TensorType::float32;
    t.data = bytes.data();
    t.data_bytes = bytes.size();
    t.is_sparse = true;
    t.sparsity = std::move(s);
    return t;
  };
  // Rows dense, columns compressed (CSR).
  Sparsity csr;
  csr.traversal_order = {0, 1};
  csr.levels = {{false, 4, {}, {}}, {true, 0, {0, 3, 4, 5, 6}, {0, 2, 3, 1, 2, 3}}};
  const auto six = floats({1, 2, 3, 4, 5, 6});
  CHECK(densified_floats(m, sparse(six, csr)) == dense);
  // 2x2 blocks: block rows dense, block columns compressed, each block stored whole.
  Sparsity blocks;
  blocks.traversal_order = {0, 1, 2, 3};
  blocks.block_map = {0, 1};
  blocks.levels = {{false, 2, {}, {}}, {true, 0, {0, 2, 3}, {0, 1, 1}}, {false, 2, {}, {}}, {false, 2, {}, {}}};
  const auto twelve = floats({1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6});
  CHECK(densified_floats(m, sparse(twelve, blocks)) == dense);
  // Columns first (traversal order 1, 0): the same values stored column by column.
  Sparsity by_column;
  by_column.traversal_order = {1, 0};
  by_column.levels = {{false, 4, {}, {}}, {true, 0, {0, 1, 2, 4, 6}, {0, 1, 0, 2, 0, 3}}};
  const auto six_by_column = floats({1, 4, 2, 5, 3, 6});
  CHECK(densified_floats(m, sparse(six_by_column, by_column)) == dense);
  // FLOAT16 storage.
  const auto six_halves = halves({1, 2, 3, 4, 5, 6});
  Tensor half = sparse(six_halves, csr);
  half.type = TensorType::float16;
  CHECK(densified_floats(m, half) == dense);

  // Layouts that do not address the tensor or its values are errors naming the tensor.
  Sparsity out_of_range = csr;
  out_of_range.levels[1].indices[0] = 4;
  CHECK_THROWS_WITH(densified_floats(m, sparse(six, out_of_range)), Contains("'w'") && Contains("outside dimension 1"));
  const auto five = floats({1, 2, 3, 4, 5});
  CHECK_THROWS_WITH(densified_floats(m, sparse(five, csr)), Contains("more positions than its 5 stored values"));
  const auto seven = floats({1, 2, 3, 4, 5, 6, 7});
  CHECK_THROWS_WITH(densified_floats(m, sparse(seven, csr)), Contains("7 stored values, 6 placed"));
  Sparsity short_segments = csr;
  short_segments.levels[1].segments = {0, 3};
  CHECK_THROWS_WITH(densified_floats(m, sparse(six, short_segments)), Contains("segments end before position 1"));
  Sparsity bad_segment = csr;
  bad_segment.levels[1].segments = {0, 3, 2, 5, 6};
  CHECK_THROWS_AS(densified_floats(m, sparse(six, bad_segment)), ModelError);
}

TEST_CASE("tflite reader: a small model built with the schema", "[infer]") {
  GraphSpec g = tiny_conv_graph();
  g.min_runtime_version = "1.14.0";
  const Model m = load(g);
  CHECK(m.source() == "tiny.tflite");
  CHECK(m.schema_version() == 3);
  CHECK(m.description() == "test model");
  CHECK(m.min_runtime_version() == "1.14.0");
  REQUIRE(m.tensors().size() == 5);
  REQUIRE(m.operators().size() == 2);
  CHECK(m.inputs() == std::vector<int>{0});
  CHECK(m.outputs() == std::vector<int>{3});

  const Tensor& filter16 = m.tensor(1);
  CHECK(filter16.name == "filter_fp16");
  CHECK(filter16.type == TensorType::float16);
  CHECK(filter16.shape == std::vector<int>{3, 1, 1, 2});
  CHECK(filter16.is_constant());
  CHECK(filter16.data_bytes == 12);
  CHECK(constant_floats(m, filter16) == std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f, -0.125f, 65504.0f});
  CHECK(constant_floats(m, m.tensor(4)) == std::vector<float>{1.0f, 2.0f, 3.0f});
  CHECK_FALSE(m.tensor(0).is_constant());
  CHECK_THROWS_AS(constant_floats(m, m.tensor(0)), ModelError);
  CHECK_THROWS_AS(constant_ints(m, m.tensor(4)), ModelError);

  const Operator& dq = m.operators()[0];
  CHECK(dq.is(BuiltinOp::dequantize));
  CHECK(dq.name() == "DEQUANTIZE");
  CHECK(std::holds_alternative<std::monostate>(dq.options));
  const Operator& conv = m.operators()[1];
  CHECK(conv.name() == "CONV_2D");
  CHECK(conv.inputs == std::vector<int>{0, 2, 4});
  CHECK(conv.outputs == std::vector<int>{3});
  const auto& o = std::get<Conv2DOptions>(conv.options);
  CHECK(o.padding == Padding::same);
  CHECK(o.stride_w == 2);
  CHECK(o.stride_h == 2);
  CHECK(o.dilation_w == 1);  // the schema's default when the file omits it
  CHECK(o.dilation_h == 1);
  CHECK(o.activation == Activation::relu6);

  CHECK(operator_names(m) == OperatorNameSet{"CONV_2D", "DEQUANTIZE"});
  CHECK(unsupported_operators(m, {"CONV_2D", "DEQUANTIZE"}).empty());
  CHECK_NOTHROW(require_supported(m, {"CONV_2D", "DEQUANTIZE"}));
  const std::string text = describe(m, true);
  CHECK_THAT(text, Contains("input 0 'input': 1x4x4x2 FLOAT32"));
  CHECK_THAT(text, Contains("CONV_2D (0:1x4x4x2, 2:3x1x1x2, 4c:3) -> (3:1x2x2x3) SAME stride 2x2"));

  // Copies share the bytes, so constant data stays valid after the original goes away.
  std::optional<Model> original = load(g);
  const Model copy = *original;
  original.reset();
  CHECK(constant_floats(copy, copy.tensor(4)) == std::vector<float>{1.0f, 2.0f, 3.0f});

  SECTION("an omitted optional bias (-1)") {
    g.ops[1].inputs = {0, 2, -1};
    const Model without_bias = load(g);
    CHECK(without_bias.operators()[1].inputs == std::vector<int>{0, 2, -1});
  }
}

TEST_CASE("tflite reader: each defect gives an error naming the file and operator", "[infer]") {
  GraphSpec g = tiny_conv_graph();
  REQUIRE(error_of(g).empty());

  SECTION("operator input out of range") {
    g.ops[1].inputs[0] = 99;
    CHECK_THAT(error_of(g), Contains("tiny.tflite: operator 1 (CONV_2D): input 0 is tensor 99, out of range (5 tensors)"));
  }
  SECTION("operator output -1") {
    g.ops[1].outputs = {-1};
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): output 0 is tensor -1, out of range"));
  }
  SECTION("operator code index out of range") {
    g.ops[1].opcode_index = 7;
    CHECK_THAT(error_of(g), Contains("operator 1: operator code index 7 out of range (2 codes)"));
  }
  SECTION("unknown builtin code") {
    g.codes[1].code = 250;
    CHECK_THAT(error_of(g), Contains("operator 1: unknown builtin operator code 250"));
  }
  SECTION("constant data size differs from the shape") {
    g.buffers[1].resize(10);
    CHECK_THAT(error_of(g),
               Contains("tensor 1 'filter_fp16': constant data of 10 bytes, but shape 3x1x1x2 of FLOAT16 needs 12"));
  }
  SECTION("buffer index out of range") {
    g.tensors[1].buffer = 9;
    CHECK_THAT(error_of(g), Contains("tensor 1 'filter_fp16' refers to buffer 9, but the model has 3"));
  }
  SECTION("negative dimension") {
    g.tensors[3].shape[1] = -2;
    CHECK_THAT(error_of(g), Contains("tensor 3 'output': negative dimension -2"));
  }
  SECTION("too many elements") {
    g.tensors[3].shape = {65536, 65536};
    CHECK_THAT(error_of(g), Contains("tensor 3 'output': more than 2147483647 elements"));
  }
  SECTION("missing options") {
    g.ops[1].options = {};
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): missing Conv2DOptions"));
  }
  SECTION("zero stride") {
    g.ops[1].options = conv_options(0, tfl::Padding::VALID, tfl::ActivationFunctionType::NONE);
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): stride_w is 0, must be at least 1"));
  }
  SECTION("unknown padding and activation values") {
    g.ops[1].options = conv_options(1, static_cast<tfl::Padding>(7), tfl::ActivationFunctionType::NONE);
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): unknown padding 7"));
    g.ops[1].options = conv_options(1, tfl::Padding::SAME, static_cast<tfl::ActivationFunctionType>(9));
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): unknown fused activation 9"));
  }
  SECTION("options of another operator") {
    g.ops[1].options = [](flatbuffers::FlatBufferBuilder& b) {
      return std::pair{tfl::BuiltinOptions::Pool2DOptions, tfl::CreatePool2DOptions(b).Union()};
    };
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): builtin options of type Pool2DOptions, expected Conv2DOptions"));
  }
  SECTION("too few inputs") {
    g.ops[1].inputs = {0};
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): 1 inputs, expected 2 to 3"));
  }
  SECTION("a required input omitted") {
    g.ops[1].inputs = {0, -1, 4};
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): required input 1 is omitted (-1)"));
  }
  SECTION("operators out of order") {
    std::swap(g.ops[0], g.ops[1]);
    CHECK_THAT(error_of(g), Contains("operator 0 (CONV_2D): input tensor 2 'filter' is not computed before this operator"));
  }
  SECTION("a tensor written twice") {
    g.ops[1].outputs = {2};
    CHECK_THAT(error_of(g), Contains("operator 1 (CONV_2D): writes tensor 2 'filter' already written by operator 0"));
  }
  SECTION("an operator writing a constant") {
    g.ops[0].outputs = {4};
    CHECK_THAT(error_of(g), Contains("operator 0 (DEQUANTIZE): writes the constant tensor 4 'bias'"));
  }
  SECTION("graph output never computed") {
    g.tensors.push_back({{1}, tfl::TensorType::FLOAT32, 0, "orphan"});
    g.outputs = {5};
    CHECK_THAT(error_of(g), Contains("graph output 5 'orphan' is never computed"));
  }
  SECTION("graph input out of range") {
    g.inputs = {50};
    CHECK_THAT(error_of(g), Contains("graph input 50 is out of range (5 tensors)"));
  }
  SECTION("two subgraphs") {
    g.subgraphs = 2;
    CHECK_THAT(error_of(g), Contains("2 subgraphs; only single-graph models are supported"));
  }
  SECTION("no subgraph") {
    g.subgraphs = 0;
    CHECK_THAT(error_of(g), Contains("no subgraph"));
  }
  SECTION("schema version") {
    g.version = 2;
    CHECK_THAT(error_of(g), Contains("schema version 2, expected 3"));
  }
  SECTION("unknown tensor type") {
    g.tensors[3].type = static_cast<tfl::TensorType>(42);
    CHECK_THAT(error_of(g), Contains("tensor 3 'output': unknown tensor type 42"));
  }
  SECTION("resize with both align_corners and half_pixel_centers") {
    g.codes.push_back({23, ""});
    g.tensors.push_back({{2}, tfl::TensorType::INT32, 3, "size"});
    g.tensors.push_back({{1, 4, 4, 3}, tfl::TensorType::FLOAT32, 0, "resized"});
    g.buffers.push_back(std::vector<std::uint8_t>(8, 0));
    g.ops.push_back({2, {3, 5}, {6}, [](flatbuffers::FlatBufferBuilder& b) {
                       return std::pair{tfl::BuiltinOptions::ResizeBilinearOptions,
                                        tfl::CreateResizeBilinearOptions(b, true, true).Union()};
                     }, {}});
    g.outputs = {6};
    CHECK_THAT(error_of(g), Contains("operator 2 (RESIZE_BILINEAR): align_corners and half_pixel_centers are both set"));
  }
}

TEST_CASE("tflite reader: MediaPipe's Convolution2DTransposeBias and unsupported operators", "[infer]") {
  // input -> Convolution2DTransposeBias(input, weights, bias) -> DENSIFY-like unsupported op.
  GraphSpec g;
  g.buffers = {{}, floats({1, 2, 3, 4, 5, 6, 7, 8}), floats({0.5f, -0.5f})};
  g.tensors = {{{1, 2, 2, 1}, tfl::TensorType::FLOAT32, 0, "input"},
               {{2, 2, 2, 1}, tfl::TensorType::FLOAT32, 1, "weights"},
               {{2}, tfl::TensorType::FLOAT32, 2, "bias"},
               {{1, 4, 4, 2}, tfl::TensorType::FLOAT32, 0, "upsampled"},
               {{1, 4, 4, 2}, tfl::TensorType::FLOAT32, 0, "output"}};
  g.codes = {{32, "Convolution2DTransposeBias"}, {124, ""}};
  g.ops = {{0, {0, 1, 2}, {3}, {}, {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}}, {1, {3}, {4}, {}, {}}};
  g.inputs = {0};
  g.outputs = {4};

  const Model m = load(g);
  const Operator& tconv = m.operators()[0];
  CHECK(tconv.is_custom());
  CHECK(tconv.name() == "Convolution2DTransposeBias");
  CHECK(tconv.custom_options.size() == 12);
  const auto& o = std::get<TransposeConvBiasOptions>(tconv.options);
  CHECK(o.padding == Padding::same);
  CHECK(o.stride_w == 2);
  CHECK(o.stride_h == 3);
  CHECK(m.operators()[1].name() == "DENSIFY");

  const OperatorNameSet supported{"Convolution2DTransposeBias", "CONV_2D"};
  const auto unsupported = unsupported_operators(m, supported);
  REQUIRE(unsupported.size() == 1);
  CHECK(unsupported[0].name == "DENSIFY");
  CHECK(unsupported[0].first_index == 1);
  CHECK(unsupported[0].count == 1);
  CHECK_THROWS_WITH(require_supported(m, supported),
                    Contains("tiny.tflite: unsupported operators: DENSIFY (first at operator 1, 1 in all)"));
  CHECK_THROWS_WITH(require_supported(m, {"DENSIFY"}),
                    Contains("unsupported operators: Convolution2DTransposeBias (first at operator 0, 1 in all)"));

  SECTION("valid padding") {
    g.ops[0].custom_options = {2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    CHECK(std::get<TransposeConvBiasOptions>(load(g).operators()[0].options).padding == Padding::valid);
  }
  SECTION("short options") {
    g.ops[0].custom_options.resize(8);
    CHECK_THAT(error_of(g), Contains("operator 0 (Convolution2DTransposeBias): 8 bytes of custom options, expected 12"));
  }
  SECTION("unknown padding") {
    g.ops[0].custom_options[0] = 0;
    CHECK_THAT(error_of(g), Contains("operator 0 (Convolution2DTransposeBias): custom options: padding 0"));
  }
  SECTION("zero stride") {
    g.ops[0].custom_options[8] = 0;
    CHECK_THAT(error_of(g), Contains("operator 0 (Convolution2DTransposeBias): stride_h is 0"));
  }
  SECTION("custom operator without a name") {
    g.codes[0].custom.clear();
    CHECK_THAT(error_of(g), Contains("operator 0: custom operator without a custom code"));
  }
}

TEST_CASE("tflite reader: files that are not models", "[infer]") {
  CHECK_THROWS_WITH(Model::load("/nonexistent/model.tflite"), Contains("/nonexistent/model.tflite: cannot open"));
  CHECK_THROWS_WITH(Model::from_bytes({}, "empty.tflite"), Contains("empty.tflite: 0 bytes, too short"));
  std::vector<std::uint8_t> bytes = build(tiny_conv_graph());
  bytes[4] = 'X';
  CHECK_THROWS_WITH(Model::from_bytes(bytes, "x.tflite"), Contains("not a TFLite model (file identifier 'XFL3'"));
  std::vector<std::uint8_t> text(64, 'a');
  CHECK_THROWS_WITH(Model::from_bytes(text, "a.txt"), Contains("file identifier 'aaaa'"));
}

// ---- the real MediaPipe models ------------------------------------------------------------------

namespace {

struct Expected {
  std::string file;
  OperatorNameSet operators;
  std::vector<std::vector<int>> inputs, outputs;
};

void check_real_model(const Expected& e) {
  const auto path = gp::test::find_model(e.file);
  if (!path) return;
  const Model m = Model::load(*path);
  std::cout << describe(m);
  CHECK(operator_names(m) == e.operators);
  REQUIRE(m.inputs().size() == e.inputs.size());
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    CHECK(m.tensor(m.inputs()[i]).shape == e.inputs[i]);
    CHECK(m.tensor(m.inputs()[i]).type == TensorType::float32);
  }
  REQUIRE(m.outputs().size() == e.outputs.size());
  for (std::size_t i = 0; i < e.outputs.size(); ++i) {
    CHECK(m.tensor(m.outputs()[i]).shape == e.outputs[i]);
    CHECK(m.tensor(m.outputs()[i]).type == TensorType::float32);
  }
  // MediaPipe's weights: every FLOAT16 tensor is a constant that a DEQUANTIZE widens to FLOAT32.
  int fp16 = 0;
  for (const Operator& op : m.operators()) {
    if (!op.is(BuiltinOp::dequantize)) continue;
    const Tensor& in = m.tensor(op.inputs[0]);
    const Tensor& out = m.tensor(op.outputs[0]);
    CHECK(in.type == TensorType::float16);
    CHECK(in.is_constant());
    CHECK(out.type == TensorType::float32);
    CHECK_FALSE(out.is_constant());
    CHECK(in.shape == out.shape);
    for (const float v : constant_floats(m, in)) {
      if (!std::isfinite(v)) FAIL("non-finite weight in " << in.name);
    }
    ++fp16;
  }
  CHECK(fp16 > 50);
  for (const Tensor& t : m.tensors()) {
    if (t.type == TensorType::float16) CHECK(t.is_constant());
    CHECK_FALSE(t.quantization.has_value());
  }
}

const OperatorNameSet kSelfieOps{"DEQUANTIZE", "CONV_2D",  "DEPTHWISE_CONV_2D", "HARD_SWISH",
                                 "RELU",       "LOGISTIC", "MUL",               "ADD",
                                 "RESIZE_BILINEAR", "Convolution2DTransposeBias"};

OperatorNameSet with(OperatorNameSet set, const std::string& name) {
  set.insert(name);
  return set;
}

}  // namespace

TEST_CASE("tflite reader: selfie_segmentation models", "[infer]") {
  check_real_model({"selfie_segmentation.tflite", with(kSelfieOps, "AVERAGE_POOL_2D"), {{1, 256, 256, 3}}, {{1, 256, 256, 1}}});
  check_real_model({"selfie_segmentation_landscape.tflite", with(kSelfieOps, "MEAN"), {{1, 144, 256, 3}}, {{1, 144, 256, 1}}});

  const auto path = gp::test::find_model("selfie_segmentation.tflite");
  if (!path) return;
  const Model m = Model::load(*path);
  int transpose = 0, pools = 0;
  for (const Operator& op : m.operators()) {
    if (op.is_custom()) {
      ++transpose;
      const auto& o = std::get<TransposeConvBiasOptions>(op.options);
      CHECK(o.padding == Padding::same);
      CHECK(o.stride_w == 2);
      CHECK(o.stride_h == 2);
      CHECK(m.tensor(op.outputs[0]).shape == std::vector<int>{1, 256, 256, 1});
    }
    if (op.is(BuiltinOp::average_pool_2d)) {
      ++pools;
      const auto& o = std::get<Pool2DOptions>(op.options);
      CHECK(o.padding == Padding::valid);
      CHECK(o.filter_w == o.stride_w);  // global pooling in the squeeze-excite blocks
    }
    if (op.is(BuiltinOp::resize_bilinear)) {
      const auto& o = std::get<ResizeBilinearOptions>(op.options);
      std::cout << "selfie RESIZE_BILINEAR op " << op.index << ": align_corners " << o.align_corners
                << " half_pixel_centers " << o.half_pixel_centers << "\n";
    }
  }
  CHECK(transpose == 1);
  CHECK(pools == 10);
}

TEST_CASE("tflite reader: face_detection models", "[infer]") {
  const OperatorNameSet common{"DEQUANTIZE", "CONV_2D", "DEPTHWISE_CONV_2D", "RELU", "ADD", "PAD", "MAX_POOL_2D", "RESHAPE"};
  const OperatorNameSet short_ops = with(common, "CONCATENATION");
  const OperatorNameSet full_ops = with(common, "RESIZE_BILINEAR");
  check_real_model({"face_detection_short_range.tflite", short_ops, {{1, 128, 128, 3}}, {{1, 896, 16}, {1, 896, 1}}});
  check_real_model({"face_detection_full_range.tflite", full_ops, {{1, 192, 192, 3}}, {{1, 2304, 16}, {1, 2304, 1}}});
  // Together they use exactly the operators the issue lists for face detection.
  OperatorNameSet both = short_ops;
  both.insert(full_ops.begin(), full_ops.end());
  CHECK(both == with(with(common, "CONCATENATION"), "RESIZE_BILINEAR"));

  // The sparse variant needs DENSIFY and DEPTH_TO_SPACE, outside the face detectors' operator
  // set: it must load and name them.
  const auto sparse = gp::test::find_model("face_detection_full_range_sparse.tflite");
  if (!sparse) return;
  const Model m = Model::load(*sparse);
  std::cout << describe(m);
  CHECK(m.min_runtime_version() == "2.2.0");
  int sparse_tensors = 0;
  for (const Tensor& t : m.tensors()) {
    if (!t.is_sparse) continue;
    ++sparse_tensors;
    INFO(t.name);
    // Every level read, one per dimension and block dimension; expanded to the declared shape.
    CHECK(t.sparsity.levels.size() == t.shape.size() + t.sparsity.block_map.size());
    CHECK(densified_floats(m, t).size() == std::size_t(t.element_count()));
  }
  CHECK(sparse_tensors > 0);
  OperatorNameSet engine = with(full_ops, "CONCATENATION");
  std::vector<std::string> names;
  for (const auto& u : unsupported_operators(m, engine)) names.push_back(u.name);
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"DENSIFY", "DEPTH_TO_SPACE"});
  CHECK_THROWS_WITH(require_supported(m, engine), Contains("DENSIFY (first at operator"));
}

TEST_CASE("tflite reader: face_landmark model", "[infer]") {
  check_real_model({"face_landmark.tflite",
                    {"DEQUANTIZE", "CONV_2D", "DEPTHWISE_CONV_2D", "PRELU", "ADD", "MAX_POOL_2D", "PAD"},
                    {{1, 192, 192, 3}},
                    {{1, 1, 1, 1404}, {1, 1, 1, 1}}});  // 468 landmarks x (x, y, z); face presence
}

// ---- corrupted copies of a real model ----------------------------------------------------------

namespace {

// Loads the bytes; a model that still verifies is walked completely (every shape, option and
// constant byte), so a reader that let a bad offset through would fault here (run under ASan).
enum class Outcome { valid, error };
Outcome try_load(std::vector<std::uint8_t> bytes, const std::string& source) {
  try {
    const Model m = Model::from_bytes(std::move(bytes), source);
    std::size_t touched = describe(m, true).size();
    for (const Tensor& t : m.tensors()) {
      if (!t.is_constant()) continue;
      std::uint8_t x = 0;
      for (std::size_t i = 0; i < t.data_bytes; ++i) x ^= t.data[i];
      touched += x;
      if (!t.is_sparse && (t.type == TensorType::float32 || t.type == TensorType::float16)) {
        touched += constant_floats(m, t).size();
      }
      if (!t.is_sparse && t.type == TensorType::int32) touched += constant_ints(m, t).size();
    }
    CHECK(touched > 0);
    return Outcome::valid;
  } catch (const ModelError& e) {
    CHECK_THAT(e.what(), Contains(source));
    return Outcome::error;
  }
}

}  // namespace

TEST_CASE("tflite reader: truncated and bit-flipped models give an error or a valid model", "[infer]") {
  const auto path = gp::test::find_model("face_detection_short_range.tflite");
  if (!path) return;
  const std::vector<std::uint8_t> original = read_bytes(*path);
  const Model reference = Model::from_bytes(original, "reference");

  // Truncations: the first bytes one by one, then lengths spread over the whole file.
  int truncated_errors = 0, truncations = 0;
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n < 64; ++n) lengths.push_back(n);
  for (std::size_t k = 1; k < 300; ++k) lengths.push_back(original.size() * k / 300);
  lengths.push_back(original.size() - 1);
  for (const std::size_t n : lengths) {
    std::vector<std::uint8_t> cut(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(n));
    truncated_errors += try_load(std::move(cut), "truncated.tflite") == Outcome::error;
    ++truncations;
  }
  std::cout << "truncations: " << truncated_errors << " of " << truncations << " rejected\n";
  CHECK(truncated_errors == truncations);  // the flatbuffer's tables sit at the start and the end

  // Bytes that are not constant data (tables, vectors of indices, strings): where flips matter.
  std::vector<bool> is_data(original.size(), false);
  for (const Tensor& t : reference.tensors()) {
    if (!t.is_constant()) continue;
    const auto start = static_cast<std::size_t>(t.data - reference.bytes().data());
    std::fill(is_data.begin() + static_cast<std::ptrdiff_t>(start),
              is_data.begin() + static_cast<std::ptrdiff_t>(start + t.data_bytes), true);
  }
  std::vector<std::size_t> structure;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (!is_data[i]) structure.push_back(i);
  }
  std::cout << "structural bytes: " << structure.size() << " of " << original.size() << "\n";

  std::mt19937 rng(20240611);
  int flips = 0, flip_errors = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<std::uint8_t> bytes = original;
    // Mostly single bit flips in the structure, some anywhere, some multi-byte garbage.
    const int kind = trial % 6;
    const std::size_t count = kind == 5 ? 1 + rng() % 8 : 1;
    for (std::size_t c = 0; c < count; ++c) {
      const std::size_t at = kind == 4 ? rng() % bytes.size() : structure[rng() % structure.size()];
      if (kind == 5) {
        bytes[at] = static_cast<std::uint8_t>(rng());
      } else {
        bytes[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      }
    }
    flip_errors += try_load(std::move(bytes), "flipped.tflite") == Outcome::error;
    ++flips;
  }
  std::cout << "corruptions: " << flip_errors << " of " << flips << " rejected, the rest still valid\n";
  CHECK(flip_errors > flips / 10);  // many structural flips must be caught, not silently accepted
}
