#include "infer/cpu_engine.hpp"

#include <fmt/format.h>

#include "infer/cpu_ops.hpp"
#include "infer/operator.hpp"

namespace gp::infer {

CpuEngine::CpuEngine(Model model, int batch, bool reuse_memory)
    : model_(std::move(model)), shapes_(infer_shapes(model_, batch)) {
  plan_ = plan_memory(model_, shapes_, sizeof(float), reuse_memory);
  arena_.resize(plan_.arena_bytes / sizeof(float));

  // Float constants widened once; DENSIFY and DEQUANTIZE of constants folded into their outputs.
  constants_ = load_time_values(model_, shapes_);

  // Each operator's call, at the fixed addresses of the constants and the arena.
  for (const int index : shapes_.run_operators) {
    const Operator& op = model_.operators()[static_cast<std::size_t>(index)];
    const OperatorDef* def = find_operator(op);
    if (def == nullptr) throw model_.error(op, "not run by the CPU engine");  // infer_shapes rejects it first
    steps_.push_back({index, def->cpu,
                      make_op_call<float>(model_, op, *def, shapes_.shapes, [&](int t) { return mutable_data(t); })});
  }
}

std::vector<Shape> CpuEngine::input_shapes() const { return shapes_.of(model_.inputs()); }
std::vector<Shape> CpuEngine::output_shapes() const { return shapes_.of(model_.outputs()); }

const float* CpuEngine::data(int tensor) const {
  const auto t = static_cast<std::size_t>(tensor);
  if (!constants_[t].empty()) return constants_[t].data();
  if (plan_.offsets[t] < 0) throw model_.error(fmt::format("tensor {} has no data", tensor));
  return arena_.data() + plan_.offsets[t] / static_cast<std::int64_t>(sizeof(float));
}

float* CpuEngine::mutable_data(int tensor) { return const_cast<float*>(data(tensor)); }

std::vector<std::vector<float>> CpuEngine::run(const std::vector<std::vector<float>>& inputs) {
  HostRunBuffers b = host_run_buffers(model_, input_shapes(), output_shapes(), inputs);
  run(b.inputs, b.output_pointers);
  return std::move(b.outputs);
}

void CpuEngine::run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) {
  if (inputs.size() != model_.inputs().size() || outputs.size() != model_.outputs().size()) {
    throw Error(fmt::format("{}: {} inputs and {} outputs given, the model has {} and {}", model_.source(),
                            inputs.size(), outputs.size(), model_.inputs().size(), model_.outputs().size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const int t = model_.inputs()[i];
    cpu::copy(inputs[i], element_count(shape(t)), mutable_data(t));
  }
  for (const Step& step : steps_) {
    try {
      step.run(step.call);
    } catch (const ModelError&) {
      throw;
    } catch (const Error& e) {
      throw model_.error(model_.operators()[static_cast<std::size_t>(step.op)], e.what());
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const int t = model_.outputs()[i];
    cpu::copy(data(t), element_count(shape(t)), outputs[i]);
  }
}

}  // namespace gp::infer
