#include "infer/graph_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <type_traits>

namespace gp::infer {

namespace {

Activation fused_activation(const OperatorOptions& options) {
  return std::visit(
      [](const auto& o) {
        if constexpr (std::is_same_v<std::decay_t<decltype(o)>, std::monostate> ||
                      std::is_same_v<std::decay_t<decltype(o)>, ResizeBilinearOptions> ||
                      std::is_same_v<std::decay_t<decltype(o)>, ReshapeOptions> ||
                      std::is_same_v<std::decay_t<decltype(o)>, ReducerOptions> ||
                      std::is_same_v<std::decay_t<decltype(o)>, DepthToSpaceOptions> ||
                      std::is_same_v<std::decay_t<decltype(o)>, TransposeConvBiasOptions>) {
          return Activation::none;
        } else {
          return o.activation;
        }
      },
      options);
}

class ShapeInference {
 public:
  ShapeInference(const Model& model, int batch) : model_(model), batch_(batch) {
    out_.batch = batch;
    out_.shapes.resize(model.tensors().size());
    out_.constant.resize(model.tensors().size(), false);
    for (std::size_t t = 0; t < model.tensors().size(); ++t) {
      const Tensor& tensor = model.tensors()[t];
      out_.shapes[t] = tensor.shape;
      out_.constant[t] = tensor.is_constant();
    }
  }

  GraphShapes run() {
    if (batch_ < 1 || batch_ > kMaxBatch) {
      throw model_.error(fmt::format("batch {} is outside 1..{}", batch_, kMaxBatch));
    }
    require_supported(model_, engine_operators());
    for (const int t : model_.inputs()) {
      require_float_activation(t, "graph input");
      out_.shapes[static_cast<std::size_t>(t)] = scaled(t);
    }
    for (const Operator& op : model_.operators()) {
      try {
        infer(op);
      } catch (const ModelError&) {
        throw;
      } catch (const Error& e) {
        throw model_.error(op, e.what());
      }
    }
    return std::move(out_);
  }

 private:
  const Shape& shape(int t) const { return out_.shapes[static_cast<std::size_t>(t)]; }
  const Tensor& tensor(int t) const { return model_.tensor(t); }

  // The model's declared shape at batch N (leading dimension scaled).
  Shape scaled(int t) const {
    Shape s = tensor(t).shape;
    if (batch_ > 1) {
      if (s.empty() || s[0] != 1) {
        throw model_.error(fmt::format("tensor {} '{}' of shape {} has no leading batch dimension of 1, so the "
                                       "model cannot run at batch {}",
                                       t, tensor(t).name, shape_string(s), batch_));
      }
      s[0] = batch_;
    }
    return s;
  }

  void require_float_activation(int t, const char* role) const {
    if (tensor(t).type != TensorType::float32) {
      throw model_.error(fmt::format("{} {} '{}' is {}; the engine runs FLOAT32 activations", role, t, tensor(t).name,
                                     tensor_type_name(tensor(t).type)));
    }
  }

  void set_output(const Operator& op, const Shape& computed) {
    const int t = op.outputs.at(0);
    require_float_activation(t, "output");
    const Shape declared = scaled(t);
    if (computed != declared) {
      throw model_.error(op, fmt::format("computed output shape {}, the model declares {}{}", shape_string(computed),
                                         shape_string(tensor(t).shape),
                                         batch_ > 1 ? fmt::format(" (at batch {}: {})", batch_, shape_string(declared))
                                                    : std::string()));
    }
    out_.shapes[static_cast<std::size_t>(t)] = computed;
  }

  void infer(const Operator& op) {
    if (op.outputs.size() != 1) throw model_.error(op, fmt::format("{} outputs, expected 1", op.outputs.size()));
    if (fused_activation(op.options) == Activation::sign_bit) {
      throw model_.error(op, "fused activation SIGN_BIT is not supported");
    }
    const OperatorDef* def = find_operator(op);
    if (def == nullptr) throw model_.error(op, "not run by the engine");  // require_supported passed: unreachable
    const ShapeArgs args(model_, op, out_.shapes, batch_, &out_.constant);
    const Shape computed = def->shape(args);
    if (folds_at_load(op) && args.known_at_load(0)) {
      // A constant: folded at load, keeps the stored shape (weights have no batch dimension).
      const int t = op.outputs[0];
      if (op.is(BuiltinOp::dequantize)) {
        require_float_activation(t, "output");
      } else if (tensor(t).type != args.tensor(0).type) {  // DENSIFY keeps the type (a DEQUANTIZE may follow)
        throw Error("output type differs from the input's");
      }
      if (tensor(t).shape != computed) throw Error("output shape differs from the input's");
      out_.constant[static_cast<std::size_t>(t)] = true;
      return;
    }
    set_output(op, computed);
    for (const int t : op.inputs) {
      if (t >= 0 && !out_.constant[static_cast<std::size_t>(t)]) require_float_activation(t, "input");
    }
    out_.run_operators.push_back(op.index);
  }

