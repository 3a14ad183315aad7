// gpuproc-bench-infer: model-only speed of the CUDA inference engine (issue 6's benchmark (a)).
//   gpuproc-bench-infer MODEL.tflite [--batch 1,8,64] [--precision fp32,fp16] [--iterations N]
//                       [--warmup W] [--device cuda:N] [--no-graph] [--json FILE]
// For every precision x batch: one CudaEngine, a deterministic input written once into the
// engine's own input buffer (no host copies: model only), W untimed warm-up calls (the eager first
// run, the CUDA graph capture, clocks ramping up), then two timed passes of N calls each:
// - latency: each call alone (enqueue, then wait for it), as a streaming caller at batch 1 sees
//   it: per-call device time between two events around the call and wall time from enqueue to
//   completion; p50, p99, mean, max.
// - throughput: N calls back to back on one stream, one wait at the end: frames/s =
//   batch x N / wall time (device time between events at both ends reported too).
// Then batch item 0's outputs are compared with CpuEngine's on the same input (max |diff| and the
// CPU output's range in the JSON), so the figures are those of an engine that computes the model.
// Targets of issue 6 (on an H100): >= 2000 frames/s at batch 64 FP16; p99 < 10 ms at batch 1 (the
// wall p99 is checked). The JSON has every figure, the device and the build; stdout a table.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "core/report_numbers.hpp"
#include "gpuproc/build_info.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/cuda_engine.hpp"
#include "infer/tflite_model.hpp"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using gp::infer::Precision;

constexpr double kTargetFramesPerSecond = 2000;  // batch 64, FP16
constexpr double kTargetP99Ms = 10;              // batch 1

struct Options {
  std::string model;
  std::vector<int> batches{1, 8, 64};
  std::vector<Precision> precisions{Precision::fp32, Precision::fp16};
  int iterations = 200;
  int warmup = 20;
  std::string device = "cuda:0";
  bool graph = true;
  std::string json_path;
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  if (out.empty()) throw gp::UsageError("empty list \"" + text + "\"");
  return out;
}

int parse_int(const std::string& text, const std::string& what, int low, int high) {
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < low || value > high) {
    throw gp::UsageError(what + ": expected an integer in " + std::to_string(low) + ".." + std::to_string(high) +
                         ", got \"" + text + "\"");
  }
  return value;
}

const char* kUsage =
    "usage: gpuproc-bench-infer MODEL.tflite [--batch 1,8,64] [--precision fp32,fp16] [--iterations N]\n"
    "                           [--warmup W] [--device cuda:N] [--no-graph] [--json FILE]\n";

Options parse_options(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) {
    if (i + 1 >= argc) throw gp::UsageError(std::string(argv[i]) + " needs a value");
    return std::string(argv[++i]);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--batch") {
      o.batches.clear();
      for (const auto& b : split(value(i))) o.batches.push_back(parse_int(b, "--batch", 1, gp::infer::kMaxBatch));
    } else if (arg == "--precision") {
      o.precisions.clear();
      for (const auto& p : split(value(i))) o.precisions.push_back(gp::infer::parse_precision(p));
    } else if (arg == "--iterations") {
      o.iterations = parse_int(value(i), "--iterations", 1, 1000000);
    } else if (arg == "--warmup") {
      o.warmup = parse_int(value(i), "--warmup", 0, 1000000);
    } else if (arg == "--device") {
      o.device = value(i);
    } else if (arg == "--no-graph") {
      o.graph = false;
    } else if (arg == "--json") {
      o.json_path = value(i);
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      throw gp::UsageError("unknown option " + arg);
    } else if (o.model.empty()) {
      o.model = arg;
    } else {
      throw gp::UsageError("one model only (got " + o.model + " and " + arg + ")");
    }
  }
  if (o.model.empty()) throw gp::UsageError("no model given");
  return o;
}

json summary_ms(const std::vector<double>& values) {
  double total = 0;
  for (const double v : values) total += v;
  return {{"p50", gp::percentile(values, 0.50)},
          {"p99", gp::percentile(values, 0.99)},
          {"mean", values.empty() ? 0.0 : total / static_cast<double>(values.size())},
          {"max", values.empty() ? 0.0 : *std::max_element(values.begin(), values.end())}};
}

