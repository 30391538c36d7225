// SPDX-License-Identifier: GPL-2.0-or-later
/* the declarations kernel/power/power.h gets from the series (hibernate_auth.c) */
#include "kernel.h"
bool hibernation_key_present(void);
bool hibernation_key_protected(void);
void hibernation_key_wipe(void);
void hibernation_key_resumed(void);
phys_addr_t hibernation_key_page_phys(void);
bool hibernation_key_kexec_seen(void);
struct hib_enc;
struct hib_enc *hibernation_enc_begin(void);
int hibernation_enc_page(struct hib_enc *e, const void *buf, void **out);
void *hibernation_enc_tag_page(struct hib_enc *e, bool final);
void hibernation_enc_tag_page_done(struct hib_enc *e);
int hibernation_enc_finish(struct hib_enc *e, void *header, u64 image, u32 flags,
			   u32 hw_sig, u32 crc32, sector_t resume_block);
void hibernation_enc_free(struct hib_enc *e);
void hibernation_enc_unmark(void *header);