  const Model& model_;
  int batch_;
  GraphShapes out_;
};

}  // namespace

GraphShapes infer_shapes(const Model& model, int batch) { return ShapeInference(model, batch).run(); }

bool folds_at_load(const Operator& op) { return op.is(BuiltinOp::dequantize) || op.is(BuiltinOp::densify); }

std::vector<std::vector<float>> load_time_values(const Model& model, const GraphShapes& shapes) {
  std::vector<std::vector<float>> values(model.tensors().size());
  for (std::size_t t = 0; t < model.tensors().size(); ++t) {
    const Tensor& tensor = model.tensors()[t];
    if (tensor.is_constant() && !tensor.is_sparse &&
        (tensor.type == TensorType::float32 || tensor.type == TensorType::float16)) {
      values[t] = constant_floats(model, tensor);
    }
  }
  // Folded operators in model order, so that a DEQUANTIZE reads the DENSIFY before it.
  for (const Operator& op : model.operators()) {
    const auto out = static_cast<std::size_t>(op.outputs.at(0));
    if (!folds_at_load(op) || !shapes.constant[out]) continue;
    const Tensor& source = model.tensor(op.inputs.at(0));
    if (op.is(BuiltinOp::densify)) {
      values[out] = densified_floats(model, source);
    } else {
      values[out] = values[static_cast<std::size_t>(op.inputs.at(0))];  // widened already
      if (values[out].empty() && element_count(source.shape) > 0) {
        throw model.error(op, "DEQUANTIZE of a constant without values");
      }
    }
  }
  return values;
}

namespace {

// Free ranges of the arena, keyed by offset, merged with their neighbours on release.
class ArenaAllocator {
 public:
  std::size_t allocate(std::size_t bytes) {
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second >= bytes && (best == free_.end() || it->second < best->second)) best = it;
    }
    if (best != free_.end()) {
      const std::size_t offset = best->first, left = best->second - bytes;
      free_.erase(best);
      if (left > 0) free_[offset + bytes] = left;
      return offset;
    }
    // Grow: start in the free block that ends the arena, if any.
    std::size_t offset = size_;
    if (!free_.empty() && free_.rbegin()->first + free_.rbegin()->second == size_) {
      offset = free_.rbegin()->first;
      free_.erase(std::prev(free_.end()));
    }
    size_ = offset + bytes;
    return offset;
  }

  void release(std::size_t offset, std::size_t bytes) {
    auto [it, inserted] = free_.emplace(offset, bytes);
    if (auto next = std::next(it); next != free_.end() && offset + bytes == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }

  std::size_t size() const { return size_; }

 private:
  std::map<std::size_t, std::size_t> free_;
  std::size_t size_ = 0;
};

std::size_t aligned(std::size_t bytes) {
  return (bytes + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
}

}  // namespace

MemoryPlan plan_memory(const Model& model, const GraphShapes& graph, std::size_t element_bytes, bool reuse) {
  const std::size_t count = model.tensors().size();
  MemoryPlan plan;
  plan.offsets.assign(count, -1);
  plan.bytes.assign(count, 0);
  // Last step (index into run_operators) reading each tensor; graph outputs live to the end.
  const int steps = static_cast<int>(graph.run_operators.size());
  std::vector<int> last_use(count, -1);
  for (int s = 0; s < steps; ++s) {
    for (const int t : model.operators()[static_cast<std::size_t>(graph.run_operators[s])].inputs) {
      if (t >= 0) last_use[static_cast<std::size_t>(t)] = s;
    }
  }
  for (const int t : model.outputs()) last_use[static_cast<std::size_t>(t)] = steps;

  ArenaAllocator arena;
  auto place = [&](int t) {
    const auto i = static_cast<std::size_t>(t);
    if (plan.offsets[i] >= 0 || graph.constant[i]) return;
    plan.bytes[i] = static_cast<std::size_t>(element_count(graph.shapes[i])) * element_bytes;
    plan.naive_bytes += aligned(plan.bytes[i]);
    plan.offsets[i] = static_cast<std::int64_t>(arena.allocate(aligned(plan.bytes[i])));
  };
  auto release_if_done = [&](int t, int step) {
    const auto i = static_cast<std::size_t>(t);
    if (reuse && plan.offsets[i] >= 0 && last_use[i] <= step) {
      arena.release(static_cast<std::size_t>(plan.offsets[i]), aligned(plan.bytes[i]));
      last_use[i] = steps + 1;  // released once
    }
  };
  for (const int t : model.inputs()) place(t);
  for (const int t : model.inputs()) release_if_done(t, -1);  // an input nothing reads
  for (int s = 0; s < steps; ++s) {
    const Operator& op = model.operators()[static_cast<std::size_t>(graph.run_operators[s])];
    for (const int t : op.outputs) place(t);
    for (const int t : op.inputs) {
      if (t >= 0) release_if_done(t, s);
    }
    for (const int t : op.outputs) release_if_done(t, s);
  }
  plan.arena_bytes = arena.size();
  return plan;
}

HostRunBuffers host_run_buffers(const Model& model, const std::vector<Shape>& input_shapes,
                                const std::vector<Shape>& output_shapes, const std::vector<std::vector<float>>& inputs) {
  if (inputs.size() != input_shapes.size()) {
    throw Error(fmt::format("{}: {} inputs given, the model has {}", model.source(), inputs.size(), input_shapes.size()));
  }
  HostRunBuffers b;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (static_cast<std::int64_t>(inputs[i].size()) != element_count(input_shapes[i])) {
      throw Error(fmt::format("{}: input {} has {} values, expected {} ({})", model.source(), i, inputs[i].size(),
                              element_count(input_shapes[i]), shape_string(input_shapes[i])));
    }
    b.inputs.push_back(inputs[i].data());
  }
  for (const Shape& s : output_shapes) b.outputs.emplace_back(static_cast<std::size_t>(element_count(s)));
  for (auto& o : b.outputs) b.output_pointers.push_back(o.data());
  return b;
}

}  // namespace gp::infer
