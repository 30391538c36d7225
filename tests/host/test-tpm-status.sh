#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/efiresume-install.d/tpm.sh (status: can efiresume unseal the swap container's TPM2
# keyslot?) against measured event logs (tests/host/data/eventlog/: QEMU + OVMF + swtpm boots,
# measure.sh) and real systemd 252 tokens sealed against those logs' PCR 7 (enrol.sh).
# Oracles: the PCR values the guest's kernel read from its TPM (CHAIN.pcrs), the PCR 7 a TPM
# computed from the log's digests (CHAIN.tpm), the policy hashes systemd-cryptenroll and the
# TPM computed (the tokens), and tpm2-tools trial sessions against swtpm (tpm2_policypcr -f,
# tpm2_policyauthvalue) when swtpm and tpm2-tools are installed. Then efiresume-install status
# on a fake root: swap in a LUKS2 container (a real LUKS2 file holding the tokens, the real
# cryptsetup) and the recorded event log.
# Prints "ok:"/"FAIL:" lines and "N passed, M failed". Needs cryptsetup (root: a LUKS2 file).
#   tests/host/test-tpm-status.sh     (EFIRESUME_TEST_TOOL: another efiresume-install, control runs)
set -uo pipefail
export LC_ALL=C
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${EFIRESUME_TEST_TOOL:-$TOP/tools/efiresume-install}
LIB=${EFIRESUME_TEST_TPMLIB:-$(dirname "$TOOL")/efiresume-install.d/tpm.sh}
D=$TOP/tests/host/data/eventlog
G=8be4df61-93ca-11d2-aa0d-00e098032b8c
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
has() { if grep -qF -- "$3" <<<"$2"; then ok "$1"; else fail "$1: no '$3' in: $2"; fi; }
hasnt() { if grep -qF -- "$3" <<<"$2"; then fail "$1: '$3' in: $2"; else ok "$1"; fi; }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; exit $?; }
W=$(mktemp -d /tmp/tpm-status-test.XXXXXX)
swtpm_pid=
cleanup() {
	[ -n "$swtpm_pid" ] && kill "$swtpm_pid" 2>/dev/null && wait "$swtpm_pid" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
tok() { sed -n "s/.*\"tpm2-policy-hash\":\"\([0-9a-f]*\)\".*/\1/p" "$1"; }
pcr_of() { awk -v p="$2" '$1 == p {print tolower($2)}' "$1"; }

# ---------------------------------------------------------------- the library alone
# (sourced in a subshell with the few installer functions it calls)
lib() {
	(
		SYSFS=${T_SYSFS:-/nonexistent} STATE_SB=${T_SB:-} WORKDIR=$W ARCH=x64
		EFIVARS=$SYSFS/firmware/efi/efivars
		state_get() { case $1 in secure-boot) echo "$STATE_SB" ;; cert) echo "${T_CERT:-}" ;; esac; }
		# shellcheck source=../../tools/efiresume-install.d/tpm.sh
		. "$LIB" || exit 9
		"$@"
	)
}
replay_all() { # LOG: "pcr value" for PCRs 0..9 after the whole log
	tpm_evlog_load "$1" sha256 || { echo "ERR $TPM_EVLOG_ERR"; return; }
	local p
	for p in 0 1 2 3 4 5 6 7 8 9; do echo "$p $(tpm_replay sha256 "$p")"; done
}
at_efiresume() { # LOG BANK PCR: the PCR at efiresume's start, or "none"
	tpm_evlog_load "$1" "$2" || { echo "ERR $TPM_EVLOG_ERR"; return; }
	local e
	e=$(tpm_efiresume_event) || { echo none; return; }
	tpm_replay "$2" "$3" $((e + 1))
}
own_and_after() { # LOG: efiresume's own authority | the authorities after it
	tpm_evlog_load "$1" sha256 || return
	local e
	e=$(tpm_efiresume_event) || { echo none; return; }
	echo "$(tpm_own_authority "$e") | $(tpm_authorities $((e + 1)) "$EV_N")"
}

