#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loader/hibkey_tpm.c (K sealed to the TPM, EfiresumeHibernationKeyV3) against swtpm, with
# tpm2-tools as the oracle: build/hibkey-tpm-driver runs efiresume's own flow (begin, seal,
# unseal, end) over swtpm's socket. Checked:
#   - what efiresume seals, tpm2_load + tpm2_unseal with a PCR 7 policy session give back
#     (and not without the policy: userWithAuth is clear);
#   - efiresume unseals it again, and a boot's cycle (unseal the previous K, seal the next);
#   - the sniffer: K's bytes appear nowhere in the commands and responses the flow exchanged;
#     control: the same Create with a password session (no parameter encryption) shows K;
#   - refusals: a record with a flipped private byte (Load: TPM_RC_INTEGRITY), a wrong key id,
#     after PCR 7 is extended ("PCR 7 changed", and tpm2_unseal refuses too);
#   - without the persistent SRK: our own primary (same Name: same template, same seed) is
#     made and flushed, and the record sealed under the persistent SRK still unseals;
#   - no transient object or session left in the TPM after any run.
# ER_SEAL_SAVE=DIR keeps the replay material of one boot's cycle (tests/unit/data/hibkey_tpm/).
# Prints "ok:"/"FAIL:" lines and "N passed, M failed".
#   tests/host/test-tpm-seal.sh    (needs swtpm, tpm2-tools; make build/hibkey-tpm-driver)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DRV=${DRV:-$TOP/build/hibkey-tpm-driver}
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; exit $?; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
for t in swtpm tpm2_createprimary tpm2_evictcontrol tpm2_load tpm2_unseal tpm2_pcrextend tpm2_getcap python3; do
	command -v $t >/dev/null || { fail "no $t (tests/lib/deps.sh installs swtpm, tpm2-tools)"; finish; }
