/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * efiresume x86_64 restore routine. Copied to a page the image does not use and
 * entered, after ExitBootServices, as  void tramp(struct params *p)  (SysV: %rdi).
 * Position independent: it only uses %rip-relative addresses and the params block.
 *
 * It switches to its own stack, GDT (CS = 0x10 = __KERNEL_CS, data 0x18 = __KERNEL_DS)
 * and page tables (identity map of RAM + jump_address -> jump_address_phys), sets
 * EFER.NXE on CPUs with NX, clears CR4.PCIDE, copies (or zero-fills) the bounced pages, then enters
 * the image kernel's restore_registers with %r9 = the image's cr3, interrupts off.
 */
#define P_STACK   0
#define P_GDTR    8     /* u16 limit at 8, u64 base at 10 */
#define P_CR3     24
#define P_LIST    32
#define P_COUNT   40
#define P_IMGCR3  48
#define P_JUMP    56
#define P_NXE     96

	.text
	.code64
	.globl er_tramp64_start
	.globl er_tramp64_end
er_tramp64_start:
	cli
	cld
	movq	%rdi, %rbx
	movq	P_STACK(%rbx), %rsp
	lgdt	P_GDTR(%rbx)
	leaq	1f(%rip), %rax
	pushq	$0x10
	pushq	%rax
	lretq
1:
	movl	$0x18, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs

	/* EFER.NXE: the image's page tables carry NX bits. Only on a CPU with NX (the
	 * loader refused images that need NX on others): there wrmsr would fault */
	cmpq	$0, P_NXE(%rbx)
	je	6f
	movl	$0xc0000080, %ecx
	rdmsr
	orl	$0x800, %eax
	wrmsr
6:

	/* CR4: PCIDE off (CR3 below has PCID 0), PGE off to drop global TLB entries */
	movq	%cr4, %rax
	andq	$~((1 << 17) | (1 << 7)), %rax
	movq	%rax, %cr4

	movq	P_CR3(%rbx), %rax
	movq	%rax, %cr3

	/* copy or zero the bounced pages */
	movq	P_LIST(%rbx), %rdx
	movq	P_COUNT(%rbx), %r8
2:
	testq	%r8, %r8
	jz	4f
	movq	0(%rdx), %rdi
	movq	8(%rdx), %rsi
	movl	$512, %ecx
	testq	%rsi, %rsi
	jz	3f
	rep movsq
	jmp	5f
3:
	xorl	%eax, %eax
	rep stosq
5:
	addq	$16, %rdx
	decq	%r8
	jmp	2b
4:
	movq	P_IMGCR3(%rbx), %r9
	movq	P_JUMP(%rbx), %rax
	xorl	%ecx, %ecx
	jmp	*%rax
er_tramp64_end:
	.section .note.GNU-stack,"",@progbits
