// Names, sizes, constant data access, supported-operator checks and the readable summary of a
// verified Model.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "cuda/common/half.hpp"
#include "infer/tflite_model.hpp"

namespace gp::infer {

const char* tensor_type_name(TensorType type) {
  switch (type) {
    case TensorType::float32: return "FLOAT32";
    case TensorType::float16: return "FLOAT16";
    case TensorType::int32: return "INT32";
    case TensorType::uint8: return "UINT8";
    case TensorType::int64: return "INT64";
    case TensorType::string: return "STRING";
    case TensorType::boolean: return "BOOL";
    case TensorType::int16: return "INT16";
    case TensorType::complex64: return "COMPLEX64";
    case TensorType::int8: return "INT8";
    case TensorType::float64: return "FLOAT64";
    case TensorType::complex128: return "COMPLEX128";
    case TensorType::uint64: return "UINT64";
    case TensorType::resource: return "RESOURCE";
    case TensorType::variant: return "VARIANT";
    case TensorType::uint32: return "UINT32";
    case TensorType::uint16: return "UINT16";
    case TensorType::int4: return "INT4";
  }
  return "?";
}

std::size_t element_size(TensorType type) {
  switch (type) {
    case TensorType::boolean:
    case TensorType::uint8:
    case TensorType::int8: return 1;
    case TensorType::float16:
    case TensorType::int16:
    case TensorType::uint16: return 2;
    case TensorType::float32:
    case TensorType::int32:
    case TensorType::uint32: return 4;
    case TensorType::int64:
    case TensorType::uint64:
    case TensorType::float64:
    case TensorType::complex64: return 8;
    case TensorType::complex128: return 16;
    case TensorType::string:
    case TensorType::resource:
    case TensorType::variant:
    case TensorType::int4: return 0;
  }
  return 0;
}

OperatorNameSet operator_names(const Model& model) {
  OperatorNameSet names;
  for (const Operator& op : model.operators()) names.insert(op.name());
  return names;
}

std::vector<UnsupportedOperator> unsupported_operators(const Model& model, const OperatorNameSet& supported) {
  std::vector<UnsupportedOperator> out;
  for (const Operator& op : model.operators()) {
    const std::string name = op.name();
    if (supported.count(name)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const UnsupportedOperator& u) { return u.name == name; });
    if (it == out.end()) {
      out.push_back({name, op.index, 1});
    } else {
      ++it->count;
    }
  }
  return out;
}

void require_supported(const Model& model, const OperatorNameSet& supported) {
  const auto unsupported = unsupported_operators(model, supported);
  if (unsupported.empty()) return;
  std::string list;
  for (const auto& u : unsupported) {
    if (!list.empty()) list += ", ";
    list += fmt::format("{} (first at operator {}, {} in all)", u.name, u.first_index, u.count);
  }
  throw model.error("unsupported operators: " + list);
}

std::vector<float> constant_floats(const Model& model, const Tensor& tensor) {
  if (!tensor.is_constant() || tensor.is_sparse) {
    throw model.error(fmt::format("tensor '{}' is not a dense constant", tensor.name));
  }
  // Type first: a constant without a fixed element size (STRING) may declare any shape, and
  // allocating for it before refusing it could ask for gigabytes (found by fuzz_tflite).
  if (tensor.type != TensorType::float32 && tensor.type != TensorType::float16) {
    throw model.error(fmt::format("tensor '{}' is {}, not FLOAT32 or FLOAT16", tensor.name,
                                  tensor_type_name(tensor.type)));
  }
  const auto count = static_cast<std::size_t>(tensor.element_count());
  std::vector<float> out(count);
  if (tensor.type == TensorType::float32) {
    std::memcpy(out.data(), tensor.data, count * sizeof(float));
  } else if (tensor.type == TensorType::float16) {
    for (std::size_t i = 0; i < count; ++i) {
      std::uint16_t h;
      std::memcpy(&h, tensor.data + 2 * i, sizeof h);
      out[i] = half_to_float(h);
    }
  } else {
    throw model.error(fmt::format("tensor '{}' is {}, not FLOAT32 or FLOAT16", tensor.name,
                                  tensor_type_name(tensor.type)));
  }
  return out;
}

