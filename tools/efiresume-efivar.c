// SPDX-License-Identifier: GPL-2.0-or-later
/* efiresume-efivar: efiresume-install's reader of binary EFI variables (installed as
 * /usr/lib/efiresume/efiresume-efivar). Each subcommand replaces one of the perl programs
 * the installer embedded, with the same input, the same output (byte for byte) and the
 * same exit status; where this file is stricter than the perl was, the comment says so.
 *
 *   efiresume-efivar var-u16 FILE        BootCurrent, BootNext: "XXXX" or nothing
 *   efiresume-efivar boot-order FILE     BootOrder: "XXXX,XXXX,..." (a lone newline when empty)
 *   efiresume-efivar load-option FILE    Boot####: desc= path= part= partguid= optkind= opt=
 *   efiresume-efivar esl-certs DIR       <VAR: the X.509 entries of its EFI_SIGNATURE_LISTs
 *                                        as DIR/000.der, DIR/001.der, ...
 *   efiresume-efivar shim-vendor-cert    <SECTION >DER: shim's .vendor_cert certificate
 *   efiresume-efivar decode-location utf16|utf8   <VAR: json= uuid= offset= kernel=, or error=
 *
 * FILE and VAR are efivarfs files: 4 bytes of attributes, then the variable's data.
 * Exit status: 0, or 1 where the perl exited 1 (cannot open FILE, a load option too short
 * or with a file path list past its end, an output file not created, no vendor
 * certificate), 2 on a wrong command line.
 *
 * Stricter than the perl: an input over EFV_MAX_INPUT (16 MiB; no EFI variable is that
 * large) and a failed write of the output make it exit 1 (the perl read anything and
 * ignored write errors); decode-location: see efv_decode_location.
 *
 * Load options: libefiboot's accessors (efi_loadopt_path, efi_loadopt_optional_data,
 * efi_loadopt_is_valid) are not safe on a malformed variable: in efivar 37 they read past
 * the end of an unterminated description (ucs2len's limit is taken in characters but
 * passed in bytes), efidp_is_valid checks only the first node of a path and spins forever
 * on an End node of length 0. So this file walks the structure itself, every length
 * checked against what is left, and uses libefivar/libefiboot for what is safe once the
 * bounds are known: the node layouts and accessors of efivar-dp.h (efidp_type,
 * efidp_subtype, efidp_node_size, efidp_hd), the description's UCS-2 to UTF-8 conversion
 * (efi_loadopt_desc, handed a terminated copy) and GUID formatting (efi_guid_to_str).
 * EFI_SIGNATURE_LISTs, shim's .vendor_cert table and the location variables have no
 * reader in efivar 37: they are parsed here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <efiboot.h>

#define EFV_MAX_INPUT (16u << 20)
#define EFV_LOCATION_MAX 65536u /* decode-location reads this much of the data */

/* ------------------------------------------------------------------ output buffer */
struct efv_out {
	char *s;
	size_t len, cap;
	int oom;
};

static void out_bytes(struct efv_out *o, const void *p, size_t n)
{
	if (o->oom || !n)
		return;
	if (o->len + n < o->len) {
		o->oom = 1;
		return;
	}
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		while (cap < o->len + n + 1) {
			if (cap > SIZE_MAX / 2) {
				o->oom = 1;
				return;
			}
			cap *= 2;
		}
		char *s = realloc(o->s, cap);
		if (!s) {
			o->oom = 1;
			return;
		}
		o->s = s;
		o->cap = cap;
	}
	memcpy(o->s + o->len, p, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void out_str(struct efv_out *o, const char *s) { out_bytes(o, s, strlen(s)); }

static void __attribute__((format(printf, 2, 3))) out_fmt(struct efv_out *o, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		o->oom = 1;
		return;
	}
	out_bytes(o, tmp, (size_t)n);
}

static void out_free(struct efv_out *o)
{
	free(o->s);
	memset(o, 0, sizeof *o);
}

