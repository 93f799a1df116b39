#!/usr/bin/python3
"""edgemond's engine against ONNX Runtime: latency, load time and memory, side by side.

    bench/engine-vs-ort/run.py --build BUILD_DIR [--models LIST] [--threads 1,2] [--rounds 5]
                               [--models-dir DIR] [--json FILE]

Exports the models (tests/models/export_models.py: torchvision architectures with random
weights and an MLP, 224x224, opset 13) unless --models-dir holds them already, then

1. checks correctness: edgemond-bench --check against PyTorch's output, ONNX Runtime on the
   same input against PyTorch, and edgemond-bench --check against ONNX Runtime's output
   (|a - e| <= 1e-4 * max(1, |e|) and the same top-1);
2. times both runtimes in rounds: in every round, for every model and thread count, one
   edgemond-bench process and one ONNX Runtime process (ort_bench.js), in alternating order,
   each loading the model and running warm-ups and timed runs on the same deterministic
   input. A round's figure for a runtime is that process's median latency; the table gives
   the median over the rounds, and the ratio edgemond / ONNX Runtime of those medians.

Load time is the wall time from the file to a session ready to run (edgemond: LoadOnnxModel
and Session::Create; ONNX Runtime: InferenceSession.create). Memory is the peak resident set
minus the resident set just before loading, so that the Node.js runtime hosting ONNX Runtime
is not counted against it; the raw peaks are in the JSON.

ONNX Runtime is the npm package onnxruntime-node (CPU execution provider, every graph
optimization on, intra-op threads = --threads, sequential execution), installed next to this
script with `npm install --ignore-scripts onnxruntime-node` (docs/performance.md).
Needs Debian's python3-torch, python3-torchvision, python3-onnx and nodejs.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MODELS = [
    "mobilenet_v2",
    "mobilenet_v3_small",
    "resnet18",
    "resnet50",
    "squeezenet1_1",
    "shufflenet_v2_x1_0",
    "efficientnet_b0",
    "mlp",
]
TOLERANCE = 1e-4
# Each timed process runs for about this long (after warm-up), at least MIN_RUNS runs.
TARGET_SECONDS = 1.5
MIN_RUNS = 15
MAX_RUNS = 400
WARMUP = 5


def run_json(command):
    result = subprocess.run(command, capture_output=True, text=True)
    try:
        return json.loads(result.stdout), result.returncode
    except json.JSONDecodeError:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")


def edgemond(args, model, threads, runs, warmup, extra=()):
    command = [os.path.join(args.build, "engine", "edgemond-bench"), model, "--json",
               "--threads", str(threads), "--runs", str(runs), "--warmup", str(warmup), *extra]
    report, code = run_json(command)
    if "error" in report:
        raise SystemExit(f"edgemond-bench {model}: {report['error']}")
    return report, code


def ort(args, model, threads, runs, warmup, extra=()):
    command = [args.node, os.path.join(HERE, "ort_bench.js"), model, "--threads", str(threads),
               "--runs", str(runs), "--warmup", str(warmup), *extra]
    report, code = run_json(command)
    if code != 0:
        raise SystemExit(f"ort_bench.js {model} exited {code}")
    return report


def scaled_error(actual, expected):
    import numpy as np

    a = actual.astype(np.float64).ravel()
    e = expected.astype(np.float64).ravel()
    return float(np.max(np.abs(a - e) / np.maximum(1.0, np.abs(e)))), int(np.argmax(a)) == int(
        np.argmax(e))


def check(args, name, case, work):
    """Three-way comparison: edgemond, ONNX Runtime and PyTorch on PyTorch's input."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    model = os.path.join(case, "model.onnx")
    data = os.path.join(case, "test_data_set_0")
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "input_0.pb")))
    torch_y = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, "output_0.pb")))
    raw_in = os.path.join(work, f"{name}.input.bin")
    raw_out = os.path.join(work, f"{name}.ort_output.bin")
    x.astype("<f4").tofile(raw_in)
    ort(args, model, 1, 1, 0, ["--input-raw", raw_in, "--output-raw", raw_out])
    ort_y = np.fromfile(raw_out, dtype="<f4").reshape(torch_y.shape)
    ort_vs_torch, ort_top1 = scaled_error(ort_y, torch_y)

    # ONNX Runtime's output as golden data for edgemond-bench --check.
    ort_dir = os.path.join(work, f"{name}.ort_reference")
    os.makedirs(ort_dir, exist_ok=True)
    with open(os.path.join(ort_dir, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "input").SerializeToString())
    with open(os.path.join(ort_dir, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(ort_y, "output").SerializeToString())

    result = {"ort_vs_torch": ort_vs_torch, "ort_top1_vs_torch": ort_top1}
    for label, golden in (("edgemond_vs_torch", data), ("edgemond_vs_ort", ort_dir)):
        for threads in args.threads:
            report, code = edgemond(args, model, threads, 1, 0,
                                    ["--check", golden, "--tolerance", str(TOLERANCE)])
            output = report["check"]["outputs"][0]
            key = f"{label}_{threads}t"
            result[key] = output.get("max_scaled_error")
            result[key + "_passed"] = code == 0 and report["check"]["passed"]
    return result


def median(values):
    return statistics.median(values) if values else float("nan")


def machine():
    info = {"platform": platform.platform(), "cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    info["simd"] = [f for f in ("avx2", "fma", "avx512f", "asimd") if f in flags]
                    break
    except OSError:
        pass
    return info


def git_describe():
    try:
        return subprocess.run(["git", "-C", REPO, "describe", "--always", "--dirty"],
                              capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, help="CMake build dir with edgemond-bench")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--models-dir", help="exported models (default: export to a temp dir)")
    parser.add_argument("--json", help="write every measurement here")
    parser.add_argument("--node", default="node")
    args = parser.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    models = args.models.split(",")

    work = tempfile.mkdtemp(prefix="engine-vs-ort.")
    models_dir = args.models_dir or os.path.join(work, "models")
    missing = [m for m in models
               if not os.path.exists(os.path.join(models_dir, f"{m}_opset13", "model.onnx"))]
    if missing:
        print(f"exporting {','.join(missing)} to {models_dir}", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(REPO, "tests", "models", "export_models.py"),
                        "--out", models_dir, "--models", ",".join(missing), "--opset", "13",
                        "--size", "224"], check=True, stdout=subprocess.DEVNULL)
    cases = {m: os.path.join(models_dir, f"{m}_opset13") for m in models}

    results = {"command": " ".join(sys.argv), "machine": machine(), "commit": git_describe(),
               "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "load_average_before": os.getloadavg(), "models": {}}
    for name in models:
        print(f"checking {name}", file=sys.stderr)
        results["models"][name] = {"check": check(args, name, cases[name], work), "runs": {}}

    # Run counts from one short ONNX Runtime run per model: about TARGET_SECONDS per process.
    runs = {}
    for name in models:
        report = ort(args, os.path.join(cases[name], "model.onnx"), 1, 5, 2)
        ms = report["latency_ms"]["p50"]
        runs[name] = max(MIN_RUNS, min(MAX_RUNS, int(TARGET_SECONDS * 1000 / ms)))
        results["models"][name]["timed_runs_per_process"] = runs[name]

    for r in range(args.rounds):
        for name in models:
            model = os.path.join(cases[name], "model.onnx")
            for threads in args.threads:
                print(f"round {r + 1}/{args.rounds} {name} {threads}t", file=sys.stderr)
                order = ["edgemond", "ort"] if r % 2 == 0 else ["ort", "edgemond"]
                entry = results["models"][name]["runs"].setdefault(
                    str(threads), {"edgemond": [], "ort": []})
                for runtime in order:
                    if runtime == "edgemond":
                        report, _ = edgemond(args, model, threads, runs[name], WARMUP)
                        entry["edgemond"].append({
                            "p50": report["latency_ms"]["p50"],
                            "min": report["latency_ms"]["min"],
                            "cpu_ms_per_run": report["cpu_ms_per_run"],
                            "load_ms": report["load_ms"] + report["session_create_ms"],
                            "baseline_rss": report["memory"]["baseline_rss_bytes"],
                            "peak_rss": report["memory"]["peak_rss_bytes"],
                            "arena_bytes": report["memory"]["arena_bytes"],
                        })
                    else:
                        report = ort(args, model, threads, runs[name], WARMUP)
                        entry["ort"].append({
                            "p50": report["latency_ms"]["p50"],
                            "min": report["latency_ms"]["min"],
                            "cpu_ms_per_run": report["cpu_ms_per_run"],
                            "load_ms": report["load_ms"],
                            "baseline_rss": report["memory"]["baseline_rss_bytes"],
                            "peak_rss": report["memory"]["peak_rss_bytes"],
                        })
    results["load_average_after"] = os.getloadavg()
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")

    # Summary.
    summary = {}
    for name in models:
        for threads, entry in results["models"][name]["runs"].items():
            s = {}
            for runtime in ("edgemond", "ort"):
                rounds = entry[runtime]
                s[runtime] = {
                    "p50_ms": median([x["p50"] for x in rounds]),
                    "cpu_ms": median([x["cpu_ms_per_run"] for x in rounds]),
                    "load_ms": median([x["load_ms"] for x in rounds]),
                    "memory_mib": median([(x["peak_rss"] - x["baseline_rss"]) / 2**20
                                          for x in rounds]),
                    "peak_rss_mib": median([x["peak_rss"] / 2**20 for x in rounds]),
                }
            s["ratio"] = s["edgemond"]["p50_ms"] / s["ort"]["p50_ms"]
            s["round_ratios"] = [e["p50"] / o["p50"] for e, o in zip(entry["edgemond"],
                                                                      entry["ort"])]
            summary.setdefault(name, {})[threads] = s
    results["summary"] = summary
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)

    m = results["machine"]
    print(f"machine: {m.get('cpu', '?')}, {m['cpus']} CPUs, {' '.join(m.get('simd', []))}; "
          f"load average {results['load_average_before'][0]:.2f} before, "
          f"{results['load_average_after'][0]:.2f} after; {args.rounds} rounds; "
          f"commit {results['commit']}")
    print()
    print("| model | threads | edgemond p50 ms | ORT p50 ms | ratio | ratio range over rounds "
          "| load ms (e / ORT) | memory MiB (e / ORT) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in models:
        for threads in map(str, args.threads):
            s = summary[name][threads]
            e, o = s["edgemond"], s["ort"]
            print(f"| {name} | {threads} | {e['p50_ms']:.3f} | {o['p50_ms']:.3f} | "
                  f"**{s['ratio']:.2f}** | {min(s['round_ratios']):.2f}-"
                  f"{max(s['round_ratios']):.2f} | {e['load_ms']:.1f} / {o['load_ms']:.1f} | "
                  f"{e['memory_mib']:.1f} / {o['memory_mib']:.1f} |")
    print()
    for threads in map(str, args.threads):
        ratios = [summary[name][threads]["ratio"] for name in models]
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"{threads} thread(s): geometric mean ratio {geo:.3f}, worst {max(ratios):.2f}")
    print()
    print("| model | edgemond vs PyTorch (1t / 2t) | ORT vs PyTorch | edgemond vs ORT (1t / 2t) |")
    print("|---|---|---|---|")
    for name in models:
        c = results["models"][name]["check"]
        t = [str(x) for x in args.threads]

        def cell(label):
            return " / ".join(
                f"{c[f'{label}_{x}t']:.1e}" + ("" if c[f"{label}_{x}t_passed"] else " FAIL")
                for x in t)

        print(f"| {name} | {cell('edgemond_vs_torch')} | {c['ort_vs_torch']:.1e}"
              f"{'' if c['ort_top1_vs_torch'] else ' (top-1 differs)'} | "
              f"{cell('edgemond_vs_ort')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