done
[ -x "$DRV" ] || { fail "no $DRV (make build/hibkey-tpm-driver)"; finish; }
W=$(mktemp -d /tmp/tpm-seal.XXXXXX)
swtpm_pid=
cleanup() {
	[ -n "$swtpm_pid" ] && kill "$swtpm_pid" 2>/dev/null && wait "$swtpm_pid" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

. "$TOP/tests/lib/swtpm.sh"
swtpm_tcp_up "$W/state" swtpm
swtpm_pid=$SWTPM_TCP_PID port=$SWTPM_TCP_PORT
export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port" ER_SWTPM_PORT=$port
cd "$W"
prov() {   # what, command...
	local what=$1; shift
	if "$@" >>"$W/prov.log" 2>&1; then ok "provision: $what"; else fail "provision: $what: $(tail -3 "$W/prov.log")"; finish; fi
}
prov "ECC P-256 SRK (the TCG/systemd template)" tpm2_createprimary -C o -g sha256 -G ecc256:null:aes128cfb \
	-a 'fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda|restricted|decrypt' -c srk.ctx
prov "SRK persistent at 0x81000001" tpm2_evictcontrol -C o -c srk.ctx 0x81000001
prov "flush transients" tpm2_flushcontext -t

# drv NAME ARGS...: the driver, its output in NAME.out, its exit code in $drc
drv() { local name=$1; shift; "$DRV" "$@" >"$name.out" 2>&1; drc=$?; }
# has FILE-NEEDLE FILE-HAYSTACK: the needle's bytes occur in the haystack
has() { python3 -c 'import sys; sys.exit(0 if open(sys.argv[1],"rb").read() in open(sys.argv[2],"rb").read() else 1)' "$1" "$2"; }
clean_tpm() {   # nothing transient, no session left
	local t s
	t=$(tpm2_getcap handles-transient 2>&1) s=$(tpm2_getcap handles-loaded-session 2>&1)
	[ -z "$t" ] && [ -z "$s" ] || { echo "  left: transient [$t] sessions [$s]"; return 1; }
}

head -c 32 /dev/urandom > k1
ER_TPM_LOG=$W/log1 drv seal1 seal k1 rec1
check "efiresume seals K1 (status ok; $(sed -n 's/^commands: //p' seal1.out) commands)" grep -q '^status: ok' seal1.out
[ -s rec1 ] || { fail "no record"; cat seal1.out; finish; }
check "nothing transient or loaded left after the seal" clean_tpm
check "the record starts with EFRT, version 1, sha256, PCR 7" \
	bash -c '[ "$(head -c 12 rec1 | od -An -tx1 | tr -d " \n")" = "45465254""0001""000b""00000080" ]'

# the sniffer
check "sniffer: the log holds the commands (non-empty)" test -s log1
if has k1 log1; then fail "sniffer: K1 crossed the bus in clear"; else ok "sniffer: K1's bytes are not in what the seal exchanged ($(stat -c %s log1) bytes)"; fi
ER_TPM_LOG=$W/logp drv plain plain k1
check "control: a Create with a password session is accepted" grep -q '^status: ok' plain.out
check "control: without parameter encryption the sniffer finds K1" has k1 logp
tpm2_flushcontext -t >/dev/null 2>&1

# the oracle: tpm2-tools loads and unseals what we sealed, with a PCR 7 policy session
drv export export rec1 seal.pub seal.priv
check "the record exports as TPM2B public/private" test -s seal.pub -a -s seal.priv
if tpm2_load -C 0x81000001 -u seal.pub -r seal.priv -c obj.ctx >load.log 2>&1 &&
   tpm2_unseal -c obj.ctx -p pcr:sha256:7 -o out1 >unseal.log 2>&1 && cmp -s out1 k1; then
	ok "oracle: tpm2_unseal with PolicyPCR(sha256:7) gives K1"
else fail "oracle: tpm2_unseal: $(cat load.log unseal.log | tail -3)"; fi
if tpm2_unseal -c obj.ctx -o out0 >unseal0.log 2>&1; then fail "oracle: unsealed without the policy (empty password)"
else ok "oracle: refused without the policy ($(grep -o 'TPM_RC_[A-Z_]*\|0x[0-9a-f]*' unseal0.log | head -1))"; fi
tpm2_flushcontext -t >/dev/null 2>&1; tpm2_flushcontext -s >/dev/null 2>&1

drv un1 unseal rec1 out1b
check "efiresume unseals K1" bash -c 'grep -q "^status: ok" un1.out && cmp -s out1b k1'
check "nothing left after the unseal" clean_tpm

# one boot's cycle (replayable: fixed randomness, transcript kept)
printf 'efiresume-seal-test-k2-0123456789' | head -c 32 > k2
ER_TPM_SEED=hibkey-tpm-replay ER_TPM_TRANSCRIPT=$W/cycle.tr ER_TPM_LOG=$W/log2 drv cycle cycle rec1 k2 rec2 prev
check "a boot's cycle: the previous K1 unsealed" cmp -s prev k1
check "a boot's cycle: K2 sealed" bash -c 'grep -q "^status: ok" cycle.out && test -s rec2'
if has k1 log2 || has k2 log2; then fail "sniffer: a key crossed in clear in the cycle"; else ok "sniffer: neither K1 nor K2 in the cycle's exchanges"; fi
check "nothing left after the cycle" clean_tpm
drv un2 unseal rec2 out2
check "efiresume unseals K2" bash -c 'grep -q "^status: ok" un2.out && cmp -s out2 k2'
if [ -n "${ER_SEAL_SAVE:-}" ]; then
	python3 - "$ER_SEAL_SAVE" <<'PY' && ok "replay material written to $ER_SEAL_SAVE"
import sys
out = ["// SPDX-License-Identifier: GPL-2.0-or-later",
       "/* One boot's cycle of loader/hibkey_tpm.c against swtpm, for tests/unit/test_hibkey_tpm.c to",
       " * replay: written by ER_SEAL_SAVE=tests/unit/data/hibkey_tpm.h tests/host/test-tpm-seal.sh",
       " * (rec1: K1 sealed by a first boot; cycle: the exchanges of begin, unseal(rec1), seal(K2),",
       " * end with ER_TPM_SEED=hibkey-tpm-replay; rec2: the record that boot wrote). */"]
for name in ("k1", "k2", "rec1", "rec2", "cycle.tr"):
    b = open(name, "rb").read()
    c = name.replace(".", "_")
    out.append("static const unsigned char replay_%s[%d] = {" % (c, len(b)))
    for i in range(0, len(b), 16):
        out.append("\t" + ", ".join("0x%02x" % x for x in b[i:i + 16]) + ",")
    out.append("};")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
fi

# refusals
python3 - <<'EOF'
d = bytearray(open("rec1", "rb").read())
# the key id: bytes 46..53
e = bytearray(d); e[46] ^= 1; open("rec_id", "wb").write(e)
# the last byte of the private area (inside its encrypted sensitive part)
f = bytearray(d); f[-1] ^= 1; open("rec_priv", "wb").write(f)
# the policy digest (byte 14): the parser refuses a public area under another policy
g = bytearray(d); g[14] ^= 1; open("rec_pol", "wb").write(g)
# one byte past the end
open("rec_long", "wb").write(d + b"\0")
EOF
drv bid unseal rec_id x
check "a record whose key id is not K's: refused (bad-record), nothing unsealed" \
	bash -c '[ '$drc' = 3 ] && grep -q "status: bad-record" bid.out && ! test -e x'
drv bpriv unseal rec_priv x
check "a flipped private byte: Load refused by the TPM ($(sed -n 's/^why: //p' bpriv.out | grep -o 'TPM_RC_[A-Z_]*' | head -1))" \
	bash -c 'grep -q "status: tpm" bpriv.out && grep -q "Load" bpriv.out && ! test -e x'
drv bpol unseal rec_pol x
check "another policy digest in the record: refused by the parser" grep -q 'status: bad-record' bpol.out
drv blong unseal rec_long x
check "a byte past the record: refused" grep -q 'status: bad-record' blong.out
check "nothing left after the refusals" clean_tpm

# without the persistent SRK: our own primary, the same Name
prov "persistent SRK evicted" tpm2_evictcontrol -C o -c 0x81000001
drv un3 unseal rec1 out3
check "no persistent SRK: efiresume's own primary has the same Name, K1 unseals" \
	bash -c 'grep -q "^status: ok" un3.out && cmp -s out3 k1'
check "its primary is flushed" clean_tpm

# the cap: PCR 7 extended (as efiresume does after sealing): the record no longer unseals
tpm2_pcrextend 7:sha256=$(printf 'efiresume: hibernation key sealed' | sha256sum | cut -c1-64) >/dev/null 2>&1
ER_TPM_TRANSCRIPT=$W/un4.tr drv un4 unseal rec2 x
check "PCR 7 extended: refused, 'PCR 7 changed', exit 2" \
	bash -c '[ '$drc' = 2 ] && grep -q "PCR 7 changed since the image was written" un4.out && ! test -e x'
# the commands sent (every other transcript entry), by command code
python3 - "$W/un4.tr" >un4.ccs <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); o = 0; i = 0
while o < len(d):
    n = struct.unpack(">I", d[o:o + 4])[0]; b = d[o + 4:o + 4 + n]; o += 4 + n
    if i % 2 == 0: print("%08x" % struct.unpack(">I", b[6:10])[0])
    i += 1
