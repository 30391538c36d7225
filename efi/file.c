// SPDX-License-Identifier: GPL-2.0-or-later
/* Files on the volume efiresume was loaded from. */
#include "efi/efi.h"

static EFI_STATUS open_root(EFI_FILE_HANDLE *root)
{
	EFI_SIMPLE_FILE_SYSTEM_PROTOCOL *fs;
	EFI_STATUS err;

	err = BS->HandleProtocol(er_loaded_image->DeviceHandle, &gEfiSimpleFileSystemProtocolGuid, (void **)&fs);
	if (EFI_ERROR(err))
		return log_error_status(err, L"the boot volume has no file system");
	err = fs->OpenVolume(fs, root);
	if (EFI_ERROR(err))
		return log_error_status(err, L"cannot open the boot volume");
	return EFI_SUCCESS;
}

EFI_STATUS er_self_dir(CHAR16 **out)
{
	EFI_DEVICE_PATH *dp = er_loaded_image->FilePath;
	CHAR16 *buf;
	UINTN len = 0, cap = 512;
	EFI_STATUS err;

	err = er_alloc(cap * sizeof(CHAR16), (void **)&buf);
	if (EFI_ERROR(err))
		return err;
	/* concatenate the file path nodes: "\EFI\BOOT" + "\BOOTX64.EFI" or one node with all */
	for (; dp && !IsDevicePathEnd(dp); dp = NextDevicePathNode(dp)) {
		if (DevicePathType(dp) != MEDIA_DEVICE_PATH || DevicePathSubType(dp) != MEDIA_FILEPATH_DP)
			continue;
		const CHAR16 *name = ((FILEPATH_DEVICE_PATH *)dp)->PathName;
		UINTN n = (DevicePathNodeLength(dp) - 4) / sizeof(CHAR16);
		if (len > 0 && buf[len - 1] != L'\\' && n > 0 && name[0] != L'\\' && len + 1 < cap)
			buf[len++] = L'\\';
		for (UINTN i = 0; i < n && name[i] && len + 1 < cap; i++)
			buf[len++] = name[i] == L'/' ? L'\\' : name[i];
	}
	buf[len] = 0;
	/* strip the file name */
	while (len > 0 && buf[len - 1] != L'\\')
		len--;
	while (len > 0 && buf[len - 1] == L'\\')
		len--;
	buf[len] = 0;
	*out = buf;
	return EFI_SUCCESS;
}

EFI_STATUS er_read_file(const CHAR16 *path, UINTN max_size, char **data, UINTN *size)
{
	EFI_FILE_HANDLE root = NULL, f = NULL;
	EFI_FILE_INFO *info = NULL;
	char *buf = NULL;
	UINTN n;
	EFI_STATUS err;

	*data = NULL;
	*size = 0;
	err = open_root(&root);
	if (EFI_ERROR(err))
		return err;
	err = root->Open(root, &f, (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (err == EFI_NOT_FOUND)
		goto out_root;
	if (EFI_ERROR(err)) {
		log_error_status(err, L"cannot open %s", path);
		goto out_root;
	}
	info = LibFileInfo(f);
	if (!info) {
		err = log_error_status(EFI_DEVICE_ERROR, L"cannot read the size of %s", path);
		goto out_file;
	}
	if (info->FileSize > max_size) {
		err = log_error_status(EFI_BAD_BUFFER_SIZE, L"%s is larger than %lu bytes", path, (UINT64)max_size);
		goto out_info;
	}
	n = (UINTN)info->FileSize;
	err = er_alloc(n + 1, (void **)&buf);
	if (EFI_ERROR(err))
		goto out_info;
	err = f->Read(f, &n, buf);
	if (EFI_ERROR(err)) {
		log_error_status(err, L"cannot read %s", path);
		er_free(buf);
		goto out_info;
	}
	buf[n] = 0;
	*data = buf;
	*size = n;
out_info:
	FreePool(info);
out_file:
	f->Close(f);
out_root:
	root->Close(root);
	return err;
}

BOOLEAN er_file_exists(const CHAR16 *path)
{
	EFI_FILE_HANDLE root = NULL, f = NULL;
	if (EFI_ERROR(open_root(&root)))
		return FALSE;
	EFI_STATUS err = root->Open(root, &f, (CHAR16 *)path, EFI_FILE_MODE_READ, 0);
	if (!EFI_ERROR(err))
		f->Close(f);
	root->Close(root);
	return !EFI_ERROR(err);
}

EFI_STATUS er_self_file(const char *name, CHAR16 **out)
{
	CHAR16 *dir = NULL, *path = NULL;
	EFI_STATUS err = er_self_dir(&dir);
	if (EFI_ERROR(err))
		return err;
	UINTN dl = StrLen(dir), nl = er_strnlen(name, 256);
	err = er_alloc((dl + 1 + nl + 1) * sizeof(CHAR16), (void **)&path);
	if (!EFI_ERROR(err)) {
		er_memcpy(path, dir, dl * sizeof(CHAR16));
		path[dl] = L'\\';
		for (UINTN i = 0; i < nl; i++)
			path[dl + 1 + i] = (CHAR16)(UINT8)name[i];
		path[dl + 1 + nl] = 0;
		*out = path;
	}
	er_free(dir);
	return err;
}