for f in "$D"/*.bin; do
	c=${f##*/} c=${c%.bin}
	[ -r "$D/$c.pcrs" ] || continue
	sb=; case $c in mok-*) sb=shim ;; db-*) sb=db ;; esac
	got=$(T_SB=$sb lib replay_all "$f")
	want=$(awk '{print $1, tolower($2)}' "$D/$c.pcrs")
	check "$c: the log replays to the PCRs 0-9 the guest's kernel read from its TPM" "$(md5sum <<<"$got" | cut -c1-8)" "$(md5sum <<<"$want" | cut -c1-8)"
	[ "$got" = "$want" ] || printf '  replayed:\n%s\n  guest:\n%s\n' "$got" "$want"
	v=$(T_SB=$sb lib at_efiresume "$f" sha256 7)
	case $c in
	*-normal) check "$c: booted without efiresume: no efiresume image in the log" "$v" none ;;
	*) [[ $v =~ ^[0-9a-f]{64}$ ]] && ok "$c: efiresume's image found (\\EFI\\efiresume\\...)" || fail "$c: efiresume's start not found ($v)" ;;
	esac
	if [ -r "$D/$c.tpm" ]; then
		check "$c: PCR 7 at efiresume's start = what a TPM computed from the log's digests (enrol.sh)" "$v" "$(pcr_of "$D/$c.tpm" efiresume)"
		check "$c: PCR 7 in the initramfs (the TPM)" "$(pcr_of "$D/$c.pcrs" 7)" "$(pcr_of "$D/$c.tpm" initramfs)"
	fi
done

# where PCR 7 holds at both points (docs/tpm-pcr7.md, "What follows" 3): everything after
# efiresume verified by its own authority; and where it does not
final7() { tpm_evlog_load "$1" sha256 && tpm_replay sha256 7; }
for c in db-direct mok-samekey; do
	[ -r "$D/$c.bin" ] || continue
	sb=db; [[ $c == mok-* ]] && sb=shim
	check "$c: PCR 7 at efiresume's start = in the initramfs" "$(T_SB=$sb lib at_efiresume "$D/$c.bin" sha256 7)" "$(lib final7 "$D/$c.bin")"
done
for c in db-efiresume mok-efiresume mok-direct nosb-efiresume; do
	[ -r "$D/$c.bin" ] || continue
	sb=; case $c in db-*) sb=db ;; mok-*) sb=shim ;; esac
	check "$c: PCR 7 at efiresume's start differs from the initramfs's" \
		"$([ "$(T_SB=$sb lib at_efiresume "$D/$c.bin" sha256 7)" = "$(lib final7 "$D/$c.bin")" ] && echo same || echo differs)" differs
done

# the authorities (docs/tpm-pcr7.md)
out=$(T_SB=db lib own_and_after "$D/db-efiresume.bin")
has "db-efiresume: efiresume's own authority is the snakeoil db certificate" "${out%% | *}" "db: C = US, ST = Colorado, L = Fort Collins, O = SnakeOil"
has "db-efiresume: after efiresume, the firmware's db authority for shim (Microsoft UEFI CA)" "${out#* | }" "db: C = US, ST = Washington, L = Redmond, O = Microsoft Corporation, CN = Microsoft Corporation UEFI CA 2011"
has "db-efiresume: after efiresume, shim's SbatLevel" "${out#* | }" "SbatLevel"
has "db-efiresume: after efiresume, shim's vendor certificate for GRUB (MokListRT)" "${out#* | }" "MokListRT: CN = Debian Secure Boot CA"

# the prediction from a boot without efiresume (db-normal) = the measured PCR 7 at efiresume's
# start (db-efiresume: the same firmware, store and certificate)
predict() { tpm_evlog_load "$1" "$2" || return; if tpm_predict "$2" "$3"; then echo "$TPM_PRED_VALS"; else echo "NO $TPM_PRED_NO"; fi; }
check "db-normal: PCR 7 predicted at efiresume's start = measured in db-efiresume" \
	"$(T_SB=db T_CERT=$D/snakeoil.pem lib predict "$D/db-normal.bin" sha256 7)" "$(pcr_of "$D/db-efiresume.tpm" efiresume)"
check "db-normal: PCR 7 (sha1 bank) predicted = measured" \
	"$(T_SB=db T_CERT=$D/snakeoil.pem lib predict "$D/db-normal.bin" sha1 7)" "$(T_SB=db lib at_efiresume "$D/db-efiresume.bin" sha1 7)"
check "db-direct: PCR 7 predicted from its own pre-boot events = measured (the authority once)" \
	"$(T_SB=db T_CERT=$D/snakeoil.pem lib predict "$D/db-direct.bin" sha256 7)" "$(T_SB=db lib at_efiresume "$D/db-direct.bin" sha256 7)"
