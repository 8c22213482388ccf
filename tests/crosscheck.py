#!/usr/bin/env python3
"""Cross-check of the machines without a block reference (make crosscheck; machines/VALIDATION.md).

1. Blocks: mdlsim and llvm-mca-19 on the BHive dev blocks, per machine (skylake, icelake with
   -mcpu=icelake-client, alderlake with -mcpu=alderlake): the MAPE of mdlsim taking llvm-mca as the
   reference, the median error, Kendall's tau, the geometric mean of mdlsim/llvm-mca, and the
   instruction kinds (AT&T mnemonics) over-represented in the blocks where the two differ by
   more than --factor. For Skylake also both against uiCA's cycles (the reference of make bench).
2. Single-instruction facts: for a fixed sample of instruction forms, mdlsim's latency (one
   instruction whose destination is its source, repeated: a dependent chain) and inverse
   throughput (copies with distinct destinations) against uops.info's values in
   shared/data/uops/, with llvm-mca-19's cycles for the same blocks beside them.
3. Cortex-A72: mdlsim on each group's example of shared/data/a72/cortex_a72_instructions.csv:
   the latency of the entry it is modelled by against the data set's value and LLVM's Cortex-A57
   model (what llvm-mca-19 -mcpu=cortex-a72 reports, kept in the data set's columns).
"""
import argparse
import collections
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (kendall_tau, disassemble, mca_accepts, run_mca, run_mdlsim)

X86 = (("skylake", "skylake", "skylake.csv"), ("icelake", "icelake-client", "icelake.csv"),
       ("alderlake", "alderlake", "alderlakep.csv"))

# The single-instruction sample: AT&T text with {r} a 64-bit GPR, {x} an XMM, {y} a YMM register;
# the destination is the last operand and is read, so one instruction alone is a chain. rbx,
# rcx, rsp, rbp, xmm14/15 and ymm14/15 are never destinations: they are the fixed sources. A form
# marked "tp:" does not read its destination (loads, pop): it is measured for throughput only.
FORMS = [
    "addq %rbx, {r}", "subq %rbx, {r}", "imulq %rbx, {r}", "shlq $3, {r}", "shlq %cl, {r}", "rorq $3, {r}",
    "bswapq {r}", "popcntq {r}, {r}", "lzcntq {r}, {r}", "tzcntq {r}, {r}", "bsfq {r}, {r}",
    "cmoveq %rbx, {r}", "leaq (%rbx,{r}), {r}", "andnq {r}, {r}, {r}", "shlxq {r}, {r}, {r}",
    "tp:movq (%rbx), {r}", "movq ({r}), {r}", "tp:popq {r}",
    "addsd %xmm15, {x}", "mulsd %xmm15, {x}", "divsd %xmm15, {x}", "sqrtsd {x}, {x}",
    "cvtsi2sdq %rbx, {x}", "pshufb %xmm15, {x}", "pmulld %xmm15, {x}", "aesenc %xmm15, {x}",
    "pclmulqdq $0, %xmm15, {x}", "tp:movups (%rbx), {x}",
    "vaddpd %ymm15, {y}, {y}", "vfmadd231pd %ymm14, %ymm15, {y}", "vdivpd %ymm15, {y}, {y}",
    "vsqrtpd {y}, {y}", "vcvtdq2ps {y}, {y}", "vpaddd %ymm15, {y}, {y}", "vpmulld %ymm15, {y}, {y}",
    "vpslld $3, {y}, {y}", "vshufps $0, %ymm15, {y}, {y}", "vpermd {y}, %ymm15, {y}",
]
GPR = ["%rax", "%rdx", "%rsi", "%rdi", "%r8", "%r9", "%r10", "%r11"]
XMM = [f"%xmm{i}" for i in range(12)]
YMM = [f"%ymm{i}" for i in range(12)]


def copies(form):
    """The chain (one instruction, or None) and the independent copies (or None) of FORM."""
    tp_only = form.startswith("tp:")
    form = form[3:] if tp_only else form
    regs = GPR if "{r}" in form else XMM if "{x}" in form else YMM
    key = "{r}" if "{r}" in form else "{x}" if "{x}" in form else "{y}"
    chain = None if tp_only else [form.replace(key, regs[0])]
    if "({r})" in form:                      # a load through its own result: chain only
        return chain, None
    return chain, [form.replace(key, r) for r in regs]


def pct(x):
    return f"{100 * x:5.1f}%"


def agreement(pred, ref, keys):
    errs = [abs(pred[k] - ref[k]) / ref[k] for k in keys]
    return (statistics.mean(errs), statistics.median(errs),
            bench.kendall_tau([pred[k] for k in keys], [ref[k] for k in keys]), geomean(pred, ref, keys))


