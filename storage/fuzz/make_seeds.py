#!/usr/bin/env python3
"""Writes the seed inputs of the storage fuzz targets into storage/fuzz/seeds/.

block/: blocks as the store wrote them, from the fixture databases of tests/fixtures/storage
(raw and rollup tiers), each behind the mode byte that reads it with every column; and inputs
of the encode-and-read-back mode. value_column/ and int_column/: columns shaped like what the
collectors store (scaled sensor readings, ratios, timestamps at 1 Hz with jitter) and the
extremes (NaN payloads, -0.0, infinities, INT64_MIN/MAX), in the round-trip mode. The output
is the same on every run (fixed seed).

usage: storage/fuzz/make_seeds.py
"""
import math
import os
import random
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SEEDS = os.path.join(HERE, "seeds")


def write(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as f:
        f.write(data)


def blocks():
    for db in ("v2.db", "v4.db"):
        path = os.path.join(REPO, "tests", "fixtures", "storage", db)
        con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        for table, mask in (("blocks_raw", 0x01), ("blocks_1m", 0x1F), ("blocks_1h", 0x1F)):
            rows = con.execute(f"SELECT t0, data FROM {table} ORDER BY t0 LIMIT 3").fetchall()
            for t0, data in rows:
                write("block", f"{db[:-3]}_{table}_{t0}", bytes([mask]) + data)
        con.close()
    rng = random.Random(1)
    for mode in (0x80, 0x81):
        for i in range(3):
            write("block", f"roundtrip_{mode:02x}_{i}",
                  bytes([mode]) + bytes(rng.randrange(256) for _ in range(400)))


def doubles(values):
    return b"".join(struct.pack("<d", v) for v in values)


def value_columns():
    rng = random.Random(2)
    millidegrees = [45000 + 500 * rng.randrange(-4, 5) for _ in range(60)]
    write("value_column", "thermal_celsius", b"\x01\x00\x00" + doubles(m / 1000 for m in millidegrees))
    busy = [(rng.randrange(0, 100), 100) for _ in range(60)]
    write("value_column", "cpu_ratio", b"\x01\x00\x00" + doubles(b / t for b, t in busy))
    write("value_column", "noise", b"\x01\x00\x00" + doubles(rng.uniform(-1e6, 1e6) for _ in range(60)))
    nan_payload = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_1234))[0]
    write("value_column", "extremes", b"\x01\x00\x00" + doubles(
        [0.0, -0.0, math.inf, -math.inf, math.nan, nan_payload, 5e-324, 1.7976931348623157e308]))
    write("value_column", "constant", b"\x01\x00\x00" + doubles([12.5] * 64))
    write("value_column", "decode_short", b"\x00\x00\x08" + bytes([0, 3, 1, 2]))


def int_columns():
    rng = random.Random(3)
    ticks, t = [], 1767261000123
    for _ in range(100):
        ticks.append(t)
        t += 1000 + rng.randrange(0, 3)
    pack = lambda values: b"".join(struct.pack("<q", v) for v in values)
    write("int_column", "ticks_1hz", b"\x01\x00\x00" + pack(ticks))
    write("int_column", "gaps", b"\x01\x00\x00" + pack(ticks[:20] + [x + 3_600_000 for x in ticks[20:40]]))
    write("int_column", "extremes", b"\x01\x00\x00" + pack([-(2**63), 2**63 - 1, 0, -1, 1, 2**63 - 1]))
    write("int_column", "constant", b"\x01\x00\x00" + pack([7] * 64))
    write("int_column", "decode_short", b"\x00\x00\x08" + bytes([1, 0, 5]))


if __name__ == "__main__":
    blocks()
    value_columns()
    int_columns()
