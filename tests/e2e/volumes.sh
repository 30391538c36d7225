#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Swap on LVM and in LUKS2 (issue 11), end to end: real Debian 6.1 kernels that
# hibernated to LV vg0/swap_1 (tests/lib/volumes.sh, made by the guest with the
# host's lvm2 and cryptsetup), resumed or refused by efiresume under OVMF.
#   volumes.sh CASE
#     lvm          PV on partition 2 (type Linux LVM): resumed from the LV; the LV's
#                  swap header back to SWAPSPACE2 (guest, and host through lvm2's
#                  pe_start); PV label and metadata untouched; no second resume
#     luks         the VG inside LUKS2 (argon2id) on partition 2, HibernateLocation
#                  naming the swap: a wrong passphrase typed first, then the right
#                  one: unlocked, resumed; the signature reset written encrypted (the
#                  guest swaps on the LV again; the host decrypts it with the volume
#                  key); the LUKS header untouched; the passphrases never echoed;
#                  boot 3 unlocks again and finds no image
#     luks-3wrong  three wrong passphrases: normal boot, partition 2 unchanged
#     luks-cipher  the container's data cipher aes-cbc-essiv:sha256 (made on the host
#                  over the fixture's header, same UUID): refused, no prompt, normal
#                  boot, partition 2 unchanged
#     luks-tpm2    a systemd-tpm2 token bound to the only keyslot: refused (token-only),
#                  no prompt, normal boot, partition 2 unchanged
#     luks-nohint  no location variable (fresh OVMF variables): no prompt, "nothing to
#                  resume", normal boot, partition 2 unchanged
#     luks-esc     Esc at the prompt: skipped, normal boot, partition 2 unchanged
# Passphrases are typed over the serial console (a pipe chardev) once the prompt shows.
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
case=${1:?usage: volumes.sh lvm|lvm-many|luks-many|luks-twins|luks|luks-3wrong|luks-cipher|luks-tpm2|luks-nohint|luks-esc|luks-named|luks-2cpu}
arch=x64 kpkg=linux-image-cloud-amd64
T0=$(date +%s.%N)
case $case in
lvm|lvm-many) name=x64-6.1-lvm; make_fixture $name $arch $kpkg -- efiresume_lvm ;;
luks|luks-many|luks-3wrong|luks-cipher|luks-tpm2|luks-nohint|luks-esc|luks-2cpu)
	name=x64-6.1-luks; make_fixture $name $arch $kpkg -- efiresume_luks efiresume_hibloc ;;
# EfiresumeLocation as efiresume's sleep hook writes it (naming the container and the LV)
luks-named|luks-twins) name=x64-6.1-luks-erloc; make_fixture $name $arch $kpkg -- efiresume_luks efiresume_erloc ;;
*) die "unknown case $case" ;;
esac
T1=$(date +%s.%N)
fx=$(fixture_dir "$name")
d=$(scratch "volumes-$case")
copy_fixture "$name" "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-$arch.efi" "::/EFI/BOOT/$(efi_boot_name "$arch")"
# VOLUMES_QEMU_ARGS: other QEMU arguments than boot 1's (measurements only, e.g. the
# LUKS fixture's CPU without +aes: efiresume's AES without AES-NI; the resumed kernel,
# which uses AES-NI, then fails)
qargs=${VOLUMES_QEMU_ARGS:-$(fixture_fact "$fx" qemu_args)}
token=$(fixture_fact "$fx" token) md5=$(fixture_fact "$fx" md5)
uuid=$(fixture_fact "$fx" luks_uuid)
pass=$VOL_LUKS_PASS
wrong1='not the passphrase' wrong2='efiresume luks-12' wrong3='Efiresume luks-11'
ok=0

# the normal boot program of the refusal cases only reports and powers off
probe_conf() {
	sed 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
}

