#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The stamp every file of bench/results carries: the commit the run
began at ("-dirty" when the tree had changes then, other than results in
bench/results: make bench's second half, bench/peers.sh, begins after the
first has written its own) and the sha256 of the
kernel configuration the guests booted, so that every figure can be
traced to what made it.  bench/check-readme.py refuses a result without
one.  Taken when a run begins (the tree may change while it runs):

    bench/stamp.py KERNEL_CONFIG      # prints the stamp as JSON
"""
import hashlib
import json
import subprocess
import sys


def stamp(config_path):
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                         text=True, check=True).stdout.strip()
    commit = subprocess.run(["git", "-C", top, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", top, "diff", "--quiet", "HEAD", "--", ".",
                            ":(exclude)bench/results"]).returncode != 0
    with open(config_path, "rb") as f:
        config_sha256 = hashlib.sha256(f.read()).hexdigest()
    return {"commit": commit + ("-dirty" if dirty else ""),
            "kernel_config_sha256": config_sha256}


def stamp_line(stamp_):
    """The stamp as the first line of a results page."""
    return (f"Stamp: commit {stamp_['commit']}, kernel configuration sha256 "
            f"{stamp_['kernel_config_sha256']}.")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench/stamp.py KERNEL_CONFIG")
    try:
        print(json.dumps(stamp(sys.argv[1])))
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"stamp.py: {e}")
