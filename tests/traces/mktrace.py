#!/usr/bin/env python3
"""Writes an mdlsim trace (format 2, frontends/qemu/trace.c) around a list of event-stream words,
for regression inputs and fuzzing seeds: mktrace.py OUT ISA WORD... (ISA 0: x86_64, 1: aarch64;
words in hex). The program frame names /nonexistent with a zero hash; the end frame says exit 0."""
import struct
import sys

MASK = (1 << 64) - 1
MAGIC = 0x32454341525444  # "DTRACE2"


def frame_sum(place, head, words):
    a = (place * 0x9E3779B97F4A7C15 + head) & MASK
    b = a
    for w in words:
        a = (a + w) & MASK
        b = (b + a) & MASK
    return a ^ (((b << 32) | (b >> 32)) & MASK)


def frames(isa, events):
    out = [MAGIC, isa]
    path = b"/nonexistent"
    padded = path + b"\0" * (-len(path) % 8)
    program = [len(path)] + list(struct.unpack("<%dQ" % (len(padded) // 8), padded))
    program += list(struct.unpack("<8Q", b"0" * 64))
    for kind, words in ((1, program), (2, events), (3, [1, 0])):
        head = kind | len(words) << 8
        out += [head, frame_sum(len(out), head, words)] + words
    return out


if __name__ == "__main__":
    words = frames(int(sys.argv[2]), [int(w, 16) for w in sys.argv[3:]])
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<%dQ" % len(words), *words))
