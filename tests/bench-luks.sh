#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, part 4: unlocking a LUKS2 keyslot with cryptsetup's default Argon2id shape
# (1 GiB of memory, 4 lanes; 4 passes, the least cryptsetup calibrates to), in firmware
# and by cryptsetup, on the same header.
#  - firmware: efiresume under QEMU (TCG) + OVMF, with 1 and with BENCH_LUKS_SMP (default 2)
#    vCPUs (its argon2 lanes run on the other CPUs through EFI MP services); the time is
#    what efiresume reports on its "unlocked" line (the KDF, the AF merge and the digest);
#  - host: `cryptsetup open --test-passphrase --key-slot 1` (libargon2 through
#    libcryptsetup, same work), wall time.
#  - the TPM (issue 25): the same container with a systemd-tpm2 token enrolled by the host's
#    systemd-cryptenroll against a swtpm, whose state QEMU's TPM (swtpm, TIS) then has:
#    efiresume's unlock through EFI_TCG2_PROTOCOL (the salted, encrypted session, Load,
#    PolicyGetDigest, Unseal, then the token's PBKDF2 keyslot), the time its "unlocked with
#    the TPM" line reports (the TPM's share, the keyslot's), 1 vCPU. The token has no PCR in
#    its policy (--tpm2-pcrs=): the host's swtpm has no firmware to measure PCR 7 as OVMF
#    will (a PCR policy adds one PolicyPCR command). swtpm answers at memory speed; a discrete
#    TPM takes tens of ms per ECC operation, which this does not measure.
# The header is the x64-6.1-luks fixture's container with one keyslot added by cryptsetup
# (and its small test keyslot removed); QEMU gets 2 GiB so that 1 GiB can be allocated.
set -euo pipefail
. "$(dirname "$0")/lib/fixture.sh"
. "$TOP/tests/lib/swtpm.sh"
RUNS=${BENCH_RUNS:-3}
SMPS="1 ${BENCH_LUKS_SMP:-2}"
PASS='bench default argon2id'
name=x64-6.1-luks

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "nan" }'; }

make_fixture $name x64 linux-image-cloud-amd64 -- efiresume_luks efiresume_hibloc > /dev/null
d=$(scratch bench-luks)
copy_fixture $name "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-x64.efi" ::/EFI/BOOT/BOOTX64.EFI
# no resume (the memory size differs from the image's): unlock, report, boot normally
sed -e 's/^options \(.*\)$/options \1 efiresume_probe/' "$(fixture_dir $name)/efiresume.conf" > "$d/efiresume.conf"
echo "dry-run yes" >> "$d/efiresume.conf"
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf

vol_part "$d/disk.img" "$d/part"
printf '%s' "$VOL_LUKS_PASS" > "$d/old.key"
printf '%s' "$PASS" > "$d/new.key"
cryptsetup luksAddKey --batch-mode --key-file "$d/old.key" --key-slot 1 --pbkdf argon2id \
	--pbkdf-memory 1048576 --pbkdf-parallel 4 --pbkdf-force-iterations 4 "$d/part" "$d/new.key"
cryptsetup luksKillSlot --batch-mode --key-file "$d/new.key" "$d/part" 0
vol_put_part "$d/disk.img" "$d/part"
echo "keyslot: $(cryptsetup luksDump "$d/part" | awk '/^Keyslots:/ { on = 1 } on && /PBKDF|Time cost|Memory|Threads/ { gsub(/^[ \t]+/, ""); printf "%s; ", $0 } /^Tokens:/ { on = 0 }')"

# host: cryptsetup
host=()
for _ in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	cryptsetup open --test-passphrase --key-slot 1 --key-file "$d/new.key" "$d/part"
	t1=$(date +%s.%N)
	host+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')")
done
hm=$(printf '%s\n' "${host[@]}" | median)
echo "cryptsetup on the host ($(nproc) cores): ${host[*]} ms, median $hm ms"

# firmware: type the passphrase when asked, stop QEMU once efiresume has reported
type_and_stop() {
	for _ in $(seq 1500); do grep -aq 'passphrase for' "$1" && break; sleep 0.2; done
	sleep 0.5
	printf '%s\r' "$PASS"
	for _ in $(seq 3000); do grep -aq 'unlocked (keyslot\|not unlocked\|wrong passphrase' "$1" && break; sleep 0.2; done
	pkill -f "path=$1.ser " 2>/dev/null || true
}
fw_run() {
	local smp=$1 log=$2
	cp --sparse=always "$(fixture_dir $name)/vars.fd" "$d/vars.fd"
	MEM=2048 SMP=$smp serial_boot x64 "$d/disk.img" "$d/vars.fd" "$log" 900 type_and_stop \
		$(fixture_fact $name qemu_args) || true
	clean_log "$log" | sed -n 's/.*unlocked (keyslot 1, argon2id, \([0-9]*\) ms on \([0-9]*\) CPU.*/\1/p' | head -1
}

