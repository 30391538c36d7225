// SPDX-License-Identifier: GPL-2.0-or-later
/* The .sbat section (shim's Secure Boot Advanced Targeting): the CSV made by the
 * Makefile ($(BUILD)/sbat.csv), page-aligned so that it is a PE section of its own. */
	.section .sbat, "a"
	.p2align 12
	.incbin SBAT_CSV
	.byte 0
	.section .note.GNU-stack, "", @progbits
