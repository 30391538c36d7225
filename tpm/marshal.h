// SPDX-License-Identifier: GPL-2.0-or-later
/* TPM 2.0 command marshalling and response reading (TPM 2.0 Part 2/3 wire format:
 * big-endian integers, TPM2B = u16 size + bytes). Pure C, no allocation, no firmware
 * call: the caller owns every buffer and passes the finished command to whatever
 * transport it has (EFI_TCG2_PROTOCOL.SubmitCommand, swtpm's socket in the tests).
 *
 * Writers and readers are sticky-error: once a write would pass the buffer's capacity or
 * a read would pass the end of the data, the cursor's err flag is set and every later
 * call does nothing (reads return zeros / empty). Check err once at the end. */
#ifndef EFIRESUME_TPM_MARSHAL_H
#define EFIRESUME_TPM_MARSHAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* ---- constants (TPM 2.0 Part 2) ---- */
#define TPM2_ST_NO_SESSIONS   0x8001
#define TPM2_ST_SESSIONS      0x8002

#define TPM2_CC_CreatePrimary     0x00000131
#define TPM2_CC_Load              0x00000157
#define TPM2_CC_Unseal            0x0000015E
#define TPM2_CC_FlushContext      0x00000165
#define TPM2_CC_StartAuthSession  0x00000176
#define TPM2_CC_ReadPublic        0x00000173
#define TPM2_CC_PCR_Read          0x0000017E
#define TPM2_CC_PolicyPCR         0x0000017F
#define TPM2_CC_PolicyGetDigest   0x00000189
#define TPM2_CC_GetCapability     0x0000017A
#define TPM2_CC_PolicyAuthValue   0x0000016B
#define TPM2_CC_PCR_Extend        0x00000182

#define TPM2_RH_OWNER       0x40000001
#define TPM2_RH_NULL        0x40000007
#define TPM2_RS_PW          0x40000009
#define TPM2_RH_ENDORSEMENT 0x4000000B
#define TPM2_RH_PLATFORM    0x4000000C
#define TPM2_SRK_HANDLE     0x81000001   /* the persistent SRK (TCG provisioning guidance) */
#define TPM2_HT_PERSISTENT  0x81
#define TPM2_HT_TRANSIENT   0x80

#define TPM2_CAP_HANDLES    0x00000001
#define TPM2_CAP_PCRS       0x00000005

#define TPM2_ALG_RSA     0x0001
#define TPM2_ALG_SHA1    0x0004
#define TPM2_ALG_HMAC    0x0005
#define TPM2_ALG_AES     0x0006
#define TPM2_ALG_KEYEDHASH 0x0008
#define TPM2_ALG_SHA256  0x000B
#define TPM2_ALG_NULL    0x0010
#define TPM2_ALG_ECDH    0x0019
#define TPM2_ALG_ECC     0x0023
#define TPM2_ALG_SYMCIPHER 0x0025
#define TPM2_ALG_CFB     0x0043
#define TPM2_ECC_NIST_P256 0x0003

#define TPM2_SE_HMAC    0x00
#define TPM2_SE_POLICY  0x01
#define TPM2_SE_TRIAL   0x03

/* TPMA_SESSION */
#define TPMA_SESSION_CONTINUESESSION 0x01
#define TPMA_SESSION_AUDITEXCLUSIVE  0x02
#define TPMA_SESSION_AUDITRESET      0x04
#define TPMA_SESSION_DECRYPT         0x20
#define TPMA_SESSION_ENCRYPT         0x40
#define TPMA_SESSION_AUDIT           0x80

/* TPMA_OBJECT */
#define TPMA_OBJECT_FIXEDTPM             0x00000002
#define TPMA_OBJECT_FIXEDPARENT          0x00000010
#define TPMA_OBJECT_SENSITIVEDATAORIGIN  0x00000020
#define TPMA_OBJECT_USERWITHAUTH         0x00000040
#define TPMA_OBJECT_NODA                 0x00000400
#define TPMA_OBJECT_RESTRICTED           0x00010000
#define TPMA_OBJECT_DECRYPT              0x00020000

/* ---- TPM_RC ---- */
#define TPM2_RC_SUCCESS      0x000
#define TPM2_RC_VER1         0x100
#define TPM2_RC_FMT1         0x080
#define TPM2_RC_WARN         0x900
#define TPM2_RC_INITIALIZE   (TPM2_RC_VER1 + 0x000)
#define TPM2_RC_FAILURE      (TPM2_RC_VER1 + 0x001)
#define TPM2_RC_PCR_CHANGED  (TPM2_RC_VER1 + 0x067)
#define TPM2_RC_AUTH_MISSING (TPM2_RC_VER1 + 0x025)
#define TPM2_RC_POLICY       (TPM2_RC_VER1 + 0x026)
#define TPM2_RC_ATTRIBUTES   (TPM2_RC_FMT1 + 0x002)
#define TPM2_RC_VALUE        (TPM2_RC_FMT1 + 0x004)
#define TPM2_RC_HANDLE       (TPM2_RC_FMT1 + 0x00B)
#define TPM2_RC_AUTH_FAIL    (TPM2_RC_FMT1 + 0x00E)
#define TPM2_RC_SIZE         (TPM2_RC_FMT1 + 0x015)
#define TPM2_RC_POLICY_FAIL  (TPM2_RC_FMT1 + 0x01D)
#define TPM2_RC_INTEGRITY    (TPM2_RC_FMT1 + 0x01F)
#define TPM2_RC_BAD_AUTH     (TPM2_RC_FMT1 + 0x022)
#define TPM2_RC_LOCKOUT      (TPM2_RC_WARN + 0x021)
#define TPM2_RC_RETRY        (TPM2_RC_WARN + 0x022)
#define TPM2_RC_TESTING      (TPM2_RC_WARN + 0x00A)
#define TPM2_RC_YIELDED      (TPM2_RC_WARN + 0x008)