if [ -r "$D/nosb-normal.bin" ] && [ -r "$D/nosb-efiresume.bin" ]; then
	check "nosb-normal: PCR 7 predicted (no Secure Boot: the pre-boot events) = measured in nosb-efiresume" \
		"$(lib predict "$D/nosb-normal.bin" sha256 7)" "$(lib at_efiresume "$D/nosb-efiresume.bin" sha256 7)"
fi
has "no prediction for PCR 4" "$(T_SB=db T_CERT=$D/snakeoil.pem lib predict "$D/db-normal.bin" sha256 "4 7")" "NO PCR 4 is measured again"

# the wrong log for the mode: a db log read as shim's (grubx64.efi under \EFI\efiresume\ is efiresume): none
check "db-efiresume read with --secure-boot=shim's file name: not found" "$(T_SB=shim lib at_efiresume "$D/db-efiresume.bin" sha256 7)" none

# malformed logs: refused with a reason, never a value
head -c 5000 "$D/db-efiresume.bin" >"$W/trunc.bin"
has "a truncated log is refused" "$(lib at_efiresume "$W/trunc.bin" sha256 7)" "ERR "
head -c 4096 /dev/zero >"$W/zero.bin"
has "a file of zeros is not an event log" "$(lib at_efiresume "$W/zero.bin" sha256 7)" "not a crypto-agile TCG event log"
has "a missing log" "$(lib at_efiresume "$W/none.bin" sha256 7)" "cannot read"
has "an unknown bank" "$(lib at_efiresume "$D/db-efiresume.bin" sm3 7)" "unknown bank"

# ---------------------------------------------------------------- the policy
# systemd 252 + the TPM sealed these (enrol.sh): the policy from our PCR values must be theirs
e7=$(pcr_of "$D/db-efiresume.tpm" efiresume) i7=$(pcr_of "$D/db-efiresume.tpm" initramfs)
check "PolicyPCR(7 at efiresume) = systemd's token" "$(lib tpm_token_policy sha256 7 "$e7" false)" "$(tok "$D/db-efiresume.token-efiresume.json")"
check "PolicyPCR(7 at efiresume) + PolicyAuthValue = systemd's PIN token" "$(lib tpm_token_policy sha256 7 "$e7" true)" "$(tok "$D/db-efiresume.token-efiresume-pin.json")"
check "PolicyPCR(7 in the initramfs) = systemd's token" "$(lib tpm_token_policy sha256 7 "$i7" false)" "$(tok "$D/db-efiresume.token-initramfs.json")"
check "control: the efiresume-view policy is not the initramfs token's" \
	"$([ "$(lib tpm_token_policy sha256 7 "$e7" false)" = "$(tok "$D/db-efiresume.token-initramfs.json")" ] && echo same || echo differs)" differs
check "no PCRs, no PIN: 32 zero bytes" "$(lib tpm_token_policy sha256 "" "" false)" "$(printf '%064d' 0)"

# tpm2-tools trial sessions (swtpm) as the oracle, when installed
if command -v swtpm >/dev/null && command -v tpm2_policypcr >/dev/null; then
	port=
	for _ in $(seq 1 20); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p + 1))) 2>/dev/null; then port=$p; break; fi
	done
	mkdir -p "$W/tpm"
	swtpm socket --tpm2 --server type=tcp,port=$port,bindaddr=127.0.0.1 --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
		--flags not-need-init,startup-clear --tpmstate dir="$W/tpm" >"$W/swtpm.log" 2>&1 &
	swtpm_pid=$!
	for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
	export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
	trial() { # SELECTION VALUES-HEX PIN -> the trial session's digest
		local h=$2
		# shellcheck disable=SC2059
		printf "$(sed 's/../\\x&/g' <<<"$h")" >"$W/v.bin"
		tpm2_startauthsession -S "$W/s.ctx" >/dev/null 2>&1 || return 1
		tpm2_policypcr -S "$W/s.ctx" -l "$1" -f "$W/v.bin" -L "$W/pol" >/dev/null 2>&1 || { tpm2_flushcontext "$W/s.ctx" >/dev/null 2>&1; return 1; }
		[ "$3" = true ] && { tpm2_policyauthvalue -S "$W/s.ctx" -L "$W/pol" >/dev/null 2>&1 || return 1; }
		tpm2_flushcontext "$W/s.ctx" >/dev/null 2>&1
		od -An -v -tx1 "$W/pol" | tr -d ' \n'
	}
	sh1=$(T_SB=db lib at_efiresume "$D/db-efiresume.bin" sha1 7)
	p0=$(pcr_of "$D/db-efiresume.pcrs" 0)
	for c in "sha256:7|7|sha256|$e7|false" "sha256:7|7|sha256|$i7|false" "sha256:7|7|sha256|$e7|true" \
		"sha256:0,7|0 7|sha256|$p0 $e7|false" "sha1:7|7|sha1|$sh1|false" "sha1:7|7|sha1|$sh1|true"; do
		IFS='|' read -r sel pcrs bank vals pin <<<"$c"
		want=$(trial "$sel" "${vals// /}" "$pin") || { fail "tpm2-tools trial session $sel failed"; continue; }
		check "PolicyPCR $sel${pin/false/}${pin/true/ + PolicyAuthValue} = tpm2-tools' trial session (swtpm)" \
			"$(lib tpm_token_policy "$bank" "$pcrs" "$vals" "$pin")" "$want"
	done
