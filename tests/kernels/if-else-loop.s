# An if/else in a loop as gcc -O2 lays it out (if-conversion off): one branch placed before
# the head jumps back to it, the other reaches the latch. Two back edges, one loop.
	.text
	.p2align 4
	.globl	f
	.type	f, @function
f:
	testq	%rsi, %rsi
	jle	.L6
	leaq	(%rdi,%rsi,8), %rcx
	xorl	%edx, %edx
	jmp	.L5
	.p2align 4,,10
	.p2align 3
.L9:
	leaq	(%rax,%rax,2), %rax
	addq	$8, %rdi
	addq	%rax, %rdx
	cmpq	%rdi, %rcx
	je	.L1
.L5:
	movq	(%rdi), %rax
	testb	$1, %al
	jne	.L9
	sarq	%rax
	addq	$8, %rdi
	subq	%rax, %rdx
	cmpq	%rdi, %rcx
	jne	.L5
.L1:
	movq	%rdx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L6:
	xorl	%edx, %edx
	movq	%rdx, %rax
	ret
	.size	f, .-f
	.section	.note.GNU-stack,"",@progbits
