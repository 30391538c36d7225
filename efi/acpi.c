// SPDX-License-Identifier: GPL-2.0-or-later
/* ACPI facts the resume needs: FACS hardware signature, ACPI mode; and the CPU count. */
#include "efi/efi.h"

static EFI_GUID acpi20_guid = { 0x8868e871, 0xe4f1, 0x11d3, { 0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
static EFI_GUID acpi10_guid = { 0xeb9d2d30, 0x2d88, 0x11d3, { 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };

static const UINT8 *phys(UINT64 a)
{
	if (a == 0 || a != (UINTN)a)
		return NULL;   /* not reachable from this loader (ia32 and tables above 4 GiB) */
	return (const UINT8 *)(UINTN)a;
}

static const UINT8 *find_rsdp(void)
{
	const UINT8 *r10 = NULL;
	for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];
		if (CompareGuid(&t->VendorGuid, &acpi20_guid) == 0)
			return t->VendorTable;
		if (CompareGuid(&t->VendorGuid, &acpi10_guid) == 0)
			r10 = t->VendorTable;
	}
	return r10;
}

/* FADT, found through the XSDT (or RSDT). */
static const UINT8 *find_fadt(void)
{
	const UINT8 *rsdp = find_rsdp(), *sdt;
	UINT32 len, entry;
	if (!rsdp || er_memcmp(rsdp, "RSD PTR ", 8) != 0)
		return NULL;
	if (rsdp[15] >= 2 && er_le64(rsdp + 24)) {
		sdt = phys(er_le64(rsdp + 24));
		entry = 8;
	} else {
		sdt = phys(er_le32(rsdp + 16));
		entry = 4;
	}
	if (!sdt)
		return NULL;
	len = er_le32(sdt + 4);
	if (len < 36 || len > (1u << 20))
		return NULL;
	for (UINT32 off = 36; off + entry <= len; off += entry) {
		const UINT8 *t = phys(entry == 8 ? er_le64(sdt + off) : er_le32(sdt + off));
		if (t && er_memcmp(t, "FACP", 4) == 0)
			return t;
	}
	return NULL;
}

BOOLEAN er_acpi_hw_signature(UINT32 *sig)
{
	const UINT8 *fadt = find_fadt(), *facs = NULL;
	if (!fadt)
		return FALSE;
	UINT32 len = er_le32(fadt + 4);
	if (len >= 140 && er_le64(fadt + 132))
		facs = phys(er_le64(fadt + 132));
	if (!facs)
		facs = phys(er_le32(fadt + 36));
	if (!facs || er_memcmp(facs, "FACS", 4) != 0)
		return FALSE;
	*sig = er_le32(facs + 8);
	return TRUE;
}

static inline UINT16 inw(UINT16 port)
{
	UINT16 v;
	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(UINT8 v, UINT16 port)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

void er_acpi_mode_facts(struct er_acpi_mode *f)
{
	const UINT8 *fadt = find_fadt();
	er_memset(f, 0, sizeof(*f));
	if (!fadt || er_le32(fadt + 4) < 68)
		return;
	UINT32 smi_cmd = er_le32(fadt + 48), pm1a = er_le32(fadt + 64);
	if (pm1a == 0 || pm1a > 0xffff)
		return;
	f->valid = TRUE;
	f->pm1a_cnt = (UINT16)pm1a;
	f->smi_cmd = smi_cmd <= 0xffff ? (UINT16)smi_cmd : 0;
	f->acpi_enable = fadt[52];
	f->sci_en = (inw(f->pm1a_cnt) & 1) != 0;
}

int er_acpi_enable(const struct er_acpi_mode *f)
{
	if (!f->valid)
		return -1;
	if (inw(f->pm1a_cnt) & 1)
		return 0;       /* SCI_EN: already in ACPI mode */
	if (f->smi_cmd == 0 || f->acpi_enable == 0)
		return -1;
	outb(f->acpi_enable, f->smi_cmd);
	for (int i = 0; i < 3000000; i++)
		if (inw(f->pm1a_cnt) & 1)
			return 1;
	return -1;
}

/* EFI_MP_SERVICES_PROTOCOL (PI spec, volume 2) */
static EFI_GUID mp_guid = { 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } };
struct mp_services {
	EFI_STATUS(EFIAPI *GetNumberOfProcessors)(struct mp_services *This, UINTN *total, UINTN *enabled);
	EFI_STATUS(EFIAPI *GetProcessorInfo)(struct mp_services *This, UINTN cpu, void *info);
	EFI_STATUS(EFIAPI *StartupAllAPs)(void);
	EFI_STATUS(EFIAPI *StartupThisAP)(struct mp_services *This, er_ap_procedure proc, UINTN cpu, EFI_EVENT wait,
					  UINTN timeout_us, void *arg, BOOLEAN *finished);
	EFI_STATUS(EFIAPI *SwitchBSP)(void);
	EFI_STATUS(EFIAPI *EnableDisableAP)(void);
	EFI_STATUS(EFIAPI *WhoAmI)(struct mp_services *This, UINTN *cpu);
};

static struct mp_services *mp_protocol(void)
{
	struct mp_services *mp = NULL;
	if (EFI_ERROR(BS->LocateProtocol(&mp_guid, NULL, (void **)&mp)))
		return NULL;
	return mp;
}

UINTN er_cpu_count(void)
{
	struct mp_services *mp = mp_protocol();
	UINTN total = 0, enabled = 0;
	if (!mp || EFI_ERROR(mp->GetNumberOfProcessors(mp, &total, &enabled)) || enabled == 0)
		return 1;
	return enabled;
}

EFI_STATUS er_mp_start(er_ap_procedure proc, void *arg, struct er_mp_job *job)
{
	struct mp_services *mp = mp_protocol();
	UINTN total = 0, enabled = 0, self = 0;
	EFI_STATUS err;

	job->event = NULL;
	if (!mp || EFI_ERROR(mp->GetNumberOfProcessors(mp, &total, &enabled)) || enabled < 2 ||
	    EFI_ERROR(mp->WhoAmI(mp, &self)))
		return EFI_UNSUPPORTED;
	err = BS->CreateEvent(0, 0, NULL, NULL, &job->event);
	if (EFI_ERROR(err))
		return err;
	for (UINTN cpu = 0; cpu < total; cpu++) {
		UINT8 info[64];   /* EFI_PROCESSOR_INFORMATION: StatusFlag at offset 8 */
		if (cpu == self || EFI_ERROR(mp->GetProcessorInfo(mp, cpu, info)))
			continue;
		UINT32 status = er_le32(info + 8);
		if ((status & 0x6) != 0x6)   /* PROCESSOR_ENABLED_BIT | PROCESSOR_HEALTH_STATUS_BIT */
			continue;
		err = mp->StartupThisAP(mp, proc, cpu, job->event, 0, arg, NULL);
		if (!EFI_ERROR(err)) {
			job->cpu = cpu;
			return EFI_SUCCESS;
		}
	}
	BS->CloseEvent(job->event);
	job->event = NULL;
	return EFI_NOT_READY;
}

EFI_STATUS er_mp_wait(struct er_mp_job *job, UINTN timeout_ms)
{
	EFI_STATUS err = EFI_TIMEOUT;
	if (!job->event)
		return EFI_SUCCESS;
	for (UINTN t = 0; t <= timeout_ms; t++) {
		if (!EFI_ERROR(BS->CheckEvent(job->event))) {
			err = EFI_SUCCESS;
			break;
		}
		BS->Stall(1000);
	}
	/* on a timeout the event stays open (leaked): the firmware signals it when the CPU
	 * returns, however late, and a closed event must not be signalled */
	if (!EFI_ERROR(err))
		BS->CloseEvent(job->event);
	job->event = NULL;
	return err;
}
