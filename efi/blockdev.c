// SPDX-License-Identifier: GPL-2.0-or-later
/* Block devices through EFI Block I/O: listing, naming (PARTUUID), reading, writing. */
#include "efi/efi.h"
#include "volume/guid.h"

/* EFI_PARTITION_INFO_PROTOCOL (UEFI 2.7); gnu-efi 3.0.15 does not define it. */
static EFI_GUID partition_info_guid = { 0x8cf2f62c, 0xbc9b, 0x4821, { 0x80, 0x8d, 0xec, 0x9e, 0xc4, 0x21, 0xa1, 0xa0 } };
struct partition_info {
	UINT32 revision;
	UINT32 type;        /* 0 other, 1 MBR, 2 GPT */
	UINT8 system;
	UINT8 reserved[7];
	UINT8 info[128];    /* MBR_PARTITION_RECORD (16 bytes) or EFI_PARTITION_ENTRY (128 bytes) */
} __attribute__((packed));

/* UEFI lays out 64-bit fields on 8-byte boundaries on IA32 too; gcc -m32 does so only
 * with -malign-double (Makefile). Without it these reads would be 4 bytes off. */
_Static_assert(__builtin_offsetof(EFI_BLOCK_IO_MEDIA, LastBlock) == 24, "EFI_BLOCK_IO_MEDIA layout");
_Static_assert(__builtin_offsetof(EFI_LOADED_IMAGE, ImageSize) == 40 + (sizeof(void *) - 4) * 8,
	       "EFI_LOADED_IMAGE layout");

static const UINT8 gpt_linux_swap[16] = { 0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43,
					  0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f };

static void hex32(char *out, UINT32 v)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 8; i++)
		out[i] = hex[(v >> (28 - 4 * i)) & 15];
}

static void name_device(struct er_blockdev *d, UINTN index)
{
	if (d->scheme == ER_PART_GPT) {
		er_memcpy(d->id, "PARTUUID=", 9);
		er_guid_format(d->partuuid, d->id + 9);
	} else if (d->scheme == ER_PART_MBR) {
		/* Linux: PARTUUID=<disk signature>-<partition number, two hex digits> */
		er_memcpy(d->id, "PARTUUID=", 9);
		hex32(d->id + 9, er_le32(d->partuuid));
		d->id[17] = '-';
		d->id[18] = "0123456789abcdef"[(d->part_number >> 4) & 15];
		d->id[19] = "0123456789abcdef"[d->part_number & 15];
		d->id[20] = 0;
	} else {
		const char *p = d->partition ? "partition " : "disk ";
		UINTN n = er_strnlen(p, 16);
		er_memcpy(d->id, p, n);
		if (index >= 10)
			d->id[n++] = (char)('0' + (index / 10) % 10);
		d->id[n++] = (char)('0' + index % 10);
		d->id[n] = 0;
	}
}

static void read_device_path(struct er_blockdev *d)
{
	EFI_DEVICE_PATH *dp = NULL;
	if (EFI_ERROR(BS->HandleProtocol(d->handle, &gEfiDevicePathProtocolGuid, (void **)&dp)) || !dp)
		return;
	for (; !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_HARDDRIVE_DP)
			continue;
		if (DevicePathNodeLength(dp) < 42)
			continue;
		const UINT8 *n = (const UINT8 *)dp;
		d->part_number = er_le32(n + 4);
		er_memcpy(d->partuuid, n + 24, 16);
		if (n[41] == 2)
			d->scheme = ER_PART_GPT;
		else if (n[41] == 1)
			d->scheme = ER_PART_MBR;
	}
}

static void read_partition_type(struct er_blockdev *d)
{
	struct partition_info *pi = NULL;
	if (EFI_ERROR(BS->HandleProtocol(d->handle, &partition_info_guid, (void **)&pi)) || !pi)
		return;
	if (pi->type == 2) {
		d->type_known = TRUE;
		d->type_swap = er_memcmp(pi->info, gpt_linux_swap, 16) == 0;
	} else if (pi->type == 1) {
		d->type_known = TRUE;
		d->type_swap = pi->info[4] == 0x82;
	}
}