// A smooth pattern in [-1, 1], the same for every item (the speed does not depend on it).
std::vector<float> pattern(std::size_t count) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
  return out;
}

json bench_one(gp::Runtime& runtime, const gp::infer::Model& model, const Options& o, Precision precision, int batch) {
  gp::infer::CudaEngineOptions engine_options;
  engine_options.precision = precision;
  engine_options.cuda_graph = o.graph;
  const auto built = Clock::now();
  gp::infer::CudaEngine engine(runtime, model, batch, engine_options);
  const double build_s = std::chrono::duration<double>(Clock::now() - built).count();

  const gp::Stream stream = runtime.make_stream();
  std::vector<const float*> inputs;
  std::vector<float*> outputs;
  for (std::size_t i = 0; i < engine.input_shapes().size(); ++i) {
    const auto values = pattern(static_cast<std::size_t>(gp::infer::element_count(engine.input_shapes()[i])));
    stream.copy_to_device(engine.input_device(i), values.data(), values.size() * sizeof(float));
    stream.synchronize("bench input upload");
    inputs.push_back(engine.input_device(i));
  }
  for (std::size_t i = 0; i < engine.output_shapes().size(); ++i) {
    outputs.push_back(const_cast<float*>(engine.output_device(i)));  // no copy out: model only
  }

  const auto warm = Clock::now();
  for (int i = 0; i < o.warmup; ++i) engine.run(inputs, outputs, stream);
  stream.synchronize("bench warm-up");
  const double warmup_s = std::chrono::duration<double>(Clock::now() - warm).count();

  // Latency: one call at a time.
  gp::Event start, end;
  std::vector<double> device_ms, wall_ms;
  for (int i = 0; i < o.iterations; ++i) {
    const auto t0 = Clock::now();
    start.record(stream);
    engine.run(inputs, outputs, stream);
    end.record(stream);
    end.synchronize();
    wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    device_ms.push_back(end.elapsed_ms_since(start));
  }

  // Throughput: calls back to back.
  const auto t0 = Clock::now();
  start.record(stream);
  for (int i = 0; i < o.iterations; ++i) engine.run(inputs, outputs, stream);
  end.record(stream);
  end.synchronize();
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double device_s = end.elapsed_ms_since(start) / 1000.0;
  const double frames = static_cast<double>(batch) * o.iterations;

  // The benchmarked engine computes the model: batch item 0 against CpuEngine on the same input.
  // pattern() depends on the index only, so item 0 of each input is pattern(its item size).
  gp::infer::CpuEngine cpu(model, 1);
  std::vector<std::vector<float>> item0;
  for (const auto& shape : cpu.input_shapes()) item0.push_back(pattern(static_cast<std::size_t>(gp::infer::element_count(shape))));
  const auto expected = cpu.run(item0);
  json check = json::array();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::vector<float> got(expected[i].size());
    stream.copy_to_host(got.data(), engine.output_device(i), got.size() * sizeof(float));
    stream.synchronize("bench output download");
    double max_diff = 0, low = expected[i].empty() ? 0 : expected[i][0], high = low;
    for (std::size_t k = 0; k < got.size(); ++k) {
      const double d = std::fabs(double(got[k]) - double(expected[i][k]));
      max_diff = std::isnan(d) ? INFINITY : std::max(max_diff, d);
      low = std::min(low, double(expected[i][k]));
      high = std::max(high, double(expected[i][k]));
    }
    check.push_back({{"output", i}, {"max_abs_diff", max_diff}, {"cpu_min", low}, {"cpu_max", high}});
  }

  json r;
  r["precision"] = gp::infer::precision_name(precision);
  r["batch"] = batch;
  r["iterations"] = o.iterations;
  r["warmup"] = o.warmup;
  r["cuda_graph"] = o.graph;
  r["graph_nodes"] = engine.graph_nodes();
  r["graph_error"] = engine.graph_error();  // why a capture failed (then eager launches)
  r["operators"] = engine.operator_count();
  r["arena_bytes"] = engine.memory_plan().arena_bytes;
  r["arena_naive_bytes"] = engine.memory_plan().naive_bytes;
  r["device_bytes"] = engine.device_bytes();
  r["build_s"] = build_s;
  r["warmup_s"] = warmup_s;
  r["latency_device_ms"] = summary_ms(device_ms);
  r["latency_wall_ms"] = summary_ms(wall_ms);
  r["check_item0_vs_cpu"] = check;
  r["throughput"] = {{"frames_per_s", frames / wall_s},
                     {"frames_per_s_device", device_s > 0 ? frames / device_s : 0.0},
                     {"wall_s", wall_s},
                     {"device_s", device_s}};
  return r;
}

