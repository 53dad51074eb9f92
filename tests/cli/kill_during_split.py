#!/usr/bin/env python3
"""Kills `steadyscope-cli split` at 50 random moments and checks the output folder each time.

A split writes into a staging folder that becomes the output folder at the end (D-067), so
after any kill the folder is either absent (there was none), the previous complete output, or
the new complete output: never a chunk without its manifest, never a half-written file. The
next complete split removes what a killed one left beside the folder.

usage: kill_during_split.py CLI GEN WORK [KILLS]
"""
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time


def snapshot(folder):
    """{relative path: sha256} of every file under folder (None when it does not exist)."""
    if not os.path.isdir(folder):
        return None
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as h:
                out[os.path.relpath(p, folder)] = hashlib.sha256(h.read()).hexdigest()
    return out


def difference(now, allowed):
    """What the folder holds against the states it may be in, in words."""
    if now is None:
        return "the folder is absent"
    out = []
    for name, want in zip(("previous", "new"), allowed):
        if want is None:
            out.append(f"{name}: absent")
            continue
        odd = sorted(f for f in set(now) | set(want) if now.get(f) != want.get(f))
        out.append(f"against the {name} output these differ: {odd}")
    return "; ".join(out)


def split(cli, trace, out, extra=()):
    cmd = [cli, "split", trace, "-o", out, "--find-steady-state", "--llm-inference", *extra]
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    cli, gen, work = sys.argv[1:4]
    kills = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    trace = os.path.join(work, "serve.json")
    subprocess.run([gen, "-o", trace, "--style", "vllm", "--target-bytes", "40M", "--quiet"], check=True)

    # The previous output (another window length: other chunk names and contents), and what a
    # complete split gives with and without it, all made at the target's path (the details name
    # the chunks by absolute path).
    target, old_copy = os.path.join(work, "target"), os.path.join(work, "old")
    if split(cli, trace, target, ["--num-steps", "16"]).returncode != 0:
        fail("the previous split failed")
    old = snapshot(target)
    shutil.copytree(target, old_copy)
    if split(cli, trace, target).returncode != 0:
        fail("the split over the previous output failed")
    over = snapshot(target)
    shutil.rmtree(target)
    started = time.monotonic()
    if split(cli, trace, target).returncode != 0:
        fail("the reference split failed")
    full = time.monotonic() - started
    new = snapshot(target)
    if old == new or "split_manifest.json" not in new:
        fail("the two outputs must differ and hold a manifest")

    rng = random.Random(int(os.environ.get("STEADYSCOPE_KILL_SEED", "7")))
    killed = 0
    for i in range(kills):
        had_previous = i % 2 == 1
        shutil.rmtree(target, ignore_errors=True)
        if had_previous:
            shutil.copytree(old_copy, target)
        p = subprocess.Popen([cli, "split", trace, "-o", target, "--find-steady-state", "--llm-inference"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, full * 1.1))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            killed += 1
        p.wait()
        now = snapshot(target)
        allowed = [old, over] if had_previous else [None, new]
        if now not in allowed:
            fail(f"kill {i + 1} (previous output: {had_previous}): " + difference(now, allowed))

    if killed < kills // 4:
        fail(f"only {killed} of {kills} kills landed during a split: the trace is too small for this machine")
    shutil.rmtree(target, ignore_errors=True)
    if split(cli, trace, target).returncode != 0 or snapshot(target) != new:
        fail("a complete split after the kills differs from the reference")
    litter = [n for n in os.listdir(work) if ".staging-" in n]
    if litter:
        fail(f"staging folders left after a complete split: {litter}")
    print(f"{kills} runs, {killed} killed during the split ({full:.2f} s each): every folder whole")


if __name__ == "__main__":
    main()
