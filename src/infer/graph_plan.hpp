#pragma once
// Backend-neutral planning of a Model run at batch N: which DEQUANTIZE operators fold into
// constants, every tensor's shape at N, and an activation arena with liveness-based reuse. The
// CPU engine uses it; the CUDA engine can plan its device arena with the same functions.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/infer/op_geometry.hpp"
#include "infer/operator.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer {

inline constexpr int kMaxBatch = 64;

struct GraphShapes {
  int batch = 1;
  std::vector<Shape> shapes;  // per tensor: constants as stored, activations at batch N
  // Tensors whose values are known at load: constants and the outputs of DEQUANTIZE and DENSIFY
  // operators of them (computed once, never at run time).
  std::vector<bool> constant;
  std::vector<int> run_operators;  // operator indices that run at run time, in order

  // The shapes of `tensors` (e.g. the model's inputs or outputs), in their order.
  std::vector<Shape> of(const std::vector<int>& tensors) const {
    std::vector<Shape> out;
    for (const int t : tensors) out.push_back(shapes.at(static_cast<std::size_t>(t)));
    return out;
  }
};

// Checks the model can run (operators of the registry, engine_operators(), FLOAT32 activations, supported
// fused activations, int32 constant shape/axes/padding inputs) and computes every tensor's shape
// at batch N (1..64): graph inputs and activations have their leading dimension scaled by N.
// For N > 1 every activation must have leading dimension 1 in the model and no operator may
// reduce, concatenate, pad or reshape across it, so that batch items stay independent. Each
// computed shape is checked against the one the model declares (leading dimension scaled).
// ModelError names the operator.
GraphShapes infer_shapes(const Model& model, int batch);

// DEQUANTIZE and DENSIFY of tensors known at load are computed once, at load (infer_shapes marks
// their outputs constant and leaves them out of run_operators).
bool folds_at_load(const Operator& op);
// The float32 values of every tensor known at load: FLOAT32/FLOAT16 constants (widened), and the
// outputs of folded operators (DENSIFY expanded, then DEQUANTIZE); empty for the others.
std::vector<std::vector<float>> load_time_values(const Model& model, const GraphShapes& shapes);

// Offsets of the run-time tensors (graph inputs and outputs of run operators) in one arena.
struct MemoryPlan {
  static constexpr std::size_t kAlignment = 256;  // bytes; every offset is a multiple
  std::vector<std::int64_t> offsets;  // per tensor; -1 for tensors outside the arena
  std::vector<std::size_t> bytes;     // per tensor in the arena (unaligned size)
  std::size_t arena_bytes = 0;        // the planned peak: the arena's size
  std::size_t naive_bytes = 0;        // every arena tensor in its own (aligned) buffer
};

// With reuse, a tensor's buffer is allocated when its operator runs (graph inputs at the start)
// and released after its last consumer (graph outputs are never released; outputs nobody reads
// are released at once); an operator's outputs never share memory with its inputs. Best fit
// over the free blocks, else the arena grows. Without reuse every tensor has its own range.
MemoryPlan plan_memory(const Model& model, const GraphShapes& shapes, std::size_t element_bytes, bool reuse);

// The engines' host-vector run(): `inputs` checked against the input shapes (count and sizes;
// gp::Error naming the model), output vectors of the output shapes, and pointers to both.
struct HostRunBuffers {
  std::vector<const float*> inputs;
  std::vector<std::vector<float>> outputs;
  std::vector<float*> output_pointers;
};
HostRunBuffers host_run_buffers(const Model& model, const std::vector<Shape>& input_shapes,
                                const std::vector<Shape>& output_shapes, const std::vector<std::vector<float>>& inputs);

}  // namespace gp::infer
