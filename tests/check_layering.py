#!/usr/bin/env python3
"""Fails on a dependency cycle between the project's parts, a part that reaches up, app/ and
widgets/ reaching into the core's private headers, or past its area headers.

A part is a core area (core/<area>: its public headers and its sources), widgets/, or an app/ folder.
Its edges are the project headers its files include (resolved against the include roots) and the
libraries its CMake targets link. Allowed direction: core <- widgets <- app/gui; core <- app/options <-
app/bench <- app/cli. The core's private headers (core/src, e.g. analysis/roots/call_tree.hpp) are
for the core and the tests: no file of widgets/ or app/ includes one, and no target there links
steadyscope_core_internal or adds core/src to its include path. app/bench, the project's own
measuring tool, may (it times the loader's piece cuts, io/json_scan.hpp).
The core's public API is one header per area (core/include/steadyscope/<area>.hpp: common, model,
io, split, gate, review, export, timeline, job): app/ and widgets/ include those and nothing under
steadyscope/core/, and the core never includes another area's (they are its outer shell; an area
whose whole API is its area header, such as job, includes its own).
Usage: check_layering.py SOURCE_DIR
"""
import collections
import os
import re
import sys

ROOTS = ["core/include", "core/src", "widgets", "app/gui", "app/cli", "app/bench", "app/gen", "app/options"]
PRIVATE_ROOT = "core/src"
# Parts outside the core that may use its private headers (see the docstring).
PRIVATE_ALLOWED = {"app/bench"}
# CMake target -> part (targets not listed, such as Qt's, are outside the project).
TARGETS = {
    "steadyscope_bench": "app/bench", "steadyscope_options": "app/options", "steadyscope-cli": "app/cli",
    "steadyscope_app": "app/gui", "steadyscope": "app/gui", "steadyscope-gen": "app/gen",
    "steadyscope_widgets": "widgets", "Steadyscope::Widgets": "widgets",
}


def part_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "core" and rel[1] == "include":  # core/include/steadyscope/core/<area>/x.hpp
        if len(rel) == 4:  # core/include/steadyscope/<area>.hpp
            return "core/api"
        return "core/" + (rel[4] if len(rel) > 5 else "core")
    if rel[0] == "core" and rel[1] == "src":
        return "core/" + (rel[2] if len(rel) > 3 else "core")
    if rel[0] == "app" and len(rel) > 2:
        return "app/" + rel[1]
    if rel[0] == "widgets":
        return "widgets"
    return None


