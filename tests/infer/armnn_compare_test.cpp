// The CPU engine against Debian's Arm NN 20.08 (TfLite parser, CpuRef backend) where it can run
// a model. Arm NN 20.08 needs convolution weights as constant buffers, so the models are first
// rewritten as FLOAT32 models with the DEQUANTIZE operators folded (and read back by our reader).
// It parses face_detection_short_range and _full_range; it cannot parse PRELU (face_landmark)
// or MediaPipe's custom operator (selfie_segmentation). It also ignores RESIZE_BILINEAR's
// half_pixel_centers, so full_range is compared in a variant without that flag.
#include <catch2/catch.hpp>

#include "infer/cpu_engine.hpp"
#include "infer/model_files.hpp"

#ifndef GPUPROC_HAVE_ARMNN

TEST_CASE("CpuEngine against Arm NN", "[infer]") {
  WARN("skipped: built without Arm NN (Debian libarmnntfliteparser-dev, libarmnn-cpuref-backend22)");
}

#else

#include <armnn/ArmNN.hpp>
#include <armnnTfLiteParser/ITfLiteParser.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gpuproc/infer/tflite_schema_generated.h"

using namespace gp::infer;
namespace tfl = gp::infer::tfl;

namespace {

tfl::ActivationFunctionType fb_activation(Activation a) {
  return static_cast<tfl::ActivationFunctionType>(static_cast<int>(a));  // same numbering
}
tfl::Padding fb_padding(Padding p) { return p == Padding::same ? tfl::Padding::SAME : tfl::Padding::VALID; }

// The model as FLOAT32 .tflite bytes: DEQUANTIZE of constants folded into FLOAT32 buffers,
// builtin options written back from the parsed ones (with half_pixel_centers as given).
std::vector<std::uint8_t> float32_model(const Model& model, bool half_pixel_centers) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<std::vector<std::uint8_t>> data(1);  // buffer 0: empty, as TFLite requires
  std::vector<std::uint32_t> buffer_of(model.tensors().size(), 0);
  std::vector<bool> folded(model.tensors().size(), false);
  auto add_buffer = [&](std::size_t tensor, std::vector<std::uint8_t> bytes) {
    data.push_back(std::move(bytes));
    buffer_of[tensor] = static_cast<std::uint32_t>(data.size() - 1);
  };
  for (const Operator& op : model.operators()) {
    if (!op.is(BuiltinOp::dequantize) || !model.tensor(op.inputs[0]).is_constant()) continue;
    const auto values = constant_floats(model, model.tensor(op.inputs[0]));
    std::vector<std::uint8_t> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    add_buffer(static_cast<std::size_t>(op.outputs[0]), std::move(bytes));
    folded[static_cast<std::size_t>(op.outputs[0])] = true;
  }
  for (std::size_t t = 0; t < model.tensors().size(); ++t) {
    const Tensor& tensor = model.tensors()[t];
    if (tensor.is_constant()) add_buffer(t, {tensor.data, tensor.data + tensor.data_bytes});
  }
  std::vector<flatbuffers::Offset<tfl::Buffer>> buffers;
  for (const auto& d : data) buffers.push_back(tfl::CreateBufferDirect(b, d.empty() ? nullptr : &d));
  std::vector<flatbuffers::Offset<tfl::Tensor>> tensors;
  for (std::size_t t = 0; t < model.tensors().size(); ++t) {
    const Tensor& tensor = model.tensors()[t];
    tensors.push_back(tfl::CreateTensorDirect(b, &tensor.shape, static_cast<tfl::TensorType>(tensor.type),
                                              buffer_of[t], tensor.name.c_str()));
  }
  std::vector<std::int32_t> codes;
  std::vector<flatbuffers::Offset<tfl::Operator>> ops;
  for (const Operator& op : model.operators()) {
    if (op.is(BuiltinOp::dequantize) && folded[static_cast<std::size_t>(op.outputs[0])]) continue;
    REQUIRE(!op.is_custom());
    auto code = std::find(codes.begin(), codes.end(), op.builtin_code);
    if (code == codes.end()) code = codes.insert(codes.end(), op.builtin_code);
    std::pair<tfl::BuiltinOptions, flatbuffers::Offset<void>> o{tfl::BuiltinOptions::NONE, 0};
    if (const auto* c = std::get_if<Conv2DOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::Conv2DOptions,
           tfl::CreateConv2DOptions(b, fb_padding(c->padding), c->stride_w, c->stride_h, fb_activation(c->activation),
                                    c->dilation_w, c->dilation_h).Union()};
    } else if (const auto* d = std::get_if<DepthwiseConv2DOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::DepthwiseConv2DOptions,
           tfl::CreateDepthwiseConv2DOptions(b, fb_padding(d->padding), d->stride_w, d->stride_h, d->depth_multiplier,
                                             fb_activation(d->activation), d->dilation_w, d->dilation_h).Union()};
    } else if (const auto* p = std::get_if<Pool2DOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::Pool2DOptions,
           tfl::CreatePool2DOptions(b, fb_padding(p->padding), p->stride_w, p->stride_h, p->filter_w, p->filter_h,
                                    fb_activation(p->activation)).Union()};
    } else if (const auto* a = std::get_if<ActivationOptions>(&op.options)) {
      o = op.is(BuiltinOp::add)
              ? std::pair{tfl::BuiltinOptions::AddOptions, tfl::CreateAddOptions(b, fb_activation(a->activation)).Union()}
              : std::pair{tfl::BuiltinOptions::MulOptions, tfl::CreateMulOptions(b, fb_activation(a->activation)).Union()};
    } else if (const auto* r = std::get_if<ReshapeOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::ReshapeOptions, tfl::CreateReshapeOptionsDirect(b, &r->new_shape).Union()};
    } else if (const auto* k = std::get_if<ConcatenationOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::ConcatenationOptions,
           tfl::CreateConcatenationOptions(b, k->axis, fb_activation(k->activation)).Union()};
    } else if (const auto* rb = std::get_if<ResizeBilinearOptions>(&op.options)) {
      o = {tfl::BuiltinOptions::ResizeBilinearOptions,
           tfl::CreateResizeBilinearOptions(b, rb->align_corners, rb->half_pixel_centers && half_pixel_centers).Union()};
    } else if (op.is(BuiltinOp::pad)) {
      o = {tfl::BuiltinOptions::PadOptions, tfl::CreatePadOptions(b).Union()};
    }
    ops.push_back(tfl::CreateOperatorDirect(b, static_cast<std::uint32_t>(code - codes.begin()), &op.inputs,
                                            &op.outputs, o.first, o.second));
  }
  std::vector<flatbuffers::Offset<tfl::OperatorCode>> code_tables;
  for (const std::int32_t c : codes) {
    code_tables.push_back(tfl::CreateOperatorCodeDirect(b, static_cast<std::int8_t>(std::min(c, 127)), nullptr, 1, c));
  }
  std::vector<flatbuffers::Offset<tfl::SubGraph>> subgraphs{
      tfl::CreateSubGraphDirect(b, &tensors, &model.inputs(), &model.outputs(), &ops, "main")};
  const auto root = tfl::CreateModelDirect(b, 3, &code_tables, &subgraphs, "float32 copy", &buffers);
  tfl::FinishModelBuffer(b, root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// Runs the model bytes through Arm NN's CpuRef backend; empty with a WARN when it cannot.
std::vector<std::vector<float>> run_armnn(const std::vector<std::uint8_t>& bytes, const Model& model,
                                          const std::vector<float>& input) {
  try {
    const auto parser = armnnTfLiteParser::ITfLiteParser::Create();
    const armnn::INetworkPtr network = parser->CreateNetworkFromBinary(bytes);
    const armnn::IRuntimePtr runtime = armnn::IRuntime::Create(armnn::IRuntime::CreationOptions());
    armnn::IOptimizedNetworkPtr optimized =
        armnn::Optimize(*network, {armnn::Compute::CpuRef}, runtime->GetDeviceSpec());
    armnn::NetworkId id;
    if (!optimized || runtime->LoadNetwork(id, std::move(optimized)) != armnn::Status::Success) {
      WARN("skipped: Arm NN could not load the network on CpuRef (libarmnn-cpuref-backend22 installed?)");
      return {};
    }
    const auto in = parser->GetNetworkInputBindingInfo(0, model.tensor(model.inputs()[0]).name);
    const armnn::InputTensors inputs{{in.first, armnn::ConstTensor(in.second, input.data())}};
    std::vector<std::vector<float>> outs;
    armnn::OutputTensors outputs;
    for (const int t : model.outputs()) {
      const auto info = parser->GetNetworkOutputBindingInfo(0, model.tensor(t).name);
      outs.emplace_back(info.second.GetNumElements());
      outputs.push_back({info.first, armnn::Tensor(info.second, outs.back().data())});
    }
    if (runtime->EnqueueWorkload(id, inputs, outputs) != armnn::Status::Success) {
      WARN("skipped: Arm NN failed to run the network");
      return {};
    }
    return outs;
  } catch (const std::exception& e) {
    WARN("skipped: Arm NN cannot run it: " << e.what());
    return {};
  }
}

}  // namespace