int run(const Options& o) {
  gp::RuntimeOptions runtime_options;
  runtime_options.device = gp::DeviceChoice::parse(o.device);
  if (runtime_options.device.kind == gp::DeviceChoice::Kind::cpu) throw gp::UsageError("--device: a CUDA device is needed");
  gp::Runtime runtime(runtime_options);
  if (!runtime.gpu()) throw gp::GpuError("no CUDA device: the benchmark needs a GPU");
  const gp::infer::Model model = gp::infer::Model::load(o.model);

  json report;
  report["model"] = o.model;
  report["device"] = runtime.device_name();
  report["build"] = {{"version", GPUPROC_VERSION},
                     {"revision", GPUPROC_GIT_REVISION},
                     {"cuda_architectures", GPUPROC_CUDA_ARCHITECTURES},
                     {"cuda_toolkit", GPUPROC_CUDA_TOOLKIT_VERSION},
                     {"build_type", GPUPROC_BUILD_TYPE}};
  report["results"] = json::array();
  std::printf("%s on %s\n", o.model.c_str(), runtime.device_name().c_str());
  std::printf("%-5s %5s %12s %10s %10s %10s %10s\n", "prec", "batch", "frames/s", "dev p50", "dev p99", "wall p50",
              "wall p99");
  json targets = json::object();
  for (const Precision precision : o.precisions) {
    for (const int batch : o.batches) {
      json r = bench_one(runtime, model, o, precision, batch);
      std::printf("%-5s %5d %12.1f %8.3fms %8.3fms %8.3fms %8.3fms\n", gp::infer::precision_name(precision), batch,
                  r["throughput"]["frames_per_s"].get<double>(), r["latency_device_ms"]["p50"].get<double>(),
                  r["latency_device_ms"]["p99"].get<double>(), r["latency_wall_ms"]["p50"].get<double>(),
                  r["latency_wall_ms"]["p99"].get<double>());
      if (precision == Precision::fp16 && batch == 64) {
        const double fps = r["throughput"]["frames_per_s"].get<double>();
        targets["fp16_batch64_frames_per_s"] = {{"value", fps}, {"target", kTargetFramesPerSecond},
                                                {"met", fps >= kTargetFramesPerSecond}};
      }
      if (batch == 1) {
        const double p99 = r["latency_wall_ms"]["p99"].get<double>();
        targets[std::string(gp::infer::precision_name(precision)) + "_batch1_p99_ms"] = {
            {"value", p99}, {"target", kTargetP99Ms}, {"met", p99 < kTargetP99Ms}};
      }
      report["results"].push_back(std::move(r));
    }
  }
  report["targets"] = targets;
  for (const auto& [name, t] : targets.items()) {
    std::printf("target %s: %.3f (%s %.0f) %s\n", name.c_str(), t["value"].get<double>(),
                name.find("p99") != std::string::npos ? "<" : ">=", t["target"].get<double>(),
                t["met"].get<bool>() ? "met" : "NOT met");
  }
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << report.dump(2) << "\n";
    if (!out) throw gp::Error("could not write " + o.json_path);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const gp::UsageError& e) {
    std::cerr << "gpuproc-bench-infer: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpuproc-bench-infer: " << e.what() << "\n";
    return 3;
  }
}
