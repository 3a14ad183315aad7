#pragma once
// One model's CUDA engines at batch sizes 1, 2, 4, ... and the largest: a run takes the smallest
// that fits, so a step with a few items pays for at most twice their work, not for the largest
// batch (an engine runs its whole batch every time). track-faces (detector, face mesh) and
// segment-body (BlazePose) use it.
#include <algorithm>
#include <memory>
#include <vector>

#include "infer/cuda_engine.hpp"

namespace gp::infer {

class EngineLadder {
 public:
  EngineLadder() = default;
  EngineLadder(Runtime& rt, const Model& model, int largest, const CudaEngineOptions& options) {
    for (int batch = 1;; batch = std::min(largest, batch * 2)) {
      engines_.push_back(std::make_unique<CudaEngine>(rt, model, batch, options));
      if (batch == largest) break;
    }
  }
  explicit operator bool() const { return !engines_.empty(); }
  CudaEngine& largest() const { return *engines_.back(); }
  CudaEngine& fitting(int items) const {
    for (const auto& e : engines_)
      if (e->batch() >= items) return *e;
    return largest();
  }
  const std::vector<std::unique_ptr<CudaEngine>>& all() const { return engines_; }

 private:
  std::vector<std::unique_ptr<CudaEngine>> engines_;
};

// The engine's own output buffers, in the model's order (run() then copies nothing).
inline std::vector<float*> output_pointers(const CudaEngine& e) {
  std::vector<float*> outs;
  for (std::size_t i = 0; i < e.output_shapes().size(); ++i) outs.push_back(const_cast<float*>(e.output_device(i)));
  return outs;
}

}  // namespace gp::infer
