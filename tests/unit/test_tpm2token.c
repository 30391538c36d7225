// SPDX-License-Identifier: GPL-2.0-or-later
/* Host tests for volume/tpm2token.c (systemd's "systemd-tpm2" LUKS2 token).
 *
 * Oracles (tests/unit/data/tpm2token/oracle.sh regenerates them; docs/tpm2-token.md):
 *  - tok252_slot1..5: tokens written by the real systemd-cryptenroll 252 (Debian 12,
 *    252.38-1~deb12u1) into a LUKS2 file against swtpm, PCR 7 extended once: PCR 7,
 *    PCR 7 + PIN "1234", PCRs 0+7, no PCRs, and a signed PCR policy (--tpm2-public-key).
 *    Their tpm2-policy-hash was computed by the TPM in systemd's trial session, so the
 *    digest this code computes from the PCR values must equal it.
 *  - the PIN token's object was unsealed with tpm2-tools using authValue SHA-256("1234"),
 *    and base64 of the unsealed secret opened its keyslot (cryptsetup --test-passphrase).
 *  - pvecs: policy digests from tpm2-tools trial sessions (tpm2_policypcr -f with random
 *    selections over the sha1/sha256/sha384/sha512 banks, then tpm2_policyauthvalue).
 *  - systemd 253+ PIN derivation (no 253+ systemd here to run): PBKDF2 vectors from
 *    python's hashlib.pbkdf2_hmac, composed as systemd 257's acquire_luks2_key and
 *    cryptenroll-tpm2.c do (base64 then SHA-256); this half is read from the source,
 *    not run.
 *  - 257-shaped tokens: tok252_slot2 with the fields systemd 257's tpm2_make_luks2_json
 *    adds (tpm2_salt, tpm2_srk; tpm2_srk is a real serialized ESYS_TR written by
 *    tpm2_evictcontrol -o) and the one-element shard arrays 257's parser accepts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "volume/tpm2token.h"
#include "crypto/sha.h"
#include "unhex.h"

static const char tok252_slot1[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AJ4AIIEXb75a4kZDZg8MsOpz4QcTqY5YwzPNy"
	"w39f5/iGxijABCk6VogWkXRqYK/ADThGhTLm9URCDfekxDOWqKx8mGOeXUJfNF6w2MBDKrlylpx5AFkHvnkXuA+yUA"
	"nPb/6PUyrbBdan3zYnHXyM3deyLipg5qVH1ZRXOl0zRejgRqsB6rJ1He+P0j9aPfwe7k+GC6g5P3zOnJuhB7nywBOA"
	"AgACwAAABIAIIHphQDYZrKznMmGItKY9tR4mRozhAVFPz2EgIZ1wH4YABAAIKWbTkpwnQU1Wk6deAlXC3gGC+8PMqX"
	"rrR58orRhbyy/\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-pol"
	"icy-hash\":\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e18\",\"tpm2-pin\":fa"
	"lse}"
	;
static const char tok252_slot2[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"2\"],\"tpm2-blob\":\"AJ4AIKgvWSXMmhxMcQJpu6f4Qu/r78S43Kjjl"
	"EKxqT/L9s6+ABCgDLEOCJ1QIJSTsDOzeU48URXP3T+3SNcjUH8SGWcYjNzYUsXwTtj3drkn3l3pwXD5Pt8VWAGZ2LK"
	"BIO3kJJprP0TquiDZPfAJrFEkdslx+G1/LDK6Rei1EERyO56YvSGNgwekI4dOXeZnutGTrQl0VujwIrdQbiGi5gBOA"
	"AgACwAAABIAIF77Xl/sazEOaqvp7r7MSaGHjQqM5BRpN5IWDJOYk0BMABAAIJwUW85gXMNI1YL5vqFcFpTndmaSKUl"
	"AM2ofz6GAUKPx\",\"tpm2-pcrs\":[7],\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-pol"
	"icy-hash\":\"5efb5e5fec6b310e6aabe9eebecc49a1878d0a8ce414693792160c939893404c\",\"tpm2-pin\":tr"
	"ue}"
	;
static const char tok252_slot3[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"3\"],\"tpm2-blob\":\"AJ4AIM7y2XSVx0Uybw8H3q+9i4sPDukMKfVCQ"
	"7nygbUd181DABBPgCkNuM58Qp7kTv4kkUYUlHSDdotv+wkIcTXVU/ifcAiDI3RpqmVSghaLONcJJwJ54zAlUQ6o/8J"
	"kTDLshAx2u11tewX8nR0pB5FeWgsj6/0NRDHhpWnOTOSaEwBNv1T5K+Ce1YrQCQLrJ473Y6R7Dox5RLcjnf4oGwBOA"
	"AgACwAAABIAIHXhg3u705bmuX7jUP6sg8EiIrMbo0S13QCDcE9JrthbABAAIMmxxE6c8k/y7aWBXguoOFeTePLqPM8"
	"yZzMBdfTw6ME1\",\"tpm2-pcrs\":[0,7],\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-p"
	"olicy-hash\":\"75e1837bbbd396e6b97ee350feac83c12222b31ba344b5dd0083704f49aed85b\",\"tpm2-pin\":"
	"false}"
	;
static const char tok252_slot4[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"4\"],\"tpm2-blob\":\"AJ4AIL/U7gildbf1urb5OkEaY8Gd90BPUu6di"
	"HPaQkYTOKVCABAJ4+Q/i9kJ+6/3vK45hLnE6CuS8nAKacornTXOAeEeOLOVzyqtTq7BgoyGqnMGrh5hPEG+sWwHoKE"
	"1VG0tFbue6djE/yGjEPqOcidIrry0ZMCYNPY3ZPShtLpsfWJ/oC7tK/t7pZNWDWtFcH8T8rEFdS2ncfX7nqXQ9wBOA"
	"AgACwAAABIAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAIC2bAu5o93ZfQZ1LxIOHoxZI8Re5y8Y"
	"jWBAcWV/TDB2a\",\"tpm2-pcrs\":[],\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"000000000000000"
	"0000000000000000000000000000000000000000000000000\",\"tpm2-pin\":false}"
	;
static const char tok252_slot5[] =
	"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"5\"],\"tpm2-blob\":\"AJ4AILlOiX7lE8RhE+rkaZgkiqHGPP21FhQCA"
	"/HcFrBlzqEYABCjWOq7eY0xjAmdGvYHGuOWtH4/pA163+D5bauDvT5rwICeAfdrz13Y8OKsq6PhQQD10PK9nw/KD1e"
	"lH488BOIGb/fRdobNgsnFKoGQ+yds9vviTrxRVU+lwxXzuEgO3P2imbVAIXle7v3df+gIDlO2yk/r1o++b7qYnQBOA"
	"AgACwAAABIAIO3yXWPau3hWLPWvwOmtwQYWT045TGN5NOuP37Q1Qwd8ABAAILU0ouOmAIs88YZZvPipz7de7AUxyhy"
	"MZVroI9mK+3Oz\",\"tpm2-pcrs\":[],\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-poli"
	"cy-hash\":\"edf25d63dabb78562cf5afc0e9adc106164f4e394c637934eb8fdfb43543077c\",\"tpm2-pin\":fal"
	"se,\"tpm2_pubkey_pcrs\":[11],\"tpm2_pubkey\":\"LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUlJQklqQU5C"
	"Z2txaGtpRzl3MEJBUUVGQUFPQ0FROEFNSUlCQ2dLQ0FRRUFyemRJR2RTU01xY1pxYWxMVm9hVAoyd1BZSHZsWXN5NH"
	"VKRlVINStqRGZabndJQTV1MWVUcVRLNkMrc3ExVHE5bXRlOW1qQzc4VWFwUkYzWlJZSlVjClBCV0lhWlRkUE40UTl2"
	"TjJQRnhWbmZXeEhUR0dubjUrN2Rvdklab3lGUDlTVWhtN1kvYXJwTXVTQ0xEdFdIMHIKNWRmdHVFR0ZacTV4dll0YW"
	"VXbGJ2YWpqWUhGRGJaZXVLaHQ1SFRkOFk3QUpmckFib1c0em5WZ3gwNXhOZjBNTgpOa1JuMW9CQ3d5QjRIRm9BVG04"
	"aXpWYWZsWHdDNCtVdmpINW5ZSW9ybEdJc0phUXZ1cTFOdlhmZEx5ZG1pZjVwCnlSMHJva2xVdWovdW8wdDVGS01jSm"
	"oyWEhDeVNIc0l6MC9BbFB4VU0rNmF6V2VieTArSENEMUFiUkNpU0dVNGoKTlFJREFRQUIKLS0tLS1FTkQgUFVCTElD"
	"IEtFWS0tLS0tCg==\"}"
	;
static const struct pvec { uint32_t mask; const char *bank; int pin; const char *vals, *want; } pvecs[] = {
	{ 128, "sha256", 0,
	  "09f470dbb320423f2f775f45704bbf6b55e7bd9bb9fdfeeaeed8e5c0b53886d5",
	  "0cea09b6495dbad05384d2e481cb69e17472ec346ffbade762e16c96e04f337a" },
	{ 129, "sha256", 1,
	  "a20e75085a843885101f53108a59a32833d14fbc408c2f2f6f57252608a7557587262f3e950eec94bb91818c1c"
	  "508ddf149d01922349aef41d78f9e6b81998e5",
	  "e15c29eadf1d3808de680ab5135a4c3d18ab5fe84dac757e30e82410a46136d2" },
	{ 8388608, "sha256", 0,
	  "a09d4fb8d523791a3142c906424728a0951726bf3639103bff1d252b6621f65b",
	  "defc6196d6738c4767a3bee81edf94ecd3dcafff635d9b9fde7d267b77d1f1a5" },
	{ 8390415, "sha256", 1,
	  "ca8952c5bb3b1e299d675926c232e52171c35c436390f4da6721ecca469f79b05a52d813a5f9766bae8bdae4b8"
	  "1c69b0f3180b3a3ac8854a0ab7d6d883a01020dcfced7f1488c504d90422a96f241b023413f8123f308b35ccf8"
	  "dc4350108708c0d818bd4b3af2ae86081185e18eb0da1e33345672a111439649ae8c8edcfe3cea69b40c44d40c"
	  "75b3913cccb5a00b342313dcfa64490e540defbd94749315710ee2d0ddf12caffbd989e2a8928e71c50cae5785"
	  "19ca69ad07272f373af1b42dff2bf77bbb885daf6444505377dba0726a27833aa0c3ddf6fb0c9192e7727f0b38"
	  "7c18c92e4a34d1d41da2c64a7f366176aba94027658e22f74c3b6cb5a324c0",
	  "88a0b960bc55099ac592e236a7daba1db6527c3f1915a848c3b15d976c279190" },
	{ 65792, "sha1", 0,
	  "45e5eacd594964a8a520ca2d635df9b0717d5080bbf810652c09ba5e143d493a1e16799f97530096",
	  "413671c82ce43c2971f5d55df6d797ab1528cc5d7629184c84dedbb57c64edd8" },
	{ 2064, "sha384", 1,
	  "167b8dd34ba1bd599bde259c7b45bcb0fd7d44cfc4d985c011321a6b20a2ab775d22390c7fd7f2e293aebc2802"
	  "299ba65d0d9b0d8f8c9a638a328239bc74fbb32310a9cce326c107530ccff1a024ad6358b6ce5caea82c6875a0"
	  "ce430955e76d",
	  "8076bc85f2dda18f4ffed05c4e10657c39695d07eb27be0e74e4d3428578ece6" },
	{ 32768, "sha512", 0,
	  "bac5a001914ec0c5bf0929027e22f7a48b98b8e250b0dc4643d94dfedca4f941865cd304ce0c8bd1454493fa89"
	  "e359102556e302d06152434ebaad3694716a89",
	  "aca31e422350293fe4ab0f1deb76d4cd7a0780c6328b5ee8ad647468c5a80b1b" },
	{ 1082179, "sha1", 1,
	  "e15d8e9ac684a5075723c28f8cdeaff1bece96c1da9b4e69eeb1727068ba751d5f9f1c58f7d3a40decdc278c4a"
	  "b54a9d6c7f30eb6176aaecae4d61f0a8a5def6bf423dba931d83638a6946eec63b266d677e0e4c2b7fca3db54a"
	  "23eb74d31432a8afd9e18b703c37571539c53337bc5dab036e481030af4ea663ed69b45e9698d65435e0282f5b"
	  "69bae53bf5",
	  "81002ed0cde5f9c149cf5c41d3bb4a4a505f02a000d82fd213286db9b9c5f8ac" },
	{ 10756104, "sha256", 0,
	  "498c23116216bd3517bdfa46f3b7809526eec20afae5b3523188f4700e4ad254fecd1e4d65dcf2c54ad904f6ca"
	  "8b5ebb511e6c71104b30bd79696cf34ecae1963ffbd87cd5377395932d61c3cbbf80415f68239314e94848a144"
	  "190d48083297f2cb2a1a4aa84eed1df6c7d0a5860222be52cac630ce747e0fc228aa38f58bb3212b34577e4ff1"
	  "eaf4d3372b113358dd7bf5d907fb6ac054e26e2ceced3eb1b8",
	  "654a458f52f4e33f7ce4f465b4581e04375e905c1666c3e455c14b4509612394" },
	{ 1280032, "sha1", 1,
	  "e0c8d5d51218222d486012beabad14bd649ac6c3c16f2f03b701d92e47fe543221c637910037f0b20c19f12439"
	  "c5de8269e8df9e10b4b658f91732a4b96e56a4e29719144e9e3f7095b299a07ff5f5bd8998b8be77f78e2596aa"
	  "a020a87ecec306762284698d87ca931a7bf6264c9f358b08f8e4130bb64f",
	  "7a2e50f2f3f326ca71ca472b6759ca625db6ec585d2f2d5ac9bb1c427381ef68" },
	{ 786432, "sha384", 0,
	  "4e95be2e32107f06c60650f0036fb5f480efd000899c4978ac040a79d0d41c6d344ac3408a9c7b574ed7fff9d6"
	  "4d929ae1ee48ee82258c78ac76cb81e302a92631fb6c790ae6506a219596f64e0e9ff86f89921cd9df2d2258cc"
	  "aa999bbb3e89",
	  "c5a389a0c4f5d4466c2b09c38f4752ceb65ce803c301f11990b44ad451832dda" },
	{ 2639972, "sha1", 1,
	  "9170b07d807ea3251e248a125d3c7325cebb54a85bbcda993998d3f4cc5ce0edd0be6beb46fbac55bfec0767b2"
	  "bd1a243e6a1dca2b11bb91f22120c42ed42163ccc776c1b18bc2dc8d0f739d7f86d64ac81c6594f07965eb8606"
	  "27a251aad61023a7d44bc0eef2a475637288219da39ddb8ad36e1c926ee10b077e1973afd69025f958cf870f71"
	  "7e0110b608",
	  "406c420305c90e918f0347984cac2e7886203ae34b6b4cff2fad97be4dba1dd4" },
	{ 1507350, "sha256", 0,
	  "bad284a188ca97436c898ac1ac225fc05c541719a3c0f335f3657863fe086e032db12642f64521c8b794a6220d"
	  "ce89d158118deee7dc77ad799b4d737cd5b2b0bb6b91e994cab4ade6064915e8d0a0d0148df22157e946013ba9"
	  "ec1856860937ec92561e96a62ac6a18c808b774741292265493db5114cbc693c68285fc953b5ed02ba6497225e"
	  "fd731908d9b11136c49c3f7abde33e0301e1c74af6bff56d284cd57eba2bcbdb9bc4597f3bb15821525ac9860d"
	  "f16f04970d000e4f04fe2d8ad2cb8820caca527044a053fb4c12c7a2c85ae9e80df4df9ca6e0bef2d2c9edba",
	  "cfd0158b15f0d0e9fe41cf0cc2b418d04f2178d3d5c4949f6c12cda3d828dcf5" },
	{ 262272, "sha512", 1,
	  "3c2a7c4a13fb25ffde3f03cc0aa31d03951a09570ef1db7d59c729dbe4e5051b4be3db558470f16519ee6f76c1"
	  "ecd5c353e4ec3d7e75f99207d562543b5eb25a06af8c2048790bf52b97959da0eecec5fb36f0768576b8cc7bbf"
	  "428c7ab37ff08b73b9f1b7ae7bbdecdb77ff20142ae2786e0c4ddc3c88917f04ab1d5434cd70",
	  "36b2f5f209b759a36e83a08e517f822bd6eac6f342c2bce2429d7e2cb807ed3b" },
	{ 6938626, "sha384", 0,
	  "d3f7124667aa31bad5182870a9eadb0bc663e965cf44482002e592dade17028f351dddfb90adedf3431a6be05c"
	  "aa45cbe7350943186f587763fe2493f4ef580927bf32f463917655d7ac29de69c9662318c26d006324b98cedcd"
	  "2b22ebf82e59d98413a6fd6850617922b1333e2e0a1d929f03a4e02a0e27cfcf04fd68bf9b6558c2183919e463"
	  "4bf16e762acb340cbd070733d76d73b9aa0fca6f791f2198d58fa430f3eee8a0d1a0b942ada3805fe151d40579"
	  "df1c0ce559fa1703a6938b63ff8dce97f4803b0ae2b6b3495b3180ddf2d9b31d37ae9e484f7e391e6ae9e0affe"
	  "db5558de05ed14175c2505e4e83c69fd867ea59722fae82c8affa697d12a4acd5591175cffb01c3e3e73be189f"
	  "e58584a45848ca65db8188768c756e7b0bf1a97086a39fc8900c6abb2cb4d871ebde21db404a6734fca340d589"
	  "5b36bb59046b3ef5bf3ad02b66af50caa78a9f08dd0f6af099d542a2f7441920dffacdab03a871115367e5375b"
	  "e0069932a8685a6b9b3ff834b9381b168ad398213d775815",
	  "ae2b64fc265f03d82046136b440ccd9333e75a058280df7d0cb8ab0fc4b2c73c" },
	{ 12290, "sha512", 1,
	  "b137f736dc61b4e62b071ed7b3044890c61b60d87d4cf9fa2428068949029b5e92d1b08130fc2d51e8eee9b7f9"
	  "87662fad374756671f082359ff8d4e2afa455834aad6cb4bfb4a71297dc9d2899172bb9aa1e9209c8ca46682f2"
	  "2c5c552c0eb116a3f13bf04f0041a0bbb6c9353806f8af01bdb29e813a98fee31f6d0515e4e6b79bbca0ec6b89"
	  "a834ece8211b6ad2198c7c5dec8a648c00f1010fe4e9587d46899a2c741a278dceb025759c0035bfaab1df3498"
	  "5c1670b6bae08ce23a9aba8d",
	  "da2342a34a5ac66891b354288ec8ee2564cd80ca9a8692de495ebaacadb537e1" },
};

/* tpm2_evictcontrol -C o -c <systemd's ECC primary> 0x81000001 -o srk.tr, base64 */
#define SRK_TR "gQAAAQAiAAuktWoBhDS0pjlcxn5g6o6M1Gjzrc4Y/ndw4nN7zQfVWQAAAAEAWgAjAAsAAwByAAAABgCAAEMAEAADABAAIFBJ2gXtTpwhFPbtLh1Fbw7ERVL2mVv4C+sB8OlpNWXsACAsOl9Pl6dI34eLs8d3A1zavfqCxpwDq3NLKfSd9+UgPQ=="
#define SALT32 "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

