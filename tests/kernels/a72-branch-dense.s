# Three not-taken branches and a nop: each branch ends its decode cycle, so the decoders deliver
# fewer instructions a cycle than the core can issue (front-end bound on the Cortex-A72).
cbz x9, 1f
1: cbz x10, 2f
2: cbz x11, 3f
3: nop
