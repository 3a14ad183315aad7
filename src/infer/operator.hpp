#pragma once
// The registry of the operators the engines run. An operator is one header under infer/ops/ with
// its shape rule, its CPU binding (to the reference in cpu_ops.hpp) and its CUDA binding (to the
// launchers in cuda/infer/ops.hpp, for float and __half storage), listed once in
// ops/operator_list.hpp. Shape planning (graph_plan) and the CPU engine look operators up here;
// the CUDA engine builds its steps from the same list (cuda_operator_steps.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "cuda/infer/op_geometry.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer {

// What a shape rule sees of the graph being planned: the operator, its inputs' shapes at the
// planned batch and as the model declares them, and its constant int inputs. Errors are
// gp::Error (the planner adds the model and the operator).
class ShapeArgs {
 public:
  // constant: per tensor, whether its values are known at load (model constants and the outputs
  // of folded operators); null when the caller does not track it (then: model constants).
  ShapeArgs(const Model& model, const Operator& op, const std::vector<Shape>& shapes, int batch,
            const std::vector<bool>* constant = nullptr)
      : model_(model), op_(op), shapes_(shapes), batch_(batch), constant_(constant) {}

  const Operator& op() const { return op_; }
  std::size_t input_count() const { return op_.inputs.size(); }
  int input_tensor(std::size_t i) const;            // ModelError when missing
  const Shape& shape(std::size_t i) const;           // at the planned batch
  Nhwc nhwc(std::size_t i) const { return Nhwc::of(shape(i)); }
  const Tensor& tensor(std::size_t i) const { return model_.tensor(input_tensor(i)); }  // as declared
  std::vector<int> ints(std::size_t i) const;        // a constant INT32 input (ModelError otherwise)
  bool known_at_load(std::size_t i) const;           // input i's values are known before any run
  int batch() const { return batch_; }
  template <class O>
  const O& options() const {
    return std::get<O>(op_.options);
  }
  // Rejects an operator that mixes batch items (reduces, pads, joins or folds along dimension 0)
  // when the batch is over 1, so that batch items stay independent.
  void no_batch_axis(bool touches_batch, const char* what) const;

 private:
  const Model& model_;
  const Operator& op_;
  const std::vector<Shape>& shapes_;
  int batch_;
  const std::vector<bool>* constant_;
};

// One operator's step as an engine runs it: tensors at fixed addresses in the engine's element
// type (float, or __half in the FP16 CUDA engine), shapes at the engine's batch, the operator's
// options and, for operators that read one, the constant int input 1.
template <class T>
struct OpCall {
  const Operator* op = nullptr;
  std::vector<const T*> inputs;  // per operator input; null for an omitted one and INT32 constants
  std::vector<Shape> input_shapes;  // empty for an omitted one
  T* output = nullptr;
  Shape output_shape;
  std::vector<int> ints;  // PAD paddings, MEAN axes, RESIZE_BILINEAR size

  const T* in(std::size_t i) const { return inputs.at(i); }
  const T* optional(std::size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  const Shape& shape(std::size_t i) const { return input_shapes.at(i); }
  Nhwc nhwc(std::size_t i) const { return Nhwc::of(input_shapes.at(i)); }
  std::int64_t count() const { return element_count(output_shape); }
  template <class O>
  const O& options() const {
    return std::get<O>(op->options);
  }
};

// The host side of a registered operator.
struct OperatorDef {
  std::string_view name;  // TFLite's builtin name ("CONV_2D") or the custom code
  bool reads_ints = false;  // input 1 is a constant INT32 vector that its steps read (OpCall::ints)
  Shape (*shape)(const ShapeArgs&) = nullptr;  // the output's shape
  void (*cpu)(const OpCall<float>&) = nullptr;  // runs the CPU reference
};

// Every registered operator, in the order of ops/operator_list.hpp.
const std::vector<OperatorDef>& registered_operators();
// The operator's registration, or null when none has its name.
const OperatorDef* find_operator(const Operator& op);
// The names of the registered operators (what require_supported checks models against).
const OperatorNameSet& engine_operators();

// An engine's call of `op`: the addresses of the operator's inputs (address(t) for a tensor
// index; null for an omitted input or an INT32 one) and output, the shapes of `shapes`, and ints when the
// operator reads them.
template <class T, class Address>
OpCall<T> make_op_call(const Model& model, const Operator& op, const OperatorDef& def,
                       const std::vector<Shape>& shapes, Address address) {
  OpCall<T> call;
  call.op = &op;
  for (const int t : op.inputs) {
    // INT32 inputs (sizes, axes, shapes) are constants read at planning, without device copies.
    const bool data = t >= 0 && model.tensor(t).type != TensorType::int32;
    call.inputs.push_back(data ? address(t) : nullptr);
    call.input_shapes.push_back(t >= 0 ? shapes.at(static_cast<std::size_t>(t)) : Shape{});
  }
  const int out = op.outputs.at(0);
  call.output = address(out);
  call.output_shape = shapes.at(static_cast<std::size_t>(out));
  if (def.reads_ints) call.ints = ShapeArgs(model, op, shapes, 1).ints(1);
  return call;
}

}  // namespace gp::infer
