// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for tpm/marshal.c and tpm/commands.c: command bytes against Part 3 layouts
 * written out by hand; the writer's and reader's sticky bounds; the response reader's
 * refusals (size field past the buffer or below 10, bad tag, an error response with a body,
 * sessions missing or extra, trailing bytes, a TPM2B past the end); TPM_RC decoding
 * (LOCKOUT, AUTH_FAIL, BAD_AUTH, POLICY_FAIL with their session/handle/parameter numbers,
 * warnings, layers) and its log line; parsers refusing cut responses at every length. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tpm/marshal.h"
#include "tpm/commands.h"
#include "image/freestanding.h"

#include "unhex.h"

static void test_writer_bounds(void **state)
{
	uint8_t b[6];
	struct er_tpm_wr w;
	(void)state;
	er_tpm_wr_init(&w, b, sizeof(b));
	er_tpm_put_u32(&w, 0x01020304);
	assert_false(w.err);
	er_tpm_put_u32(&w, 5);                  /* does not fit */
	assert_true(w.err);
	assert_int_equal(w.len, 4);
	er_tpm_put_u8(&w, 1);                   /* sticky */
	assert_int_equal(w.len, 4);
	er_tpm_wr_init(&w, b, sizeof(b));
	er_tpm_put_tpm2b(&w, "abcd", 4);
	assert_false(w.err);
	assert_memory_equal(b, "\x00\x04" "abcd", 6);
	er_tpm_wr_init(&w, b, sizeof(b));
	er_tpm_put_tpm2b(&w, b, 0x10000);       /* over a u16 */
	assert_true(w.err);
}

static void test_reader_bounds(void **state)
{
	static const uint8_t d[] = { 0x00, 0x03, 'a', 'b', 'c', 0x00, 0x05, 'x' };
	struct er_tpm_rd r;
	const uint8_t *p;
	size_t n;
	(void)state;
	er_tpm_rd_init(&r, d, sizeof(d));
	assert_true(er_tpm_get_tpm2b(&r, &p, &n, 16));
	assert_int_equal(n, 3);
	assert_memory_equal(p, "abc", 3);
	assert_false(er_tpm_get_tpm2b(&r, &p, &n, 16));  /* 5 bytes claimed, 1 there */
	assert_true(r.err);
	assert_null(p);
	assert_int_equal(er_tpm_get_u32(&r), 0);          /* sticky */
	er_tpm_rd_init(&r, d, sizeof(d));
	assert_false(er_tpm_get_tpm2b(&r, &p, &n, 2));    /* above max */
	er_tpm_rd_init(&r, d, 1);
	assert_int_equal(er_tpm_get_u16(&r), 0);
	assert_true(r.err);
}

static void test_command_bytes(void **state)
{
	struct er_tpm_cmd c;
	struct er_tpm_pcr_selection sel;
	uint8_t out[256], want[256];
	size_t n, wn;
	(void)state;
	/* GetCapability(TPM_CAP_HANDLES, 0x81000000, 64) */
	er_tpm_cmd_get_capability(&c, TPM2_CAP_HANDLES, 0x81000000, 64);
	n = er_tpm_cmd_write(&c, out, sizeof(out));
	wn = unhex("80010000001600000" "17a" "00000001" "81000000" "00000040", want, sizeof(want));
	assert_int_equal(n, wn);
	assert_memory_equal(out, want, n);
	/* PCR_Read(sha256: 7) */
	er_tpm_pcr_selection_one(&sel, TPM2_ALG_SHA256, 1u << 7);
	er_tpm_cmd_pcr_read(&c, &sel);
	n = er_tpm_cmd_write(&c, out, sizeof(out));
	wn = unhex("80010000001400000" "17e" "00000001" "000b" "03" "800000", want, sizeof(want));
	assert_int_equal(n, wn);
	assert_memory_equal(out, want, n);
	/* PCR_Extend-like: a handle with a password session (empty password) */
	er_tpm_cmd_init(&c, TPM2_CC_Unseal, 0);
	er_tpm_cmd_handle(&c, 0x80000001, NULL, 0, true);
	er_tpm_cmd_password(&c, NULL, 0);
	n = er_tpm_cmd_write(&c, out, sizeof(out));
	wn = unhex("8002" "0000001b" "0000015e" "80000001" "00000009" "40000009" "0000" "01" "0000", want, sizeof(want));
	assert_int_equal(n, wn);
	assert_memory_equal(out, want, n);
	/* FlushContext: the handle is a parameter */
	er_tpm_cmd_flush_context(&c, 0x03000000);
	n = er_tpm_cmd_write(&c, out, sizeof(out));
	wn = unhex("8001" "0000000e" "00000165" "03000000", want, sizeof(want));
	assert_memory_equal(out, want, wn);
	assert_int_equal(n, wn);
	/* too small an output */
	assert_int_equal(er_tpm_cmd_write(&c, out, 13), 0);
	/* a fourth handle */
	er_tpm_cmd_init(&c, TPM2_CC_Unseal, 0);
	for (int i = 0; i < 4; i++)
		er_tpm_cmd_handle(&c, 1, NULL, 0, false);
	assert_int_equal(er_tpm_cmd_write(&c, out, sizeof(out)), 0);
}

