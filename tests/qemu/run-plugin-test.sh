#!/bin/bash
# Tests the QEMU plugin (frontends/qemu/plugin.c) end to end: tiny static guests whose executed
# instructions are known exactly run under qemu-x86_64 / qemu-aarch64 with the plugin, and
# wiredump's text of the stream is checked. Usage: tests/qemu/run-plugin-test.sh [--bench]
# (--bench also times a 100-million-instruction loop without and with the plugin).
# Skips (exit 0) when qemu-x86_64 is missing; the AArch64 part also needs qemu-aarch64 and
# aarch64-linux-gnu-gcc. Builds build/libmdlplugin.so and build/wiredump through make.
set -u
cd "$(dirname "$0")/../.."

CC=${CC:-cc}
PLUGIN=build/libmdlplugin.so
WIREDUMP=build/wiredump
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAILS=0

pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
# check NAME EXPECTED ACTUAL
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected '$2', got '$3'"; fi; }

if ! command -v qemu-x86_64 >/dev/null; then
    echo "run-plugin-test: skipped (qemu-x86_64 not installed: apt-get install qemu-user)"
    exit 0
fi

mkdir -p build
make -s $PLUGIN $WIREDUMP || exit 1

# addr BINARY SYMBOL: the symbol's address as 0x... (the form wiredump prints)
addr() { printf '0x%x' "$((16#$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }')))"; }
# id_at DUMP PC: the id of the (last) INSN record at PC
id_at() { awk -v pc="$2" '$1 == "insn" && $3 == pc { id = $2 } END { print id }' "$1"; }
# insn_bytes DUMP PC: the bytes of the INSN record at PC
insn_bytes() { awk -v pc="$2" '$1 == "insn" && $3 == pc { b = $5 } END { print b }' "$1"; }
# execs DUMP ID: how often ID was executed
execs() { awk -v id="$2" '$1 == "exec" && $2 == id { n++ } END { print n + 0 }' "$1"; }
# mems DUMP ID: the distinct MEM records of ID as "count kind size addr"
mems() { awk -v id="$2" '$1 == "mem" && $2 == id { print $3, $4, $5 }' "$1" | sort | uniq -c | awk '{ $1 = $1; print }'; }
count() { awk -v k="$2" '$1 == k { n++ } END { print n + 0 }' "$1"; }

# run_guest NAME QEMU... : runs the guest with the plugin, stream to $T/NAME.wire, text to $T/NAME.txt
run_guest() {
    local name=$1
    shift
    "$@" 3>"$T/$name.wire" 2>"$T/$name.err"
    echo $? >"$T/$name.rc"
    if ! $WIREDUMP <"$T/$name.wire" >"$T/$name.txt" 2>"$T/$name.dumperr"; then
        fail "$name: wiredump rejects the stream: $(cat "$T/$name.dumperr")"
    fi
}

# ---- x86-64 ------------------------------------------------------------------------------------
ITERS=1000
gcc -static -nostdlib -DITERS=$ITERS -o "$T/x86" tests/qemu/loop-x86_64.S || exit 1
run_guest x86 qemu-x86_64 -cpu Skylake-Client -plugin $PLUGIN,fd=3 "$T/x86"
D=$T/x86.txt
check "x86: qemu exit status" 42 "$(cat "$T/x86.rc")"
check "x86: magic" "magic 0x4d444c5349570002" "$(head -1 "$D")"
LOOP=$(id_at "$D" "$(addr "$T/x86" loop_top)")
check "x86: INSN bytes of vmovups (%rsi),%ymm0" c5fc1006 "$(insn_bytes "$D" "$(addr "$T/x86" loop_top)")"
check "x86: INSN bytes of the page-crossing movabs" 48bb8877665544332211 \
    "$(insn_bytes "$D" "$(addr "$T/x86" cross)")"
check "x86: one INSN record per executed instruction" 18 "$(count "$D" insn)"
check "x86: EXEC records of the loop's first instruction" $ITERS "$(execs "$D" "$LOOP")"
check "x86: EXEC records in all (4 + 5 * ITERS + 9)" $((4 + 5 * ITERS + 9)) "$(count "$D" exec)"
BUF=$(addr "$T/x86" buf)
check "x86: 32-byte vmovups load = one MEM record each" "$ITERS load 32 $BUF" "$(mems "$D" "$LOOP")"
check "x86: 16-byte SSE load" "1 load 16 $(printf 0x%x $((BUF + 16)))" \
    "$(mems "$D" "$(id_at "$D" "$(addr "$T/x86" sse_load)")")"
