#!/usr/bin/env python3
"""Block-mode benchmark: mdlsim and llvm-mca-19 side by side on the BHive dev blocks.

Speed: blocks per second of one mdlsim process (baseline with causality; then every sensitivity
lane) and of one llvm-mca-19 process with one code region per block. Accuracy: against the
reference cycles per iteration (uiCA's, see DESIGN.md), the mean absolute percentage error,
the median error and Kendall's tau of each tool on the blocks both handle.
"""
import argparse
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


def kendall_tau(xs, ys):
    """Tau-b, O(n^2): fine for a few thousand blocks."""
    n = len(xs)
    conc = disc = tx = ty = 0
    for i in range(n):
        xi, yi = xs[i], ys[i]
        for j in range(i + 1, n):
            dx, dy = xi - xs[j], yi - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif (dx > 0) == (dy > 0):
                conc += 1
            else:
                disc += 1
    denom = ((conc + disc + tx) * (conc + disc + ty)) ** 0.5
    return (conc - disc) / denom if denom else 0.0


def accuracy(pred, ref, keys):
    errs = [abs(pred[k] - ref[k]) / ref[k] for k in keys]
    return (100 * statistics.mean(errs), 100 * statistics.median(errs),
            kendall_tau([pred[k] for k in keys], [ref[k] for k in keys]))


# Each tool's time is the best of REPEAT runs: the machine may be busy with other work, and the
# fastest run is the one least disturbed (the same rule for both tools).
REPEAT = 3


def timed(cmd, repeat=REPEAT):
    """The best time of REPEAT runs of CMD, and the last run's result. The output goes to a file:
    read from a pipe, this script would compete with the tool for the processors."""
    best = None
    with tempfile.TemporaryFile("w+") as f:
        for _ in range(repeat):
            f.seek(0)
            f.truncate()
            t0 = time.perf_counter()
            run = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
            dt = time.perf_counter() - t0
            best = dt if best is None or dt < best else best
        f.seek(0)
        out = subprocess.CompletedProcess(cmd, run.returncode, f.read(), run.stderr)
    return out, best


def run_mdlsim(mdlsim, machine, blocks, extra, objects=None, repeat=REPEAT):
    """Cycles per iteration by block; OBJECTS, when given, receives each block's whole report."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(blocks) + "\n")
        path = f.name
    out, dt = timed([mdlsim, "block", "--machine", machine, "--json", "--hex-file", path] + extra, repeat)
    os.unlink(path)
    pred, unknown, total = {}, 0, 0
    for hexs, line in zip(blocks, out.stdout.splitlines()):
        o = json.loads(line)
        if "error" in o:
            continue
        pred[hexs] = o["cycles_per_iteration"]
        if objects is not None:
            objects[hexs] = o
        unknown += len(o["unknown"])
        total += o["instructions"]
    return pred, dt, unknown, total


def disassemble(llvm_mc, hexs):
    """AT&T text of one block, or None when llvm-mc rejects a byte."""
    data = " ".join("0x" + hexs[i:i + 2] for i in range(0, len(hexs), 2))
    out = subprocess.run([llvm_mc, "--disassemble", "-triple=x86_64"], input=data, capture_output=True,
                         text=True)
    if out.returncode or "invalid" in out.stderr:
        return None
    lines = [l.strip() for l in out.stdout.splitlines() if l.strip() and not l.strip().startswith(".text")]
    return lines or None


def mca_accepts(mca, cpu, asm):
    text = "\n".join(asm) + "\n"
    out = subprocess.run([mca, f"-mcpu={cpu}", "-iterations=10"], input=text, capture_output=True, text=True)
    return out.returncode == 0


def mca_file(blocks, asm):
    """An assembly file of one llvm-mca code region per block; its path."""
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        for i, b in enumerate(blocks):
            f.write(f"# LLVM-MCA-BEGIN b{i}\n" + "\n".join(asm[b]) + "\n# LLVM-MCA-END\n")
        return f.name


def mca_cycles(stdout, blocks, iterations):
    pred = {}
    region = None
    for line in stdout.splitlines():
        m = re.match(r"\[\d+\] Code Region - b(\d+)", line)
        if m:
            region = int(m.group(1))
        m = re.match(r"Total Cycles:\s+(\d+)", line)
        if m and region is not None:
            pred[blocks[region]] = int(m.group(1)) / iterations
    return pred


def run_mca(mca, cpu, blocks, asm, iterations, extra=(), repeat=REPEAT):
    path = mca_file(blocks, asm)
    out, dt = timed([mca, f"-mcpu={cpu}", f"-iterations={iterations}", *extra, path], repeat)
    os.unlink(path)
    return mca_cycles(out.stdout, blocks, iterations), dt


def run_mca_jobs(mca, cpu, blocks, asm, iterations, jobs, repeat=REPEAT):
    """The wall time of JOBS llvm-mca processes at once, each on a share of the blocks (llvm-mca
    has no threads of its own): its rate on every processor, as mdlsim's --jobs is measured."""
    shares = [blocks[k::jobs] for k in range(jobs)]
    paths = [mca_file(share, asm) for share in shares]
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        procs = [subprocess.Popen([mca, f"-mcpu={cpu}", f"-iterations={iterations}", path],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for path in paths]
        for p in procs:
            p.wait()
        dt = time.perf_counter() - t0
        best = dt if best is None or dt < best else best
    for path in paths:
        os.unlink(path)
    return best


def host():
    """The processor's model name and count, for the figures' context."""
    name = "unknown processor"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} processors"


