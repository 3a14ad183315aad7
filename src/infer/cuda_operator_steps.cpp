#include "infer/cuda_operator_steps.hpp"

#include <map>
#include <string>

#include "infer/ops/operator_list.hpp"

namespace gp::infer {

namespace {

template <class T>
using StepFactory = ops::GpuEnqueue (*)(const OpCall<T>&, const ops::GpuContext&);

template <class T, class... Operators>
std::map<std::string, StepFactory<T>, std::less<>> factories(ops::OperatorList<Operators...>) {
  return {{std::string(Operators::name()), &Operators::template gpu<T>}...};
}

}  // namespace

template <class T>
ops::GpuEnqueue gpu_step(const OperatorDef& def, const OpCall<T>& call, const ops::GpuContext& context) {
  static const auto by_name = factories<T>(ops::AllOperators{});
  const auto it = by_name.find(def.name);
  if (it == by_name.end()) throw Error(std::string(def.name) + " has no CUDA step");
  return it->second(call, context);
}

template ops::GpuEnqueue gpu_step<float>(const OperatorDef&, const OpCall<float>&, const ops::GpuContext&);
template ops::GpuEnqueue gpu_step<__half>(const OperatorDef&, const OpCall<__half>&, const ops::GpuContext&);

}  // namespace gp::infer
