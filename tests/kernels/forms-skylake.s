# A move of a register onto itself (timed by a replace rule as the 16-bit move) and a compare
# fused with its jump (timed as the one entry the fusion rule gives every condition): the form
# column names what was written, MOV_89 (R32, R32) and JNZ, and a footnote the entries used.
.intel_syntax noprefix
loop:
mov eax, eax
add rax, 1
cmp rax, rbx
jne loop
