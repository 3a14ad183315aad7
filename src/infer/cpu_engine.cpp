#include "infer/cpu_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "infer/cpu_ops.hpp"

namespace gp::infer {

CpuEngine::CpuEngine(Model model, int batch, bool reuse_memory)
    : model_(std::move(model)), shapes_(infer_shapes(model_, batch)) {
  plan_ = plan_memory(model_, shapes_, sizeof(float), reuse_memory);
  arena_.resize(plan_.arena_bytes / sizeof(float));

  // Float constants widened once; DEQUANTIZE of a constant folded into its output.
  constants_.resize(model_.tensors().size());
  for (std::size_t t = 0; t < model_.tensors().size(); ++t) {
    const Tensor& tensor = model_.tensors()[t];
    if (tensor.is_constant() && (tensor.type == TensorType::float32 || tensor.type == TensorType::float16)) {
      constants_[t] = constant_floats(model_, tensor);
    }
  }
  for (const Operator& op : model_.operators()) {
    const auto out = static_cast<std::size_t>(op.outputs.at(0));
    if (op.is(BuiltinOp::dequantize) && shapes_.constant[out]) {
      constants_[out] = constant_floats(model_, model_.tensor(op.inputs.at(0)));
    }
  }

  for (const int index : shapes_.run_operators) {
    Step step;
    step.op = index;
    const Operator& op = model_.operators()[static_cast<std::size_t>(index)];
    if (op.is(BuiltinOp::pad) || op.is(BuiltinOp::mean) || op.is(BuiltinOp::resize_bilinear)) {
      step.ints = constant_int_input(model_, op, 1);
    }
    steps_.push_back(std::move(step));
  }
}

std::vector<Shape> CpuEngine::input_shapes() const {
  std::vector<Shape> out;
  for (const int t : model_.inputs()) out.push_back(shape(t));
  return out;
}

std::vector<Shape> CpuEngine::output_shapes() const {
  std::vector<Shape> out;
  for (const int t : model_.outputs()) out.push_back(shape(t));
  return out;
}

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
      execute(step);
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

void CpuEngine::execute(const Step& step) {
  const Operator& op = model_.operators()[static_cast<std::size_t>(step.op)];
  auto in = [&](std::size_t i) { return data(op.inputs.at(i)); };
  auto in_shape = [&](std::size_t i) -> const Shape& { return shape(op.inputs.at(i)); };
  auto nhwc = [&](std::size_t i) { return Nhwc::of(in_shape(i)); };
  // Optional bias: an omitted input (-1) means none.
  auto bias = [&](std::size_t i) { return op.inputs.size() > i && op.inputs[i] >= 0 ? data(op.inputs[i]) : nullptr; };
  const int out_tensor = op.outputs.at(0);
  float* out = mutable_data(out_tensor);
  const std::int64_t count = element_count(shape(out_tensor));

  if (op.is_custom()) {
    cpu::transpose_conv_bias(in(0), nhwc(0), in(1), nhwc(1), in(2), std::get<TransposeConvBiasOptions>(op.options),
                             out);
    return;
  }
  switch (static_cast<BuiltinOp>(op.builtin_code)) {
    case BuiltinOp::conv_2d:
      cpu::conv2d(in(0), nhwc(0), in(1), nhwc(1), bias(2), std::get<Conv2DOptions>(op.options), out);
      break;
    case BuiltinOp::depthwise_conv_2d:
      cpu::depthwise_conv2d(in(0), nhwc(0), in(1), nhwc(1), bias(2), std::get<DepthwiseConv2DOptions>(op.options),
                            out);
      break;
    case BuiltinOp::average_pool_2d:
      cpu::average_pool2d(in(0), nhwc(0), std::get<Pool2DOptions>(op.options), out);
      break;
    case BuiltinOp::max_pool_2d: cpu::max_pool2d(in(0), nhwc(0), std::get<Pool2DOptions>(op.options), out); break;
    case BuiltinOp::add:
      cpu::add(in(0), in_shape(0), in(1), in_shape(1), std::get<ActivationOptions>(op.options).activation, out);
      break;
    case BuiltinOp::mul:
      cpu::mul(in(0), in_shape(0), in(1), in_shape(1), std::get<ActivationOptions>(op.options).activation, out);
      break;
    case BuiltinOp::prelu: cpu::prelu(in(0), in_shape(0), in(1), in_shape(1), out); break;
    case BuiltinOp::relu: cpu::relu(in(0), count, out); break;
    case BuiltinOp::relu6: cpu::relu6(in(0), count, out); break;
    case BuiltinOp::hard_swish: cpu::hard_swish(in(0), count, out); break;
    case BuiltinOp::logistic: cpu::logistic(in(0), count, out); break;
    case BuiltinOp::dequantize:  // of a FLOAT32 activation (constants were folded)
    case BuiltinOp::reshape: cpu::copy(in(0), count, out); break;
    case BuiltinOp::mean: cpu::mean(in(0), in_shape(0), step.ints, out); break;
    case BuiltinOp::pad: cpu::pad(in(0), in_shape(0), step.ints, out); break;
    case BuiltinOp::resize_bilinear:
      cpu::resize_bilinear(in(0), nhwc(0), step.ints[0], step.ints[1], std::get<ResizeBilinearOptions>(op.options),
                           out);
      break;
    case BuiltinOp::concatenation: {
      const auto& o = std::get<ConcatenationOptions>(op.options);
      std::vector<const float*> sources;
      std::vector<Shape> shapes;
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        sources.push_back(in(i));
        shapes.push_back(in_shape(i));
      }
      cpu::concatenation(sources, shapes, o.axis, o.activation, out);
      break;
    }
    default: throw model_.error(op, "not run by the CPU engine");  // infer_shapes rejects these first
  }
}

}  // namespace gp::infer
