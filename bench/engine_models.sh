#!/bin/sh
# Exports the torchvision models the engine targets (random weights, fixed seed, 224x224,
# opset 13) and runs edgemond-bench on each, printing one Markdown table row per model.
#
# usage: bench/engine_models.sh BUILD_DIR [RUNS] [THREADS] [MODELS]
#   BUILD_DIR  a CMake build of this repository (holds engine/edgemond-bench)
#   MODELS     comma-separated torchvision names (default: the six phase-1 networks)
#
# Needs python3 with torch, torchvision and onnx (Debian: python3-torch python3-torchvision
# python3-onnx). Every model is also checked against PyTorch's output before it is timed.
set -eu

build=${1:?usage: $0 BUILD_DIR [RUNS] [THREADS] [MODELS]}
runs=${2:-10}
threads=${3:-1}
models=${4:-mobilenet_v2,resnet18,squeezenet1_1,shufflenet_v2_x1_0,mobilenet_v3_small,efficientnet_b0}
repo=$(cd "$(dirname "$0")/.." && pwd)
python=/usr/bin/python3
[ -x "$python" ] || python=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" "$repo/tests/models/export_models.py" --out "$work" --models "$models" --opset 13 \
  --size 224 >/dev/null 2>&1

echo "| model | GFLOP | load ms | p50 ms | min ms | max ms | arena MiB | peak RSS MiB | check |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in $(echo "$models" | tr ',' ' '); do
  case_dir="$work/${name}_opset13"
  if "$build/engine/edgemond-bench" "$case_dir/model.onnx" --check "$case_dir/test_data_set_0" \
      --runs 1 --warmup 0 >/dev/null 2>&1; then
    check=ok
  else
    check=MISMATCH
  fi
  "$build/engine/edgemond-bench" "$case_dir/model.onnx" --runs "$runs" --warmup 2 \
    --threads "$threads" --json >"$work/$name.json"
  "$python" - "$work/$name.json" "$name" "$check" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
latency = report["latency_ms"]
print("| %s | %.3f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |" % (
    sys.argv[2], report["model"]["flops"] / 1e9, report["load_ms"], latency["p50"],
    latency["min"], latency["max"], report["memory"]["arena_bytes"] / 2**20,
    report["memory"]["peak_rss_bytes"] / 2**20, sys.argv[3]))
PY
done
