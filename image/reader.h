// SPDX-License-Identifier: GPL-2.0-or-later
/* Reader for Linux x86 hibernation images (kernel 6.1 .. 6.12 swsusp, x86_64 and i386).
 *
 * Pure and streaming: it reads through a block source (pages of the swap device),
 * never needs the whole image in memory, bounds-checks every field it reads and
 * reports a stable reason when it refuses an image. Layout: the kernel's
 * kernel/power/{swap,snapshot}.c.
 *
 * Use:
 *   er_image_open()      page 0 + first map page + header page: what the image is
 *   er_image_load_map()  the whole swap_map_page chain into a caller buffer
 *   er_image_stream()    PFN pages, then data pages, decompressed and CRC-checked,
 *                        handed to a sink page by page
 */
#ifndef EFIRESUME_IMAGE_READER_H
#define EFIRESUME_IMAGE_READER_H

#include "image/freestanding.h"
#include "image/swsusp.h"

/* swsusp_header.flags */
#define ER_SF_PLATFORM_MODE   1u
#define ER_SF_NOCOMPRESS_MODE 2u
#define ER_SF_CRC32_MODE      4u
#define ER_SF_HW_SIG          8u
#define ER_SF_LZ4             16u   /* SF_COMPRESSION_ALG_LZ4, 6.9+ */
#define ER_SF_KNOWN           31u

#define ER_MAP_ENTRIES        511u  /* u64 entries per swap_map_page, then next_swap */
#define ER_CHUNK_PAGES        32u   /* LZO_UNC_PAGES / UNC_PAGES */
#define ER_CHUNK_BYTES        (ER_CHUNK_PAGES * ER_PAGE_SIZE)
/* lzo1x_worst_compress(UNC_SIZE) = x + x/16 + 64 + 3: the kernel's bound on cmp_len */
#define ER_CHUNK_CMP_MAX      (ER_CHUNK_BYTES + ER_CHUNK_BYTES / 16 + 64 + 3)
/* pages a stored chunk can span: size_t header + worst case, rounded up */
#define ER_CHUNK_STORED_PAGES_MAX ((8 + ER_CHUNK_CMP_MAX + ER_PAGE_SIZE - 1) / ER_PAGE_SIZE)

#define ER_RESTORE_MAGIC_64   0x23456789ABCDEF02ull
#define ER_RESTORE_MAGIC_32   0x12345679u

/* Bit 63 of a PFN in er_image_stream's list: the page was all zeros (6.6+) and is not stored. */
#define ER_PFN_ZERO           (1ull << 63)

enum er_arch { ER_ARCH_UNKNOWN = 0, ER_ARCH_X86_64, ER_ARCH_I386 };
enum er_comp { ER_COMP_NONE = 0, ER_COMP_LZO, ER_COMP_LZ4 };

/* Stable refusal reasons; er_reason_text() gives the one-line explanation. */
enum er_reason {
	ER_OK = 0,
	ER_R_IO,              /* the device could not be read */
	ER_R_NO_SIGNATURE,    /* no S1SUSPEND in page 0 */
	ER_R_FLAGS,           /* unknown or contradictory flag bits */
	ER_R_MAP,             /* map chain: entry outside the partition, loop, or truncated */
	ER_R_MAGIC,           /* header page: no known architecture magic */
	ER_R_ARCH,            /* image of another architecture than this loader */
	ER_R_HEADER,          /* header page: page counts inconsistent */
	ER_R_PFN,             /* PFN list: not ascending, wrong count, or out of range */
	ER_R_PFN_NOT_RAM,     /* a saved page lies outside this machine's RAM */
	ER_R_CHUNK_LEN,       /* compressed chunk length out of range */
	ER_R_DECOMPRESS,      /* decompression failed */
	ER_R_COUNTS,          /* decompressed data does not add up to the page counts */
	ER_R_CRC,             /* CRC32 of the image body differs */
	ER_R_E820,            /* memory map differs from the one the image was made with */
	ER_R_HW_SIG,          /* ACPI hardware signature differs */
	ER_R_NOMEM,           /* not enough memory to load the image */
	ER_R_SINK,            /* the consumer refused a page (it says why) */
	ER_R_CPUS,            /* CPU count/feature mismatch */
	ER_R_OTHER,
	ER_R_AUTH,            /* an encrypted stream page (contract v2) failed its authentication */
	ER_R_COUNT
};

const char *er_reason_name(enum er_reason r);   /* short identifier, e.g. "crc-mismatch" */
const char *er_reason_text(enum er_reason r);   /* one-line explanation */

/* A refusal with the details that make it actionable. */
struct er_error {
	enum er_reason reason;
	char detail[160];
};

