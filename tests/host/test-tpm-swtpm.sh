#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tpm/ against a real TPM 2.0: starts swtpm in socket mode, provisions it
# with tpm2-tools as systemd-cryptenroll would (a persistent ECC P-256 SRK at 0x81000001, a
# secret sealed under it with a PCR 7 sha256 policy), then runs build/unit/test_tpm_swtpm,
# which talks to swtpm with tpm/'s own marshalled commands and session crypto (GetCapability,
# PCR_Read, ReadPublic, CreatePrimary, unsalted and salted/encrypted policy sessions,
# PolicyPCR, Load, Unseal, and the refusals: wrong salt, tampered response, PCR 7 extended).
# Then, on two fresh swtpm instances A and B, the firmware's unseal flow (tpm/unseal.c,
# loader/tpmunlock.c: build/unit/test_tpm_unseal_swtpm) on LUKS2 tokens the host's own
# systemd-cryptenroll (252) writes against A (PCR 7; PCR 7 + PIN 1234) and on a token sealed
# the way systemd 257 does (under the persistent SRK, tpm2_srk): each unsealed secret opens its
# keyslot (checked by er_luks_unlock and by cryptsetup), a wrong PIN, the DA lockout, B
# (another TPM) and PCR 7 extended are refused as such.
# Prints "ok:"/"FAIL:" lines and "N passed, M failed".
#   tests/host/test-tpm-swtpm.sh    (needs swtpm, tpm2-tools, cryptsetup, systemd-cryptenroll: tests/lib/deps.sh;
#                                    make build/unit/test_tpm_swtpm build/unit/test_tpm_unseal_swtpm)
#   ER_TPMU_RECORD=<dir>: the unseal flow's transcripts written there (tests/unit/data/tpmunseal/)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/build/unit/test_tpm_swtpm}
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; exit $?; }
for t in swtpm tpm2_createprimary tpm2_create tpm2_createpolicy tpm2_evictcontrol tpm2_pcrread; do
	command -v $t >/dev/null || { fail "no $t (tests/lib/deps.sh installs swtpm, tpm2-tools)"; finish; }
done
[ -x "$BIN" ] || { fail "no $BIN (make build/unit/test_tpm_swtpm)"; finish; }
W=$(mktemp -d /tmp/tpm-swtpm.XXXXXX)
UBIN=${UBIN:-$TOP/build/unit/test_tpm_unseal_swtpm}
swtpm_pid= pid_a= pid_b=
cleanup() {
	for p in $swtpm_pid $pid_a $pid_b; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

. "$TOP/tests/lib/swtpm.sh"
swtpm_tcp_up "$W/state" swtpm
swtpm_pid=$SWTPM_TCP_PID port=$SWTPM_TCP_PORT

export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
prov() {   # what, command...
	local what=$1; shift
	if "$@" >>"$W/prov.log" 2>&1; then ok "provision: $what"; else fail "provision: $what: $(tail -3 "$W/prov.log")"; finish; fi
}
cd "$W"
prov "ECC P-256 SRK (the TCG/systemd template)" tpm2_createprimary -C o -g sha256 -G ecc256:null:aes128cfb \
	-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt' -c srk.ctx
prov "SRK persistent at 0x81000001" tpm2_evictcontrol -C o -c srk.ctx 0x81000001
prov "flush transients" tpm2_flushcontext -t
prov "PCR 7 (sha256) read" tpm2_pcrread sha256:7 -o pcr7.bin
od -An -tx1 -v pcr7.bin | tr -d ' \n' > pcr7
prov "PCR 7 policy (trial session)" tpm2_createpolicy --policy-pcr -l sha256:7 -L pcr7.policy
head -c 32 /dev/urandom > secret
prov "secret sealed under the SRK with the PCR 7 policy" tpm2_create -C 0x81000001 -g sha256 -i secret \
	-L pcr7.policy -a 'fixedtpm|fixedparent' -u seal.pub -r seal.priv
# a PIN as systemd-cryptenroll --tpm2-with-pin does: PolicyPCR + PolicyAuthValue, the object's
# authValue the PIN (raw bytes here; systemd hashes the PIN first), dictionary-attack protected
prov "PCR 7 + auth value policy (trial session)" bash -c 'tpm2_startauthsession -S pin.session &&
	tpm2_policypcr -S pin.session -l sha256:7 && tpm2_policyauthvalue -S pin.session -L pin.policy &&
	tpm2_flushcontext pin.session'
prov "secret sealed with the PIN 1234" tpm2_create -C 0x81000001 -g sha256 -i secret -L pin.policy -p 1234 \
	-a 'fixedtpm|fixedparent' -u pin.pub -r pin.priv
prov "dictionary lockout: 3 tries" tpm2_dictionarylockout -s -n 3 -t 600 -l 600
prov "flush sessions" tpm2_flushcontext -s
cd "$TOP"

ER_SWTPM_PORT=$port ER_SWTPM_DIR=$W "$BIN" >"$W/out" 2>&1; rc=$?
sed -n 's/^# /  tpm: /p' "$W/out"
while read -r tag name; do
	case "$tag" in
		OK) ok "$name" ;;
		FAILED) fail "$name: $(grep -A3 -F "$name" "$W/out" | grep -m1 -E 'error|Failure|failed' || true)" ;;
		SKIPPED) fail "$name skipped (no TPM reached)" ;;
	esac