# boot LOG TIMEOUT [PASSPHRASE...]: one boot with the serial console on a pipe pair;
# the Nth passphrase is typed (then Enter) once the prompt "(try N of 3" shows
# (ESC: the Esc key alone; OVMF's terminal takes a lone Esc after 2 s)
boot() {
	local log=$1 tmo=$2 rc=0 t0 t1
	shift 2
	typed=("$@")
	t0=$(date +%s.%N)
	serial_boot $arch "$d/disk.img" "$d/vars.fd" "$log" "$tmo" "$([ $# -gt 0 ] && echo type_passphrases)" $qargs || rc=$?
	t1=$(date +%s.%N)
	clean_log "$log" > "$log.txt"
	echo "  $(basename "$log"): qemu status $rc after $(fmt_secs "$t0" "$t1") s"
	[ $rc -eq 0 ] || { echo "  QEMU did not power off cleanly (status $rc; 124 = timeout)"; return 1; }
}
type_passphrases() {
	local n=0 p i
	for p in "${typed[@]}"; do
		n=$((n + 1))
		for _ in $(seq 1200); do
			grep -aq "passphrase for luks-.*(try $n of 3" "$1" && break
			sleep 0.1
		done
		sleep 0.5
		if [ "$p" = ESC ]; then printf '\033'; continue; fi
		# one key at a time, as a user types; Enter is CR on a serial terminal
		for ((i = 0; i < ${#p}; i++)); do printf '%s' "${p:$i:1}"; sleep 0.02; done
		printf '\r'
	done
}

# the typed passphrases never reach the console (the prompt echoes '*')
no_echo() {
	local p
	for p in "$pass" "$wrong1" "$wrong2" "$wrong3"; do
		if grep -aqF -- "$p" "$1"; then echo "  ECHOED: a passphrase is in $1"; return 1; fi
	done
	pass "no passphrase on the console"
}

# the resumed guest's checks (tests/e2e/init/resumed.sh)
resumed_checks() {
	local log=$1 c
	expect "$log" 'resetting the swap signature to SWAPSPACE2 and handing off' "committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: resumed$' "shell continued after the hibernate command" || ok=1
	expect "$log" "^EFIRESUME-TEST: token-after=$token\$" "same token" || ok=1
	expect "$log" "^EFIRESUME-TEST: md5-after=$md5\$" "same md5 of the tmpfs file" || ok=1
	if c=$(grep -aE '^EFIRESUME-TEST: counter [0-9]+ -> [0-9]+' "$log.txt"); then
		set -- $c
		if [ "$5" -gt "$3" ]; then pass "counter still counting ($3 -> $5)"; else fail "stopped counter: $c"; fi
	else
		fail "missing: counter line"
	fi
	expect "$log" '^EFIRESUME-TEST: swap-device=/dev/mapper/vg0-swap_1$' "guest checks the LV" || ok=1
	expect "$log" '^EFIRESUME-TEST: swap-signature=SWAPSPACE2$' "signature on the LV (read through the mapping) is SWAPSPACE2" || ok=1
	expect "$log" '^EFIRESUME-TEST: swap-reusable=yes' "swapoff + swapon on the LV" || ok=1
	expect "$log" '^EFIRESUME-TEST: efivars-read=yes' "EFI variable read" || ok=1
	expect "$log" '^EFIRESUME-TEST: efivars-write=yes' "EFI variable written" || ok=1
	expect "$log" '^EFIRESUME-TEST: disk-read=yes' "disk readable" || ok=1
	expect "$log" '^EFIRESUME-TEST: checks-done' "checks done" || ok=1
	expect_not "$log" 'Kernel panic|BUG:|Oops|hibernate failed' "no kernel error" || ok=1
}

# host side: the LV's swap header (lvm2's pe_start; for LUKS decrypted with the volume key)
host_sig() {
	local sig
	sig=$(vol_swap_sig "$fx" "$d/disk.img")
	if [ "$sig" = "$1" ]; then pass "host: LV vg0/swap_1's signature is $sig"; else fail "host: LV signature '$(printf %s "$sig" | tr -c '[:print:]' '.')' (want $1)"; fi
}

# partition 2's bytes [0, N) (PV label + metadata, or the LUKS2 header), or all of it
part_md5() {
	vol_part "$d/disk.img" "$d/part"
	if [ -n "${1:-}" ]; then head -c "$1" "$d/part" | md5sum | cut -d' ' -f1; else md5sum < "$d/part" | cut -d' ' -f1; fi
	rm -f "$d/part"
}
same() {
	if [ "$1" = "$2" ]; then pass "$3 unchanged"; else fail "changed: $3 ($1 -> $2)"; fi
}

echo "boot 1 (from the fixture):"
expect "$fx/serial.log" '^EFIRESUME-TEST: swap on LV vg0/swap_1 ' "the guest swapped on LV vg0/swap_1" || ok=1
expect "$fx/serial.log" '^EFIRESUME-TEST: hibernating$' "the fallback kernel hibernated" || ok=1
echo "  LV vg0/swap_1 at byte $(fixture_fact "$fx" lv_offset) of $([ -n "$uuid" ] && echo "the LUKS payload (luks-$uuid, data at $(fixture_fact "$fx" luks_offset), $(fixture_fact "$fx" luks_sector)-byte sectors)" || echo "partition 2") (pe_start $(fixture_fact "$fx" pe_start), first PE $(fixture_fact "$fx" lv_pe))"

# many_vgs IMG N: a second disk, GPT with N partitions of 8 MiB, each a PV of its own VG
# vgI holding one LV lvI (4 MiB), made by the host's lvm2 on loop devices bound to each
# partition (activation off: no device-mapper needed, nothing activated)
many_vgs() {
	local img=$1 n=$2 i start size l f cfg rc args=()
	export LVM_SUPPRESS_FD_WARNINGS=1
	rm -f "$img"
	truncate -s $((n * 8 + 2))M "$img"
	for ((i = 1; i <= n; i++)); do args+=(-n "$i:0:+8M" -t "$i:8e00"); done
	sgdisk -o "${args[@]}" "$img" >/dev/null 2>&1 || { echo "  sgdisk failed on $img"; return 1; }
	for ((i = 1; i <= n; i++)); do
		start=$(sgdisk -i "$i" "$img" | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
		size=$(sgdisk -i "$i" "$img" | sed -n 's/^Partition size: \([0-9]*\) sectors.*/\1/p')
		[ -n "$start" ] && [ -n "$size" ] || { echo "  no partition $i in $img"; return 1; }
		l=$(losetup -f --show -o $((start * 512)) --sizelimit $((size * 512)) "$img") || return 1
		f="\"a|^$l\$|\",\"r|.*|\""
		cfg="devices{obtain_device_list_from_udev=0 use_devicesfile=0 hints=\"none\" filter=[$f] global_filter=[$f]} activation{udev_sync=0 udev_rules=0} global{activation=0} backup{backup=0 archive=0}"
		{ pvcreate -qq --config "$cfg" "$l" && vgcreate -qq --config "$cfg" "vg$i" "$l" &&
		  lvcreate -qq --config "$cfg" -an -Zn -L 4M -n "lv$i" "vg$i"; } 2>"$d/lvm.err"
		rc=$?
		losetup -d "$l"
		[ $rc = 0 ] || { echo "  lvm2 failed on partition $i:"; sed 's/^/    /' "$d/lvm.err"; return 1; }
	done
}

# second_disk N: many_vgs with N VGs as a second disk of the next boots; its md5 in many_md5
second_disk() {
	many_vgs "$d/many.img" "$1" || ok=1
	echo "  a second disk: $1 partitions, each a PV of its own VG (vg1..vg$1, one LV each)"
	qargs="$qargs -drive file=$d/many.img,if=virtio,format=raw"
	many_md5=$(md5sum < "$d/many.img")
}

find_lv='efiresume: swap LV vg0/swap_1: hibernation image'
prompt_re="efiresume: passphrase for luks-$uuid on .* \\(try 1 of 3, Esc: skip\\)"
T2=$(date +%s.%N)
case $case in
lvm)
	head=$(part_md5 "$(fixture_fact "$fx" pe_start)")
	echo "boot 2 (resume):"
	boot "$d/boot2.log" 240 || ok=1
	log=$d/boot2.log
	expect "$log" "$find_lv" "swap on LV vg0/swap_1 found with an image" || ok=1
	expect "$log" 'efiresume: found a hibernated Linux .*vg0/swap_1.*: [0-9]+ MiB in [0-9]+ pages' "first line: what will be resumed, on the LV" || ok=1
	resumed_checks "$log"
	host_sig SWAPSPACE2
	same "$head" "$(part_md5 "$(fixture_fact "$fx" pe_start)")" "PV label and metadata (partition 2 up to pe_start)"
	echo "boot 3 (no second resume):"
	probe_conf
	boot "$d/boot3.log" 180 || ok=1
	expect "$d/boot3.log" 'efiresume: swap LV vg0/swap_1: (no image|no swap signature)' "efiresume finds no image on the LV" || ok=1
	expect "$d/boot3.log" '^EFIRESUME-TEST: probe: normal boot' "normal boot" || ok=1
	;;
lvm-many)
	# 20 more VGs on a second disk: more than the 8 volume groups one assembly takes; the
	# disk holding the image comes first, so vg0 and 7 others are mapped, the rest ignored
	# with a line each, and the image resumes
	second_disk 20
	head=$(part_md5 "$(fixture_fact "$fx" pe_start)")
	echo "boot 2 (resume):"
	boot "$d/boot2.log" 300 || ok=1
	log=$d/boot2.log
	expect "$log" 'efiresume: 8 mapped device\(s\)' "8 LVs mapped (vg0/swap_1 and 7 of vg1..vg20)" || ok=1
	n=$(grep -ac 'more than 8 volume groups: ignored' "$log.txt")
	if [ "$n" = 13 ]; then pass "13 VGs ignored, one line each"; else fail "$n lines 'more than 8 volume groups: ignored' (want 13)"; fi
	expect_not "$log" 'not mapped|LVM label:' "no LV refused" || ok=1
	expect "$log" "$find_lv" "swap on LV vg0/swap_1 found with an image" || ok=1
	resumed_checks "$log"
	host_sig SWAPSPACE2
	same "$head" "$(part_md5 "$(fixture_fact "$fx" pe_start)")" "PV label and metadata (partition 2 up to pe_start)"
	same "$many_md5" "$(md5sum < "$d/many.img")" "the second disk (20 PVs)"
	;;
luks-many)
	# 7 VGs on a second disk besides vg0 inside the container: every assembly has 7 or 8 VGs
	# (the one before asking, the one after the unlock, the final one): 23 VGs assembled,
	# more than the 16 the loader once kept before freeing VGs its LV devices still used
	# (issue 15 defect 1)
	second_disk 7
	head=$(part_md5 "$(fixture_fact "$fx" luks_offset)")
	echo "boot 2 (the passphrase; resume):"
	boot "$d/boot2.log" 300 "$pass" || ok=1
	log=$d/boot2.log
	expect "$log" "efiresume: luks-$uuid: unlocked" "unlocked" || ok=1
	expect "$log" 'efiresume: 9 mapped device\(s\)' "9 mapped devices (the container; vg0/swap_1 in it, lv1..lv7 of vg1..vg7)" || ok=1
	expect_not "$log" 'not mapped|LVM label:|more than [0-9]+ ' "no VG or LV refused" || ok=1
	expect "$log" "$find_lv.* \\(HibernateLocation\\)" "swap on LV vg0/swap_1 inside the container found with an image" || ok=1
	resumed_checks "$log"
	host_sig SWAPSPACE2
	same "$head" "$(part_md5 "$(fixture_fact "$fx" luks_offset)")" "LUKS2 header and keyslots"
	same "$many_md5" "$(md5sum < "$d/many.img")" "the second disk (7 PVs)"
	;;
luks)
	head=$(part_md5 "$(fixture_fact "$fx" luks_offset)")
	echo "boot 2 (a wrong passphrase, then the right one; resume):"
	boot "$d/boot2.log" 300 "$wrong1" "$pass" || ok=1
	log=$d/boot2.log
	loc=$(sed -n 's/^EFIRESUME-TEST: hibernate-location=//p' "$fx/serial.log.txt")
	expect "$log" "efiresume: HibernateLocation: swap UUID $loc, kernel $(fixture_fact "$fx" uname | cut -d' ' -f1)" "HibernateLocation read (the LV's swap UUID $loc)" || ok=1
	expect "$log" "$prompt_re" "prompt for luks-$uuid (try 1 of 3)" || ok=1
	expect "$log" "efiresume: luks-$uuid: wrong passphrase" "wrong passphrase refused" || ok=1
	expect "$log" "efiresume: passphrase for luks-$uuid on .* \\(try 2 of 3, Esc: skip\\)" "asked again (try 2 of 3)" || ok=1
	# (the loader adds " on N CPU(s)" after the milliseconds)
	expect "$log" "efiresume: luks-$uuid: unlocked \\(keyslot 0, argon2id, [0-9]+ ms[^)]*\\)" "unlocked with keyslot 0 (argon2id)" || ok=1
	# the header as efiresume read it, against cryptsetup's luksDump of the disk
	vol_part "$d/disk.img" "$d/part"
	kdf=$(cryptsetup luksDump "$d/part" | awk '/^Keyslots:/ { k = 1 } k && /Memory:/ { m = $2 } k && /Threads:/ { t = $2 } END { print m " KiB x" t }')
	sec=$(cryptsetup luksDump "$d/part" | awk '/^Data segments:/ { s = 1 } s && /sector:/ { print $2; exit }')
	rm -f "$d/part"
	expect "$log" "efiresume: luks-$uuid on PARTUUID=$SWAP_PARTUUID: LUKS2 aes-xts-plain64 512-bit, $sec-byte sectors, data at $(fixture_fact "$fx" luks_offset); keyslots 0 argon2id $kdf\$" "header read as luksDump shows it (argon2id $kdf, $sec-byte sectors)" || ok=1
	sed -n 's/.*efiresume: \(luks-.*: unlocked .*\)/  (\1)/p' "$log.txt" | head -1
	expect "$log" "$find_lv.* \\(HibernateLocation\\)" "swap on LV vg0/swap_1 inside the container found with an image (the one HibernateLocation names)" || ok=1
	no_echo "$log.txt" || ok=1
	resumed_checks "$log"
	host_sig SWAPSPACE2
	same "$head" "$(part_md5 "$(fixture_fact "$fx" luks_offset)")" "LUKS2 header and keyslots (partition 2 up to the data segment)"
	expect "$log" 'efiresume: HibernateLocation deleted \(it named this image' "HibernateLocation deleted at the commit (as systemd-hibernate-resume does)" || ok=1
	echo "boot 3 (no second resume; HibernateLocation is gone, so no passphrase is asked):"
	probe_conf
	boot "$d/boot3.log" 240 || ok=1
	expect "$d/boot3.log" "efiresume: luks-$uuid on .*: encrypted \(not unlocked: nothing to resume\)" "encrypted, not unlocked: nothing to resume" || ok=1
	expect_not "$d/boot3.log" 'passphrase for' "no prompt" || ok=1
	expect "$d/boot3.log" '^EFIRESUME-TEST: probe: normal boot' "normal boot" || ok=1
	;;
