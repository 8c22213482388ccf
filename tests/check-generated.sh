#!/bin/sh
# Fails when generated/ or machines/uops/*.mdl differ from what mdlc and uops2mdl would
# write now from machines/: both are sources of record and must be regenerated, not edited.
set -u
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
mkdir -p "$tmp/generated" "$tmp/uops"
for m in machines/*.mdl; do
    [ -e "$m" ] || continue
    "$B/mdlc" -I machines -o "$tmp/generated" --basename "$(basename "$m" .mdl)" "$m" || { echo "check-generated: mdlc failed on $m" >&2; status=1; }
done
for f in generated/*.c generated/*.h "$tmp"/generated/*.c "$tmp"/generated/*.h; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    if ! cmp -s "generated/$name" "$tmp/generated/$name"; then
        echo "check-generated: generated/$name is not what mdlc writes from machines/; run make and commit it" >&2
        status=1
    fi
done
for csv in machines/uops/*.csv; do
    [ -e "$csv" ] || continue
    mdl=${csv%.csv}.mdl
    "$B/uops2mdl" "$csv" "$tmp/uops/$(basename "$mdl")" || status=1
    cmp -s "$mdl" "$tmp/uops/$(basename "$mdl")" ||
        { echo "check-generated: $mdl is not what uops2mdl writes from $csv; run make import" >&2; status=1; }
done
[ $status -eq 0 ] && echo "check-generated: generated/ and machines/uops/ are up to date"
exit $status
