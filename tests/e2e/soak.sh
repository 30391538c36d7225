#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Soak: N hibernate/resume cycles of one system, every resume by efiresume.
#   soak.sh [CYCLES]      (default 20; env SOAK_MB: MiB written per cycle, default 8;
#                          SOAK_TIMEOUT: seconds per QEMU run, default 900)
# The disk: GPT, ESP (efiresume as \EFI\BOOT\BOOTX64.EFI, the Debian cloud kernel as
# \vmlinuz.efi, the busybox initramfs with tests/e2e/init/soak.sh as /init), swap, and an
# ext4 data partition made here with mke2fs. QEMU run 0: efiresume finds no image and
# starts the kernel; the guest writes cycle 1's file to the data partition and
# hibernates (QEMU exits). Run k = 1..N: efiresume resumes the image of cycle k; the
# guest checks its RAM state and every file so far, then writes cycle k+1 and hibernates
# (or, after cycle N, unmounts and powers off). At the end the host takes the data
# partition out of the disk: fsck.ext4 -fn must be clean, and every file (dumped with
# debugfs) must be byte for byte the one this script computes from the same pool, with
# the md5 the guest reported when it wrote it.
# Prints one line per cycle (efiresume's load time from its "timing:" lines, QEMU start
# to "resumed" seconds) and a one-line summary; exits non-zero on any failure.
# Control runs (the test must then FAIL): SOAK_CONTROL=WHAT:K acts after QEMU run K:
#   flip:K     flips one byte of cycle-001.bin on the disk (K < CYCLES: the guest's
#              check after the next resume must see it; K = CYCLES: the host's check)
#   noimage:K  resets the swap signature to SWAPSPACE2: the image is gone, the next start
#              is a fresh boot of the fallback kernel, which must be caught
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"

cycles=${1:-20}
[[ $cycles =~ ^[1-9][0-9]*$ ]] || die "soak.sh: CYCLES must be a positive number, not '$cycles'"
mb=${SOAK_MB:-8}
tmo=${SOAK_TIMEOUT:-900}
arch=x64 kpkg=linux-image-cloud-amd64
mem=${MEM:-512}
swap_mb=$((mem + 64))
data_mb=$((cycles * mb + 64))
DATA_PARTUUID=9b1e5c2d-4a3f-4e6b-8c7d-0f1e2d3c4b5a
DATA_FS_UUID=c0ffee00-50a6-4e2b-9d1c-7a8b9c0d1e2f
DATA_START=$((SWAP_START + swap_mb * 2048))

d=$(scratch "soak-$cycles")
efi=$BUILD/efiresume-$arch.efi
[ -f "$efi" ] || die "no $efi (make $efi)"
# one binary for the whole run (others may rebuild build/ meanwhile)
cp "$efi" "$d/efiresume.efi"
kdir=$(kernel_dir $kpkg) || die "cannot fetch $kpkg"
kimg=$(kernel_image "$kdir")
say "soak: $cycles cycles, $mb MiB per cycle, $(basename "$kdir"), $mem MiB, efiresume $(md5sum < "$d/efiresume.efi" | cut -c1-12); in $d"

# --- the data the guest writes: a 2 MiB pool (deterministic), 1 MiB pieces of it ---
python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(20261203).randbytes(2 << 20))' > "$d/pool.bin"
# expected_file I: what the guest's soak_write I produces (same formula)
expected_file() {
	local i=$1 k=0
	while [ $k -lt "$mb" ]; do
		dd if="$d/pool.bin" bs=4096 skip=$(( (i * 7919 + k * 104729) % 256 )) count=256 status=none
		k=$((k + 1))
	done
}
declare -A want_md5
for ((i = 1; i <= cycles; i++)); do
	want_md5[$i]=$(expected_file $i | md5sum | cut -d' ' -f1)
done

# --- the initramfs: prelude + soak as /init, the pool in a second archive ---
cat "$TOP/tests/e2e/init/prelude.sh" "$TOP/tests/e2e/init/soak.sh" > "$d/init"
make_initramfs $arch "$kdir" "$d/init" "$d/initrd.gz"
r=$(mktemp -d)
mkdir "$r/soak"
cp "$d/pool.bin" "$r/soak/pool.bin"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >> "$d/initrd.gz"
rm -rf "$r"

# --- the disk: ESP + swap (as make_disk) + ext4 data partition ---
disk=$d/disk.img
truncate -s $(( DATA_START / 2048 + data_mb + 1 ))M "$disk"
sgdisk -n1:$ESP_START:+${ESP_MB}M -t1:ef00 -u1:$ESP_PARTUUID \
	-n2:$SWAP_START:+${swap_mb}M -t2:8200 -u2:$SWAP_PARTUUID \
	-n3:$DATA_START:0 -t3:8300 -u3:$DATA_PARTUUID "$disk" >/dev/null