/* a code point as Perl writes it through a :utf8 layer: UTF-8, surrogates and code points
 * above U+10FFFF included, Perl's extended forms (0xfe: 7 bytes, 0xff: 13) beyond 2^31 */
static void out_cp(struct efv_out *o, uint64_t cp)
{
	uint8_t b[13];
	size_t n;
	if (cp < 0x80) {
		b[0] = (uint8_t)cp;
		n = 1;
	} else {
		unsigned lead_bits;
		uint8_t lead;
		if (cp < 0x800) {
			n = 2, lead = 0xc0, lead_bits = 5;
		} else if (cp < 0x10000) {
			n = 3, lead = 0xe0, lead_bits = 4;
		} else if (cp < 0x200000) {
			n = 4, lead = 0xf0, lead_bits = 3;
		} else if (cp < 0x4000000) {
			n = 5, lead = 0xf8, lead_bits = 2;
		} else if (cp < 0x80000000u) {
			n = 6, lead = 0xfc, lead_bits = 1;
		} else if (cp < (UINT64_C(1) << 36)) {
			n = 7, lead = 0xfe, lead_bits = 0;
		} else {
			n = 13, lead = 0xff, lead_bits = 0;
		}
		(void)lead_bits;
		for (size_t i = n - 1; i >= 1; i--) {
			b[i] = (uint8_t)(0x80 | (cp & 0x3f));
			cp >>= 6;
		}
		b[0] = (uint8_t)(lead | cp); /* what is left fits the lead byte's free bits */
	}
	out_bytes(o, b, n);
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ------------------------------------------------------------------ var-u16, boot-order */
/* perl: exit 0 if length($d) < 6; printf "%04X\n", unpack("v", substr($d, 4, 2)) */
int efv_var_u16(const uint8_t *v, size_t len, struct efv_out *o)
{
	if (len >= 6)
		out_fmt(o, "%04X\n", le16(v + 4));
	return 0;
}

/* perl: print join(",", map { sprintf "%04X", $_ } unpack("v*", substr($d, 4))), "\n"
 * (an odd last byte is left out, as unpack did) */
int efv_boot_order(const uint8_t *v, size_t len, struct efv_out *o)
{
	for (size_t p = 4; p + 2 <= len; p += 2)
		out_fmt(o, p == 4 ? "%04X" : ",%04X", le16(v + p));
	out_str(o, "\n");
	return 0;
}

/* ------------------------------------------------------------------ load-option */
/* each UCS-2 unit as its own code point, as the perl's chr() did (no surrogate pairing) */
static void out_ucs2_units(struct efv_out *o, const uint8_t *p, size_t units)
{
	for (size_t i = 0; i < units; i++)
		out_cp(o, le16(p + 2 * i));
}

/* s/[\x00-\x1f]/?/g on UTF-8 (those bytes are never part of a longer sequence) */
static void sanitize_controls(char *s, size_t n, int slash_to_backslash)
{
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20)
			s[i] = '?';
		else if (slash_to_backslash && s[i] == '/')
			s[i] = '\\';
	}
}

/* The description in UTF-8 through libefiboot: efi_loadopt_desc reads one character past
 * the limit it is given, so it gets a copy of the header and the NCHARS characters,
 * terminated. */
static int loadopt_desc(const uint8_t *d, size_t nchars, struct efv_out *o)
{
	size_t sz = 6 + 2 * (nchars + 1);
	uint8_t *copy = calloc(1, sz);
	if (!copy) {
		o->oom = 1;
		return -1;
	}
	memcpy(copy, d, 6 + 2 * nchars);
	const unsigned char *desc = efi_loadopt_desc((efi_load_option *)copy, (ssize_t)nchars);
	if (!desc) {
		free(copy);
		o->oom = 1;
		return -1;
	}
	size_t start = o->len;
	out_str(o, (const char *)desc);
	free(copy);
	if (!o->oom)
		sanitize_controls(o->s + start, o->len - start, 0);
	return 0;
}

