// The host side of the operator registry: every operator's name, shape rule and CPU binding
// from ops/operator_list.hpp (the GPU bindings are taken from the same list by the CUDA engine).
#include <fmt/format.h>

#include <map>

#include "infer/operator.hpp"
#include "infer/ops/operator_list.hpp"

namespace gp::infer {

int ShapeArgs::input_tensor(std::size_t i) const {
  if (i >= op_.inputs.size() || op_.inputs[i] < 0) throw model_.error(op_, fmt::format("input {} is missing", i));
  return op_.inputs[i];
}

const Shape& ShapeArgs::shape(std::size_t i) const { return shapes_.at(static_cast<std::size_t>(input_tensor(i))); }

std::vector<int> ShapeArgs::ints(std::size_t i) const {
  const Tensor& t = tensor(i);
  if (!t.is_constant() || t.type != TensorType::int32) {
    throw model_.error(op_, fmt::format("input {} '{}' must be a constant INT32 tensor", i, t.name));
  }
  const auto values = constant_ints(model_, t);
  return {values.begin(), values.end()};
}

bool ShapeArgs::known_at_load(std::size_t i) const {
  const int t = input_tensor(i);
  return constant_ ? bool(constant_->at(static_cast<std::size_t>(t))) : model_.tensor(t).is_constant();
}

void ShapeArgs::no_batch_axis(bool touches_batch, const char* what) const {
  if (batch_ > 1 && touches_batch) {
    throw Error(fmt::format("{} the batch dimension, so the model cannot run at batch {}", what, batch_));
  }
}

namespace {

template <class... Operators>
std::vector<OperatorDef> definitions(ops::OperatorList<Operators...>) {
  return {OperatorDef{Operators::name(), Operators::reads_ints, &Operators::shape, &Operators::cpu}...};
}

}  // namespace

const std::vector<OperatorDef>& registered_operators() {
  static const std::vector<OperatorDef> all = definitions(ops::AllOperators{});
  return all;
}

const OperatorDef* find_operator(const Operator& op) {
  static const std::map<std::string, const OperatorDef*, std::less<>> by_name = [] {
    std::map<std::string, const OperatorDef*, std::less<>> out;
    for (const OperatorDef& def : registered_operators()) out.emplace(std::string(def.name), &def);
    return out;
  }();
  const auto it = by_name.find(op.name());
  return it == by_name.end() ? nullptr : it->second;
}

const OperatorNameSet& engine_operators() {
  static const OperatorNameSet names = [] {
    OperatorNameSet out;
    for (const OperatorDef& def : registered_operators()) out.insert(std::string(def.name));
    return out;
  }();
  return names;
}

}  // namespace gp::infer