luks-3wrong)
	probe_conf
	before=$(part_md5)
	echo "boot 2 (three wrong passphrases):"
	boot "$d/boot2.log" 300 "$wrong1" "$wrong2" "$wrong3" || ok=1
	log=$d/boot2.log
	expect "$log" "$prompt_re" "prompt (try 1 of 3)" || ok=1
	n=$(grep -ac "efiresume: luks-$uuid: wrong passphrase" "$log.txt" || true)
	[ "$n" = 2 ] || [ "$n" = 3 ] && pass "$n 'wrong passphrase' lines" || fail "$n 'wrong passphrase' lines"
	expect "$log" "efiresume: luks-$uuid: 3 wrong passphrases; booting normally \\(the initramfs will ask\\)" "3 wrong: booting normally" || ok=1
	expect_not "$log" 'unlocked|handing off|swap signature (reset|restored)' "not unlocked, nothing committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot program started" || ok=1
	no_echo "$log.txt" || ok=1
	same "$before" "$(part_md5)" "partition 2 (byte for byte)"
	;;
luks-cipher|luks-tpm2)
	probe_conf
	vol_part "$d/disk.img" "$d/part"
	if [ $case = luks-cipher ]; then
		# a new header over the old one (same UUID, same data offset): data cipher
		# aes-cbc-essiv:sha256 (the LUKS1-era default), keyslot cipher aes-xts-plain64
		printf %s "$pass" | cryptsetup luksFormat --batch-mode --type luks2 --uuid "$uuid" \
			--cipher aes-cbc-essiv:sha256 --key-size 256 --keyslot-cipher aes-xts-plain64 --keyslot-key-size 512 \
			--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --offset $(($(fixture_fact "$fx" luks_offset) / 512)) \
			--key-file - "$d/part"
		want="efiresume: luks-$uuid on .*: not unlocked: unsupported: .*aes-cbc-essiv"
		what="refused: unsupported cipher"
	else
		# what systemd-cryptenroll --tpm2-device=auto --wipe-slot=password leaves: the
		# only keyslot bound to a systemd-tpm2 token
		cat > "$d/tpm2.json" <<-'EOF'
		{"type":"systemd-tpm2","keyslots":["0"],"tpm2-blob":"AJ4AIHh0ZXN0IGJsb2Igb2YgYSBzZWFsZWQga2V5","tpm2-pcrs":[7],"tpm2-pcr-bank":"sha256","tpm2-primary-alg":"ecc","tpm2-policy-hash":"5f0a9a563c7e4d529b8e1d2c3b4a59685f0a9a563c7e4d529b8e1d2c3b4a5968","tpm2-pin":false}
		EOF
		cryptsetup token import --json-file "$d/tpm2.json" --token-id 0 "$d/part"
		want="efiresume: luks-$uuid on .*: not unlocked: token-only"
		what="refused: TPM2 only"
	fi
	cryptsetup luksDump "$d/part" | grep -E '^UUID|cipher:|^  [0-9]+: systemd' | sed 's/^/  luksDump: /'
	vol_put_part "$d/disk.img" "$d/part"
	rm -f "$d/part"
	before=$(part_md5)
	echo "boot 2:"
	boot "$d/boot2.log" 240 || ok=1
	log=$d/boot2.log
	expect "$log" "$want" "$what" || ok=1
	sed -n 's/.*efiresume: \(luks-.*not unlocked.*\)/  (\1)/p' "$log.txt" | head -2
	expect_not "$log" 'passphrase for' "no prompt" || ok=1
	expect_not "$log" 'handing off|swap signature (reset|restored)' "nothing committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot program started" || ok=1
	same "$before" "$(part_md5)" "partition 2 (byte for byte)"
	;;
