#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real systemd-tpm2 tokens for a measured chain (tests/host/test-tpm-status.sh reads them): a
# throw-away swtpm's PCR 7 (sha256) is extended with the digests of CHAIN.bin's PCR 7 events, in
# order, as tpm2_eventlog decodes them (the TPM computes the chain, not our replay):
#   1. up to efiresume's own EV_EFI_BOOT_SERVICES_APPLICATION (PCR 4, a file under
#      \EFI\efiresume\ named grubx64.efi or efiresume.efi): PCR 7 as efiresume sees it;
#      systemd-cryptenroll --tpm2-pcrs=7 (keyslot 1) and --tpm2-pcrs=7 --tpm2-with-pin=yes
#      (PIN 1234, keyslot 2) seal against it
#   2. the rest of the log: PCR 7 as the initramfs sees it (checked equal to CHAIN.pcrs, what the
#      guest's kernel read from the TPM); systemd-cryptenroll --tpm2-pcrs=7 (keyslot 3)
# Writes CHAIN.token-efiresume.json, CHAIN.token-efiresume-pin.json, CHAIN.token-initramfs.json
# and CHAIN.tpm (the two PCR 7 values as the TPM read them: "efiresume HEX", "initramfs HEX").
#   tests/host/data/eventlog/enrol.sh CHAIN     (root; systemd-cryptenroll 252, cryptsetup,
#                                               swtpm, tpm2-tools, python3-yaml)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
chain=${1:?CHAIN}
log=$here/$chain.bin
[ -r "$log" ] || { echo "no $log" >&2; exit 1; }
. "$here/../../../lib/swtpm.sh"
w=$(mktemp -d)
trap 'kill "${SWTPM_TCP_PID:-}" 2>/dev/null || true; rm -rf "$w"' EXIT
swtpm_tcp_tools "$w/state" "${TPM_ENROL_PORT:-24431}"
flush() { tpm2_flushcontext -l >/dev/null 2>&1 || true; tpm2_flushcontext -t >/dev/null 2>&1 || true; }
tpm2_eventlog "$log" > "$w/log.yaml"
# "efiresume" lines: the PCR 7 sha256 digests before efiresume starts; "rest": the others
python3 - "$w/log.yaml" > "$w/digests" <<'EOF'
import sys, yaml
y = yaml.safe_load(open(sys.argv[1]))
def path(e):
	dp = bytes.fromhex(e['Event'].get('DevicePath', '') if isinstance(e.get('Event'), dict) else '')
	out, k = '', 0
	while k + 4 <= len(dp):
		t, s, n = dp[k], dp[k + 1], int.from_bytes(dp[k + 2:k + 4], 'little')
		if n < 4 or t == 0x7f: break
		if t == 4 and s == 4: out += dp[k + 4:k + n].decode('utf-16-le').rstrip('\0')
		k += n
	return out.lower()
phase = 'efiresume'
for e in y['events']:
	if e['EventType'] == 'EV_NO_ACTION': continue
	if e['PCRIndex'] == 7:
		d = [x['Digest'] for x in e['Digests'] if x['AlgorithmId'] == 'sha256'][0]
		print(phase, d)
	if e['PCRIndex'] == 4 and e['EventType'] == 'EV_EFI_BOOT_SERVICES_APPLICATION' and \
	   path(e).replace('/', '\\') in ('\\efi\\efiresume\\grubx64.efi', '\\efi\\efiresume\\efiresume.efi'):
		phase = 'rest'
EOF
grep -q '^rest ' "$w/digests" || { echo "$chain: no efiresume image in the log" >&2; exit 1; }
pcr7() { tpm2_pcrread sha256:7 -o "$w/p.bin" >/dev/null && od -An -v -tx1 "$w/p.bin" | tr -d ' \n'; }
cd "$w"
truncate -s 20M disk.img
printf oldpass | cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 disk.img -
while read -r ph d; do [ "$ph" = efiresume ] && tpm2_pcrextend 7:sha256="$d"; done < digests
v1=$(pcr7)
PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$TPM2TOOLS_TCTI" --tpm2-pcrs=7 disk.img; flush
PASSWORD=oldpass NEWPIN=1234 systemd-cryptenroll --tpm2-device="$TPM2TOOLS_TCTI" --tpm2-pcrs=7 --tpm2-with-pin=yes disk.img; flush
while read -r ph d; do [ "$ph" = rest ] && tpm2_pcrextend 7:sha256="$d"; done < digests
v2=$(pcr7)
want=$(awk '$1 == 7 {print tolower($2)}' "$here/$chain.pcrs")
[ "$v2" = "$want" ] || { echo "$chain: the TPM's PCR 7 after the whole log is $v2, the guest read $want" >&2; exit 1; }
PASSWORD=oldpass systemd-cryptenroll --tpm2-device="$TPM2TOOLS_TCTI" --tpm2-pcrs=7 disk.img; flush
cryptsetup token export --token-id 0 disk.img > "$here/$chain.token-efiresume.json"
cryptsetup token export --token-id 1 disk.img > "$here/$chain.token-efiresume-pin.json"
cryptsetup token export --token-id 2 disk.img > "$here/$chain.token-initramfs.json"
printf 'efiresume %s\ninitramfs %s\n' "$v1" "$v2" > "$here/$chain.tpm"
echo "$chain: PCR 7 at efiresume $v1, in the initramfs $v2 (= the guest's)"
