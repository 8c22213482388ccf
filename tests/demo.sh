#!/bin/sh
# The main job on the bundled machines: compile each description into generated/, show
# what it holds, then analyse a kernel with mdlsim.
set -eu
B=${1:-build}
for m in machines/*.mdl; do
    name=$(basename "$m" .mdl)
    printf '\n$ mdlc -I machines -o generated %s\n' "$m"
    "$B/mdlc" -I machines -o generated "$m"
    "$B/mdlc" -I machines --summary "$m"
    echo "  -> generated/$name.c ($(wc -c < "generated/$name.c") bytes), generated/$name.h"
done

# The main job: analyse a loop body on a compiled machine.
printf '\n$ mdlsim block --machine skylake tests/kernels/fig1-fma-chain.s\n'
"$B/mdlsim" block --machine skylake tests/kernels/fig1-fma-chain.s
printf '$ mdlsim block --machine cortex-a72 --hex 20cc224e   # fmla v0.4s, v1.4s, v2.4s\n'
"$B/mdlsim" block --machine cortex-a72 --hex 20cc224e
# A loop that fills the reorder buffer, on the three Intel cores side by side.
printf '$ mdlsim block --machine skylake,icelake,alderlake tests/kernels/rob-bound.s\n'
"$B/mdlsim" block --machine skylake,icelake,alderlake tests/kernels/rob-bound.s

# And a whole program under QEMU: every call of kernel_gemm, callees included.
printf '\n$ mdlsim run --machine skylake --roi kernel_gemm --html %s/demo-gemm.html -- build/programs/gemm.x86 48\n' "$B"
"$B/mdlsim" run --machine skylake --roi kernel_gemm --html "$B/demo-gemm.html" -- "$B/programs/gemm.x86" 48
printf '\nThe same report as a page: %s/demo-gemm.html (open it in a browser)\n' "$B"