PY
check "... decided on PolicyGetDigest: no Unseal (0x15e) sent ($(tr '\n' ' ' < un4.ccs))" \
	bash -c 'grep -q 00000189 un4.ccs && ! grep -q 0000015e un4.ccs'
check "nothing left after the refusal" clean_tpm
tpm2_evictcontrol -C o -c srk.ctx 0x81000001 >/dev/null 2>&1 || true
if tpm2_load -C 0x81000001 -u seal.pub -r seal.priv -c obj2.ctx >/dev/null 2>&1 &&
   tpm2_unseal -c obj2.ctx -p pcr:sha256:7 -o out5 >unseal5.log 2>&1; then
	fail "oracle: tpm2_unseal after PCR 7 was extended"
else ok "oracle: tpm2_unseal refused after PCR 7 was extended ($(grep -o 'TPM_RC_[A-Z_]*\|0x[0-9a-f]*' unseal5.log | head -1))"; fi
tpm2_flushcontext -t >/dev/null 2>&1; tpm2_flushcontext -s >/dev/null 2>&1
head -c 32 /dev/urandom > k6
drv s6 seal k6 rec6
drv u6 unseal rec6 out6
check "sealed again at the new PCR 7: unseals" bash -c 'grep -q "^status: ok" u6.out && cmp -s out6 k6'
finish
