#!/usr/bin/env python3
"""Checks the prose of README.md and docs/**/*.md: no line over 100 characters, so that a diff of a
doc reads like a diff of code. Code blocks, tables, headings and lines that are one unbreakable
word (a long URL or path) are exempt. Usage: check_docs.py SOURCE_DIR."""

import pathlib
import sys

WIDTH = 100


def offenders(path):
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.startswith(("|", "#")) or len(line) <= WIDTH:
            continue
        if len(line.split()) <= 1:
            continue
        yield number, len(line)


def main():
    root = pathlib.Path(sys.argv[1])
    files = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    bad = 0
    for path in files:
        for number, length in offenders(path):
            print(f"{path.relative_to(root)}:{number}: {length} characters (at most {WIDTH})")
            bad += 1
    if bad:
        print(f"{bad} prose line(s) too long; wrap them at {WIDTH} characters")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
