/* A function whose executed instruction count is known exactly, in assembly: 3 instructions before
 * the loop, 4 per iteration and the return, 4 + 4*n for n > 0. Position independent. */
#if defined(__x86_64__)
#define EXACT_KERNEL(name)                                                                          \
    __asm__(".text\n.globl " #name "\n.type " #name ", @function\n" #name ":\n"                     \
            "    xor %eax, %eax\n"                                                                  \
            "    test %rdi, %rdi\n"                                                                 \
            "    jz 2f\n"                                                                           \
            "1:  add $3, %rax\n"                                                                    \
            "    sub $1, %rdi\n"                                                                    \
            "    nop\n"                                                                             \
            "    jnz 1b\n"                                                                          \
            "2:  ret\n"                                                                             \
            ".size " #name ", .-" #name "\n")
#elif defined(__aarch64__)
#define EXACT_KERNEL(name)                                                                          \
    __asm__(".text\n.globl " #name "\n.type " #name ", %function\n" #name ":\n"                     \
            "    mov x1, x0\n"                                                                      \
            "    mov x0, #0\n"                                                                      \
            "    cbz x1, 2f\n"                                                                      \
            "1:  add x0, x0, #3\n"                                                                  \
            "    nop\n"                                                                             \
            "    subs x1, x1, #1\n"                                                                 \
            "    b.ne 1b\n"                                                                         \
            "2:  ret\n"                                                                             \
            ".size " #name ", .-" #name "\n")
#else
#error "x86-64 or AArch64 only"
#endif
