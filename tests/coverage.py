#!/usr/bin/env python3
"""make coverage: per machine, the instruction forms described, and the share of dynamic
instructions modelled by a class default on the BHive dev blocks (x86-64 machines) and on the
test programs run under QEMU (whole runs)."""
import json
import os
import subprocess
import sys
import tempfile

B = sys.argv[1] if len(sys.argv) > 1 else "build"
BLOCKS = "../shared/data/bhive/blocks-dev.txt"


def machines():
    out = subprocess.run([f"{B}/mdlsim", "machines"], capture_output=True, text=True, check=True).stdout
    return out.split()


def forms(machine):
    out = subprocess.run([f"{B}/mdlc", "-I", "machines", "--summary", f"machines/{machine}.mdl"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "instruction forms" in line:
            return int(line.split()[0])
    return 0


def blocks(machine):
    if not os.path.exists(BLOCKS):
        return None
    out = subprocess.run([f"{B}/mdlsim", "block", "--machine", machine, "--json", "--no-sensitivity",
                          "--no-causality", "--iterations", "2", "--hex-file", BLOCKS],
                         capture_output=True, text=True).stdout
    unknown = total = 0
    for line in out.splitlines():
        o = json.loads(line)
        if "error" not in o:
            unknown += len(o["unknown"])
            total += o["instructions"]
    return unknown, total


def programs(machine, isa):
    suffix = ".a64" if isa == "aarch64" else ".x86"
    unknown = executed = 0
    worst = {}
    for f in sorted(os.listdir(f"{B}/programs")):
        if not f.endswith(suffix) or f.startswith("threads"):
            continue
        with tempfile.NamedTemporaryFile(suffix=".json") as j:
            subprocess.run([f"{B}/mdlsim", "run", "--machine", machine, "--no-sensitivity", "--no-causality",
                            "--json", j.name, "--", f"{B}/programs/{f}"], capture_output=True)
            try:
                o = json.load(open(j.name))
            except ValueError:
                continue
        executed += o["executed"]
        for u in o["unknown"]:
            unknown += u["count"]
            worst[u["disasm"].split()[0]] = worst.get(u["disasm"].split()[0], 0) + u["count"]
    return unknown, executed, sorted(worst.items(), key=lambda kv: -kv[1])[:6]


def main():
    print(f"{'machine':12} {'forms':>6}  {'dev blocks: class default':>28}  {'test programs: class default':>30}")
    for m in machines():
        isa = json.loads(subprocess.run([f"{B}/mdlc", "-I", "machines", "--dump-json", f"machines/{m}.mdl"],
                                        capture_output=True, text=True).stdout)["isa"]
        b = blocks(m) if isa == "x86_64" else None
        bs = f"{b[0]} of {b[1]} ({100 * b[0] / b[1]:.2f}%)" if b and b[1] else "-"
        u, e, worst = programs(m, isa)
        ps = f"{u} of {e} ({100 * u / e:.2f}%)" if e else "-"
        print(f"{m:12} {forms(m):6d}  {bs:>28}  {ps:>30}")
        if worst:
            print(" " * 14 + "most frequent: " + ", ".join(f"{k} {v}" for k, v in worst))


if __name__ == "__main__":
    main()