else
	echo "(tpm2-tools trial sessions not run: swtpm or tpm2-tools missing; the systemd tokens above are the oracle)"
fi

# ---------------------------------------------------------------- status on a fake root
command -v cryptsetup >/dev/null || { fail "no cryptsetup"; finish; }
M=$W/m
mkdir -p "$M"/sys/firmware/efi/efivars "$M"/sys/power "$M"/sys/devices/virtual/block/vda/vda3 "$M"/sys/class/block \
	"$M"/sys/dev/block "$M"/sys/block "$M"/proc "$M"/dev "$M"/state "$M"/lib "$M"/sys/class/tpm/tpm0/pcr-sha256
echo 64 >"$M/sys/firmware/efi/fw_platform_size"
printf '\006\000\000\000\001' >"$M/sys/firmware/efi/efivars/SecureBoot-$G"
printf 'MAJOR=254\nMINOR=3\nDEVNAME=vda3\nDEVTYPE=partition\nPARTN=3\n' >"$M/sys/devices/virtual/block/vda/vda3/uevent"
ln -s ../../devices/virtual/block/vda/vda3 "$M/sys/class/block/vda3"
ln -s ../../devices/virtual/block/vda/vda3 "$M/sys/dev/block/254:3"
# dm-0: the LUKS2 mapping on vda3, holding the swap
LU=4a1b2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d
d=$M/sys/devices/virtual/block/dm-0
mkdir -p "$d/dm" "$d/slaves"
echo "luks-$LU" >"$d/dm/name"
echo "CRYPT-LUKS2-${LU//-/}-luks-$LU" >"$d/dm/uuid"
printf 'MAJOR=253\nMINOR=0\nDEVNAME=dm-0\nDEVTYPE=disk\n' >"$d/uevent"
ln -s ../../vda/vda3 "$d/slaves/vda3"
ln -s ../../devices/virtual/block/dm-0 "$M/sys/class/block/dm-0"
ln -s ../devices/virtual/block/dm-0 "$M/sys/block/dm-0"
ln -s ../../devices/virtual/block/dm-0 "$M/sys/dev/block/253:0"
truncate -s 8M "$M/dev/dm-0"
mkswap "$M/dev/dm-0" >/dev/null 2>&1
printf 'Filename\tType\tSize\tUsed\tPriority\n%s\tpartition\t8188\t0\t-2\n' "$M/dev/dm-0" >"$M/proc/swaps"
echo 253:0 >"$M/sys/power/resume"
echo 0 >"$M/sys/power/resume_offset"
printf 'mode=always\nsecure-boot=db\n' >"$M/state/state"
# vda3: a LUKS2 container with keyslots 0-3 and the three real tokens (ids 0-2: keyslots 1, 2, 3)
truncate -s 20M "$M/dev/vda3"
printf pw | cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "$M/dev/vda3" - >/dev/null 2>&1 ||
	{ fail "cryptsetup luksFormat on a file (root?)"; finish; }
for s in 1 2 3; do
	printf 'pw\npw%s\n' "$s" | cryptsetup luksAddKey --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-slot "$s" "$M/dev/vda3" >/dev/null 2>&1 ||
		printf 'pw%s' "$s" | cryptsetup luksAddKey --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-slot "$s" \
			--key-file <(printf pw) "$M/dev/vda3" - >/dev/null 2>&1
