#!/bin/sh
# Exports the networks the engine targets (random weights, fixed seed, 224x224) at each opset,
# checks every one against PyTorch's output and times it with edgemond-bench, printing one
# Markdown table row per model and opset. Opsets after 13 are exported with symbolic batch,
# height and width, bound from the golden input at load.
#
# usage: bench/engine_models.sh BUILD_DIR [RUNS] [THREADS] [MODELS] [OPSETS]
#   BUILD_DIR  a CMake build of this repository (holds engine/edgemond-bench)
#   MODELS     comma-separated names from tests/models/export_models.py (default: every
#              torchvision family there and the MLP)
#   OPSETS     comma-separated ONNX opsets (default: 13,17)
#
# Needs python3 with torch, torchvision and onnx (Debian: python3-torch python3-torchvision
# python3-onnx). Exit status 1 if any model failed its check.
set -eu

build=${1:?usage: $0 BUILD_DIR [RUNS] [THREADS] [MODELS] [OPSETS]}
runs=${2:-10}
threads=${3:-1}
models=${4:-mobilenet_v2,resnet18,squeezenet1_1,shufflenet_v2_x1_0,mobilenet_v3_small,mobilenet_v3_large,efficientnet_b0,mnasnet1_0,regnet_y_400mf,googlenet,densenet121,convnext_tiny,resnet50,mlp}
opsets=${5:-13,17}
repo=$(cd "$(dirname "$0")/.." && pwd)
python=/usr/bin/python3
[ -x "$python" ] || python=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for opset in $(echo "$opsets" | tr ',' ' '); do
  dynamic=
  [ "$opset" -gt 13 ] && dynamic=--dynamic
  "$python" "$repo/tests/models/export_models.py" --out "$work" --models "$models" \
    --opset "$opset" --size 224 $dynamic >/dev/null 2>&1
done

status=0
echo "| model | opset | GFLOP | load ms | p50 ms | min ms | max ms | arena MiB | peak RSS MiB | check (max abs error) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in $(echo "$models" | tr ',' ' '); do
  for opset in $(echo "$opsets" | tr ',' ' '); do
    case_dir="$work/${name}_opset${opset}"
    # The golden input is also the timed runs' input, and fixes symbolic dimensions.
    "$build/engine/edgemond-bench" "$case_dir/model.onnx" --check "$case_dir" --runs "$runs" \
      --warmup 2 --threads "$threads" --json >"$work/report.json" || status=1
    "$python" - "$work/report.json" "$name" "$opset" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
name, opset = sys.argv[2], sys.argv[3]
if "error" in report:
    print("| %s | %s | | | | | | | | ERROR: %s |" % (name, opset, report["error"]["message"]))
    sys.exit(0)
latency = report["latency_ms"]
check = report["check"]
error = max(o.get("max_abs_error", float("inf")) for o in check["outputs"])
print("| %s | %s | %.3f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s (%.1e) |" % (
    name, opset, report["model"]["flops"] / 1e9, report["load_ms"], latency["p50"],
    latency["min"], latency["max"], report["memory"]["arena_bytes"] / 2**20,
    report["memory"]["peak_rss_bytes"] / 2**20, "ok" if check["passed"] else "MISMATCH",
    error))
PY
  done
done
exit $status
