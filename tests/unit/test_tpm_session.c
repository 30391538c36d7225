// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for tpm/session.c and crypto/cfb.c, with OpenSSL as the oracle:
 *  - KDFa (SP 800-108 counter mode) recomputed with OpenSSL's HMAC-SHA256, several lengths;
 *  - KDFe recomputed with OpenSSL's SHA-256;
 *  - AES-128/256-CFB against EVP_aes_*_cfb128, every length 0..100, both ways;
 *  - the ECC salt: OpenSSL plays the TPM (its own P-256 key): it derives Z from our
 *    encryptedSalt point with ECDH (EVP_PKEY_derive) and KDFe, and gets our salt;
 *  - a command's HMAC and parameter encryption recomputed from the spec's formulas with
 *    OpenSSL (cpHash, KDFa "CFB" key/IV, AES-CFB), and a response built the TPM's way
 *    (rpHash, HMAC, encrypted parameter) accepted and decrypted, then refused with each of
 *    its bytes flipped in turn;
 *  - the RSA salt (crypto/rsa.c): OpenSSL's RSA keys (2048, 3072, 4096 bits) decrypt our
 *    OAEP-SHA-256 encryption with label "SECRET\0" back to the salt; the raw public
 *    operation equals OpenSSL's RSA_NO_PADDING; refusals (input >= n, even modulus, message
 *    too long). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/obj_mac.h>
#include <openssl/rsa.h>
#include <openssl/core_names.h>

#include "tpm/session.h"
#include "tpm/commands.h"
#include "crypto/cfb.h"
#include "crypto/p256.h"
#include "crypto/rsa.h"
#include "image/freestanding.h"

#include "codec_data.h"
#include "unhex.h"

static void rand_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

static void be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24); b[1] = (uint8_t)(v >> 16); b[2] = (uint8_t)(v >> 8); b[3] = (uint8_t)v;
}

/* KDFa by the letter of Part 1 11.4.10.2 with OpenSSL's HMAC */
static void ossl_kdfa(const uint8_t *k, size_t kl, const char *label, const uint8_t *u, size_t ul,
		      const uint8_t *v, size_t vl, uint8_t *out, size_t bits)
{
	uint8_t in[512], blk[32];
	size_t done = 0;
	for (uint32_t i = 1; done < bits / 8; i++) {
		size_t n = 0;
		unsigned ml = 32;
		be32(in, i); n = 4;
		memcpy(in + n, label, strlen(label) + 1); n += strlen(label) + 1;
		memcpy(in + n, u, ul); n += ul;
		memcpy(in + n, v, vl); n += vl;
		be32(in + n, (uint32_t)bits); n += 4;
		assert_non_null(HMAC(EVP_sha256(), k, (int)kl, in, n, blk, &ml));
		size_t take = bits / 8 - done < 32 ? bits / 8 - done : 32;
		memcpy(out + done, blk, take);
		done += take;
	}
}

static void ossl_kdfe(const uint8_t *z, size_t zl, const char *label, const uint8_t *u, size_t ul,
		      const uint8_t *v, size_t vl, uint8_t *out, size_t bits)
{
	uint8_t in[512], blk[32];
	size_t done = 0;
	for (uint32_t i = 1; done < bits / 8; i++) {
		size_t n = 0;
		be32(in, i); n = 4;
		memcpy(in + n, z, zl); n += zl;
		memcpy(in + n, label, strlen(label) + 1); n += strlen(label) + 1;
		memcpy(in + n, u, ul); n += ul;
		memcpy(in + n, v, vl); n += vl;
		SHA256(in, n, blk);
		size_t take = bits / 8 - done < 32 ? bits / 8 - done : 32;
		memcpy(out + done, blk, take);
		done += take;
	}
}

static void ossl_cfb(const uint8_t *key, size_t kl, const uint8_t iv[16], uint8_t *buf, size_t n, int enc)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int ol = 0, fl = 0;
	uint8_t *o = malloc(n + 16);
	assert_int_equal(EVP_CipherInit_ex(c, kl == 16 ? EVP_aes_128_cfb128() : EVP_aes_256_cfb128(), NULL, key, iv, enc), 1);
	assert_int_equal(EVP_CipherUpdate(c, o, &ol, buf, (int)n), 1);
	assert_int_equal(EVP_CipherFinal_ex(c, o + ol, &fl), 1);
	assert_int_equal((size_t)(ol + fl), n);
	memcpy(buf, o, n);
	free(o);
	EVP_CIPHER_CTX_free(c);
}