done
n=0
for t in efiresume efiresume-pin initramfs; do
	cryptsetup token import --token-id $n --json-file "$D/db-efiresume.token-$t.json" "$M/dev/vda3" >/dev/null 2>&1 ||
		fail "cryptsetup token import $t"
	n=$((n + 1))
done
check "the LUKS2 file holds the three tokens" "$(cryptsetup luksDump "$M/dev/vda3" 2>/dev/null | grep -c 'systemd-tpm2')" 3
pcr_of "$D/db-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
export EFIRESUME_SYSFS=$M/sys EFIRESUME_PROC=$M/proc EFIRESUME_DEV=$M/dev EFIRESUME_STATE_DIR=$M/state \
	EFIRESUME_LIBDIR=$M/lib EFIRESUME_INSPECT=$TOP/build/swsusp-inspect EFIRESUME_ESP_CANDIDATES="$M/none" \
	EFIRESUME_EVENTLOG=$D/db-efiresume.bin

out=$("$TOOL" status 2>&1)
line() { grep -F "keyslot $1 of $M/dev/vda3" <<<"$out"; }
has "status: keyslot 1 (PCR 7 sealed at efiresume's view): can be unsealed" "$(line 1)" "(token 0; PCRs 7 sha256): can be unsealed by efiresume"
has "status: keyslot 1 ... and not in this boot's initramfs" "$(line 1)" "the initramfs of this boot cannot unseal it (PCR 7 changed after efiresume)"
has "status: keyslot 2 (PCR 7 + PIN at efiresume's view): can be unsealed, asks for the PIN" "$(line 2)" "can be unsealed by efiresume (its policy matches the PCR values at efiresume's start in this boot's event log; efiresume asks for the PIN)"
has "status: keyslot 3 (enrolled on the running system): cannot" "$(line 3)" "cannot be unsealed by efiresume: PCR 7 at efiresume differs from the initramfs's"
has "status: keyslot 3: efiresume's signer named" "$(line 3)" "efiresume's signer is db: C = US, ST = Colorado, L = Fort Collins, O = SnakeOil"
has "status: keyslot 3: what the initramfs saw also" "$(line 3)" "where the initramfs saw also db: C = US, ST = Washington, L = Redmond, O = Microsoft Corporation, CN = Microsoft Corporation UEFI CA 2011; SbatLevel; MokListRT: CN = Debian Secure Boot CA"
has "status: keyslot 3: what to enrol instead" "$(line 3)" "--tpm2-pcrs= --tpm2-with-pin=yes"

jq_() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
js=$("$TOOL" status --json 2>/dev/null)
check "status --json: tpm2 keyslots (keyslot, efiresume, initramfs)" \
	"$(jq_ '[(k["keyslot"], k["efiresume"], k["initramfs"]) for k in d["tpm2"]["keyslots"]]' <<<"$js")" \
	"[(1, True, False), (2, True, False), (3, False, True)]"
check "status --json: tpm2 view, pcrs, bank, pin, policyHash" \
	"$(jq_ '(d["tpm2"]["view"], d["tpm2"]["keyslots"][1]["pcrs"], d["tpm2"]["keyslots"][1]["bank"], d["tpm2"]["keyslots"][1]["pin"], d["tpm2"]["keyslots"][2]["policyHash"])' <<<"$js")" \
	"('measured', [7], 'sha256', True, '$(tok "$D/db-efiresume.token-initramfs.json")')"
check "status --json=short: one line, the same tpm2 object" \
	"$("$TOOL" status --json=short 2>/dev/null | jq_ 'd["tpm2"]')" "$(jq_ 'd["tpm2"]' <<<"$js")"

# db-direct (the fallback signed with efiresume's own db certificate): the keyslot sealed at
# efiresume's view serves the initramfs too
pcr_of "$D/db-direct.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
js=$(EFIRESUME_EVENTLOG=$D/db-direct.bin "$TOOL" status --json 2>/dev/null)
check "status --json, db-direct: keyslot 1 unsealable at both points, keyslot 3 at neither" \
	"$(jq_ '[(k["keyslot"], k["efiresume"], k["initramfs"]) for k in d["tpm2"]["keyslots"]]' <<<"$js")" \
	"[(1, True, True), (2, True, True), (3, False, False)]"
