/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * efiresume i386 restore routine. Copied to a page the image does not use and
 * entered, after ExitBootServices, as  void tramp(struct params *p)  (cdecl: 4(%esp)).
 * Position independent and free of absolute relocations: every address it needs
 * comes from the params block (base in %ebx) or from call/pop.
 *
 * It turns paging off (UEFI ia32 may run identity-paged), switches to its own stack
 * and GDT (CS = 0x60 = __KERNEL_CS, data 0x68 = __KERNEL_DS on i386), copies (or
 * zero-fills) the bounced pages with paging off, sets EFER.NXE as the image needs, loads CR4
 * with PSE or PAE as the image kernel pages, CR3 = its own tables (identity map of
 * the low 4 GiB with large pages + jump_address -> jump_address_phys), turns paging
 * on and enters the image kernel's restore_registers with %ebp = the image's cr3,
 * interrupts off. restore_registers (arch/x86/power/hibernate_asm_32.S) reads only
 * %ebp: cr3 = %ebp, cr4 = mmu_cr4_features, then the saved registers.
 */
#define P_STACK   0
#define P_GDTR    4     /* u16 limit at 4, u32 base at 6 */
#define P_CR3     12
#define P_CR4     16    /* CR4 bits to set: PSE (2-level) or PAE */
#define P_LIST    20
#define P_COUNT   24
#define P_IMGCR3  28
#define P_JUMP    32
#define P_NXE     36

#define CR0_PG    0x80000000
#define CR4_PSE   0x00000010
#define CR4_PAE   0x00000020
#define CR4_PGE   0x00000080

	.text
	.code32
	.globl er_tramp32_start
	.globl er_tramp32_end
er_tramp32_start:
	cli
	cld
	movl	4(%esp), %ebx

	/* paging off: we run at an identity address, as UEFI guarantees */
	movl	%cr0, %eax
	andl	$~CR0_PG, %eax
	movl	%eax, %cr0

	movl	P_STACK(%ebx), %esp
	lgdt	P_GDTR(%ebx)
	call	1f
1:	popl	%eax
	addl	$(2f - 1b), %eax
	pushl	$0x60
	pushl	%eax
	lret
2:
	movl	$0x68, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	movl	%eax, %fs
	movl	%eax, %gs

	/* copy or zero the bounced pages: entries {u64 dst; u64 src}, high halves 0 */
	movl	P_LIST(%ebx), %edx
	movl	P_COUNT(%ebx), %ebp
3:
	testl	%ebp, %ebp
	jz	6f
	movl	0(%edx), %edi
	movl	8(%edx), %esi
	movl	$1024, %ecx
	testl	%esi, %esi
	jz	4f
	rep movsl
	jmp	5f
4:
	xorl	%eax, %eax
	rep stosl
5:
	addl	$16, %edx
	decl	%ebp
	jmp	3b
6:
	/* EFER.NXE as the image kernel had it, not as the firmware left it: on for PAE
	 * page tables on an NX CPU (they carry NX bits), off otherwise. P_NXE bit 0:
	 * the CPU has EFER.NXE at all (else EFER is not touched); bit 1: the value. */
	testl	$1, P_NXE(%ebx)
	jz	7f
	movl	$0xc0000080, %ecx
	rdmsr
	andl	$~0x800, %eax
	testl	$2, P_NXE(%ebx)
	jz	8f
	orl	$0x800, %eax
8:
	wrmsr
7:
	/* CR4: PGE off, PSE/PAE as the image kernel pages */
	movl	%cr4, %eax
	andl	$~(CR4_PGE | CR4_PAE | CR4_PSE), %eax
	orl	P_CR4(%ebx), %eax
	movl	%eax, %cr4

	movl	P_CR3(%ebx), %eax
	movl	%eax, %cr3

	movl	P_IMGCR3(%ebx), %ebp
	movl	P_JUMP(%ebx), %ecx
	xorl	%ebx, %ebx
	movl	%cr0, %eax
	orl	$CR0_PG, %eax
	movl	%eax, %cr0
	jmp	*%ecx
er_tramp32_end:
	.section .note.GNU-stack,"",@progbits
