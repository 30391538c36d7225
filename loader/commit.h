// SPDX-License-Identifier: GPL-2.0-or-later
/* The point of no return, in one place: final memory map, the signature write,
 * ExitBootServices, in the spirit of the Linux EFI stub's efi_exit_boot_services().
 * Pure logic (host-tested in tests/unit/test_commit.c); loader/commit_fw.c supplies the
 * operations (the firmware's through efi/, and the signature write on the swap device).
 *
 * The rules it keeps:
 *  - nothing is written to disk until a memory map with room to spare is in hand;
 *  - until ExitBootServices has been called once, any failure puts the signature back
 *    (the image stays resumable) and returns, so that the caller boots normally;
 *  - once ExitBootServices has been called (even if it failed) only GetMemoryMap and
 *    ExitBootServices may be used: no allocation, no output, no disk. If the exit still
 *    does not succeed, the machine is reset rather than left half-torn-down. */
#ifndef EFIRESUME_LOADER_COMMIT_H
#define EFIRESUME_LOADER_COMMIT_H

#include "image/freestanding.h"

enum {
	ER_PNR_MAP_TOO_SMALL = 1,   /* get_map: the buffer is too small (and may not grow) */
	ER_PNR_STALE_KEY = 2,       /* exit_bs: the map key is out of date (EFI_INVALID_PARAMETER) */
};

struct er_pnr_ops {
	void *ctx;
	/* GetMemoryMap into the buffer (growing it, and fetching again, when may_grow and it
	 * is too small): 0, ER_PNR_MAP_TOO_SMALL, or another non-zero error */
	int (*get_map)(void *ctx, bool may_grow);
	/* ExitBootServices with the last map's key: 0, ER_PNR_STALE_KEY or another error */
	int (*exit_bs)(void *ctx);
	/* the signature write: 0 when it is on the disk; otherwise nothing changed on disk
	 * (commit undoes a partial write itself) */
	int (*commit)(void *ctx);
	/* put the signature back (boot services still usable): 0 on success */
	int (*uncommit)(void *ctx);
	/* the firmware's boot services are half gone: reset the machine (no return) */
	void (*reset)(void *ctx);
	/* optional: a line for the log while boot services are still there */
	void (*note)(void *ctx, const char *what, int status);
};

enum er_pnr_result {
	ER_PNR_EXITED = 0,          /* boot services are gone; hand off now */
	ER_PNR_NOT_COMMITTED,       /* nothing written (or written back): boot normally */
	ER_PNR_LOST,                /* the signature is reset and could not be put back */
};

#define ER_PNR_TRIES 8

enum er_pnr_result er_point_of_no_return(const struct er_pnr_ops *ops);

#endif
