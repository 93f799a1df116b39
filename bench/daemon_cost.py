#!/usr/bin/env python3
"""Measures what edgemond costs on a device, next to node_exporter, in the same run.

Both programs read the same fixture tree (a board laid out under --root / --path.*) for the same
wall-clock window: edgemond collects at 1 Hz and writes to its SQLite database; node_exporter is
scraped once per second (it collects at scrape time). A second edgemond is also scraped once per
second, so its /metrics rendering is counted too. Reported per program: CPU time per collection
cycle and per sample (from /proc/PID/task/*/schedstat, nanosecond run time of every thread),
share of one core, peak and final RSS, and for edgemond the database bytes per sample on disk and
the bytes written per sample (/proc/PID/io write_bytes, WAL and checkpoints included).

edgemond runs on its default configuration, i.e. with every collector on (cpu, memory, thermal,
hwmon, power_rail, rapl, fan, jetson_gpu, amd_gpu, nvidia_gpu, emc, power_mode, throttle; those
whose hardware the board lacks cost a check every 60 s). The report adds each collector's median
time per collection (its own edgemond_collector_duration_seconds, scraped every second) and says
whether the quiet edgemond stayed under --target-percent of one core (0.1 % by default, the
device-coverage budget for the Orin board at 1 Hz).

In the same window the script also runs edgemond_library_floor (bench/library_floor.cc): a
process linking exactly the daemon's shared libraries and using each minimally (an sd-event loop
woken once a second, a WAL database written once a minute as edgemond flushes, an HTTP server).
Its RSS is the floor any daemon built on those libraries starts from, and its CPU per second what
waking once a second costs on this machine; edgemond's figures above them are edgemond's own. The
report ends with the 10x target as a budget: a tenth of node_exporter's CPU per sample, times
edgemond's samples, is the CPU per cycle edgemond may take, and the floor's share of it.

Usage: bench/daemon_cost.py [--board jetson-orin-jp6] [--seconds 120] [--build build]
                            [--target-percent 0.1]
Needs: a built tree (cmake --build build), prometheus-node-exporter, sqlite3, curl.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_ns(pid):
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # A thread that exited between glob and open.
    return total


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rollup_kib(pid):
    """PSS and USS (private clean + dirty) in KiB: what the process costs the machine, shared
    library pages divided among the processes that map them (PSS) or left out (USS)."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return fields.get("Pss", 0), fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def memory_kib(pid):
    """(RSS, peak RSS, PSS, USS) in KiB."""
    return (status_kib(pid, "VmRSS"), status_kib(pid, "VmHWM")) + rollup_kib(pid)


def mib_columns(kib):
    rss, peak, pss, uss = (v / 1024 for v in kib)
    return f"{rss:.1f} MiB ({peak:.1f} MiB) | {pss:.1f} MiB | {uss:.1f} MiB"


def write_bytes(pid):
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.read().decode()


def samples_in(exposition):
    return sum(1 for line in exposition.splitlines() if line and not line.startswith("#"))