def include_edges(root, edges, why):
    for top in ("core", "widgets", "app"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".h")):
                    continue
                src = os.path.join(folder, f)
                a = part_of(root, src)
                text = open(src, encoding="utf-8", errors="replace").read()
                for m in re.finditer(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', text, re.M):
                    cands = [os.path.join(folder, m.group(2))] if m.group(1) == '"' else []
                    cands += [os.path.join(root, r, m.group(2)) for r in ROOTS]
                    hit = next((c for c in cands if os.path.isfile(c)), None)
                    b = part_of(root, hit) if hit else None
                    if a and b and a != b:
                        edges[a].add(b)
                        why.setdefault((a, b), f"{os.path.relpath(src, root)} includes {m.group(2)}")


def link_edges(root, edges, why):
    for top in ("core", "widgets", "app"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            if "CMakeLists.txt" not in files:
                continue
            path = os.path.join(folder, "CMakeLists.txt")
            text = open(path, encoding="utf-8").read()
            for m in re.finditer(r"target_link_libraries\(\s*([\w:-]+)([^)]*)\)", text):
                a = TARGETS.get(m.group(1)) or core_target(m.group(1))
                for lib in m.group(2).split():
                    b = TARGETS.get(lib) or core_target(lib)
                    if a and b and a != b:
                        edges[a].add(b)
                        why.setdefault((a, b), f"{os.path.relpath(path, root)}: {m.group(1)} links {lib}")


def private_includes(root, problems):
    """Files of widgets/ and app/ that include a header found under core/src."""
    others = [r for r in ROOTS if r != PRIVATE_ROOT]
    for top in ("widgets", "app"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".h")):
                    continue
                src = os.path.join(folder, f)
                if part_of(root, src) in PRIVATE_ALLOWED:
                    continue
                text = open(src, encoding="utf-8", errors="replace").read()
                for m in re.finditer(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', text, re.M):
                    cands = [os.path.join(folder, m.group(2))] if m.group(1) == '"' else []
                    cands += [os.path.join(root, r, m.group(2)) for r in others + [PRIVATE_ROOT]]
                    hit = next((c for c in cands if os.path.isfile(c)), None)
                    if hit and os.path.relpath(hit, root).startswith(PRIVATE_ROOT + os.sep):
                        problems.append(f"{os.path.relpath(src, root)} includes the core's private header "
                                        f"{os.path.relpath(hit, root)}")


def private_links(root, problems):
    """CMake targets of widgets/ and app/ that link steadyscope_core_internal or see core/src."""
    for top in ("widgets", "app"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            if "CMakeLists.txt" not in files:
                continue
            path = os.path.join(folder, "CMakeLists.txt")
            if part_of(root, path) in PRIVATE_ALLOWED:
                continue
            text = open(path, encoding="utf-8").read()
            for m in re.finditer(r"target_link_libraries\(\s*([\w:-]+)([^)]*)\)", text):
                if "steadyscope_core_internal" in m.group(2).split():
                    problems.append(f"{os.path.relpath(path, root)}: {m.group(1)} links steadyscope_core_internal")
            for m in re.finditer(r"(?:target_)?include_directories\(([^)]*)\)", text):
                if re.search(r"core/src\b", m.group(1)):
                    problems.append(f"{os.path.relpath(path, root)}: an include path into core/src")


AREA_HEADER = re.compile(r"steadyscope/[a-z]+\.hpp")


def area_headers_only(root, problems):
    """app/ and widgets/ include the core through its area headers; the core never includes them."""
    for top in ("widgets", "app", "core"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".cpp", ".hpp", ".h")):
                    continue
                src = os.path.join(folder, f)
                rel = os.path.relpath(src, root)
                if part_of(root, src) == "core/api":
                    continue
                text = open(src, encoding="utf-8", errors="replace").read()
                for m in re.finditer(r'^\s*#\s*include\s+<(steadyscope/[^>]+)>', text, re.M):
                    inc = m.group(1)
                    if top != "core" and not AREA_HEADER.fullmatch(inc):
                        problems.append(f"{rel} includes {inc}: include its area's header <steadyscope/<area>.hpp>")
                    own = part_of(root, src) == "core/" + inc[len("steadyscope/"):-len(".hpp")]
                    if top == "core" and AREA_HEADER.fullmatch(inc) and not own:
                        problems.append(f"{rel} (core) includes the area header {inc}: include the part it needs")


def core_target(name):
    m = re.fullmatch(r"steadyscope_core_(\w+)", name)
    return "core/" + m.group(1) if m else None


def find_cycle(edges):
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                return stack[stack.index(v):] + [v]
            if not state.get(v):
                found = visit(v)
                if found:
                    return found
        stack.pop()
        state[u] = 2
        return None

    for u in sorted(edges):
        if not state.get(u):
            found = visit(u)
            if found:
                return found
    return None


def rank(part):
    if part.startswith("core/"):
        return 0
    return {"widgets": 1, "app/options": 1, "app/bench": 2, "app/gen": 3, "app/cli": 3, "app/gui": 3}[part]


def main():
    root = sys.argv[1]
    edges, why = collections.defaultdict(set), {}
    include_edges(root, edges, why)
    link_edges(root, edges, why)
    problems = []
    cycle = find_cycle(edges)
    if cycle:
        steps = [why[(a, b)] for a, b in zip(cycle, cycle[1:])]
        problems.append("a cycle: " + " -> ".join(cycle) + "\n    " + "\n    ".join(steps))
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if rank(b) > rank(a) or (a.startswith("core/") and not b.startswith("core/")) or \
                    (a == "widgets" and b.startswith("app/")) or (a == "app/gui" and b in ("app/cli", "app/bench")):
                problems.append(f"{a} reaches up to {b}: {why[(a, b)]}")
    private_includes(root, problems)
    private_links(root, problems)
    area_headers_only(root, problems)
    if problems:
        print("layering problems:\n  " + "\n  ".join(problems))
        return 1
    print(f"no cycle, nothing reaches up, no private core header outside the core, only area headers "
          f"({sum(len(v) for v in edges.values())} edges between {len(edges)} parts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
