# Seed 001, Figure 1(a): ymm0 = ymm1*ymm3 + ymm1*ymm2, accumulated through ymm0 (loop
# bookkeeping left out, as in the paper). Two dependent FMAs per iteration.
vmovaps (%rcx), %ymm1
vmovaps (%rax), %ymm2
vfmadd231ps %ymm3, %ymm1, %ymm0
vfmadd231ps %ymm2, %ymm1, %ymm0
