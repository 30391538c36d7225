/* i386 hand-off: not written yet (issue 5). Until then an ia32 build refuses to hand
 * off, before committing anything, so the machine boots normally. */
#include "arch/handoff.h"

EFI_STATUS er_arch_prepare(struct er_handoff *h, er_safe_alloc_fn alloc, void *ctx)
{
	(void)h;
	(void)alloc;
	(void)ctx;
	return log_error_status(EFI_UNSUPPORTED, L"resuming on ia32 is not implemented yet");
}

void er_arch_after_exit(struct er_handoff *h, struct er_memmap *m)
{
	(void)h;
	(void)m;
}

void er_arch_jump(const struct er_handoff *h)
{
	(void)h;
	for (;;)
		__asm__ __volatile__("cli; hlt");
}
