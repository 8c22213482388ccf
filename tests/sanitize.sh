#!/bin/sh
# make sanitize: the test suite against the ASan+UBSan build in DIR. The tests name ../build/...
# from tests/, so they run in a tree of links whose tests/ holds the tests' files and whose build
# is DIR. Usage: tests/sanitize.sh DIR; with SAN_FILTER=PATTERN in the environment, only the tests
# it names (SAN_FILTER='compare/*' make sanitize)
set -eu
S=$1
top=$(pwd)
root=$S/root
rm -rf "$root"
mkdir -p "$root/tests"
for f in tests/*; do ln -s "$top/$f" "$root/tests/"; done
ln -s "$top/$S" "$root/build"
for d in frontends machines mdl mdlc runtime generated spec.md; do ln -s "$top/$d" "$root/$d"; done
cd "$root/tests"
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS=suppressions=$top/tests/lsan.supp ../build/tests/run --jobs 2 ${SAN_FILTER:+--filter "$SAN_FILTER"}
