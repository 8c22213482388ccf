# What gcc -O2 -S makes of a file whose only function is main: main in .text.startup, not .text.
	.file	"startup.c"
	.text
	.section	.text.startup,"ax",@progbits
	.p2align 4
	.globl	main
	.type	main, @function
main:
	xorl	%eax, %eax
	movl	$1000, %ecx
.L2:
	addq	%rcx, %rax
	subl	$1, %ecx
	jne	.L2
	ret
	.size	main, .-main
	.section	.note.GNU-stack,"",@progbits
