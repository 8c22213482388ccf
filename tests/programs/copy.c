/* Copies and fills through the string instructions: memcpy and memset of SIZE bytes (glibc takes
 * rep movsb / rep stosb beyond about 2 KiB on x86-64, ldp/stp loops and dc zva on AArch64), and
 * rep movsb / rep stosb (of zeros) of SIZE bytes written out, REPS times each: kernel_movsb runs
 * 3 + 8 * REPS + 1 instructions and kernel_stosb 4 + 7 * REPS + 1 when a rep execution counts as
 * one. On AArch64 those two call memcpy and memset (a zero fill: dc zva). With WORK, only REPS
 * copies by rep movsb, each after WORK steps of a checksum (kernel_mixed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kernel_movsb(char *d, const char *s, long size, int reps);
void kernel_stosb(char *d, long size, int reps);

#if defined(__x86_64__)
__asm__(".text\n.globl kernel_movsb\n.type kernel_movsb, @function\nkernel_movsb:\n"
        "    mov %ecx, %r8d\n"
        "    test %r8d, %r8d\n"
        "    jz 2f\n"
        "1:  mov %rdi, %r9\n"
        "    mov %rsi, %r10\n"
        "    mov %rdx, %rcx\n"
        "    rep movsb\n"
        "    mov %r9, %rdi\n"
        "    mov %r10, %rsi\n"
        "    sub $1, %r8d\n"
        "    jnz 1b\n"
        "2:  ret\n"
        ".size kernel_movsb, .-kernel_movsb\n"
        ".globl kernel_stosb\n.type kernel_stosb, @function\nkernel_stosb:\n"
        "    mov %edx, %r8d\n"
        "    mov %rsi, %rdx\n"
        "    test %r8d, %r8d\n"
        "    jz 2f\n"
        "1:  mov %rdi, %r9\n"
        "    mov %rdx, %rcx\n"
        "    xor %eax, %eax\n"
        "    rep stosb\n"
        "    mov %r9, %rdi\n"
        "    sub $1, %r8d\n"
        "    jnz 1b\n"
        "2:  ret\n"
        ".size kernel_stosb, .-kernel_stosb\n");
#elif defined(__aarch64__)
__attribute__((noinline)) void kernel_movsb(char *d, const char *s, long size, int reps)
{
    for (int i = 0; i < reps; i++) { memcpy(d, s, size); __asm__ volatile("" ::: "memory"); }
}
__attribute__((noinline)) void kernel_stosb(char *d, long size, int reps)
{
    for (int i = 0; i < reps; i++) { memset(d, 0, size); __asm__ volatile("" ::: "memory"); }
}
#else
#error "x86-64 or AArch64 only"
#endif

__attribute__((noinline)) void kernel_copy(char *d, const char *s, long size, int reps)
{
    for (int i = 0; i < reps; i++) {
        memcpy(d, s, size);
        __asm__ volatile("" ::: "memory");
    }
}

__attribute__((noinline)) void kernel_fill(char *d, long size, int reps)
{
    for (int i = 0; i < reps; i++) {
        memset(d, i, size);
        __asm__ volatile("" ::: "memory");
    }
}

/* REPS copies of SIZE bytes by kernel_movsb, each after WORK steps of a checksum: long copies,
 * rare among ordinary instructions, as a program's buffers are. */
__attribute__((noinline)) long kernel_mixed(char *d, const char *s, long size, int reps, long work)
{
    long sum = 0;
    for (int i = 0; i < reps; i++) {
        for (long j = 0; j < work; j++)
            sum += (s[j & 4095] ^ j) * 3;
        kernel_movsb(d, s, size, 1);
    }
    return sum;
}

int main(int argc, char **argv)
{
    long size = argc > 1 ? atol(argv[1]) : 16384;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    long work = argc > 3 ? atol(argv[3]) : 0;
    if (size < 0 || size > (1l << 30) || reps < 0 || work < 0) {
        fprintf(stderr, "usage: copy [SIZE [REPS [WORK]]]\n");
        return 2;
    }
    char *a = aligned_alloc(64, (size_t)size + 64), *b = aligned_alloc(64, (size_t)size + 64);
    if (!a || !b)
        return 1;
    memset(a, 1, (size_t)size + 64);
    memset(b, 2, (size_t)size + 64);
    if (work) {
        printf("%ld\n", kernel_mixed(b, a, size, reps, work));
        return 0;
    }
    kernel_copy(b, a, size, reps);
    kernel_fill(a, size, reps);
    kernel_movsb(b, a, size, reps);
    kernel_stosb(a, size, reps);
    printf("%d\n", a[size / 2] + b[size / 3]);
    return 0;
}
