// SPDX-License-Identifier: GPL-2.0-or-later
/* swsusp-inspect: explain a Linux hibernation image on a swap partition or disk image.
 *   swsusp-inspect PATH [--offset BYTES] [--resume-offset PAGES] [--json] [--dump-body FILE]
 * PATH: a partition, a whole disk image (the Linux swap partition of its GPT is used),
 * or a raw swap image. --offset: where the partition starts in PATH.
 * --resume-offset: the image was written to a swap file; its header is at this page
 * of the partition (the kernel's resume_offset). Reads the whole image (decompressing and checking the CRC).
 * --dump-body FILE writes the image's data pages, uncompressed, in stream order.
 * Exit status 0: resumable; otherwise 10 + the refusal reason number. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

#include "image/reader.h"

struct fdsrc {
	int fd;
	uint64_t offset;
	uint64_t reads, read_bytes;
};

static int fd_read(void *ctx, uint64_t page, uint64_t count, void *buf)
{
	struct fdsrc *s = ctx;
	size_t len = count * ER_PAGE_SIZE, done = 0;
	while (done < len) {
		ssize_t n = pread(s->fd, (char *)buf + done, len - done, s->offset + page * ER_PAGE_SIZE + done);
		if (n <= 0)
			return -1;
		done += n;
	}
	s->reads++;
	s->read_bytes += len;
	return 0;
}

static const uint8_t gpt_swap[16] = { 0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43,
				      0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f };

/* If the file is a GPT disk, find its first Linux swap partition. */
static int find_gpt_swap(int fd, uint64_t *off, uint64_t *size)
{
	uint8_t hdr[512];
	if (pread(fd, hdr, 512, 512) != 512 || memcmp(hdr, "EFI PART", 8) != 0)
		return 0;
	uint64_t lba = er_le64(hdr + 72);
	uint32_t n = er_le32(hdr + 80), esz = er_le32(hdr + 84);
	if (esz < 128 || esz > 4096 || n > 1024)
		return 0;
	uint8_t *e = malloc((size_t)n * esz);
	if (!e || pread(fd, e, (size_t)n * esz, lba * 512) != (ssize_t)((size_t)n * esz)) {
		free(e);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *p = e + (size_t)i * esz;
		if (memcmp(p, gpt_swap, 16) == 0) {
			*off = er_le64(p + 32) * 512;
			*size = (er_le64(p + 40) - er_le64(p + 32) + 1) * 512;
			free(e);
			return 1;
		}
	}
	free(e);
	return 0;
}

struct count_sink {
	uint64_t pages, max_pfn, min_pfn;
	FILE *dump;
};

static int plan(void *ctx, const struct er_image *img, const uint64_t *pfns, uint64_t n, struct er_error *err)
{
	struct count_sink *c = ctx;
	(void)img;
	(void)err;
	if (n) {
		c->min_pfn = pfns[0] & ~ER_PFN_ZERO;
		c->max_pfn = pfns[n - 1] & ~ER_PFN_ZERO;
	}
	return 0;
}

static int page(void *ctx, uint64_t pfn, const uint8_t *data, struct er_error *err)
{
	struct count_sink *c = ctx;
	(void)pfn;
	c->pages++;
	if (c->dump && fwrite(data, ER_PAGE_SIZE, 1, c->dump) != 1) {
		snprintf(err->detail, sizeof(err->detail), "cannot write the dump file");
		return -1;
	}
	return 0;
}

static void json_str(const char *k, const char *v, int last)
{
	printf("  \"%s\": \"", k);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			printf("\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			printf("\\u%04x", *v);
		else
			putchar(*v);
	}
	printf("\"%s\n", last ? "" : ",");
}

/* --help: the usage on stdout, status 0; a usage error: on stderr, status 2 */
static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: swsusp-inspect PATH [--offset BYTES] [--resume-offset PAGES] [--json] [--dump-body FILE]\n"
		"       swsusp-inspect --help\n"
		"PATH: a swap partition, a whole disk (its GPT's Linux swap partition is used) or a raw\n"
		"swap image. Exit status 0: resumable; 10 + reason: refused; 2: usage or I/O error.\n");
	exit(status);
}

