#include "infer/tflite_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>

#include "gpuproc/infer/tflite_schema_generated.h"
#include "cuda/common/half.hpp"

namespace gp::infer {
namespace {

namespace tfl = gp::infer::tfl;

constexpr std::uint32_t kSchemaVersion = 3;  // the only version TFLite itself accepts
constexpr std::size_t kMaxRank = 8;
constexpr std::int64_t kMaxElements = std::numeric_limits<std::int32_t>::max();
// Tensor data must be addressable with its element type; flatbuffers aligns buffers to 16 from
// the start of the file, so the bytes live in a 16-aligned allocation.
static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16);

// How many inputs an operator the engine knows takes: the first `required` must be given
// (not -1), up to `max_inputs` in all; exactly `outputs` outputs. max_inputs < 0: unbounded.
struct Arity {
  int required, max_inputs, outputs;
};

std::optional<Arity> arity_of(const Operator& op) {
  if (op.is_custom()) {
    if (op.custom_code == kConvolution2DTransposeBias) return Arity{3, 3, 1};
    return std::nullopt;
  }
  switch (static_cast<BuiltinOp>(op.builtin_code)) {
    case BuiltinOp::conv_2d:
    case BuiltinOp::depthwise_conv_2d: return Arity{2, 3, 1};  // bias optional
    case BuiltinOp::average_pool_2d:
    case BuiltinOp::max_pool_2d:
    case BuiltinOp::dequantize:
    case BuiltinOp::logistic:
    case BuiltinOp::relu:
    case BuiltinOp::relu6:
    case BuiltinOp::hard_swish:
    case BuiltinOp::densify: return Arity{1, 1, 1};
    case BuiltinOp::add:
    case BuiltinOp::sub:
    case BuiltinOp::mul:
    case BuiltinOp::prelu:
    case BuiltinOp::resize_bilinear:
    case BuiltinOp::pad:
    case BuiltinOp::mean: return Arity{2, 2, 1};
    case BuiltinOp::padv2: return Arity{2, 3, 1};
    case BuiltinOp::reshape: return Arity{1, 2, 1};  // shape from options or the 2nd input
    case BuiltinOp::concatenation: return Arity{1, -1, 1};
    default: return std::nullopt;
  }
}

std::string label(const std::string& name) { return name.empty() ? "(unnamed)" : "'" + name + "'"; }

}  // namespace

// Reads and checks a whole model (Model's friend, so it fills the Model's members directly).
class ModelReader {
 public:
  ModelReader(std::shared_ptr<const std::vector<std::uint8_t>> bytes, std::string source)
      : bytes_(std::move(bytes)), source_(std::move(source)) {}

  Model read() {
    const tfl::Model* fb = verify_structure();
    Model model;
    model.bytes_ = bytes_;
    model.source_ = source_;
    model.schema_version_ = fb->version();
    if (model.schema_version_ != kSchemaVersion) {
      fail(fmt::format("schema version {}, expected {}", model.schema_version_, kSchemaVersion));
    }
    if (fb->description()) model.description_ = fb->description()->str();

    const auto* subgraphs = fb->subgraphs();
    if (!subgraphs || subgraphs->size() == 0) fail("no subgraph");
    if (subgraphs->size() != 1) {
      fail(fmt::format("{} subgraphs; only single-graph models are supported", subgraphs->size()));
    }
    const tfl::SubGraph* graph = subgraphs->Get(0);
    buffers_ = fb->buffers();

    const auto* tensors = graph->tensors();
    const std::size_t tensor_count = tensors ? tensors->size() : 0;
    model.tensors_.reserve(tensor_count);
    for (std::size_t i = 0; i < tensor_count; ++i) {
      model.tensors_.push_back(read_tensor(static_cast<int>(i), tensors->Get(static_cast<flatbuffers::uoffset_t>(i))));
    }
    model.inputs_ = graph_indices(graph->inputs(), "input", tensor_count);
    model.outputs_ = graph_indices(graph->outputs(), "output", tensor_count);

    const auto* codes = fb->operator_codes();
    const auto* operators = graph->operators();
    const std::size_t op_count = operators ? operators->size() : 0;
    model.operators_.reserve(op_count);
    for (std::size_t i = 0; i < op_count; ++i) {
      model.operators_.push_back(
          read_operator(static_cast<int>(i), operators->Get(static_cast<flatbuffers::uoffset_t>(i)), codes, tensor_count));
    }
    check_data_flow(model);
    model.min_runtime_version_ = read_min_runtime_version(fb);
    return model;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw ModelError(source_, what); }
  [[noreturn]] void fail(const Operator& op, const std::string& what) const {
    throw ModelError(source_, fmt::format("operator {} ({}): {}", op.index, op.name(), what));
  }

