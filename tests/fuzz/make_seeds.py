#!/usr/bin/env python3
"""Seed corpora for the fuzz targets, made at run time (nothing large is committed).

usage: make_seeds.py OUT_DIR GEN SHARED_DIR

- real traces of ../shared/traces/real under 4 MB compressed, cut down to their
  metadata and events from the start and the middle, under 30 KiB (LIMIT);
- small generated traces of every style and awkward shape (steadyscope-gen), cut the same way;
- the oracle's execution_details.csv files and manifests (split directories);
- every target's committed seeds (tests/fuzz/seeds/<target>) are added by the caller.
Each target gets OUT_DIR/<target>/.
"""
import gzip, io, json, os, subprocess, sys, zipfile

out, gen, shared = sys.argv[1], sys.argv[2], sys.argv[3]
targets = ["fuzz_trace_text", "fuzz_trace_file", "fuzz_split_gate", "fuzz_names", "fuzz_details_csv",
           "fuzz_split_dir", "fuzz_export"]
for t in targets:
    os.makedirs(os.path.join(out, t), exist_ok=True)


def put(target, name, data):
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)


# Inputs stay under the fuzzers' -max_len (run_bounded.sh, run_long.sh): a longer
# seed would be truncated into broken JSON, and every byte costs executions.
LIMIT = 30 << 10


def cut(doc, keep=300, limit=LIMIT):
    """Metadata and `keep` events from the start and the middle, under `limit` bytes."""
    ev = doc.get("traceEvents", []) if isinstance(doc, dict) else []
    meta = [e for e in ev if isinstance(e, dict) and e.get("ph") == "M"][:50]
    rest = [e for e in ev if not (isinstance(e, dict) and e.get("ph") == "M")]
    mid = len(rest) // 2
    small = {k: v for k, v in doc.items() if k != "traceEvents" and len(json.dumps(v)) < 4096}
    while True:
        small["traceEvents"] = meta + rest[:keep // 2] + rest[mid:mid + keep // 2]
        if keep <= 10 or len(json.dumps(small)) <= limit:
            return small
        keep //= 2


names = set()
real = os.path.join(shared, "traces", "real")
for root, _, files in os.walk(real):
    for fn in sorted(files):
        path = os.path.join(root, fn)
        if not fn.endswith(".json.gz") or os.path.getsize(path) > 4 << 20:
            continue
        try:
            doc = json.load(gzip.open(path, "rt", encoding="utf-8", errors="replace"))
        except Exception:
            continue
        small = cut(doc)
        text = json.dumps(small).encode()
        tag = os.path.relpath(path, real).replace("/", "__")[:-len(".json.gz")]
        put("fuzz_trace_text", tag + ".json", text)
        put("fuzz_split_gate", tag + ".bin", bytes([0x23]) + text)  # find steady state, 3 steps
        put("fuzz_split_gate", tag + ".llm.bin", bytes([0x23 | 1]) + text)
        if len(names) < 4000:
            for e in small["traceEvents"]:
                if isinstance(e, dict) and isinstance(e.get("name"), str):
                    names.add(e["name"])
for k, n in enumerate(sorted(names)[:4000]):
    put("fuzz_names", f"name{k:05d}", n.encode("utf-8", "replace"))

shapes = [["--style", s] for s in ("vllm", "sglang", "atom", "diffusion", "training")] + [
    ["--style", "training", "--annotation", "none", "--python-functions"],
    ["--annotation", "detailed"], ["--graph-steps", "0.5"], ["--be-pairs"], ["--bad-dur", "0.2"],
    ["--string-ids"], ["--old-categories"], ["--unsorted"], ["--overlap-kernels"], ["--epoch"]]
for k, shape in enumerate(shapes):
    path = os.path.join(out, f"gen{k}.json")
    subprocess.run([gen, "-o", path, "--steps", "6", "--layers", "1", "--quiet", "--seed", str(k + 1)] + shape,
                   check=True, stderr=subprocess.DEVNULL)
    text = json.dumps(cut(json.load(open(path, "rb")))).encode()
    os.remove(path)
    put("fuzz_trace_text", f"gen{k}.json", text)
    put("fuzz_split_gate", f"gen{k}.bin", bytes([0x23 | (k & 1)]) + text)
    put("fuzz_export", f"gen{k}.bin", bytes([0x1c | (k & 1), k % 4]) + text)  # 8 steps; the k-th write fails
    if k < 4:  # the compressed paths: gzip, zip (stored and deflated)
        put("fuzz_trace_file", f"gen{k}.json.gz", gzip.compress(text, 6))
        for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", method) as z:
                z.writestr("trace.json", text)
            put("fuzz_trace_file", f"gen{k}.{method}.zip", buf.getvalue())
        put("fuzz_trace_file", f"gen{k}.json", text)

oracle = os.path.join(shared, "oracle")
k = 0
for root, _, files in os.walk(oracle):
    if "execution_details.csv" not in files or k >= 200:
        continue
    csv = open(os.path.join(root, "execution_details.csv"), "rb").read()
    put("fuzz_details_csv", f"csv{k:03d}.csv", csv)
    manifest = b""
    if "split_manifest.json" in files:
        manifest = open(os.path.join(root, "split_manifest.json"), "rb").read()
    chunks = "\n".join(f for f in sorted(files) if "steady_state" in f or f.startswith("iteration_"))
    put("fuzz_split_dir", f"dir{k:03d}", csv + b"\0" + manifest + b"\0" + chunks.encode())
    k += 1
print(f"seeds: {sum(len(os.listdir(os.path.join(out, t))) for t in targets)} files in {out}")