static void test_kdfa_kdfe(void **state)
{
	uint8_t k[64], u[32], v[32], a[160], b[160];
	static const size_t bits[] = { 8, 128, 256, 264, 384, 512, 1024 };
	(void)state;
	rng_seed(25);
	for (int it = 0; it < 50; it++) {
		size_t kl = rng() % 65, ul = rng() % 33, vl = rng() % 33, bl = bits[it % 7];
		const char *label = (it & 1) ? "ATH" : "CFB";
		rand_bytes(k, kl); rand_bytes(u, ul); rand_bytes(v, vl);
		er_tpm_kdfa(k, kl, label, u, ul, v, vl, a, bl);
		ossl_kdfa(k, kl, label, u, ul, v, vl, b, bl);
		assert_memory_equal(a, b, bl / 8);
		er_tpm_kdfe(k, kl, "SECRET", u, ul, v, vl, a, bl);
		ossl_kdfe(k, kl, "SECRET", u, ul, v, vl, b, bl);
		assert_memory_equal(a, b, bl / 8);
	}
}

static void test_cfb(void **state)
{
	uint8_t key[32], iv[16], p[100], a[100], b[100];
	(void)state;
	rng_seed(26);
	for (size_t kl = 16; kl <= 32; kl += 16)
		for (size_t n = 0; n <= 100; n++) {
			rand_bytes(key, kl); rand_bytes(iv, 16); rand_bytes(p, n);
			memcpy(a, p, n); memcpy(b, p, n);
			assert_true(er_aes_cfb_encrypt(key, kl, iv, a, n));
			if (n)
				ossl_cfb(key, kl, iv, b, n, 1);
			assert_memory_equal(a, b, n);
			assert_true(er_aes_cfb_decrypt(key, kl, iv, a, n));
			assert_memory_equal(a, p, n);
		}
	assert_false(er_aes_cfb_encrypt(key, 24, iv, a, 16));
}

/* OpenSSL as the TPM: its key pair, and ECDH with our ephemeral point */
static void test_salt_vs_openssl_tpm(void **state)
{
	(void)state;
	rng_seed(29);
	for (int it = 0; it < 20; it++) {
		EVP_PKEY *tpm = EVP_EC_gen("P-256");
		BIGNUM *x = NULL, *y = NULL;
		uint8_t tpm_pub[64], eph[32], salt[32], enc[68], z[32], want[32];
		size_t zl = sizeof(z);

		assert_non_null(tpm);
		assert_int_equal(EVP_PKEY_get_bn_param(tpm, "qx", &x), 1);
		assert_int_equal(EVP_PKEY_get_bn_param(tpm, "qy", &y), 1);
		BN_bn2binpad(x, tpm_pub, 32);
		BN_bn2binpad(y, tpm_pub + 32, 32);
		do
			rand_bytes(eph, 32);
		while (!er_tpm_salt_ecc(tpm_pub, eph, salt, enc));
		assert_int_equal(enc[0], 0); assert_int_equal(enc[1], 32);
		assert_int_equal(enc[34], 0); assert_int_equal(enc[35], 32);

		/* the TPM side: peer = our ephemeral point, from enc */
		uint8_t pt[65] = { 0x04 };
		memcpy(pt + 1, enc + 2, 32);
		memcpy(pt + 33, enc + 36, 32);
		EVP_PKEY_CTX *pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
		EVP_PKEY *peer = NULL;
		OSSL_PARAM params[3];
		params[0] = OSSL_PARAM_construct_utf8_string("group", (char *)"P-256", 0);
		params[1] = OSSL_PARAM_construct_octet_string("pub", pt, sizeof(pt));
		params[2] = OSSL_PARAM_construct_end();
		assert_int_equal(EVP_PKEY_fromdata_init(pc), 1);
		assert_int_equal(EVP_PKEY_fromdata(pc, &peer, EVP_PKEY_PUBLIC_KEY, params), 1);
		EVP_PKEY_CTX *dc = EVP_PKEY_CTX_new(tpm, NULL);
		assert_int_equal(EVP_PKEY_derive_init(dc), 1);
		assert_int_equal(EVP_PKEY_derive_set_peer(dc, peer), 1);
		assert_int_equal(EVP_PKEY_derive(dc, z, &zl), 1);
		assert_int_equal(zl, 32);
		ossl_kdfe(z, 32, "SECRET", enc + 2, 32, tpm_pub, 32, want, 256);
		assert_memory_equal(salt, want, 32);

		EVP_PKEY_CTX_free(dc); EVP_PKEY_CTX_free(pc); EVP_PKEY_free(peer); EVP_PKEY_free(tpm);
		BN_free(x); BN_free(y);
	}
}

