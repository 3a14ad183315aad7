// CudaEngine against CpuEngine on the real MediaPipe models (selfie segmentation general and
// landscape, face detection short and full range, face landmark), FP32 and FP16, at batch 1 and
// at batch 5 with a different image in every item; CUDA graph replay against the eager first run;
// two engines (models) on one Runtime; face detection on OpenCV's messi5.jpg.
//
// Tolerances, per output, with scale = max(1, max - min, max |value|) of the CPU output (the
// magnitude for outputs of one value, such as face_landmark's face flag):
// - FP32: max |gpu - cpu| <= 1e-4 x scale. The FP32 kernels add in the CPU reference's order
//   without fused multiply-adds, so most operators agree bit for bit; LOGISTIC uses CUDA's expf
//   (within 2 ulp of glibc's), and selfie segmentation has 11 LOGISTICs whose last-bit
//   differences pass through the following layers. 1e-4 of the output range is far above that
//   and far below any real error (a wrong padding or index moves outputs by a sizeable fraction
//   of their range). Checked on the CPU: moving every LOGISTIC output by 1 ulp moves selfie
//   segmentation's mask by 5e-6 at most.
// - FP16: mean |gpu - cpu| <= 1e-2 x scale and max <= 0.1 x scale. Half storage rounds every
//   activation and weight to 11 significant bits (relative 4.9e-4) at each of ~100-200
//   operators; MediaPipe runs these models in FP16 on GPUs with errors of that order. The mean
//   bounds the typical error; the max catches a wrong kernel somewhere (which moves whole
//   regions), not single-pixel rounding at a mask's edge. Checked on the CPU by a copy of
//   CpuEngine that rounds every activation to half after each operator, on these inputs: mean
//   <= 4e-4 x scale and max <= 2.7e-2 x scale on all five models (face_landmark's face flag
//   1e-3 x its magnitude); no value overflows half.
// - FP16 with tensor cores (cuBLAS) against FP16 with the tiled kernel: both accumulate in float
//   and round once, so they differ by the order of additions only: mean <= 2e-3 x scale.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/views.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/cuda_engine.hpp"
#include "infer/model_files.hpp"
#include "io/file_bytes.hpp"
#include "io/jpeg_codec.hpp"

using namespace gp::infer;
using Catch::Matchers::Contains;

namespace {

const std::vector<const char*>& model_files() {
  static const std::vector<const char*> files{
      "selfie_segmentation.tflite",         "selfie_segmentation_landscape.tflite",
      "face_detection_short_range.tflite",  "face_detection_full_range.tflite",
      "face_landmark.tflite",               "face_detection_full_range_sparse.tflite",  // DENSIFY, DEPTH_TO_SPACE
      "pose_detection.tflite",              "pose_landmark_lite.tflite",                // BlazePose
  };
  return files;
}

// A smooth image-like pattern in [-1, 1] (MediaPipe's input range) plus uniform noise of 0.05,
// different for each seed; the shape's batch dimension is ignored.
std::vector<float> test_image(const Shape& shape, int seed) {
  const Nhwc s = Nhwc::of(shape);
  std::mt19937 rng(static_cast<std::uint32_t>(1000 + seed));
  std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
  std::vector<float> out(static_cast<std::size_t>(s.h) * s.w * s.c);
  std::size_t i = 0;
  for (int y = 0; y < s.h; ++y)
    for (int x = 0; x < s.w; ++x)
      for (int c = 0; c < s.c; ++c) {
        const double u = double(x) / s.w, v = double(y) / s.h;
        const double smooth = 0.9 * std::sin(6.0 * u * (c + 1) + 4.0 * v + seed) * std::cos(5.0 * v - 3.0 * u * seed + 0.5 * c);
        out[i++] = std::clamp(static_cast<float>(smooth) + noise(rng), -1.0f, 1.0f);
      }
  return out;
}

// Items seed0, seed0 + 1, ... one after the other.
std::vector<float> test_batch(const Shape& item_shape, int batch, int seed0) {
  std::vector<float> out;
  for (int item = 0; item < batch; ++item) {
    const auto image = test_image(item_shape, seed0 + item);
    out.insert(out.end(), image.begin(), image.end());
  }
  return out;
}

struct Difference {
  double max_abs = 0, mean_abs = 0;
  double scale = 1;  // max(1, range, max |value|) of the CPU output
  std::size_t non_finite = 0;
};

Difference difference(const std::vector<float>& gpu, const std::vector<float>& cpu) {
  REQUIRE(gpu.size() == cpu.size());
  Difference d;
  if (cpu.empty()) return d;
  const auto [low, high] = std::minmax_element(cpu.begin(), cpu.end());
  d.scale = std::max({1.0, double(*high) - double(*low), std::abs(double(*high)), std::abs(double(*low))});
  double total = 0;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    if (!std::isfinite(gpu[i])) {
      ++d.non_finite;
      continue;
    }
    const double diff = std::abs(double(gpu[i]) - double(cpu[i]));
    d.max_abs = std::max(d.max_abs, diff);
    total += diff;
  }
  d.mean_abs = total / double(cpu.size());
  return d;
}

