/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seeds writer, x86_64: swsusp_arch_suspend and swsusp_fw_resume of a kernel
 * with kernel-patch/ applied, for an EFI program (SysV ABI inside the program).
 *
 * seeds_arch_suspend: saves the registers, flags, CR0 and CR4 in seeds_ctx (in the
 * program's .data, hence in the image) and calls seeds_save() (the copy); returns its
 * value. seeds_ctx.cr3 (fw_cr3), .gdtr and .nosave_* are filled by the C code first.
 *
 * swsusp_fw_resume (fw_entry = PAGE_OFFSET + its physical address): entered by the
 * loader with paging on through the loader's tables (RAM identity + this page at
 * fw_entry), interrupts off, CS 0x10 / DS 0x18, %r9 = fw_cr3 (not used: the root is
 * taken from seeds_ctx). Position independent: %rip-relative addressing only.
 *   - jumps to the identity address of its continuation
 *   - CR3 = the writer's tables (identity of low RAM + the PAGE_OFFSET direct map),
 *     CR4 and CR0 as saved
 *   - its own GDT (in the image), CS 0x10 by a far return, data segments 0x18
 *   - zeroes .data.nosave (in_suspend lives there, as in the kernel)
 *   - the saved registers and stack, popfq (IF stays 0), returns SEEDS_RESUMED
 *     from seeds_arch_suspend
 */
#include "seeds.h"

#define W 8

	.text
	.code64

	.globl	seeds_arch_suspend
	.hidden	seeds_arch_suspend
	.type	seeds_arch_suspend, @function
seeds_arch_suspend:
	leaq	seeds_ctx(%rip), %rax
	movq	%rsp, SEEDS_CTX_SP(W)(%rax)
	movq	%rbx, SEEDS_CTX_BX(W)(%rax)
	movq	%rbp, SEEDS_CTX_BP(W)(%rax)
	movq	%rsi, SEEDS_CTX_SI(W)(%rax)
	movq	%rdi, SEEDS_CTX_DI(W)(%rax)
	movq	%r12, SEEDS_CTX_R12(W)(%rax)
	movq	%r13, SEEDS_CTX_R13(W)(%rax)
	movq	%r14, SEEDS_CTX_R14(W)(%rax)
	movq	%r15, SEEDS_CTX_R15(W)(%rax)
	pushfq
	popq	SEEDS_CTX_FLAGS(W)(%rax)
	movq	%cr0, %rdx
	movq	%rdx, SEEDS_CTX_CR0(W)(%rax)
	movq	%cr4, %rdx
	movq	%rdx, SEEDS_CTX_CR4(W)(%rax)
	/* the snapshot: rsp is 8 mod 16 here, realign for the call */
	subq	$8, %rsp
	call	seeds_save
	addq	$8, %rsp
	ret
	.size	seeds_arch_suspend, . - seeds_arch_suspend

	.balign	64
	.globl	swsusp_fw_resume
	.hidden	swsusp_fw_resume
	.type	swsusp_fw_resume, @function
swsusp_fw_resume:
	cli
	cld
	/* from PAGE_OFFSET + phys to phys: the loader's tables map RAM identically */
	leaq	1f(%rip), %rax
	movabsq	$SEEDS_PAGE_OFFSET_X64, %rdx
	subq	%rdx, %rax
	jmp	*%rax
1:
	leaq	seeds_ctx(%rip), %rsi
	movq	SEEDS_CTX_CR3(W)(%rsi), %rax
	movq	%rax, %cr3
	movq	SEEDS_CTX_CR4(W)(%rsi), %rax
	movq	%rax, %cr4
	movq	SEEDS_CTX_CR0(W)(%rsi), %rax
	movq	%rax, %cr0

	/* the saved stack (mapped by the writer's tables; the loader's need not be) */
	movq	SEEDS_CTX_SP(W)(%rsi), %rsp
	lgdt	SEEDS_CTX_GDTR(W)(%rsi)
	leaq	2f(%rip), %rax
	pushq	$SEEDS_CS64
	pushq	%rax
	lretq
2:
	movl	$SEEDS_DS64, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs

	/* .data.nosave is not in the image: zero it, as swsusp_fw_restore() does */
	movq	SEEDS_CTX_NOSB(W)(%rsi), %rdi
	movq	SEEDS_CTX_NOSE(W)(%rsi), %rcx
	subq	%rdi, %rcx
	shrq	$3, %rcx
	xorl	%eax, %eax
	rep stosq

	movq	SEEDS_CTX_BX(W)(%rsi), %rbx
	movq	SEEDS_CTX_BP(W)(%rsi), %rbp
	movq	SEEDS_CTX_DI(W)(%rsi), %rdi
	movq	SEEDS_CTX_R12(W)(%rsi), %r12
	movq	SEEDS_CTX_R13(W)(%rsi), %r13
	movq	SEEDS_CTX_R14(W)(%rsi), %r14
	movq	SEEDS_CTX_R15(W)(%rsi), %r15
	pushq	SEEDS_CTX_FLAGS(W)(%rsi)
	movq	SEEDS_CTX_SI(W)(%rsi), %rsi
	popfq
	movl	$SEEDS_RESUMED, %eax
	ret
	.size	swsusp_fw_resume, . - swsusp_fw_resume

	.section .note.GNU-stack,"",@progbits
