#!/usr/bin/env python3
"""Loads edgemond's HTTP server with wrk, beside Prometheus' node_exporter as the peer, and checks
that slow clients cannot take the API down. docs/reliability.md has the figures and how they were
taken.

  bench/http_load.py --edgemond build/daemon/edgemond [--seconds 10] [--connections 16,32]

The daemon runs on the Jetson Orin fixture board, collecting every second, with a database of its
own. For each endpoint (edgemond's /api/v1/latest, /metrics and a 24 h /api/v1/query at a 60 s step,
and node_exporter's /metrics) and each connection count, `wrk -t2 -cN --latency` runs for the set
time; the table gives requests per second, p50 and p99 latency, the daemon's CPU (cores, from
/proc/PID/stat) and peak RSS during the run, and the collection ticks that came more than 10 % of
the interval late or not at all (from the stored timestamps of one series). Then 200 connections
each send half a request line and a byte a second (slowloris) while /healthz is asked every 0.25 s;
the next table gives how many probes were answered and the slowest answer. Last, a flood: 2,000
connections (--flood) opened as fast as one client can, each sending half a request line and
then nothing, far over the server's limits (256 in all, 64 per address); the last table gives how
long they took to open, how many the server closed, the /healthz probes answered meanwhile, and
the daemon's RSS before, at its peak and after.

wrk, the client, runs on the same cores: on a 2-core machine it takes about one of them, so the
figures are what one core's worth of client gets, and they are comparable only within a run.
"""