static void test_srk_template(void **state)
{
	uint8_t t[64], want[64];
	size_t wn;
	(void)state;
	/* ECC, SHA-256, 0x00030472, no policy, AES 128 CFB, scheme NULL, P-256, kdf NULL, x, y empty */
	wn = unhex("0023" "000b" "00030472" "0000" "0006" "0080" "0043" "0010" "0003" "0010" "0000" "0000", want, sizeof(want));
	assert_int_equal(er_tpm_srk_template(TPM2_ALG_ECC, t, sizeof(t)), wn);
	assert_memory_equal(t, want, wn);
	assert_int_equal(er_tpm_srk_template(TPM2_ALG_ECC, t, 10), 0);
	/* RSA: 2048 bits, exponent 0, unique empty */
	wn = unhex("0001" "000b" "00030472" "0000" "0006" "0080" "0043" "0010" "0800" "00000000" "0000", want, sizeof(want));
	assert_int_equal(er_tpm_srk_template(TPM2_ALG_RSA, t, sizeof(t)), wn);
	assert_memory_equal(t, want, wn);
	assert_int_equal(er_tpm_srk_template(TPM2_ALG_SHA256, t, sizeof(t)), 0);
}

static void test_response_reader(void **state)
{
	uint8_t b[128];
	struct er_tpm_rsp r;
	size_t n;
	(void)state;
	/* success, no sessions, 4 bytes of parameters */
	n = unhex("8001" "0000000e" "00000000" "deadbeef", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 0, 0, &r), 0);
	assert_int_equal(r.params_len, 4);
	assert_memory_equal(r.params, "\xde\xad\xbe\xef", 4);
	/* bytes after the size field are not read: a longer buffer is fine */
	assert_int_equal(er_tpm_rsp_read(b, n + 10, 0, 0, &r), 0);
	assert_int_equal(r.params_len, 4);
	/* size field past the buffer */
	assert_int_equal(er_tpm_rsp_read(b, n - 1, 0, 0, &r), ER_TPM_E_MALFORMED);
	/* size field below the header */
	n = unhex("8001" "00000009" "00000000" "00", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 0, 0, &r), ER_TPM_E_MALFORMED);
	/* bad tag (TPM 1.2's 0x00c4) */
	n = unhex("00c4" "0000000a" "00000000", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 0, 0, &r), ER_TPM_E_MALFORMED);
	/* an error: its rc */
	n = unhex("8001" "0000000a" "0000099d", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 0, 1, &r), 0x99d);
	/* an error with a body: refused */
	n = unhex("8001" "0000000c" "0000099d" "0000", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 0, 1, &r), ER_TPM_E_MALFORMED);
	/* a handle + sessions: handle, parameterSize, params, one auth */
	n = unhex("8002" "0000001d" "00000000" "80000002" "00000002" "abcd" "0002" "1122" "01" "0002" "3344", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 1, 1, &r), 0);
	assert_int_equal(r.handle, 0x80000002);
	assert_int_equal(r.params_len, 2);
	assert_int_equal(r.nauth, 1);
	assert_int_equal(r.auth[0].nonce_len, 2);
	assert_int_equal(r.auth[0].attrs, 1);
	assert_memory_equal(r.auth[0].hmac, "\x33\x44", 2);
	/* expecting two sessions: refused; expecting none: refused */
	assert_int_equal(er_tpm_rsp_read(b, n, 1, 2, &r), ER_TPM_E_MALFORMED);
	assert_int_equal(er_tpm_rsp_read(b, n, 1, 0, &r), ER_TPM_E_MALFORMED);
	/* parameterSize past the size */
	b[17] = 0x30;
	assert_int_equal(er_tpm_rsp_read(b, n, 1, 1, &r), ER_TPM_E_MALFORMED);
	b[17] = 0x02;
	/* a trailing byte inside the size: refused */
	n = unhex("8002" "0000001e" "00000000" "80000002" "00000002" "abcd" "0002" "1122" "01" "0002" "3344" "00", b, sizeof(b));
	assert_int_equal(er_tpm_rsp_read(b, n, 1, 1, &r), ER_TPM_E_MALFORMED);
	/* every cut of a good response is refused */
	n = unhex("8002" "0000001d" "00000000" "80000002" "00000002" "abcd" "0002" "1122" "01" "0002" "3344", b, sizeof(b));
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);
		memcpy(c, b, cut);
		assert_int_not_equal(er_tpm_rsp_read(c, cut, 1, 1, &r), 0);
		free(c);
	}
}