/* PCR values of the enrolment (sha256 bank) */
#define PCR0 "0000000000000000000000000000000000000000000000000000000000000000"
#define PCR7 "3535f793d72d302755be706835643f36e9ce41d9df32e15a7d4ab1e9f70211a3"

static char docbuf[8192];

/* base with the first occurrence of from replaced by to (the test fails when absent) */
static const char *subst(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	assert_non_null(at);
	int n = snprintf(docbuf, sizeof(docbuf), "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
	assert_true(n > 0 && (size_t)n < sizeof(docbuf));
	return docbuf;
}

static struct er_tpm2_token tok;

static int parse_doc(const char *doc, const char **why)
{
	struct er_json root;
	assert_int_equal(er_json_parse(doc, strlen(doc), &root, NULL), 0);
	return er_tpm2_token_parse(&root, &tok, why);
}

static void expect_ok(const char *doc)
{
	const char *why = "unset";
	int st = parse_doc(doc, &why);
	if (st)
		fail_msg("refused (%d): %s", st, why);
	assert_string_equal(why, "");
}

/* refused with this status and a reason containing what */
static void expect(const char *doc, int status, const char *what)
{
	const char *why = NULL;
	int st = parse_doc(doc, &why);
	if (st != status || !why || !strstr(why, what))
		fail_msg("got %d \"%s\", want %d \"...%s...\"", st, why ? why : "(null)", status, what);
	/* a refused token leaves nothing behind */
	static const struct er_tpm2_token zero;
	assert_memory_equal(&tok, &zero, sizeof(zero));
}

static void policy_of(uint32_t mask, const char *values_hex, bool pin, uint8_t out[32])
{
	uint8_t v[24 * 64];
	size_t n = unhex(values_hex, v, sizeof(v));
	assert_true(er_tpm2_policy_digest(mask, ER_TPM2_ALG_SHA256, v, n, pin, out));
}

static void test_real_252(void **state)
{
	(void)state;
	uint8_t d[32], want[32];

	/* PCR 7, no PIN */
	expect_ok(tok252_slot1);
	assert_int_equal(tok.keyslots, 1u << 1);
	assert_int_equal(tok.pcr_mask, 1u << 7);
	assert_int_equal(tok.pcr_bank, ER_TPM2_ALG_SHA256);
	assert_false(tok.pcr_bank_implied);
	assert_int_equal(tok.primary_alg, ER_TPM2_ALG_ECC);
	assert_false(tok.pin);
	assert_int_equal(tok.blob_len, 240);
	assert_int_equal(tok.priv_len, 2 + 158);
	assert_int_equal(tok.pub_len, 2 + 78);
	assert_int_equal(tok.salt_len, 0);
	assert_int_equal(tok.srk_len, 0);
	assert_int_equal(tok.policy_hash_len, 32);
	policy_of(1u << 7, PCR7, false, d);
	assert_memory_equal(d, tok.policy_hash, 32);
	/* a different PCR 7 value gives another digest */
	policy_of(1u << 7, PCR0, false, d);
	assert_memory_not_equal(d, tok.policy_hash, 32);

	/* PCR 7 + PIN */
	expect_ok(tok252_slot2);
	assert_int_equal(tok.keyslots, 1u << 2);
	assert_true(tok.pin);
	policy_of(1u << 7, PCR7, true, d);
	assert_memory_equal(d, tok.policy_hash, 32);
	policy_of(1u << 7, PCR7, false, d);
	assert_memory_not_equal(d, tok.policy_hash, 32);

	/* PCRs 0 + 7: values in ascending PCR order */
	expect_ok(tok252_slot3);
	assert_int_equal(tok.pcr_mask, 1u << 0 | 1u << 7);
	policy_of(1u << 0 | 1u << 7, PCR0 PCR7, false, d);
	assert_memory_equal(d, tok.policy_hash, 32);
	policy_of(1u << 0 | 1u << 7, PCR7 PCR0, false, d);
	assert_memory_not_equal(d, tok.policy_hash, 32);

	/* no PCRs: no bank written (systemd 252), policy all zero */
	expect_ok(tok252_slot4);
	assert_int_equal(tok.pcr_mask, 0);
	assert_true(tok.pcr_bank_implied);
	assert_int_equal(tok.pcr_bank, ER_TPM2_ALG_SHA256);
	assert_true(er_tpm2_policy_digest(0, 0, NULL, 0, false, d));
	memset(want, 0, sizeof(want));
	assert_memory_equal(d, want, 32);
	assert_memory_equal(tok.policy_hash, want, 32);

	/* signed PCR policy */
	expect(tok252_slot5, ER_TPM2TOK_UNSUPPORTED, "tpm2_pubkey");
}

static void test_policy_tpm2_tools(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pvecs) / sizeof(pvecs[0]); i++) {
		const struct pvec *p = &pvecs[i];
		uint16_t bank = !strcmp(p->bank, "sha1") ? ER_TPM2_ALG_SHA1 :
				!strcmp(p->bank, "sha256") ? ER_TPM2_ALG_SHA256 :
				!strcmp(p->bank, "sha384") ? ER_TPM2_ALG_SHA384 : ER_TPM2_ALG_SHA512;
		uint8_t v[24 * 64], want[32], got[32];
		size_t n = unhex(p->vals, v, sizeof(v));
		unhex(p->want, want, sizeof(want));
		assert_true(er_tpm2_policy_digest(p->mask, bank, v, n, p->pin, got));
		if (memcmp(got, want, 32))
			fail_msg("vector %zu (mask %#x %s pin %d) differs from tpm2-tools", i, p->mask, p->bank, p->pin);
		/* wrong length of values, wrong bank */
		assert_false(er_tpm2_policy_digest(p->mask, bank, v, n - 1, p->pin, got));
		assert_false(er_tpm2_policy_digest(p->mask, 0x0012, v, n, p->pin, got));
	}
	uint8_t d[32];
	assert_false(er_tpm2_policy_digest(1u << 24, ER_TPM2_ALG_SHA256, NULL, 0, false, d));
	assert_false(er_tpm2_policy_digest(1u, ER_TPM2_ALG_SHA256, NULL, 32, false, d));
}