luks-esc)
	probe_conf
	before=$(part_md5)
	echo "boot 2 (Esc at the prompt):"
	boot "$d/boot2.log" 240 ESC || ok=1
	log=$d/boot2.log
	expect "$log" "$prompt_re" "prompt (try 1 of 3)" || ok=1
	expect "$log" "efiresume: luks-$uuid: skipped \\(Esc\\)" "skipped (Esc)" || ok=1
	expect_not "$log" "unlocked \\(|wrong passphrase|passphrase for .*try 2 of 3" "skipped: no unlock, not asked again" || ok=1
	expect_not "$log" 'handing off|swap signature (reset|restored)' "nothing committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot program started" || ok=1
	same "$before" "$(part_md5)" "partition 2 (byte for byte)"
	;;
luks-twins)
	# the container on a second disk too, byte for byte (what the firmware sees of an md
	# RAID1 with metadata 0.90/1.0): one LUKS UUID on two devices. Resuming from one member
	# and resetting the signature there leaves the other with the image (issue 15 defect 3):
	# both are unlocked with the one passphrase, and then the same image on two devices is
	# refused, both kept; the normal boot program starts
	vol_part "$d/disk.img" "$d/twin.img"
	qargs="$qargs -drive file=$d/twin.img,if=virtio,format=raw"
	probe_conf
	p2=$(part_md5) twin=$(md5sum < "$d/twin.img")
	echo "boot 2 (two members of one container; one passphrase):"
	boot "$d/boot2.log" 300 "$pass" || ok=1
	log=$d/boot2.log
	expect "$log" "efiresume: luks-$uuid on .*: the same container as on " "the second member seen as the same container" || ok=1
	expect "$log" "efiresume: luks-$uuid: unlocked" "unlocked" || ok=1
	n=$(grep -ac "passphrase for luks-$uuid" "$log.txt")
	if [ "$n" = 1 ]; then pass "asked once for both members"; else fail "asked $n times"; fi
	expect_not "$log" 'resetting the swap signature' "nothing committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot" || ok=1
	same "$p2" "$(part_md5)" "member 1 (partition 2, all of it)"
	same "$twin" "$(md5sum < "$d/twin.img")" "member 2 (the second disk, all of it)"
	no_echo "$log.txt" || ok=1
	;;
