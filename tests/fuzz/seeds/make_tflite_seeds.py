#!/usr/bin/env python3
"""Tiny valid .tflite models for the tflite fuzzer's seed corpus, written as flatc JSON over
src/infer/tflite_schema.fbs and compiled to binary by flatc (the real MediaPipe models are
0.2-1.2 MB each: too big for a fuzzing corpus).  usage: make_tflite_seeds.py SCHEMA OUT_DIR"""
import json
import os
import struct
import subprocess
import sys
import tempfile

FLOAT32, FLOAT16, INT32 = "FLOAT32", "FLOAT16", "INT32"
CODES = {"ADD": 0, "CONCATENATION": 2, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 4, "DEQUANTIZE": 6, "LOGISTIC": 14,
         "MAX_POOL_2D": 17, "MUL": 18, "RESHAPE": 22, "RESIZE_BILINEAR": 23, "CUSTOM": 32, "PAD": 34,
         "MEAN": 40, "PRELU": 54, "HARD_SWISH": 117}


def f32(values):
    return list(struct.pack(f"<{len(values)}f", *values))


def f16(values):
    return list(struct.pack(f"<{len(values)}e", *values))


def i32(values):
    return list(struct.pack(f"<{len(values)}i", *values))


class Graph:
    def __init__(self, description):
        self.description = description
        self.buffers = [{}]
        self.tensors, self.ops, self.codes = [], [], []
        self.inputs, self.outputs, self.metadata = [], [], []

    def tensor(self, name, shape, type_=FLOAT32, data=None):
        buffer = 0
        if data is not None:
            self.buffers.append({"data": data})
            buffer = len(self.buffers) - 1
        self.tensors.append({"name": name, "shape": shape, "type": type_, "buffer": buffer})
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, options_type=None, options=None, custom=None, custom_options=None):
        key = (code, custom)
        if key not in self.codes:
            self.codes.append(key)
        entry = {"opcode_index": self.codes.index(key), "inputs": inputs, "outputs": outputs}
        if options_type:
            entry["builtin_options_type"] = options_type
            entry["builtin_options"] = options or {}
        if custom_options is not None:
            entry["custom_options"] = custom_options
        self.ops.append(entry)

    def min_runtime_version(self, text):
        self.buffers.append({"data": list(text.encode()) + [0] * (16 - len(text))})
        self.metadata.append({"name": "min_runtime_version", "buffer": len(self.buffers) - 1})

    def to_json(self):
        codes = []
        for code, custom in self.codes:
            value = CODES[code]
            entry = {"deprecated_builtin_code": min(value, 127), "builtin_code": value, "version": 1}
            if custom:
                entry["custom_code"] = custom
            codes.append(entry)
        model = {"version": 3, "description": self.description, "operator_codes": codes,
                 "subgraphs": [{"tensors": self.tensors, "inputs": self.inputs, "outputs": self.outputs,
                                "operators": self.ops, "name": "main"}],
                 "buffers": self.buffers}
        if self.metadata:
            model["metadata"] = self.metadata
        return model


def conv_model():
    """DEQUANTIZE of an FP16 filter, then CONV_2D with bias, stride 2, RELU6 (as the reader test)."""
    g = Graph("fuzz seed: conv")
    x = g.tensor("input", [1, 4, 4, 2])
    w16 = g.tensor("filter_fp16", [3, 1, 1, 2], FLOAT16, f16([0.5, -1.0, 2.0, 0.25, -0.125, 65504.0]))
    w = g.tensor("filter", [3, 1, 1, 2])
    bias = g.tensor("bias", [3], FLOAT32, f32([1.0, 2.0, 3.0]))
    y = g.tensor("output", [1, 2, 2, 3])
    g.op("DEQUANTIZE", [w16], [w])
    g.op("CONV_2D", [x, w, bias], [y], "Conv2DOptions",
         {"padding": "SAME", "stride_w": 2, "stride_h": 2, "fused_activation_function": "RELU6"})
    g.inputs, g.outputs = [x], [y]
    g.min_runtime_version("1.14.0")
    return g


