// Cortex-A72 forms: a vector add timed by the bare-mnemonic entry SQADD, an address pair
// (adrp + add) fused as ADRP (X, L), and a conditional branch with its own entry (B.NE).
.arch armv8-a
loop:
sqadd v0.4s, v1.4s, v2.4s
adrp x2, loop
add x2, x2, #8
subs x1, x1, #1
b.ne loop