# "reader": the reader alone, near enough (the model steps the first million instructions, then one
# unit, baseline only; every instruction warms the caches, predictor and uop cache)
RUN_MODES = (("reader", ["--no-sensitivity", "--no-causality", "--sample-period", "1000000000"]),
             ("exact base", ["--exact", "--no-sensitivity"]), ("exact lanes", ["--exact"]),
             ("sampled base", ["--no-sensitivity"]), ("sampled lanes", []))


def random_file(directory, size):
    """A file of SIZE pseudo-random bytes (the same every run) in DIRECTORY; its path."""
    path = os.path.join(directory, "random.bin")
    with open(path, "wb") as f:
        f.write(random.Random(1).randbytes(size))
    return path


def qemu_speed(mdlsim, machine, qemu_cpu, program, args, modes):
    """Seconds of plain QEMU, of QEMU with the plugin alone (its stream thrown away) and of mdlsim
    run in each of MODES on PROGRAM (each the best of REPEAT runs as in block mode), and each mode's
    report."""
    qemu = ["qemu-x86_64", "-cpu", qemu_cpu]
    _, plain = timed(qemu + [program] + args)
    plugin = os.path.join(os.path.dirname(mdlsim), "libmdlplugin.so")
    _, out = timed(["sh", "-c", '"$@" 3>/dev/null', "sh"] + qemu + ["-plugin", plugin + ",fd=3", program] + args)
    out, reports = {"plugin": out}, {}
    for label, extra in modes:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            path = f.name
        _, out[label] = timed([mdlsim, "run", "--machine", machine, "--json", path] + extra + ["--", program] + args)
        reports[label] = json.load(open(path))
        os.unlink(path)
    return plain, out, reports


def sampled_error(reports, kind):
    """The sampled cycles against the exact ones: relative error, and whether the interval holds them."""
    exact, sampled = reports["exact " + kind], reports["sampled " + kind]
    c = exact["cycles"]
    held = sampled.get("cycles_low", sampled["cycles"]) <= c <= sampled.get("cycles_high", sampled["cycles"])
    return 100 * (sampled["cycles"] / c - 1), held