std::vector<float> densified_floats(const Model& model, const Tensor& tensor) {
  auto fail = [&](const std::string& what) { return model.error(fmt::format("sparse tensor '{}': {}", tensor.name, what)); };
  if (!tensor.is_constant() || !tensor.is_sparse) throw fail("not a sparse constant");
  if (tensor.type != TensorType::float32 && tensor.type != TensorType::float16) {
    throw fail(fmt::format("{}, not FLOAT32 or FLOAT16", tensor_type_name(tensor.type)));
  }
  const Sparsity& s = tensor.sparsity;
  const std::size_t rank = tensor.shape.size(), levels = s.levels.size();
  const std::size_t stored = tensor.data_bytes / element_size(tensor.type);
  auto stored_value = [&](std::size_t i) {
    if (tensor.type == TensorType::float32) {
      float v;
      std::memcpy(&v, tensor.data + 4 * i, sizeof v);
      return v;
    }
    std::uint16_t h;
    std::memcpy(&h, tensor.data + 2 * i, sizeof h);
    return half_to_float(h);
  };
  // A block dimension's size is its (dense) level's size.
  std::vector<std::int64_t> block_size(s.block_map.size());
  for (std::size_t k = 0; k < block_size.size(); ++k) {
    const Sparsity::Level& level = s.levels[rank + k];
    if (level.compressed || level.dense_size < 1) throw fail("a block dimension that is not dense");
    block_size[k] = level.dense_size;
  }
  std::vector<float> dense(static_cast<std::size_t>(tensor.element_count()), 0.0f);
  std::vector<int> coords(levels);
  std::size_t next = 0;  // the next stored value
  // TFLite's FormatConverter::Populate: levels in traversal order; a dense level's positions are
  // parent * size + i, a compressed level's are its indices' positions.
  std::function<void(std::size_t, std::int64_t)> visit = [&](std::size_t level, std::int64_t parent) {
    if (level == levels) {
      std::int64_t at[16] = {};
      for (std::size_t i = 0; i < rank; ++i) at[s.traversal_order[i]] = coords[i];
      for (std::size_t i = rank; i < levels; ++i) {
        const auto k = static_cast<std::size_t>(s.traversal_order[i]) - rank;
        const auto d = static_cast<std::size_t>(s.block_map[k]);
        at[d] = at[d] * block_size[k] + coords[i];
      }
      std::int64_t index = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        if (at[d] < 0 || at[d] >= tensor.shape[d]) throw fail(fmt::format("a stored value outside dimension {}", d));
        index = index * tensor.shape[d] + at[d];
      }
      if (next >= stored) throw fail(fmt::format("more positions than its {} stored values", stored));
      dense[static_cast<std::size_t>(index)] = stored_value(next++);
      return;
    }
    const Sparsity::Level& l = s.levels[level];
    if (!l.compressed) {
      for (int i = 0; i < l.dense_size; ++i) {
        coords[level] = i;
        visit(level + 1, parent * l.dense_size + i);
      }
      return;
    }
    if (parent < 0 || static_cast<std::size_t>(parent) + 1 >= l.segments.size()) {
      throw fail(fmt::format("level {}'s segments end before position {}", level, parent));
    }
    const int begin = l.segments[static_cast<std::size_t>(parent)], end = l.segments[static_cast<std::size_t>(parent) + 1];
    if (begin < 0 || end < begin || static_cast<std::size_t>(end) > l.indices.size()) {
      throw fail(fmt::format("level {}'s segment {}..{} outside its {} indices", level, begin, end, l.indices.size()));
    }
    for (int i = begin; i < end; ++i) {
      coords[level] = l.indices[static_cast<std::size_t>(i)];
      visit(level + 1, i);
    }
  };
  visit(0, 0);
  if (next != stored) throw fail(fmt::format("{} stored values, {} placed", stored, next));
  return dense;
}

std::vector<std::int32_t> constant_ints(const Model& model, const Tensor& tensor) {
  if (!tensor.is_constant() || tensor.is_sparse || tensor.type != TensorType::int32) {
    throw model.error(fmt::format("tensor '{}' is not a dense INT32 constant", tensor.name));
  }
  std::vector<std::int32_t> out(static_cast<std::size_t>(tensor.element_count()));
  std::memcpy(out.data(), tensor.data, out.size() * sizeof(std::int32_t));
  return out;
}

