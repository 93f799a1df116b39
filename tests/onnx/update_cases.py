#!/usr/bin/python3
"""Copies ONNX backend node cases for the engine's operators into tests/onnx/node.

usage: update_cases.py ONNX_NODE_DIR

ONNX_NODE_DIR is onnx/backend/test/data/node of an ONNX source tree. A case is copied when its
graph is one node of an operator below, or several nodes all of such operators. Add an
operator here when the engine gains a kernel for it, rerun, and commit the new cases.
"""

import os
import shutil
import sys

import onnx

OPS = {
    "Abs", "Add", "AveragePool", "BatchNormalization", "Cast", "Clip", "Concat", "Constant",
    "ConstantOfShape", "Conv", "ConvTranspose", "Div", "Dropout", "Erf", "Exp", "Expand",
    "Flatten", "Gather", "Gelu", "Gemm", "GlobalAveragePool", "GlobalMaxPool", "HardSigmoid",
    "HardSwish", "Identity", "LRN", "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax",
    "MatMul", "Max", "MaxPool", "Mean", "Min", "Mul", "Neg", "PRelu", "Pad", "Pow", "ReduceMax",
    "ReduceMean", "ReduceSum", "Relu", "Reshape", "Resize", "Shape", "Sigmoid", "Slice",
    "Softmax", "Split", "Sqrt", "Squeeze", "Sub", "Sum", "Tanh", "Transpose", "Unsqueeze",
    "Upsample", "Where",
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "node")
    copied = 0
    for case in sorted(os.listdir(source)):
        model_path = os.path.join(source, case, "model.onnx")
        if not os.path.exists(model_path):
            continue
        model = onnx.load(model_path, load_external_data=False)
        ops = {node.op_type for node in model.graph.node}
        if not ops or not ops <= OPS:
            continue
        destination = os.path.join(target, case)
        shutil.rmtree(destination, ignore_errors=True)
        shutil.copytree(os.path.join(source, case), destination)
        for root, dirs, files in os.walk(destination):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
        copied += 1
    print(f"copied {copied} cases into {target}")


if __name__ == "__main__":
    main()
