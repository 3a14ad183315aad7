// .tflite models as the engines load them: Model::from_bytes (flatbuffers Verifier, then the
// graph checks), describe() of every operator, the constants widened to float, and the engines'
// planning (infer_shapes at batch 1 and 2, plan_memory with and without reuse). gp::Error
// (ModelError) is the documented outcome of a bad model; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "infer/graph_plan.hpp"
#include "infer/tflite_model.hpp"

using namespace gp::infer;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<Model> model;
  try {
    model = Model::from_bytes(std::vector<std::uint8_t>(data, data + size), "fuzz.tflite");
  } catch (const gp::Error&) {
    return 0;
  }
  (void)describe(*model, /*per_operator=*/true);
  (void)unsupported_operators(*model, engine_operators());
  for (const Tensor& tensor : model->tensors()) {
    if (!tensor.is_constant()) continue;
    try {
      (void)constant_floats(*model, tensor);
    } catch (const gp::Error&) {
    }
    try {
      (void)constant_ints(*model, tensor);
    } catch (const gp::Error&) {
    }
  }
  for (const int batch : {1, 2}) {
    try {
      const GraphShapes shapes = infer_shapes(*model, batch);
      (void)plan_memory(*model, shapes, sizeof(float), /*reuse=*/true);
      (void)plan_memory(*model, shapes, sizeof(float), /*reuse=*/false);
    } catch (const gp::Error&) {
    }
  }
  return 0;
}