luks-named)
	# the configuration names the LV too, in /dev/mapper form (resume LV=)
	{ cat "$fx/efiresume.conf"; echo "resume /dev/mapper/vg0-swap_1"; } > "$d/efiresume.conf"
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	head=$(part_md5 "$(fixture_fact "$fx" luks_offset)")
	expect "$fx/serial.log" "^EFIRESUME-TEST: efiresume-location=.*\"luks\":\"$uuid\",\"lv\":\"vg0/swap_1\"" "boot 1 wrote EfiresumeLocation naming luks-$uuid and vg0/swap_1" || ok=1
	echo "boot 2 (EfiresumeLocation names the container: asked for it; resume):"
	boot "$d/boot2.log" 300 "$pass" || ok=1
	log=$d/boot2.log
	expect "$log" "efiresume: EfiresumeLocation: swap UUID [0-9a-f-]+, kernel " "EfiresumeLocation read" || ok=1
	expect "$log" "$prompt_re" "prompt for the named container luks-$uuid" || ok=1
	expect "$log" "efiresume: luks-$uuid: unlocked" "unlocked" || ok=1
	expect "$log" "$find_lv.* \\(EfiresumeLocation\\)" "swap on LV vg0/swap_1 (resume /dev/mapper/vg0-swap_1) found with an image" || ok=1
	expect_not "$log" "not the configured resume device" "the LV is the configured resume device" || ok=1
	expect "$log" "efiresume: EfiresumeLocation deleted" "EfiresumeLocation deleted once it has served" || ok=1
	no_echo "$log.txt" || ok=1
	resumed_checks "$log"
	host_sig SWAPSPACE2
	same "$head" "$(part_md5 "$(fixture_fact "$fx" luks_offset)")" "LUKS2 header and keyslots"
	echo "boot 3 (the variable is gone: nothing to resume, no prompt):"
	{ probe_conf; } > /dev/null
	{ cat "$d/efiresume.conf"; echo "resume /dev/mapper/vg0-swap_1"; } > "$d/conf3" && mv "$d/conf3" "$d/efiresume.conf"
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	boot "$d/boot3.log" 240 || ok=1
	expect "$d/boot3.log" "efiresume: luks-$uuid on .*: encrypted \\(not unlocked: nothing to resume\\)" "encrypted, not unlocked: nothing to resume" || ok=1
	expect_not "$d/boot3.log" 'passphrase for' "no prompt" || ok=1
	expect "$d/boot3.log" '^EFIRESUME-TEST: probe: normal boot' "normal boot" || ok=1
	;;