static void test_command_hmac_and_encryption(void **state)
{
	struct er_tpm_session s;
	struct er_tpm_session *ss[1] = { &s };
	struct er_tpm_cmd c;
	uint8_t nonce_tpm[32], nonce_caller[32], key[32], salt[32], rnd[32 * 3], secret[40];
	uint8_t cp[32], kiv[32], mac[32], in[512], priv[40], pub[60], name[34];
	unsigned ml = 32;
	size_t n;
	(void)state;
	rng_seed(27);
	rand_bytes(nonce_tpm, 32); rand_bytes(nonce_caller, 32); rand_bytes(salt, 32);
	rand_bytes(priv, sizeof(priv)); rand_bytes(pub, sizeof(pub)); rand_bytes(name, 34);
	rand_bytes(rnd, sizeof(rnd)); rand_bytes(secret, sizeof(secret));
	/* a session as StartAuthSession leaves it */
	memset(&s, 0, sizeof(s));
	s.handle = 0x02000000; s.type = TPM2_SE_HMAC;
	s.sym.alg = TPM2_ALG_AES; s.sym.bits = 128; s.sym.mode = TPM2_ALG_CFB;
	s.nonce_len = 32;
	memcpy(s.nonce_tpm, nonce_tpm, 32);
	memcpy(s.nonce_caller, nonce_caller, 32);
	uint8_t rsp_start[] = { 0x80, 0x01, 0, 0, 0, 48, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 32 };
	uint8_t rs[48];
	memcpy(rs, rsp_start, 16);
	memcpy(rs + 16, nonce_tpm, 32);
	assert_int_equal(er_tpm_rsp_start_auth_session(rs, sizeof(rs), &s, salt, 32), 0);
	ossl_kdfa(salt, 32, "ATH", nonce_tpm, 32, nonce_caller, 32, key, 256);
	assert_memory_equal(s.key, key, 32);

	/* Load(parent, priv, pub) with DECRYPT: the first parameter (inPrivate) is encrypted */
	er_tpm_cmd_load(&c, 0x81000001, name, 34, priv, sizeof(priv), pub, sizeof(pub));
	er_tpm_cmd_use_session(&c, &s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT);
	assert_true(er_tpm_cmd_seal_sessions(&c, ss, rnd, sizeof(rnd)));
	assert_memory_equal(s.nonce_caller, rnd, 32);
	/* the oracle: KDFa(sessionKey, "CFB", nonceCaller, nonceTPM, 256) = key || iv */
	ossl_kdfa(key, 32, "CFB", rnd, 32, nonce_tpm, 32, kiv, 256);
	uint8_t enc_priv[40];
	memcpy(enc_priv, priv, 40);
	ossl_cfb(kiv, 16, kiv + 16, enc_priv, 40, 1);
	assert_memory_equal(c.params + 2, enc_priv, 40);
	assert_memory_equal(c.params + 44, pub, 60);
	/* cpHash = SHA256(cc || parent Name || params); HMAC(key, cpHash || nonceCaller || nonceTPM || attrs) */
	n = 0;
	be32(in, TPM2_CC_Load); n = 4;
	memcpy(in + n, name, 34); n += 34;
	memcpy(in + n, c.params, c.pw.len); n += c.pw.len;
	SHA256(in, n, cp);
	n = 0;
	memcpy(in, cp, 32); n = 32;
	memcpy(in + n, rnd, 32); n += 32;
	memcpy(in + n, nonce_tpm, 32); n += 32;
	in[n++] = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT;
	HMAC(EVP_sha256(), key, 32, in, n, mac, &ml);
	assert_int_equal(c.auth[0].hmac_len, 32);
	assert_memory_equal(c.auth[0].hmac, mac, 32);
	assert_memory_equal(c.auth[0].nonce, rnd, 32);

	/* the TPM's answer to an Unseal with ENCRYPT: outData encrypted with
	 * KDFa(key, "CFB", nonceTPM', nonceCaller), rpHash = SHA256(0 || cc || params) */
	uint8_t ntpm2[32], rsp[256], params[2 + 40];
	size_t rl = 0, pl;
	rand_bytes(ntpm2, 32);
	er_tpm_cmd_unseal(&c, 0x80000001, name, 34);
	er_tpm_cmd_use_session(&c, &s, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT);
	assert_true(er_tpm_cmd_seal_sessions(&c, ss, rnd + 32, 64));
	params[0] = 0; params[1] = 40;
	memcpy(params + 2, secret, 40);
	ossl_kdfa(key, 32, "CFB", ntpm2, 32, rnd + 32, 32, kiv, 256);
	ossl_cfb(kiv, 16, kiv + 16, params + 2, 40, 1);
	pl = sizeof(params);
	n = 0;
	be32(in, 0); be32(in + 4, TPM2_CC_Unseal); n = 8;
	memcpy(in + n, params, pl); n += pl;
	SHA256(in, n, cp);
	memcpy(in, cp, 32); n = 32;
	memcpy(in + n, ntpm2, 32); n += 32;
	memcpy(in + n, rnd + 32, 32); n += 32;
	in[n++] = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT;
	HMAC(EVP_sha256(), key, 32, in, n, mac, &ml);
	rl = 0;
	rsp[rl++] = 0x80; rsp[rl++] = 0x02;
	rl += 4;                                       /* size below */
	be32(rsp + rl, 0); rl += 4;
	be32(rsp + rl, (uint32_t)pl); rl += 4;
	memcpy(rsp + rl, params, pl); rl += pl;
	rsp[rl++] = 0; rsp[rl++] = 32; memcpy(rsp + rl, ntpm2, 32); rl += 32;
	rsp[rl++] = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_ENCRYPT;
	rsp[rl++] = 0; rsp[rl++] = 32; memcpy(rsp + rl, mac, 32); rl += 32;
	be32(rsp + 2, (uint32_t)rl);

	/* every flipped byte is refused (or, for the header, read as malformed) */
	struct er_tpm_session keep = s;
	for (size_t i = 0; i < rl; i++) {
		uint8_t t[256];
		struct er_tpm_rsp r;
		memcpy(t, rsp, rl);
		t[i] ^= 0x01;
		s = keep;
		assert_int_not_equal(er_tpm_rsp_sessions(&c, ss, t, rl, &r), 0);
	}
	s = keep;
	{
		struct er_tpm_rsp r;
		uint8_t out[64];
		size_t on;
		assert_int_equal(er_tpm_rsp_sessions(&c, ss, rsp, rl, &r), 0);
		assert_true(er_tpm_rsp_unseal(&r, out, sizeof(out), &on));
		assert_int_equal(on, 40);
		assert_memory_equal(out, secret, 40);
		assert_memory_equal(s.nonce_tpm, ntpm2, 32);          /* nonce rolled */
	}
	/* a DECRYPT on a command whose first parameter is no TPM2B (none): refused */
	er_tpm_cmd_unseal(&c, 0x80000001, name, 34);
	er_tpm_cmd_use_session(&c, &s, TPMA_SESSION_DECRYPT);
	assert_false(er_tpm_cmd_seal_sessions(&c, ss, rnd, 32));
	/* too few random bytes */
	er_tpm_cmd_unseal(&c, 0x80000001, name, 34);
	er_tpm_cmd_use_session(&c, &s, 0);
	assert_false(er_tpm_cmd_seal_sessions(&c, ss, rnd, 31));
	er_tpm_session_wipe(&s);
	uint8_t zero[sizeof(s)] = { 0 };
	assert_memory_equal(&s, zero, sizeof(s));
}