/* Block source: the swap device in 4 KiB pages. read() returns 0 on success.
 * header_page: where swsusp_header lives — 0 on a swap partition; for a swap file,
 * the page of the file's first block within the partition (the kernel's
 * resume_offset). Every other page number in the image (map entries) is already a
 * page of the partition, whichever kind of swap wrote it. */
struct er_source {
	void *ctx;
	uint64_t pages;
	int (*read)(void *ctx, uint64_t page, uint64_t count, void *buf);
	uint64_t header_page;
};

/* An encrypted stream (contract v2, kernel-patch/6.12/README): stream page i (i = 0 ..
 * n-1) is stored at map position i + i/256, followed after every 256 pages and after the
 * last, partial group by a plaintext tag page holding the group's 16-byte tags. The
 * reader reads tag pages itself; it hands every page's tag to feed() once, in stream
 * order, as the page is read (on the reading CPU), and asks open() to decrypt and
 * authenticate the page in place with that tag, either then or, for the pages of a
 * compressed chunk after its first, in the decompression job of that chunk (any CPU:
 * open() must be safe to call from several CPUs at once). The caller (who holds the key)
 * decides what both mean. Reading through a crypt, stream_pages counts the n stream pages,
 * not the stored ones. The caller owns it; the reader keeps its tag page cache in
 * tags/tag_group. */
#define ER_ENC_GROUP 256u
struct er_crypt {
	void *ctx;
	uint64_t n;                     /* encrypted stream pages, as the (authenticated) header says */
	/* page i's tag, in stream order; 0: fine, else the reader refuses (ER_R_AUTH) */
	int (*feed)(void *ctx, uint64_t i, const uint8_t tag[16]);
	/* 0: page i is authentic and now plaintext; else the reader refuses (ER_R_AUTH) */
	int (*open)(void *ctx, uint64_t i, uint8_t *page, const uint8_t tag[16]);
	uint8_t *tags;                  /* one page, caller-owned: the tag page of tag_group */
	uint64_t tag_group;             /* the group in tags (+1: 0 means none yet) */
};
/* Pages a decompression job opens in place before it decompresses: stream pages
 * first .. first+n-1 at pages, their tags at tags (16 bytes each). */
struct er_open_pages {
	const struct er_crypt *crypt;
	uint64_t first, n;
	uint8_t *pages;
	const uint8_t *tags;
};
/* Opens them in order; 0, or ER_DEC_E_AUTH at the first that fails (any CPU). */
#define ER_DEC_E_AUTH (-700)
int er_open_pages_run(const struct er_open_pages *o);
/* Stored map positions of stream page i and of group g's tag page; stored pages in all. */
uint64_t er_crypt_stored(uint64_t i);
uint64_t er_crypt_tag_pos(uint64_t n, uint64_t g);
uint64_t er_crypt_stored_total(uint64_t n);

struct er_image {
	/* page 0 (struct swsusp_header) */
	uint32_t hw_sig, crc32, flags;
	uint64_t first_map;
	char orig_sig[11];
	/* header page (swsusp_info + restore_data_record) */
	enum er_arch arch;
	unsigned word;                  /* sizeof(long): 8 or 4 */
	uint64_t jump_address, jump_address_phys, cr3, magic, e820_checksum;
	uint64_t num_physpages, image_pages, pages, size;
	uint32_t cpus, version_code;
	char release[65], nodename[65]; /* uts.release / uts.nodename (printable ASCII, "?" for others) */
	uint64_t nr_meta_pages;         /* pages - image_pages - 1 */
	uint64_t pfn_cap;               /* PFN slots in the meta pages */
	enum er_comp comp;
	uint64_t header_swap_page;      /* where the header page lives */
	/* map chain (er_image_load_map) */
	const uint8_t *map;             /* map pages, each 4096 bytes, in chain order */
	uint64_t map_pages;
	uint64_t stream_pages;          /* entries in use = stored pages of the stream */
	uint64_t map_pages_max;         /* what er_image_load_map may need */
	/* results of er_image_stream */
	uint64_t nr_pfns, nr_zero;      /* PFNs listed, of which all-zero pages */
	uint64_t chunks, stored_bytes;  /* compressed chunks and their bytes */
	uint32_t crc_body;              /* crc32_le(0, body) as computed */
	bool crc_checked;
	struct er_crypt *crypt;         /* an encrypted stream (er_image_open_at), or NULL */
};

/* Read n pages at page through src, refusing ranges beyond the device (ER_R_MAP) and
 * failed reads (ER_R_IO). Shared with the other format readers. */
enum er_reason er_source_read(const struct er_source *src, uint64_t page, uint64_t n, void *buf,
			      struct er_error *err);

