#!/bin/sh
# make bench: the compile-time table of the machines, then mdlsim against llvm-mca-19 on the
# BHive dev blocks (speed and accuracy side by side, in one run).
set -eu
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== mdlc: compile time per machine"
printf '%-14s %8s %10s %12s %12s\n' machine forms "mdlc (s)" "forms/s" "cc -O2 (s)"
for m in machines/*.mdl; do
    name=$(basename "$m" .mdl)
    t0=$(date +%s.%N)
    "$B/mdlc" -I machines -o "$tmp" "$m"
    t1=$(date +%s.%N)
    cc -std=c11 -O2 -Iruntime -c -o "$tmp/$name.o" "$tmp/$name.c"
    t2=$(date +%s.%N)
    forms=$("$B/mdlc" -I machines --summary "$m" | sed -n 's/^ *\([0-9]*\) instruction forms.*/\1/p')
    awk -v n="$name" -v f="$forms" -v a="$t0" -v b="$t1" -v c="$t2" \
        'BEGIN { printf "%-14s %8d %10.3f %12.0f %12.2f\n", n, f, b - a, f / (b - a), c - b }'
done
echo
echo "== mdlsim block mode against llvm-mca-19 (BHive dev blocks, Skylake)"
blocks=../shared/data/bhive/blocks-dev.txt
[ -r "$blocks" ] || { echo "bench: $blocks not found (shared/ beside the checkout)" >&2; exit 1; }
cc -O2 -no-pie -o "$tmp/gemm.sse2" tests/programs/gemm.c
cc -O2 -no-pie -mavx2 -mfma -o "$tmp/gemm.avx2" tests/programs/gemm.c
python3 tests/bench.py --mdlsim "$B/mdlsim" --blocks "$blocks" --reference ../shared/data/bhive/uica-skl.csv \
    --programs "$tmp" --qemu-cpu "Skylake-Client,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm,-rdseed,-3dnowprefetch,-xsavec"
