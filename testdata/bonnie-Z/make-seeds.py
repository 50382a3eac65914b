#!/usr/bin/env python3
"""Writes seeds.bin, the -Z file of the bonnie-Z reference: 1000 big-endian 32-bit
numbers from a fixed LCG, so a run cycles through it several times. Every tenth
number is negative, to check that both tools take abs(); -2147483648 is left out,
because bonnie++ indexes out of bounds with it."""
import struct
x, out = 12345, []
for i in range(1000):
    x = (x * 1103515245 + 12345) % 2**32
    v = x >> 1                      # 0..2^31-1
    if i % 10 == 9:
        v = -max(v, 1)
    out.append(struct.pack('>i', v))
open('seeds.bin', 'wb').write(b''.join(out))