/* Our own refusals (never sent by a TPM: layer 0xEF in bits 16..23 is not a TSS layer). */
#define ER_TPM_E_MALFORMED   0x00EF0001u   /* response too short / size field wrong / bad tag */
#define ER_TPM_E_RSP_HMAC    0x00EF0002u   /* the response HMAC does not verify */
#define ER_TPM_E_NOSPACE     0x00EF0003u   /* a command does not fit its buffer */
#define ER_TPM_E_CRYPTO      0x00EF0004u   /* bad key / point / parameter to the session crypto */

/* ---- cursors ---- */
struct er_tpm_wr { uint8_t *p; size_t cap, len; bool err; };
struct er_tpm_rd { const uint8_t *p; size_t len, off; bool err; };

static inline void er_tpm_wr_init(struct er_tpm_wr *w, uint8_t *p, size_t cap)
{ w->p = p; w->cap = cap; w->len = 0; w->err = false; }
static inline void er_tpm_rd_init(struct er_tpm_rd *r, const uint8_t *p, size_t len)
{ r->p = p; r->len = len; r->off = 0; r->err = false; }

void er_tpm_put_u8(struct er_tpm_wr *w, uint8_t v);
void er_tpm_put_u16(struct er_tpm_wr *w, uint16_t v);
void er_tpm_put_u32(struct er_tpm_wr *w, uint32_t v);
void er_tpm_put_bytes(struct er_tpm_wr *w, const void *b, size_t n);
void er_tpm_put_tpm2b(struct er_tpm_wr *w, const void *b, size_t n);   /* n > 0xFFFF: err */
void er_tpm_set_u32_at(struct er_tpm_wr *w, size_t at, uint32_t v);    /* patch a placeholder */

uint8_t  er_tpm_get_u8(struct er_tpm_rd *r);
uint16_t er_tpm_get_u16(struct er_tpm_rd *r);
uint32_t er_tpm_get_u32(struct er_tpm_rd *r);
/* Points *out at n bytes inside the data (no copy); NULL and err past the end. */
const uint8_t *er_tpm_get_bytes(struct er_tpm_rd *r, size_t n);
/* A TPM2B: *out / *n point at its bytes inside the data; refused (err) past the end or
 * when its size is above max. */
bool er_tpm_get_tpm2b(struct er_tpm_rd *r, const uint8_t **out, size_t *n, size_t max);
/* A TPM2B copied into buf (cap bytes); refused (err) when larger. */
bool er_tpm_get_tpm2b_copy(struct er_tpm_rd *r, uint8_t *buf, size_t cap, size_t *n);

/* ---- structures ---- */
#define ER_TPM_MAX_PCR_BANKS 4
struct er_tpm_pcr_sel { uint16_t hash; uint8_t n; uint8_t sel[4]; };   /* n = sizeofSelect (<= 4) */
struct er_tpm_pcr_selection { uint32_t count; struct er_tpm_pcr_sel s[ER_TPM_MAX_PCR_BANKS]; };
/* one bank, the PCRs in mask (bit i = PCR i, 24 PCRs: sizeofSelect 3) */
void er_tpm_pcr_selection_one(struct er_tpm_pcr_selection *ps, uint16_t hash, uint32_t mask);
void er_tpm_put_pcr_selection(struct er_tpm_wr *w, const struct er_tpm_pcr_selection *ps);
bool er_tpm_get_pcr_selection(struct er_tpm_rd *r, struct er_tpm_pcr_selection *ps);

/* TPMT_SYM_DEF(_OBJECT): alg NULL writes only the alg */
struct er_tpm_sym { uint16_t alg, bits, mode; };
void er_tpm_put_sym(struct er_tpm_wr *w, const struct er_tpm_sym *s);
bool er_tpm_get_sym(struct er_tpm_rd *r, struct er_tpm_sym *s);

/* ---- commands ----
 * A command is built in three parts: its handles (with their Names, for cpHash), its
 * parameters (already marshalled), and its sessions (session.h adds HMACs and parameter
 * encryption). er_tpm_cmd_write assembles header + handles + auth area + parameters. */
#define ER_TPM_MAX_HANDLES   3
#define ER_TPM_MAX_NAME      (2 + 64)     /* TPM2B_NAME body: alg + digest, or a 4-byte handle */
#define ER_TPM_MAX_PARAMS    1024
#define ER_TPM_MAX_SESSIONS  3
#define ER_TPM_MAX_DIGEST    64