/* The swap header page (src->header_page) and the image's header page. page_buf: one 4096-byte scratch page. */
enum er_reason er_image_open(struct er_image *img, const struct er_source *src, uint8_t *page_buf,
			     struct er_error *err);
/* The same from a swap header page the caller has read (and perhaps authenticated) already:
 * page0 is parsed as it is, never read again, so the bytes checked are the bytes used.
 * crypt: the stream is encrypted (contract v2; NULL: plain); the image's header page (stream
 * page 0) is decrypted through it here. */
enum er_reason er_image_open_at(struct er_image *img, const struct er_source *src, const uint8_t *page0,
				uint8_t *page_buf, struct er_crypt *crypt, struct er_error *err);

/* Walk the whole map chain into map_buf (cap_pages pages; img->map_pages_max is enough). */
enum er_reason er_image_load_map(struct er_image *img, const struct er_source *src, uint8_t *map_buf,
				 uint64_t cap_pages, struct er_error *err);

/* Receives the image as it streams. plan() sees every PFN (bit ER_PFN_ZERO on all-zero
 * pages) before the first data page; page() gets each stored page with its PFN.
 * A non-zero return stops the stream with ER_R_SINK (put the reason in err->detail). */
struct er_sink {
	void *ctx;
	int (*plan)(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n,
		    struct er_error *err);
	int (*page)(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err);
	/* Optional zero-copy path for compressed images. dest() is asked for a place where
	 * the next k data pages (PFN list indexes idx..idx+k-1, none of them all-zero) may
	 * be written contiguously; it returns NULL to decline. When a chunk decompressed
	 * there whole, commit() takes those k pages instead of k page() calls. */
	uint8_t *(*dest)(void *ctx, uint64_t idx, uint64_t k);
	int (*commit)(void *ctx, uint64_t idx, uint64_t k, struct er_error *err);
};

struct er_dec_engine;

/* Buffers for er_image_stream (all caller-owned, no allocation inside):
 *   io:   io_pages pages of read buffer, io_pages >= 2 * ER_CHUNK_STORED_PAGES_MAX;
 *         bigger means larger reads
 *   unc:  ER_CHUNK_BYTES for one decompressed chunk
 *   pfns: img->pfn_cap entries */
struct er_stream_buffers {
	uint8_t *io;
	uint64_t io_pages;
	uint8_t *unc;
	uint64_t *pfns;
	const struct er_dec_engine *dec;   /* optional: chunks decompressed elsewhere (NULL: inline) */
	/* optional, with a crypt: io_pages * 16 bytes, the tags of the pages in io; with it
	 * (and an engine that opens) the pages of a compressed chunk after its first are
	 * opened by that chunk's job, on whichever CPU runs it */
	uint8_t *io_tags;
};

/* An optional decompression engine (the loader runs its jobs on other CPUs too).
 * Only zero-copy chunks (sink->dest) go through it; with an engine, the sink's
 * commit() for such a chunk comes when the chunk is queued, before its data is in
 * place; all of it is in place (and checked) when er_image_stream returns ER_OK. */
#define ER_DEC_MAX_JOBS 32u
struct er_dec_engine {
	void *ctx;
	/* Queue a job: decompress in[0..in_len) into out (cap bytes) and compute
	 * crc32_le(0, output). The caller leaves in and out alone until wait(). At most
	 * ER_DEC_MAX_JOBS jobs are outstanding; they are waited for in the order queued.
	 * Returns a ticket. */
	unsigned (*submit)(void *ctx, enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out,
			   size_t cap);
	/* Wait for the job (running queued ones meanwhile, if it likes): the
	 * decompressor's status (0: fine), the output length and its CRC. */
	int (*wait)(void *ctx, unsigned ticket, size_t *out_len, uint32_t *crc);
	/* Optional (NULL: the reader opens pages itself): as submit, the job first opening
	 * *open's pages in place (in lies in them); its status is then ER_DEC_E_AUTH when one
	 * fails. *open is copied. */
	unsigned (*submit_open)(void *ctx, const struct er_open_pages *open, enum er_comp comp, const uint8_t *in,
				size_t in_len, uint8_t *out, size_t cap);
};

/* One decompression job as an engine runs it (any CPU: pure code). */
int er_dec_run(enum er_comp comp, const uint8_t *in, size_t in_len, uint8_t *out, size_t cap, size_t *out_len,
	       uint32_t *crc);

enum er_reason er_image_stream(struct er_image *img, const struct er_source *src,
			       const struct er_stream_buffers *buf, const struct er_sink *sink,
			       struct er_error *err);

const char *er_arch_name(enum er_arch a);
const char *er_comp_name(enum er_comp c);

#endif