done < <(sed -n '/test(s) run\./q; s/^\[ *\(OK\|FAILED\|SKIPPED\) *\] \(test_[a-z_0-9]*\)$/\1 \2/p' "$W/out")
n=$(grep -c '^\[ RUN' "$W/out")
[ "$n" -ge 11 ] && ok "$n tests ran" || { fail "only $n tests ran"; cat "$W/out"; }
[ $rc = 0 ] || { echo "--- test output ---"; tail -40 "$W/out"; }

# ---- part 2: the unseal flow on systemd-cryptenroll's tokens
for t in cryptsetup systemd-cryptenroll python3; do
	command -v $t >/dev/null || { fail "no $t"; finish; }
done
[ -x "$UBIN" ] || { fail "no $UBIN (make build/unit/test_tpm_unseal_swtpm)"; finish; }
swtpm_tcp_up "$W/a" "swtpm A"; pid_a=$SWTPM_TCP_PID pa=$SWTPM_TCP_PORT
swtpm_tcp_up "$W/b" "swtpm B"; pid_b=$SWTPM_TCP_PID pb=$SWTPM_TCP_PORT
export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$pa"
TCTI=$TPM2TOOLS_TCTI
flushall() { tpm2_flushcontext -l >/dev/null 2>&1; tpm2_flushcontext -t >/dev/null 2>&1; tpm2_flushcontext -s >/dev/null 2>&1; }
cd "$W"
prov "PCR 7 extended once (not all zeros)" tpm2_pcrextend 7:sha256="$(printf efiresume-pcr7 | sha256sum | cut -c1-64)"
prov "LUKS2 file, keyslot 0 oldpass (pbkdf2)" bash -c 'truncate -s 20M disk.img && printf oldpass |
	cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 disk.img -'
prov "systemd-cryptenroll --tpm2-pcrs=7 (token 0, keyslot 1)" env PASSWORD=oldpass systemd-cryptenroll \
	--tpm2-device="$TCTI" --tpm2-pcrs=7 disk.img; flushall
prov "systemd-cryptenroll --tpm2-pcrs=7 --tpm2-with-pin (token 1, keyslot 2)" env PASSWORD=oldpass NEWPIN=1234 \
	systemd-cryptenroll --tpm2-device="$TCTI" --tpm2-pcrs=7 --tpm2-with-pin=yes disk.img; flushall