static void test_rc_decode(void **state)
{
	struct er_tpm_rc_info i;
	char m[160];
	(void)state;
	er_tpm_rc_decode(0x921, &i);
	assert_int_equal(i.kind, ER_TPM_RC_LOCKOUT);
	assert_true(i.warning);
	assert_false(i.fmt1);
	er_tpm_rc_decode(0x98e, &i);                /* AUTH_FAIL, session 1 */
	assert_int_equal(i.kind, ER_TPM_RC_AUTH_FAIL);
	assert_int_equal(i.session, 1);
	assert_int_equal(i.base, 0x08e);
	er_tpm_rc_decode(0x9a2, &i);                /* BAD_AUTH, session 1 */
	assert_int_equal(i.kind, ER_TPM_RC_BAD_AUTH);
	er_tpm_rc_decode(0xa9d, &i);                /* POLICY_FAIL, session 2 */
	assert_int_equal(i.kind, ER_TPM_RC_POLICY_FAIL);
	assert_int_equal(i.session, 2);
	er_tpm_rc_decode(0x28b, &i);                /* HANDLE, handle 2 */
	assert_int_equal(i.base, TPM2_RC_HANDLE);
	assert_int_equal(i.handle, 2);
	assert_int_equal(i.session, 0);
	er_tpm_rc_decode(0x1c4, &i);                /* VALUE, parameter 1 */
	assert_int_equal(i.base, TPM2_RC_VALUE);
	assert_int_equal(i.param, 1);
	er_tpm_rc_decode(0xbc4, &i);                /* VALUE, parameter 11 */
	assert_int_equal(i.param, 11);
	er_tpm_rc_decode(0x167, &i);
	assert_int_equal(i.kind, ER_TPM_RC_PCR_CHANGED);
	er_tpm_rc_decode(0x922, &i);
	assert_int_equal(i.kind, ER_TPM_RC_RETRY);
	er_tpm_rc_decode(0x0000001e, &i);          /* a TPM 1.2 code */
	assert_true(i.tpm12);
	er_tpm_rc_decode(0x000b0921, &i);          /* LOCKOUT from another layer (RM) is not the TPM's */
	assert_int_equal(i.layer, 0x0b);
	assert_int_equal(i.kind, ER_TPM_RC_OTHER);
	er_tpm_rc_decode(ER_TPM_E_RSP_HMAC, &i);
	assert_int_equal(i.kind, ER_TPM_RC_HMAC);
	er_tpm_rc_format(0x99d, m, sizeof(m));
	assert_string_equal(m, "rc 0x0000099d: TPM_RC_POLICY_FAIL (format 1, 0x09d), session 1, layer 0");
	er_tpm_rc_format(0x921, m, sizeof(m));
	assert_string_equal(m, "rc 0x00000921: TPM_RC_LOCKOUT (format 0, 0x921, warning), layer 0");
	er_tpm_rc_format(0x1c4, m, sizeof(m));
	assert_string_equal(m, "rc 0x000001c4: TPM_RC_VALUE (format 1, 0x084), parameter 1, layer 0");
	/* a short buffer is cut, not overrun */
	memset(m, 'X', sizeof(m));
	er_tpm_rc_format(0x99d, m, 8);
	assert_int_equal(strlen(m), 7);
	assert_int_equal(m[8], 'X');
}

static void test_parsers_refuse_cuts(void **state)
{
	uint8_t p[256];
	struct er_tpm_rsp r;
	struct er_tpm_pcr_values v;
	uint32_t h[8], n;
	bool more;
	size_t len;
	(void)state;
	/* PCR_Read: counter, selection (sha256: 7), one digest */
	len = unhex("00000010" "00000001" "000b" "03" "800000" "00000001" "0020"
		    "0000000000000000000000000000000000000000000000000000000000000007", p, sizeof(p));
	r.params = p;
	r.params_len = len;
	assert_true(er_tpm_rsp_pcr_read(&r, &v));
	assert_int_equal(v.count, 1);
	assert_int_equal(v.d[0][31], 7);
	for (size_t cut = 0; cut < len; cut++) {
		r.params_len = cut;
		assert_false(er_tpm_rsp_pcr_read(&r, &v));
	}
	/* GetCapability(handles) */
	len = unhex("00" "00000001" "00000002" "81000001" "81000002", p, sizeof(p));
	r.params_len = len;
	assert_true(er_tpm_rsp_get_handles(&r, h, 8, &n, &more));
	assert_int_equal(n, 2);
	assert_int_equal(h[1], 0x81000002);
	assert_false(er_tpm_rsp_get_handles(&r, h, 1, &n, &more));    /* more than max */
	for (size_t cut = 0; cut < len; cut++) {
		r.params_len = cut;
		assert_false(er_tpm_rsp_get_handles(&r, h, 8, &n, &more));
	}
	/* a PCR selection claiming 5 banks / a sizeofSelect of 9: refused */
	len = unhex("00000000" "00000005", p, sizeof(p));
	r.params_len = len;
	assert_false(er_tpm_rsp_pcr_read(&r, &v));
	len = unhex("00000000" "00000001" "000b" "09" "ffffffffffffffffff" "00000000", p, sizeof(p));
	r.params_len = len;
	assert_false(er_tpm_rsp_pcr_read(&r, &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_bounds),
		cmocka_unit_test(test_reader_bounds),
		cmocka_unit_test(test_command_bytes),
		cmocka_unit_test(test_srk_template),
		cmocka_unit_test(test_response_reader),
		cmocka_unit_test(test_rc_decode),
		cmocka_unit_test(test_parsers_refuse_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