mformat -i "$disk@@$((ESP_START * 512))" -F -T $((ESP_MB * 2048)) -v ESP ::
mmd -i "$disk@@$((ESP_START * 512))" ::/EFI ::/EFI/BOOT
data_end=$(sgdisk -i 3 "$disk" | awk '/Last sector/{print $3}')
data_bytes=$(( (data_end - DATA_START + 1) * 512 ))
truncate -s $data_bytes "$d/data0.img"
mke2fs -q -F -t ext4 -b 4096 -L soakdata -U $DATA_FS_UUID "$d/data0.img"
dd if="$d/data0.img" of="$disk" bs=1M seek=$((DATA_START / 2048)) conv=notrunc,sparse status=none
rm -f "$d/data0.img"
cat > "$d/efiresume.conf" <<EOC
# soak: $cycles cycles
timeout 0
fallback \\vmlinuz.efi
options initrd=\\initrd.gz console=ttyS0 panic=-1 loglevel=7 efiresume_soak=$cycles efiresume_soak_mb=$mb
EOC
esp_put "$disk" "$d/efiresume.efi" ::/EFI/BOOT/BOOTX64.EFI
esp_put "$disk" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
esp_put "$disk" "$kimg" ::/vmlinuz.efi
esp_put "$disk" "$d/initrd.gz" ::/initrd.gz
new_vars $arch "$d/vars.fd"

# run K: one QEMU start; serial lines timed from the start (bootK.tslog), plain in bootK.log
run() {
	local k=$1
	{
		local rc=0
		MEM=$mem QEMU_SERIAL="-serial stdio" run_qemu $arch "$disk" "$d/vars.fd" /dev/null "$tmo" || rc=$?
		echo $rc > "$d/boot$k.rc"
	} | "$TOP/tests/lib/tslog.py" "$d/boot$k.tslog"
	sed -E 's/^[0-9]+\.[0-9]+ //' "$d/boot$k.tslog" > "$d/boot$k.log"
	clean_log "$d/boot$k.log" > "$d/boot$k.log.txt"
}
# the first EFIRESUME-TEST line matching REGEX in run K's log (empty if none)
line() { grep -aE -m1 "^EFIRESUME-TEST: $2" "$d/boot$1.log.txt" || true; }
# seconds from the QEMU start to the first line matching REGEX in run K
# (no early-exiting reader in a pipe: with pipefail its writer's SIGPIPE would end the script)
at() { awk -v re="$2" '{ gsub(/\033\[[0-9;?]*[A-Za-z]/, ""); gsub(/\r/, "") } $0 ~ re { print $1; exit }' "$d/boot$1.tslog"; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { sort -n | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }'; }

# control K: SOAK_CONTROL's action, when it names run K
control() {
	[ -n "${SOAK_CONTROL:-}" ] && [ "${SOAK_CONTROL#*:}" = "$1" ] || return 0
	local blk at b
	case ${SOAK_CONTROL%%:*} in
	flip)
		# the file's first page on the disk, found by content (the journal of the mounted
		# filesystem may not be checkpointed yet: debugfs could miss the inode)
		blk=$(python3 - "$disk" $((DATA_START * 512)) $data_bytes "$d/pool.bin" $(( (1 * 7919) % 256 )) <<'PY'
import mmap, sys
disk, start, size, pool, page = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
want = open(pool, "rb").read()[page * 4096:(page + 1) * 4096]
with open(disk, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
    at = start
    while True:
        at = m.find(want, at, start + size)
        if at < 0 or (at - start) % 4096 == 0:
            break
        at += 1
    print((at - start) // 4096 if at >= 0 else "")
PY
)
		[[ $blk =~ ^[0-9]+$ ]] && [ "$blk" -gt 0 ] || die "control: cycle-001.bin not found on the data partition"
		at=$((DATA_START * 512 + blk * 4096 + 1000))
		b=$(od -An -tu1 -j $at -N1 "$disk" | tr -d ' ')
		printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$disk" bs=1 seek=$at conv=notrunc status=none
		echo "CONTROL: after run $1, byte $at of the disk (block $blk of the data partition, in cycle-001.bin) $b -> $((b ^ 255))" ;;
	noimage)
		set_swap_sig "$disk" SWAPSPACE2
		echo "CONTROL: after run $1, swap signature reset to SWAPSPACE2 (image gone)" ;;
	*) die "unknown SOAK_CONTROL $SOAK_CONTROL" ;;
	esac
}

