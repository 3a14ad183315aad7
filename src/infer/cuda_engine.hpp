#pragma once
// Runs a Model on a CUDA device at a fixed batch size, as CpuEngine does on the CPU: shapes from
// infer_shapes and one activation arena from plan_memory (planned once per model and batch, one
// device allocation from the Runtime), constants (folded DEQUANTIZEs included) uploaded once,
// then a step list of gp::infer::gpu launchers (cuda/infer/ops.hpp).
//
// Whole-graph CUDA graph: the first run() enqueues the steps one by one (loading every kernel
// outside a capture), the second captures the step list on the caller's stream, and it and every
// later run launch the graph: one launch per call instead of ~150 kernel launches. The
// graph reads the graph inputs from, and writes the outputs to, fixed buffers owned by the
// engine (input_device(i), output_device(i): float32 NHWC, batch items one after the other);
// run() copies the caller's buffers into and out of them outside the graph, and skips the copy
// where the caller passes those buffers themselves. The graph's first steps copy (FP32) or
// convert (FP16) the input buffers into the arena, so they keep their values across runs; the
// outputs are the arena's output tensors in FP32 and float buffers converted from half in FP16,
// valid until the next run.
//
// Precision::fp16 keeps activations and weights in half with float accumulation: CONV_2D 1x1
// stride 1 (most of the models' arithmetic) as a cuBLAS GEMM on tensor cores, the rest as the
// FP16 kernels of ops.hpp.
//
// Several engines (models, batch sizes) may share one Runtime and device; each has its own arena.
// One run at a time per engine: runs on the same engine must be ordered (same stream or
// synchronised), since they share the arena and the I/O buffers.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_graph.hpp"
#include "core/gpu_runtime.hpp"
#include "infer/graph_plan.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer {

class CublasGemm;

enum class Precision { fp32, fp16 };
const char* precision_name(Precision precision);  // "fp32", "fp16"
Precision parse_precision(const std::string& text);  // UsageError unless fp32 or fp16

struct CudaEngineOptions {
  Precision precision = Precision::fp32;
  // Capture the step list into a CUDA graph at the second run and launch the graph from then on;
  // false enqueues every kernel at each run (to compare the two, or to debug one kernel).
  bool cuda_graph = true;
  bool reuse_memory = true;  // plan_memory's reuse (false: every tensor its own range)
  // FP16 only: CONV_2D 1x1 stride 1 through cuBLAS (tensor cores); false runs it with the FP16
  // tiled kernel like the other convolutions (to check one against the other).
  bool tensor_cores = true;
};

class CudaEngine {
 public:
  // ModelError (naming the operators) when the model cannot run at this batch size (1..64);
  // GpuError without a GPU; GpuOutOfMemory when the arena and weights do not fit (a caller may
  // retry at a smaller batch). Allocates and uploads on a stream of its own and waits for it.
  CudaEngine(Runtime& runtime, Model model, int batch, const CudaEngineOptions& options = {});
  ~CudaEngine();  // waits for the last run to finish before its memory goes
  CudaEngine(const CudaEngine&) = delete;
  CudaEngine& operator=(const CudaEngine&) = delete;

  const Model& model() const { return model_; }
  int batch() const { return shapes_.batch; }
  const CudaEngineOptions& options() const { return options_; }
  const Shape& shape(int tensor) const { return shapes_.shapes.at(static_cast<std::size_t>(tensor)); }
  std::vector<Shape> input_shapes() const;   // graph inputs, in the model's order
  std::vector<Shape> output_shapes() const;  // graph outputs, in the model's order
  const MemoryPlan& memory_plan() const { return plan_; }
  std::size_t operator_count() const { return shapes_.run_operators.size(); }
  // Device bytes this engine holds: arena, constants, I/O buffers, cuBLAS workspace.
  std::size_t device_bytes() const;
  // Whether a CUDA graph has been captured (from the second run on, with options().cuda_graph).
  bool graph_captured() const { return static_cast<bool>(graph_); }
  std::size_t graph_nodes() const { return graph_.node_count(); }
  // Why the capture failed, if CUDA refused it (the engine then launches kernel by kernel);
  // empty otherwise.
  const std::string& graph_error() const { return graph_error_; }

  // The engine's fixed float32 input/output buffers on the device (see above), each
  // element_count(input_shapes()[i]) / (output_shapes()[i]) floats.
  float* input_device(std::size_t i) const;
  const float* output_device(std::size_t i) const;

  // Enqueues one inference on `stream` and returns without waiting: copies inputs[i] (any
  // memory cudaMemcpy can read: device, pinned or pageable host) into input_device(i), runs the
  // graph, copies output_device(i) to outputs[i]. Pointers equal to the engine's own buffers are
  // not copied. The caller's buffers must stay valid until the stream reaches this work.
  // gp::Error on a wrong count; GpuError on CUDA failures (naming the operator); ModelError
  // naming the operator when a launcher rejects its shapes (at the first run).
  void run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs, const Stream& stream);
  // Host convenience (tests): inputs[i] holds element_count(input_shapes()[i]) floats; returns
  // the outputs. Runs on the engine's own stream and waits.
  std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs);

 private:
  struct Step {
    int op = 0;  // operator index, for errors; -1 for the engine's own conversion steps
    std::function<void(cudaStream_t)> enqueue;
  };
  template <class T>
  void build(const std::vector<std::vector<float>>& constants);
  template <class T>
  Step make_step(int index, const std::vector<std::int64_t>& constant_offsets);
  void enqueue_steps(const Stream& stream) const;

  Runtime& runtime_;
  Model model_;
  CudaEngineOptions options_;
  GraphShapes shapes_;
  MemoryPlan plan_;
  // Declared before the buffers: they are freed on it, so it must outlive them.
  Stream stream_;
  DeviceBuffer arena_, constants_, io_, workspace_;
  std::unique_ptr<CublasGemm> gemm_;  // FP16 pointwise convolutions
  std::vector<float*> inputs_, outputs_;  // the fixed float32 I/O buffers
  std::vector<Step> steps_;
  CudaGraph graph_;
  std::string graph_error_;
  Event last_run_;
  bool ran_ = false;
};

}  // namespace gp::infer
