#!/usr/bin/python3
"""Exports torchvision architectures (and an MLP) to ONNX with reference outputs, for the engine.

Uses only Debian's python3-torch, python3-torchvision and python3-onnx, offline: weights are
random (fixed seed), not downloaded. Each model is written in the ONNX model-zoo layout:

    OUT/<model>_opset<N>/model.onnx
    OUT/<model>_opset<N>/test_data_set_0/input_0.pb    (onnx.TensorProto)
    OUT/<model>_opset<N>/test_data_set_0/output_0.pb   (PyTorch's output, the reference)

Random initialisation makes degenerate references: with torchvision's default init,
BatchNorm layers normalise with running statistics that do not match the activations, so
mobilenet_v2's logits are around 1e-9 and efficientnet_b0's around 1e-14, and any engine
"matches" them. So before export every BatchNorm layer gets small random scales and biases
and its statistics are re-estimated on a few random batches in train mode, zero biases get
small random values, LayerNorm/GroupNorm scales and biases and ConvNeXt's layer scales
(1e-6 at init) get values that let every block count, and the reference outputs are checked
for a sensible magnitude and for a top-1 class that a 1e-4 relative error cannot flip.
"""

import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper

# A multilayer perceptron next to the CNNs: 1024 inputs, two hidden layers of 2048 with ReLU,
# 1000 outputs (8.4 M parameters); "mlp" in --models.
MLP_FEATURES = (1024, 2048, 2048, 1000)

# Models the engine must run; the CI test uses the first three.
MODELS = [
    "mobilenet_v2",
    "resnet18",
    "squeezenet1_1",
    "shufflenet_v2_x1_0",
    "mobilenet_v3_small",
    "efficientnet_b0",
    "mobilenet_v3_large",
    "mnasnet1_0",
    "regnet_y_400mf",
    "googlenet",
    "densenet121",
    "convnext_tiny",
    "resnet50",
    "mlp",
]

SEED = 20260101


def make_mlp():
    layers = []
    for i in range(len(MLP_FEATURES) - 1):
        layers.append(torch.nn.Linear(MLP_FEATURES[i], MLP_FEATURES[i + 1]))
        if i + 2 < len(MLP_FEATURES):
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def make_input(name, batch, size, generator):
    if name == "mlp":
        return torch.randn(batch, MLP_FEATURES[0], generator=generator)
    return torch.randn(batch, 3, size, size, generator=generator)


def randomize(model, name, size, generator):
    """Gives BatchNorm and zero-initialised parameters realistic random values."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.uniform_(-0.2, 0.2, generator=generator)
                module.reset_running_stats()
                module.momentum = None  # Cumulative average over the batches below.
            elif isinstance(module, (torch.nn.Conv2d, torch.nn.Linear)):
                if module.bias is not None:
                    module.bias.uniform_(-0.1, 0.1, generator=generator)
            elif isinstance(module, (torch.nn.LayerNorm, torch.nn.GroupNorm)):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.uniform_(-0.2, 0.2, generator=generator)
            if isinstance(getattr(module, "layer_scale", None), torch.nn.Parameter):
                # ConvNeXt's blocks start at 1e-6: their residual branches would not count.
                module.layer_scale.uniform_(0.2, 0.6, generator=generator)
        model.train()
        for _ in range(4):
            model(make_input(name, 8, size, generator))
    model.eval()


def check_reference(name, output, tolerance):
    """Refuses references that any engine would match (or that are broken)."""
    values = output.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise SystemExit(f"{name}: reference output is not finite")
    spread = float(np.std(values))
    if not 1e-2 <= spread <= 1e3:
        raise SystemExit(f"{name}: reference output std {spread:.3g} is degenerate")
    for row in values.reshape(values.shape[0], -1):
        top = np.sort(row)[-2:]
        margin = top[1] - top[0]
        if margin <= 4 * tolerance * max(1.0, abs(top[1])):
            return False
    return True


def export(name, opset, size, batch, dynamic, out_dir, tolerance):
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = make_mlp() if name == "mlp" else getattr(torchvision.models, name)()
    randomize(model, name, size, generator)

    # Draw inputs until every sample's top-1 class is unambiguous at the test tolerance.
    for attempt in range(20):
        x = make_input(name, batch, size, generator)
        with torch.no_grad():
            y = model(x).numpy()
        if check_reference(name, y, tolerance):
            break
    else:
        raise SystemExit(f"{name}: no input with an unambiguous top-1 class")

    case = os.path.join(out_dir, f"{name}_opset{opset}")
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    model_path = os.path.join(case, "model.onnx")
    axes = {"input": {0: "batch", 2: "height", 3: "width"}, "output": {0: "batch"}}
    if name == "mlp":
        axes = {"input": {0: "batch"}, "output": {0: "batch"}}
    torch.onnx.export(
        model,
        x,
        model_path,
        opset_version=opset,
        input_names=["input"],
        output_names=["output"],
        dynamic_axes=axes if dynamic else None,
    )
    onnx.checker.check_model(onnx.load(model_path))
    with open(os.path.join(data, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.numpy(), "input").SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "output").SerializeToString())
    print(f"{case}: input {list(x.shape)}, output std {np.std(y):.3g}, "
          f"max |y| {np.max(np.abs(y)):.3g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--models", default=",".join(MODELS[:3]),
                        help="comma-separated torchvision model names, or mlp")
    parser.add_argument("--opset", type=int, default=13)
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--dynamic", action="store_true",
                        help="export batch, height and width as symbolic dimensions")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="relative tolerance the consumer will use (for the top-1 check)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name in args.models.split(","):
        if name != "mlp" and not hasattr(torchvision.models, name):
            raise SystemExit(f"unknown torchvision model '{name}'")
        export(name, args.opset, args.size, args.batch, args.dynamic, args.out, args.tolerance)
    return 0


if __name__ == "__main__":
    sys.exit(main())