def mnemonics(asm):
    out = []
    for line in asm:
        words = [w for w in line.split() if w not in ("lock", "rep", "repe", "repne", "rex64", "data16")]
        if words:
            out.append(words[0])
    return out


def geomean(a, b, keys):
    return math.exp(statistics.mean(math.log(a[k] / b[k]) for k in keys))


def bottleneck(report):
    """The resource whose acceleration speeds the block up most ('ports' for any port set)."""
    b = report.get("bottlenecks") or []
    top = max(b, key=lambda x: x["speedup"]) if b else None
    if not top or top["speedup"] <= 1.01:
        return "none"
    return "ports" if re.match(r"p[0-9A-B]+$|maximum", top["resource"]) else top["resource"]


def by_bottleneck(keys, reports, mdl, mca, ref):
    groups = collections.defaultdict(list)
    for k in keys:
        groups[bottleneck(reports[k])].append(k)
    print("  by mdlsim's bottleneck: blocks, geometric mean mdlsim/llvm-mca"
          + (" (and mdlsim/uiCA, llvm-mca/uiCA)" if ref else ""))
    for name, ks in sorted(groups.items(), key=lambda g: -len(g[1])):
        r = [k for k in ks if ref.get(k, 0) > 0]
        tail = f"  ({geomean(mdl, ref, r):.3f}, {geomean(mca, ref, r):.3f})" if r else ""
        print(f"    {name:12} {len(ks):5}  {geomean(mdl, mca, ks):.3f}{tail}")


def kinds_report(keys, asm, mdl, mca, factor, slower):
    """Mnemonics over-represented in the blocks where mdlsim/mca is beyond FACTOR (or 1/FACTOR)."""
    big = [k for k in keys if (mdl[k] / mca[k] >= factor if slower else mca[k] / mdl[k] >= factor)]
    if not big:
        return
    side = "mdlsim slower" if slower else "mdlsim faster"
    print(f"    {side} by {factor}x or more: {len(big)} blocks ({pct(len(big) / len(keys))})")
    every = collections.Counter(m for k in keys for m in set(mnemonics(asm[k])))
    inbig = collections.Counter(m for k in big for m in set(mnemonics(asm[k])))
    rows = []
    for m, n in inbig.items():
        lift = (n / len(big)) / (every[m] / len(keys))
        if n >= 3 and lift >= 1.5:
            rows.append((n, lift, m))
    rows.sort(key=lambda r: (-r[0] * r[1], r[2]))
    for n, lift, m in rows[:8]:
        print(f"      {m:14} in {n:4} of them ({pct(n / len(big))}; {lift:4.1f}x its share of all blocks)")
    worst = sorted(big, key=lambda k: -(mdl[k] / mca[k] if slower else mca[k] / mdl[k]))[:3]
    for k in worst:
        text = "; ".join(asm[k])
        print(f"      e.g. mdlsim {mdl[k]:6.2f} llvm-mca {mca[k]:6.2f}: {text[:110]}{'...' if len(text) > 110 else ''}")


