#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerates the oracle data that tests/unit/test_tpm2token.c embeds, with the real
# programs, against a throw-away swtpm on 127.0.0.1 (run as root: cryptsetup on a file).
#   tests/unit/data/tpm2token/oracle.sh enrol    -> 252-slot*.json here (or in $TPM2_ORACLE_OUT), plus the PCR
#        values, the unsealed secret of the PIN token (unsealed with tpm2-tools using
#        authValue = SHA-256(PIN)), and a check that base64(secret) opens its keyslot
#   tests/unit/data/tpm2token/oracle.sh policy   -> "mask bank pin values expected" lines:
#        policy digests from tpm2-tools trial sessions (tpm2_policypcr -f, tpm2_policyauthvalue)
# Needs: systemd-cryptenroll (systemd 252 on Debian 12), cryptsetup, swtpm, tpm2-tools, python3.
set -euo pipefail
here=${TPM2_ORACLE_OUT:-$(cd "$(dirname "$0")" && pwd)}
mode=${1:-policy}
. "$(dirname "$0")/../../../lib/swtpm.sh"
w=$(mktemp -d)
trap 'kill "${SWTPM_TCP_PID:-}" 2>/dev/null || true; rm -rf "$w"' EXIT
swtpm_tcp_tools "$w/state" "${TPM2_ORACLE_PORT:-23431}"
dev=$TPM2TOOLS_TCTI
# systemd 252 leaves its sessions loaded (no resource manager in between): flush them
flush() { tpm2_flushcontext -l >/dev/null; tpm2_flushcontext -t >/dev/null; }

if [ "$mode" = enrol ]; then
	tpm2_pcrextend 7:sha256="$(printf efiresume-pcr7 | sha256sum | cut -c1-64)"
	cd "$w"
	truncate -s 20M disk.img
	printf oldpass | cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 disk.img -
	openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out priv.pem 2>/dev/null
	openssl pkey -in priv.pem -pubout -out pub.pem
	PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$dev" --tpm2-pcrs=7 disk.img; flush
	PASSWORD=oldpass NEWPIN=1234 systemd-cryptenroll --tpm2-device="$dev" --tpm2-pcrs=7 --tpm2-with-pin=yes disk.img; flush
	PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$dev" --tpm2-pcrs=0+7 disk.img; flush
	PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$dev" --tpm2-pcrs= disk.img; flush
	PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$dev" --tpm2-pcrs= --tpm2-public-key=pub.pem \
		--tpm2-public-key-pcrs=11 disk.img; flush
	for i in 0 1 2 3 4; do
		cryptsetup token export --token-id $i disk.img > "$here/252-slot$((i + 1)).json"
	done
	echo "PCR 0,7 (sha256):"; tpm2_pcrread sha256:0,7 -o pcr.bin >/dev/null; xxd -p pcr.bin | tr -d '\n'; echo
	# unseal the PIN token (keyslot 2) the way systemd 252 does, with tpm2-tools
	python3 - "$here/252-slot2.json" <<'EOF'
import json, base64, sys
b = base64.b64decode(json.load(open(sys.argv[1]))['tpm2-blob'])
n = int.from_bytes(b[:2], 'big')
open('priv.bin', 'wb').write(b[:2 + n]); open('pub.bin', 'wb').write(b[2 + n:])
EOF
	tpm2_createprimary -C o -g sha256 -G ecc256:aes128cfb \
		-a 'restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth' -c prim.ctx >/dev/null
	tpm2_load -C prim.ctx -u pub.bin -r priv.bin -c obj.ctx >/dev/null; flush
	tpm2_startauthsession --policy-session -S s.ctx
	tpm2_policypcr -S s.ctx -l sha256:7 >/dev/null
	tpm2_policyauthvalue -S s.ctx >/dev/null
	auth=$(printf 1234 | sha256sum | cut -c1-64)
	tpm2_unseal -c obj.ctx -p "session:s.ctx+hex:$auth" -o secret.bin
	echo "secret: $(xxd -p secret.bin | tr -d '\n')"
	base64 -w0 secret.bin > pass.txt
	echo "passphrase: $(cat pass.txt)"
	cryptsetup open --test-passphrase --key-slot 2 --key-file pass.txt disk.img && echo "keyslot 2 opens with it"
	# a serialized ESYS_TR of a persistent SRK, as systemd >= 255 stores in tpm2_srk
	tpm2_evictcontrol -C o -c prim.ctx 0x81000001 -o srk.tr >/dev/null
	echo "srk.tr: $(base64 -w0 srk.tr)"
	exit 0
fi

# policy: random PCR selections and values (fixed seed), each through a trial session
cd "$w"
python3 - <<'EOF' > cases
import random
rnd = random.Random(25)
lens = {'sha1': 20, 'sha256': 32, 'sha384': 48, 'sha512': 64}
fixed = [(1 << 7, 'sha256'), ((1 << 0) | (1 << 7), 'sha256'), (1 << 23, 'sha256'),
         (0x80070f, 'sha256'), ((1 << 8) | (1 << 16), 'sha1'), (1 << 4 | 1 << 11, 'sha384'),
         (1 << 15, 'sha512')]
# tpm2_policypcr takes at most 8 PCRs with -f
cases = fixed + [(sum(1 << i for i in rnd.sample(range(24), rnd.randrange(1, 9))), rnd.choice(list(lens)))
                 for _ in range(9)]
for i, (mask, bank) in enumerate(cases):
    n = bin(mask).count('1')
    vals = bytes(rnd.randrange(256) for _ in range(n * lens[bank]))
    print(mask, bank, i % 2, vals.hex())
EOF
while read -r mask bank pin vals; do
	list=$(python3 -c "print(','.join(str(i) for i in range(24) if $mask >> i & 1))")
	printf '%s' "$vals" | xxd -r -p > vals.bin
	tpm2_startauthsession -S s.ctx
	tpm2_policypcr -S s.ctx -l "$bank:$list" -f vals.bin -L pol.bin >/dev/null
	[ "$pin" = 1 ] && tpm2_policyauthvalue -S s.ctx -L pol.bin >/dev/null
	tpm2_flushcontext s.ctx
	echo "$mask $bank $pin $vals $(xxd -p pol.bin | tr -d '\n')"
done < cases