kdf1=
for smp in $SMPS; do
	fw=()
	for i in $(seq "$RUNS"); do
		ms=$(fw_run "$smp" "$d/boot-$smp-$i.log")
		[ -n "$ms" ] || { echo "firmware run $i with $smp vCPU(s): no 'unlocked' line (see $d/boot-$smp-$i.log)"; continue; }
		fw+=("$ms")
	done
	[ ${#fw[@]} -gt 0 ] || continue
	fm=$(printf '%s\n' "${fw[@]}" | median)
	[ "$smp" != 1 ] || kdf1=$fm
	echo "efiresume in firmware, QEMU TCG, $smp vCPU(s): ${fw[*]} ms, median $fm ms = $(ratio "$fm" "$hm")x cryptsetup's"
done

# the TPM: a systemd-tpm2 token on the same container (keyslot 1's passphrase unlocks for
# the enrolment), the swtpm's state handed from the host's TCP swtpm to QEMU's
swtpm_tcp_start "$d/tpm" || { echo "TPM: no swtpm ($(cat "$d/tpm.log"))"; exit 1; }
rc=0
systemd-cryptenroll --tpm2-device="swtpm:host=127.0.0.1,port=$SWTPM_TCP_PORT" --tpm2-pcrs= \
	--unlock-key-file="$d/new.key" "$d/part" > "$d/enrol.log" 2>&1 || rc=$?
kill "$SWTPM_TCP_PID"; wait "$SWTPM_TCP_PID" 2>/dev/null || true
[ $rc = 0 ] || { echo "TPM: systemd-cryptenroll failed: $(tail -2 "$d/enrol.log")"; exit 1; }
vol_put_part "$d/disk.img" "$d/part"
echo "TPM token: $(cryptsetup token export --token-id 0 "$d/part" | python3 -c 'import json,sys; t=json.load(sys.stdin); print(t["type"], "keyslot", ",".join(t["keyslots"]), "pcrs", t["tpm2-pcrs"] or "none")'); $(cryptsetup luksDump "$d/part" | awk '/^Keyslots:/ { on = 1 } /^Tokens:/ { on = 0 } on && /^  [0-9]+: / { k = $0 } on && /PBKDF:/ { sub(/^[ \t]+/, ""); printf "keyslot%s %s; ", k, $0 }' | tr -s ' ')"
stop_when_unlocked() {
	for _ in $(seq 1500); do grep -aq 'unlocked with the TPM\|not unsealed\|TPM did not\|passphrase for' "$1" && break; sleep 0.2; done
	pkill -f "path=$1.ser " 2>/dev/null || true
}
# (the random source at a fixed PCI address: at the first free one it takes the disk's, 0x2,
# and the fixture's boot entry no longer finds the disk)
tp=() tt=() tk=()
for i in $(seq "$RUNS"); do
	cp --sparse=always "$(fixture_dir $name)/vars.fd" "$d/vars.fd"
	log=$d/boot-tpm-$i.log
	# each run on a copy of the state as the enrolment left it: a run ends with QEMU killed,
	# a power cut without TPM2_Shutdown, which the TPM counts against its dictionary-attack
	# limit (the token's object has no noDA: systemd 252); the third such run in a row met
	# "the TPM is in dictionary-attack lockout"
	rm -rf "$d/tpm-run"; cp -a "$d/tpm" "$d/tpm-run"
	MEM=2048 SMP=1 swtpm_boot "$d/tpm-run" serial_boot x64 "$d/disk.img" "$d/vars.fd" "$log" 900 stop_when_unlocked -device virtio-rng-pci,addr=0x10 \
		$(fixture_fact $name qemu_args) || true
	l=$(clean_log "$log" | sed -n 's/.*unlocked with the TPM .*keyslot [0-9]* (\([0-9]*\) ms: the TPM \([0-9]*\) ms, the keyslot \([0-9]*\) ms).*/\1 \2 \3/p' | head -1)
	[ -n "$l" ] || { echo "TPM run $i: no 'unlocked with the TPM' line (see $log): $(clean_log "$log" | grep -a 'TPM\|tpm' | tail -2 | paste -sd'|')"; continue; }
	read -r a b c <<< "$l"
	tp+=("$a") tt+=("$b") tk+=("$c")
done
if [ ${#tp[@]} -gt 0 ]; then
	pm=$(printf '%s\n' "${tp[@]}" | median)
	echo "efiresume in firmware with the TPM (swtpm), 1 vCPU: ${tp[*]} ms, median $pm ms (the TPM $(printf '%s\n' "${tt[@]}" | median) ms, the token's keyslot $(printf '%s\n' "${tk[@]}" | median) ms)"
	[ -z "$kdf1" ] || echo "the TPM unlock vs the passphrase's argon2id keyslot, same container, 1 vCPU: $pm ms vs $kdf1 ms = $(ratio "$kdf1" "$pm")x faster"
fi
