// What the tflite fuzzer (tests/fuzz/fuzz_tflite.cpp) found: shape arithmetic on sizes a model
// declares (an empty channel dimension, strides, dilations, paddings and concatenations that pass
// int) was undefined behaviour (a division by zero, signed overflow) and is now a gp::Error naming
// the operator. The saved inputs (tests/fuzz/corpus/tflite/crash_*) are checked end to end too.
#include <catch2/catch.hpp>

#include <climits>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "infer/graph_plan.hpp"
#include "cuda/infer/op_geometry.hpp"
#include "infer/tflite_model.hpp"
#include "support/test_data.hpp"

using namespace gp::infer;

TEST_CASE("op geometry: sizes from a model that would divide by zero or overflow int are errors", "[infer][fuzz]") {
  // Depthwise over an input with 0 channels (filter.c % input.c divided by zero).
  CHECK_THROWS_AS(depthwise_conv2d_output({1, 4, 4, 0}, {1, 3, 3, 2}, {}), gp::Error);
  CHECK(depthwise_conv2d_output({1, 4, 4, 2}, {1, 3, 3, 4}, {}) == Nhwc{1, 4, 4, 4});

  // Sliding windows: dilated filter, input + stride and the padding past int.
  CHECK_THROWS_AS(window_axis(Padding::same, 8, 3, 1, INT_MAX), gp::Error);
  CHECK_THROWS_AS(window_axis(Padding::valid, 8, INT_MAX, 1, 2), gp::Error);
  const WindowAxis wide = window_axis(Padding::same, INT_MAX, 3, INT_MAX);  // in + stride - 1 > INT_MAX
  CHECK(wide.out == 1);
  CHECK(wide.pad_before == 0);
  const WindowAxis usual = window_axis(Padding::same, 5, 3, 2);
  CHECK(usual.out == 3);
  CHECK(usual.pad_before == 1);
  CHECK(usual.pad_after == 1);

  // Transposed convolution: stride * (in - 1) + filter past int.
  CHECK_THROWS_AS(transpose_conv_axis(Padding::valid, 637534210, 1, 5), gp::Error);
  CHECK(transpose_conv_axis(Padding::same, 6, 2, 2).out == 12);

  // PAD and CONCATENATION growing a dimension past int.
  CHECK_THROWS_AS(pad_output({1, INT_MAX - 1, 2, 1}, {0, 0, 1, 1, 0, 0, 0, 0}), gp::Error);
  CHECK(pad_output({1, 4, 4, 1}, {0, 0, 1, 1, 1, 1, 0, 0}) == Shape{1, 6, 6, 1});
  CHECK_THROWS_AS(concatenation_output({{1, 1163001856}, {1, 1163544915}}, 1), gp::Error);
  CHECK(concatenation_output({{1, 8}, {1, 8}}, -1) == Shape{1, 16});

  // RESHAPE to a new shape whose product passes int64 (and anything past 2^31 elements).
  CHECK_THROWS_AS(reshape_output({1, 8}, {INT_MAX, INT_MAX, INT_MAX, INT_MAX, INT_MAX}), gp::Error);
  CHECK(reshape_output({2, 8}, {4, -1}) == Shape{4, 4});
}

TEST_CASE("tflite fuzzer's saved crash inputs load or fail with a ModelError", "[infer][fuzz]") {
  namespace fs = std::filesystem;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(gp::test::source_path("tests/fuzz/corpus/tflite"))) {
    if (entry.path().filename().string().rfind("crash_", 0) != 0) continue;
    INFO(entry.path().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
      const Model model = Model::from_bytes(std::move(bytes), entry.path().string());
      for (const Tensor& t : model.tensors()) {  // a STRING constant of 2^31 elements: refused, not allocated
        if (!t.is_constant()) continue;
        std::vector<float> values;
        try {
          values = constant_floats(model, t);
        } catch (const ModelError&) {
          continue;
        }
        CHECK(values.size() * sizeof(float) <= t.data_bytes * 2);
      }
      for (const int batch : {1, 2}) {
        try {
          const GraphShapes shapes = infer_shapes(model, batch);
          plan_memory(model, shapes, sizeof(float), true);
        } catch (const ModelError&) {
        }
      }
    } catch (const ModelError&) {
    }
    ++checked;
  }
  CHECK(checked >= 4);
}