/* PolicyPCR's digest: SHA256(old || cc || pcrs || pcrDigest) */
static void test_policy_pcr_digest(void **state)
{
	struct er_tpm_pcr_selection sel;
	uint8_t d[32] = { 0 }, vh[32], in[128], want[32];
	size_t n;
	(void)state;
	rng_seed(28);
	rand_bytes(vh, 32);
	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, 1u << 7);
	er_tpm_policy_pcr_update(d, &sel, vh);
	memset(in, 0, 32);
	n = 32;
	n += unhex("0000017f" "00000001" "000b" "03" "800000", in + n, 64);
	memcpy(in + n, vh, 32); n += 32;
	SHA256(in, n, want);
	assert_memory_equal(d, want, 32);
}

static void test_rsa_salt_vs_openssl(void **state)
{
	static const int sizes[] = { 2048, 2048, 2048, 3072, 4096 };
	(void)state;
	rng_seed(30);
	for (size_t it = 0; it < sizeof(sizes) / sizeof(sizes[0]); it++) {
		EVP_PKEY *k = EVP_RSA_gen((unsigned)sizes[it]);
		BIGNUM *bn = NULL, *be = NULL;
		uint8_t n[512], rnd[64], salt[32], enc[512], dec[512], raw[512], o1[512], o2[512];
		size_t nl = (size_t)sizes[it] / 8, dl = sizeof(dec);
		unsigned long e;

		assert_non_null(k);
		assert_int_equal(EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_N, &bn), 1);
		assert_int_equal(EVP_PKEY_get_bn_param(k, OSSL_PKEY_PARAM_RSA_E, &be), 1);
		assert_int_equal(BN_bn2binpad(bn, n, (int)nl), (int)nl);
		e = BN_get_word(be);
		rand_bytes(rnd, 64);
		assert_true(er_tpm_salt_rsa(n, nl, (uint32_t)e, rnd, salt, enc));
		assert_memory_equal(salt, rnd, 32);
		/* OpenSSL (the TPM) decrypts it */
		EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(k, NULL);
		char *label = OPENSSL_malloc(7);
		memcpy(label, "SECRET", 7);
		assert_int_equal(EVP_PKEY_decrypt_init(c), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_OAEP_PADDING), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_oaep_md(c, EVP_sha256()), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_mgf1_md(c, EVP_sha256()), 1);
		assert_int_equal(EVP_PKEY_CTX_set0_rsa_oaep_label(c, label, 7), 1);
		assert_int_equal(EVP_PKEY_decrypt(c, dec, &dl, enc, nl), 1);
		assert_int_equal(dl, 32);
		assert_memory_equal(dec, salt, 32);
		EVP_PKEY_CTX_free(c);
		/* the raw operation against RSA_NO_PADDING */
		rand_bytes(raw, nl);
		raw[0] = 0;
		assert_true(er_rsa_public(n, nl, (uint32_t)e, raw, o1));
		c = EVP_PKEY_CTX_new(k, NULL);
		dl = sizeof(o2);
		assert_int_equal(EVP_PKEY_encrypt_init(c), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(c, RSA_NO_PADDING), 1);
		assert_int_equal(EVP_PKEY_encrypt(c, o2, &dl, raw, nl), 1);
		assert_int_equal(dl, nl);
		assert_memory_equal(o1, o2, nl);
		EVP_PKEY_CTX_free(c);
		/* refusals */
		assert_false(er_rsa_public(n, nl, (uint32_t)e, n, o1));           /* in == n */
		memcpy(raw, n, nl);
		raw[nl - 1] ^= 1;                                                   /* even modulus */
		assert_false(er_rsa_public(raw, nl, (uint32_t)e, o2, o1));
		assert_false(er_rsa_oaep_sha256_encrypt(n, nl, (uint32_t)e, NULL, 0, raw, nl - 65, rnd, o1));
		assert_true(er_rsa_oaep_sha256_encrypt(n, nl, (uint32_t)e, NULL, 0, raw, nl - 66, rnd, o1));
		BN_free(bn); BN_free(be);
		EVP_PKEY_free(k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kdfa_kdfe),
		cmocka_unit_test(test_cfb),
		cmocka_unit_test(test_salt_vs_openssl_tpm),
		cmocka_unit_test(test_command_hmac_and_encryption),
		cmocka_unit_test(test_policy_pcr_digest),
		cmocka_unit_test(test_rsa_salt_vs_openssl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
