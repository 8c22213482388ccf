# A chain through memory (a store, the load that forwards from it, an add: the store-to-load
# bypass, estimated 4..5 cycles on Skylake, plus one) beside ten independent shifts (p0, p6) that
# keep the ALU ports busy 5.5 cycles an iteration: at 5 the chain binds (6 cycles), at 4 the ports.
.intel_syntax noprefix
loop:
    mov qword ptr [rdi], rax
    mov rax, qword ptr [rdi]
    add rax, 1
    shl r9, 1
    shl r10, 1
    shl r11, 1
    shl r12, 1
    shl r13, 1
    shl r14, 1
    shl r15, 1
    shl r8, 1
    shl r9, 1
    shl r10, 1
    dec rcx
    jnz loop
