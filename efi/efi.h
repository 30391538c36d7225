// SPDX-License-Identifier: GPL-2.0-or-later
/* efi/: the only code that calls the firmware. Everything above it (loader/)
 * goes through the functions declared here. */
#ifndef EFIRESUME_EFI_EFI_H
#define EFIRESUME_EFI_EFI_H

#include <efi.h>
#include <efilib.h>
#include "image/freestanding.h"
#include "image/swsusp.h"

/* ---- efi/main.c */
extern EFI_HANDLE er_image_handle;
extern EFI_LOADED_IMAGE *er_loaded_image;

/* ---- efi/log.c: every line starts with "efiresume: " (serial logs are matched on it) */
void log_info(const CHAR16 *fmt, ...);
void log_warn(const CHAR16 *fmt, ...);
/* Logs "efiresume: error: <msg>: <status>" and returns status. */
EFI_STATUS log_error_status(EFI_STATUS status, const CHAR16 *fmt, ...);

/* ---- efi/mem.c: allocations that are checked and logged at the point of failure */
EFI_STATUS er_alloc(UINTN size, void **out);
EFI_STATUS er_alloc_zero(UINTN size, void **out);
void er_free(void *p);
EFI_STATUS er_alloc_pages(UINTN pages, void **out);
void er_free_pages(void *p, UINTN pages);

/* ---- efi/file.c: files on the volume efiresume was started from */
/* Directory of the running binary, e.g. L"\\EFI\\BOOT" (allocated). */
EFI_STATUS er_self_dir(CHAR16 **out);
/* The file name (ASCII) in that directory: L"\\EFI\\BOOT\\name" (allocated; er_free). */
EFI_STATUS er_self_file(const char *name, CHAR16 **out);
/* Reads a whole file; returns EFI_NOT_FOUND quietly when it does not exist. */
EFI_STATUS er_read_file(const CHAR16 *path, UINTN max_size, char **data, UINTN *size);
BOOLEAN er_file_exists(const CHAR16 *path);

/* ---- efi/blockdev.c */
enum er_part_scheme { ER_PART_NONE = 0, ER_PART_MBR = 1, ER_PART_GPT = 2 };

struct er_blockdev;
/* A mapped device (an LVM logical volume, an unlocked LUKS container: loader/volumes.c)
 * reads and writes through the devices below it. offset and len are already checked
 * against the mapped device's block size and size. quiet: a probe (no log line). */
struct er_blockdev_ops {
	EFI_STATUS (*read)(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len, BOOLEAN quiet);
	EFI_STATUS (*write)(const struct er_blockdev *d, UINT64 offset, const void *buf, UINTN len);
};

struct er_blockdev {
	const struct er_blockdev_ops *ops;  /* NULL: EFI Block I/O (handle, bio) */
	void *ctx;                    /* the mapping's state (ops != NULL) */
	BOOLEAN encrypted;            /* an unlocked container, or mapped onto one: what is
				       * read from it is wiped before it is given back */
	EFI_HANDLE handle;
	EFI_BLOCK_IO *bio;
	UINT32 block_size;
	UINT32 io_align;
	UINT64 size;                  /* bytes */
	BOOLEAN partition;            /* a partition (LogicalPartition), not a whole disk */
	enum er_part_scheme scheme;   /* from the HARDDRIVE device path node */
	UINT32 part_number;
	UINT8 partuuid[16];           /* GPT: unique partition GUID; MBR: disk signature in [0..3] */
	BOOLEAN type_known;           /* partition type read from EFI_PARTITION_INFO */
	BOOLEAN type_swap;            /* GPT 0657FD6D-... or MBR 0x82 */
	char id[48];                  /* "PARTUUID=..." as Linux names it, or "disk N" */
};

/* Lists every Block I/O device with media present (allocated array). */
EFI_STATUS er_blockdev_list(struct er_blockdev **devs, UINTN *count);
/* Reads len bytes at byte offset; offset and len must be multiples of the block size and
 * buf must satisfy the device's IoAlign (page-aligned buffers always do). */
EFI_STATUS er_blockdev_read(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len);
EFI_STATUS er_blockdev_write(const struct er_blockdev *d, UINT64 offset, const void *buf, UINTN len);
/* er_blockdev_read without a log line: for probing devices that may have no media or
 * nothing of ours (their failures are not errors). */
EFI_STATUS er_blockdev_probe(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len);
/* The device's head, quietly (as er_blockdev_probe): its first min(size, max) bytes,
 * rounded down to whole blocks, into buf (max bytes); *got says how many. Fails
 * (EFI_END_OF_MEDIA) when that is fewer than least bytes. */
EFI_STATUS er_blockdev_probe_head(const struct er_blockdev *d, void *buf, UINTN max, UINTN least, UINTN *got);

