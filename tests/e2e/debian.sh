#!/usr/bin/env bash
# End-to-end scenarios on a real Debian 12 system (systemd, initramfs-tools, Debian's
# 6.1 kernel started by the firmware's Boot#### "Debian" entry through its EFI stub).
# The system is built once and cached by tests/lib/debian.sh; each scenario boots a
# qcow2 overlay of it. The guest's test agent runs the commands given for each boot.
#   debian.sh SCENARIO
#     hibernate-kernel   boot 1 hibernates (systemctl hibernate); boot 2: the firmware
#                        starts "Debian", initramfs-tools' resume brings the system
#                        back (validates the fixture, no efiresume involved)
set -euo pipefail
. "$(dirname "$0")/../lib/debian.sh"
[ $# -eq 1 ] || { sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 2; }
scen=$1
ok=0

# is VALUE what the guest printed as KEY= in boot NAME
val_is() {
	local name=$1 key=$2 want=$3 what=$4 got
	got=$(deb_val "$d" "$name" "$key")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		echo "  ok: $what ($key=$got)"
	else
		echo "  WRONG: $what ($key='$got', expected '$want')"; ok=1
	fi
}
# a number printed as KEY1 in boot N1 is below KEY2 printed in boot N2
val_lt() {
	local a b what=$5
	a=$(deb_val "$d" "$1" "$2") b=$(deb_val "$d" "$3" "$4")
	if [[ $a =~ ^[0-9]+$ ]] && [[ $b =~ ^[0-9]+$ ]] && [ "$a" -lt "$b" ]; then
		echo "  ok: $what ($2=$a < $4=$b)"
	else
		echo "  WRONG: $what ($2='$a', $4='$b')"; ok=1
	fi
}
qemu_ok() {
	[ "$DEB_RC" = 0 ] && echo "  ok: QEMU powered off (status 0)" ||
		{ echo "  WRONG: QEMU status $DEB_RC (124: timeout)"; ok=1; }
}
sig_is() {
	local s
	s=$(deb_swap_sig "$d")
	[ "$s" = "$1" ] && echo "  ok: swap signature $s ($2)" || { echo "  WRONG: swap signature '$s', expected $1 ($2)"; ok=1; }
}

# boot 1's checks of a hibernation that wrote an image and powered off
check_hibernated() {
	local n=$1
	qemu_ok
	expect "$d/$n.log" 'EFIRESUME-TEST: token=[0-9a-f]{32}' "token in tmpfs" || ok=1
	expect "$d/$n.log" 'EFIRESUME-TEST: hibernating' "systemctl hibernate called" || ok=1
	expect "$d/$n.log" 'EFIRESUME-TEST: sleep-hook pre hibernate' "systemd-sleep ran the pre hooks" || ok=1
	expect "$d/$n.log" 'PM: hibernation: (Creating image|Allocated [0-9]+ pages)|PM: Creating hibernation image' "the kernel made an image" || ok=1
	expect "$d/$n.log" 'reboot: Power down' "the kernel powered off" || ok=1
	expect_not "$d/$n.log" 'EFIRESUME-TEST: (hibernate-returned|agent: script exit)' "the script did not go on in this boot" || ok=1
	sig_is S1SUSPEND "image written"
}

# the resumed system's checks (the boot-1 script went on after systemctl hibernate)
# check_resumed N1 N2: N1 the boot that hibernated, N2 the one that resumed
check_resumed() {
	local n1=$1 n2=$2
	qemu_ok
	expect_not "$d/$n2.log" 'EFIRESUME-TEST: fresh-boot' "no fresh boot (the agent did not start again)" || ok=1
	val_is "$n2" hibernate-returned yes "systemctl hibernate's sleep ended in the resumed system"
	val_is "$n2" token-after "$(deb_val "$d" "$n1" token)" "same token in tmpfs"
	val_is "$n2" boot-id-after "$(deb_val "$d" "$n1" boot-id)" "same boot id"
	local c0 c1 c2
	c0=$(deb_val "$d" "$n1" counter-before) c1=$(deb_val "$d" "$n2" counter-after) c2=$(deb_val "$d" "$n2" counter-later)
	if [[ "$c0$c1$c2" =~ ^[0-9]+$ ]] && [ "$c0" -gt 0 ] && [ "$c1" -ge "$c0" ] && [ "$c2" -gt "$c1" ]; then
		echo "  ok: the counter goes on ($c0 before, $c1 -> $c2 after)"
	else
		echo "  WRONG: counter $c0 before, $c1 -> $c2 after"; ok=1
	fi
	val_is "$n2" swap-reusable yes "swapoff + swapon"
	val_is "$n2" efivars-read yes "EFI variables readable"
	expect "$d/$n2.log" 'EFIRESUME-TEST: sleep-hook post hibernate' "systemd-sleep ran the post hooks" || ok=1
	expect_not "$d/$n2.log" 'Kernel panic|BUG:|Oops' "no kernel error" || ok=1
	sig_is SWAPSPACE2 "the image was consumed"
}

d=$(scratch "debian-$scen")
deb_fixture
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry, BootOrder $(fixture_fact "$d" boot_order))"
t_start=$(date +%s.%N)

case $scen in
hibernate-kernel)
	cat > "$d/boot1.sh" <<'EOF'
counter_start
efi_show
hibernate_wait 300
checks_resumed
efi_show
EOF
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	echo "boot 1 (the firmware starts Debian; systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	val_is boot1 bootcurrent "$entry" "the firmware started Boot$entry \"Debian\""
	check_hibernated boot1
	echo "boot 2 (the firmware starts Debian; initramfs-tools resumes):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	expect "$d/boot2.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
	expect_not "$d/boot2.log" 'efiresume:' "efiresume did not run" || ok=1
	expect "$d/boot2.log" 'PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data|PM: Image loading' "the kernel read the image" || ok=1
	check_resumed boot1 boot2
	val_is boot2 bootcurrent "$entry" "BootCurrent after resume: the entry of boot 1 (Debian)"
	;;
*)
	echo "unknown scenario $scen"; exit 2 ;;
esac

t_end=$(date +%s.%N)
echo "scenario $scen: $(fmt_secs "$t_start" "$t_end") s ($(paste -sd' ' "$d/times"))"
exit $ok