def pool_model():
    """DEPTHWISE_CONV_2D, MAX_POOL_2D, ADD (broadcast, RELU), RESHAPE by a shape input,
    CONCATENATION, LOGISTIC."""
    g = Graph("fuzz seed: depthwise, pool, add, reshape, concat")
    x = g.tensor("input", [1, 4, 4, 2])
    w = g.tensor("dw_filter", [1, 3, 3, 2], FLOAT32, f32([0.1 * i - 0.5 for i in range(18)]))
    b = g.tensor("dw_bias", [2], FLOAT32, f32([0.5, -0.5]))
    t1 = g.tensor("dw", [1, 4, 4, 2])
    t2 = g.tensor("pool", [1, 2, 2, 2])
    c = g.tensor("offset", [2], FLOAT32, f32([1.0, -2.0]))
    t3 = g.tensor("add", [1, 2, 2, 2])
    shape = g.tensor("shape", [2], INT32, i32([1, 8]))
    t4 = g.tensor("flat", [1, 8])
    t5 = g.tensor("concat", [1, 16])
    y = g.tensor("output", [1, 16])
    g.op("DEPTHWISE_CONV_2D", [x, w, b], [t1], "DepthwiseConv2DOptions",
         {"padding": "SAME", "stride_w": 1, "stride_h": 1, "depth_multiplier": 1})
    g.op("MAX_POOL_2D", [t1], [t2], "Pool2DOptions",
         {"padding": "VALID", "stride_w": 2, "stride_h": 2, "filter_width": 2, "filter_height": 2})
    g.op("ADD", [t2, c], [t3], "AddOptions", {"fused_activation_function": "RELU"})
    g.op("RESHAPE", [t3, shape], [t4], "ReshapeOptions", {"new_shape": [1, 8]})
    g.op("CONCATENATION", [t4, t4], [t5], "ConcatenationOptions", {"axis": 1})
    g.op("LOGISTIC", [t5], [y])
    g.inputs, g.outputs = [x], [y]
    return g


def resize_model():
    """RESIZE_BILINEAR by a size input, PAD, MediaPipe's Convolution2DTransposeBias, PRELU,
    HARD_SWISH, MEAN over the spatial axes."""
    g = Graph("fuzz seed: resize, pad, transpose conv, mean")
    x = g.tensor("input", [1, 2, 2, 1])
    size = g.tensor("size", [2], INT32, i32([4, 4]))
    r = g.tensor("resized", [1, 4, 4, 1])
    paddings = g.tensor("paddings", [4, 2], INT32, i32([0, 0, 1, 1, 1, 1, 0, 0]))
    p = g.tensor("padded", [1, 6, 6, 1])
    w = g.tensor("up_filter", [1, 2, 2, 1], FLOAT32, f32([0.25, 0.5, 0.75, 1.0]))
    b = g.tensor("up_bias", [1], FLOAT32, f32([0.125]))
    u = g.tensor("upsampled", [1, 12, 12, 1])
    alpha = g.tensor("alpha", [1], FLOAT32, f32([0.2]))
    a = g.tensor("prelu", [1, 12, 12, 1])
    h = g.tensor("hard_swish", [1, 12, 12, 1])
    axes = g.tensor("axes", [2], INT32, i32([1, 2]))
    y = g.tensor("output", [1, 1, 1, 1])
    g.op("RESIZE_BILINEAR", [x, size], [r], "ResizeBilinearOptions", {"half_pixel_centers": True})
    g.op("PAD", [r, paddings], [p])
    g.op("CUSTOM", [p, w, b], [u], custom="Convolution2DTransposeBias", custom_options=i32([1, 2, 2]))
    g.op("PRELU", [u, alpha], [a])
    g.op("HARD_SWISH", [a], [h])
    g.op("MEAN", [h, axes], [y], "ReducerOptions", {"keep_dims": True})
    g.inputs, g.outputs = [x], [y]
    return g


def main():
    schema, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in [("conv", conv_model), ("pool", pool_model), ("resize", resize_model)]:
            path = os.path.join(tmp, f"seed_{name}.json")
            with open(path, "w") as f:
                json.dump(make().to_json(), f)
            subprocess.run(["flatc", "--binary", "-o", tmp, schema, path], check=True)
            os.replace(os.path.join(tmp, f"seed_{name}.bin"), os.path.join(out_dir, f"seed_{name}.tflite"))


if __name__ == "__main__":
    main()