# token 2: as systemd 257 seals (tpm2_get_srk_template at 0x81000001, tpm2_srk its ESYS_TR)
prov "SRK (noDA template) persistent at 0x81000001, its ESYS_TR" bash -c 'tpm2_createprimary -C o -g sha256 \
	-G ecc256:null:aes128cfb -a "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt" \
	-c srk.ctx && tpm2_evictcontrol -C o -c srk.ctx 0x81000001 -o srk.tr && tpm2_flushcontext -t'
prov "PCR 7 policy, secret sealed under the SRK" bash -c 'tpm2_pcrread sha256:7 -o pcr7.bin &&
	tpm2_createpolicy --policy-pcr -l sha256:7 -f pcr7.bin -L srk.policy && head -c 32 /dev/urandom > srk.secret &&
	tpm2_create -C 0x81000001 -g sha256 -i srk.secret -L srk.policy -a "fixedtpm|fixedparent" -u srk.pub -r srk.priv'
flushall
prov "keyslot 3 with base64(secret), token 2 imported" bash -c 'base64 -w0 srk.secret > srk.pass &&
	printf oldpass | cryptsetup luksAddKey --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
	--key-slot 3 disk.img srk.pass --key-file - &&
	python3 -c "
import json, base64, sys
b = open(\"srk.priv\", \"rb\").read() + open(\"srk.pub\", \"rb\").read()
print(json.dumps({\"type\": \"systemd-tpm2\", \"keyslots\": [\"3\"], \"tpm2-blob\": base64.b64encode(b).decode(),
  \"tpm2-pcrs\": [7], \"tpm2-pcr-bank\": \"sha256\", \"tpm2-primary-alg\": \"ecc\",
  \"tpm2-policy-hash\": open(\"srk.policy\", \"rb\").read().hex(),
  \"tpm2_srk\": base64.b64encode(open(\"srk.tr\", \"rb\").read()).decode()}))" > tok2.json &&
	cryptsetup token import --token-id 2 --key-slot 3 disk.img < tok2.json'
prov "DA: 5 tries, 600 s" tpm2_dictionarylockout -s -n 5 -t 600 -l 600
flushall
prov "LUKS2 metadata" bash -c 'cryptsetup luksDump --dump-json-metadata disk.img > meta.json'
for k in 1 2 3; do
	kdf=$(python3 -c "import json; print(json.load(open('meta.json'))['keyslots']['$k']['kdf']['type'])")
	[ "$kdf" = pbkdf2 ] && ok "keyslot $k (a token's) uses pbkdf2" || fail "keyslot $k uses $kdf"
done
cd "$TOP"
urun() {   # label args...
	local label=$1; shift
	ER_SWTPM_PORT=$pa ER_SWTPM_PORT2=$pb ER_SWTPM_DIR=$W "$UBIN" "$@" >"$W/uout" 2>&1; local urc=$?
	sed -n 's/^# /  unseal: /p' "$W/uout"
	while read -r tag name; do
		case "$tag" in
			OK) ok "$label $name" ;;
			FAILED) fail "$label $name: $(grep -A3 -F "$name" "$W/uout" | grep -m1 -E 'error|Failure|failed' || true)" ;;
			SKIPPED) fail "$label $name skipped" ;;
		esac
	done < <(sed -n '/test(s) run\./q; s/^\[ *\(OK\|FAILED\|SKIPPED\) *\] \(test_[a-z_0-9]*\)$/\1 \2/p' "$W/uout")
	[ $urc = 0 ] || { echo "--- test output ---"; tail -40 "$W/uout"; fail "$label: exit $urc"; }
}
urun "unseal:"
n=$(grep -c '^\[ RUN' "$W/uout"); [ "$n" -ge 9 ] && ok "unseal: $n tests ran" || fail "unseal: only $n tests ran"
prov "DA lockout cleared (lockoutAuth empty)" tpm2_dictionarylockout -c
prov "PCR 7 extended after sealing" tpm2_pcrextend 7:sha256="$(printf changed | sha256sum | cut -c1-64)"
ER_SWTPM_PCR_EXTENDED=1 urun "unseal (PCR 7 extended):" after
finish
