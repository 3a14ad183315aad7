#pragma once
// Runs a Model on the CPU with the reference operators (cpu_ops.hpp) at a fixed batch size:
// shapes inferred and the activation arena planned once at construction, FLOAT16 weights
// dequantized once, then run() as often as needed. One run at a time per engine (the arena is
// shared by the runs); each operator is itself multithreaded.
#include <cstddef>
#include <vector>

#include "infer/graph_plan.hpp"
#include "infer/operator.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer {

class CpuEngine {
 public:
  // ModelError (naming the operators) when the model has operators the engine does not run or
  // cannot run at this batch size (1..64). reuse_memory = false gives every tensor its own buffer
  // (to check the planner).
  CpuEngine(Model model, int batch, bool reuse_memory = true);
  // Steps hold addresses in the engine's own buffers: moving keeps them, a copy would not.
  CpuEngine(const CpuEngine&) = delete;
  CpuEngine& operator=(const CpuEngine&) = delete;
  CpuEngine(CpuEngine&&) = default;
  CpuEngine& operator=(CpuEngine&&) = default;

  const Model& model() const { return model_; }
  int batch() const { return shapes_.batch; }
  // Shape of any tensor at this batch size.
  const Shape& shape(int tensor) const { return shapes_.shapes.at(static_cast<std::size_t>(tensor)); }
  std::vector<Shape> input_shapes() const;   // graph inputs, in the model's order
  std::vector<Shape> output_shapes() const;  // graph outputs, in the model's order
  const MemoryPlan& memory_plan() const { return plan_; }
  // Operators run per call (folded DEQUANTIZEs excluded).
  std::size_t operator_count() const { return shapes_.run_operators.size(); }

  // inputs[i] holds element_count(input_shapes()[i]) floats (NHWC, batch items one after the
  // other); returns the graph outputs likewise. gp::Error on a wrong input count or size.
  std::vector<std::vector<float>> run(const std::vector<std::vector<float>>& inputs);
  // The same with caller buffers of the sizes above.
  void run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs);

 private:
  struct Step {
    int op = 0;  // operator index
    void (*run)(const OpCall<float>&) = nullptr;
    OpCall<float> call;
  };
  const float* data(int tensor) const;
  float* mutable_data(int tensor);

  Model model_;
  GraphShapes shapes_;
  MemoryPlan plan_;
  std::vector<std::vector<float>> constants_;  // per tensor; empty unless a float constant
  std::vector<Step> steps_;
  std::vector<float> arena_;
};

}  // namespace gp::infer