/* The perl (load_option): key=value lines desc, path (the File() nodes of the first device
 * path instance), part (HD partition number), partguid (GPT partition GUID, lower case),
 * optkind (none|text|ascii|binary), opt. Exit 1 when the variable is under 10 bytes or
 * the file path list runs past its end. Nodes are read up to the first End node, a node
 * shorter than 4 bytes or one running past the list (as the perl did: the rest of a
 * broken path is not read, the option is not refused). */
int efv_load_option(const uint8_t *v, size_t len, struct efv_out *o)
{
	if (len < 4 + 6)
		return 1;
	const uint8_t *d = v + 4;
	size_t n = len - 4;
	size_t fplen = le16(d + 4);

	/* the description: UCS-2 up to its NUL or to the end of the data */
	size_t p = 6, nchars = 0;
	while (p + 2 <= n) {
		uint16_t c = le16(d + p);
		p += 2;
		if (c == 0)
			break;
		nchars++;
	}
	if (fplen > n - p)
		return 1;
	const uint8_t *fp = d + p;
	const uint8_t *opt = fp + fplen;
	size_t optlen = n - p - fplen;

	/* the path */
	struct efv_out path = { 0 };
	uint32_t part = 0;
	int have_part = 0;
	char *partguid = NULL;
	size_t q = 0;
	while (q + 4 <= fplen) {
		const_efidp node = (const_efidp)(fp + q);
		ssize_t nlen = efidp_node_size(node);
		if (nlen < 4 || (size_t)nlen > fplen - q)
			break;
		if (efidp_type(node) == EFIDP_END_TYPE)
			break;
		_Static_assert(sizeof(efidp_hd) == 42, "the HD node the perl read");
		if (efidp_type(node) == EFIDP_MEDIA_TYPE && efidp_subtype(node) == EFIDP_MEDIA_HD &&
		    (size_t)nlen >= sizeof(efidp_hd)) {
			efidp_hd hd;
			memcpy(&hd, fp + q, sizeof hd);
			part = hd.partition_number;
			have_part = 1;
			if (hd.signature_type == EFIDP_HD_SIGNATURE_GUID) {
				efi_guid_t g;
				memcpy(&g, hd.signature, sizeof g);
				free(partguid);
				partguid = NULL;
				if (efi_guid_to_str(&g, &partguid) < 0 || !partguid) {
					o->oom = 1;
					break;
				}
			}
		} else if (efidp_type(node) == EFIDP_MEDIA_TYPE &&
			   efidp_subtype(node) == EFIDP_MEDIA_FILE) {
			const uint8_t *name = fp + q + offsetof(efidp_file, name);
			size_t units = ((size_t)nlen - offsetof(efidp_file, name)) / 2, k = 0;
			while (k < units && le16(name + 2 * k) != 0)
				k++;
			/* $path .= "\\" if $path ne "" && $path !~ /\\$/ && $s !~ /^\\/
			 * (/\\$/ also matches a backslash before a final newline) */
			int ends_bs = path.len && (path.s[path.len - 1] == '\\' ||
				(path.len >= 2 && path.s[path.len - 1] == '\n' && path.s[path.len - 2] == '\\'));
			if (path.len && !ends_bs && !(k && le16(name) == '\\'))
				out_str(&path, "\\");
			out_ucs2_units(&path, name, k);
		}
		q += (size_t)nlen;
	}

	/* the optional data */
	const char *kind = "none";
	struct efv_out text = { 0 };
	if (optlen) {
		/* /\A[\x20-\x7e\t]+\0?\z/: printable ASCII, maybe a final NUL */
		size_t m = optlen - (opt[optlen - 1] == 0);
		int ascii = m > 0;
		for (size_t i = 0; ascii && i < m; i++)
			ascii = (opt[i] >= 0x20 && opt[i] <= 0x7e) || opt[i] == '\t';
		if (ascii) {
			kind = "ascii";
			for (size_t i = 0; i < m; i++)
				out_bytes(&text, opt[i] == '\t' ? " " : (const char *)opt + i, 1);
		} else {
			kind = "binary";
			if (optlen % 2 == 0) {
				size_t units = optlen / 2;
				while (units && le16(opt + 2 * (units - 1)) == 0)
					units--;
				int ok = units > 0;
				for (size_t i = 0; ok && i < units; i++) {
					uint16_t u = le16(opt + 2 * i);
					ok = !((u < 0x20 && u != 9) || (u >= 0xd800 && u < 0xe000) || u == 0x7f);
				}
				if (ok) {
					kind = "text";
					for (size_t i = 0; i < units; i++) {
						uint16_t u = le16(opt + 2 * i);
						out_cp(&text, u == '\t' ? ' ' : u);
					}
				}
			}
		}
	}

	out_str(o, "desc=");
	if (loadopt_desc(d, nchars, o) == 0) {
		if (path.len)
			sanitize_controls(path.s, path.len, 1);
		out_str(o, "\npath=");
		out_bytes(o, path.s, path.len);
		out_str(o, "\npart=");
		if (have_part)
			out_fmt(o, "%u", part);
		out_str(o, "\npartguid=");
		if (partguid)
			out_str(o, partguid);
		out_fmt(o, "\noptkind=%s\nopt=", kind);
		out_bytes(o, text.s, text.len);
		out_str(o, "\n");
	}
	int oom = path.oom || text.oom;
	out_free(&path);
	out_free(&text);
	free(partguid);
	if (oom)
		o->oom = 1;
	return o->oom ? 1 : 0;
}

