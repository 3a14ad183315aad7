#include "core/cuda_graph.hpp"

#include <string>
#include <utility>

#include "cuda/common/cuda_check.hpp"

namespace gp {

// ---- CUDA graph -----------------------------------------------------------------------------

CudaGraph::~CudaGraph() { reset(); }

CudaGraph::CudaGraph(CudaGraph&& o) noexcept { *this = std::move(o); }

CudaGraph& CudaGraph::operator=(CudaGraph&& o) noexcept {
  if (this != &o) {
    reset();
    graph_ = o.graph_;
    exec_ = o.exec_;
    nodes_ = o.nodes_;
    what_ = std::move(o.what_);
    o.graph_ = nullptr;
    o.exec_ = nullptr;
    o.nodes_ = 0;
  }
  return *this;
}

void CudaGraph::reset() noexcept {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
  nodes_ = 0;
}

CudaGraph CudaGraph::capture(const Stream& stream, const std::function<void()>& enqueue, const std::string& what) {
  if (!stream) throw GpuError("CUDA graph capture of " + what + " needs a GPU stream");
  GP_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), "begin capture of " + what);
  CudaGraph out;
  out.what_ = what;
  try {
    enqueue();
  } catch (...) {
    // End the capture so the stream is usable again; the partial graph is discarded.
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream.get(), &partial);
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();  // an invalidated capture leaves its error behind
    throw;
  }
  // A failed capture (an unsupported call invalidates it) leaves its error as the last error;
  // cleared here so that the caller's next launch check does not report it again.
  auto check = [&](cudaError_t err, const char* call, const std::string& context) {
    if (err == cudaSuccess) return;
    cudaGetLastError();
    throw_cuda_error(err, call, __FILE__, __LINE__, context);
  };
  check(cudaStreamEndCapture(stream.get(), &out.graph_), "cudaStreamEndCapture", "end capture of " + what);
  check(cudaGraphGetNodes(out.graph_, nullptr, &out.nodes_), "cudaGraphGetNodes", "count nodes of " + what);
  check(cudaGraphInstantiate(&out.exec_, out.graph_, 0), "cudaGraphInstantiate", "instantiate graph of " + what);
  return out;
}

void CudaGraph::launch(const Stream& stream) const {
  if (!exec_) throw GpuError("launch of an empty CUDA graph");
  GP_CUDA_CHECK(cudaGraphLaunch(exec_, stream.get()), "launch graph of " + what_);
}

}  // namespace gp
