# Eight independent register additions, more than the issue width: the front end or the ALU
# ports bound it, not latency.
add %rax, %rax
add %rbx, %rbx
add %rcx, %rcx
add %rdx, %rdx
add %rsi, %rsi
add %rdi, %rdi
add %r8, %r8
add %r9, %r9