static void check_auth(const char *pin, const char *salt_hex, const char *want_hex)
{
	uint8_t salt[64], want[32], got[32];
	size_t sl = salt_hex ? unhex(salt_hex, salt, sizeof(salt)) : 0;
	size_t wl = unhex(want_hex, want, sizeof(want)), gl = 99;
	assert_true(er_tpm2_pin_auth((const uint8_t *)pin, strlen(pin), sl ? salt : NULL, sl, got, &gl));
	assert_int_equal(gl, wl);
	assert_memory_equal(got, want, wl);
}

static void test_pin_auth(void **state)
{
	(void)state;
	static const char salt32[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	/* 252: SHA-256(PIN); the TPM unsealed slot 2's object with exactly this authValue */
	check_auth("1234", NULL, "03ac674216f3e15c761ee1a5e255f067953623c8b388b4459e13f978d7c846f4");
	/* trailing zero byte trimmed: SHA-256("pin191") ends in 00 */
	check_auth("pin191", NULL, "a8c21861b43f3d333bcf0ad8ec25a0b78dd95d48199c7ce7cd446a5f95aff3");
	/* 253..257: SHA-256(base64(PBKDF2-HMAC-SHA256(PIN, salt, 10000, 32))) */
	check_auth("1234", salt32, "707057c835474da74bcd75b848540fe2bbbf46d9d30a96b148814aecadeddedd");
	check_auth("correct horse battery staple", "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
		   "d392860b7591926f62dedbbc8975a7f5c84646fe29c7da1865de6f704b8ba4c6");
	check_auth("150", salt32, "11f765eb29659dda56dcd62d5e0d5748660b40fbf3d09a4cdbc843fe5d7c76");
	/* refused: empty, NUL inside, too long, salt length without salt */
	uint8_t out[32], big[ER_TPM2_PIN_MAX + 1];
	size_t n;
	memset(big, 'x', sizeof(big));
	assert_false(er_tpm2_pin_auth((const uint8_t *)"", 0, NULL, 0, out, &n));
	assert_false(er_tpm2_pin_auth((const uint8_t *)"12\0" "4", 4, NULL, 0, out, &n));
	assert_false(er_tpm2_pin_auth(big, sizeof(big), NULL, 0, out, &n));
	assert_true(er_tpm2_pin_auth(big, sizeof(big) - 1, NULL, 0, out, &n));
	assert_false(er_tpm2_pin_auth((const uint8_t *)"1234", 4, NULL, 16, out, &n));
}

static void test_passphrase(void **state)
{
	(void)state;
	/* unsealed from slot 2 by tpm2-tools; this base64 opened keyslot 2 */
	uint8_t secret[32];
	char out[64];
	size_t n;
	unhex("9d6022b4c5b68724470701dc0583a76cbe50ae2942b683f3acf39b02d5936393", secret, sizeof(secret));
	assert_true(er_tpm2_passphrase(secret, 32, out, sizeof(out), &n));
	assert_string_equal(out, "nWAitMW2hyRHBwHcBYOnbL5QrilCtoPzrPObAtWTY5M=");
	assert_int_equal(n, 44);
	assert_false(er_tpm2_passphrase(secret, 32, out, 44, &n));
	assert_true(er_tpm2_passphrase(secret, 32, out, 45, &n));
	assert_true(er_tpm2_passphrase((const uint8_t *)"f", 1, out, sizeof(out), &n));
	assert_string_equal(out, "Zg==");
	assert_true(er_tpm2_passphrase((const uint8_t *)"fo", 2, out, sizeof(out), &n));
	assert_string_equal(out, "Zm8=");
	assert_true(er_tpm2_passphrase((const uint8_t *)"", 0, out, 1, &n));
	assert_string_equal(out, "");
}

static void test_257_shapes(void **state)
{
	(void)state;
	char doc[8192];
	/* PIN token as 257 writes it: tpm2_salt and tpm2_srk appended */
	snprintf(doc, sizeof(doc), "%s", subst(tok252_slot2, "\"tpm2-pin\":true",
		 "\"tpm2-pin\":true,\"tpm2_salt\":\"" SALT32 "\",\"tpm2_srk\":\"" SRK_TR "\""));
	expect_ok(doc);
	assert_true(tok.pin);
	assert_int_equal(tok.salt_len, 32);
	assert_int_equal(tok.salt[31], 0x1f);
	assert_int_equal(tok.srk_len, 136);
	assert_int_equal(tok.srk_handle, 0x81000001u);
	/* 257 omits tpm2-pin when false and may write tpm2_pcrlock false */
	expect_ok(subst(tok252_slot1, ",\"tpm2-pin\":false", ",\"tpm2_pcrlock\":false"));
	assert_false(tok.pin);
	/* one-element shard arrays */
	const char *b = strstr(tok252_slot1, "\"tpm2-blob\":\"") + 13;
	const char *e = strchr(b, '"');
	char blob[1024], arr[1100];
	snprintf(blob, sizeof(blob), "\"%.*s\"", (int)(e - b), b);
	snprintf(arr, sizeof(arr), "[%s]", blob);
	snprintf(doc, sizeof(doc), "%s", subst(tok252_slot1, blob, arr));
	expect_ok(doc);
	assert_int_equal(tok.blob_len, 240);
	expect_ok(subst(doc, "\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e18\"",
			"[\"81E98500D866B2B39CC98622D298F6D478991A338405453F3D84808675C07E18\"]"));
	/* legacy (< 250): no bank, no primary alg -> SHA-256, ECC */
	snprintf(doc, sizeof(doc), "%s", subst(tok252_slot1, ",\"tpm2-pcr-bank\":\"sha256\"", ""));
	expect_ok(subst(doc, ",\"tpm2-primary-alg\":\"ecc\"", ""));
	assert_true(tok.pcr_bank_implied);
	assert_int_equal(tok.primary_alg, ER_TPM2_ALG_ECC);
	/* other banks / RSA, names case-insensitive as in systemd */
	expect_ok(subst(tok252_slot1, "\"sha256\"", "\"SHA1\""));
	assert_int_equal(tok.pcr_bank, ER_TPM2_ALG_SHA1);
	expect_ok(subst(tok252_slot1, "\"sha256\"", "\"sha384\""));
	assert_int_equal(tok.pcr_bank, ER_TPM2_ALG_SHA384);
	expect_ok(subst(tok252_slot1, "\"ecc\"", "\"rsa\""));
	assert_int_equal(tok.primary_alg, ER_TPM2_ALG_RSA);
	/* several keyslots, numbers accepted */
	expect_ok(subst(tok252_slot1, "[\"1\"]", "[\"1\",\"31\",0]"));
	assert_int_equal(tok.keyslots, 1u << 1 | 1u << 31 | 1u);
}

static void test_unsupported(void **state)
{
	(void)state;
	char doc[8192];
	const int U = ER_TPM2TOK_UNSUPPORTED;
	expect(subst(tok252_slot1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pcrlock\":true,"
		     "\"tpm2_pcrlock_nv\":\"AAAA\""), U, "pcrlock");
	expect(tok252_slot5, U, "signed PCR policy");
	expect(subst(tok252_slot1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pubkey\":\"AAAA\""),
	       U, "tpm2_pubkey");
	/* two shards */
	const char *b = strstr(tok252_slot1, "\"tpm2-blob\":\"") + 13;
	const char *e = strchr(b, '"');
	char blob[1024], arr[2200];
	snprintf(blob, sizeof(blob), "\"%.*s\"", (int)(e - b), b);
	snprintf(arr, sizeof(arr), "[%s,%s]", blob, blob);
	expect(subst(tok252_slot1, blob, arr), U, "tpm2-blob has several shards");
	expect(subst(tok252_slot1, "\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e18\"",
		     "[\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e18\",\"00\"]"),
	       U, "tpm2-policy-hash has several shards");
	expect(subst(tok252_slot1, "\"ecc\"", "\"ecdaa\""), U, "tpm2-primary-alg");
	expect(subst(tok252_slot1, "\"sha256\"", "\"sm3_256\""), U, "tpm2-pcr-bank");
	/* blob with an encrypted seed appended (257 offline sealing): 2-byte size + 2 bytes */
	snprintf(doc, sizeof(doc), "%s", subst(tok252_slot1, "rrR58orRhbyy/\"", "rrR58orRhbyy/AAIBAg==\""));
	expect(doc, U, "encrypted seed");
}

static void test_malformed(void **state)
{
	(void)state;
	const int M = ER_TPM2TOK_MALFORMED;
	const char *s1 = tok252_slot1;
	expect("[]", M, "not a JSON object");
	expect(subst(s1, "systemd-tpm2", "systemd-fido2"), M, "type");
	expect(subst(s1, "\"keyslots\":[\"1\"],", ""), M, "keyslots");
	expect(subst(s1, "[\"1\"]", "[]"), M, "keyslots");
	expect(subst(s1, "[\"1\"]", "[\"32\"]"), M, "keyslots");
	expect(subst(s1, "[\"1\"]", "[\"x\"]"), M, "keyslots");
	expect(subst(s1, "[\"1\"]", "[\"-1\"]"), M, "keyslots");
	expect(subst(s1, "\"tpm2-pcrs\":[7],", ""), M, "tpm2-pcrs missing");
	expect(subst(s1, "[7]", "[24]"), M, "tpm2-pcrs");
	expect(subst(s1, "[7]", "[-1]"), M, "tpm2-pcrs");
	expect(subst(s1, "[7]", "[7.0]"), M, "tpm2-pcrs");
	expect(subst(s1, "[7]", "[\"7\"]"), M, "tpm2-pcrs");
	expect(subst(s1, "[7]", "7"), M, "tpm2-pcrs");
	expect(subst(s1, "\"sha256\"", "256"), M, "tpm2-pcr-bank");
	expect(subst(s1, "\"ecc\"", "null"), M, "tpm2-primary-alg");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":\"no\""), M, "tpm2-pin");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pcrlock\":1"), M, "tpm2_pcrlock");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pubkey_pcrs\":[11]"),
	       M, "without tpm2_pubkey");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_pubkey_pcrs\":[99]"),
	       M, "tpm2_pubkey_pcrs");
	/* policy hash */
	const char *ph = "\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e18\"";
	expect(subst(s1, ph, "\"81e\""), M, "tpm2-policy-hash");
	expect(subst(s1, ph, "\"zz\""), M, "tpm2-policy-hash");
	expect(subst(s1, ph, "\"\""), M, "tpm2-policy-hash");
	expect(subst(s1, ph, "[]"), M, "tpm2-policy-hash");
	expect(subst(s1, ph, "17"), M, "tpm2-policy-hash");
	expect(subst(s1, ph, "\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e19\""),
	       M, "authPolicy");
	expect(subst(s1, ph, "\"81e98500d866b2b39cc98622d298f6d478991a338405453f3d84808675c07e\""),
	       M, "authPolicy");
	char big[200];
	memset(big, 'a', 130); big[0] = '"'; big[130] = '"'; big[131] = 0;
	expect(subst(s1, ph, big), M, "tpm2-policy-hash");
	/* blob */
	expect(subst(s1, "\"AJ4AIIEX", "\"AJ4AIIEX!"), M, "tpm2-blob");
	expect(subst(s1, "rrR58orRhbyy/\"", "rrR58orRhbyy\""), M, "tpm2-blob");     /* not 4n */
	expect(subst(s1, "rrR58orRhbyy/\"", "rrR58orRhbyy/AA==\""), M, "tpm2-blob"); /* trailing */
	expect(subst(s1, "rrR58orRhbyy/\"", "rrR58orRhby=\""), M, "tpm2-blob");      /* noncanonical */
	expect(subst(s1, "\"AJ4AIIEX", "\"AJ8AIIEX"), M, "TPM2B_PUBLIC");          /* priv size +1 */
	expect(subst(s1, "\"AJ4AIIEX", "\"//8AIIEX"), M, "TPM2B_PRIVATE");         /* 0xffff */
	expect(subst(s1, "\"AJ4AIIEX", "\"AAAAIIEX"), M, "TPM2B_PRIVATE");         /* size 0 */
	expect(subst(s1, "nywBOAAgACwAAABIAII", "nywBOAAcACwAAABIAII"), M, "keyed-hash"); /* type 7 */
	expect(subst(s1, "nywBOAAgACwAAABIAII", "nywBOAAgACAAAABIAII"), M, "nameAlg");
	expect(subst(s1, "\"tpm2-blob\"", "\"tpm2-blub\""), M, "tpm2-blob missing");
	char huge[3200];
	size_t n = 0;
	huge[n++] = '"';
	while (n < 2740) { memcpy(huge + n, "AAAA", 4); n += 4; }
	huge[n++] = '"'; huge[n] = 0;
	const char *b = strstr(s1, "\"tpm2-blob\":\"") + 12;
	const char *e = strchr(b + 1, '"');
	char blob[1024];
	snprintf(blob, sizeof(blob), "%.*s", (int)(e + 1 - b), b);
	expect(subst(s1, blob, huge), M, "tpm2-blob");
	/* salt, srk */
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_salt\":\"\""), M, "tpm2_salt");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_salt\":\"A\""), M, "tpm2_salt");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_salt\":5"), M, "tpm2_salt");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_srk\":\"AAAAAQ==\""), M, "persistent");
	expect(subst(s1, "\"tpm2-pin\":false", "\"tpm2-pin\":false,\"tpm2_srk\":\"gQA=\""), M, "tpm2_srk");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_252),
		cmocka_unit_test(test_policy_tpm2_tools),
		cmocka_unit_test(test_pin_auth),
		cmocka_unit_test(test_passphrase),
		cmocka_unit_test(test_257_shapes),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
