// SPDX-License-Identifier: GPL-2.0-or-later
/* EFI_TCG2_PROTOCOL: the TPM 2.0 as a transport (SubmitCommand), its capabilities, its
 * event log; see tcg2.h. */
#include "efi/tcg2.h"
#include "efi/secboot.h"
#include "crypto/wipe.h"
#include "image/fmt.h"

void er_tcg2_banks_text(UINT32 banks, char *buf, UINTN cap)
{
	static const struct { UINT32 bit; const char *name; } names[] = {
		{ ER_TCG2_HASH_SHA1, "sha1" }, { ER_TCG2_HASH_SHA256, "sha256" }, { ER_TCG2_HASH_SHA384, "sha384" },
		{ ER_TCG2_HASH_SHA512, "sha512" }, { ER_TCG2_HASH_SM3_256, "sm3_256" },
	};
	UINTN n = 0;
	buf[0] = 0;
	for (UINTN i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (banks & names[i].bit)
			n += er_snprintf(buf + n, cap - n, "%s%s", n ? "+" : "", names[i].name);
	if (!n)
		er_snprintf(buf, cap, "none");
}

/* One command through SubmitCommand. The response's own size field must lie within what
 * the firmware could have written (cap) and hold at least a header. */
static bool submit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct er_tcg2 *t = ctx;
	EFI_STATUS err;
	UINT32 n;

	*rsp_len = 0;
	if (len < 10 || len > 0xFFFFFFFFu || cap < 10 || (t->caps.MaxCommandSize && len > t->caps.MaxCommandSize)) {
		log_warn(L"TPM: a command of %d bytes is not sent (the TPM takes at most %d)\n", (INTN)len,
			 (INTN)t->caps.MaxCommandSize);
		return false;
	}
	if (cap > 0xFFFFFFFFu)
		cap = 0xFFFFFFFFu;
	er_memset(rsp, 0, 10);
	t->commands++;
	err = t->proto->SubmitCommand(t->proto, (UINT32)len, (UINT8 *)cmd, (UINT32)cap, rsp);
	if (EFI_ERROR(err)) {
		if (!t->failed_logged)
			log_error_status(err, L"TPM: EFI_TCG2_PROTOCOL.SubmitCommand failed");
		t->failed_logged = TRUE;
		return false;
	}
	n = (UINT32)rsp[2] << 24 | (UINT32)rsp[3] << 16 | (UINT32)rsp[4] << 8 | rsp[5];
	if (n < 10 || n > cap) {
		log_warn(L"TPM: a response that says it has %d bytes (at most %d fit); refused\n", (INTN)n, (INTN)cap);
		er_wipe(rsp, cap);
		return false;
	}
	*rsp_len = n;
	return true;
}

/* EFI_RNG_PROTOCOL, XORed with RDRAND when the CPU has it (either alone is used alone);
 * neither: no randomness, nothing is unsealed (the TPM's own GetRandom crosses the bus
 * in clear, where an interposer reads the session's secrets out of it) */
static bool tcg2_random(void *ctx, uint8_t *buf, size_t n)
{
	UINT8 cpu[64];
	bool have_fw, have_cpu;
	(void)ctx;
	while (n) {
		UINTN k = n < sizeof(cpu) ? n : sizeof(cpu);
		have_fw = !EFI_ERROR(er_rng_firmware(buf, k));
		have_cpu = er_rng_cpu(cpu, k);
		if (!have_fw && !have_cpu) {
			log_warn(L"TPM: neither EFI_RNG_PROTOCOL nor RDRAND gives random numbers: no TPM session\n");
			return false;
		}
		for (UINTN i = 0; i < k; i++)
			buf[i] = have_fw ? (UINT8)(buf[i] ^ (have_cpu ? cpu[i] : 0)) : cpu[i];
		buf += k;
		n -= k;
	}
	er_wipe(cpu, sizeof(cpu));
	return true;
}

EFI_STATUS er_tcg2_open(struct er_tcg2 *t)
{
	EFI_GUID guid = ER_EFI_TCG2_PROTOCOL_GUID;
	EFI_STATUS err;
	char all[64], active[64];

	er_memset(t, 0, sizeof(*t));
	err = BS->LocateProtocol(&guid, NULL, (void **)&t->proto);
	if (EFI_ERROR(err) || !t->proto) {
		t->proto = NULL;
		return EFI_NOT_FOUND;
	}
	t->caps.Size = (UINT8)sizeof(t->caps);
	err = t->proto->GetCapability(t->proto, &t->caps);
	if (EFI_ERROR(err)) {
		t->proto = NULL;
		return log_error_status(err, L"TPM: EFI_TCG2_PROTOCOL.GetCapability failed");
	}
	if (!t->caps.TPMPresentFlag) {
		log_info(L"TPM: EFI_TCG2_PROTOCOL says no TPM is present\n");
		t->proto = NULL;
		return EFI_NOT_READY;
	}
	t->active_banks = t->caps.ActivePcrBanks;
	/* protocol 1.0 structures stop before ActivePcrBanks: ask for it (1.1 has it) */
	if (t->caps.Size < sizeof(t->caps) || !t->active_banks) {
		UINT32 b = 0;
		if (!EFI_ERROR(t->proto->GetActivePcrBanks(t->proto, &b)))
			t->active_banks = b;
	}
	er_tcg2_banks_text(t->caps.HashAlgorithmBitmap, all, sizeof(all));
	er_tcg2_banks_text(t->active_banks, active, sizeof(active));
	log_info(L"TPM 2.0 via EFI_TCG2_PROTOCOL %d.%d: PCR banks %a (active %a), commands up to %d bytes\n",
		 (INTN)t->caps.ProtocolVersion.Major, (INTN)t->caps.ProtocolVersion.Minor, all, active,
		 (INTN)t->caps.MaxCommandSize);
	t->io = (struct er_tpm_io){ t, submit, tcg2_random };
	return EFI_SUCCESS;
}

void er_tcg2_close(struct er_tcg2 *t)
{
	er_memset(t, 0, sizeof(*t));
}

EFI_STATUS er_tcg2_event_log(struct er_tcg2 *t, EFI_PHYSICAL_ADDRESS *first, EFI_PHYSICAL_ADDRESS *last,
			     BOOLEAN *truncated)
{
	EFI_STATUS err;

	*first = *last = 0;
	*truncated = FALSE;
	if (!t->proto || !(t->caps.SupportedEventLogs & ER_TCG2_LOG_FORMAT_TCG_2))
		return EFI_NOT_FOUND;
	err = t->proto->GetEventLog(t->proto, ER_TCG2_LOG_FORMAT_TCG_2, first, last, truncated);
	if (EFI_ERROR(err))
		return log_error_status(err, L"TPM: EFI_TCG2_PROTOCOL.GetEventLog failed");
	if (!*first)
		return EFI_NOT_FOUND;
	return EFI_SUCCESS;
}
