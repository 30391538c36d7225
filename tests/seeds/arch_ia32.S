/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seeds writer, i386: swsusp_arch_suspend and swsusp_fw_resume of a kernel with
 * kernel-patch/ applied, for an EFI program (cdecl).
 *
 * seeds_arch_suspend: saves esp, ebx, ebp, esi, edi, eflags, CR0 and CR4 in
 * seeds_ctx (in the program's .data, hence in the image) and calls seeds_save() (the
 * copy); returns its value. seeds_ctx.cr3 (fw_cr3, a 2-level page directory),
 * .gdtr and .nosave_* are filled by the C code first.
 *
 * swsusp_fw_resume (fw_entry = 0xC0000000 + its physical address): entered by the
 * loader with paging on through the loader's tables (identity of the low 4 GiB, this
 * page at fw_entry), interrupts off, CS 0x60 / DS 0x68, %ebp = fw_cr3 (not used: the
 * root is taken from seeds_ctx). Position independent: call/pop and GOTOFF only.
 *   - jumps to the identity address of its continuation
 *   - paging off, CR4 = saved | PSE without PAE/PGE, CR3 = the writer's page
 *     directory (4 MiB pages: identity of 0-3 GiB, 0xC0000000 -> 0), paging on
 *   - its own GDT (in the image), CS 0x60 by a far return, data segments 0x68
 *   - zeroes .data.nosave (in_suspend lives there, as in the kernel)
 *   - the saved registers and stack, popfl (IF stays 0), returns SEEDS_RESUMED
 *     from seeds_arch_suspend
 */
#include "seeds.h"

#define W 4
#define CR0_PE    0x00000001
#define CR0_PG    0x80000000
#define CR4_PSE   0x00000010
#define CR4_PAE   0x00000020
#define CR4_PGE   0x00000080
#define CR4_PCIDE 0x00020000

	.text
	.code32

	.globl	seeds_arch_suspend
	.hidden	seeds_arch_suspend
	.type	seeds_arch_suspend, @function
seeds_arch_suspend:
	call	1f
1:	popl	%ecx
	addl	$_GLOBAL_OFFSET_TABLE_+[.-1b], %ecx
	leal	seeds_ctx@GOTOFF(%ecx), %eax
	movl	%esp, SEEDS_CTX_SP(W)(%eax)
	movl	%ebx, SEEDS_CTX_BX(W)(%eax)
	movl	%ebp, SEEDS_CTX_BP(W)(%eax)
	movl	%esi, SEEDS_CTX_SI(W)(%eax)
	movl	%edi, SEEDS_CTX_DI(W)(%eax)
	pushfl
	popl	SEEDS_CTX_FLAGS(W)(%eax)
	movl	%cr0, %edx
	movl	%edx, SEEDS_CTX_CR0(W)(%eax)
	movl	%cr4, %edx
	movl	%edx, SEEDS_CTX_CR4(W)(%eax)
	/* the snapshot (esp is 12 mod 16 here: realign for the call) */
	subl	$12, %esp
	call	seeds_save
	addl	$12, %esp
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
	call	1f
1:	popl	%eax
	subl	$SEEDS_PAGE_OFFSET_I386, %eax
	addl	$(2f - 1b), %eax
	jmp	*%eax
2:
	call	3f
3:	popl	%ebx
	addl	$_GLOBAL_OFFSET_TABLE_+[.-3b], %ebx
	leal	seeds_ctx@GOTOFF(%ebx), %esi

	/* paging off (we run at an identity address), then the writer's own tables */
	movl	%cr0, %eax
	andl	$~CR0_PG, %eax
	movl	%eax, %cr0
	movl	SEEDS_CTX_CR4(W)(%esi), %eax
	andl	$~(CR4_PAE | CR4_PGE | CR4_PCIDE), %eax
	orl	$CR4_PSE, %eax
	movl	%eax, %cr4
	movl	SEEDS_CTX_CR3(W)(%esi), %eax
	movl	%eax, %cr3
	movl	SEEDS_CTX_CR0(W)(%esi), %eax
	orl	$(CR0_PG | CR0_PE), %eax
	movl	%eax, %cr0
	jmp	4f
4:
	movl	SEEDS_CTX_SP(W)(%esi), %esp
	lgdt	SEEDS_CTX_GDTR(W)(%esi)
	leal	5f@GOTOFF(%ebx), %eax
	pushl	$SEEDS_CS32
	pushl	%eax
	lret
5:
	movl	$SEEDS_DS32, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs

	/* .data.nosave is not in the image: zero it, as swsusp_fw_restore() does */
	movl	SEEDS_CTX_NOSB(W)(%esi), %edi
	movl	SEEDS_CTX_NOSE(W)(%esi), %ecx
	subl	%edi, %ecx
	shrl	$2, %ecx
	xorl	%eax, %eax
	rep stosl

	movl	SEEDS_CTX_BX(W)(%esi), %ebx
	movl	SEEDS_CTX_BP(W)(%esi), %ebp
	movl	SEEDS_CTX_DI(W)(%esi), %edi
	pushl	SEEDS_CTX_FLAGS(W)(%esi)
	movl	SEEDS_CTX_SI(W)(%esi), %esi
	popfl
	movl	$SEEDS_RESUMED, %eax
	ret
	.size	swsusp_fw_resume, . - swsusp_fw_resume

	.section .note.GNU-stack,"",@progbits
