#include "infer/cuda_engine.hpp"

#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cuda/infer/ops.hpp"
#include "infer/cuda_gemm.hpp"
#include "infer/cuda_operator_steps.hpp"
#include "cuda/common/half.hpp"

namespace gp::infer {

const char* precision_name(Precision precision) { return precision == Precision::fp16 ? "fp16" : "fp32"; }

Precision parse_precision(const std::string& text) {
  if (text == "fp32" || text == "float32") return Precision::fp32;
  if (text == "fp16" || text == "float16" || text == "half") return Precision::fp16;
  throw UsageError("precision: expected fp32 or fp16, got \"" + text + "\"");
}

namespace {

Stream gpu_stream(Runtime& runtime) {
  if (!runtime.gpu()) throw GpuError("the CUDA inference engine needs a GPU (the runtime is on the CPU path)");
  runtime.bind_thread();
  return runtime.make_stream();
}

std::size_t aligned(std::size_t bytes) {
  return (bytes + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
}

// Host copies of constants in the engine's element type.
template <class T>
std::vector<T> converted(const std::vector<float>& values) {
  if constexpr (std::is_same_v<T, float>) {
    return values;
  } else {
    std::vector<T> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      __half_raw raw;
      raw.x = float_to_half(values[i]);  // round to nearest even, as __float2half_rn
      out[i] = __half(raw);
    }
    return out;
  }
}

}  // namespace

CudaEngine::CudaEngine(Runtime& runtime, Model model, int batch, const CudaEngineOptions& options)
    : runtime_(runtime),
      model_(std::move(model)),
      options_(options),
      shapes_(infer_shapes(model_, batch)),
      stream_(gpu_stream(runtime)) {
  // Constants that run-time operators read, as floats first (folded DENSIFYs and DEQUANTIZEs as
  // CpuEngine has them), then converted per precision. The sources of folded operators stay on
  // the host.
  std::vector<bool> read(model_.tensors().size(), false);
  for (const int index : shapes_.run_operators) {
    for (const int t : model_.operators()[static_cast<std::size_t>(index)].inputs) {
      if (t >= 0) read[static_cast<std::size_t>(t)] = true;
    }
  }
  std::vector<std::vector<float>> constants = load_time_values(model_, shapes_);
  for (std::size_t t = 0; t < constants.size(); ++t) {
    if (!read[t]) std::vector<float>().swap(constants[t]);
  }
  if (options_.precision == Precision::fp16) {
    build<__half>(constants);
  } else {
    build<float>(constants);
  }
  stream_.synchronize("upload of " + model_.source());  // the uploads' host vectors go now
}

CudaEngine::~CudaEngine() {
  try {
    if (ran_) last_run_.synchronize();  // a run on the caller's stream may still use the arena
    stream_.synchronize();
  } catch (...) {  // a destructor must not throw; a failed GPU reports at the next call anyway
  }
}

template <class T>
void CudaEngine::build(const std::vector<std::vector<float>>& constants) {
  runtime_.bind_thread();
  plan_ = plan_memory(model_, shapes_, sizeof(T), options_.reuse_memory);
  const std::string name = model_.source();
  arena_ = runtime_.device_alloc(std::max<std::size_t>(plan_.arena_bytes, 1), stream_, "inference arena of " + name);

  // Constants in one buffer, each at an aligned offset.
  std::vector<std::int64_t> constant_offsets(constants.size(), -1);
  std::size_t constant_bytes = 0;
  for (std::size_t t = 0; t < constants.size(); ++t) {
    if (constants[t].empty()) continue;
    constant_offsets[t] = static_cast<std::int64_t>(constant_bytes);
    constant_bytes += aligned(constants[t].size() * sizeof(T));
  }
  constants_ = runtime_.device_alloc(std::max<std::size_t>(constant_bytes, 1), stream_, "inference weights of " + name);
  std::vector<unsigned char> staging(constant_bytes);
  for (std::size_t t = 0; t < constants.size(); ++t) {
    if (constants[t].empty()) continue;
    const std::vector<T> values = converted<T>(constants[t]);
    std::memcpy(staging.data() + constant_offsets[t], values.data(), values.size() * sizeof(T));
  }
  if (constant_bytes > 0) {
    stream_.copy_to_device(constants_.get(), staging.data(), constant_bytes);
    stream_.synchronize("upload of the weights of " + name);
  }

  // The fixed float32 I/O buffers. Inputs have buffers of their own, copied (FP32) or converted
  // (FP16) into the arena by the graph's first steps: the arena reuses an input's bytes once it
  // has been read, and input_device(i) must keep what the caller wrote there. Outputs are the
  // arena's output tensors in FP32 (never reused within a run) and float buffers in FP16.
  auto arena_at = [&](int t) {
    const std::int64_t offset = plan_.offsets.at(static_cast<std::size_t>(t));
    if (offset < 0) throw model_.error(fmt::format("graph tensor {} has no place in the arena", t));
    return static_cast<unsigned char*>(arena_.get()) + offset;
  };
  std::vector<int> io_tensors(model_.inputs());
  if constexpr (!std::is_same_v<T, float>) {
    io_tensors.insert(io_tensors.end(), model_.outputs().begin(), model_.outputs().end());
  }
  std::size_t io_bytes = 0;
  for (const int t : io_tensors) io_bytes += aligned(static_cast<std::size_t>(element_count(shape(t))) * sizeof(float));
  io_ = runtime_.device_alloc(std::max<std::size_t>(io_bytes, 1), stream_, "inference inputs/outputs of " + name);
  std::size_t at = 0;
  for (std::size_t i = 0; i < io_tensors.size(); ++i) {
    float* p = reinterpret_cast<float*>(static_cast<unsigned char*>(io_.get()) + at);
    (i < model_.inputs().size() ? inputs_ : outputs_).push_back(p);
    at += aligned(static_cast<std::size_t>(element_count(shape(io_tensors[i]))) * sizeof(float));
  }
  if constexpr (std::is_same_v<T, float>) {
    for (const int t : model_.outputs()) outputs_.push_back(reinterpret_cast<float*>(arena_at(t)));
  } else if (options_.tensor_cores) {
    // cuBLAS for the pointwise convolutions, with a workspace of its own (no allocation while a
    // graph is being captured).
    workspace_ = runtime_.device_alloc(CublasGemm::kWorkspaceBytes, stream_, "cuBLAS workspace of " + name);
    try {
      gemm_ = std::make_unique<CublasGemm>(workspace_.get(), workspace_.size());  // loads cuBLAS the first time
    } catch (const GpuError& e) {
      throw GpuError(fmt::format("FP16 engine of {} on cuda:{}: {}", name, runtime_.device(), e.what()));
    }
  }

  // Steps: the inputs into the arena, the operators, the outputs' conversion (FP16).
  for (std::size_t i = 0; i < model_.inputs().size(); ++i) {
    const int t = model_.inputs()[i];
    const float* src = inputs_[i];
    T* dst = reinterpret_cast<T*>(arena_at(t));
    const std::int64_t count = element_count(shape(t));
    if constexpr (std::is_same_v<T, float>) {
      steps_.push_back({-1, [=](cudaStream_t s) { ops::launch::copy_gpu(src, count, dst, s); }});
    } else {
      steps_.push_back({-1, [=](cudaStream_t s) { ops::launch::float_to_half_gpu(src, count, dst, s); }});
    }
  }
  for (const int index : shapes_.run_operators) steps_.push_back(make_step<T>(index, constant_offsets));
  if constexpr (!std::is_same_v<T, float>) {
    for (std::size_t i = 0; i < model_.outputs().size(); ++i) {
      const int t = model_.outputs()[i];
      const auto* src = reinterpret_cast<const __half*>(arena_at(t));
      float* dst = outputs_[i];
      const std::int64_t count = element_count(shape(t));
      steps_.push_back({-1, [=](cudaStream_t s) { ops::launch::half_to_float_gpu(src, count, dst, s); }});
    }
  }
}

template <class T>
CudaEngine::Step CudaEngine::make_step(int index, const std::vector<std::int64_t>& constant_offsets) {
  const Operator& op = model_.operators()[static_cast<std::size_t>(index)];
  const OperatorDef* def = find_operator(op);
  if (def == nullptr) throw model_.error(op, "not run by the CUDA engine");  // infer_shapes rejects it first
  // Device address of a tensor (constant or in the arena), fixed for the engine's life.
  auto address = [&](int tensor) -> T* {
    const auto t = static_cast<std::size_t>(tensor);
    if (constant_offsets[t] >= 0) {
      return reinterpret_cast<T*>(static_cast<unsigned char*>(constants_.get()) + constant_offsets[t]);
    }
    if (plan_.offsets[t] < 0) throw model_.error(op, fmt::format("tensor {} has no data", tensor));
    return reinterpret_cast<T*>(static_cast<unsigned char*>(arena_.get()) + plan_.offsets[t]);
  };
  const OpCall<T> call = make_op_call<T>(model_, op, *def, shapes_.shapes, address);
  try {
    return {index, gpu_step<T>(*def, call, ops::GpuContext{gemm_.get()})};
  } catch (const ModelError&) {
    throw;
  } catch (const Error& e) {
    throw model_.error(op, e.what());
  }
}

std::vector<Shape> CudaEngine::input_shapes() const { return shapes_.of(model_.inputs()); }
std::vector<Shape> CudaEngine::output_shapes() const { return shapes_.of(model_.outputs()); }

std::size_t CudaEngine::device_bytes() const {
  return arena_.size() + constants_.size() + io_.size() + workspace_.size();
}

float* CudaEngine::input_device(std::size_t i) const { return inputs_.at(i); }
const float* CudaEngine::output_device(std::size_t i) const { return outputs_.at(i); }

void CudaEngine::enqueue_steps(const Stream& stream) const {
  for (const Step& step : steps_) {
    try {
      step.enqueue(stream.get());
    } catch (const ModelError&) {
      throw;
    } catch (const GpuOutOfMemory&) {
      throw;
    } catch (const GpuError& e) {  // stays a GpuError (a refused capture is told apart by it)
      if (step.op < 0) throw;
      throw GpuError(model_.error(model_.operators()[static_cast<std::size_t>(step.op)], e.what()).what());
    } catch (const Error& e) {  // a launcher rejecting its shapes
      if (step.op < 0) throw;
      throw model_.error(model_.operators()[static_cast<std::size_t>(step.op)], e.what());
    }
  }
}

void CudaEngine::run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs,
                     const Stream& stream) {
  if (inputs.size() != inputs_.size() || outputs.size() != outputs_.size()) {
    throw Error(fmt::format("{}: {} inputs and {} outputs given, the model has {} and {}", model_.source(),
                            inputs.size(), outputs.size(), inputs_.size(), outputs_.size()));
  }
  if (!stream) throw GpuError(model_.source() + ": CudaEngine::run needs a GPU stream");
  runtime_.bind_thread();
  auto bytes_of = [&](int tensor) { return static_cast<std::size_t>(element_count(shape(tensor))) * sizeof(float); };
  // A one-row 2-D copy: cudaMemcpyDefault, so the caller's buffers may be device or host memory.
  auto copy = [&](void* dst, const void* src, std::size_t bytes) {
    if (dst != src && bytes > 0) stream.copy_2d(dst, bytes, src, bytes, bytes, 1);
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) copy(inputs_[i], inputs[i], bytes_of(model_.inputs()[i]));
  // The first run enqueues the steps one by one: every kernel module and cuBLAS's kernels are
  // loaded outside a capture, and a launcher's error names its operator. Later runs capture the
  // graph once and launch it.
  // A capture CUDA refuses (GpuError) leaves the engine on eager launches, with the reason in
  // graph_error(); errors of the steps themselves (ModelError, Error) go to the caller.
  if (options_.cuda_graph && ran_ && !graph_ && graph_error_.empty()) {
    try {
      graph_ = CudaGraph::capture(stream, [&] { enqueue_steps(stream); }, "inference of " + model_.source());
    } catch (const GpuOutOfMemory&) {
      throw;
    } catch (const GpuError& e) {
      graph_error_ = e.what();
    }
  }
  if (graph_) {
    graph_.launch(stream);
  } else {
    enqueue_steps(stream);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) copy(outputs[i], outputs_[i], bytes_of(model_.outputs()[i]));
  last_run_.record(stream);
  ran_ = true;
}

std::vector<std::vector<float>> CudaEngine::run(const std::vector<std::vector<float>>& inputs) {
  HostRunBuffers b = host_run_buffers(model_, input_shapes(), output_shapes(), inputs);
  run(b.inputs, b.output_pointers, stream_);  // pageable host buffers: the copies wait for the host side
  stream_.synchronize("inference of " + model_.source());
  return std::move(b.outputs);
}

}  // namespace gp::infer
