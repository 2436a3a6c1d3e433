#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes resources/examples/weights.npy: the example tensor of the lessons and of
`fpx-explorer --example weights`.

A 256x512 float32 matrix shaped like a layer's weights: Student-t values (nu = 4, heavier tails
than a normal), scaled by 0.02, with one value in 2000 multiplied by 40 (the outliers that make
per-tensor scales fail and block scales matter). Deterministic on every machine and Python
version: its own generator (splitmix64) and its own transforms, no numpy, no `random`.
"""
import math
import struct
import sys

ROWS, COLS = 256, 512
NU = 4
SCALE = 0.02
OUTLIER_EVERY = 2000
OUTLIER_FACTOR = 40.0


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        yield z ^ (z >> 31)


def main(path):
    bits = splitmix64(20260222)
    uniform = lambda: ((next(bits) >> 11) + 0.5) / float(1 << 53)  # in (0, 1)

    def normal():  # Box-Muller, one value per pair
        return math.sqrt(-2.0 * math.log(uniform())) * math.cos(2.0 * math.pi * uniform())

    values = []
    for i in range(ROWS * COLS):
        z = normal()
        chi2 = sum(normal() ** 2 for _ in range(NU))
        t = z / math.sqrt(chi2 / NU)
        if (next(bits) % OUTLIER_EVERY) == 0:
            t *= OUTLIER_FACTOR
        values.append(t * SCALE)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (ROWS, COLS)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # data starts at a multiple of 64
    with open(path, "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        out.write(struct.pack("<%df" % len(values), *values))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "resources/examples/weights.npy")