def start_edgemond(binary, root, workdir, name):
    config = os.path.join(workdir, f"{name}.json")
    with open(config, "w") as f:
        f.write("{}")
    log = open(os.path.join(workdir, f"{name}.log"), "w")
    db = os.path.join(workdir, f"{name}.db")
    proc = subprocess.Popen([binary, "--config", config, "--root", root, "--db", db,
                             "--listen", "127.0.0.1:0", "--interval", "1"],
                            stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        with open(log.name) as f:
            match = re.search(r"serving http://127\.0\.0\.1:(\d+)", f.read())
        if match:
            return proc, int(match.group(1)), db
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    sys.exit(f"edgemond did not start; see {log.name}")


def collector_durations(exposition):
    """{collector: seconds} from edgemond_collector_duration_seconds lines."""
    out = {}
    for match in re.finditer(
            r'^edgemond_collector_duration_seconds\{collector="([^"]+)"\} (\S+)$', exposition,
            re.MULTILINE):
        out[match.group(1)] = float(match.group(2))
    return out


def collector_success(exposition):
    """{collector: bool} from edgemond_collector_success lines."""
    return {m.group(1): m.group(2) == "1" for m in re.finditer(
        r'^edgemond_collector_success\{collector="([^"]+)"\} (\S+)$', exposition, re.MULTILINE)}


def db_samples(db, from_ms=None, to_ms=None):
    # Samples stored in raw blocks (schema v2; a v1 database had one row per sample), all of them
    # or those of the blocks flushed in (from_ms, to_ms]. The daemon holds its database against
    # other processes: call this once it has exited.
    if has_table(db, "blocks_raw"):
        query = "SELECT coalesce(sum(points), 0) FROM blocks_raw"
        if from_ms is not None:
            query += f" WHERE t1 > {from_ms} AND t1 <= {to_ms}"
    else:
        query = "SELECT count(*) FROM samples"
        if from_ms is not None:
            query += f" WHERE ts > {from_ms} AND ts <= {to_ms}"
    out = subprocess.run(["sqlite3", f"file:{db}?mode=ro", query],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def has_table(db, name):
    out = subprocess.run(["sqlite3", f"file:{db}?mode=ro",
                          f"SELECT count(*) FROM sqlite_master WHERE name = '{name}'"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip() == "1"


def db_bytes(db):
    return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--board", default="jetson-orin-jp6")
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--target-percent", type=float, default=0.1,
                        help="share of one core the quiet edgemond must stay under")
    args = parser.parse_args()

    root = os.path.join(REPO, "tests", "fixtures", "devices", args.board)
    edgemond = os.path.join(args.build, "daemon", "edgemond")
    node_exporter = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    floor = os.path.join(args.build, "bench", "edgemond_library_floor")
    if not os.path.exists(edgemond) or not os.path.exists(floor):
        sys.exit(f"{edgemond} or {floor} not found: build first (cmake --build build)")
    if node_exporter is None:
        sys.exit("node_exporter not found: apt-get install prometheus-node-exporter")

    with tempfile.TemporaryDirectory(prefix="edgemond-bench-") as workdir:
        quiet, quiet_port, quiet_db = start_edgemond(edgemond, root, workdir, "edgemond")
        scraped, scraped_port, _ = start_edgemond(edgemond, root, workdir, "edgemond-scraped")
        ne_port = free_port()
        ne = subprocess.Popen([node_exporter, f"--path.procfs={root}/proc",
                               f"--path.sysfs={root}/sys", f"--path.rootfs={root}",
                               f"--web.listen-address=127.0.0.1:{ne_port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # 60 s: edgemond's default storage.flush_interval_seconds (its configuration here is {}).
        floor_proc = subprocess.Popen([floor, os.path.join(workdir, "floor.db"), "60"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(15)  # Warm up: both daemons settle; edgemond flushes at least once.

        ne_samples = samples_in(fetch(f"http://127.0.0.1:{ne_port}/metrics"))
        latest = json.loads(fetch(f"http://127.0.0.1:{quiet_port}/api/v1/latest"))["data"]
        edgemond_samples = sum(1 for item in latest if item["value"] is not None)
        procs = {"edgemond": quiet.pid, "edgemond+scrape": scraped.pid, "node_exporter": ne.pid,
                 "floor": floor_proc.pid}
        cpu0 = {name: cpu_ns(pid) for name, pid in procs.items()}
        written0 = write_bytes(quiet.pid)
        wall0_ms = int(time.time() * 1000)
        t0 = time.monotonic()
        scrape_ms = {"edgemond+scrape": [], "node_exporter": []}
        durations = {}  # collector -> [seconds per collection]
        found = {}
        next_tick = t0
        while time.monotonic() - t0 < args.seconds:
            for name, port in (("edgemond+scrape", scraped_port), ("node_exporter", ne_port)):
                start = time.monotonic()
                body = fetch(f"http://127.0.0.1:{port}/metrics")
                scrape_ms[name].append((time.monotonic() - start) * 1000)
                if name == "edgemond+scrape":
                    for collector, seconds in collector_durations(body).items():
                        durations.setdefault(collector, []).append(seconds)
                    found = collector_success(body)
            next_tick += 1
            time.sleep(max(0, next_tick - time.monotonic()))
        elapsed = time.monotonic() - t0
        cpu1 = {name: cpu_ns(pid) for name, pid in procs.items()}
        written1 = write_bytes(quiet.pid)
        wall1_ms = int(time.time() * 1000)
        rss = {name: memory_kib(pid) for name, pid in procs.items()}
        for proc in (quiet, scraped, ne, floor_proc):
            proc.send_signal(signal.SIGTERM)
        for proc in (quiet, scraped, ne, floor_proc):
            proc.wait(timeout=30)
        size = db_bytes(quiet_db)
        total_stored = db_samples(quiet_db)
        stored_in_window = db_samples(quiet_db, wall0_ms, wall1_ms)

    cycles = elapsed  # One collection (or scrape) per second.
    per_sample = {"edgemond": edgemond_samples, "edgemond+scrape": edgemond_samples,
                  "node_exporter": ne_samples}
    per_cycle_us = {name: (cpu1[name] - cpu0[name]) / cycles / 1000 for name in procs}
    core_percent = {name: (cpu1[name] - cpu0[name]) / (elapsed * 1e9) * 100 for name in procs}
    print(f"board: {args.board}; window: {elapsed:.0f} s at 1 Hz; "
          f"samples per cycle: edgemond {edgemond_samples}, node_exporter {ne_samples}")
    print()
    print("| program | CPU per cycle | CPU per sample | share of one core | RSS (peak) | PSS | USS |")
    print("|---|---|---|---|---|---|---|")
    results = {}
    for name in per_sample:
        per_sample_ns = per_cycle_us[name] * 1000 / per_sample[name]
        results[name] = per_sample_ns
        print(f"| {name} | {per_cycle_us[name]:.0f} µs | {per_sample_ns:.0f} ns | "
              f"{core_percent[name]:.3f} % | {mib_columns(rss[name])} |")
    print(f"| the libraries alone (edgemond_library_floor) | {per_cycle_us['floor']:.0f} µs | – | "
          f"{core_percent['floor']:.3f} % | {mib_columns(rss['floor'])} |")
    print()
    # Written per sample collected in the window: with a flush every minute, the samples
    # stored in the window depend on where its edges fall.
    collected = edgemond_samples * cycles
    print(f"edgemond database: {size} bytes for {total_stored} samples = "
          f"{size / max(1, total_stored):.1f} B/sample on disk (a young database: the block "
          f"headers and catalog dominate); written in the window: {written1 - written0} bytes "
          f"for {collected:.0f} samples collected ({stored_in_window} stored) = "
          f"{(written1 - written0) / max(1, collected):.1f} B/sample")
    print(f"CPU per sample, node_exporter / edgemond: "
          f"{results['node_exporter'] / results['edgemond']:.1f}x "
          f"(with edgemond also scraped: "
          f"{results['node_exporter'] / results['edgemond+scrape']:.1f}x)")
    budget_us = results["node_exporter"] / 10 * edgemond_samples / 1000
    print(f"10x budget: {budget_us:.0f} µs per cycle for edgemond's {edgemond_samples} samples "
          f"(it took {per_cycle_us['edgemond']:.0f}); the libraries' floor takes "
          f"{per_cycle_us['floor']:.0f} µs of it ({per_cycle_us['floor'] / budget_us * 100:.0f} %), "
          f"leaving {budget_us - per_cycle_us['floor']:.0f} µs for edgemond's own work "
          f"(it took {per_cycle_us['edgemond'] - per_cycle_us['floor']:.0f})")
    for name, values in scrape_ms.items():
        print(f"scrape latency {name}: median {statistics.median(values):.2f} ms")
    print()
    print("| collector | hardware found | median time per collection | share of one core at 1 Hz |")
    print("|---|---|---|---|")
    for collector, values in durations.items():
        median = statistics.median(values)
        print(f"| {collector} | {'yes' if found.get(collector) else 'no'} | "
              f"{median * 1e6:.1f} µs | {median * 100:.4f} % |")
    quiet_percent = core_percent["edgemond"]
    verdict = "met" if quiet_percent < args.target_percent else "MISSED"
    print()
    print(f"target: edgemond under {args.target_percent} % of one core at 1 Hz with every "
          f"collector on: {quiet_percent:.3f} %, {verdict}")


if __name__ == "__main__":
    main()
