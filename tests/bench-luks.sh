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
# The header is the x64-6.1-luks fixture's container with one keyslot added by cryptsetup
# (and its small test keyslot removed); QEMU gets 2 GiB so that 1 GiB can be allocated.
set -euo pipefail
. "$(dirname "$0")/lib/fixture.sh"
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

for smp in $SMPS; do
	fw=()
	for i in $(seq "$RUNS"); do
		ms=$(fw_run "$smp" "$d/boot-$smp-$i.log")
		[ -n "$ms" ] || { echo "firmware run $i with $smp vCPU(s): no 'unlocked' line (see $d/boot-$smp-$i.log)"; continue; }
		fw+=("$ms")
	done
	[ ${#fw[@]} -gt 0 ] || continue
	fm=$(printf '%s\n' "${fw[@]}" | median)
	echo "efiresume in firmware, QEMU TCG, $smp vCPU(s): ${fw[*]} ms, median $fm ms = $(ratio "$fm" "$hm")x cryptsetup's"
done