int main(int argc, char **argv)
{
	int json = 0, have_off = 0;
	const char *dump = NULL;
	uint64_t off = 0, size = 0, resume_offset = 0;
	static const struct option opts[] = { { "offset", 1, 0, 'o' }, { "json", 0, 0, 'j' }, { "dump-body", 1, 0, 'd' },
					      { "resume-offset", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "o:jh", opts, NULL)) != -1) {
		if (c == 'o') {
			off = strtoull(optarg, NULL, 0);
			have_off = 1;
		} else if (c == 'j')
			json = 1;
		else if (c == 'd')
			dump = optarg;
		else if (c == 'r') {
			char *end;
			errno = 0;
			resume_offset = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg)
				usage(2);
		} else if (c == 'h')
			usage(0);
		else
			usage(2);
	}
	if (optind != argc - 1)
		usage(2);
	const char *path = argv[optind];
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "swsusp-inspect: %s: %s\n", path, strerror(errno));
		return 2;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "swsusp-inspect: %s: %s\n", path, strerror(errno));
		return 2;
	}
	/* a directory opens read-only and reads as EISDIR: it is no swap */
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "swsusp-inspect: %s: %s, not a block device or a disk image file\n", path,
			S_ISDIR(st.st_mode) ? "a directory" : "a special file");
		return 2;
	}
	uint64_t total = st.st_size;
	if (S_ISBLK(st.st_mode))
		ioctl(fd, BLKGETSIZE64, &total);
	const char *where = "raw";
	if (have_off) {
		where = "offset";
		size = total > off ? total - off : 0;
	} else if (resume_offset) {
		size = total;   /* a swap file: PATH is the partition that holds its filesystem */
	} else if (find_gpt_swap(fd, &off, &size)) {
		where = "gpt-swap-partition";
	} else {
		size = total;
	}

	struct fdsrc fs = { fd, off, 0, 0 };
	struct er_source src = { &fs, size / ER_PAGE_SIZE, fd_read, resume_offset };
	struct er_image img;
	struct er_error err = { 0 };
	uint8_t *page0 = malloc(ER_PAGE_SIZE), *map = NULL, *io = NULL, *unc = NULL;
	uint64_t *pfns = NULL;
	struct count_sink cs = { 0 };
	if (dump && !(cs.dump = fopen(dump, "wb"))) {
		fprintf(stderr, "swsusp-inspect: %s: %s\n", dump, strerror(errno));
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);

	enum er_reason r = er_image_open(&img, &src, page0, &err);
	if (r == ER_OK) {
		map = malloc(img.map_pages_max * ER_PAGE_SIZE);
		r = map ? er_image_load_map(&img, &src, map, img.map_pages_max, &err) : ER_R_NOMEM;
	}
	uint64_t io_pages = 256;
	if (r == ER_OK) {
		io = malloc(io_pages * ER_PAGE_SIZE);
		unc = malloc(ER_CHUNK_BYTES);
		/* pfn_cap comes from the header (num_physpages bounds it): it may be absurd */
		pfns = malloc((img.pfn_cap + 1) * sizeof(uint64_t));
		if (!io || !unc || !pfns)
			r = ER_R_NOMEM;
	}
	if (r == ER_R_NOMEM) {
		err.reason = r;
		snprintf(err.detail, sizeof(err.detail), "cannot allocate the buffers (%llu map pages, %llu PFN slots)",
			 (unsigned long long)img.map_pages_max, (unsigned long long)img.pfn_cap);
	}
	if (r == ER_OK) {
		struct er_stream_buffers b = { io, io_pages, unc, pfns, NULL, NULL };
		struct er_sink sink = { &cs, plan, page, NULL, NULL };
		r = er_image_stream(&img, &src, &b, &sink, &err);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (cs.dump)
		fclose(cs.dump);
	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	const char *gen = img.nr_zero ? "6.6+ (zero pages not stored)" : "6.1-style PFN list";
	char verdict[256];
	if (r == ER_OK)
		snprintf(verdict, sizeof(verdict), "resumable");
	else
		snprintf(verdict, sizeof(verdict), "refused: %s: %s", er_reason_text(r), err.detail);

	if (json) {
		printf("{\n");
		json_str("path", path, 0);
		printf("  \"source\": \"%s\",\n  \"offset\": %llu,\n  \"partition_bytes\": %llu,\n", where,
		       (unsigned long long)off, (unsigned long long)size);
		printf("  \"resume_offset\": %llu,\n", (unsigned long long)resume_offset);
		printf("  \"signature\": %s,\n", img.orig_sig[0] || r != ER_R_NO_SIGNATURE ? "\"S1SUSPEND\"" : "null");
		json_str("orig_sig", img.orig_sig, 0);
		printf("  \"flags\": %u,\n  \"compression\": \"%s\",\n  \"arch\": \"%s\",\n", img.flags,
		       er_comp_name(img.comp), er_arch_name(img.arch));
		printf("  \"jump_address\": \"0x%llx\",\n  \"jump_address_phys\": \"0x%llx\",\n  \"cr3\": \"0x%llx\",\n",
		       (unsigned long long)img.jump_address, (unsigned long long)img.jump_address_phys,
		       (unsigned long long)img.cr3);
		printf("  \"e820_checksum\": \"0x%llx\",\n  \"num_physpages\": %llu,\n  \"image_pages\": %llu,\n",
		       (unsigned long long)img.e820_checksum, (unsigned long long)img.num_physpages,
		       (unsigned long long)img.image_pages);
		printf("  \"pages\": %llu,\n  \"meta_pages\": %llu,\n  \"pfns\": %llu,\n  \"zero_pages\": %llu,\n",
		       (unsigned long long)img.pages, (unsigned long long)img.nr_meta_pages,
		       (unsigned long long)img.nr_pfns, (unsigned long long)img.nr_zero);
		printf("  \"data_pages_read\": %llu,\n  \"chunks\": %llu,\n  \"stored_bytes\": %llu,\n",
		       (unsigned long long)cs.pages, (unsigned long long)img.chunks, (unsigned long long)img.stored_bytes);
		printf("  \"uncompressed_bytes\": %llu,\n  \"stream_pages\": %llu,\n  \"map_pages\": %llu,\n",
		       (unsigned long long)((img.nr_meta_pages + img.image_pages) * ER_PAGE_SIZE),
		       (unsigned long long)img.stream_pages, (unsigned long long)img.map_pages);
		printf("  \"crc_recorded\": \"0x%08x\",\n  \"crc_computed\": \"0x%08x\",\n  \"crc_status\": \"%s\",\n",
		       img.crc32, img.crc_body,
		       r == ER_R_CRC ? "mismatch" : img.crc_checked ? "ok" : (img.flags & ER_SF_CRC32_MODE) ? "not-reached" : "none");
		printf("  \"seconds\": %.3f,\n", secs);
		json_str("reason", er_reason_name(r), 0);
		json_str("detail", err.detail, 0);
		json_str("verdict", verdict, 1);
		printf("}\n");
	} else {
		printf("source:          %s (%s, offset %llu, %llu bytes)\n", path, where, (unsigned long long)off,
		       (unsigned long long)size);
		if (resume_offset)
			printf("swap file:       header at page %llu of the partition\n", (unsigned long long)resume_offset);
		if (r == ER_R_NO_SIGNATURE || r == ER_R_IO) {
			printf("verdict:         %s\n", verdict);
			return 10 + r;
		}
		printf("signature:       S1SUSPEND (orig_sig %s)\n", img.orig_sig);
		printf("flags:           0x%x%s%s%s%s%s\n", img.flags, img.flags & ER_SF_PLATFORM_MODE ? " platform" : "",
		       img.flags & ER_SF_NOCOMPRESS_MODE ? " nocompress" : "", img.flags & ER_SF_CRC32_MODE ? " crc32" : "",
		       img.flags & ER_SF_HW_SIG ? " hw-sig" : "", img.flags & ER_SF_LZ4 ? " lz4" : "");
		printf("arch:            %s (word %u), %s\n", er_arch_name(img.arch), img.word, gen);
		printf("compression:     %s\n", er_comp_name(img.comp));
		printf("jump address:    0x%llx (phys 0x%llx)\n", (unsigned long long)img.jump_address,
		       (unsigned long long)img.jump_address_phys);
		printf("cr3:             0x%llx\n", (unsigned long long)img.cr3);
		printf("e820 checksum:   0x%llx\n", (unsigned long long)img.e820_checksum);
		printf("physical pages:  %llu (%llu MiB)\n", (unsigned long long)img.num_physpages,
		       (unsigned long long)(img.num_physpages / 256));
		printf("image pages:     %llu stored + %llu zero, %llu meta, %llu total in header\n",
		       (unsigned long long)img.image_pages, (unsigned long long)img.nr_zero,
		       (unsigned long long)img.nr_meta_pages, (unsigned long long)img.pages);
		if (img.nr_pfns)
			printf("PFN range:       0x%llx .. 0x%llx\n", (unsigned long long)cs.min_pfn,
			       (unsigned long long)cs.max_pfn);
		printf("uncompressed:    %llu bytes\n", (unsigned long long)((img.nr_meta_pages + img.image_pages) * ER_PAGE_SIZE));
		printf("stored:          %llu bytes in %llu chunk(s), %llu swap pages\n",
		       (unsigned long long)img.stored_bytes, (unsigned long long)img.chunks,
		       (unsigned long long)img.stream_pages);
		if (img.flags & ER_SF_CRC32_MODE)
			printf("crc32:           recorded 0x%08x, computed 0x%08x: %s\n", img.crc32, img.crc_body,
			       r == ER_R_CRC ? "MISMATCH" : img.crc_checked ? "ok" : "not reached");
		else
			printf("crc32:           none recorded\n");
		printf("read:            %llu reads, %llu bytes in %.3f s\n", (unsigned long long)fs.reads,
		       (unsigned long long)fs.read_bytes, secs);
		printf("verdict:         %s\n", verdict);
	}
	return r == ER_OK ? 0 : 10 + r;
}
