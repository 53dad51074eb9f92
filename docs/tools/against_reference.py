#!/usr/bin/env python3
"""Our split against the reference's recorded wall time on the real traces.

For every real trace over MIN_MB of JSON (shared/traces/real/characterisation.jsonl) and every run the
oracle recorded for it (shared/oracle/newest/real/<name>/README.md: the exact reference command and its
wall time), runs `steadyscope-cli split` with the same flags RUNS times (fresh processes, --no-cache, in a
scratch folder) and prints our median wall, the reference's and the ratio. The reference's times are the
oracle's, taken on this kind of machine when the oracle was made, not in the same run.

usage: against_reference.py CLI SHARED_DIR [RUNS] [MIN_MB]
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def runs_of(readme):
    text = open(readme).read()
    for m in re.finditer(r"## Run `([^`]+)`\n```sh\n[^\n]*split_trace\.main (\S+) -o out([^\n]*)\n```\n(?:.*\n)*?- Exit code (\d+); wall ([0-9.]+) s",
                         text):
        yield m.group(1), m.group(3).split(), float(m.group(5))


def main():
    cli, shared = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    min_mb = float(sys.argv[4]) if len(sys.argv) > 4 else 5
    rows = []
    for line in open(os.path.join(shared, "traces/real/characterisation.jsonl")):
        c = json.loads(line)
        if c["uncompressed_bytes"] < min_mb * 1e6:
            continue
        rel = c["file"].removeprefix("shared/traces/real/")
        parts = rel.split("/")
        stem = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$|\.zip$", "", parts[-1])
        name = "__".join(parts[:-1] + [stem])
        readme = os.path.join(shared, "oracle/newest/real", name, "README.md")
        if not os.path.exists(readme):
            print(f"# no oracle README for {rel} ({name})", file=sys.stderr)
            continue
        trace = os.path.join(shared, "traces/real", rel)
        for run, flags, ref_wall in runs_of(readme):
            walls = []
            for _ in range(runs):
                work = tempfile.mkdtemp(prefix="against-ref-")
                t0 = time.monotonic()
                subprocess.run([cli, "split", trace, "-o", os.path.join(work, "out"), "--no-cache", *flags],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                walls.append(time.monotonic() - t0)
                shutil.rmtree(work)
            ours = statistics.median(walls)
            rows.append((rel, run, c["uncompressed_bytes"] / 1e6, ours, ref_wall, ref_wall / ours))
    print("| trace | run | JSON MB | ours (median) | reference (oracle) | × |")
    print("|---|---|---|---|---|---|")
    for rel, run, mb, ours, ref, x in rows:
        print(f"| {rel} | {run} | {mb:.1f} | {ours:.3f} s | {ref:.2f} s | {x:.0f}× |")
    if rows:
        print(f"\nmin {min(r[5] for r in rows):.0f}×, median {statistics.median(r[5] for r in rows):.0f}×")


if __name__ == "__main__":
    main()
