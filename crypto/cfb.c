// SPDX-License-Identifier: GPL-2.0-or-later
/* AES-CFB-128: see cfb.h. */
#include "crypto/cfb.h"
#include "crypto/aes.h"
#include "crypto/wipe.h"

static bool cfb(const uint8_t *key, size_t keylen, const uint8_t iv[16], uint8_t *buf, size_t len, bool dec)
{
	uint8_t rk[(ER_AES_MAX_ROUNDS + 1) * 16];
	uint64_t bs[ER_AES_MAX_ROUNDS + 1][8];
	uint8_t fb[16], ks[16];
	uint32_t rounds;

	if (keylen != 16 && keylen != 32)
		return false;
	rounds = er_aes_expand_key(key, keylen, rk);
	er_aes_bs_keys(rk, rounds, bs);
	for (int i = 0; i < 16; i++)
		fb[i] = iv[i];
	for (size_t off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;
		er_aes_bs_encrypt((const uint64_t (*)[8])bs, rounds, fb, ks, 1);
		for (size_t i = 0; i < n; i++) {
			uint8_t c = dec ? buf[off + i] : (uint8_t)(buf[off + i] ^ ks[i]);
			buf[off + i] ^= ks[i];
			if (!dec)
				c = buf[off + i];
			fb[i] = c;
		}
	}
	er_wipe(rk, sizeof(rk));
	er_wipe(bs, sizeof(bs));
	er_wipe(fb, sizeof(fb));
	er_wipe(ks, sizeof(ks));
	return true;
}

bool er_aes_cfb_encrypt(const uint8_t *key, size_t keylen, const uint8_t iv[16], uint8_t *buf, size_t len)
{
	return cfb(key, keylen, iv, buf, len, false);
}

bool er_aes_cfb_decrypt(const uint8_t *key, size_t keylen, const uint8_t iv[16], uint8_t *buf, size_t len)
{
	return cfb(key, keylen, iv, buf, len, true);
}
