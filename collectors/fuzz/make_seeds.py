#!/usr/bin/env python3
"""Writes the seed inputs of the collector fuzz targets into collectors/fuzz/seeds/.

Each seed is a file of a fixture board (tests/fixtures/devices, laid out like the real devices)
that the parser reads on that board, plus the broken shapes the parsers were written against
(truncated lines, garbage, numbers out of range). The hwmon and thermal targets take 8 bytes of
raw reading before the text. The output is the same on every run.

usage: collectors/fuzz/make_seeds.py
"""
import fnmatch
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEVICES = os.path.join(REPO, "tests", "fixtures", "devices")
SEEDS = os.path.join(HERE, "seeds")


def write(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def board_files(pattern):
    """(board, path, bytes) of every regular fixture file whose path below its board's root
    matches the fnmatch `pattern` (whose * also matches slashes). Symbolic links are not
    followed: sysfs has loops."""
    for board in sorted(os.listdir(DEVICES)):
        root = os.path.join(DEVICES, board)
        if not os.path.isdir(root):
            continue
        found = []
        for directory, _, files in os.walk(root):
            for name in files:
                path = os.path.join(directory, name)
                if not os.path.islink(path) and fnmatch.fnmatch(os.path.relpath(path, root), pattern):
                    found.append(path)
        for path in sorted(found):
            with open(path, "rb") as f:
                yield board, path, f.read()


def raw(value):
    return struct.pack("<q", value)


def main():
    for board, _, data in board_files("proc/stat"):
        write("proc_stat", board, data)
    write("proc_stat", "old_kernel", "cpu  4705 356 584 3699\ncpu0 1393 280 290 1211\nintr 1\n")
    write("proc_stat", "truncated", "cpu  4705 356 58")
    for board, _, data in board_files("proc/meminfo"):
        write("meminfo", board, data)
    write("meminfo", "no_available", "MemTotal: 4000 kB\nMemFree: 100 kB\nBuffers: 5 kB\n")
    write("meminfo", "garbled", "MemTotal:  x kB\n")
    for board, _, data in board_files("proc/cpuinfo"):
        write("cpuinfo", board, data)
    for board, _, data in board_files("etc/nv_tegra_release"):
        write("jetson", board + "_nv_tegra_release", data)
    for board, _, data in board_files("var/lib/nvpmodel/status"):
        write("jetson", board + "_nvpmodel_status", data)
    for board, _, data in board_files("etc/nvpmodel/*.conf"):
        write("jetson", board + "_nvpmodel_conf", data)
    for i, (board, _, data) in enumerate(board_files("sys/*_limit_*")):
        if i < 4:
            write("jetson", f"{board}_limit_{i}", data)
    write("jetson", "broken_conf", "< POWER_MODEL ID=x NAME=\n< PM_CONFIG DEFAULT=>\n")
    values = set()
    names = set()
    for board, path, data in board_files("sys/*/hwmon/hwmon*/*"):
        names.add(os.path.basename(path))
        if path.endswith("_input") and len(values) < 12:
            values.add(data)
    for i, name in enumerate(sorted(names)):
        write("hwmon", f"name_{i:03d}", raw(45000 + i) + name.encode())
    write("hwmon", "nvme_unset", raw(65261850) + b"temp2_crit")
    write("hwmon", "subsystem", raw(-273150) + b"../../../bus/pci")
    for i, value in enumerate(sorted(values)):
        write("sysfs_value", f"input_{i:02d}", value)
    for name, text in (("empty", "\n"), ("nul", "42\0\0"), ("blank", "  -17 \n"), ("word", "N/A\n"),
                       ("overflow", "99999999999999999999\n"), ("min", "-9223372036854775808")):
        write("sysfs_value", name, text)
    zones = sorted(board_files("sys/devices/virtual/thermal/thermal_zone*/type"))
    for i, (board, _, data) in enumerate(zones[:8]):
        write("thermal", f"type_{i}_{board}", raw(41500) + data)
    for i, (board, _, data) in enumerate(sorted(board_files("sys/*/thermal_zone*/trip_point_*_type"))[:4]):
        write("thermal", f"trip_{i}_{board}", raw(97000) + data)
    write("thermal", "trip_file", raw(-256000) + b"trip_point_12_type")
    write("thermal", "mode", raw(512000) + b"disabled\n")


if __name__ == "__main__":
    main()
