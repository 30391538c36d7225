#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Copy stdin to a file, prefixing every line with the seconds since this program started
(monotonic clock). Used to time serial output: tslog.py OUT < serial-stream"""
import sys, time

t0 = time.monotonic()
with open(sys.argv[1], "w", buffering=1) as out:
    buf = b""
    stdin = sys.stdin.buffer.raw
    while True:
        chunk = stdin.read(4096)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            out.write("%.3f %s\n" % (time.monotonic() - t0, line.decode("utf-8", "replace").rstrip("\r")))
    if buf:
        out.write("%.3f %s\n" % (time.monotonic() - t0, buf.decode("utf-8", "replace")))