pcr_of "$D/db-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"

# the TPM's PCR 7 (sysfs) not the log's: nothing is judged
echo 0000000000000000000000000000000000000000000000000000000000000001 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
out=$("$TOOL" status 2>&1)
has "status: a log that does not replay to the TPM's PCR 7: not checked" "$(line 3)" "not checked: the event log does not replay to the TPM's PCR 7 (sha256)"
hasnt "status: ... and no verdict" "$out" "can be unsealed by efiresume (its policy"
pcr_of "$D/db-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"

# a boot without efiresume (db-normal: the same firmware and store, \EFI\debian\shimx64.efi):
# predicted from its pre-boot events and efiresume's db authority (--secure-boot=db, the
# certificate in the state file)
pcr_of "$D/db-normal.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
printf 'mode=always\nsecure-boot=db\ncert=%s\n' "$D/snakeoil.pem" >"$M/state/state"
out=$(EFIRESUME_EVENTLOG=$D/db-normal.bin "$TOOL" status 2>&1)
has "status, booted without efiresume: keyslot 1 predicted unsealable" "$(line 1)" "can be unsealed by efiresume (predicted: this boot did not go through efiresume"
has "status, booted without efiresume: keyslot 3 predicted not" "$(line 3)" "cannot be unsealed by efiresume (predicted: this boot did not go through efiresume"
js=$(EFIRESUME_EVENTLOG=$D/db-normal.bin "$TOOL" status --json 2>/dev/null)
check "status --json, booted without efiresume: view predicted, efiresume and initramfs" \
	"$(jq_ '(d["tpm2"]["view"], [(k["efiresume"], k["initramfs"]) for k in d["tpm2"]["keyslots"]])' <<<"$js")" \
	"('predicted', [(True, False), (True, False), (False, False)])"
# control: a certificate that is not in db: no prediction
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/o.key" -out "$W/other.pem" -subj /CN=other -days 1 >/dev/null 2>&1
printf 'mode=always\nsecure-boot=db\ncert=%s\n' "$W/other.pem" >"$M/state/state"
out=$(EFIRESUME_EVENTLOG=$D/db-normal.bin "$TOOL" status 2>&1)
has "status, booted without efiresume, certificate not in db: not checked, says why" "$(line 1)" "not checked: this boot did not go through efiresume"
has "... names the certificate" "$(line 1)" "efiresume's certificate $W/other.pem is not in the db this boot measured"
printf 'mode=always\nsecure-boot=db\n' >"$M/state/state"
pcr_of "$D/db-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"

# --secure-boot=shim (mok-efiresume: shim -> efiresume as grubx64.efi -> \EFI\debian\shimx64.efi
# -> GRUB -> kernel) with its own three tokens
for n in 0 1 2; do cryptsetup token remove --token-id $n "$M/dev/vda3" >/dev/null 2>&1; done
n=0
for t in efiresume efiresume-pin initramfs; do
	cryptsetup token import --token-id $n --json-file "$D/mok-efiresume.token-$t.json" "$M/dev/vda3" >/dev/null 2>&1 ||
		fail "cryptsetup token import mok $t"
	n=$((n + 1))
done
printf 'mode=always\nsecure-boot=shim\ncert=%s\n' "$D/snakeoil.pem" >"$M/state/state"
pcr_of "$D/mok-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
out=$(EFIRESUME_EVENTLOG=$D/mok-efiresume.bin "$TOOL" status 2>&1)
has "status, shim: keyslot 1 (sealed at efiresume's view) can be unsealed" "$(line 1)" "can be unsealed by efiresume (its policy matches"
has "status, shim: keyslot 3 (sealed on the running system) cannot" "$(line 3)" "cannot be unsealed by efiresume: PCR 7 at efiresume differs from the initramfs's"
has "status, shim: efiresume's signer is the MOK (shim's MokListRT event)" "$(line 3)" "efiresume's signer is MokListRT: C = US, ST = Colorado, L = Fort Collins, O = SnakeOil, where the initramfs saw also db: C = US, ST = Washington, L = Redmond, O = Microsoft Corporation, CN = Microsoft Corporation UEFI CA 2011; SbatLevel; MokListRT: CN = Debian Secure Boot CA; MokListRT: CN = Debian Secure Boot CA"
js=$(EFIRESUME_EVENTLOG=$D/mok-efiresume.bin "$TOOL" status --json 2>/dev/null)
check "status --json, shim: efiresume, initramfs" "$(jq_ '[(k["efiresume"], k["initramfs"]) for k in d["tpm2"]["keyslots"]]' <<<"$js")" \
	"[(True, False), (True, False), (False, True)]"
