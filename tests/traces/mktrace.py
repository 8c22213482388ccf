#!/usr/bin/env python3
"""Writes an mdlsim trace (format 3, frontends/qemu/trace.c) around a list of event-stream words,
for regression inputs, fuzzing seeds and synthetic traces of any size:

    mktrace.py [--end exited|killed VALUE] [--tail HEX] [--maps N] [--insns N] OUT ISA WORD...

ISA 0: x86_64, 1: aarch64; words in hex. The program frame names /nonexistent with a zero hash;
the end frame says exit 0 unless --end says otherwise; --tail appends bytes after it. --maps N
puts N mapping records of N distinct files (none exists) after the first word (the wire magic);
--insns N puts there N static instructions (a 1-byte nop each, at consecutive addresses), each
executed once."""
import argparse
import struct

MASK = (1 << 64) - 1
MAGIC = 0x33454341525444  # "DTRACE3"
WIRE_INSN, WIRE_EXEC, WIRE_MAP = 1, 2, 6


def frame_sum(place, head, words):
    a = (place * 0x9E3779B97F4A7C15 + head) & MASK
    b = a
    for w in words:
        a = (a + w) & MASK
        b = (b + a) & MASK
    return a ^ (((b << 32) | (b >> 32)) & MASK)


def path_words(path):
    padded = path + b"\0" * (-len(path) % 8)
    return list(struct.unpack("<%dQ" % (len(padded) // 8), padded))


def frames(isa, events, end=(1, 0)):
    out = [MAGIC, isa, frame_sum(0, MAGIC, [isa])]
    path = b"/nonexistent"
    program = [len(path)] + path_words(path) + list(struct.unpack("<8Q", b"0" * 64))
    chunks = [events[i:i + 65544] for i in range(0, len(events), 65544)] or [[]]
    for kind, words in [(1, program)] + [(2, c) for c in chunks] + [(3, list(end))]:
        head = kind | len(words) << 8
        out += [head, frame_sum(len(out), head, words)] + words
    return out


def mappings(n):
    """N mapping records, each of its own (absent) file, at disjoint guest ranges."""
    out = []
    for i in range(n):
        path = b"/nonexistent/lib%d.so" % i
        lo = 0x10000000 + i * 0x2000
        out += [WIRE_MAP | len(path) << 8, lo, lo + 0x1000, 0] + path_words(path)
    return out


def instructions(n):
    """N static instructions, a nop each at consecutive addresses, each executed once."""
    out = []
    for i in range(n):
        out += [WIRE_INSN | 1 << 8 | i << 32, 0x400000 + i, 0x90, WIRE_EXEC | i << 32]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--end", nargs=2, metavar=("HOW", "VALUE"), default=("exited", "0"))
    ap.add_argument("--tail", default="")
    ap.add_argument("--maps", type=int, default=0)
    ap.add_argument("--insns", type=int, default=0)
    ap.add_argument("out")
    ap.add_argument("isa", type=int)
    ap.add_argument("words", nargs="*")
    a = ap.parse_args()
    words = [int(w, 16) for w in a.words]
    words[1:1] = mappings(a.maps) + instructions(a.insns)
    end = ({"exited": 1, "killed": 2}[a.end[0]], int(a.end[1]))
    out = frames(a.isa, words, end)
    with open(a.out, "wb") as f:
        f.write(struct.pack("<%dQ" % len(out), *out))
        f.write(bytes.fromhex(a.tail))


if __name__ == "__main__":
    main()
