/* The body's CRC32 on a second CPU (EFI MP services) while the boot CPU reads and
 * decompresses: an er_crc_engine for image/reader.c. */
#ifndef EFIRESUME_LOADER_CRCPAR_H
#define EFIRESUME_LOADER_CRCPAR_H

#include "efi/efi.h"
#include "image/reader.h"

struct er_crc_piece {
	const UINT8 *p;        /* NULL: crc already computed (by the boot CPU) */
	UINTN n;
	UINT32 crc;            /* crc32_le(0, piece) */
	volatile UINT32 state; /* 0 queued, 1 claimed, 2 done */
};

struct er_crcpar {
	struct er_crc_piece *pieces;
	UINTN cap;
	volatile UINTN submitted, next;
	volatile UINT32 stop, ap_exited, ap_pieces;
	struct er_mp_job job;
	BOOLEAN running, overflow;
	UINT32 tail_crc;       /* pieces that found no slot, checksummed inline */
	UINT64 tail_n;
	struct er_crc_engine engine;
};

/* Starts the helper CPU for up to max_pieces pieces; FALSE (and nothing running) when
 * there is no second CPU or no memory: the reader then computes the CRC inline. */
BOOLEAN er_crcpar_start(struct er_crcpar *cp, UINTN max_pieces);
/* Stops the helper (idempotent); after er_crcpar_start, always call it. */
void er_crcpar_stop(struct er_crcpar *cp);

#endif
