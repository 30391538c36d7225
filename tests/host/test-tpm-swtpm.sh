#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tpm/ against a real TPM 2.0: starts swtpm in socket mode, provisions it
# with tpm2-tools as systemd-cryptenroll would (a persistent ECC P-256 SRK at 0x81000001, a
# secret sealed under it with a PCR 7 sha256 policy), then runs build/unit/test_tpm_swtpm,
# which talks to swtpm with tpm/'s own marshalled commands and session crypto (GetCapability,
# PCR_Read, ReadPublic, CreatePrimary, unsalted and salted/encrypted policy sessions,
# PolicyPCR, Load, Unseal, and the refusals: wrong salt, tampered response, PCR 7 extended).
# Prints "ok:"/"FAIL:" lines and "N passed, M failed".
#   tests/host/test-tpm-swtpm.sh    (needs swtpm, tpm2-tools: tests/lib/deps.sh; make build/unit/test_tpm_swtpm)
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
swtpm_pid=
cleanup() {
	[ -n "$swtpm_pid" ] && kill "$swtpm_pid" 2>/dev/null && wait "$swtpm_pid" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

# a free pair of ports (command, control)
port=
for try in $(seq 1 20); do
	p=$((20000 + RANDOM % 20000))
	if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p + 1))) 2>/dev/null; then
		port=$p; break
	fi
done
[ -n "$port" ] || { fail "no free port"; finish; }
mkdir -p "$W/state"
swtpm socket --tpm2 --server type=tcp,port=$port,bindaddr=127.0.0.1 --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
	--flags not-need-init,startup-clear --tpmstate dir="$W/state" >"$W/swtpm.log" 2>&1 &
swtpm_pid=$!
for i in $(seq 1 50); do
	(exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
	sleep 0.1
done
if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then ok "swtpm listens on 127.0.0.1:$port"; else
	fail "swtpm did not start: $(cat "$W/swtpm.log")"; finish; fi

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
finish