TEST_CASE("CpuEngine agrees with Arm NN's TfLite parser on the face detectors", "[infer]") {
  struct Case {
    const char* file;
    bool half_pixel_centers;  // kept in the copy both engines run
  };
  for (const Case& c : {Case{"face_detection_short_range.tflite", true}, Case{"face_detection_full_range.tflite", false}}) {
    const auto path = gp::test::find_model(c.file);
    if (!path) continue;
    INFO(c.file);
    const auto bytes = float32_model(Model::load(*path), c.half_pixel_centers);
    const Model copy = Model::from_bytes(bytes, std::string(c.file) + " (float32 copy)");
    CpuEngine engine(copy, 1);
    std::vector<float> input(static_cast<std::size_t>(element_count(engine.input_shapes()[0])));
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = std::sin(0.0137f * static_cast<float>(i));
    const auto ours = engine.run({input});
    const auto theirs = run_armnn(bytes, copy, input);
    if (theirs.empty()) continue;
    REQUIRE(theirs.size() == ours.size());
    for (std::size_t o = 0; o < ours.size(); ++o) {
      INFO("output " << o);
      REQUIRE(theirs[o].size() == ours[o].size());
      float largest = 0;
      for (const float v : ours[o]) largest = std::max(largest, std::abs(v));
      CHECK(largest > 1.0f);  // not a degenerate all-zero output
      for (std::size_t i = 0; i < ours[o].size(); ++i) {
        INFO("element " << i << ": ours " << ours[o][i] << ", Arm NN " << theirs[o][i]);
        // Different summation orders: float rounding only (measured up to 5e-5 of 60).
        REQUIRE(std::abs(ours[o][i] - theirs[o][i]) <= 1e-5f * largest + 1e-5f);
      }
    }
  }
}

#endif