luks-2cpu)
	# a keyslot with 2 argon2 lanes (added by cryptsetup on the host, the test keyslot
	# removed), unlocked on a 2-CPU machine: the second lane runs on the other CPU (EFI MP
	# services); the right volume key (the digest check) is the proof.
	probe_conf
	echo "dry-run yes" >> "$d/efiresume.conf"
	esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
	vol_part "$d/disk.img" "$d/part"
	printf '%s' "$pass" > "$d/old.key"
	printf '%s' "$wrong2" > "$d/new.key"
	cryptsetup luksAddKey --batch-mode --key-file "$d/old.key" --key-slot 1 --pbkdf argon2id --pbkdf-memory 65536 \
		--pbkdf-parallel 2 --pbkdf-force-iterations 4 "$d/part" "$d/new.key"
	cryptsetup luksKillSlot --batch-mode --key-file "$d/new.key" "$d/part" 0
	lanes=$(cryptsetup luksDump "$d/part" | awk '/^Keyslots:/ { k = 1 } k && /Threads:/ { print $2; exit }')
	vol_put_part "$d/disk.img" "$d/part"
	rm -f "$d/part" "$d/old.key" "$d/new.key"
	[ "$lanes" = 2 ] && pass "keyslot 1 has 2 argon2 lanes" || fail "keyslot 1 has '$lanes' lanes (cryptsetup caps them at the host's CPUs)"
	echo "boot 2 (2 vCPUs, dry run):"
	SMP=2 boot "$d/boot2.log" 300 "$wrong2" || ok=1
	log=$d/boot2.log
	expect "$log" "efiresume: luks-$uuid on .*keyslots 1 argon2id 65536 KiB x2" "header: keyslot 1, argon2id 64 MiB, 2 lanes" || ok=1
	expect "$log" "efiresume: luks-$uuid: unlocked \\(keyslot 1, argon2id, [0-9]+ ms on 2 CPU\\(s\\)\\)" "unlocked on 2 CPUs" || ok=1
	sed -n 's/.*efiresume: \(luks-.*: unlocked .*\)/  (\1)/p' "$log.txt" | head -1
	expect "$log" "$find_lv" "swap on LV vg0/swap_1 found with an image" || ok=1
	# 2 CPUs change OVMF's memory map: the image (made with 1) is refused at the e820
	# check, after its header pages were read and decrypted with the key the lanes made
	expect "$log" 'vg0/swap_1: image of an x86_64 kernel, lzo, [0-9]+ pages' "image header read through the container" || ok=1
	expect "$log" 'vg0/swap_1: reason-code memory-map-differs; nothing was written' "refused (memory map of 2 CPUs), nothing written" || ok=1
	expect "$log" 'efiresume: 1 volume key\(s\) wiped' "volume key wiped before the normal boot" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot" || ok=1
	;;
luks-nohint)
	probe_conf
	new_vars $arch "$d/vars.fd"
	before=$(part_md5)
	echo "boot 2 (fresh OVMF variables: no HibernateLocation, no EfiresumeLocation):"
	boot "$d/boot2.log" 240 || ok=1
	log=$d/boot2.log
	expect "$log" "efiresume: luks-$uuid on .*: encrypted \\(not unlocked: nothing to resume\\)" "encrypted, not unlocked: nothing to resume" || ok=1
	expect_not "$log" 'passphrase for' "no prompt" || ok=1
	expect_not "$log" 'handing off|swap signature (reset|restored)' "nothing committed" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe: normal boot' "normal boot program started" || ok=1
	same "$before" "$(part_md5)" "partition 2 (byte for byte)"
	;;
esac
T3=$(date +%s.%N)
echo "time: fixture $(fmt_secs "$T0" "$T1") s (boot 1 took $(fixture_fact "$fx" boot_seconds) s when built), case $(fmt_secs "$T2" "$T3") s"
exit $ok
