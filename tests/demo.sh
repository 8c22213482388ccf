#!/bin/sh
# The main job on the bundled machines: compile each description and show what it holds.
set -eu
B=${1:-build}
for m in machines/*.mdl; do
    name=$(basename "$m" .mdl)
    printf '\n== %s ==\n' "$m"
    "$B/mdlc" -I machines --dump-json "$m" | python3 -c '
import json, sys
m = json.load(sys.stdin)
fe, w = m["frontend"], m["window"]
print(f"machine {m[\"machine\"]} ({m[\"isa\"]}): {m[\"description\"]}")
print(f"  front end: decode {fe[\"decode_width\"]}, issue {fe[\"issue_width\"]}, IDQ {fe[\"idq\"]}; "
      f"window: ROB {w[\"rob\"]}, scheduler {w[\"scheduler\"]}, retire {w[\"retire_width\"]}")
print(f"  {len(m[\"forms\"])} instruction forms, {len(m[\"classes\"])} class defaults, "
      f"{len(m[\"resources\"])} abstract resources, {len(m[\"rules\"][\"replace\"])} replacement rules, "
      f"{len(m[\"rules\"][\"bypass\"])} bypass rules")
print("  caches: " + ", ".join(f"{c[\"name\"]} {c[\"size\"]//1024} KiB/{c[\"ways\"]}-way/{c[\"latency\"]:g} cycles" for c in m["caches"]))
for f in m["forms"]:
    if f["name"] in ("ADD (R64, R64)", "VFMADD231PD (YMM, YMM, YMM)", "DIV (R64)", "FMLA (V4S, V4S, V4S)", "LDR (X, M)"):
        uses = ", ".join(f"{u[\"resource\"]}:{u[\"cost\"]:g}" for u in f["uses"])
        print(f"  {f[\"name\"]}: latency {f[\"latency\"][0]:g}..{f[\"latency\"][1]:g}, uops {f[\"uops\"][0]}, cost per resource: {uses}")
'
    echo "  generated/$name.c: $(wc -c < generated/$name.c) bytes"
done