# a boot through Debian's shim without efiresume (mok-normal): predicted from its shim's own
# events and the MOK's entry in MokListRT (written here as shim leaves it: an EFI_SIGNATURE_LIST
# of one X.509 entry, owner 338ebdff-..., what virt-fw-vars --add-mok enrolled in the measured boots)
if [ -r "$D/mok-normal.bin" ]; then
	der=$(sed '1d;$d' "$D/snakeoil.pem" | base64 -d | od -An -v -tx1 | tr -d ' \n')
	le32() { printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
	nb=$((${#der} / 2))
	hex=07000000a159c0a5e494a74a87b5ab155c2bf072$(le32 $((28 + 16 + nb)))00000000$(le32 $((16 + nb)))ffbd8e33f85b7149876045caada2d435$der
	# shellcheck disable=SC2059
	printf "$(sed 's/../\\x&/g' <<<"$hex")" >"$M/sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23"
	pcr_of "$D/mok-normal.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
	out=$(EFIRESUME_EVENTLOG=$D/mok-normal.bin "$TOOL" status 2>&1)
	has "status, shim, booted without efiresume: keyslot 1 predicted unsealable" "$(line 1)" "can be unsealed by efiresume (predicted"
	has "status, shim, booted without efiresume: keyslot 3 predicted not" "$(line 3)" "cannot be unsealed by efiresume (predicted"
	check "mok-normal: PCR 7 predicted at efiresume's start = measured in mok-efiresume" \
		"$(T_SB=shim T_CERT=$D/snakeoil.pem T_SYSFS=$M/sys lib predict "$D/mok-normal.bin" sha256 7)" "$(pcr_of "$D/mok-efiresume.tpm" efiresume)"
	# control: no MokListRT (the certificate not enrolled): not predicted, says why
	rm "$M/sys/firmware/efi/efivars/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23"
	out=$(EFIRESUME_EVENTLOG=$D/mok-normal.bin "$TOOL" status 2>&1)
	has "status, shim, no MokListRT: not checked, says why" "$(line 1)" "is not in MokListRT (not enrolled as a MOK?)"
	pcr_of "$D/mok-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"
	printf 'mode=always\nsecure-boot=shim\ncert=%s\n' "$D/snakeoil.pem" >"$M/state/state"
fi
# control: the same log read as --secure-boot=db (efiresume.efi): efiresume not found in it
printf 'mode=always\nsecure-boot=db\n' >"$M/state/state"
out=$(EFIRESUME_EVENTLOG=$D/mok-efiresume.bin "$TOOL" status 2>&1)
hasnt "control: mok-efiresume read as --secure-boot=db: no measured verdict" "$(line 1)" "its policy matches the PCR values at efiresume's start"
pcr_of "$D/db-efiresume.pcrs" 7 >"$M/sys/class/tpm/tpm0/pcr-sha256/7"

# no event log (no TPM)
out=$(EFIRESUME_EVENTLOG=$W/none "$TOOL" status 2>&1)
has "status, no event log: not checked, names the file" "$(line 1)" "not checked: cannot read $W/none"

# cryptsetup missing
out=$(EFIRESUME_CRYPTSETUP=/nonexistent/cryptsetup "$TOOL" status 2>&1)
has "status, no cryptsetup: says so" "$out" "TPM2:         cryptsetup is not installed: the LUKS2 tokens of $M/dev/vda3 are not read"

# no LUKS under the swap: no TPM2 line, "tpm2": null
printf 'Filename\tType\tSize\tUsed\tPriority\n%s\tpartition\t8188\t0\t-2\n' "$M/dev/vda3" >"$M/proc/swaps"
echo 254:3 >"$M/sys/power/resume"
out=$("$TOOL" status 2>&1)
hasnt "status, swap not in LUKS2: no TPM2 line" "$out" "TPM2:"
check "status --json, swap not in LUKS2: tpm2 null" "$("$TOOL" status --json 2>/dev/null | jq_ 'd["tpm2"]')" None
finish
