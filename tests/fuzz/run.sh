#!/bin/sh
# make fuzz: each libFuzzer harness for SECONDS, from seeds (the bundled and test descriptions; the
# test kernels and, when ../shared is beside the checkout, BHive dev blocks; traces; ELF objects). A crash stops with its
# input in DIR/crashes/. Usage: tests/fuzz/run.sh DIR SECONDS
set -eu
F=$1
T=$2
for h in mdl block trace elf; do mkdir -p "$F/corpus/$h" "$F/seeds/$h"; done
mkdir -p "$F/crashes"
cp machines/*.mdl machines/include/*.mdl tests/diag/*.mdl "$F/seeds/mdl/" 2>/dev/null || true
# a block seed: a machine byte, then the block's bytes
i=0
# (the last: serialising forms far apart in time, which once made the scheduler's calendars crawl)
for hex in 4801d84801c3 488b00 c4e2f5b8c1 f20f51c4f20f51cc 6681c03412 20cc224e 4883c1014839d175f6 \
    b903000000c744243036000000be0700000048894424084889eeeeeeeeeeeeeeeeeeeeeeeeeeee542b2031d2; do
    printf '%02x%s' $((i % 4)) "$hex" | xxd -r -p > "$F/seeds/block/k$i"
    i=$((i + 1))
done
if [ -r ../shared/data/bhive/blocks-dev.txt ]; then
    head -200 ../shared/data/bhive/blocks-dev.txt | cut -d, -f1 | while read -r hex; do
        printf '00%s' "$hex" | xxd -r -p > "$F/seeds/block/b$i"
        i=$((i + 1))
    done
fi
# trace seeds: the regression traces, a small hand-made one (an instruction, executions, a load,
# a mapping), and recorded runs of small programs when they are built
cp tests/traces/*.trace "$F/seeds/trace/"
python3 tests/traces/mktrace.py "$F/seeds/trace/small.trace" 0 4d444c5349570001 \
    0000000000000401 401000 90909090 2 2 0000000100080003 7fff0000 4
# the same events as a harness input of its own: an odd byte, then the words (written into a trace
# with its checksums by the harness)
python3 -c "import struct,sys; w=[int(x,16) for x in sys.argv[1:]]; sys.stdout.buffer.write(b'\\x01'+struct.pack('<%dQ'%len(w),*w))" \
    4d444c5349570001 0000000000000401 401000 90909090 2 2 0000000000080003 7fff0000 4 > "$F/seeds/trace/events.bin"
for p in build/programs/exact.x86 build/programs/crash.x86; do
    [ -x "$p" ] && build/mdlsim run --machine skylake --no-sensitivity --quiet --record "$F/seeds/trace/$(basename "$p")" \
        -- "$p" 3 >/dev/null 2>&1 || true
done
# ELF seeds: the test programs (static, dynamic, PIE, AArch64) and a shared library
for p in build/programs/exact.x86 build/programs/exact.pie build/programs/exact.a64dyn build/programs/libkexact-x86.so; do
    [ -r "$p" ] && cp "$p" "$F/seeds/elf/" || true
done
for h in mdl block trace elf; do
    echo "fuzz_$h: $T s"
    "$F/fuzz_$h" -max_total_time="$T" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 \
        -artifact_prefix="$F/crashes/$h-" "$F/corpus/$h" "$F/seeds/$h" 2>"$F/fuzz_$h.log" ||
        { tail -n 40 "$F/fuzz_$h.log"; echo "fuzz_$h: a crash, kept in $F/crashes/" >&2; exit 1; }
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$F/fuzz_$h.log" || true
done
