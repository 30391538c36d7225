// SPDX-License-Identifier: GPL-2.0-or-later
/* EFI_TCG2_PROTOCOL (TCG EFI Protocol Specification for TPM Family 2.0, rev. 1.0 v9; as
 * edk2 MdePkg/Include/Protocol/Tcg2Protocol.h declares it: gnu-efi has no declaration of
 * its own): the TPM 2.0 of the machine as a transport for tpm/unseal.c, its capabilities,
 * and where the firmware's TCG2 (crypto-agile) event log is. efi/tcg2.c. */
#ifndef EFIRESUME_EFI_TCG2_H
#define EFIRESUME_EFI_TCG2_H

#include "efi/efi.h"
#include "tpm/unseal.h"

#define ER_EFI_TCG2_PROTOCOL_GUID \
	{ 0x607f766c, 0x7455, 0x42be, { 0x93, 0x0b, 0xe4, 0xd7, 0x6d, 0xb2, 0x72, 0x0f } }

typedef struct {
	UINT8 Major;
	UINT8 Minor;
} ER_EFI_TCG2_VERSION;

/* EFI_TCG2_EVENT_ALGORITHM_BITMAP */
#define ER_TCG2_HASH_SHA1    0x00000001
#define ER_TCG2_HASH_SHA256  0x00000002
#define ER_TCG2_HASH_SHA384  0x00000004
#define ER_TCG2_HASH_SHA512  0x00000008
#define ER_TCG2_HASH_SM3_256 0x00000010
/* EFI_TCG2_EVENT_LOG_FORMAT */
#define ER_TCG2_LOG_FORMAT_TCG_1_2 0x00000001
#define ER_TCG2_LOG_FORMAT_TCG_2   0x00000002

/* EFI_TCG2_BOOT_SERVICE_CAPABILITY: natural alignment (not packed), 36 bytes */
typedef struct {
	UINT8 Size;
	ER_EFI_TCG2_VERSION StructureVersion;
	ER_EFI_TCG2_VERSION ProtocolVersion;
	UINT32 HashAlgorithmBitmap;
	UINT32 SupportedEventLogs;
	BOOLEAN TPMPresentFlag;
	UINT16 MaxCommandSize;
	UINT16 MaxResponseSize;
	UINT32 ManufacturerID;
	UINT32 NumberOfPCRBanks;
	UINT32 ActivePcrBanks;
} ER_EFI_TCG2_BOOT_SERVICE_CAPABILITY;

typedef struct er_efi_tcg2_protocol ER_EFI_TCG2_PROTOCOL;
struct er_efi_tcg2_protocol {
	EFI_STATUS(EFIAPI *GetCapability)(ER_EFI_TCG2_PROTOCOL *This, ER_EFI_TCG2_BOOT_SERVICE_CAPABILITY *Cap);
	EFI_STATUS(EFIAPI *GetEventLog)(ER_EFI_TCG2_PROTOCOL *This, UINT32 Format, EFI_PHYSICAL_ADDRESS *Location,
					EFI_PHYSICAL_ADDRESS *LastEntry, BOOLEAN *Truncated);
	EFI_STATUS(EFIAPI *HashLogExtendEvent)(ER_EFI_TCG2_PROTOCOL *This, UINT64 Flags, EFI_PHYSICAL_ADDRESS Data,
					       UINT64 DataLen, void *Event);
	EFI_STATUS(EFIAPI *SubmitCommand)(ER_EFI_TCG2_PROTOCOL *This, UINT32 InSize, UINT8 *In, UINT32 OutSize,
					  UINT8 *Out);
	EFI_STATUS(EFIAPI *GetActivePcrBanks)(ER_EFI_TCG2_PROTOCOL *This, UINT32 *Banks);
	EFI_STATUS(EFIAPI *SetActivePcrBanks)(ER_EFI_TCG2_PROTOCOL *This, UINT32 Banks);
	EFI_STATUS(EFIAPI *GetResultOfSetActivePcrBanks)(ER_EFI_TCG2_PROTOCOL *This, UINT32 *Present, UINT32 *Response);
};

/* The TPM of this boot, as the loader uses it (owned by the caller: loader/volumes.c). */
struct er_tcg2 {
	ER_EFI_TCG2_PROTOCOL *proto;
	ER_EFI_TCG2_BOOT_SERVICE_CAPABILITY caps;
	UINT32 active_banks;               /* ER_TCG2_HASH_* */
	struct er_tpm_io io;               /* SubmitCommand + EFI_RNG_PROTOCOL/RDRAND: for tpm/unseal.h */
	UINTN commands;                    /* SubmitCommand calls */
	BOOLEAN failed_logged;             /* one log line for a failing SubmitCommand */
};

/* Finds EFI_TCG2_PROTOCOL and asks its capabilities; one log line says what it found
 * ("TPM 2.0 via EFI_TCG2_PROTOCOL 1.1: PCR banks sha1+sha256 (active sha256), ..."). Quiet
 * EFI_NOT_FOUND when the firmware has no TCG2 protocol; EFI_NOT_READY (logged) when it
 * says no TPM is present. t is zeroed first; io is usable on EFI_SUCCESS only. */
EFI_STATUS er_tcg2_open(struct er_tcg2 *t);
/* Forgets the protocol (nothing to give back to the firmware). */
void er_tcg2_close(struct er_tcg2 *t);

/* The TCG2 event log (crypto-agile format, TCG PC Client Platform Firmware Profile 10.2):
 * its first byte and the start of its last entry, and whether the firmware truncated it.
 * For a later reader of the log (a parser belongs in tpm/, pure and fuzzed). EFI_NOT_FOUND
 * when there is none. */
EFI_STATUS er_tcg2_event_log(struct er_tcg2 *t, EFI_PHYSICAL_ADDRESS *first, EFI_PHYSICAL_ADDRESS *last,
			     BOOLEAN *truncated);

/* "sha1+sha256" for an ER_TCG2_HASH_* bitmap (buf of cap bytes) */
void er_tcg2_banks_text(UINT32 banks, char *buf, UINTN cap);

#endif