namespace {

std::string tensor_list(const Model& model, const std::vector<int>& indices) {
  std::string s;
  for (const int i : indices) {
    if (!s.empty()) s += ", ";
    if (i < 0) {
      s += "-";
      continue;
    }
    const Tensor& t = model.tensor(i);
    s += fmt::format("{}{}", i, t.is_constant() ? "c" : "");
    s += ":" + shape_string(t.shape);
  }
  return s;
}

struct OptionsText {
  std::string operator()(std::monostate) const { return {}; }
  std::string operator()(const Conv2DOptions& o) const {
    return fmt::format("{} stride {}x{} dilation {}x{} {}", padding_name(o.padding), o.stride_w, o.stride_h,
                       o.dilation_w, o.dilation_h, activation_name(o.activation));
  }
  std::string operator()(const DepthwiseConv2DOptions& o) const {
    return fmt::format("{} stride {}x{} dilation {}x{} multiplier {} {}", padding_name(o.padding), o.stride_w,
                       o.stride_h, o.dilation_w, o.dilation_h, o.depth_multiplier, activation_name(o.activation));
  }
  std::string operator()(const Pool2DOptions& o) const {
    return fmt::format("{} filter {}x{} stride {}x{} {}", padding_name(o.padding), o.filter_w, o.filter_h,
                       o.stride_w, o.stride_h, activation_name(o.activation));
  }
  std::string operator()(const ActivationOptions& o) const { return activation_name(o.activation); }
  std::string operator()(const ConcatenationOptions& o) const {
    return fmt::format("axis {} {}", o.axis, activation_name(o.activation));
  }
  std::string operator()(const ResizeBilinearOptions& o) const {
    return fmt::format("align_corners {} half_pixel_centers {}", o.align_corners, o.half_pixel_centers);
  }
  std::string operator()(const ReshapeOptions& o) const {
    std::string s = "new_shape [";
    for (std::size_t i = 0; i < o.new_shape.size(); ++i) s += (i ? ", " : "") + std::to_string(o.new_shape[i]);
    return s + "]";
  }
  std::string operator()(const ReducerOptions& o) const { return fmt::format("keep_dims {}", o.keep_dims); }
  std::string operator()(const DepthToSpaceOptions& o) const { return fmt::format("block_size {}", o.block_size); }
  std::string operator()(const TransposeConvBiasOptions& o) const {
    return fmt::format("{} stride {}x{}", padding_name(o.padding), o.stride_w, o.stride_h);
  }
};

}  // namespace

std::string describe(const Model& model, bool per_operator) {
  std::string s = fmt::format("{}\n", model.source());
  if (!model.description().empty()) s += fmt::format("  description: {}\n", model.description());
  if (!model.min_runtime_version().empty()) {
    s += fmt::format("  min_runtime_version: {}\n", model.min_runtime_version());
  }
  std::size_t constants = 0, constant_bytes = 0;
  for (const Tensor& t : model.tensors()) {
    if (!t.is_constant()) continue;
    ++constants;
    constant_bytes += t.data_bytes;
  }
  s += fmt::format("  {} tensors ({} constants, {} bytes), {} operators\n", model.tensors().size(), constants,
                   constant_bytes, model.operators().size());
  for (const auto& [kind, list] : {std::pair{"input", &model.inputs()}, std::pair{"output", &model.outputs()}}) {
    for (const int i : *list) {
      const Tensor& t = model.tensor(i);
      s += fmt::format("  {} {} '{}': {} {}\n", kind, i, t.name, shape_string(t.shape), tensor_type_name(t.type));
    }
  }
  // Operator kinds in order of first appearance, with counts.
  std::vector<std::pair<std::string, int>> kinds;
  for (const Operator& op : model.operators()) {
    const std::string name = op.name();
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
    if (it == kinds.end()) {
      kinds.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  s += "  operators:";
  for (const auto& [name, count] : kinds) s += fmt::format(" {} x{}", name, count);
  s += "\n";
  if (per_operator) {
    for (const Operator& op : model.operators()) {
      const std::string options = std::visit(OptionsText{}, op.options);
      s += fmt::format("  {:4} {} ({}) -> ({}){}{}\n", op.index, op.name(), tensor_list(model, op.inputs),
                       tensor_list(model, op.outputs), options.empty() ? "" : " ", options);
    }
  }
  return s;
}

}  // namespace gp::infer