def add_tool_args(ap):
    """The options bench.py and crosscheck.py share: the tools and the blocks."""
    ap.add_argument("--mdlsim", default="build/mdlsim")
    ap.add_argument("--blocks", default="../shared/data/bhive/blocks-dev.txt")
    ap.add_argument("--mca", default="llvm-mca-19")
    ap.add_argument("--llvm-mc", default="llvm-mc-19")
    ap.add_argument("--limit", type=int, default=0, help="only the first N blocks")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    add_tool_args(ap)
    ap.add_argument("--reference", default="../shared/data/bhive/uica-skl.csv")
    ap.add_argument("--machine", default="skylake")
    ap.add_argument("--cpu", default="skylake")
    ap.add_argument("--programs", default="", help="directory of gemm.sse2 / gemm.avx2 builds for the QEMU speed")
    ap.add_argument("--qemu-cpu", default="Skylake-Client")
    args = ap.parse_args()

    blocks = [l.strip() for l in open(args.blocks) if l.strip()]
    if args.limit:
        blocks = blocks[:args.limit]
    ref = {r["hex"]: float(r["cycles_per_iteration"]) for r in csv.DictReader(open(args.reference))}
    blocks = [b for b in blocks if b in ref and ref[b] > 0]
    n = len(blocks)
    print(f"{n} blocks of {args.blocks}, reference {args.reference}, machine {args.machine}")
    print(f"host: {host()}")

    # one thread, then the default: one thread per processor
    base, t_base, unknown, total = run_mdlsim(args.mdlsim, args.machine, blocks, ["--no-sensitivity", "--jobs", "1"])
    lanes, t_lanes, _, _ = run_mdlsim(args.mdlsim, args.machine, blocks, ["--jobs", "1"])
    jobs = os.cpu_count() or 1
    _, t_jobs, _, _ = run_mdlsim(args.mdlsim, args.machine, blocks, ["--no-sensitivity"])
    _, t_lanes_jobs, _, _ = run_mdlsim(args.mdlsim, args.machine, blocks, [])
    print(f"mdlsim: {len(base)}/{n} blocks handled; {unknown} of {total} instructions modelled by a class default")

    mca_pred, t_mca, t_mca_jobs, handled = {}, None, None, []
    have_mca = subprocess.run(["which", args.mca], capture_output=True).returncode == 0
    if have_mca:
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            asm = dict(zip(blocks, ex.map(lambda b: disassemble(args.llvm_mc, b), blocks)))
            ok = list(ex.map(lambda b: asm[b] is not None and mca_accepts(args.mca, args.cpu, asm[b]), blocks))
        handled = [b for b, good in zip(blocks, ok) if good]
        mca_pred, t_mca = run_mca(args.mca, args.cpu, handled, asm, 100)
        t_mca_jobs = run_mca_jobs(args.mca, args.cpu, handled, asm, 100, jobs)
        print(f"llvm-mca: {len(mca_pred)}/{n} blocks handled")
    else:
        print(f"llvm-mca: {args.mca} not found (install llvm-19); speed and accuracy of the peer not measured")

    # Rates side by side, each as a multiple of llvm-mca-19's on as many processors in this run
    # (the goal: baseline at least 20x, every lane at least 10x, on one thread).
    print(f"\nspeed (blocks per second, best of {REPEAT} runs; x: the multiple of llvm-mca-19's rate"
          f" measured beside it):")
    print(f"  {'':40}{'one thread':>22}{f'{jobs} threads (--jobs default)':>34}")
    mca_one = len(mca_pred) / t_mca if t_mca else None
    mca_all = len(mca_pred) / t_mca_jobs if t_mca else None
    rows = [("mdlsim baseline + causality", len(base) / t_base, len(base) / t_jobs),
            ("mdlsim every sensitivity lane", len(lanes) / t_lanes, len(lanes) / t_lanes_jobs)]
    if t_mca:
        rows.append(("llvm-mca-19 -iterations=100", mca_one, mca_all))
    for label, one, every in rows:
        x1 = f"{one / mca_one:9.1f}x" if mca_one else ""
        xa = f"{every / mca_all:9.1f}x" if mca_all else ""
        print(f"  {label:<40}{one:12.0f}{x1:>10}{every:24.0f}{xa:>10}")

    print("\naccuracy against the reference (MAPE, median error, Kendall tau):")
    both = [b for b in blocks if b in base and b in mca_pred] if mca_pred else [b for b in blocks if b in base]
    m = accuracy(base, ref, both)
    print(f"  mdlsim       on {len(both)} common blocks: {m[0]:6.2f}%  {m[1]:6.2f}%  {m[2]:.3f}")
    if mca_pred:
        c = accuracy(mca_pred, ref, both)
        print(f"  llvm-mca-19  on {len(both)} common blocks: {c[0]:6.2f}%  {c[1]:6.2f}%  {c[2]:.3f}")
    allm = accuracy(base, ref, list(base))
    print(f"  mdlsim       on all {len(base)} blocks it handles: {allm[0]:6.2f}%  {allm[1]:6.2f}%  {allm[2]:.3f}")

    if args.programs:
        print(f"\nmdlsim run under QEMU (MIPS = executed instructions per second, whole run, best of {REPEAT};"
              f" x = times plain QEMU's time):")
        labels = ["plugin"] + [label for label, _ in RUN_MODES]
        print(f"  {'program':15} {'instructions':>12} {'qemu':>6}" + "".join(f" {label:>20}" for label in labels))
        # the last two: a few hundred million instructions, too many for the exact modes (minutes
        # each); Debian's gzip, integer code that QEMU runs fast, is where the reader's cost shows
        runs = [(f"{name} {size}", os.path.join(args.programs, name), [size], exact)
                for name, size, exact in (("gemm.sse2", "160", True), ("gemm.avx2", "128", True),
                                          ("gemm.sse2", "320", False))]
        gzip = shutil.which("gzip")
        if gzip:
            runs.append(("gzip -1 3MB", gzip, ["-1", "-k", "-f", random_file(args.programs, 3 << 20)], False))
        for title, prog, prog_args, exact in runs:
            if not os.path.exists(prog):
                continue
            modes = [m for m in RUN_MODES if exact or not m[0].startswith("exact")]
            plain, t, reports = qemu_speed(args.mdlsim, args.machine, args.qemu_cpu, prog, prog_args, modes)
            n = reports["reader"]["executed"]
            cells = "".join(f" {n / t[label] / 1e6:8.2f} MIPS {t[label] / plain:6.1f}x" if label in t else f" {'-':>20}"
                            for label in labels)
            print(f"  {title:15} {n:12d} {n / plain / 1e6:6.1f}{cells}")
            for kind in ("base", "lanes") if exact else ():
                err, held = sampled_error(reports, kind)
                top = [reports[f"{m} {kind}"].get("verdict_detail", {}).get("resources", []) for m in ("exact", "sampled")]
                print(f"    sampled {kind}: cycles {err:+.2f}% against exact, "
                      f"{'inside' if held else 'OUTSIDE'} its 95% interval; verdict "
                      f"{'the same' if top[0] == top[1] else 'DIFFERENT'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