/* ---- efi/memmap.c */
struct er_memmap {
	UINT8 *buf;          /* descriptors, desc_size apart */
	UINTN size;          /* bytes used */
	UINTN cap;           /* bytes allocated */
	UINTN key;
	UINTN desc_size;
	UINT32 version;
	UINTN count;
};
#define ER_MD(m, i) ((EFI_MEMORY_DESCRIPTOR *)((m)->buf + (i) * (m)->desc_size))
/* Fetches the current map (allocating or growing m->buf as needed). */
EFI_STATUS er_memmap_get(struct er_memmap *m);
void er_memmap_free(struct er_memmap *m);
/* The pieces of the point of no return (loader/commit.c decides the order):
 * GetMemoryMap into m's buffer as it is (no allocation), one ExitBootServices with
 * m's key, and a cold reset when boot services are half gone. */
EFI_STATUS er_memmap_refetch(struct er_memmap *m);
EFI_STATUS er_exit_boot_services_once(struct er_memmap *m);
void er_reset_system(void) __attribute__((noreturn));
/* AllocatePages(AllocateAddress): quiet, the caller decides whether failure matters. */
EFI_STATUS er_alloc_at(UINT64 addr, UINTN pages);
/* AllocatePages(AllocateAnyPages) below max_addr (or anywhere when 0): quiet. */
EFI_STATUS er_alloc_any(UINTN pages, UINT64 max_addr, UINT64 *addr);
/* AllocatePages(AllocateAnyPages) as EfiLoaderCode (code) or EfiLoaderData: quiet. */
EFI_STATUS er_alloc_any_code(UINTN pages, BOOLEAN code, UINT64 *addr);
/* FreePages at a physical address. */
void er_free_at(UINT64 addr, UINTN pages);

/* ---- efi/timer.c: TSC calibrated against Stall() */
void er_timer_init(void);
UINT64 er_time_us(void);

/* ---- efi/acpi.c */
/* FACS hardware signature; FALSE when there is no ACPI table or FACS. */
BOOLEAN er_acpi_hw_signature(UINT32 *sig);
/* What switching to ACPI mode needs, read from the FADT while the firmware's tables
 * and pointers are still valid (before ExitBootServices: on ia32, SetVirtualAddressMap
 * converts ST->ConfigurationTable afterwards). */
struct er_acpi_mode {
	BOOLEAN valid;          /* a FADT with a PM1a control block */
	BOOLEAN sci_en;         /* SCI_EN was set when the facts were read */
	UINT16 pm1a_cnt, smi_cmd;
	UINT8 acpi_enable;
};
void er_acpi_mode_facts(struct er_acpi_mode *f);
/* Puts the platform into ACPI mode if it is in legacy mode (SMI_CMD/ACPI_ENABLE), with
 * I/O ports only: usable after ExitBootServices. Returns 1 if it switched, 0 if nothing
 * was needed, -1 if it could not. */
int er_acpi_enable(const struct er_acpi_mode *f);
/* Number of enabled CPUs (EFI MP services), 1 when they are not available. */
UINTN er_cpu_count(void);
/* Runs proc(arg) on one application processor without waiting (EFI MP services).
 * proc must not call the firmware. er_mp_wait() waits (up to timeout_ms) until the
 * firmware has seen it return. */
typedef void(EFIAPI *er_ap_procedure)(void *arg);
struct er_mp_job {
	EFI_EVENT event;
	UINTN cpu;
};
EFI_STATUS er_mp_start(er_ap_procedure proc, void *arg, struct er_mp_job *job);
EFI_STATUS er_mp_wait(struct er_mp_job *job, UINTN timeout_ms);

/* ---- efi/console.c */
/* Waits up to timeout_s seconds for a key: its character (27 for Esc), 0 on timeout,
 * -1 when the console cannot be read. */
INT32 er_wait_key(UINTN timeout_s);
/* A key typed since the last call, without waiting: as er_wait_key, 0 when none. */
INT32 er_poll_key(void);
/* Reads a line typed on the console (keyboard and serial alike) into buf as UTF-8,
 * NUL-terminated, echoing '*' per character (Backspace deletes). Returns its length
 * (Enter), -1 (Esc), -2 (the console cannot be read), -3 (no key for idle_s seconds).
 * On a negative return buf is wiped. */
INTN er_read_secret(char *buf, UINTN cap, UINTN idle_s);
/* Writes text at the start of the current line (no newline): a line updated in place. */
void er_console_line(const CHAR16 *fmt, ...);

/* ---- efi/vars.c */
/* Reads a variable into an allocated, NUL-terminated buffer; EFI_NOT_FOUND quietly. */
EFI_STATUS er_get_variable(const CHAR16 *name, const EFI_GUID *guid, UINTN max, void **data, UINTN *size);
/* SetVariable; size 0 deletes (a variable that is not there is not an error). */
EFI_STATUS er_set_variable(const CHAR16 *name, const EFI_GUID *guid, UINT32 attr, const void *data, UINTN size);
#define ER_VAR_NV_BS_RT (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
/* efiresume's own variables (EfiresumeLocation, ...) */
extern const EFI_GUID er_vendor_guid;

/* ---- efi/boot.c */
/* LoadImage + StartImage of path on our volume with UCS-2 load options.
 * Returns only when the image could not be started or exited. */
EFI_STATUS er_start_image(const CHAR16 *path, const CHAR16 *options);

#endif
