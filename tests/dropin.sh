#!/bin/sh
# A user's description dropped into machines/ under a file name that is not its machine's name
# builds with plain make (a value without a source is a warning for it, not an error) and mdlsim
# then lists and runs it. Done in a copy of the tree and its build, so only the new machine compiles.
set -u
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar --exclude=./build --exclude=./build-san --exclude=./build-fuzz --exclude=./.git -cf - . | tar -C "$tmp" -xf -
cp -a "$B" "$tmp/build"
cat > "$tmp/machines/zen4-approx.mdl" <<'MDL'
// A user's core: no source for any value, a file name that is not the machine's.
machine zen4 extends skylake { description "Zen 4-like, approximated"; }
window { rob 320; }
insn ADD (R64, R64) latency 2 uops 1 ports 1*p0156 tp 0.25;
MDL
fail() { echo "dropin: $*" >&2; exit 1; }
make -C "$tmp" build/mdlsim > "$tmp/make.log" 2>&1 || { cat "$tmp/make.log" >&2; fail "make failed on machines/zen4-approx.mdl"; }
grep -q "zen4-approx.mdl:4:21: warning: 'latency' has no source" "$tmp/make.log" || fail "no missing-source warning"
"$tmp/build/mdlsim" machines | grep -qx zen4 || fail "mdlsim machines does not list zen4"
cycles=$("$tmp/build/mdlsim" block --machine zen4 --hex 4801d84801c3 --no-sensitivity --json |
         sed -n 's/.*"cycles_per_iteration": *\([0-9.]*\).*/\1/p')
[ "$cycles" = 4 ] || fail "two adds of latency 2 on zen4: $cycles cycles per iteration, not 4"
rm "$tmp/machines/zen4-approx.mdl"
make -C "$tmp" build/mdlsim > "$tmp/make.log" 2>&1 || fail "make failed once the description was removed"
"$tmp/build/mdlsim" machines | grep -qx zen4 && fail "zen4 is still compiled in once its description was removed"
echo "dropin: a description in machines/ under another file name builds with make"
