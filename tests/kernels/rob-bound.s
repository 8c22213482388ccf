# A chain of 40 multiplies that starts afresh each iteration, then 150 independent adds: the
# iterations overlap as far as the reorder buffer holds them (Skylake's 224 entries: 78.25 cycles
# an iteration; 512: 50.25), so the result depends on the ROB's size.
.intel_syntax noprefix
mov rax, rbx
.rept 40
imul rax, rax
.endr
.rept 37
add rcx, 1
add rdx, 1
add rsi, 1
add rdi, 1
.endr
add rcx, 1
add rdx, 1
