#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stall-watch.py LOG QMP_SOCKET MINUTES [SYSTEM_MAP]

Watches a guest (qemu/boot.sh with QEMU_SILENCE): once its console LOG
has been silent for MINUTES, it asks QEMU where each vCPU is, five times
three seconds apart (RIP, privilege level, halted or not, named with the
kernel's SYSTEM_MAP), writes that to LOG.stall and quits QEMU, so that a
hung guest fails within minutes and says where it hung, instead of at
its timeout saying nothing.  A guest hung with
interrupts off on every vCPU prints nothing itself: no RCU stall report
and, without a PMU, no hard lockup one.  Ends when QEMU does.
"""
import bisect
import json
import os
import re
import socket
import sys
import time


def load_symbols(path):
    """Sorted (addresses, names) of the text symbols in a System.map."""
    addrs, names = [], []
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) == 3 and fields[1] in "tTwW":
                    addrs.append(int(fields[0], 16))
                    names.append(fields[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def name(symbols, rip):
    """RIP as symbol+offset; a user address, or one no symbol of the map
    is within 1 MiB of (a module, a kernel moved by KASLR), in hex."""
    addrs, names = symbols
    if rip < 0xffff800000000000:
        return "%#x (user)" % rip
    i = bisect.bisect_right(addrs, rip) - 1
    if i < 0 or rip - addrs[i] > 0x100000:
        return "%#x" % rip
    return "%s+%#x" % (names[i], rip - addrs[i])


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rw")
        self.reply()                    # the greeting
        self.command("qmp_capabilities")

    def reply(self):
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("QEMU closed its QMP socket")
            message = json.loads(line)
            if "event" not in message:
                return message

    def command(self, name, **arguments):
        self.file.write(json.dumps({"execute": name, "arguments": arguments}) + "\n")
        self.file.flush()
        return self.reply().get("return")

    def hmp(self, command_line):
        return self.command("human-monitor-command", **{"command-line": command_line})


def vcpus(registers, symbols):
    """One 'vCPU N: where (CPL c, halted)' per CPU of 'info registers -a'."""
    states = []
    registers = registers.replace("\r", "")
    for cpu, text in re.findall(r"CPU#(\d+)\n(.*?)(?=\nCPU#|\Z)", registers, re.S):
        rip = re.search(r"RIP=([0-9a-f]+)", text)
        cpl = re.search(r"CPL=(\d)", text)
        hlt = re.search(r"HLT=(\d)", text)
        if rip:
            states.append("vCPU %s: %s (CPL %s%s)" % (
                cpu, name(symbols, int(rip.group(1), 16)),
                cpl.group(1) if cpl else "?",
                ", halted" if hlt and hlt.group(1) == "1" else ""))
    return states


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: stall-watch.py LOG QMP_SOCKET MINUTES [SYSTEM_MAP]")
    log, path, minutes = sys.argv[1], sys.argv[2], float(sys.argv[3])
    symbols = load_symbols(sys.argv[4] if len(sys.argv) == 5 else None)
    for _ in range(120):                # QEMU creates the socket at start
        if os.path.exists(path):
            break
        time.sleep(0.5)
    try:
        qmp = Qmp(path)
        while True:
            time.sleep(15)
            qmp.command("query-status")     # raises once QEMU has gone
            silent = time.time() - os.path.getmtime(log)
            if silent < minutes * 60:
                continue
            lines = ["stall-watch: the console was silent for %.1f min; where the vCPUs were:"
                     % (silent / 60)]
            for sample in range(5):
                lines.append("stall-watch: sample %d: %s" % (
                    sample + 1, "; ".join(vcpus(qmp.hmp("info registers -a"), symbols))))
                time.sleep(3)
            with open(log + ".stall", "w") as f:
                f.write("\n".join(lines) + "\n")
            qmp.command("quit")
            return
    except (ConnectionError, OSError, ValueError):
        return                          # QEMU ended


if __name__ == "__main__":
    main()
