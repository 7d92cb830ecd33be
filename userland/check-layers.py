#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Holds userland/lib/ to its layers.  Each folder is a layer, and a file
includes only headers of its own layer or of those before it:

    record   the recording reader
    model    the generic table, applications and samples, sched, irq,
             symbols, kernel symbols
    report   the text reports, the output writers and the naming helpers
             they share (view)
    export   folded stacks, flame graphs, speedscope, pprof
    session  session control and the drainer, for the recording tools

and no two files include each other, even through others.  Prints TAP.

    userland/check-layers.py [LIB]        # LIB: userland/lib
    userland/check-layers.py --self-test  # each rule broken once, in a copy
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LAYERS = ["record", "model", "report", "export", "session"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_lib(lib):
    """{name: (layer, [included library headers])} for lib's files, and
    the files that lie outside any layer."""
    files, loose = {}, []
    for root, _, names in os.walk(lib):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(root, name), lib)
            layer = path.split(os.sep)[0]
            if layer not in LAYERS or path.count(os.sep) != 1:
                loose.append(path)
                continue
            with open(os.path.join(lib, path)) as f:
                includes = [i for i in INCLUDE.findall(f.read())
                            if i.split("/")[0] in LAYERS]
            files[path] = (layer, includes)
    return files, loose


def cycles(files):
    """Sets of modules (a .c and its .h) that need each other."""
    module = lambda path: os.path.splitext(path)[0]
    graph = {}
    for path, (_, includes) in files.items():
        graph.setdefault(module(path), set()).update(
            module(i) for i in includes if module(i) != module(path))
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def check(lib):
    files, loose = read_lib(lib)
    print("1..3")
    failed = 0
    problems = [f"{p}: not in a layer folder ({', '.join(LAYERS)})" for p in loose]
    if not files:
        problems.append(f"{lib}: no library file found")
    failed += not tap(1, f"{len(files)} files of {lib}, each in a layer", problems)
    problems = []
    for path, (layer, includes) in sorted(files.items()):
        for inc in includes:
            if not os.path.exists(os.path.join(lib, inc)):
                problems.append(f"{path}: includes {inc}, which is not there")
            elif LAYERS.index(inc.split("/")[0]) > LAYERS.index(layer):
                problems.append(f"{path} ({layer}) includes {inc}, a layer above it")
    failed += not tap(2, "every include names its own layer or one below", problems)
    failed += not tap(3, "no two files need each other",
                      [" <-> ".join(c) for c in cycles(files)])
    return 1 if failed else 0


def tap(number, label, problems):
    print(("ok" if not problems else "not ok") + f" {number} - {label}")
    for problem in problems:
        print(f"#   {problem}")
    return not problems


def self_test(lib):
    """Breaks each rule in a copy of lib; the check must fail every time."""
    breaks = [
        ("a file outside the layers", lambda d: open(os.path.join(d, "loose.c"), "w").close()),
        ("an include of a layer above",
         lambda d: append(os.path.join(d, "record", "recording.c"), '#include "session/session.h"\n')),
        ("two files that include each other",
         lambda d: append(os.path.join(d, "model", "table.h"), '#include "model/profile.h"\n')),
    ]
    print(f"1..{len(breaks) + 1}")
    ok = subprocess.run([sys.executable, __file__, lib], capture_output=True).returncode == 0
    failed = not tap(1, f"{lib} as it is passes", [] if ok else ["it fails"])
    for n, (what, breaker) in enumerate(breaks, 2):
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "lib")
            shutil.copytree(lib, copy)
            breaker(copy)
            status = subprocess.run([sys.executable, __file__, copy],
                                    capture_output=True).returncode
            failed += not tap(n, f"fails with {what}", [] if status else ["it passed"])
    return 1 if failed else 0


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


if __name__ == "__main__":
    args = sys.argv[1:]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    if args[:1] == ["--self-test"]:
        sys.exit(self_test(args[1] if len(args) > 1 else here))
    sys.exit(check(args[0] if args else here))