/* ------------------------------------------------------------------ esl-certs */
typedef int (*efv_cert_fn)(void *ctx, unsigned idx, const uint8_t *der, size_t len);

/* The perl (esl_certs): walk the EFI_SIGNATURE_LISTs (SignatureType, ListSize, HeaderSize,
 * SignatureSize, header, signatures), stop at a list under 28 bytes, past the end or with
 * signatures under 16 bytes; of each EFI_CERT_X509_GUID list, every whole
 * EFI_SIGNATURE_DATA (owner GUID, then the certificate) after the header goes to EMIT.
 * 0; 1 when EMIT fails. A variable under 4 bytes holds none. */
int efv_esl_certs(const uint8_t *v, size_t len, efv_cert_fn emit, void *ctx)
{
	if (len < 4)
		return 0;
	const uint8_t *d = v + 4;
	uint64_t n = len - 4, p = 0;
	unsigned idx = 0;
	while (p + 28 <= n) {
		uint64_t ls = le32(d + p + 16), hs = le32(d + p + 20), ss = le32(d + p + 24);
		if (ls < 28 || p + ls > n || ss < 16)
			break;
		efi_guid_t type;
		memcpy(&type, d + p, sizeof type);
		if (efi_guid_cmp(&type, &efi_guid_x509_cert) == 0) {
			for (uint64_t q = p + 28 + hs; q + ss <= p + ls; q += ss)
				if (emit(ctx, idx++, d + q + 16, (size_t)(ss - 16)) != 0)
					return 1;
		}
		p += ls;
	}
	return 0;
}

/* ------------------------------------------------------------------ shim-vendor-cert */
/* The perl (shim_vendor_cert): shim's .vendor_cert section starts with
 * vendor_authorized_size, vendor_deauthorized_size, vendor_authorized_offset (u32 each,
 * the offset from the section's start); the certificate is those bytes. 1 when the section
 * is under 16 bytes, the size is 0 or the certificate runs past the section. */
int efv_shim_vendor_cert(const uint8_t *v, size_t len, struct efv_out *o)
{
	if (len < 16)
		return 1;
	uint64_t size = le32(v), off = le32(v + 8);
	if (!size || off + size > len)
		return 1;
	out_bytes(o, v + off, (size_t)size);
	return o->oom ? 1 : 0;
}

