#pragma once
// A verified TFLite model as a plain C++ graph description: tensors (shape, type, constant data)
// and operators in execution order with their parsed options. Reading checks the flatbuffer
// structure (flatbuffers::Verifier over the schema subset in tflite_schema.fbs) and then the
// graph (indices, data sizes, known operator codes, data flow), so a corrupt file gives a
// ModelError naming the file and, where it applies, the operator; nothing is read out of bounds.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "cuda/infer/op_geometry.hpp"  // Shape, the operators' options, shape_string
#include "infer/tflite_ops.hpp"

namespace gp::infer {

// A model that cannot be read or run: "<file>: [operator N (NAME): ]what".
class ModelError : public Error {
 public:
  ModelError(std::string file, const std::string& what)
      : Error(file + ": " + what), file_(std::move(file)) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// TFLite's TensorType numbering.
enum class TensorType : std::int8_t {
  float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, string = 5, boolean = 6, int16 = 7,
  complex64 = 8, int8 = 9, float64 = 10, complex128 = 11, uint64 = 12, resource = 13,
  variant = 14, uint32 = 15, uint16 = 16, int4 = 17,
};
const char* tensor_type_name(TensorType type);  // "FLOAT32"
// Bytes per element; 0 for types without a fixed size (string, resource, variant, int4).
std::size_t element_size(TensorType type);

// f = scale * (q - zero_point); one entry per tensor, or one per index of quantized_dimension.
struct Quantization {
  std::vector<float> scale;
  std::vector<std::int64_t> zero_point;
  int quantized_dimension = 0;
};

// A sparse constant's layout (TFLite's SparsityParameters): levels in traversal order, first the
// tensor's dimensions (permuted by traversal_order), then block dimensions (block_map[k]: the
// dimension block k subdivides); each level dense (dense_size values) or compressed (CSR:
// segments per parent position, indices within the level).
struct Sparsity {
  struct Level {
    bool compressed = false;
    int dense_size = 0;
    std::vector<int> segments, indices;
  };
  std::vector<int> traversal_order, block_map;
  std::vector<Level> levels;
};

struct Tensor {
  std::string name;
  std::vector<int> shape;
  TensorType type = TensorType::float32;
  std::optional<Quantization> quantization;  // only when the file gives scales
  // Constant data inside the Model's bytes (little-endian, aligned to the element size); null
  // for activations and graph inputs.
  const std::uint8_t* data = nullptr;
  std::size_t data_bytes = 0;
  bool is_variable = false;
  bool is_sparse = false;  // data holds TFLite's compressed sparse form (DENSIFY expands it)
  Sparsity sparsity;       // when is_sparse

  bool is_constant() const { return data != nullptr; }
  std::int64_t element_count() const;  // product of the shape (1 for a scalar)
};

using OperatorOptions =
    std::variant<std::monostate, Conv2DOptions, DepthwiseConv2DOptions, Pool2DOptions,
                 ActivationOptions, ConcatenationOptions, ResizeBilinearOptions, ReshapeOptions,
                 ReducerOptions, DepthToSpaceOptions, TransposeConvBiasOptions>;

struct Operator {
  int index = 0;                 // position in execution order
  std::int32_t builtin_code = 0;  // BuiltinOp numbering; BuiltinOp::custom for custom operators
  std::string custom_code;       // custom operators only ("Convolution2DTransposeBias")
  int version = 1;
  std::vector<int> inputs;   // tensor indices; -1 marks an omitted optional input
  std::vector<int> outputs;  // tensor indices
  OperatorOptions options;
  std::vector<std::uint8_t> custom_options;  // raw bytes of a custom operator's options

  bool is(BuiltinOp op) const { return builtin_code == static_cast<std::int32_t>(op); }
  bool is_custom() const { return is(BuiltinOp::custom); }
  // "CONV_2D", the custom code for custom operators, "BUILTIN_<n>" for an unnamed code.
  std::string name() const;
};

class Model {
 public:
  // Reads and verifies a .tflite file (ModelError on any problem).
  static Model load(const std::filesystem::path& path);
  // Verifies model bytes held in memory; source names them in errors.
  static Model from_bytes(std::vector<std::uint8_t> bytes, std::string source);

  const std::string& source() const { return source_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }
  const std::vector<Operator>& operators() const { return operators_; }
  const std::vector<int>& inputs() const { return inputs_; }    // graph input tensor indices
  const std::vector<int>& outputs() const { return outputs_; }  // graph output tensor indices
  const Tensor& tensor(int index) const { return tensors_.at(static_cast<std::size_t>(index)); }

  std::uint32_t schema_version() const { return schema_version_; }
  const std::string& description() const { return description_; }
  // The "min_runtime_version" metadata string converters write ("1.5.0"); empty when absent.
  const std::string& min_runtime_version() const { return min_runtime_version_; }
  const std::vector<std::uint8_t>& bytes() const { return *bytes_; }

  // "<source>: operator N (NAME): what" for errors found after loading (e.g. by the engine).
  ModelError error(const Operator& op, const std::string& what) const;
  ModelError error(const std::string& what) const { return ModelError(source_, what); }

 private:
  Model() = default;
  // Shared so that copies of a Model keep the tensors' data pointers valid.
  std::shared_ptr<const std::vector<std::uint8_t>> bytes_;
  std::string source_;
  std::vector<Tensor> tensors_;
  std::vector<Operator> operators_;
  std::vector<int> inputs_, outputs_;
  std::uint32_t schema_version_ = 0;
  std::string description_;
  std::string min_runtime_version_;

  friend class ModelReader;
};

// Operator names as Operator::name() gives them: builtin names and custom codes.
using OperatorNameSet = std::set<std::string>;

struct UnsupportedOperator {
  std::string name;
  int first_index = 0;  // first operator of that kind in execution order
  int count = 0;
};
// The operator kinds of the model that are not in `supported`, in order of first appearance.
std::vector<UnsupportedOperator> unsupported_operators(const Model& model,
                                                       const OperatorNameSet& supported);
// Throws a ModelError listing every unsupported operator kind ("operator 3 (DENSIFY), ...").
void require_supported(const Model& model, const OperatorNameSet& supported);
// The distinct operator names of the model.
OperatorNameSet operator_names(const Model& model);

// Constant data widened to float (FLOAT32 copied, FLOAT16 converted); ModelError otherwise.
std::vector<float> constant_floats(const Model& model, const Tensor& tensor);
// A sparse FLOAT32 or FLOAT16 constant expanded to its dense shape as float32 (TFLite's
// FormatConverter::SparseToDense: unstored values are 0). ModelError when the layout does not
// address the shape or the stored values.
std::vector<float> densified_floats(const Model& model, const Tensor& tensor);
// Constant INT32 data (shapes, paddings, axes); ModelError otherwise.
std::vector<std::int32_t> constant_ints(const Model& model, const Tensor& tensor);

// "1x256x256x3" ("scalar" for rank 0).
// A readable summary: source, description, inputs/outputs with shapes and types, operator
// counts; with per_operator, one line per operator (inputs, outputs, options).
std::string describe(const Model& model, bool per_operator = false);

}  // namespace gp::infer