EFI_STATUS er_blockdev_list(struct er_blockdev **devs, UINTN *count)
{
	EFI_HANDLE *handles = NULL;
	UINTN n = 0, out = 0;
	struct er_blockdev *list;
	EFI_STATUS err;

	*devs = NULL;
	*count = 0;
	err = BS->LocateHandleBuffer(ByProtocol, &gEfiBlockIoProtocolGuid, NULL, &n, &handles);
	if (err == EFI_NOT_FOUND)
		return EFI_SUCCESS;
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot list block devices");
	err = er_alloc_zero(n * sizeof(*list) + 1, (void **)&list);
	if (EFI_ERROR(err))
		goto out;
	for (UINTN i = 0; i < n; i++) {
		struct er_blockdev *d = &list[out];
		EFI_BLOCK_IO *bio;
		if (EFI_ERROR(BS->HandleProtocol(handles[i], &gEfiBlockIoProtocolGuid, (void **)&bio)))
			continue;
		if (!bio->Media->MediaPresent || bio->Media->BlockSize == 0 ||
		    bio->Media->BlockSize > ER_PAGE_SIZE || (ER_PAGE_SIZE % bio->Media->BlockSize) != 0)
			continue;
		d->handle = handles[i];
		d->bio = bio;
		d->block_size = bio->Media->BlockSize;
		d->io_align = bio->Media->IoAlign;
		d->size = (bio->Media->LastBlock + 1) * (UINT64)bio->Media->BlockSize;
		d->partition = bio->Media->LogicalPartition;
		read_device_path(d);
		if (d->partition)
			read_partition_type(d);
		else
			d->scheme = ER_PART_NONE;  /* a whole disk carries the node of no partition */
		name_device(d, out);
		out++;
	}
	*devs = list;
	*count = out;
out:
	FreePool(handles);
	return err;
}

static EFI_STATUS check_io(const struct er_blockdev *d, UINT64 offset, const void *buf, UINTN len)
{
	if (offset % d->block_size || len % d->block_size)
		return EFI_INVALID_PARAMETER;
	if (d->io_align > 1 && ((UINTN)buf % d->io_align))
		return EFI_INVALID_PARAMETER;
	if (offset > d->size || len > d->size - offset)
		return EFI_END_OF_MEDIA;
	return EFI_SUCCESS;
}

EFI_STATUS er_blockdev_read(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len)
{
	EFI_STATUS err = check_io(d, offset, buf, len);
	if (EFI_ERROR(err))
		return log_error_status(err, L"%a: bad read of %lu bytes at %lu", d->id, (UINT64)len, offset);
	if (len == 0)
		return EFI_SUCCESS;
	if (d->ops)
		return d->ops->read(d, offset, buf, len, FALSE);
	err = d->bio->ReadBlocks(d->bio, d->bio->Media->MediaId, offset / d->block_size, len, buf);
	if (EFI_ERROR(err))
		return log_error_status(err, L"%a: read of %lu bytes at %lu failed", d->id, (UINT64)len, offset);
	return EFI_SUCCESS;
}

EFI_STATUS er_blockdev_probe(const struct er_blockdev *d, UINT64 offset, void *buf, UINTN len)
{
	if (EFI_ERROR(check_io(d, offset, buf, len)))
		return EFI_INVALID_PARAMETER;
	if (len == 0)
		return EFI_SUCCESS;
	if (d->ops)
		return d->ops->read(d, offset, buf, len, TRUE);
	return d->bio->ReadBlocks(d->bio, d->bio->Media->MediaId, offset / d->block_size, len, buf);
}

EFI_STATUS er_blockdev_probe_head(const struct er_blockdev *d, void *buf, UINTN max, UINTN least, UINTN *got)
{
	UINTN n = d->size < max ? (UINTN)d->size : max;
	n -= n % d->block_size;
	*got = 0;
	if (n < least)
		return EFI_END_OF_MEDIA;
	EFI_STATUS err = er_blockdev_probe(d, 0, buf, n);
	if (!EFI_ERROR(err))
		*got = n;
	return err;
}

EFI_STATUS er_blockdev_write(const struct er_blockdev *d, UINT64 offset, const void *buf, UINTN len)
{
	EFI_STATUS err = check_io(d, offset, buf, len);
	if (EFI_ERROR(err))
		return log_error_status(err, L"%a: bad write of %lu bytes at %lu", d->id, (UINT64)len, offset);
	if (len == 0)
		return EFI_SUCCESS;
	if (d->ops)
		return d->ops->write(d, offset, buf, len);
	err = d->bio->WriteBlocks(d->bio, d->bio->Media->MediaId, offset / d->block_size, len, (void *)buf);
	if (EFI_ERROR(err))
		return log_error_status(err, L"%a: write of %lu bytes at %lu failed", d->id, (UINT64)len, offset);
	err = d->bio->FlushBlocks(d->bio);
	if (EFI_ERROR(err))
		return log_error_status(err, L"%a: flush failed", d->id);
	return EFI_SUCCESS;
}