declare -A got_md5
fail=0 passed=0
loads=() resumes=() runs=()
# written K I: run K's guest wrote cycle I's file with the expected md5 and hibernated
written() {
	local k=$1 i=$2 l m
	l=$(line $k "cycle $i written ")
	m=${l##*md5=}
	if [ -z "$l" ]; then
		echo "  WRONG: missing: cycle $i's file not written (run $k)"; return 1
	elif [ "$m" != "${want_md5[$i]}" ]; then
		echo "  WRONG: cycle $i's file has md5 $m, expected ${want_md5[$i]}"; return 1
	fi
	got_md5[$i]=$m
	[ -n "$(line $k "cycle $i hibernating\$")" ] || { echo "  WRONG: missing: cycle $i hibernating"; return 1; }
	grep -aq 'reboot: Power down' "$d/boot$k.log.txt" || { echo "  WRONG: missing: power off after the image was written"; return 1; }
	local sig
	sig=$(swap_sig "$disk")
	[ "$sig" = S1SUSPEND ] || { echo "  WRONG swap signature '$sig' after cycle $i hibernated"; return 1; }
}
# problems any run may show
sane() {
	local k=$1 l
	l=$(grep -aE -m3 'soak-fail|Kernel panic|BUG:|Oops|hibernation failed' "$d/boot$k.log.txt" || true)
	[ -z "$l" ] || { echo "  FAILED in run $k:"; echo "$l" | sed 's/^/  | /'; return 1; }
	[ "$(cat "$d/boot$k.rc")" = 0 ] || { echo "  QEMU status $(cat "$d/boot$k.rc") in run $k (124 = timeout)"; return 1; }
}

t0=$(date +%s)
say "run 0: fresh boot, cycle 1 written and hibernated"
run 0
sane 0 || fail=1
if [ $fail = 0 ]; then
	grep -aEq "efiresume: swap PARTUUID=$SWAP_PARTUUID: (no image|no swap signature)" "$d/boot0.log.txt" ||
		{ echo "  WRONG: missing: efiresume saw no image in run 0"; fail=1; }
	token=$(line 0 'soak token=' | sed 's/.*token=//')
	[[ $token =~ ^[0-9a-f]{32}$ ]] || { echo "  WRONG: missing: token in run 0"; fail=1; }
	written 0 1 || fail=1
	echo "run 0: booted in $(at 0 'EFIRESUME-TEST: soak booted') s, cycle 1 hibernating at $(at 0 'EFIRESUME-TEST: cycle 1 hibernating') s, QEMU ran $(at 0 'reboot: Power down') s"
fi
control 0

for ((k = 1; k <= cycles && fail == 0; k++)); do
	ts=$(date +%s)
	run $k
	te=$(date +%s)
	log=$d/boot$k.log.txt
	sane $k || fail=1
	if [ -n "$(line $k 'soak booted')" ]; then
		echo "  a fresh boot: efiresume did not resume cycle $k's image"; fail=1
	fi
	grep -aq 'resetting the swap signature to SWAPSPACE2 and handing off' "$log" ||
		{ echo "  WRONG: missing: efiresume's hand-off"; fail=1; }
	total=$(sed -nE '/efiresume: timing: prepare/{s/.*efiresume: timing: prepare [0-9]+ ms, total ([0-9]+) ms.*/\1/p;q}' "$log")
	phases=$(sed -nE '/efiresume: timing: verify/{s/.*efiresume: timing: (verify .*)$/\1/p;q}' "$log")
	size=$(sed -nE '/efiresume: found a hibernated/{s/.*efiresume: found a hibernated .*: ([0-9]+ MiB).*/\1/p;q}' "$log")
	[ -n "$total" ] || { echo "  WRONG: missing: efiresume timing line"; fail=1; }
	[ -n "$(line $k "cycle $k resumed\$")" ] || { echo "  WRONG: missing: cycle $k resumed"; fail=1; }
	[ -n "$(line $k "cycle $k ram ok token=$token count=$k\$")" ] || { echo "  WRONG: missing: RAM state of cycle $k (token $token, count $k)"; fail=1; }
	[ -n "$(line $k "cycle $k verified $k files\$")" ] || { echo "  WRONG: missing: $k files verified by the guest"; fail=1; }
	tk=$(line $k "cycle $k ticks ")
	set -- $tk
	if [ $# -eq 7 ] && [ "$7" -gt "$5" ]; then :; else echo "  STOPPED ticker: '$tk'"; fail=1; fi
	if [ $k -lt $cycles ]; then
		written $k $((k + 1)) || fail=1
	else
		[ -n "$(line $k "soak-done cycles=$cycles\$")" ] || { echo "  WRONG: missing: soak-done"; fail=1; }
		sig=$(swap_sig "$disk")
		[ "$sig" = SWAPSPACE2 ] || { echo "  WRONG swap signature '$sig' at the end"; fail=1; }
	fi
	tr=$(at $k 'EFIRESUME-TEST: cycle [0-9]+ resumed')
	printf 'cycle %2d/%d: %s  efiresume load %s ms (%s; %s), QEMU start to resumed %s s, run %s s\n' \
		$k $cycles "$([ $fail = 0 ] && echo ok || echo FAILED)" "${total:--}" "${size:-?}" "${phases:-no timing}" "${tr:--}" $((te - ts))
	control $k
	if [ $fail = 0 ]; then
		passed=$k
		loads+=("$total") resumes+=("$tr") runs+=($((te - ts)))
	else
		echo "  --- last lines of $log:"
		tail -15 "$log" | sed 's/^/  | /'
	fi
done

# --- the data partition, checked from the host ---
fsck_res="not run" host_ok=0
dd if="$disk" of="$d/data.img" bs=1M skip=$((DATA_START / 2048)) count=$((data_bytes / 1048576)) conv=sparse status=none
frc=0
fsck.ext4 -fn "$d/data.img" > "$d/fsck.txt" 2>&1 || frc=$?
if [ $frc = 0 ]; then
	fsck_res="clean ($(tail -1 "$d/fsck.txt" | sed 's/^[^:]*: //'))"
	echo "fsck.ext4 -fn: $fsck_res"
else
	fsck_res="status $frc"
	echo "fsck.ext4 -fn: status $frc"; sed 's/^/  | /' "$d/fsck.txt" | tail -20; fail=1
fi
state=$(dumpe2fs -h "$d/data.img" 2>/dev/null | sed -n 's/^Filesystem state: *//p')
if [ $fail = 0 ] && [ "$state" != clean ]; then echo "  filesystem state '$state' (not unmounted cleanly?)"; fail=1; fi
debugfs -R 'cat /MANIFEST' "$d/data.img" > "$d/MANIFEST" 2>/dev/null || true
debugfs -R 'cat /log' "$d/data.img" > "$d/log" 2>/dev/null || true
nman=$(wc -l < "$d/MANIFEST")
# every cycle the guest reported writing (all of them when it passed)
nwritten=${#got_md5[@]}
[ $fail = 1 ] || [ "$nman" = "$cycles" ] || { echo "  MANIFEST has $nman lines, expected $cycles"; fail=1; }
for ((i = 1; i <= nwritten; i++)); do
	f=$(printf 'cycle-%03d.bin' $i)
	rm -f "$d/got.bin"
	debugfs -R "dump /$f $d/got.bin" "$d/data.img" >/dev/null 2>&1 || true
	if [ ! -f "$d/got.bin" ]; then echo "  host: $f missing"; fail=1; continue; fi
	m=$(md5sum < "$d/got.bin" | cut -d' ' -f1)
	if ! expected_file $i | cmp -s - "$d/got.bin"; then
		echo "  host: $f differs from the expected bytes (md5 $m, expected ${want_md5[$i]})"; fail=1; continue
	fi
	grep -qx "$m  $f" "$d/MANIFEST" || { echo "  host: $f: md5 $m not in the MANIFEST"; fail=1; continue; }
	[ "$m" = "${got_md5[$i]}" ] || { echo "  host: $f: md5 $m, guest reported ${got_md5[$i]}"; fail=1; continue; }
	grep -q "^cycle $i token $token file $f md5 $m " "$d/log" || { echo "  host: no log line for cycle $i"; fail=1; continue; }
	host_ok=$((host_ok + 1))
done
[ "$(debugfs -R "stat /$(printf 'cycle-%03d.bin' $((nwritten + 1)))" "$d/data.img" 2>&1 | grep -c 'Inode:')" = 0 ] ||
	{ echo "  host: a file beyond cycle $nwritten"; fail=1; }
echo "host: $host_ok of $nwritten files byte for byte as expected (debugfs dump), MANIFEST $nman lines, log $(wc -l < "$d/log") lines"

secs=$(( $(date +%s) - t0 ))
load_med=$(printf '%s\n' "${loads[@]:-}" | { grep . || true; } | median)
load_mm=$(printf '%s\n' "${loads[@]:-}" | { grep . || true; } | minmax)
res_med=$(printf '%s\n' "${resumes[@]:-}" | { grep . || true; } | median)
res_mm=$(printf '%s\n' "${resumes[@]:-}" | { grep . || true; } | minmax)
run_med=$(printf '%s\n' "${runs[@]:-}" | { grep . || true; } | median)
summary="$passed/$cycles cycles resumed by efiresume; efiresume load median $load_med ms ($load_mm); QEMU start to resumed median $res_med s ($res_mm); run median $run_med s; fsck $fsck_res; $host_ok/$cycles files verified from the host; ${secs} s"
if [ $fail = 0 ]; then
	echo "soak PASSED: $summary"
else
	echo "soak FAILED: $summary (see $d)"
fi
exit $fail
