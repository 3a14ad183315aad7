// The operator registry (infer/operator.hpp, infer/ops/): every listed operator is registered once
// under TFLite's name with a shape rule and a CPU binding, and lookups by an operator's code or
// custom name find it (the engines' behaviour per operator is tested through the models).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "infer/operator.hpp"
#include "infer/tflite_ops.hpp"

using namespace gp::infer;

namespace {

Operator builtin(BuiltinOp code) {
  Operator op;
  op.builtin_code = static_cast<std::int32_t>(code);
  return op;
}

Operator custom(const std::string& name) {
  Operator op = builtin(BuiltinOp::custom);
  op.custom_code = name;
  return op;
}

}  // namespace

TEST_CASE("operator registry: each operator once, by TFLite's name, with a shape rule and a CPU binding", "[infer]") {
  const auto& all = registered_operators();
  REQUIRE(all.size() == 20);
  std::set<std::string> names;
  for (const OperatorDef& def : all) {
    INFO(def.name);
    CHECK(!def.name.empty());
    CHECK(def.shape != nullptr);
    CHECK(def.cpu != nullptr);
    CHECK(names.insert(std::string(def.name)).second);
  }
  CHECK(names == std::set<std::string>(engine_operators().begin(), engine_operators().end()));
  // The operators whose steps read their constant int input 1.
  std::set<std::string> reading_ints;
  for (const OperatorDef& def : all) {
    if (def.reads_ints) reading_ints.insert(std::string(def.name));
  }
  CHECK(reading_ints == std::set<std::string>{"MEAN", "PAD", "RESIZE_BILINEAR"});
}

TEST_CASE("operator registry: lookup by builtin code and custom name", "[infer]") {
  for (const BuiltinOp code : {BuiltinOp::conv_2d, BuiltinOp::depthwise_conv_2d, BuiltinOp::hard_swish,
                               BuiltinOp::resize_bilinear, BuiltinOp::concatenation}) {
    const OperatorDef* def = find_operator(builtin(code));
    REQUIRE(def != nullptr);
    CHECK(def->name == builtin_op_name(code));
  }
  const OperatorDef* transpose = find_operator(custom(std::string(kConvolution2DTransposeBias)));
  REQUIRE(transpose != nullptr);
  CHECK(transpose->name == kConvolution2DTransposeBias);
  CHECK(find_operator(builtin(BuiltinOp::sub)) == nullptr);
  CHECK(find_operator(custom("MaxPoolingWithArgmax2D")) == nullptr);
}