import argparse
import json
import resource
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BOARD = os.path.join(REPO, "tests", "fixtures", "devices", "jetson-orin-jp6")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
INTERVAL = 1.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit(f"{url} did not answer within {seconds} s")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def to_ms(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(url, connections, seconds):
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", url],
        check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = to_ms(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = to_ms(re.search(r"\s99%\s+(\S+)", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    return rps, p50, p99, int(errors.group(1)) if errors else 0, (
        socket_errors.group(1) if socket_errors else "")


def late_ticks(base, start, end):
    """Ticks in [start, end] that came > 10 % late or were skipped, from one stored series."""
    series = "edgemond_thermal_zone_celsius%7Bzone%3D%22cpu-thermal%22%7D"
    query = f"{base}/api/v1/query?series={series}&from={start:.3f}&to={end:.3f}"
    with urllib.request.urlopen(query, timeout=10) as reply:
        data = json.load(reply)["data"]
    times = [point[0] for point in data["series"][0]["points"]]
    late = 0
    for a, b in zip(times, times[1:]):
        if b - a > INTERVAL * 1.1:
            late += max(1, round((b - a) / INTERVAL) - 1)
    return late, len(times)


class Sampler:
    """Peak RSS of a process, polled every 0.1 s while running."""

    def __init__(self, pid):
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.loop)
        self.thread.start()

    def loop(self):
        while self.running:
            self.peak = max(self.peak, rss_bytes(self.pid))
            time.sleep(0.1)

    def stop(self):
        self.running = False
        self.thread.join()
        return self.peak


def probe_until(deadline, probe_url, every_second=None):
    """Asks probe_url every 0.25 s until deadline; calls every_second() once a second. Returns
    (answered, failed, slowest ms)."""
    answered, failed, slowest = 0, 0, 0.0
    next_second = time.time() + 1
    while time.time() < deadline:
        start = time.time()
        try:
            with urllib.request.urlopen(probe_url, timeout=2) as reply:
                reply.read()
                answered += reply.status == 200
        except OSError:
            failed += 1
        slowest = max(slowest, time.time() - start)
        if every_second is not None and time.time() >= next_second:
            every_second()
            next_second += 1
        time.sleep(0.25)
    return answered, failed, slowest * 1000


def count_closed(sockets):
    """Closes the sockets; returns how many the server had closed."""
    closed = 0
    for s in sockets:
        s.setblocking(False)
        try:
            closed += s.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    return closed


def slowloris(port, connections, seconds, probe_url):
    sockets = []
    for _ in range(connections):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/v1/latest HT")
        sockets.append(s)

    def one_more_byte():
        for s in sockets:
            try:
                s.send(b"T")
            except OSError:
                pass  # Closed by the server: that is the point.

    answered, failed, slowest = probe_until(time.time() + seconds, probe_url, one_more_byte)
    return answered, failed, slowest, count_closed(sockets)


def flood(port, connections, seconds, probe_url):
    """Opens `connections` connections at once, each with half a request line; probes meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, connections + 256)), hard))
    sockets, refused = [], 0
    start = time.time()
    for _ in range(connections):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/v1/latest HT")
            sockets.append(s)
        except OSError:
            refused += 1
    opened_s = time.time() - start
    answered, failed, slowest = probe_until(time.time() + seconds, probe_url)
    return opened_s, refused, answered, failed, slowest, count_closed(sockets)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edgemond", default=os.path.join(REPO, "build", "daemon", "edgemond"))
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", default="16,32")
    parser.add_argument("--slowloris", type=int, default=200)
    parser.add_argument("--flood", type=int, default=2000)
    args = parser.parse_args()
    for tool in ("wrk", "prometheus-node-exporter"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian packages wrk, prometheus-node-exporter)")

    work = tempfile.mkdtemp(prefix="edgemond-http-load-")
    port, peer_port = free_port(), free_port()
    config = os.path.join(work, "edgemond.json")
    with open(config, "w") as f:
        json.dump({"alerts": {"sink": "stderr"}}, f)
    log = open(os.path.join(work, "edgemond.log"), "w")
    daemon = subprocess.Popen(
        [args.edgemond, "--config", config, "--root", BOARD, "--db",
         os.path.join(work, "edgemond.db"), "--interval", str(INTERVAL), "--listen",
         f"127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)
    peer = subprocess.Popen(
        ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{peer_port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/readyz")
        wait_http(f"http://127.0.0.1:{peer_port}/metrics")
        time.sleep(3)  # A few ticks: the rate series exist.
        targets = [
            ("edgemond /api/v1/latest", base + "/api/v1/latest"),
            ("edgemond /metrics", base + "/metrics"),
            ("edgemond /api/v1/query 24 h, step 60 s",
             base + "/api/v1/query?series=edgemond_thermal_zone_celsius&from=-86400&step=60"),
            ("node_exporter /metrics (peer)", f"http://127.0.0.1:{peer_port}/metrics"),
        ]
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        print(f"wrk -t2, {args.seconds} s per row; daemon collecting every {INTERVAL:g} s on "
              f"jetson-orin-jp6; {os.cpu_count()} CPUs; {when}")
        print()
        print("| endpoint | connections | requests/s | p50 ms | p99 ms | non-2xx | daemon CPU "
              "(cores) | daemon peak RSS MiB | late or missed ticks |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, url in targets:
            for connections in [int(c) for c in args.connections.split(",")]:
                cpu_before, start = cpu_seconds(daemon.pid), time.time()
                sampler = Sampler(daemon.pid)
                rps, p50, p99, errors, socket_errors = run_wrk(url, connections, args.seconds)
                peak = sampler.stop()
                end = time.time()
                cores = (cpu_seconds(daemon.pid) - cpu_before) / (end - start)
                late, ticks = late_ticks(base, start, end)
                note = f" ({socket_errors})" if socket_errors else ""
                print(f"| {name} | {connections} | {rps:,.0f} | {p50:.2f} | {p99:.2f} | "
                      f"{errors}{note} | {cores:.2f} | {peak / 2**20:.1f} | {late} of {ticks} |")
        print()
        start = time.time()
        answered, failed, slowest, closed = slowloris(
            port, args.slowloris, 12, base + "/healthz")
        late, ticks = late_ticks(base, start, time.time())
        print(f"| slowloris connections | /healthz answered | failed | slowest ms | "
              f"slow connections closed by the server | late or missed ticks |")
        print("|---|---|---|---|---|---|")
        print(f"| {args.slowloris} | {answered} | {failed} | {slowest:.1f} | {closed} | "
              f"{late} of {ticks} |")
        print()
        time.sleep(6)  # The slowloris connections' deadlines pass.
        rss_before = rss_bytes(daemon.pid)
        sampler = Sampler(daemon.pid)
        start = time.time()
        opened_s, refused, answered, failed, slowest, closed = flood(
            port, args.flood, 12, base + "/healthz")
        late, ticks = late_ticks(base, start, time.time())
        peak = sampler.stop()
        time.sleep(2)
        rss_after = rss_bytes(daemon.pid)
        closed_by = {}
        with urllib.request.urlopen(base + "/metrics", timeout=5) as reply:
            for line in reply.read().decode().splitlines():
                found = re.match(r'edgemond_http_connections_closed_total\{reason="(\w+)"\} (\S+)',
                                 line)
                if found:
                    closed_by[found.group(1)] = int(float(found.group(2)))
        print("| flood connections | opened in s | refused | /healthz answered | failed | "
              "slowest ms | closed by the server | evicted, timed out (since start) | "
              "RSS before, peak, after MiB | late or missed ticks |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        print(f"| {args.flood} | {opened_s:.2f} | {refused} | {answered} | {failed} | "
              f"{slowest:.1f} | {closed} | {closed_by.get('evicted', 0)}, "
              f"{closed_by.get('read_timeout', 0)} | {rss_before / 2**20:.1f}, {peak / 2**20:.1f}, "
              f"{rss_after / 2**20:.1f} | {late} of {ticks} |")
    finally:
        for process in (daemon, peer):
            process.terminate()
            process.wait(timeout=15)
        log.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