/* ------------------------------------------------------------------ decode-location */
/* Perl's utf8::decode: is the string well-formed in Perl's extended UTF-8 (surrogates,
 * noncharacters and code points above U+10FFFF allowed; overlong forms, bad continuation
 * bytes, truncated sequences and values above IV_MAX not)? Decodes into CP (n entries
 * at most). */
static int perl_utf8_decode(const uint8_t *s, size_t n, uint64_t *cp, size_t *count)
{
	static const uint64_t min_of_len[14] = {
		[2] = 0x80, [3] = 0x800, [4] = 0x10000, [5] = 0x200000, [6] = 0x4000000,
		[7] = 0x80000000u, [13] = UINT64_C(1) << 36,
	};
	size_t i = 0, c = 0;
	while (i < n) {
		uint8_t b = s[i];
		if (b < 0x80) {
			cp[c++] = b;
			i++;
			continue;
		}
		if (b < 0xc0)
			return 0;
		size_t l = b < 0xe0 ? 2 : b < 0xf0 ? 3 : b < 0xf8 ? 4 : b < 0xfc ? 5 : b < 0xfe ? 6 : b == 0xfe ? 7 : 13;
		if (l > n - i)
			return 0;
		uint64_t val = l <= 6 ? (uint64_t)(b & (0x7f >> l)) : 0;
		for (size_t j = 1; j < l; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
			if (val > (UINT64_MAX >> 6))
				return 0; /* overflows */
			val = val << 6 | (s[i + j] & 0x3f);
		}
		if (val < min_of_len[l] || val > (uint64_t)INT64_MAX)
			return 0;
		cp[c++] = val;
		i += l;
	}
	*count = c;
	return 1;
}

/* Perl's \s on a string with Unicode rules (one holding characters over 0xff, or decoded
 * from UTF-8 with any non-ASCII in it) or byte rules */
