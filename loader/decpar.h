/* Decompression (and the CRC32 of what comes out) on the other CPUs, through EFI MP
 * services, while the boot CPU reads: an er_dec_engine for image/reader.c. */
#ifndef EFIRESUME_LOADER_DECPAR_H
#define EFIRESUME_LOADER_DECPAR_H

#include "efi/efi.h"
#include "image/reader.h"

#define ER_DECPAR_HELPERS 7    /* helper CPUs at most (8 CPUs in all) */

struct er_decjob {
	enum er_comp comp;
	const UINT8 *in;
	UINTN in_len;
	UINT8 *out;
	UINTN cap;
	int status;
	UINTN out_len;
	UINT32 crc;
	volatile UINT32 state;   /* 0 queued, 1 claimed, 2 done */
};

struct er_decpar {
	struct er_decjob jobs[ER_DEC_MAX_JOBS];
	volatile UINTN submitted, next;     /* jobs ever queued / claimed; slot = number % ER_DEC_MAX_JOBS */
	volatile UINT32 stop;
	volatile UINTN helper_jobs;        /* jobs the helpers ran (the boot CPU runs the rest) */
	struct er_mp_job helpers[ER_DECPAR_HELPERS];
	UINTN nhelpers;
	struct er_dec_engine engine;
};

/* Starts helpers on up to ER_DECPAR_HELPERS other CPUs; FALSE (and nothing running)
 * when there is no other CPU: the reader then decompresses inline. */
BOOLEAN er_decpar_start(struct er_decpar *dp);
/* Stops the helpers (idempotent); after er_decpar_start, always call it. */
void er_decpar_stop(struct er_decpar *dp);

#endif