void check_fp32(const std::vector<std::vector<float>>& gpu, const std::vector<std::vector<float>>& cpu) {
  REQUIRE(gpu.size() == cpu.size());
  for (std::size_t o = 0; o < cpu.size(); ++o) {
    const Difference d = difference(gpu[o], cpu[o]);
    INFO("output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
    WARN("fp32 output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
    CHECK(d.non_finite == 0);
    CHECK(d.max_abs <= 1e-4 * d.scale);
  }
}

// Outputs that are logits read through a sigmoid, compared as those probabilities in FP16:
// BlazePose's segmentation (output 2 of pose_landmark_*) reaches logits of +-1000 on the test
// images, where FP16's few units of error change nothing (MediaPipe's TensorsToSegmentation applies
// the sigmoid); near 0, where the mask is decided, the logits compare as tightly as any output.
bool compared_as_probability(const std::string& model, std::size_t output) {
  return model.rfind("pose_landmark_", 0) == 0 && output == 2;
}

std::vector<float> sigmoid_of(const std::vector<float>& logits) {
  std::vector<float> p(logits.size());
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = 1.0f / (1.0f + std::exp(-logits[i]));
  return p;
}

void check_fp16(const std::vector<std::vector<float>>& gpu, const std::vector<std::vector<float>>& cpu,
                const std::string& model = {}) {
  REQUIRE(gpu.size() == cpu.size());
  for (std::size_t o = 0; o < cpu.size(); ++o) {
    const bool probability = compared_as_probability(model, o);
    INFO((probability ? "compared after a sigmoid" : "compared as is"));
    const Difference d = probability ? difference(sigmoid_of(gpu[o]), sigmoid_of(cpu[o])) : difference(gpu[o], cpu[o]);
    INFO("output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
    WARN("fp16 output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
    CHECK(d.non_finite == 0);
    CHECK(d.mean_abs <= 1e-2 * d.scale);
    if (probability) {
      // A mask: where a logit is within a few units of 0 FP16 moves the probability by up to ~0.3;
      // those pixels are few (the mask's edge).
      const auto p_gpu = sigmoid_of(gpu[o]), p_cpu = sigmoid_of(cpu[o]);
      std::size_t off = 0;
      for (std::size_t k = 0; k < p_cpu.size(); ++k) off += std::abs(p_gpu[k] - p_cpu[k]) > 0.1f;
      INFO("pixels off by over 0.1: " << off << " of " << p_cpu.size());
      CHECK(off <= p_cpu.size() / 100);
    } else {
      CHECK(d.max_abs <= 0.1 * d.scale);
    }
  }
}

// A later run of the same engine on the same input: bit-identical where every kernel is ours
// (deterministic); with cuBLAS, which may pick another algorithm when called inside a graph
// capture than outside, within the bound of cuBLAS against the tiled kernel (and a WARN).
void check_same_run(const std::vector<std::vector<float>>& later, const std::vector<std::vector<float>>& first,
                    bool exact) {
  if (exact) {
    CHECK(later == first);
    return;
  }
  REQUIRE(later.size() == first.size());
  if (later != first) WARN("cuBLAS results differ between the eager run and the graph");
  for (std::size_t o = 0; o < first.size(); ++o) {
    const Difference d = difference(later[o], first[o]);
    INFO("output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
    CHECK(d.non_finite == 0);
    CHECK(d.mean_abs <= 2e-3 * d.scale);
  }
}

// CPU reference of a batch: each item run alone at batch 1 (CpuEngine's tests show batch items
// equal batch-1 runs), outputs concatenated per graph output.
std::vector<std::vector<float>> cpu_reference(CpuEngine& one, const std::vector<float>& batch_input, int batch) {
  const std::size_t item_size = static_cast<std::size_t>(element_count(one.input_shapes()[0]));
  REQUIRE(batch_input.size() == item_size * static_cast<std::size_t>(batch));
  std::vector<std::vector<float>> out(one.output_shapes().size());
  for (int item = 0; item < batch; ++item) {
    const auto begin = batch_input.begin() + static_cast<long>(item * item_size);
    const auto outputs = one.run({std::vector<float>(begin, begin + static_cast<long>(item_size))});
    for (std::size_t o = 0; o < out.size(); ++o) out[o].insert(out[o].end(), outputs[o].begin(), outputs[o].end());
  }
  return out;
}

gp::RuntimeOptions gpu_options() {
  gp::RuntimeOptions options;
  options.device = gp::DeviceChoice::parse("cuda:0");
  return options;
}

}  // namespace

TEST_CASE("CudaEngine FP32 and FP16 match CpuEngine on the MediaPipe models at batch 1 and 5", "[infer][gpu]") {
  gp::Runtime runtime(gpu_options());
  for (const char* file : model_files()) {
    const auto path = gp::test::find_model(file);
    if (!path) continue;
    const Model model = Model::load(*path);
    CpuEngine cpu(model, 1);
    const Shape item_shape = cpu.input_shapes()[0];
    for (const int batch : {1, 5}) {
      const std::vector<float> input = test_batch(item_shape, batch, 3 * batch);
      const auto expected = cpu_reference(cpu, input, batch);
      {
        INFO(file << " fp32 batch " << batch);
        CudaEngine gpu(runtime, model, batch);
        REQUIRE(gpu.input_shapes() == std::vector<Shape>{Shape{batch, item_shape[1], item_shape[2], item_shape[3]}});
        REQUIRE(gpu.operator_count() == cpu.operator_count());
        const auto first = gpu.run({input});
        check_fp32(first, expected);
        // The second run captures the CUDA graph and launches it: the same values, bit for bit.
        CHECK(!gpu.graph_captured());
        const auto replay = gpu.run({input});
        INFO("graph error: " << gpu.graph_error());
        CHECK(gpu.graph_captured());
        CHECK(gpu.graph_nodes() >= gpu.operator_count());
        CHECK(replay == first);
      }
      for (const bool tensor_cores : {true, false}) {
        INFO(file << " fp16 batch " << batch << (tensor_cores ? " (cuBLAS)" : " (tiled)"));
        CudaEngineOptions options;
        options.precision = Precision::fp16;
        options.tensor_cores = tensor_cores;
        CudaEngine gpu(runtime, model, batch, options);
        const auto first = gpu.run({input});
        check_fp16(first, expected, file);
        check_same_run(gpu.run({input}), first, !tensor_cores);  // graph replay
        INFO("graph error: " << gpu.graph_error());
        CHECK(gpu.graph_captured());
      }
    }
  }
}

TEST_CASE("CudaEngine FP16: cuBLAS pointwise convolutions agree with the tiled FP16 kernel", "[infer][gpu]") {
  gp::Runtime runtime(gpu_options());
  for (const char* file : {"selfie_segmentation.tflite", "face_detection_full_range.tflite"}) {
    const auto path = gp::test::find_model(file);
    if (!path) continue;
    INFO(file);
    const Model model = Model::load(*path);
    CudaEngineOptions cublas, tiled;
    cublas.precision = tiled.precision = Precision::fp16;
    tiled.tensor_cores = false;
    CudaEngine a(runtime, model, 3, cublas), b(runtime, model, 3, tiled);
    const auto input = test_batch(Shape(a.input_shapes()[0]), 3, 40);
    const auto from_cublas = a.run({input});
    const auto from_tiled = b.run({input});
    for (std::size_t o = 0; o < from_tiled.size(); ++o) {
      const Difference d = difference(from_cublas[o], from_tiled[o]);
      INFO("output " << o << ": max |diff| " << d.max_abs << ", mean " << d.mean_abs << ", scale " << d.scale);
      CHECK(d.non_finite == 0);
      CHECK(d.mean_abs <= 2e-3 * d.scale);
    }
  }
}

TEST_CASE("CudaEngine: the graph reads each run's inputs; graph and eager runs agree; memory reuse changes nothing",
          "[infer][gpu]") {
  const auto path = gp::test::find_model("selfie_segmentation.tflite");
  if (!path) return;
  const Model model = Model::load(*path);
  gp::Runtime runtime(gpu_options());
  for (const Precision precision : {Precision::fp32, Precision::fp16}) {
    INFO(precision_name(precision));
    CudaEngineOptions graph_options, eager_options, separate_options;
    graph_options.precision = eager_options.precision = separate_options.precision = precision;
    eager_options.cuda_graph = false;
    separate_options.reuse_memory = false;
    CudaEngine graph(runtime, model, 2, graph_options);
    CudaEngine eager(runtime, model, 2, eager_options);
    CudaEngine separate(runtime, model, 2, separate_options);
    CHECK(separate.memory_plan().arena_bytes > graph.memory_plan().arena_bytes);
    const Shape item = model.tensor(model.inputs()[0]).shape;
    const auto a = test_batch(item, 2, 7), b = test_batch(item, 2, 9);
    const bool exact = precision == Precision::fp32;  // FP16 uses cuBLAS (see check_same_run)
    const auto graph_a = graph.run({a});  // eager
    const auto graph_b = graph.run({b});  // captured here, with b's values
    const auto graph_a_again = graph.run({a});  // replayed: must read a, not the captured b
    const auto graph_b_again = graph.run({b});
    INFO("graph error: " << graph.graph_error());
    CHECK(graph.graph_captured());
    CHECK(graph_b_again == graph_b);  // both from the graph: bit-identical
    check_same_run(graph_a_again, graph_a, exact);
    CHECK(graph_b != graph_a);
    CHECK(eager.run({a}) == graph_a);  // both eager
    check_same_run(eager.run({b}), graph_b, exact);
    CHECK(!eager.graph_captured());
    CHECK(separate.run({a}) == graph_a);  // both eager
    check_same_run(separate.run({b}), graph_b, exact);
  }
}

TEST_CASE("CudaEngine: two models on one Runtime, on one stream and on two, device buffers in and out",
          "[infer][gpu]") {
  const auto segmentation_path = gp::test::find_model("selfie_segmentation.tflite");
  const auto detection_path = gp::test::find_model("face_detection_short_range.tflite");
  if (!segmentation_path || !detection_path) return;
  gp::Runtime runtime(gpu_options());
  const Model segmentation_model = Model::load(*segmentation_path), detection_model = Model::load(*detection_path);
  CudaEngine segmentation(runtime, segmentation_model, 4);
  CudaEngineOptions fp16;
  fp16.precision = Precision::fp16;
  CudaEngine detection(runtime, detection_model, 2, fp16);
  const auto segmentation_input = test_batch(segmentation_model.tensor(segmentation_model.inputs()[0]).shape, 4, 1);
  const auto detection_input = test_batch(detection_model.tensor(detection_model.inputs()[0]).shape, 2, 5);
  // Each engine alone first (eager), then again (graph) for the reference values.
  segmentation.run({segmentation_input});
  detection.run({detection_input});
  const auto segmentation_alone = segmentation.run({segmentation_input});
  const auto detection_alone = detection.run({detection_input});

  // Device buffers of the caller's, on two streams at once, several times over.
  gp::Stream one = runtime.make_stream(), two = runtime.make_stream();
  auto upload = [&](const std::vector<float>& host, const gp::Stream& s) {
    gp::DeviceBuffer d = runtime.device_alloc(host.size() * sizeof(float), s, "engine test input");
    s.copy_to_device(d.get(), host.data(), host.size() * sizeof(float));
    return d;
  };
  auto output_buffers = [&](const CudaEngine& e, const gp::Stream& s) {
    std::vector<gp::DeviceBuffer> out;
    for (const Shape& shape : e.output_shapes()) {
      out.push_back(runtime.device_alloc(static_cast<std::size_t>(element_count(shape)) * sizeof(float), s, "engine test output"));
      s.memset(out.back().get(), 0xff, out.back().size());  // NaN: an output never written shows
    }
    return out;
  };
  auto download = [&](const std::vector<gp::DeviceBuffer>& buffers, const gp::Stream& s) {
    std::vector<std::vector<float>> host;
    for (const auto& b : buffers) {
      host.emplace_back(b.size() / sizeof(float));
      s.copy_to_host(host.back().data(), b.get(), b.size());
    }
    s.synchronize("engine test download");
    return host;
  };
  const gp::DeviceBuffer segmentation_in = upload(segmentation_input, one);
  const gp::DeviceBuffer detection_in = upload(detection_input, two);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    auto segmentation_out = output_buffers(segmentation, one);
    auto detection_out = output_buffers(detection, two);
    std::vector<float*> s_out, d_out;
    for (auto& b : segmentation_out) s_out.push_back(b.as<float>());
    for (auto& b : detection_out) d_out.push_back(b.as<float>());
    segmentation.run({segmentation_in.as<const float>()}, s_out, one);
    detection.run({detection_in.as<const float>()}, d_out, two);
    CHECK(download(segmentation_out, one) == segmentation_alone);
    CHECK(download(detection_out, two) == detection_alone);
  }
  // Both on one stream, the engine's own buffers passed in and out (no copies).
  one.copy_to_device(segmentation.input_device(0), segmentation_input.data(), segmentation_input.size() * sizeof(float));
  one.copy_to_device(detection.input_device(0), detection_input.data(), detection_input.size() * sizeof(float));
  segmentation.run({segmentation.input_device(0)}, {const_cast<float*>(segmentation.output_device(0))}, one);
  detection.run({detection.input_device(0)},
                {const_cast<float*>(detection.output_device(0)), const_cast<float*>(detection.output_device(1))}, one);
  std::vector<float> mask(segmentation_alone[0].size());
  one.copy_to_host(mask.data(), segmentation.output_device(0), mask.size() * sizeof(float));
  std::vector<float> scores(detection_alone[1].size());
  one.copy_to_host(scores.data(), detection.output_device(1), scores.size() * sizeof(float));
  one.synchronize("engine test");
  CHECK(mask == segmentation_alone[0]);
  CHECK(scores == detection_alone[1]);
}

TEST_CASE("CudaEngine errors: batch range, input counts and sizes", "[infer][gpu]") {
  gp::Runtime runtime(gpu_options());
  const auto path = gp::test::find_model("face_detection_short_range.tflite");
  if (!path) return;
  const Model model = Model::load(*path);
  CHECK_THROWS_WITH(CudaEngine(runtime, model, 0), Contains("batch 0 is outside 1..64"));
  CHECK_THROWS_WITH(CudaEngine(runtime, model, 65), Contains("batch 65"));
  CudaEngine engine(runtime, model, 64);
  CHECK(engine.input_shapes()[0] == Shape{64, 128, 128, 3});
  CHECK(engine.device_bytes() >= engine.memory_plan().arena_bytes);
  CHECK_THROWS_WITH(engine.run({std::vector<float>(10)}), Contains("input 0 has 10 values, expected 3145728"));
  CHECK_THROWS_WITH(engine.run({}), Contains("0 inputs given"));
  gp::Runtime cpu_runtime(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  CHECK_THROWS_WITH(CudaEngine(cpu_runtime, model, 1), Contains("needs a GPU"));
}

namespace {

// messi5.jpg decoded to RGB u8.
struct Photo {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

// Bilinear resample of the square [x0, x0 + size) x [y0, y0 + size) to out x out pixels (sample
// at pixel centres), scaled to [-1, 1] as MediaPipe's detectors take them.
std::vector<float> model_input(const Photo& p, int x0, int y0, int size_w, int size_h, int out_w, int out_h) {
  std::vector<float> out(static_cast<std::size_t>(out_w) * out_h * 3);
  for (int y = 0; y < out_h; ++y) {
    for (int x = 0; x < out_w; ++x) {
      const float sx = x0 + (x + 0.5f) * size_w / out_w - 0.5f, sy = y0 + (y + 0.5f) * size_h / out_h - 0.5f;
      const int ix = std::clamp(static_cast<int>(std::floor(sx)), 0, p.width - 2);
      const int iy = std::clamp(static_cast<int>(std::floor(sy)), 0, p.height - 2);
      const float fx = std::clamp(sx - ix, 0.0f, 1.0f), fy = std::clamp(sy - iy, 0.0f, 1.0f);
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int xx, int yy) { return float(p.rgb[(static_cast<std::size_t>(yy) * p.width + xx) * 3 + c]); };
        const float v = (at(ix, iy) * (1 - fx) + at(ix + 1, iy) * fx) * (1 - fy) +
                        (at(ix, iy + 1) * (1 - fx) + at(ix + 1, iy + 1) * fx) * fy;
        out[(static_cast<std::size_t>(y) * out_w + x) * 3 + c] = v / 127.5f - 1.0f;
      }
    }
  }
  return out;
}

int best_anchor(const std::vector<float>& classificators) {
  return static_cast<int>(std::max_element(classificators.begin(), classificators.end()) - classificators.begin());
}

}  // namespace

TEST_CASE("CudaEngine on OpenCV's messi5.jpg: the face detector finds the face as on the CPU; segmentation agrees",
          "[infer][gpu]") {
  const std::filesystem::path photo_path = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";
  if (!std::filesystem::is_regular_file(photo_path)) {
    WARN("skipped: " << photo_path.string() << " not found (install opencv-doc)");
    return;
  }
  const auto bytes = gp::io::read_file_bytes(photo_path.string());
  const gp::io::JpegInfo info = gp::io::jpeg_info(bytes, photo_path.string());
  Photo photo;
  photo.width = info.width;
  photo.height = info.height;
  photo.rgb.resize(gp::io::jpeg_decoded_bytes(info, 3));
  gp::io::decode_jpeg(bytes.data(), bytes.size(), gp::packed_view(photo.rgb.data(), info.width, info.height, 3, gp::PixelType::u8),
                      photo_path.string());
  REQUIRE(photo.width == 548);
  gp::Runtime runtime(gpu_options());

  if (const auto path = gp::test::find_model("face_detection_short_range.tflite")) {
    const Model model = Model::load(*path);
    // The 160x160 square around the player's head of cpu_engine_test.cpp, and the whole photo.
    std::vector<float> input = model_input(photo, 155, 25, 160, 160, 128, 128);
    const auto whole = model_input(photo, 0, 0, photo.width, photo.height, 128, 128);
    input.insert(input.end(), whole.begin(), whole.end());
    CpuEngine cpu(model, 1);
    const auto expected = cpu_reference(cpu, input, 2);
    const int expected_best = best_anchor(std::vector<float>(expected[1].begin(), expected[1].begin() + 896));
    REQUIRE(1 / (1 + std::exp(-expected[1][static_cast<std::size_t>(expected_best)])) > 0.5f);  // the face is there
    for (const Precision precision : {Precision::fp32, Precision::fp16}) {
      INFO(precision_name(precision));
      CudaEngineOptions options;
      options.precision = precision;
      CudaEngine gpu(runtime, model, 2, options);
      const auto outputs = gpu.run({input});
      if (precision == Precision::fp32) {
        check_fp32(outputs, expected);
      } else {
        check_fp16(outputs, expected);
      }
      const int best = best_anchor(std::vector<float>(outputs[1].begin(), outputs[1].begin() + 896));
      CHECK(best == expected_best);
      CHECK(1 / (1 + std::exp(-outputs[1][static_cast<std::size_t>(best)])) > 0.5f);
      // The box centre offsets of that anchor, in pixels of the 128x128 input.
      for (int k = 0; k < 4; ++k) {
        const std::size_t at = static_cast<std::size_t>(expected_best) * 16 + static_cast<std::size_t>(k);
        CHECK(std::abs(outputs[0][at] - expected[0][at]) < (precision == Precision::fp32 ? 1e-3 : 1.0));
      }
    }
  }

  if (const auto path = gp::test::find_model("selfie_segmentation.tflite")) {
    const Model model = Model::load(*path);
    // Selfie segmentation takes RGB in [0, 1] (MediaPipe's ImageToTensorCalculator range for it).
    auto input = model_input(photo, 0, 0, photo.width, photo.height, 256, 256);
    for (float& v : input) v = v * 0.5f + 0.5f;
    CpuEngine cpu(model, 1);
    const auto expected = cpu.run({input});
    // The player fills a fifth of the photo (21% of the mask on the CPU): the mask is neither
    // empty nor full, covers his torso (x 112, y 160 of 256) and not the top corners.
    const auto covered = std::count_if(expected[0].begin(), expected[0].end(), [](float v) { return v > 0.5f; });
    CHECK(covered > 256 * 256 / 10);
    CHECK(covered < 256 * 256 / 2);
    CHECK(expected[0][160 * 256 + 112] > 0.5f);
    CHECK(expected[0][8 * 256 + 8] < 0.5f);
    CHECK(expected[0][8 * 256 + 248] < 0.5f);
    for (const Precision precision : {Precision::fp32, Precision::fp16}) {
      INFO(precision_name(precision));
      CudaEngineOptions options;
      options.precision = precision;
      CudaEngine gpu(runtime, model, 1, options);
      const auto outputs = gpu.run({input});
      if (precision == Precision::fp32) {
        check_fp32(outputs, expected);
      } else {
        check_fp16(outputs, expected);
        // Thresholded at 0.5, the masks differ in few pixels (24 of 65536 where the CPU rounds
        // every activation to half).
        long flipped = 0;
        for (std::size_t i = 0; i < expected[0].size(); ++i) flipped += (outputs[0][i] > 0.5f) != (expected[0][i] > 0.5f);
        CHECK(flipped < 256 * 256 / 100);
      }
    }
  }
}