static int is_perl_space(uint64_t c, int unicode)
{
	if (c == ' ' || (c >= 0x09 && c <= 0x0d))
		return 1;
	if (!unicode)
		return 0;
	return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
	       c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

static int is_ascii_word(uint64_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_hex(uint64_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

/* "KEY"\s*:\s* at I: where the value starts (N when at the end), or 0 */
static size_t match_key(const uint64_t *s, size_t n, size_t i, const char *key, int unicode)
{
	size_t kl = strlen(key);
	if (n - i < kl + 2 || s[i] != '"')
		return 0;
	for (size_t k = 0; k < kl; k++)
		if (s[i + 1 + k] != (unsigned char)key[k])
			return 0;
	if (s[i + 1 + kl] != '"')
		return 0;
	size_t j = i + kl + 2;
	while (j < n && is_perl_space(s[j], unicode))
		j++;
	if (j >= n || s[j] != ':')
		return 0;
	j++;
	while (j < n && is_perl_space(s[j], unicode))
		j++;
	return j;
}

/* The perl (decode_location): the variable's data (at most 64 KiB of it) as UTF-16LE (one
 * final NUL allowed; surrogate pairs joined; another NUL or an unpaired surrogate: error=)
 * or UTF-8 (final NULs dropped; when it is not well-formed, its bytes as Latin-1), control
 * characters as '?'; json= its first 1024 characters, then uuid= (lower case), offset=,
 * kernel= when /"uuid"\s*:\s*"(UUID)"/, /"offset"\s*:\s*([0-9]{1,20})\b/,
 * /"kernelVersion"\s*:\s*"([^"\\]{0,256})"/ find them. Always 0.
 * Stricter than the perl in one case: on a string with Unicode rules (see is_perl_space),
 * a non-ASCII character right after the offset's digits ends the match here (the perl's
 * \b took one that Unicode does not count as a word character, such as U+00A0 or '«':
 * malformed JSON, and a Unicode table this file does not carry). */
int efv_decode_location(const uint8_t *v, size_t len, int utf16, struct efv_out *o)
{
	if (len <= 4) {
		out_str(o, "error=empty\n");
		return 0;
	}
	const uint8_t *d = v + 4;
	size_t n = len - 4;
	if (n > EFV_LOCATION_MAX)
		n = EFV_LOCATION_MAX;
	uint64_t *s = calloc(n ? n : 1, sizeof *s);
	if (!s) {
		o->oom = 1;
		return 1;
	}
	size_t c = 0;
	int unicode = 0;
	if (utf16) {
		if (n % 2) {
			out_str(o, "error=an odd number of bytes for UTF-16LE\n");
			goto done;
		}
		size_t m = n / 2;
		if (m && le16(d + 2 * (m - 1)) == 0)
			m--;
		for (size_t i = 0; i < m; i++) {
			uint32_t u = le16(d + 2 * i);
			if (u == 0) {
				out_str(o, "error=a NUL before the end\n");
				goto done;
			}
			if (u >= 0xd800 && u <= 0xdbff && i + 1 < m) {
				uint32_t l = le16(d + 2 * (i + 1));
				if (l >= 0xdc00 && l <= 0xdfff) {
					u = 0x10000 + ((u - 0xd800) << 10) + (l - 0xdc00);
					i++;
				}
			}
			if (u >= 0xd800 && u <= 0xdfff) {
				out_str(o, "error=an unpaired surrogate\n");
				goto done;
			}
			if (u > 0xff)
				unicode = 1;
			s[c++] = u;
		}
	} else {
		size_t m = n;
		while (m && d[m - 1] == 0)
			m--;
		if (perl_utf8_decode(d, m, s, &c)) {
			for (size_t i = 0; i < m && !unicode; i++)
				unicode = d[i] >= 0x80;
		} else {
			for (c = 0; c < m; c++)
				s[c] = d[c];
		}
	}
	for (size_t i = 0; i < c; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';

	out_str(o, "json=");
	for (size_t i = 0; i < c && i < 1024; i++)
		out_cp(o, s[i]);
	out_str(o, "\n");

	static const unsigned char uuid_shape[36] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	for (size_t i = 0; i < c; i++) {
		size_t j = match_key(s, c, i, "uuid", unicode);
		if (!j || c - j < 38 || s[j] != '"' || s[j + 37] != '"')
			continue;
		int ok = 1;
		for (size_t k = 0; ok && k < 36; k++)
			ok = uuid_shape[k] == '-' ? s[j + 1 + k] == '-' : is_hex(s[j + 1 + k]);
		if (!ok)
			continue;
		out_str(o, "uuid=");
		for (size_t k = 0; k < 36; k++) {
			uint64_t ch = s[j + 1 + k];
			out_cp(o, ch >= 'A' && ch <= 'F' ? ch + 32 : ch);
		}
		out_str(o, "\n");
		break;
	}
	for (size_t i = 0; i < c; i++) {
		size_t j = match_key(s, c, i, "offset", unicode), k = j;
		if (!j)
			continue;
		while (k < c && s[k] >= '0' && s[k] <= '9')
			k++;
		if (k == j || k - j > 20)
			continue;
		if (k < c && (is_ascii_word(s[k]) || (unicode && s[k] >= 0x80)))
			continue;
		out_str(o, "offset=");
		for (size_t x = j; x < k; x++)
			out_cp(o, s[x]);
		out_str(o, "\n");
		break;
	}
	for (size_t i = 0; i < c; i++) {
		size_t j = match_key(s, c, i, "kernelVersion", unicode), k;
		if (!j || j >= c || s[j] != '"')
			continue;
		for (k = j + 1; k < c && k - (j + 1) <= 256 && s[k] != '"' && s[k] != '\\'; k++)
			;
		if (k >= c || s[k] != '"' || k - (j + 1) > 256)
			continue;
		out_str(o, "kernel=");
		for (size_t x = j + 1; x < k; x++)
			out_cp(o, s[x]);
		out_str(o, "\n");
		break;
	}
done:
	free(s);
	return o->oom ? 1 : 0;
}

/* ------------------------------------------------------------------ the program */
#ifndef EFV_NO_MAIN
/* the whole of FD (at most MAX bytes; with DRAIN, the rest is read and dropped); -1 when
 * it cannot be read or, without DRAIN, is larger (a read error counts as an empty file,
 * as it did for the perl: <$fh> gave undef) */
static int read_all(int fd, size_t max, int drain, uint8_t **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				uint8_t sink[4096];
				ssize_t r;
				while ((r = read(fd, sink, drain ? sizeof sink : 1)) < 0 && errno == EINTR)
					;
				if (r > 0 && !drain)
					goto too_large;
				while (r > 0 || (r < 0 && errno == EINTR))
					r = read(fd, sink, sizeof sink);
				break;
			}
			size_t ncap = cap * 2 > max ? max : cap * 2;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			len = 0;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
too_large:
	fprintf(stderr, "efiresume-efivar: the input is larger than %u bytes\n", EFV_MAX_INPUT);
	free(buf);
	return -1;
}

static int read_path(const char *path, uint8_t **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = read_all(fd, EFV_MAX_INPUT, 0, buf, len);
	close(fd);
	return rc;
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_cert(void *ctx, unsigned idx, const uint8_t *der, size_t len)
{
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/%03u.der", (const char *)ctx, idx);
	if (n < 0 || (size_t)n >= sizeof path)
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, der, len);
	if (close(fd) != 0)
		rc = -1;
	return rc;
}

static int usage(void)
{
	fputs("usage: efiresume-efivar var-u16 FILE | boot-order FILE | load-option FILE |\n"
	      "       esl-certs DIR <VAR | shim-vendor-cert <SECTION | decode-location utf16|utf8 <VAR\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	const char *cmd = argv[1];
	struct efv_out o = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int rc;

	if (!strcmp(cmd, "var-u16") || !strcmp(cmd, "boot-order") || !strcmp(cmd, "load-option")) {
		if (argc != 3)
			return usage();
		if (read_path(argv[2], &buf, &len) < 0)
			return 1;
		rc = cmd[0] == 'v' ? efv_var_u16(buf, len, &o)
		   : cmd[0] == 'b' ? efv_boot_order(buf, len, &o)
		   : efv_load_option(buf, len, &o);
	} else if (!strcmp(cmd, "esl-certs")) {
		if (argc != 3)
			return usage();
		if (read_all(0, EFV_MAX_INPUT, 0, &buf, &len) < 0)
			return 1;
		rc = efv_esl_certs(buf, len, write_cert, argv[2]);
	} else if (!strcmp(cmd, "shim-vendor-cert")) {
		if (argc != 2)
			return usage();
		if (read_all(0, EFV_MAX_INPUT, 0, &buf, &len) < 0)
			return 1;
		rc = efv_shim_vendor_cert(buf, len, &o);
	} else if (!strcmp(cmd, "decode-location")) {
		if (argc != 3 || (strcmp(argv[2], "utf16") && strcmp(argv[2], "utf8")))
			return usage();
		if (read_all(0, 4 + EFV_LOCATION_MAX, 1, &buf, &len) < 0)
			return 1;
		rc = efv_decode_location(buf, len, !strcmp(argv[2], "utf16"), &o);
	} else {
		return usage();
	}
	free(buf);
	if (o.oom) {
		fprintf(stderr, "efiresume-efivar: out of memory\n");
		rc = 1;
	}
	/* the perl printed what it had before exiting 1 only in esl-certs (files) */
	if (rc == 0 && o.len && write_all(1, o.s, o.len) < 0) {
		fprintf(stderr, "efiresume-efivar: cannot write the output: %s\n", strerror(errno));
		rc = 1;
	}
	out_free(&o);
	return rc;
}
#endif