check "x86: 32-byte vmovups store" "1 store 32 $(printf 0x%x $((BUF + 64)))" \
    "$(mems "$D" "$(id_at "$D" "$(addr "$T/x86" ymm_store)")")"
check "x86: MEM records in all" $((ITERS + 2)) "$(count "$D" mem)"
check "x86: last record" "exit 42" "$(tail -1 "$D")"
# one RUN per translation block run: the entry block up to the first jnz, ITERS - 1 more of the
# loop, the block after it, and the exit's three: QEMU moves the page-crossing movabs to a block of
# its own, which ends on the second page
check "x86: one RUN record per block run (1 + ITERS - 1 + 1 + 3)" "run $((ITERS + 4))" \
    "$($WIREDUMP -c <"$T/x86.wire" | grep '^run')"
check "x86: the block before the page-crossing movabs holds it not (cut by QEMU)" "block 3 of 2:" \
    "$(grep '^block 3 ' "$D" | cut -d' ' -f1-4)"
check "x86: no block left early" 0 "$(count "$D" cut)"

# limit=N: exactly N executions, and the exit code still ends the stream
run_guest limit qemu-x86_64 -cpu Skylake-Client -plugin $PLUGIN,fd=3,limit=100 "$T/x86"
check "limit=100: qemu exit status" 42 "$(cat "$T/limit.rc")"
check "limit=100: EXEC records" 100 "$(count "$T/limit.txt" exec)"
# 9 in the entry block, 5 in each of 18 runs of the loop: the 19th is cut after its first
check "limit=100: the last block is cut after one instruction" "cut 1" "$(grep '^cut' "$T/limit.txt" | xargs)"
check "limit=100: last record" "exit 42" "$(tail -1 "$T/limit.txt")"

# a reader that stops early (a stream of 11 MB, far beyond the pipe's 1 MiB): the guest runs on
# unharmed, not killed by the SIGPIPE of the plugin's write
gcc -static -nostdlib -DITERS=200000 -o "$T/x86mid" tests/qemu/loop-x86_64.S || exit 1
qemu-x86_64 -cpu Skylake-Client -plugin $PLUGIN,fd=3 "$T/x86mid" 3>&1 2>/dev/null | head -c 64 >/dev/null
check "closed pipe: qemu exit status" 42 "${PIPESTATUS[0]}"

# a guest killed by a signal: QEMU 7.2 calls no plugin callback, so the stream is the magic and
# no EXIT (mdlsim's sign that the guest died)
printf '    .globl _start\n_start:\n    xor %%eax, %%eax\n    mov (%%rax), %%rbx\n' >"$T/segv.S"
gcc -static -nostdlib -o "$T/segv" "$T/segv.S" || exit 1
(ulimit -c 0; qemu-x86_64 -plugin $PLUGIN,fd=3 "$T/segv" 3>"$T/segv.wire") 2>/dev/null
check "killed by SIGSEGV: qemu exit status" 139 "$?"
check "killed by SIGSEGV: magic, no EXIT" "exec 0 noexit" "$($WIREDUMP -c <"$T/segv.wire" | grep -E '^(exec|noexit)' | xargs)"

# options
# refused NAME PATTERN CMD...: CMD fails and says PATTERN on stderr
refused() {
    local name=$1 pattern=$2
    shift 2
    "$@" 2>"$T/opt.err"
    local rc=$?
    if [ $rc -ne 0 ] && grep -q -- "$pattern" "$T/opt.err"; then
        pass "$name refused (qemu exit status $rc)"
    else
        fail "$name: qemu exit status $rc, stderr: $(cat "$T/opt.err")"
    fi
}
refused "unknown option" "mdlsim plugin: unknown option 'bogus=1'" \
    qemu-x86_64 -plugin $PLUGIN,fd=3,bogus=1 "$T/x86" 3>/dev/null
refused "missing fd=" "fd=N" qemu-x86_64 -plugin $PLUGIN "$T/x86"
refused "shm= without free=" "shm=N and free=N go together" \
    qemu-x86_64 -plugin $PLUGIN,fd=3,shm=4 "$T/x86" 3>/dev/null 4>/dev/null
# the shared area must hold whole chunks (mdlsim's own transport is checked by every mdlsim run test)
printf 'short' >"$T/short"
refused "shared area of a partial chunk" "not an area of whole" \
    qemu-x86_64 -plugin $PLUGIN,fd=3,shm=4,free=5 "$T/x86" 3>/dev/null 4<"$T/short" 5</dev/null
