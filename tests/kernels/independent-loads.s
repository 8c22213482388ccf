# Loads to independent registers from independent addresses: only the load ports limit it.
mov (%rdi), %rax
mov 8(%rdi), %rbx
mov 16(%rdi), %rcx
mov 24(%rdi), %rdx
mov 32(%rdi), %r8
mov 40(%rdi), %r9
