#pragma once
// CUDA graphs captured from a Stream's work (CudaGraph).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>

#include "core/gpu_stream.hpp"

namespace gp {

// A CUDA graph captured from the work one Stream enqueues, instantiated once and launched as often
// as needed (on any stream of the same device): kernel launch overhead then costs one launch per
// call instead of one per kernel. The captured work keeps the pointers it was recorded with, so
// whatever it reads and writes must stay where it was. Capture uses the thread-local mode, so
// other threads may allocate while one thread captures. Errors are GpuError with context.
class CudaGraph {
 public:
  CudaGraph() = default;  // empty: nothing to launch
  ~CudaGraph();
  CudaGraph(CudaGraph&& o) noexcept;
  CudaGraph& operator=(CudaGraph&& o) noexcept;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Runs `enqueue` with `stream` in capture mode (it must only enqueue work on that stream:
  // kernel launches, async copies, no synchronisation), then instantiates the graph. If enqueue
  // throws, the capture is ended and discarded and the exception goes on; a capture CUDA
  // invalidated or cannot instantiate throws GpuError. `stream` is usable again either way.
  static CudaGraph capture(const Stream& stream, const std::function<void()>& enqueue, const std::string& what);

  // Enqueues the whole graph on `stream`.
  void launch(const Stream& stream) const;
  explicit operator bool() const { return exec_ != nullptr; }
  std::size_t node_count() const { return nodes_; }

 private:
  void reset() noexcept;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t nodes_ = 0;
  std::string what_;
};

}  // namespace gp
