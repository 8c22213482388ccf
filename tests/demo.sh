#!/bin/sh
# The main job on the bundled machines: compile each description into generated/ and show
# what it holds.
set -eu
B=${1:-build}
for m in machines/*.mdl; do
    name=$(basename "$m" .mdl)
    printf '\n$ mdlc -I machines -o generated %s\n' "$m"
    "$B/mdlc" -I machines -o generated "$m"
    "$B/mdlc" -I machines --summary "$m"
    echo "  -> generated/$name.c ($(wc -c < "generated/$name.c") bytes), generated/$name.h"
done