  const tfl::Model* verify_structure() const {
    const std::vector<std::uint8_t>& bytes = *bytes_;
    if (bytes.size() < 8) fail(fmt::format("{} bytes, too short to be a TFLite model", bytes.size()));
    if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
      fail(fmt::format("{} bytes; models of 2 GiB or more are not supported", bytes.size()));
    }
    if (!flatbuffers::BufferHasIdentifier(bytes.data(), tfl::ModelIdentifier())) {
      std::string id;
      for (std::size_t i = 4; i < 8; ++i) {
        const unsigned char c = bytes[i];
        id += (c >= 0x20 && c < 0x7f) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
      }
      fail(fmt::format("not a TFLite model (file identifier '{}', expected 'TFL3')", id));
    }
    if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 16 != 0) fail("model bytes not 16-byte aligned in memory");
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!tfl::VerifyModelBuffer(verifier)) {
      fail("corrupt TFLite flatbuffer (offsets, sizes or alignment out of bounds; truncated or damaged file?)");
    }
    return tfl::GetModel(bytes.data());
  }

  // The bytes a buffer holds: inline in the flatbuffer, or at a file offset (converters write
  // large constants after the flatbuffer with offset > 1). Empty for buffer 0 and activations.
  std::pair<const std::uint8_t*, std::size_t> buffer_bytes(std::uint32_t index, const std::string& what) const {
    if (!buffers_ || index >= buffers_->size()) {
      if (index == 0) return {nullptr, 0};  // the sentinel "no data" buffer may be omitted
      fail(fmt::format("{} refers to buffer {}, but the model has {}", what, index, buffers_ ? buffers_->size() : 0));
    }
    const tfl::Buffer* buffer = buffers_->Get(index);
    if (buffer->data() && buffer->data()->size() > 0) return {buffer->data()->data(), buffer->data()->size()};
    if (buffer->offset() > 1) {
      const std::size_t file_size = bytes_->size();
      if (buffer->offset() > file_size || buffer->size() > file_size - buffer->offset()) {
        fail(fmt::format("{}: buffer {} lies at bytes {}..+{}, beyond the end of the file ({} bytes)", what,
                         index, buffer->offset(), buffer->size(), file_size));
      }
      return {bytes_->data() + buffer->offset(), static_cast<std::size_t>(buffer->size())};
    }
    return {nullptr, 0};
  }

  Tensor read_tensor(int index, const tfl::Tensor* fb) const {
    Tensor t;
    if (fb->name()) t.name = fb->name()->str();
    const std::string what = fmt::format("tensor {} {}", index, label(t.name));
    const int type = static_cast<int>(fb->type());
    if (type < 0 || type > static_cast<int>(TensorType::int4)) fail(fmt::format("{}: unknown tensor type {}", what, type));
    t.type = static_cast<TensorType>(type);
    if (const auto* shape = fb->shape()) {
      if (shape->size() > kMaxRank) fail(fmt::format("{}: rank {} (at most {} supported)", what, shape->size(), kMaxRank));
      std::int64_t count = 1;
      for (const std::int32_t d : *shape) {
        if (d < 0) fail(fmt::format("{}: negative dimension {} in its shape", what, d));
        count *= d;
        if (count > kMaxElements) fail(fmt::format("{}: more than {} elements", what, kMaxElements));
        t.shape.push_back(d);
      }
    }
    t.is_variable = fb->is_variable();
    t.is_sparse = fb->sparsity() != nullptr;
    if (t.is_sparse) t.sparsity = read_sparsity(*fb->sparsity(), t, what);
    t.quantization = read_quantization(fb->quantization(), t, what);

    const auto [data, size] = buffer_bytes(fb->buffer(), what);
    if (data) {
      const std::size_t element = element_size(t.type);
      const auto count = static_cast<std::size_t>(t.element_count());
      std::size_t expected = count * element;
      if (t.type == TensorType::int4) expected = (count + 1) / 2;
      const bool sized = element > 0 || t.type == TensorType::int4;
      if (sized && !t.is_sparse && size != expected) {
        fail(fmt::format("{}: constant data of {} bytes, but shape {} of {} needs {}", what, size,
                         shape_string(t.shape), tensor_type_name(t.type), expected));
      }
      const std::size_t alignment = std::clamp<std::size_t>(element, 1, 8);
      if (reinterpret_cast<std::uintptr_t>(data) % alignment != 0) {
        fail(fmt::format("{}: constant data not aligned to its {}-byte elements", what, alignment));
      }
      t.data = data;
      t.data_bytes = size;
    }
    return t;
  }

  // Checked for what densifying relies on: every level's shape and index arrays present, a
  // permutation for the traversal order, block dimensions of the tensor's own dimensions. The
  // indices' ranges are checked where they are used (densified_floats).
  Sparsity read_sparsity(const tfl::SparsityParameters& fb, const Tensor& t, const std::string& what) const {
    Sparsity s;
    if (fb.traversal_order()) s.traversal_order.assign(fb.traversal_order()->begin(), fb.traversal_order()->end());
    if (fb.block_map()) s.block_map.assign(fb.block_map()->begin(), fb.block_map()->end());
    const std::size_t rank = t.shape.size(), levels = rank + s.block_map.size();
    if (levels > 2 * kMaxRank || s.traversal_order.size() != levels || !fb.dim_metadata() ||
        fb.dim_metadata()->size() != levels) {
      fail(fmt::format("{}: sparsity of {} traversal levels, {} block dimensions and {} level descriptions for rank {}",
                       what, s.traversal_order.size(), s.block_map.size(),
                       fb.dim_metadata() ? fb.dim_metadata()->size() : 0, rank));
    }
    std::vector<bool> seen(levels, false);
    for (std::size_t i = 0; i < levels; ++i) {
      const int d = s.traversal_order[i];
      // The tensor's dimensions first (in some order), then the block dimensions.
      const bool in_range = i < rank ? d >= 0 && std::size_t(d) < rank : std::size_t(d) >= rank && std::size_t(d) < levels;
      if (!in_range || seen[std::size_t(d)]) fail(fmt::format("{}: sparsity traversal order is not a permutation", what));
      seen[std::size_t(d)] = true;
    }
    for (const int d : s.block_map) {
      if (d < 0 || std::size_t(d) >= rank) fail(fmt::format("{}: sparsity block map names dimension {}", what, d));
    }
    for (const tfl::DimensionMetadata* m : *fb.dim_metadata()) {
      Sparsity::Level level;
      level.compressed = m->format() == tfl::DimensionType::SPARSE_CSR;
      level.dense_size = m->dense_size();
      if (level.compressed) {
        level.segments = index_vector(m->array_segments_type(), m->array_segments(), what);
        level.indices = index_vector(m->array_indices_type(), m->array_indices(), what);
      } else if (level.dense_size < 0) {
        fail(fmt::format("{}: sparsity level of dense size {}", what, level.dense_size));
      }
      s.levels.push_back(std::move(level));
    }
    return s;
  }

  std::vector<int> index_vector(tfl::SparseIndexVector type, const void* table, const std::string& what) const {
    auto values = [&](const auto* vector) {
      if (!vector || !vector->values()) fail(what + ": sparsity index array without values");
      return std::vector<int>(vector->values()->begin(), vector->values()->end());
    };
    switch (type) {
      case tfl::SparseIndexVector::Int32Vector: return values(static_cast<const tfl::Int32Vector*>(table));
      case tfl::SparseIndexVector::Uint16Vector: return values(static_cast<const tfl::Uint16Vector*>(table));
      case tfl::SparseIndexVector::Uint8Vector: return values(static_cast<const tfl::Uint8Vector*>(table));
      default: fail(what + ": sparse level without its index arrays");
    }
    return {};
  }

  std::optional<Quantization> read_quantization(const tfl::QuantizationParameters* q, const Tensor& t,
                                                const std::string& what) const {
    if (!q) return std::nullopt;
    if (q->details_type() != tfl::QuantizationDetails::NONE) fail(what + ": custom quantization is not supported");
    if (!q->scale() || q->scale()->size() == 0) return std::nullopt;
    Quantization out;
    out.scale.assign(q->scale()->begin(), q->scale()->end());
    if (!q->zero_point() || q->zero_point()->size() != out.scale.size()) {
      fail(fmt::format("{}: {} quantization scales but {} zero points", what, out.scale.size(),
                       q->zero_point() ? q->zero_point()->size() : 0));
    }
    out.zero_point.assign(q->zero_point()->begin(), q->zero_point()->end());
    out.quantized_dimension = q->quantized_dimension();
    if (out.scale.size() > 1) {
      const int dim = out.quantized_dimension;
      if (dim < 0 || static_cast<std::size_t>(dim) >= t.shape.size() ||
          static_cast<std::size_t>(t.shape[static_cast<std::size_t>(dim)]) != out.scale.size()) {
        fail(fmt::format("{}: {} per-channel scales along dimension {} of shape {}", what, out.scale.size(), dim,
                         shape_string(t.shape)));
      }
    }
    return out;
  }

  std::vector<int> graph_indices(const flatbuffers::Vector<std::int32_t>* list, const char* kind,
                                 std::size_t tensor_count) const {
    std::vector<int> out;
    if (!list) return out;
    for (const std::int32_t i : *list) {
      if (i < 0 || static_cast<std::size_t>(i) >= tensor_count) {
        fail(fmt::format("graph {} {} is out of range ({} tensors)", kind, i, tensor_count));
      }
      out.push_back(i);
    }
    return out;
  }

  Operator read_operator(int index, const tfl::Operator* fb,
                         const flatbuffers::Vector<flatbuffers::Offset<tfl::OperatorCode>>* codes,
                         std::size_t tensor_count) const {
    Operator op;
    op.index = index;
    const std::uint32_t code_index = fb->opcode_index();
    if (!codes || code_index >= codes->size()) {
      fail(fmt::format("operator {}: operator code index {} out of range ({} codes)", index, code_index,
                       codes ? codes->size() : 0));
    }
    const tfl::OperatorCode* code = codes->Get(code_index);
    // Codes below 127 may sit in the old byte field only; newer ones in builtin_code only.
    op.builtin_code = std::max(code->builtin_code(), static_cast<std::int32_t>(code->deprecated_builtin_code()));
    op.version = code->version();
    if (op.is_custom()) {
      if (!code->custom_code() || code->custom_code()->size() == 0) {
        fail(fmt::format("operator {}: custom operator without a custom code", index));
      }
      op.custom_code = code->custom_code()->str();
    } else if (builtin_op_name(op.builtin_code).empty() || op.builtin_code == 127) {
      fail(fmt::format("operator {}: unknown builtin operator code {}", index, op.builtin_code));
    }

    op.inputs = tensor_list(op, fb->inputs(), true, tensor_count, "input");
    op.outputs = tensor_list(op, fb->outputs(), false, tensor_count, "output");
    read_custom_options(op, fb);
    op.options = read_options(op, fb);

    if (const auto arity = arity_of(op)) {
      const int inputs = static_cast<int>(op.inputs.size());
      if (inputs < arity->required || (arity->max_inputs >= 0 && inputs > arity->max_inputs)) {
        fail(op, arity->max_inputs == arity->required
                     ? fmt::format("{} inputs, expected {}", inputs, arity->required)
                     : fmt::format("{} inputs, expected {} to {}", inputs, arity->required,
                                   arity->max_inputs < 0 ? std::string("any") : std::to_string(arity->max_inputs)));
      }
      for (int i = 0; i < arity->required; ++i) {
        if (op.inputs[static_cast<std::size_t>(i)] < 0) fail(op, fmt::format("required input {} is omitted (-1)", i));
      }
      if (static_cast<int>(op.outputs.size()) != arity->outputs) {
        fail(op, fmt::format("{} outputs, expected {}", op.outputs.size(), arity->outputs));
      }
    }
    return op;
  }

  std::vector<int> tensor_list(const Operator& op, const flatbuffers::Vector<std::int32_t>* list,
                               bool optional_allowed, std::size_t tensor_count, const char* kind) const {
    std::vector<int> out;
    if (!list) return out;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::int32_t t = list->Get(static_cast<flatbuffers::uoffset_t>(i));
      const bool omitted = optional_allowed && t == -1;
      if (!omitted && (t < 0 || static_cast<std::size_t>(t) >= tensor_count)) {
        fail(op, fmt::format("{} {} is tensor {}, out of range ({} tensors)", kind, i, t, tensor_count));
      }
      out.push_back(t);
    }
    return out;
  }

  void read_custom_options(Operator& op, const tfl::Operator* fb) const {
    if (fb->custom_options() && fb->custom_options()->size() > 0) {
      op.custom_options.assign(fb->custom_options()->begin(), fb->custom_options()->end());
    } else if (fb->large_custom_options_offset() > 1) {
      const std::uint64_t offset = fb->large_custom_options_offset(), size = fb->large_custom_options_size();
      if (offset > bytes_->size() || size > bytes_->size() - offset) {
        fail(op, fmt::format("custom options at bytes {}..+{} lie beyond the end of the file", offset, size));
      }
      op.custom_options.assign(bytes_->begin() + static_cast<std::ptrdiff_t>(offset),
                               bytes_->begin() + static_cast<std::ptrdiff_t>(offset + size));
    }
  }

  Padding padding(const Operator& op, tfl::Padding p) const {
    switch (p) {
      case tfl::Padding::SAME: return Padding::same;
      case tfl::Padding::VALID: return Padding::valid;
    }
    fail(op, fmt::format("unknown padding {}", static_cast<int>(p)));
  }

  Activation activation(const Operator& op, tfl::ActivationFunctionType a) const {
    const int value = static_cast<int>(a);
    if (value < 0 || value > static_cast<int>(Activation::sign_bit)) {
      fail(op, fmt::format("unknown fused activation {}", value));
    }
    return static_cast<Activation>(value);
  }

  void require_positive(const Operator& op, const char* name, int value) const {
    if (value < 1) fail(op, fmt::format("{} is {}, must be at least 1", name, value));
  }

  // The options table of the expected type; null when the operator has none. Options of another
  // type are an error (the file's union type disagrees with its operator).
  template <typename Table>
  const Table* options_table(const Operator& op, const tfl::Operator* fb, tfl::BuiltinOptions expected) const {
    const tfl::BuiltinOptions type = fb->builtin_options_type();
    if (type == tfl::BuiltinOptions::NONE) return nullptr;
    if (type != expected) {
      const char* name = tfl::EnumNameBuiltinOptions(type);
      fail(op, fmt::format("builtin options of type {}, expected {}",
                           *name ? std::string(name) : "#" + std::to_string(static_cast<int>(type)),
                           tfl::EnumNameBuiltinOptions(expected)));
    }
    return static_cast<const Table*>(fb->builtin_options());
  }

  template <typename Table>
  const Table& required_options(const Operator& op, const tfl::Operator* fb, tfl::BuiltinOptions expected) const {
    const Table* table = options_table<Table>(op, fb, expected);
    if (!table) fail(op, fmt::format("missing {}", tfl::EnumNameBuiltinOptions(expected)));
    return *table;
  }

  OperatorOptions read_options(const Operator& op, const tfl::Operator* fb) const {
    using BO = tfl::BuiltinOptions;
    if (op.is_custom()) {
      if (op.custom_code == kConvolution2DTransposeBias) return transpose_conv_bias_options(op);
      return std::monostate{};
    }
    switch (static_cast<BuiltinOp>(op.builtin_code)) {
      case BuiltinOp::conv_2d: {
        const auto& o = required_options<tfl::Conv2DOptions>(op, fb, BO::Conv2DOptions);
        Conv2DOptions out{padding(op, o.padding()), o.stride_w(), o.stride_h(), o.dilation_w_factor(),
                          o.dilation_h_factor(), activation(op, o.fused_activation_function())};
        check_window(op, out.stride_w, out.stride_h, out.dilation_w, out.dilation_h);
        return out;
      }
      case BuiltinOp::depthwise_conv_2d: {
        const auto& o = required_options<tfl::DepthwiseConv2DOptions>(op, fb, BO::DepthwiseConv2DOptions);
        DepthwiseConv2DOptions out{padding(op, o.padding()),      o.stride_w(),         o.stride_h(),
                                   o.dilation_w_factor(),         o.dilation_h_factor(), o.depth_multiplier(),
                                   activation(op, o.fused_activation_function())};
        check_window(op, out.stride_w, out.stride_h, out.dilation_w, out.dilation_h);
        if (out.depth_multiplier < 0) fail(op, fmt::format("depth_multiplier is {}", out.depth_multiplier));
        return out;
      }
      case BuiltinOp::average_pool_2d:
      case BuiltinOp::max_pool_2d: {
        const auto& o = required_options<tfl::Pool2DOptions>(op, fb, BO::Pool2DOptions);
        Pool2DOptions out{padding(op, o.padding()), o.stride_w(),      o.stride_h(),
                          o.filter_width(),         o.filter_height(), activation(op, o.fused_activation_function())};
        check_window(op, out.stride_w, out.stride_h, 1, 1);
        require_positive(op, "filter_width", out.filter_w);
        require_positive(op, "filter_height", out.filter_h);
        return out;
      }
      case BuiltinOp::add: {
        const auto* o = options_table<tfl::AddOptions>(op, fb, BO::AddOptions);
        return ActivationOptions{o ? activation(op, o->fused_activation_function()) : Activation::none};
      }
      case BuiltinOp::sub: {
        const auto* o = options_table<tfl::SubOptions>(op, fb, BO::SubOptions);
        return ActivationOptions{o ? activation(op, o->fused_activation_function()) : Activation::none};
      }
      case BuiltinOp::mul: {
        const auto* o = options_table<tfl::MulOptions>(op, fb, BO::MulOptions);
        return ActivationOptions{o ? activation(op, o->fused_activation_function()) : Activation::none};
      }
      case BuiltinOp::concatenation: {
        const auto* o = options_table<tfl::ConcatenationOptions>(op, fb, BO::ConcatenationOptions);
        if (!o) return ConcatenationOptions{};
        return ConcatenationOptions{o->axis(), activation(op, o->fused_activation_function())};
      }
      case BuiltinOp::resize_bilinear: {
        const auto* o = options_table<tfl::ResizeBilinearOptions>(op, fb, BO::ResizeBilinearOptions);
        ResizeBilinearOptions out;
        if (o) out = ResizeBilinearOptions{o->align_corners(), o->half_pixel_centers()};
        if (out.align_corners && out.half_pixel_centers) {
          fail(op, "align_corners and half_pixel_centers are both set (TFLite allows one at most)");
        }
        return out;
      }
      case BuiltinOp::reshape: {
        const auto* o = options_table<tfl::ReshapeOptions>(op, fb, BO::ReshapeOptions);
        ReshapeOptions out;
        if (o && o->new_shape()) out.new_shape.assign(o->new_shape()->begin(), o->new_shape()->end());
        if (out.new_shape.size() > kMaxRank) fail(op, fmt::format("new_shape of rank {}", out.new_shape.size()));
        return out;
      }
      case BuiltinOp::mean: {
        const auto* o = options_table<tfl::ReducerOptions>(op, fb, BO::ReducerOptions);
        return ReducerOptions{o && o->keep_dims()};
      }
      case BuiltinOp::depth_to_space: {
        const auto& o = required_options<tfl::DepthToSpaceOptions>(op, fb, BO::DepthToSpaceOptions);
        require_positive(op, "block_size", o.block_size());
        return DepthToSpaceOptions{o.block_size()};
      }
      case BuiltinOp::pad: options_table<tfl::PadOptions>(op, fb, BO::PadOptions); break;
      case BuiltinOp::padv2: options_table<tfl::PadV2Options>(op, fb, BO::PadV2Options); break;
      case BuiltinOp::dequantize: options_table<tfl::DequantizeOptions>(op, fb, BO::DequantizeOptions); break;
      case BuiltinOp::hard_swish: options_table<tfl::HardSwishOptions>(op, fb, BO::HardSwishOptions); break;
      default: break;  // options of operators the engine does not run are not read
    }
    return std::monostate{};
  }

  void check_window(const Operator& op, int stride_w, int stride_h, int dilation_w, int dilation_h) const {
    require_positive(op, "stride_w", stride_w);
    require_positive(op, "stride_h", stride_h);
    require_positive(op, "dilation_w_factor", dilation_w);
    require_positive(op, "dilation_h_factor", dilation_h);
  }

  // MediaPipe reads custom_options as TfLiteTransposeConvParams {TfLitePadding padding;
  // int stride_width; int stride_height; ...}: little-endian int32s, TfLitePadding 1 = same,
  // 2 = valid (0 = unknown). Converters store exactly these 12 bytes.
  TransposeConvBiasOptions transpose_conv_bias_options(const Operator& op) const {
    if (op.custom_options.size() < 12) {
      fail(op, fmt::format("{} bytes of custom options, expected 12 (padding, stride_w, stride_h)",
                           op.custom_options.size()));
    }
    std::int32_t fields[3];
    for (int i = 0; i < 3; ++i) {
      const std::uint8_t* p = op.custom_options.data() + 4 * i;
      fields[i] = static_cast<std::int32_t>(std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 |
                                            std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24);
    }
    TransposeConvBiasOptions out;
    if (fields[0] == 1) {
      out.padding = Padding::same;
    } else if (fields[0] == 2) {
      out.padding = Padding::valid;
    } else {
      fail(op, fmt::format("custom options: padding {} (expected 1 = same or 2 = valid)", fields[0]));
    }
    out.stride_w = fields[1];
    out.stride_h = fields[2];
    require_positive(op, "stride_w", out.stride_w);
    require_positive(op, "stride_h", out.stride_h);
    return out;
  }

  // Every operator input must exist before the operator runs (a constant, a graph input, a
  // variable or an earlier operator's output) and every tensor is written at most once.
  void check_data_flow(const Model& model) const {
    const auto& tensors = model.tensors_;
    std::vector<int> writer(tensors.size(), -2);  // -2 not available, -1 available from the start
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (tensors[i].is_constant() || tensors[i].is_variable) writer[i] = -1;
    }
    for (const int i : model.inputs_) {
      if (tensors[static_cast<std::size_t>(i)].is_constant()) {
        fail(fmt::format("graph input {} {} is a constant", i, label(tensors[static_cast<std::size_t>(i)].name)));
      }
      writer[static_cast<std::size_t>(i)] = -1;
    }
    for (const Operator& op : model.operators_) {
      for (const int t : op.inputs) {
        if (t >= 0 && writer[static_cast<std::size_t>(t)] == -2) {
          fail(op, fmt::format("input tensor {} {} is not computed before this operator (not a constant, a graph "
                               "input or an earlier operator's output)",
                               t, label(tensors[static_cast<std::size_t>(t)].name)));
        }
      }
      for (const int t : op.outputs) {
        const auto& tensor = tensors[static_cast<std::size_t>(t)];
        const int previous = writer[static_cast<std::size_t>(t)];
        if (tensor.is_constant()) fail(op, fmt::format("writes the constant tensor {} {}", t, label(tensor.name)));
        if (previous != -2) {
          fail(op, previous >= 0 ? fmt::format("writes tensor {} {} already written by operator {}", t,
                                               label(tensor.name), previous)
                                 : fmt::format("writes tensor {} {}, a graph input", t, label(tensor.name)));
        }
        writer[static_cast<std::size_t>(t)] = op.index;
      }
    }
    for (const int i : model.outputs_) {
      if (writer[static_cast<std::size_t>(i)] == -2) {
        fail(fmt::format("graph output {} {} is never computed", i, label(tensors[static_cast<std::size_t>(i)].name)));
      }
    }
  }

  std::string read_min_runtime_version(const tfl::Model* fb) const {
    if (!fb->metadata()) return {};
    for (const tfl::Metadata* entry : *fb->metadata()) {
      if (!entry->name() || entry->name()->str() != "min_runtime_version") continue;
      const auto [data, size] = buffer_bytes(entry->buffer(), "metadata 'min_runtime_version'");
      std::string version;
      for (std::size_t i = 0; i < size && data[i] != 0; ++i) {
        if (data[i] < 0x20 || data[i] >= 0x7f) fail("metadata 'min_runtime_version' is not text");
        version += static_cast<char>(data[i]);
      }
      return version;
    }
    return {};
  }

  std::shared_ptr<const std::vector<std::uint8_t>> bytes_;
  std::string source_;
  const flatbuffers::Vector<flatbuffers::Offset<tfl::Buffer>>* buffers_ = nullptr;
};

Model Model::from_bytes(std::vector<std::uint8_t> bytes, std::string source) {
  return ModelReader(std::make_shared<const std::vector<std::uint8_t>>(std::move(bytes)), std::move(source)).read();
}

Model Model::load(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(source, "cannot open the model file");
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw ModelError(source, "cannot read the model file's size: " + ec.message());
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    throw ModelError(source, fmt::format("{} bytes; models of 2 GiB or more are not supported", size));
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()))) {
    throw ModelError(source, "cannot read the model file");
  }
  return from_bytes(std::move(bytes), source);
}

ModelError Model::error(const Operator& op, const std::string& what) const {
  return ModelError(source_, fmt::format("operator {} ({}): {}", op.index, op.name(), what));
}

std::int64_t Tensor::element_count() const {
  std::int64_t count = 1;
  for (const int d : shape) count *= d;
  return count;
}

std::string Operator::name() const {
  if (is_custom()) return custom_code;
  const std::string_view known = builtin_op_name(builtin_code);
  return known.empty() ? "BUILTIN_" + std::to_string(builtin_code) : std::string(known);
}

}  // namespace gp::infer