struct er_tpm_name { uint8_t b[ER_TPM_MAX_NAME]; uint16_t n; };

/* One session's entry in a command's authorization area, as it goes on the wire. */
struct er_tpm_auth_cmd {
	uint32_t handle;                         /* TPM2_RS_PW or a session handle */
	uint8_t nonce[ER_TPM_MAX_DIGEST]; uint16_t nonce_len;
	uint8_t attrs;                           /* TPMA_SESSION */
	uint8_t hmac[ER_TPM_MAX_DIGEST]; uint16_t hmac_len;   /* or the password */
};

struct er_tpm_cmd {
	uint32_t cc;
	uint32_t handles[ER_TPM_MAX_HANDLES];
	struct er_tpm_name names[ER_TPM_MAX_HANDLES];
	uint8_t nhandles;
	uint8_t nauth;                           /* handles that need an authorization */
	uint8_t rsp_handles;                     /* handles the response carries (0 or 1) */
	uint8_t params[ER_TPM_MAX_PARAMS];
	struct er_tpm_wr pw;                     /* writes into params */
	struct er_tpm_auth_cmd auth[ER_TPM_MAX_SESSIONS];
	uint8_t nsessions;
};

/* Begin a command: cc, rsp_handles as Part 3 says for it. */
void er_tpm_cmd_init(struct er_tpm_cmd *c, uint32_t cc, uint8_t rsp_handles);
/* Add a handle; its Name is the handle itself (big-endian) unless name/name_len is given
 * (objects: nameAlg + H(public)). need_auth: it takes an authorization. */
void er_tpm_cmd_handle(struct er_tpm_cmd *c, uint32_t h, const uint8_t *name, size_t name_len, bool need_auth);
/* The password session (empty password unless given), for a handle that needs one. */
void er_tpm_cmd_password(struct er_tpm_cmd *c, const uint8_t *pw, size_t n);
/* Writes the whole command into out; returns its length, 0 if it does not fit or the
 * parameters overflowed. */
size_t er_tpm_cmd_write(const struct er_tpm_cmd *c, uint8_t *out, size_t cap);

/* ---- responses ---- */
struct er_tpm_auth_rsp {
	const uint8_t *nonce; size_t nonce_len;
	uint8_t attrs;
	const uint8_t *hmac; size_t hmac_len;
};
struct er_tpm_rsp {
	uint16_t tag;
	uint32_t size;                           /* the response's own size field */
	uint32_t rc;
	uint32_t handle;                         /* when the command returns one */
	const uint8_t *params; size_t params_len;
	struct er_tpm_auth_rsp auth[ER_TPM_MAX_SESSIONS];
	uint8_t nauth;
};

/* Reads a response of buf_len bytes: the tag must be ST_NO_SESSIONS/ST_SESSIONS, the size
 * field >= 10 and <= buf_len (nothing past it is read), and for a success the handles,
 * parameterSize, parameters and exactly nsessions authorization entries must fit inside the
 * size, with nothing left over. Returns TPM2_RC_SUCCESS, the TPM's rc (rsp->rc too), or
 * ER_TPM_E_MALFORMED. */
uint32_t er_tpm_rsp_read(const uint8_t *buf, size_t buf_len, uint8_t rsp_handles,
			 uint8_t nsessions, struct er_tpm_rsp *rsp);

/* ---- TPM_RC decoding ---- */
enum er_tpm_rc_kind {
	ER_TPM_RC_OK, ER_TPM_RC_LOCKOUT, ER_TPM_RC_AUTH_FAIL /* DA counted */,
	ER_TPM_RC_BAD_AUTH /* noDA object */, ER_TPM_RC_POLICY_FAIL, ER_TPM_RC_PCR_CHANGED,
	ER_TPM_RC_RETRY /* warning: try again */, ER_TPM_RC_MALFORMED /* ours */,
	ER_TPM_RC_HMAC /* ours: response HMAC */, ER_TPM_RC_OTHER,
};
struct er_tpm_rc_info {
	uint32_t rc;
	uint8_t layer;          /* bits 16..23 (0 = the TPM) */
	bool fmt1;              /* format one: the code refers to a handle/parameter/session */
	bool warning;           /* format zero, S bit */
	bool vendor;            /* format zero, T bit */
	bool tpm12;             /* format zero without V: a TPM 1.2 code */
	uint16_t base;          /* the code without number fields and layer (e.g. 0x09D) */
	uint8_t param, handle, session;   /* 1-based; 0 when not given */
	enum er_tpm_rc_kind kind;
};
void er_tpm_rc_decode(uint32_t rc, struct er_tpm_rc_info *i);
/* "TPM_RC_POLICY_FAIL" etc., NULL for a code without a name here */
const char *er_tpm_rc_name(uint16_t base);
/* "rc 0x0000099d: TPM_RC_POLICY_FAIL (format 1, 0x09d), session 1, layer 0" */
size_t er_tpm_rc_format(uint32_t rc, char *buf, size_t cap);

#endif
