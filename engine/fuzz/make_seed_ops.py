#!/usr/bin/python3
"""Writes engine/fuzz/seeds/onnx_loader/convtranspose_resize_pad_mix.onnx, a seed for the loader fuzzer.

Its shape-deciding inputs (Resize's scales, Pad's pads, Split's sizes, Expand's shape,
ReduceSum's axes) are initializers, so that the model loads and runs, and mutations reach the
kernels of the operators added after phase 1 rather than only their load-time refusals:
ConvTranspose, Resize, Pad, LayerNormalization, Split, Where, ReduceSum, Expand, Pow,
MaxPool with Indices, Max and LogSoftmax (opset 17). Needs python3-onnx and python3-numpy.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    rng = np.random.default_rng(5)

    def init(name, array):
        return numpy_helper.from_array(np.asarray(array), name)

    initializers = [
        init("w", rng.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32)),
        init("b", rng.uniform(-1, 1, (2,)).astype(np.float32)),
        init("scales", np.array([1, 1, 0.5, 0.5], dtype=np.float32)),
        init("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64)),
        init("gamma", rng.uniform(0.5, 1.5, (7,)).astype(np.float32)),
        init("beta", rng.uniform(-0.5, 0.5, (7,)).astype(np.float32)),
        init("split", np.array([1, 1], dtype=np.int64)),
        init("condition", np.array([True, False, True, True, False, True, False])),
        init("axes", np.array([3], dtype=np.int64)),
        init("shape", np.array([1, 1, 7, 7], dtype=np.int64)),
        init("two", np.array(2.0, dtype=np.float32)),
    ]
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["up"], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Resize", ["up", "", "scales"], ["small"], mode="linear"),
        helper.make_node("Pad", ["small", "pads"], ["padded"], mode="reflect"),
        helper.make_node("LayerNormalization", ["padded", "gamma", "beta"], ["normed"],
                         axis=-1),
        helper.make_node("Split", ["normed", "split"], ["a", "b2"], axis=1),
        helper.make_node("Where", ["condition", "a", "b2"], ["picked"]),
        helper.make_node("ReduceSum", ["picked", "axes"], ["sums"], keepdims=1),
        helper.make_node("Expand", ["sums", "shape"], ["wide"]),
        helper.make_node("Pow", ["wide", "two"], ["squared"]),
        helper.make_node("MaxPool", ["picked"], ["pooled", "indices"], kernel_shape=[2, 2],
                         pads=[0, 0, 1, 1]),
        helper.make_node("Max", ["pooled", "squared"], ["larger"]),
        helper.make_node("LogSoftmax", ["larger"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "convtranspose_resize_pad_mix",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 7, 7]),
         helper.make_tensor_value_info("indices", TensorProto.INT64, [1, 1, 7, 7])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "onnx_loader",
                        "convtranspose_resize_pad_mix.onnx")
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
