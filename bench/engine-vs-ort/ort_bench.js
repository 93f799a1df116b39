#!/usr/bin/env node
// Runs one ONNX model on ONNX Runtime (npm onnxruntime-node, CPU execution provider, every
// graph optimization on) the way edgemond-bench runs it on edgemond, and prints one JSON
// object with the same fields: load_ms, latency_ms {runs, min, mean, p50, p90, p99, max},
// cpu_ms_per_run, memory {baseline_rss_bytes, peak_rss_bytes}.
//
//   node ort_bench.js MODEL.onnx --threads N --runs N --warmup N [--input-shape NAME:1x3x224x224]
//                     [--input-raw FILE] [--output-raw FILE] [--profile]
//
// The input is edgemond-bench's deterministic input, bit for bit: SplitMix64 from seed 1 + the
// input's index, top 24 bits mapped to k / 2^23 - 1 (engine/benchmark.cc), or, with
// --input-raw, the little-endian float32 values of FILE for the model's single input.
// --output-raw writes the first output of the last run the same way (run.py compares it with
// PyTorch and edgemond). Timing brackets session.run() only; the JavaScript call overhead
// (tens of microseconds) is included.
//
// --profile turns on ONNX Runtime's own profiler and adds `profile` to the report, shaped like
// `edgemond-bench --profile --json`'s: ops_ms and ops_min_ms per fused operator type, nodes_ms
// [{name, op, ms, min_ms}] per node (mean and fastest over the timed runs), to compare the two
// runtimes layer by layer. The profiler costs time of its own: latencies taken with it are not
// comparable with those taken without.

'use strict';
const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const args = {
    model: null,
    threads: 1,
    runs: 50,
    warmup: 5,
    shapes: {},
    inputRaw: null,
    outputRaw: null,
    profile: false,
  };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    if (a === '--threads') args.threads = parseInt(argv[++i], 10);
    else if (a === '--runs') args.runs = parseInt(argv[++i], 10);
    else if (a === '--warmup') args.warmup = parseInt(argv[++i], 10);
    else if (a === '--input-raw') args.inputRaw = argv[++i];
    else if (a === '--output-raw') args.outputRaw = argv[++i];
    else if (a === '--profile') args.profile = true;
    else if (a === '--input-shape') {
      const text = argv[++i];
      const colon = text.lastIndexOf(':');
      args.shapes[text.slice(0, colon)] = text.slice(colon + 1).split('x').map(Number);
    } else if (!args.model) args.model = a;
    else throw new Error('unexpected argument ' + a);
  }
  if (!args.model) throw new Error('no model given');
  return args;
}

const MASK64 = (1n << 64n) - 1n;
function* splitMix64(seed) {
  let state = BigInt(seed) & MASK64;
  for (;;) {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    yield z ^ (z >> 31n);
  }
}

function deterministicFloats(count, seed) {
  const out = new Float32Array(count);
  const gen = splitMix64(seed);
  for (let i = 0; i < count; ++i) {
    const k = Number(gen.next().value >> 40n) - (1 << 23);
    out[i] = k / (1 << 23);
  }
  return out;
}

function rssBytes(field) {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const m = status.match(new RegExp('^' + field + ':\\s+(\\d+) kB', 'm'));
  return m ? parseInt(m[1], 10) * 1024 : -1;
}

function percentile(sorted, p) {
  // Nearest rank, as edgemond-bench computes it.
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

function cpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

// The profiler writes its trace under this prefix, in a directory of its own
// (InferenceSession.endProfiling() returns no file name in onnxruntime-node).
function profilePrefix() {
  return path.join(fs.mkdtempSync(path.join(require('os').tmpdir(), 'ort-profile-')), 'ort');
}

// ONNX Runtime's trace (Chrome trace events) reduced to per-node and per-op times of the runs
// after the first `warmup`; the trace's directory is removed.
function readProfile(prefix, warmup) {
  const dir = path.dirname(prefix);
  const traces = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (traces.length !== 1) throw new Error('expected one profiler trace in ' + dir);
  const events = JSON.parse(fs.readFileSync(path.join(dir, traces[0]), 'utf8'));
  fs.rmSync(dir, {recursive: true, force: true});
  const suffix = '_kernel_time';
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith(suffix)) continue;
    const name = e.name.slice(0, -suffix.length);
    if (!nodes.has(name)) nodes.set(name, {op: e.args.op_name, us: []});
    nodes.get(name).us.push(e.dur);
  }
  const nodesMs = [];
  const opsMs = {};
  const opsMinMs = {};
  for (const [name, node] of nodes) {
    const timed = node.us.slice(warmup);
    if (timed.length === 0) continue;
    const ms = timed.reduce((a, b) => a + b, 0) / timed.length / 1000;
    const minMs = Math.min(...timed) / 1000;
    nodesMs.push({name, op: node.op, ms, min_ms: minMs});
    opsMs[node.op] = (opsMs[node.op] || 0) + ms;
    opsMinMs[node.op] = (opsMinMs[node.op] || 0) + minMs;
  }
  nodesMs.sort((a, b) => b.ms - a.ms);
  return {ops_ms: opsMs, ops_min_ms: opsMinMs, nodes_ms: nodesMs};
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  const prefix = args.profile ? profilePrefix() : null;
  const baseline = rssBytes('VmRSS');
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    ...(prefix ? {enableProfiling: true, profileFilePrefix: prefix} : {}),
  });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const feeds = {};
  session.inputNames.forEach((name, index) => {
    const meta = session.inputMetadata ? session.inputMetadata[index] : null;
    let dims = args.shapes[name];
    if (!dims && meta && meta.shape) dims = meta.shape;
    if (!dims || dims.some((d) => typeof d !== 'number' || d < 0)) {
      throw new Error('input ' + name + ' needs --input-shape');
    }
    const count = dims.reduce((a, b) => a * b, 1);
    let data;
    if (args.inputRaw) {
      if (session.inputNames.length !== 1) throw new Error('--input-raw needs a single input');
      const bytes = fs.readFileSync(args.inputRaw);
      if (bytes.length !== 4 * count) {
        throw new Error(args.inputRaw + ' holds ' + bytes.length + ' bytes, not ' + 4 * count);
      }
      data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 4 * count));
    } else {
      data = deterministicFloats(count, 1 + index);
    }
    feeds[name] = new ort.Tensor('float32', data, dims);
  });

  for (let i = 0; i < args.warmup; ++i) await session.run(feeds);
  const samples = [];
  const cpu0 = cpuMs();
  let results = null;
  for (let i = 0; i < args.runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  if (args.outputRaw) {
    const output = results[session.outputNames[0]];
    fs.writeFileSync(args.outputRaw,
                     Buffer.from(output.data.buffer, output.data.byteOffset, output.data.byteLength));
  }
  const cpuPerRun = (cpuMs() - cpu0) / args.runs;
  const sorted = samples.slice().sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const report = {
    runtime: 'onnxruntime-node ' + require(path.join(__dirname, 'node_modules', 'onnxruntime-node',
                                                     'package.json')).version,
    model: args.model,
    threads: args.threads,
    load_ms: loadMs,
    latency_ms: {
      runs: samples.length,
      min: sorted[0],
      mean: mean,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    },
    cpu_ms_per_run: cpuPerRun,
    memory: {baseline_rss_bytes: baseline, peak_rss_bytes: rssBytes('VmHWM')},
  };
  if (prefix) {
    session.endProfiling();
    report.profile = readProfile(prefix, args.warmup);
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
}

main().catch((e) => {
  process.stderr.write('ort_bench: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
