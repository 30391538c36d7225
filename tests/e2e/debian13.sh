#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end scenarios on a real Debian 13 "trixie" system (issue 16): systemd 257,
# initramfs-tools, Debian's 6.12 kernel started by the firmware's Boot#### "Debian" entry.
# The system is built once and cached by tests/lib/debian13.sh (the same layout as the
# Debian 12 one: ESP, swap partition, ext4 root); the efiresume .deb built on the host
# (Debian 12) is installed in it. Every scenario has a workload whose state is checked
# after the resume: a token and a counter in tmpfs, and a file on the root filesystem
# that a process appends numbered lines to, ten a second (after the resume the lines go
# on with no gap; on the next boot the file is whole).
#   debian13.sh SCENARIO
#     swap-partition  boot 1: dpkg -i, efiresume-install install (on-hibernate), status,
#                     systemctl hibernate to the swap partition; boot 2: the firmware
#                     starts efiresume through BootNext, it resumes; boot 3: a normal boot
#                     with nothing to resume (efiresume does not run, no prompt)
#     swap-file       the swap partition off (and /sys/power/resume cleared, as with no
#                     RESUME= in the initramfs), a swap file /swapfile on the ext4 root;
#                     install --mode=always; systemd 257 writes HibernateLocation (the
#                     swap file's filesystem UUID and offset). efiresume can find the image
#                     ONLY through that variable: efiresume.conf has no resume line, the
#                     EfiresumeLocation its sleep hook writes is deleted right after it
#                     (a wrapper around the hook, dpkg-divert), and the kernel's own resume
#                     is not configured for the file. boot 2: efiresume (first in BootOrder)
#                     resumes; boot 3: efiresume runs, finds no image, no prompt, starts the
#                     Debian entry's kernel
#     lvm             the installer's guided LVM layout (tests/lib/debian13-vol.sh): root
#                     and swap_1 LVs of efiresume-debian-vg on partition 2; install
#                     (on-hibernate), hibernate to the swap LV; boot 2: efiresume (BootNext)
#                     finds the image on the LV and resumes; boot 3: a normal boot, efiresume
#                     does not run
#     crypt-lvm       the guided encrypted LVM layout: that VG inside LUKS2 (cryptsetup's
#                     defaults), /etc/crypttab, cryptsetup-initramfs. Boot 1: the initramfs
#                     asks for the passphrase (typed on the serial console), install
#                     --mode=always, hibernate; boot 2: efiresume asks at the firmware, a
#                     wrong passphrase first, then the right one; it resumes, the initramfs
#                     never asks; boot 3: efiresume runs, finds nothing to resume and asks
#                     nothing, starts the Debian kernel, whose initramfs asks as usual
#     crypt-lvm-faults  crypt-lvm, efiresume first in BootOrder, two hibernations: boot 2
#                     three wrong passphrases at efiresume's prompt, boot 3 Esc; each time
#                     efiresume commits nothing and starts the Debian kernel, whose initramfs
#                     asks and whose own resume brings the system back (nothing lost);
#                     boot 4: a normal boot, efiresume asks nothing, the initramfs asks
#     crypt-lvm-faults also cuts the power (QEMU killed) once efiresume has unlocked the
#                     container and found the image, before it commits: the next boot asks again
#     btrfs           root on Btrfs (subvolume @rootfs, as the installer makes it) and a swap
#                     file made the Btrfs way (btrfs filesystem mkswapfile in a /swap
#                     subvolume; resume=UUID= resume_offset= from btrfs inspect-internal
#                     map-swapfile -r): install (on-hibernate), hibernate to the swap file;
#                     boot 2: efiresume (BootNext) takes the file from EfiresumeLocation and
#                     resumes; boot 3: a normal boot, efiresume does not run
#     other-fallback  a Debian 13 image on a machine whose other system is Debian 12: on the lvm
#                     layout, install --mode=always with Debian 12's 6.1 kernel (and a small
#                     initramfs) as efiresume's fallback; boot 2: efiresume resumes the 6.12
#                     image; boot 3: nothing to resume, efiresume starts Debian 12's kernel
#   EFIRESUME_DEBIAN=12: lvm, crypt-lvm and crypt-lvm-faults on Debian 12 "bookworm" (systemd
#   252, 6.1) made by the same installer recipe (tests/lib/debian13-vol.sh)
#   EFIRESUME_CONTROL=nohook: a control run, efiresume's sleep hook kept out (dpkg-divert) so the
#   resume takes the kernel's own path (on-hibernate scenarios) and the checks must fail
#   Every boot 1 and resumed system prints `efiresume-install status` (what it says
#   about the device stack is recorded in the log: status-*).
#   The .deb: the newest build/efiresume_*_amd64.deb (make deb), or EFIRESUME_DEB=FILE.
set -euo pipefail
. "$(dirname "$0")/../lib/debian13-vol.sh"
# sourced (tests/e2e/tpm.sh): the helpers below only, no scenario
[ "${BASH_SOURCE[0]}" != "$0" ] || [ $# -eq 1 ] || { awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 2; }
scen=${1:-}
ok=0

# the firmware program's own lines (the guest renames "efiresume: " in what it prints)
ER_RE='efiresume: '
HIBLOC=/sys/firmware/efi/efivars/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67
ERLOC=/sys/firmware/efi/efivars/EfiresumeLocation-338ebdff-5bf8-4971-8760-45caada2d435

# guest helpers of this file (sent ahead of each boot's commands)
guest_lib() {
	cat <<EOF
HIBLOC=$HIBLOC
ERLOC=$ERLOC
EOF
	# control run (EFIRESUME_CONTROL=nohook): the package's systemd-sleep hook diverted out of
	# system-sleep/ before the package is installed, so nothing sets BootNext or writes
	# EfiresumeLocation; the case must notice
	if [ "${EFIRESUME_CONTROL:-}" = nohook ]; then
		cat <<'EOF'
dpkg-divert --quiet --local --divert /root/efiresume-sleep-hook.diverted --add /usr/lib/systemd/system-sleep/efiresume
say "control: efiresume's sleep hook diverted"
EOF
	fi
	cat <<'EOF'
W=/var/lib/efiresume-test/work
# work_start: a file on the root filesystem, one numbered line appended ten times a second
work_start() {
	mkdir -p ${W%/*}
	( i=0; while :; do i=$((i + 1)); echo $i >> $W; sleep 0.1; done ) &
	sleep 1
}
# work_check KEY: KEY-lines=N, KEY-consistent=yes when line n is n for every line
work_check() {
	say "$1-lines=$(wc -l < $W 2>/dev/null || echo 0)"
	say "$1-consistent=$(awk '$0 != NR { bad = 1; exit } END { print (bad || NR == 0) ? "no" : "yes" }' $W 2>/dev/null || echo no)"
}
# install_pkg [ARGS...]: the package installed, efiresume-install install ARGS
install_pkg() {
	run dpkg -i $IN/efiresume.deb
	run efiresume-install install "$@"
	say "clear-unit-enabled=$(systemctl is-enabled efiresume-clear.service 2>&1)"
	say "er-entry=$(er_entry)"
}
# hibernate_cycle [FN]: the workload (counter, file writer) started, systemctl hibernate; after
# the resume FN (a function of the script, if given), then the resumed system's checks and the
# file's lines
hibernate_cycle() {
	counter_start
	work_start
	work_check work-before
	hibernate_wait 300
	[ -z "${1:-}" ] || "$1"
	checks_resumed
	work_check work-after
	sleep 1
	work_check work-later
}
# vars_after: the two location variables in the resumed system
vars_after() {
	say "hibloc-after=$(var_text $HIBLOC)"
	say "erloc-after=$(var_text $ERLOC)"
}
# var_text FILE: (cat first: efivarfs files can show size 0 to tail) an EFI variable's data as text (UTF-16LE or 8-bit: NULs dropped), or "none"
var_text() {
	if [ -e "$1" ] && [ -n "$(cat "$1" 2>/dev/null | tail -c +5 | tr -d '\0')" ]; then
		cat "$1" | tail -c +5 | tr -d '\0' | tr -c '[:print:]' '?'
	else
		echo none
	fi
}
# system facts: release, systemd, kernel
sys_facts() {
	say "os=$(. /etc/os-release; echo "$ID-$VERSION_ID")"
	say "systemd=$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
	say "kernel=$(uname -r)"
}
EOF
}

# check_work N1 N2 N3: the file written across the hibernation (N1 before, N2 resumed,
# N3 the next boot)
check_work() {
	local n1=$1 n2=$2 n3=$3 b a l f
	b=$(deb_val "$d" "$n1" work-before-lines) a=$(deb_val "$d" "$n2" work-after-lines)
	l=$(deb_val "$d" "$n2" work-later-lines) f=$(deb_val "$d" "$n3" work-boot-lines)
	val_is "$n2" work-after-consistent yes "the file written across the hibernation: every line in order after the resume"
	if [[ $b =~ ^[0-9]+$ ]] && [[ $a =~ ^[0-9]+$ ]] && [[ $l =~ ^[0-9]+$ ]] && [ "$b" -gt 0 ] && [ "$a" -ge "$b" ] && [ "$l" -gt "$a" ]; then
		pass "the writer goes on ($b lines before, $a -> $l after the resume)"
	else
		fail "file lines $b before, $a -> $l after the resume"
	fi
	val_is "$n3" work-boot-consistent yes "the file on the next boot: every line in order"
	if [[ $f =~ ^[0-9]+$ ]] && [[ $l =~ ^[0-9]+$ ]] && [ "$f" -ge "$l" ]; then
		pass "the next boot has all of it ($f lines >= $l)"
	else
		fail "the next boot has $f lines, the resumed system had $l"
	fi
}

# vars_gone N: no location variable left in the resumed system (boot N)
vars_gone() {
	val_is "$1" hibloc-after none "HibernateLocation deleted after the resume"
	val_is "$1" erloc-after none "no EfiresumeLocation left after the resume"
}
# vars_none N: no location variable at the start of boot N
vars_none() {
	val_is "$1" hibloc-at-boot none "no HibernateLocation"
	val_is "$1" erloc-at-boot none "no EfiresumeLocation"
}

# firmware_started_debian N: the firmware started the Debian entry, not efiresume (boot N)
firmware_started_debian() {
	expect "$d/$1.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
	expect_not "$d/$1.log" "$ER_RE|BdsDxe: (loading|starting) Boot$er" "efiresume did not run (no prompt)" || ok=1
}

# check_facts N: a Debian 13 system with systemd 257 and a 6.12 kernel (EFIRESUME_DEBIAN=12:
# Debian 12, systemd 252, 6.1)
check_facts() {
	local s k sv=257 kv=6.12
	[ "${EFIRESUME_DEBIAN:-13}" = 12 ] && sv=252 kv=6.1
	val_is "$1" os "debian-${EFIRESUME_DEBIAN:-13}" "Debian ${EFIRESUME_DEBIAN:-13}"
	s=$(deb_val "$d" "$1" systemd) k=$(deb_val "$d" "$1" kernel)
	[[ $s =~ ^[0-9]+$ ]] && [ "$s" -ge $sv ] && pass "systemd $s" || fail "systemd '$s'"
	[[ $k == $kv.* ]] && pass "kernel $k" || fail "kernel '$k'"
}

# check_install N MODE
check_install() {
	local n=$1 mode=$2
	val_is "$n" dpkg-status 0 "dpkg -i efiresume_*.deb (built on Debian 12) on Debian 13"
	val_is "$n" efiresume-install-status 0 "efiresume-install install --mode=$mode"
	er=$(deb_val "$d" "$n" er-entry)
	if [[ $er =~ ^[0-9A-F]{4}$ ]]; then pass "boot entry Boot$er \"Resume hibernated Linux\""; else fail "no efiresume boot entry"; fi
	val_is "$n" clear-unit-enabled enabled "the package's postinst enabled efiresume-clear.service"
}

# check_efiresume_resumed N WHERE: the firmware started efiresume and it resumed
check_efiresume_resumed() {
	local n=$1
	expect "$d/$n.log" "BdsDxe: starting Boot$er \"Resume hibernated Linux\"" "the firmware started Boot$er" || ok=1
	expect "$d/$n.log" "${ER_RE}.*$2" "efiresume found the image ($2)" || ok=1
	expect "$d/$n.log" "${ER_RE}.*handing off" "efiresume handed off to the image kernel" || ok=1
	expect_not "$d/$n.log" 'Run /init as init process|PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data' "no kernel booted in between" || ok=1
}

# status_show N: what efiresume-install status printed, for the log
status_show() {
	echo "  efiresume-install status ($1):"
	sed -nE 's/.*EFIRESUME-TEST: efiresume-install: (.*)/  | \1/p' "$d/$1.log.txt" | tr -d '\r'
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
case ${EFIRESUME_DEBIAN:-13}/$scen in
13/*|12/lvm|12/crypt-lvm|12/crypt-lvm-faults) ;;
*) echo "EFIRESUME_DEBIAN=${EFIRESUME_DEBIAN:-13}: no scenario $scen"; exit 2 ;;
esac
d=$(scratch "debian${EFIRESUME_DEBIAN:-13}-$scen")
case $scen in
lvm|crypt-lvm|btrfs) d13v_fixture "$scen" ;;
other-fallback) d13v_fixture lvm ;;
crypt-lvm-faults) d13v_fixture crypt-lvm ;;
*) deb_fixture ;;
esac
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry, BootOrder $(fixture_fact "$d" boot_order))"
t_start=$(date +%s.%N)
deb=$(deb_file) || exit 1
echo "package: $deb ($(dpkg-deb -f "$deb" Depends))"
cp "$deb" "$d/fwcfg/efiresume.deb"

case $scen in
swap-partition)
	{ guest_lib; cat <<'EOF'
sys_facts
install_pkg
run efiresume-install status
hibernate_cycle
vars_after
efi_show
er_journal
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	{ guest_lib; cat <<'EOF'
sys_facts
work_check work-boot
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
efi_show
EOF
	} > "$d/boot3.sh"
	echo "boot 1 (Debian 13; install the package, efiresume-install install, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	check_facts boot1
	check_install boot1 on-hibernate
	check_hibernated boot1
	echo "boot 2 (the firmware starts efiresume through BootNext; it resumes the system):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	check_efiresume_resumed boot2 "PARTUUID=$DEB_SWAP_PARTUUID"
	check_resumed boot1 boot2
	val_is boot2 bootcurrent "$er" "BootCurrent: the efiresume entry"
	val_is boot2 bootnext none "BootNext gone after the resume"
	val_is boot2 erloc-after none "no EfiresumeLocation left after the resume"
	echo "boot 3 (a normal boot, nothing to resume):"
	deb_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh"
	qemu_ok
	firmware_started_debian boot3
	expect "$d/boot3.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	val_is boot3 bootcurrent "$entry" "BootCurrent: Debian"
	vars_none boot3
	check_work boot1 boot2 boot3
	status_show boot1
	;;
swap-file)
	# the efiresume sleep hook, wrapped: after it, its EfiresumeLocation is deleted, so only
	# systemd's HibernateLocation says where the image is
	cat > "$d/fwcfg/hook-wrapper" <<EOF
#!/bin/sh
# efiresume end-to-end tests only: efiresume's hook, then its EfiresumeLocation deleted
/usr/lib/systemd/system-sleep/efiresume.real "\$@"
if [ "\$1" = pre ]; then
	f=$ERLOC
	[ -e \$f ] && { chattr -i \$f 2>/dev/null; rm -f \$f; }
	printf 'EFIRESUME-TEST: wrapper: EfiresumeLocation %s\n' "\$([ -e \$f ] && echo left || echo deleted)" > /dev/ttyS0
	printf 'EFIRESUME-TEST: wrapper: resume=%s resume_offset=%s\n' "\$(cat /sys/power/resume)" "\$(cat /sys/power/resume_offset)" > /dev/ttyS0
	h=$HIBLOC
	printf 'EFIRESUME-TEST: hibloc-pre=%s\n' "\$([ -e \$h ] && cat \$h | tail -c +5 | tr -d '\\0' || echo none)" > /dev/ttyS0
	printf 'EFIRESUME-TEST: hibloc-pre-utf16=%s\n' "\$([ -e \$h ] && cat \$h | tail -c +5 | head -c 4 | od -An -tx1 | tr -d ' ')" > /dev/ttyS0
fi
exit 0
EOF
	{ guest_lib; cat <<'EOF'
sys_facts
# the swap partition out of use; the kernel forgets the resume device the initramfs set
# (the swap-partition RESUME= of the fixture), as on a system without RESUME=
swapoff -a
sed -i '/ swap /d' /etc/fstab
echo 0:0 > /sys/power/resume
say "resume-cleared=$(cat /sys/power/resume)"
# 192 MiB: the root filesystem has about 300 MiB free (the image here: 44 MiB after LZO)
fallocate -l 192M /swapfile && chmod 600 /swapfile && mkswap /swapfile > /dev/null
say "swapfile=$(stat -c %s /swapfile) $(df -m --output=avail / | tail -1 | tr -d ' ') MiB free"
echo '/swapfile none swap sw 0 0' >> /etc/fstab
swapon -a
say "swaps: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd';')"
say "swapfile-fs-uuid=$(findmnt -no UUID /)"
run dpkg -i $IN/efiresume.deb
dpkg-divert --quiet --local --rename --divert /usr/lib/systemd/system-sleep/efiresume.real --add /usr/lib/systemd/system-sleep/efiresume
install -m 755 $IN/hook-wrapper /usr/lib/systemd/system-sleep/efiresume
run efiresume-install install --mode=always
say "clear-unit-enabled=$(systemctl is-enabled efiresume-clear.service 2>&1)"
say "er-entry=$(er_entry)"
sed 's/^/EFIRESUME-TEST: conf: /' /boot/efi/EFI/efiresume/efiresume.conf
run efiresume-install status
hibernate_cycle
vars_after
run efiresume-install status
efi_show
er_journal
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	{ guest_lib; cat <<'EOF'
sys_facts
work_check work-boot
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
say "cmdline=$(tr ' ' '_' < /proc/cmdline)"
efi_show
EOF
	} > "$d/boot3.sh"
	echo "boot 1 (Debian 13; swap file, install --mode=always, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	check_facts boot1
	check_install boot1 always
	expect "$d/boot1.log" 'EFIRESUME-TEST: swaps: /swapfile file 192M' "only the swap file (192 MiB) is active" || ok=1
	expect_not "$d/boot1.log" 'EFIRESUME-TEST: conf: resume' "efiresume.conf has no resume line" || ok=1
	expect "$d/boot1.log" 'EFIRESUME-TEST: wrapper: EfiresumeLocation deleted' "EfiresumeLocation deleted after the hook wrote it" || ok=1
	fsu=$(deb_val "$d" boot1 swapfile-fs-uuid)
	roff=$(sed -nE 's/.*EFIRESUME-TEST: wrapper: resume=[0-9:]+ resume_offset=([0-9]+).*/\1/p' "$d/boot1.log.txt" | tail -1)
	hl=$(sed -nE 's/.*EFIRESUME-TEST: hibloc-pre=(.*)/\1/p' "$d/boot1.log.txt" | tail -1 | tr -d '\r')
	if [[ $hl == *'"uuid":"'$fsu'"'* ]] && [[ $hl == *'"offset":'$roff[,}]* ]] && [[ $roff =~ ^[1-9][0-9]*$ ]]; then
		pass "systemd wrote HibernateLocation $hl (resume_offset $roff)"
	else
		fail "HibernateLocation '$hl' (filesystem $fsu, resume_offset '$roff')"
	fi
	hl16=$(deb_val "$d" boot1 hibloc-pre-utf16)
	[ "$hl16" = 7b002200 ] && pass "HibernateLocation is UTF-16LE ('{\"' = $hl16)" || echo "  note: HibernateLocation starts $hl16"
	[[ $roff =~ ^[0-9]+$ ]] && DEB_SIG_AT=$((DEB_ROOT_START * 512 + roff * 4096))
	check_hibernated boot1
	echo "boot 2 (the firmware starts efiresume, first in BootOrder; HibernateLocation is the only hint):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	expect "$d/boot2.log" "${ER_RE}HibernateLocation: swap file at page $roff of the filesystem UUID $fsu" "efiresume took the swap file from HibernateLocation" || ok=1
	check_efiresume_resumed boot2 "PARTUUID=$DEB_ROOT_PARTUUID"
	check_resumed boot1 boot2
	vars_gone boot2
	echo "boot 3 (efiresume first in BootOrder, nothing to resume):"
	deb_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh"
	qemu_ok
	expect "$d/boot3.log" "BdsDxe: starting Boot$er \"Resume hibernated Linux\"" "the firmware started efiresume (Boot$er)" || ok=1
	expect "$d/boot3.log" "${ER_RE}.*no image" "efiresume found no image" || ok=1
	expect_not "$d/boot3.log" "${ER_RE}.*(resuming in|passphrase|found a hibernated)" "no prompt" || ok=1
	expect "$d/boot3.log" "${ER_RE}starting .EFI.debian.vmlinuz.efi" "efiresume started the Debian entry's kernel" || ok=1
	expect "$d/boot3.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	vars_none boot3
	check_work boot1 boot2 boot3
	status_show boot1
	;;
lvm|crypt-lvm)
	VGM=$D13V_VGM
	uuid=$D13V_LUKS_UUID
	unlock_re="Please unlock disk $D13V_CRYPT"
	prompt_re="passphrase for luks-$uuid on .*try [0-9] of 3"
	wrong='not the passphrase 13'
	if [ $scen = crypt-lvm ]; then
		mode=always
		# the swap LV is encrypted: the host cannot read its signature; the guest reads it
		# through the mapping (swap-sig-* values)
		sig_is() { echo "  note: swap signature not read by the host (encrypted): $2"; }
	else
		mode=on-hibernate
		DEB_SIG_AT=$(fixture_fact "$d" swap_lv_byte)
	fi
	{ guest_lib; echo "VGM=$VGM CRYPT=$D13V_CRYPT MODE=$mode"; cat <<'EOF'
sys_facts
say "layout: $(lsblk -nro NAME,TYPE,FSTYPE,MOUNTPOINTS /dev/vda | tr -s ' ' | paste -sd';')"
say "swaps: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd';')"
# /proc/swaps names the LV by its dm-N node
say "swap-lv=$(for n in $(swapon --show=NAME --noheadings); do [ "$(readlink -f $n)" = "$(readlink -f /dev/mapper/$VGM-swap_1)" ] && echo yes; done)"
say "resume-dev=$(cat /sys/power/resume)"
say "crypttab=$(tr -s ' \t' '_' < /etc/crypttab 2>/dev/null | paste -sd';')"
if [ -e /dev/mapper/$CRYPT ]; then
	cryptsetup luksDump /dev/vda2 | grep -E '^(Version|UUID):|cipher:|PBKDF:|Memory:|Time cost:' | tr -s ' \t' ' ' | sed 's/^/EFIRESUME-TEST: luks: /'
fi
install_pkg --mode=$MODE
sed 's/^/EFIRESUME-TEST: conf: /' /boot/efi/EFI/efiresume/efiresume.conf
run efiresume-install status
# right after the resume: the swap LV's signature, read through the mapping
swap_sig() { say "swap-sig-resumed=$(dd if=/dev/mapper/$VGM-swap_1 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')"; }
hibernate_cycle swap_sig
vars_after
efi_show
er_journal
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	{ guest_lib; echo "VGM=$VGM"; cat <<'EOF'
sys_facts
work_check work-boot
say "swap-sig-boot=$(dd if=/dev/mapper/$VGM-swap_1 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')"
say "swaps: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd';')"
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
efi_show
EOF
	} > "$d/boot3.sh"
	# every question answered (so that a wrong one cannot hang the boot), then checked
	D13V_ANSWERS=("$unlock_re"$'\t'"$D13V_PASS")
	echo "boot 1 (Debian ${EFIRESUME_DEBIAN:-13} on $scen; install the package, efiresume-install install --mode=$mode, systemctl hibernate):"
	d13v_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh" d13v_type
	check_facts boot1
	expect "$d/boot1.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
	val_is boot1 swap-lv yes "swap on LV $D13V_VG/swap_1"
	expect "$d/boot1.log" "EFIRESUME-TEST: layout: .*$VGM-root lvm ext4 /" "root on LV $D13V_VG/root" || ok=1
	if [ $scen = crypt-lvm ]; then
		expect "$d/boot1.log" "$unlock_re" "the initramfs asked for the passphrase (cryptsetup-initramfs)" || ok=1
		expect "$d/boot1.log" "EFIRESUME-TEST: layout: .*$D13V_CRYPT crypt LVM2_member" "the VG inside LUKS ($D13V_CRYPT)" || ok=1
		expect "$d/boot1.log" 'EFIRESUME-TEST: luks: Version: 2' "LUKS2" || ok=1
		expect "$d/boot1.log" 'EFIRESUME-TEST: luks: +cipher: aes-xts-plain64' "aes-xts-plain64 (cryptsetup's default)" || ok=1
		expect "$d/boot1.log" 'EFIRESUME-TEST: luks: +PBKDF: argon2id' "argon2id (cryptsetup's default)" || ok=1
		sed -n 's/.*EFIRESUME-TEST: luks: \(.*\)/  | \1/p' "$d/boot1.log.txt" | sort -u
	fi
	check_install boot1 $mode
	check_hibernated boot1
	echo "boot 2 (the firmware starts efiresume$([ $scen = crypt-lvm ] && echo '; a wrong passphrase, then the right one'); it resumes):"
	D13V_ANSWERS=("$prompt_re"$'\t'"$wrong"$'\t'"$D13V_PASS" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh" d13v_type
	if [ $scen = crypt-lvm ]; then
		expect "$d/boot2.log" "${ER_RE}passphrase for luks-$uuid on .* \\(try 1 of 3, Esc: skip\\)" "efiresume asked for the passphrase of luks-$uuid" || ok=1
		expect "$d/boot2.log" "${ER_RE}luks-$uuid: wrong passphrase" "the wrong passphrase refused" || ok=1
		expect "$d/boot2.log" "${ER_RE}passphrase for luks-$uuid on .* \\(try 2 of 3, Esc: skip\\)" "asked again (try 2 of 3)" || ok=1
		expect "$d/boot2.log" "${ER_RE}luks-$uuid: unlocked \\(keyslot 0, argon2id" "unlocked (keyslot 0, argon2id)" || ok=1
		sed -n 's/.*efiresume: \(luks-.*: \(unlocked\|LUKS2\) .*\)/  | \1/p' "$d/boot2.log.txt"
		expect_not "$d/boot2.log" "$unlock_re" "the initramfs never asked (no kernel booted in between)" || ok=1
		for p in "$D13V_PASS" "$wrong"; do
			grep -aqF -- "$p" "$d/boot2.log" && fail "a passphrase is on the console"
		done
		val_is boot2 swap-sig-resumed SWAPSPACE2 "the swap LV's signature (read through the mapping) reset to SWAPSPACE2"
	fi
	check_efiresume_resumed boot2 "swap LV $D13V_VG/swap_1: hibernation image"
	check_resumed boot1 boot2
	val_is boot2 bootcurrent "$er" "BootCurrent: the efiresume entry"
	val_is boot2 bootnext none "BootNext gone after the resume"
	vars_gone boot2
	echo "boot 3 (a normal boot, nothing to resume):"
	D13V_ANSWERS=("$prompt_re"$'\t'"ESC" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh" d13v_type
	qemu_ok
	expect "$d/boot3.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	if [ $scen = crypt-lvm ]; then
		expect "$d/boot3.log" "BdsDxe: starting Boot$er \"Resume hibernated Linux\"" "the firmware started efiresume (Boot$er, first in BootOrder)" || ok=1
		expect "$d/boot3.log" "${ER_RE}luks-$uuid on .*: encrypted \\(not unlocked: nothing to resume\\)" "efiresume: encrypted, nothing to resume" || ok=1
		expect_not "$d/boot3.log" "${ER_RE}.*(passphrase for|resuming in|found a hibernated)" "efiresume asked nothing (no stale prompt)" || ok=1
		expect "$d/boot3.log" "${ER_RE}starting .EFI.debian.vmlinuz.efi" "efiresume started the Debian entry's kernel" || ok=1
		expect "$d/boot3.log" "$unlock_re" "the initramfs asked for the passphrase as usual" || ok=1
		val_is boot3 swap-sig-boot SWAPSPACE2 "the swap LV's signature (through the mapping)"
	else
		firmware_started_debian boot3
		val_is boot3 bootcurrent "$entry" "BootCurrent: Debian"
	fi
	vars_none boot3
	check_work boot1 boot2 boot3
	status_show boot1
	;;
crypt-lvm-faults)
	# two hibernations of one system; efiresume does not unlock either, the Debian kernel's
	# initramfs asks for the passphrase and the kernel's own resume brings the system back
	VGM=$D13V_VGM
	uuid=$D13V_LUKS_UUID
	unlock_re="Please unlock disk $D13V_CRYPT"
	prompt_re="passphrase for luks-$uuid on .*try [0-9] of 3"
	wrong1='not the passphrase 13' wrong2='efiresume trixie 12' wrong3='Efiresume trixie 13'
	sig_is() { echo "  note: swap signature not read by the host (encrypted): $2"; }
	kresume_re='PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data|PM: Image signature found, resuming'
	{ guest_lib; echo "VGM=$VGM"; cat <<'EOF'
sys_facts
install_pkg --mode=always
hibernate_cycle
efi_show
say "cycle-2"
hibernate_wait 300
checks_resumed
work_check work-after
sleep 1
work_check work-later
say "hibloc-after=$(var_text $HIBLOC)"
say "erloc-after=$(var_text $ERLOC)"
efi_show
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	cp "$d/boot2.sh" "$d/boot3.sh"
	{ guest_lib; echo "VGM=$VGM"; cat <<'EOF'
sys_facts
work_check work-boot
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
efi_show
EOF
	} > "$d/boot4.sh"
	D13V_ANSWERS=("$unlock_re"$'\t'"$D13V_PASS" "$prompt_re"$'\t'"ESC")
	echo "boot 1 (install --mode=always, systemctl hibernate):"
	d13v_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh" d13v_type
	check_install boot1 always
	check_hibernated boot1
	echo "boot 1b (efiresume: the right passphrase; the power cut once it has unlocked, before it commits):"
	D13V_ANSWERS=("$prompt_re"$'\t'"$D13V_PASS" "${ER_RE}luks-$uuid: unlocked \\(keyslot"$'\t'"POWERCUT" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" cut "$DEB_TIMEOUT" "$d/boot2.sh" d13v_type
	[ "$DEB_RC" = 137 ] && pass "the power cut (QEMU killed, status $DEB_RC)" || fail "QEMU status $DEB_RC, not killed"
	expect "$d/cut.log" "${ER_RE}luks-$uuid: unlocked \\(keyslot 0" "efiresume unlocked the container" || ok=1
	expect_not "$d/cut.log" "${ER_RE}.*(handing off|swap signature (reset|restored))|Linux version" "cut before the commit (no hand-off, no kernel)" || ok=1
	echo "  the last lines efiresume printed: $(grep -a "$ER_RE" "$d/cut.log.txt" | tail -2 | tr -d '\r' | paste -sd'|')"
	echo "boot 2 (efiresume asks again: three wrong passphrases; the Debian kernel, its initramfs asks, the kernel resumes):"
	D13V_ANSWERS=("$prompt_re"$'\t'"$wrong1"$'\t'"$wrong2"$'\t'"$wrong3" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh" d13v_type
	qemu_ok
	n=$(grep -ac "efiresume: luks-$uuid: wrong passphrase" "$d/boot2.log.txt" || true)
	[ "$n" = 3 ] && pass "3 'wrong passphrase' lines" || fail "$n 'wrong passphrase' lines"
	expect "$d/boot2.log" "${ER_RE}luks-$uuid: 3 wrong passphrases; booting normally \\(the initramfs will ask\\)" "3 wrong: booting normally" || ok=1
	expect_not "$d/boot2.log" "${ER_RE}.*(unlocked \\(|handing off|swap signature (reset|restored))" "not unlocked, nothing committed" || ok=1
	expect "$d/boot2.log" "${ER_RE}starting .EFI.debian.vmlinuz.efi" "efiresume started the Debian entry's kernel" || ok=1
	expect "$d/boot2.log" "$unlock_re" "the initramfs asked for the passphrase" || ok=1
	expect "$d/boot2.log" "$kresume_re" "the kernel's own resume read the image" || ok=1
	for p in "$D13V_PASS" "$wrong1" "$wrong2" "$wrong3"; do
		grep -aqF -- "$p" "$d/boot2.log" && fail "a passphrase is on the console"
	done
	check_resumed boot1 boot2
	val_is boot2 work-after-consistent yes "the file written across the hibernation: every line in order"
	expect "$d/boot2.log" 'EFIRESUME-TEST: cycle-2' "the resumed system hibernated again" || ok=1
	n=$(grep -acE 'PM: hibernation: Wrote [0-9]+ kbytes' "$d/boot2.log.txt" || true)
	[ "$n" -ge 1 ] && pass "the kernel wrote the second image" || fail "no second image written"
	echo "boot 3 (efiresume: Esc at the prompt; the initramfs asks, the kernel resumes):"
	D13V_ANSWERS=("$prompt_re"$'\t'"ESC" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh" d13v_type
	expect "$d/boot3.log" "${ER_RE}passphrase for luks-$uuid on .* \\(try 1 of 3, Esc: skip\\)" "efiresume asked" || ok=1
	expect "$d/boot3.log" "${ER_RE}luks-$uuid: skipped \\(Esc\\)" "skipped (Esc)" || ok=1
	expect_not "$d/boot3.log" "${ER_RE}.*(unlocked \\(|wrong passphrase|try 2 of 3|handing off)" "not asked again, nothing committed" || ok=1
	expect "$d/boot3.log" "$unlock_re" "the initramfs asked for the passphrase" || ok=1
	expect "$d/boot3.log" "$kresume_re" "the kernel's own resume read the image" || ok=1
	check_resumed boot2 boot3
	val_is boot3 work-after-consistent yes "the file written across both hibernations: every line in order"
	echo "boot 4 (a normal boot: efiresume asks nothing, the initramfs asks):"
	D13V_ANSWERS=("$prompt_re"$'\t'"ESC" "$unlock_re"$'\t'"$D13V_PASS")
	d13v_boot "$d" boot4 "$DEB_TIMEOUT" "$d/boot4.sh" d13v_type
	qemu_ok
	expect "$d/boot4.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	expect_not "$d/boot4.log" "${ER_RE}.*(passphrase for|resuming in|found a hibernated)" "efiresume asked nothing" || ok=1
	expect "$d/boot4.log" "$unlock_re" "the initramfs asked as usual" || ok=1
	check_work boot1 boot3 boot4
	;;
btrfs)
	off=$(fixture_fact "$d" swapfile_offset)
	DEB_SIG_AT=$(fixture_fact "$d" swapfile_byte)
	fsu=$D13V_ROOT_UUID
	{ guest_lib; cat <<'EOF'
sys_facts
say "layout: $(lsblk -nro NAME,TYPE,FSTYPE,MOUNTPOINTS /dev/vda | tr -s ' ' | paste -sd';')"
say "rootfs=$(findmnt -no FSTYPE,UUID / | tr -s ' ' '_')_$(findmnt -no OPTIONS / | tr ',' '\n' | grep '^subvol=' | paste -sd,)"
say "swaps: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd';')"
say "swap-subvolume=$(btrfs subvolume show /swap 2>/dev/null | sed -n 's/^[[:space:]]*Name:[[:space:]]*//p')"
say "swapfile-nocow=$(lsattr -d /swap/swapfile 2>/dev/null | cut -c1-22 | grep -q C && echo yes || echo no)"
say "resume-dev=$(cat /sys/power/resume)"
say "resume-offset=$(cat /sys/power/resume_offset)"
say "map-swapfile=$(btrfs inspect-internal map-swapfile -r /swap/swapfile)"
say "cmdline-resume=$(tr ' ' '\n' < /proc/cmdline | grep '^resume' | paste -sd,)"
install_pkg
run efiresume-install status
hibernate_cycle
vars_after
efi_show
er_journal
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	{ guest_lib; cat <<'EOF'
sys_facts
work_check work-boot
say "swaps: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd';')"
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
efi_show
EOF
	} > "$d/boot3.sh"
	echo "boot 1 (Debian ${EFIRESUME_DEBIAN:-13}, root on Btrfs, swap file /swap/swapfile at page $off; install, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	check_facts boot1
	expect "$d/boot1.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
	val_is boot1 rootfs "btrfs_${fsu}_subvol=/@rootfs" "root on Btrfs, subvolume @rootfs"
	expect "$d/boot1.log" "EFIRESUME-TEST: swaps: /swap/swapfile file 512M" "only the swap file /swap/swapfile (512 MiB) is active" || ok=1
	val_is boot1 swap-subvolume swap "the swap file in a subvolume of its own"
	val_is boot1 swapfile-nocow yes "the swap file is NOCOW (chattr +C, as mkswapfile makes it)"
	[[ $off =~ ^[1-9][0-9]*$ ]] && pass "map-swapfile -r at install: $off" || fail "swap file offset '$off'"
	val_is boot1 map-swapfile "$off" "btrfs inspect-internal map-swapfile -r in the system"
	val_is boot1 resume-offset "$off" "the kernel's resume_offset (from the command line)"
	val_is boot1 cmdline-resume "resume=UUID=$fsu,resume_offset=$off" "resume=UUID= resume_offset= on the command line"
	check_install boot1 on-hibernate
	expect "$d/boot1.log" "EFIRESUME-TEST: efiresume-install: .*btrfs inspect-internal map-swapfile" "efiresume-install status: the swap file's offset by btrfs map-swapfile" || ok=1
	check_hibernated boot1
	echo "boot 2 (the firmware starts efiresume through BootNext; the swap file from EfiresumeLocation):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	expect "$d/boot2.log" "${ER_RE}EfiresumeLocation: swap file at page $off of the filesystem UUID $fsu" "efiresume read the swap file's place from EfiresumeLocation" || ok=1
	check_efiresume_resumed boot2 "swap file at page $off of PARTUUID=$D13V_PV_PARTUUID.*hibernation image"
	check_resumed boot1 boot2
	val_is boot2 bootcurrent "$er" "BootCurrent: the efiresume entry"
	val_is boot2 bootnext none "BootNext gone after the resume"
	vars_gone boot2
	echo "boot 3 (a normal boot, nothing to resume):"
	deb_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh"
	qemu_ok
	firmware_started_debian boot3
	expect_not "$d/boot3.log" 'PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data|PM: Image signature found' "the kernel found nothing to resume" || ok=1
	expect "$d/boot3.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	expect "$d/boot3.log" "EFIRESUME-TEST: swaps: /swap/swapfile file 512M" "the swap file in use again" || ok=1
	vars_none boot3
	check_work boot1 boot2 boot3
	status_show boot1
	;;
other-fallback)
	DEB_SIG_AT=$(fixture_fact "$d" swap_lv_byte)
	# efiresume's fallback is another system's kernel: Debian 12's 6.1 (the cloud flavour,
	# as the other tests fetch it) with a small initramfs that says which kernel it is and
	# powers off, put on the ESP at \EFI\debian12\ as a second system's boot files
	k12=$(kernel_dir linux-image-cloud-amd64)
	cat "$TOP"/tests/e2e/init/prelude.sh > "$d/init12"
	cat >> "$d/init12" <<'EOF'
say "fallback-kernel=$(uname -r)"
say "fallback-cmdline=$(cat /proc/cmdline | tr ' ' '_')"
poweroff -f
EOF
	make_initramfs x64 "$k12" "$d/init12" "$d/initrd12.gz"
	k12v=$(basename "$(kernel_image "$k12")"); k12v=${k12v#vmlinuz-}
	mmd -i "$d/disk.raw@@$((DEB_ESP_START * 512))" ::/EFI/debian12
	mcopy -i "$d/disk.raw@@$((DEB_ESP_START * 512))" "$(kernel_image "$k12")" ::/EFI/debian12/vmlinuz.efi
	mcopy -i "$d/disk.raw@@$((DEB_ESP_START * 512))" "$d/initrd12.gz" ::/EFI/debian12/initrd.gz
	{ guest_lib; cat <<'EOF'
sys_facts
install_pkg --mode=always '--fallback=\EFI\debian12\vmlinuz.efi' '--options=initrd=\EFI\debian12\initrd.gz console=ttyS0,115200 panic=-1'
sed 's/^/EFIRESUME-TEST: conf: /' /boot/efi/EFI/efiresume/efiresume.conf
kernel_after() { say "kernel-after=$(uname -r)"; }
hibernate_cycle kernel_after
vars_after
efi_show
EOF
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	echo "boot 1 (Debian 13; install --mode=always with Debian 12's kernel as the fallback, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	check_facts boot1
	check_install boot1 always
	expect "$d/boot1.log" 'EFIRESUME-TEST: conf: fallback .EFI.debian12.vmlinuz.efi' "efiresume.conf: the fallback is Debian 12's kernel" || ok=1
	check_hibernated boot1
	echo "boot 2 (efiresume, first in BootOrder, its fallback Debian 12's $k12v: it resumes Debian 13's image):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	check_efiresume_resumed boot2 "swap LV $D13V_VG/swap_1: hibernation image"
	expect_not "$d/boot2.log" "${ER_RE}starting .EFI.debian12|EFIRESUME-TEST: fallback-kernel" "the fallback was not started" || ok=1
	check_resumed boot1 boot2
	val_is boot2 kernel-after "$(deb_val "$d" boot1 kernel)" "the resumed kernel is Debian 13's"
	vars_gone boot2
	echo "boot 3 (nothing to resume: efiresume starts Debian 12's kernel):"
	deb_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot2.sh"
	qemu_ok
	expect "$d/boot3.log" "${ER_RE}.*no image" "efiresume found no image" || ok=1
	expect "$d/boot3.log" "${ER_RE}starting .EFI.debian12.vmlinuz.efi" "efiresume started Debian 12's kernel" || ok=1
	val_is boot3 fallback-kernel "$k12v" "Debian 12's kernel ran"
	;;
*)
	echo "unknown scenario $scen"; exit 2 ;;
esac

t_end=$(date +%s.%N)
echo "scenario $scen: $(fmt_secs "$t_start" "$t_end") s ($(paste -sd' ' "$d/times"))"
exit $ok