def blocks_check(args, blocks, asm):
    uica = {}
    if os.path.exists(args.uica):
        uica = {r["hex"]: float(r["cycles_per_iteration"]) for r in csv.DictReader(open(args.uica))}
    for machine, cpu, _ in X86:
        if args.machine and machine != args.machine:
            continue
        # The prediction is the baseline alone, as make bench takes it; the lanes only name the bottleneck.
        reports = {}
        mdl, _, unknown, total = bench.run_mdlsim(args.mdlsim, machine, blocks, ["--no-sensitivity", "--no-causality"],
                                                    repeat=1)
        bench.run_mdlsim(args.mdlsim, machine, blocks, ["--no-causality"], reports, repeat=1)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            ok = list(ex.map(lambda b: asm[b] is not None and bench.mca_accepts(args.mca, cpu, asm[b]), blocks))
        handled = [b for b, good in zip(blocks, ok) if good]
        mca, _ = bench.run_mca(args.mca, cpu, handled, asm, 100, repeat=1)
        keys = [b for b in blocks if b in mdl and b in mca and mdl[b] > 0 and mca[b] > 0]
        print(f"\n== {machine}: mdlsim --machine {machine} against llvm-mca-19 -mcpu={cpu}")
        print(f"  blocks: {len(mdl)} by mdlsim ({unknown} of {total} instructions by a class default), "
              f"{len(mca)} by llvm-mca, {len(keys)} by both")
        e = agreement(mdl, mca, keys)
        print(f"  mdlsim against llvm-mca: MAPE {pct(e[0])}, median {pct(e[1])}, Kendall tau {e[2]:.3f}, "
              f"geometric mean mdlsim/llvm-mca {e[3]:.3f}")
        if machine == "skylake" and uica:
            ref = [k for k in keys if uica.get(k, 0) > 0]
            m, c = agreement(mdl, uica, ref), agreement(mca, uica, ref)
            print(f"  against uiCA ({len(ref)} blocks): mdlsim MAPE {pct(m[0])} median {pct(m[1])} tau {m[2]:.3f}; "
                  f"llvm-mca MAPE {pct(c[0])} median {pct(c[1])} tau {c[2]:.3f}")
        print(f"  largest differences (factor {args.factor}), by the instruction kinds involved:")
        kinds_report(keys, asm, mdl, mca, args.factor, True)
        kinds_report(keys, asm, mdl, mca, args.factor, False)
        by_bottleneck(keys, reports, mdl, mca, uica if machine == "skylake" else {})
        slow = [k for k in keys if mdl[k] / mca[k] >= args.factor and bottleneck(reports[k]) == "latency"]
        if slow:
            alias, _ = bench.run_mca(args.mca, cpu, slow, asm, 100, ["-noalias=false"], repeat=1)
            both = [k for k in slow if k in alias]
            print(f"  the {len(slow)} latency-bound blocks where mdlsim is slower: geometric mean mdlsim/llvm-mca "
                  f"{geomean(mdl, mca, both):.2f}, {geomean(mdl, alias, both):.2f} when llvm-mca lets loads "
                  f"depend on earlier stores (-noalias=false)")
        if args.dump:
            with open(os.path.join(args.dump, f"blocks-{machine}.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["hex", "mdlsim", "llvm_mca", "uica", "asm"])
                for k in keys:
                    w.writerow([k, mdl[k], mca[k], uica.get(k, "") if machine == "skylake" else "", "; ".join(asm[k])])


def uops_table(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        rows[r["instruction"]] = r
    return rows


def latency_bounds(text):
    nums = [float(x) for x in re.findall(r"[0-9.]+", text)]
    return (min(nums), max(nums)) if nums else None


def measured_tp(text):
    parts = text.split("/")
    return float(parts[-1]) if parts and parts[-1].strip() else None


def mdlsim_asm(mdlsim, machine, lines):
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    out = subprocess.run([mdlsim, "block", "--machine", machine, path, "--json", "--no-sensitivity",
                          "--no-causality"], capture_output=True, text=True)
    os.unlink(path)
    if out.returncode:
        return None
    return json.loads(out.stdout.splitlines()[0])


def facts_check(args):
    print("\n== single-instruction facts: mdlsim against uops.info (and llvm-mca-19 on the same blocks)")
    print("   lat: cycles per iteration of one instruction reading its own result; tp: cycles per")
    print("   instruction of 8 (GPR) or 12 (vector) copies with distinct destinations. '!' marks a")
    print("   latency outside uops.info's range or a tp more than 10% off its measured value.")
    for machine, cpu, table in X86:
        if args.machine and machine != args.machine:
            continue
        rows = uops_table(os.path.join(args.uops, table))
        blocks, plan = [], []
        for form in FORMS:
            chain, indep = copies(form)
            ci = len(blocks) if chain else None
            blocks += [b for b in (chain, indep) if b]
            plan.append((form, ci, len(blocks) - 1 if indep else None, len(indep) if indep else 0))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            sims = list(ex.map(lambda b: mdlsim_asm(args.mdlsim, machine, b), blocks))
        mca, _ = bench.run_mca(args.mca, cpu, list(range(len(blocks))), dict(enumerate(blocks)), 100, repeat=1)
        print(f"\n  {machine} (uops.info {table}; llvm-mca -mcpu={cpu})")
        print(f"    {'form modelled by':34} {'lat':>5} {'uops.info':>11} {'mca':>5}   {'tp':>5} {'uops.info':>9} {'mca':>5}")
        bad_lat = bad_tp = n_lat = n_tp = 0
        for form, ci, ti, n in plan:
            sim = sims[ci if ci is not None else ti]
            if not sim:
                print(f"    {form:34} mdlsim could not analyse it")
                continue
            key = sim["table"][0]["template"] or f"(class default) {sim['table'][0]['key']}"
            row = rows.get(sim["table"][0]["template"] or "")
            lat_txt, lat_ref, lat_mca = f"{'-':>5} ", f"{'-':>10}", f"{'-':>5}"
            bounds = latency_bounds(row["latency"]) if row else None
            if ci is not None:
                lat = sim["cycles_per_iteration"]
                lat_bad = bounds is not None and not (bounds[0] - 0.05 <= lat <= bounds[1] + 0.05)
                n_lat += bounds is not None
                bad_lat += lat_bad
                lat_txt = f"{lat:5.2f}{'!' if lat_bad else ' '}"
                lat_ref = (f"{bounds[0]:g}..{bounds[1]:g}" if bounds[0] != bounds[1] else f"{bounds[0]:g}") if bounds else "-"
                lat_ref = f"{lat_ref:>10}"
                lat_mca = f"{mca[ci]:5.2f}" if ci in mca else f"{'-':>5}"
            tp_txt = tp_ref_txt = tp_mca = ""
            if ti is not None and sims[ti]:
                tp = sims[ti]["cycles_per_iteration"] / n
                ref = measured_tp(row["throughput"]) if row else None
                tp_bad = ref is not None and abs(tp - ref) > 0.1 * ref
                n_tp += ref is not None
                bad_tp += tp_bad
                tp_txt = f"{tp:5.2f}{'!' if tp_bad else ' '}"
                tp_ref_txt = f"{ref:9.2f}" if ref is not None else f"{'-':>9}"
                tp_mca = f"{mca[ti] / n:5.2f}" if ti in mca else "    -"
            print(f"    {key[:34]:34} {lat_txt}{lat_ref} {lat_mca}   {tp_txt:6}{tp_ref_txt} {tp_mca}")
        print(f"    latency within uops.info's range: {n_lat - bad_lat}/{n_lat}; "
              f"throughput within 10%: {n_tp - bad_tp}/{n_tp}")


def a72_check(args):
    path = os.path.join(args.a72, "cortex_a72_instructions.csv")
    if not os.path.exists(path) or (args.machine and args.machine != "cortex-a72"):
        return
    rows = [r for r in csv.DictReader(open(path)) if r["example_asm"] and r["latency_cycles"]]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        sims = list(ex.map(lambda r: mdlsim_asm(args.mdlsim, "cortex-a72", [r["example_asm"]]), rows))
    agree_data = agree_llvm = n = 0
    differ = []
    for r, sim in zip(rows, sims):
        if not sim:
            continue
        n += 1
        lat = sim["table"][0]["latency"][1]
        data, llvm = float(r["latency_cycles"]), float(r["llvm_a57model_latency"] or "nan")
        agree_data += abs(lat - data) < 0.05
        agree_llvm += abs(lat - llvm) < 0.05
        if abs(lat - data) >= 0.05:
            differ.append((r["group"], r["example_asm"], lat, data, llvm, sim["table"][0]["template"]))
    print("\n== cortex-a72: latency of the entry that models each group's example, against the A72 data set")
    print(f"  {n} groups: equal to the data set's latency in {agree_data}, to LLVM's Cortex-A57 model "
          f"(llvm-mca-19 -mcpu=cortex-a72) in {agree_llvm}")
    for g, asm, lat, data, llvm, tmpl in differ[:15]:
        print(f"    {g[:34]:34} {asm[:28]:28} mdlsim {lat:g} data set {data:g} A57 model {llvm:g} ({tmpl or 'class default'})")
    if len(differ) > 15:
        print(f"    ... {len(differ) - 15} more")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench.add_tool_args(ap)
    ap.add_argument("--uica", default="../shared/data/bhive/uica-skl.csv")
    ap.add_argument("--uops", default="../shared/data/uops")
    ap.add_argument("--a72", default="../shared/data/a72")
    ap.add_argument("--machine", default="", help="only this machine")
    ap.add_argument("--factor", type=float, default=1.5, help="a large difference: mdlsim/llvm-mca beyond this")
    ap.add_argument("--dump", default="", help="directory for per-block CSVs (hex, both predictions, asm)")
    ap.add_argument("--skip-blocks", action="store_true", help="only the single-instruction facts")
    args = ap.parse_args()
    if subprocess.run(["which", args.mca], capture_output=True).returncode:
        print(f"crosscheck: {args.mca} not found (install llvm-19)", file=sys.stderr)
        return 1
    if not args.skip_blocks:
        blocks = [l.strip() for l in open(args.blocks) if l.strip()]
        if args.limit:
            blocks = blocks[:args.limit]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            asm = dict(zip(blocks, ex.map(lambda b: bench.disassemble(args.llvm_mc, b), blocks)))
        print(f"{len(blocks)} blocks of {args.blocks}; {sum(a is not None for a in asm.values())} disassembled by {args.llvm_mc}")
        blocks_check(args, blocks, asm)
    facts_check(args)
    a72_check(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