refused "closed fd" "not an open file descriptor" qemu-x86_64 -plugin $PLUGIN,fd=9 "$T/x86"

# threads and fork (glibc static guest)
if gcc -O1 -static -pthread -o "$T/threads" tests/qemu/threads.c 2>"$T/gcc.err"; then
    run_guest fork qemu-x86_64 -plugin $PLUGIN,fd=3 "$T/threads" fork
    check "fork: guest status (fd 3 free, child exit 3 seen)" 5 "$(cat "$T/fork.rc")"
    check "fork: one THREAD record" 1 "$(count "$T/fork.txt" thread)"
    check "fork: last record (the child wrote nothing)" "exit 5" "$(tail -1 "$T/fork.txt")"
    run_guest thexit timeout 60 qemu-x86_64 -plugin $PLUGIN,fd=3 "$T/threads" exit
    check "exit from a second thread: guest status" 9 "$(cat "$T/thexit.rc")"
    check "exit from a second thread: last record" "exit 9" "$(tail -1 "$T/thexit.txt")"
else
    fail "threads.c does not build: $(cat "$T/gcc.err")"
fi

# ---- AArch64 -----------------------------------------------------------------------------------
if command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null; then
    aarch64-linux-gnu-gcc -static -nostdlib -DITERS=$ITERS -o "$T/a64" tests/qemu/loop-aarch64.S || exit 1
    run_guest a64 qemu-aarch64 -cpu cortex-a72 -plugin $PLUGIN,fd=3 "$T/a64"
    D=$T/a64.txt
    check "a64: qemu exit status" 7 "$(cat "$T/a64.rc")"
    check "a64: magic" "magic 0x4d444c5349570002" "$(head -1 "$D")"
    LOOP=$(id_at "$D" "$(addr "$T/a64" loop_top)")
    check "a64: INSN bytes of ld1 {v0.16b, v1.16b}, [x2]" 40a0404c "$(insn_bytes "$D" "$(addr "$T/a64" loop_top)")"
    check "a64: EXEC records of the loop's first instruction" $ITERS "$(execs "$D" "$LOOP")"
    check "a64: EXEC records in all (4 + 5 * ITERS + 5)" $((4 + 5 * ITERS + 5)) "$(count "$D" exec)"
    BUF=$(addr "$T/a64" buf)
    check "a64: 32-byte ld1 = one MEM record each" "$ITERS load 32 $BUF" "$(mems "$D" "$LOOP")"
    check "a64: 16-byte ldr q" "1 load 16 $(printf 0x%x $((BUF + 32)))" \
        "$(mems "$D" "$(id_at "$D" "$(addr "$T/a64" q_load)")")"
    check "a64: stp of two x registers" "1 store 16 $(printf 0x%x $((BUF + 64)))" \
        "$(mems "$D" "$(id_at "$D" "$(addr "$T/a64" pair_store)")")"
    check "a64: last record" "exit 7" "$(tail -1 "$D")"
else
    echo "skip AArch64 (needs qemu-aarch64 and aarch64-linux-gnu-gcc)"
fi

# ---- speed -------------------------------------------------------------------------------------
if [ "${1:-}" = --bench ]; then
    BIG=20000000
    gcc -static -nostdlib -DITERS=$BIG -o "$T/x86big" tests/qemu/loop-x86_64.S
    N=$((4 + 5 * BIG + 9))
    # rate LABEL COMMAND: instructions per second of one run
    rate() {
        local label=$1 t0 t1
        shift
        t0=$(date +%s.%N)
        bash -c "$*" >/dev/null 2>&1
        t1=$(date +%s.%N)
        awk -v n=$N -v a="$t0" -v b="$t1" -v l="$label" \
            'BEGIN { printf "bench %-34s %6.2f s  %6.1f M instructions/s\n", l, b - a, n / (b - a) / 1e6 }'
    }
    Q="qemu-x86_64 -cpu Skylake-Client"
    rate "plain qemu" "$Q $T/x86big"
    rate "plugin, stream to /dev/null" "$Q -plugin $PLUGIN,fd=3 $T/x86big 3>/dev/null"
    rate "plugin, stream piped to wiredump -c" "$Q -plugin $PLUGIN,fd=3 $T/x86big 3>&1 | $WIREDUMP -c"
fi

if [ $FAILS -ne 0 ]; then
    echo "run-plugin-test: $FAILS check(s) failed"
    exit 1
fi
echo "run-plugin-test: all checks passed"
