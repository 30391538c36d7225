# SPDX-License-Identifier: GPL-2.0-or-later

# Soak: appended after prelude.sh to form /init (tests/e2e/soak.sh builds it).
# One system that lives through N hibernate/resume cycles, writing the ext4 data
# partition /dev/vda3 every cycle. Boot 0 (efiresume finds no image, starts this
# kernel) sets up and runs cycle 1; every later QEMU start is a resume by efiresume
# and the shell carries on right after the write to /sys/power/state.
# Cycle i: write /data/cycle-III.bin (SOAK_MB MiB taken from /soak/pool.bin at
# places given by i, the host makes the same bytes), its md5 into /data/MANIFEST,
# a line into /data/log, sync, hibernate. After the resume of cycle i: check the
# RAM state (tmpfs token, counter, a background ticker), drop the page cache and
# verify every file so far from the disk. After the resume of cycle N: unmount,
# swapoff, power off.
# Command line: efiresume_soak=N (cycles), efiresume_soak_mb=M (MiB per file).
# Every result is one "EFIRESUME-TEST: ..." line; a failure is "soak-fail ...".
n=$(arg efiresume_soak)
n=${n:-3}
mb=$(arg efiresume_soak_mb)
mb=${mb:-8}
say "soak booted $(uname -r) cycles=$n mb=$mb"

soak_fail() {
	say "soak-fail $*"
	umount /data 2>/dev/null
	poweroff -f
}

# the file of cycle $1: 1 MiB pieces of the 2 MiB pool at page offsets that depend on
# the cycle and the piece (tests/e2e/soak.sh computes the same)
soak_write() {
	local i=$1 k=0 off
	while [ $k -lt "$mb" ]; do
		off=$(( (i * 7919 + k * 104729) % 256 ))
		dd if=/soak/pool.bin bs=4096 skip=$off count=256 2>/dev/null || return 1
		k=$((k + 1))
	done
}

soak_name() { printf 'cycle-%03d.bin' "$1"; }

# the background ticker: keeps counting while the system runs (frozen over the hibernation)
ticks() {
	local j=0 v=
	while [ $j -lt 20 ]; do
		v=$(cat /tmp/ticks 2>/dev/null)
		[ -n "$v" ] && break
		j=$((j + 1)); sleep 0.05
	done
	echo "${v:-0}"
}

mkswap /dev/vda2 > /dev/null || soak_fail "mkswap"
swapon /dev/vda2 || soak_fail "swapon"
mkdir -p /data
mount -t ext4 /dev/vda3 /data || soak_fail "mount /dev/vda3"
# a fresh boot where a resume was expected must not overwrite what earlier cycles wrote
[ -e /data/MANIFEST ] && soak_fail "fresh boot but /data/MANIFEST exists: a resume did not happen"
echo shutdown > /sys/power/disk || soak_fail "hibernation mode shutdown"

token=$(dd if=/dev/urandom bs=16 count=1 2>/dev/null | od -An -tx1 | tr -d ' \n')
echo "$token" > /tmp/token
say "soak token=$token"
count=0
echo 0 > /tmp/count
(
	t=0
	while :; do
		t=$((t + 1))
		echo $t > /tmp/ticks.new
		busybox mv -f /tmp/ticks.new /tmp/ticks
		sleep 1
	done
) &

i=1
while :; do
	# --- write cycle i ---
	f=$(soak_name $i)
	soak_write $i > /data/$f || soak_fail "cycle $i: writing $f"
	md5=$(md5sum /data/$f | cut -d' ' -f1)
	echo "$md5  $f" >> /data/MANIFEST || soak_fail "cycle $i: MANIFEST"
	echo "cycle $i token $token file $f md5 $md5 uptime $(cut -d' ' -f1 /proc/uptime)" >> /data/log ||
		soak_fail "cycle $i: log"
	sync
	count=$i
	echo $i > /tmp/count
	say "cycle $i written $f md5=$md5"
	say "cycle $i hibernating"
	echo disk > /sys/power/state || soak_fail "cycle $i: hibernation failed"

	# --- resumed (by efiresume): the memory of cycle i ---
	say "cycle $i resumed"
	t1=$(ticks)
	rt=$(cat /tmp/token 2>/dev/null)
	rc=$(cat /tmp/count 2>/dev/null)
	if [ "$rt" = "$token" ] && [ "$rc" = "$i" ] && [ "$count" = "$i" ]; then
		say "cycle $i ram ok token=$rt count=$count"
	else
		soak_fail "cycle $i: RAM state token=$rt/$token count=$rc/$count/$i"
	fi
	# the swap signature on the disk (past the page cache): efiresume reset it
	sig=$(dd if=/dev/vda2 bs=4096 count=1 iflag=direct 2>/dev/null | dd bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')
	[ "$sig" = SWAPSPACE2 ] || soak_fail "cycle $i: swap signature '$sig' after the resume"
	# every file so far, read from the disk
	sync
	echo 3 > /proc/sys/vm/drop_caches
	nf=$(wc -l < /data/MANIFEST)
	nl=$(wc -l < /data/log)
	[ "$nf" = "$i" ] && [ "$nl" = "$i" ] || soak_fail "cycle $i: MANIFEST has $nf lines, log $nl"
	(cd /data && md5sum -c MANIFEST > /tmp/md5c 2>&1) || { cat /tmp/md5c > /dev/console; soak_fail "cycle $i: md5sum -c"; }
	ok=$(grep -c ': OK$' /tmp/md5c)
	[ "$ok" = "$i" ] || soak_fail "cycle $i: $ok of $i files OK"
	say "cycle $i verified $ok files"
	t2=$(ticks)
	[ "$t2" -gt "$t1" ] || { sleep 2; t2=$(ticks); }
	say "cycle $i ticks $t1 -> $t2"

	[ $i -lt "$n" ] || break
	i=$((i + 1))
done

umount /data || soak_fail "umount /data"
swapoff /dev/vda2 || soak_fail "swapoff"
say "soak-done cycles=$n"
poweroff -f
