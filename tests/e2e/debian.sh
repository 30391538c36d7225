#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end scenarios on a real Debian 12 system (systemd, initramfs-tools, Debian's
# 6.1 kernel started by the firmware's Boot#### "Debian" entry through its EFI stub).
# The system is built once and cached by tests/lib/debian.sh; each scenario boots a
# qcow2 overlay of it. The guest's test agent runs the commands given for each boot.
#   debian.sh SCENARIO
#     hibernate-kernel   boot 1 hibernates (systemctl hibernate); boot 2: the firmware
#                        starts "Debian", initramfs-tools' resume brings the system
#                        back (validates the fixture, no efiresume involved)
#     on-hibernate       boot 1: dpkg -i the .deb, efiresume-install install (default mode),
#                        systemctl hibernate; boot 2: the firmware starts efiresume through
#                        BootNext, it resumes the system; boot 3 (no image): efiresume does
#                        not run; then a failed hibernation (pm_test=devices: no image is
#                        written), whose post hook clears BootNext, and efiresume-install
#                        remove (no entry, BootOrder as before install, files gone).
#                        The package enabled efiresume-clear.service; the resumed system
#                        plants a stale EfiresumeLocation (as Esc at efiresume's passphrase
#                        prompt leaves it) and boot 3, a normal boot, must have deleted it
#     always             boot 1: install --mode=always, hibernate; boot 2: efiresume (first
#                        in BootOrder) resumes; boot 3 (no image): efiresume starts the
#                        fallback, the Debian entry's kernel with its options; then the
#                        failed hibernation and remove (BootOrder as before install)
#   The .deb: the newest build/efiresume_*_amd64.deb (make deb), or EFIRESUME_DEB=FILE.
set -euo pipefail
. "$(dirname "$0")/../lib/debian.sh"
[ $# -eq 1 ] || { sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 2; }
scen=$1
ok=0

d=$(scratch "debian-$scen")
deb_fixture
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry, BootOrder $(fixture_fact "$d" boot_order))"
t_start=$(date +%s.%N)

# the firmware program's own lines (the guest renames "efiresume: " in what it prints)
ER_RE='efiresume: '

# install_steps MODE: the guest commands that install the .deb and efiresume
install_steps() {
	cat <<EOF
efi_show
say "bootorder-before-install=\$(efibootmgr | sed -n 's/^BootOrder: //p')"
run dpkg -i \$IN/efiresume.deb
run efiresume-install install $1
run efiresume-install status
say "clear-unit-enabled=\$(systemctl is-enabled efiresume-clear.service 2>&1)"
efi_show
say "bootorder-after-install=\$(efibootmgr | sed -n 's/^BootOrder: //p')"
say "er-entry=\$(er_entry)"
esp_show
EOF
}

# check_install BOOT MODE: boot 1's install
check_install() {
	local n=$1 mode=$2 before after
	val_is "$n" dpkg-status 0 "dpkg -i efiresume_*.deb"
	val_is "$n" efiresume-install-status 0 "efiresume-install install --mode=$mode"
	er=$(deb_val "$d" "$n" er-entry)
	if [[ $er =~ ^[0-9A-F]{4}$ ]]; then pass "boot entry Boot$er \"Resume hibernated Linux\""; else fail "no efiresume boot entry"; fi
	expect "$d/$n.log" 'EFIRESUME-TEST: esp: /boot/efi/EFI/efiresume/efiresume.efi' "efiresume.efi on the ESP" || ok=1
	expect "$d/$n.log" 'EFIRESUME-TEST: esp: /boot/efi/EFI/efiresume/efiresume.conf' "efiresume.conf next to it" || ok=1
	val_is "$n" removable none "nothing on the removable path \\EFI\\BOOT\\BOOTX64.EFI"
	val_is "$n" clear-unit-enabled enabled "the package's postinst enabled efiresume-clear.service"
	before=$(deb_val "$d" "$n" bootorder-before-install)
	after=$(deb_val "$d" "$n" bootorder-after-install)
	if [ "$mode" = always ]; then
		[ -n "$before" ] && [ "$after" = "$er,$before" ] && pass "BootOrder $after: Boot$er first, the rest as before ($before)" ||
			fail "BootOrder after install '$after' (before: '$before', entry $er)"
	else
		[ -n "$before" ] && [ "$after" = "$before" ] && pass "BootOrder unchanged by install ($after)" ||
			fail "BootOrder after install '$after' (before: '$before')"
	fi
}

# check_efiresume_resumed BOOT: the firmware started efiresume (entry $er) and it resumed
check_efiresume_resumed() {
	local n=$1
	expect "$d/$n.log" "BdsDxe: starting Boot$er \"Resume hibernated Linux\"" "the firmware started Boot$er" || ok=1
	expect "$d/$n.log" "${ER_RE}.*PARTUUID=$DEB_SWAP_PARTUUID" "efiresume looked at the swap partition" || ok=1
	expect "$d/$n.log" "${ER_RE}.*handing off" "efiresume handed off to the image kernel" || ok=1
	expect_not "$d/$n.log" 'Run /init as init process|PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data' "no kernel booted in between" || ok=1
}

# the resumed system: EfiresumeLocation as a hibernation that was not resumed through
# efiresume leaves it (written as the sleep hook writes it: deleted first, one write)
ER_LOC=/sys/firmware/efi/efivars/EfiresumeLocation-338ebdff-5bf8-4971-8760-45caada2d435
plant_location_steps() {
	cat <<EOF
f=$ER_LOC
say "location-after-resume=\$([ -e \$f ] && [ -n "\$(cat \$f 2>/dev/null | tail -c +5)" ] && echo present || echo gone)"
{ printf '\\007\\000\\000\\000'; printf '{"uuid":"%s","offset":0,"device":"%s","kernelVersion":"%s"}' \\
	"\$(blkid -o value -s UUID /dev/disk/by-partuuid/$DEB_SWAP_PARTUUID)" "\$(cat /sys/power/resume)" "\$(uname -r)"; } > \$T/loc
[ -e \$f ] && { chattr -i \$f; rm -f \$f; }
dd if=\$T/loc of=\$f bs=64k count=1 status=none
say "location-planted=\$(cat \$f | tail -c +5 | tr -d '\\0')"
sync
EOF
}

# boot 3's commands: a hibernation that returns without an image, then remove
failed_and_remove_steps() {
	cat <<'EOF'
say "location-at-boot=$([ -e /sys/firmware/efi/efivars/EfiresumeLocation-338ebdff-5bf8-4971-8760-45caada2d435 ] && echo present || echo gone)"
say "clear-unit=$(systemctl show -p ActiveState --value efiresume-clear.service),$(systemctl show -p Result --value efiresume-clear.service)"
journalctl -b --no-pager -o cat -u efiresume-clear.service 2>&1 | sed 's/^/EFIRESUME-TEST: clear-unit: /; s/efiresume: /efiresume-tool: /g'
efi_show
say "cmdline=$(tr ' ' '_' < /proc/cmdline)"
if [ -w /sys/power/pm_test ]; then
	say "pm_test-modes=$(tr ' ' ',' < /sys/power/pm_test)"
	echo devices > /sys/power/pm_test
	say "pm_test=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/power/pm_test)"
	counter_start
	hibernate_wait 240
	echo none > /sys/power/pm_test
	efi_show
	say "bootnext-after-failed=$(deb_bootnext)"
	er_journal
else
	say "pm_test=unavailable"
fi
run efiresume-install remove
efi_show
say "er-entry-after-remove=$(er_entry)"
say "bootorder-after-remove=$(efibootmgr | sed -n 's/^BootOrder: //p')"
say "bootnext-after-remove=$(deb_bootnext)"
esp_show
say "esp-efiresume-dir=$([ -e /boot/efi/EFI/efiresume ] && echo present || echo gone)"
EOF
}

# check_failed_and_remove BOOT BOOT1
check_failed_and_remove() {
	local n=$1 n1=$2 e
	echo " failed hibernation (pm_test=devices: the sleep returns without writing an image):"
	val_is "$n" pm_test devices "pm_test=devices (the kernel has CONFIG_PM_DEBUG)"
	val_is "$n" hibernate-returned yes "systemctl hibernate's sleep ended in the same boot"
	if [ "$scen" = on-hibernate ]; then
		expect "$d/$n.log" "journal: efiresume-hook: BootNext set to Boot$er" "pre hook: BootNext set to Boot$er" || ok=1
		expect "$d/$n.log" "journal: efiresume-hook: BootNext \\(Boot$er\\) cleared" "post hook: BootNext cleared" || ok=1
	else
		# always: efiresume is first in BootOrder, the hook leaves BootNext alone
		expect "$d/$n.log" "journal: efiresume-hook: .*pre hibernate done" "pre hook ran" || ok=1
		expect_not "$d/$n.log" "journal: efiresume-hook: BootNext" "the hook did not touch BootNext (mode always)" || ok=1
	fi
	val_is "$n" bootnext-after-failed none "no BootNext after the failed hibernation"
	sig_is SWAPSPACE2 "no image was written"
	echo " efiresume-install remove:"
	val_is "$n" efiresume-install-status 0 "efiresume-install remove"
	e=$(deb_val "$d" "$n" er-entry-after-remove)
	[ -z "$e" ] && pass "no \"Resume hibernated Linux\" entry left" || fail "entry Boot$e left after remove"
	val_is "$n" bootorder-after-remove "$(deb_val "$d" "$n1" bootorder-before-install)" "BootOrder as before install"
	val_is "$n" bootnext-after-remove none "no BootNext"
	val_is "$n" esp-efiresume-dir gone "\\EFI\\efiresume removed from the ESP"
}


case $scen in
hibernate-kernel)
	cat > "$d/boot1.sh" <<'EOF'
counter_start
efi_show
boot_times
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
on-hibernate|always)
	deb=$(deb_file) || exit 1
	echo "package: $deb"
	cp "$deb" "$d/fwcfg/efiresume.deb"
	mode=--mode=$scen
	{ install_steps "$mode"; cat <<'EOF'
counter_start
hibernate_wait 300
checks_resumed
efi_show
er_journal
EOF
	if [ "$scen" = on-hibernate ]; then plant_location_steps; fi
	} > "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	echo "boot 1 (Debian; install the package, efiresume-install install $mode, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	expect "$d/boot1.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
	check_install boot1 "$scen"
	check_hibernated boot1
	echo "boot 2 (the firmware starts efiresume; it resumes the system):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	check_efiresume_resumed boot2
	check_resumed boot1 boot2
	val_is boot2 bootcurrent "$er" "BootCurrent: the efiresume entry"
	val_is boot2 bootnext none "BootNext gone after the resume"
	if [ "$scen" = on-hibernate ]; then
		expect "$d/boot2.log" "journal: efiresume-hook: BootNext set to Boot$er" "pre hook set BootNext to Boot$er" || ok=1
	fi
	echo "boot 3 (no image):"
	failed_and_remove_steps > "$d/boot3.sh"
	deb_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh"
	qemu_ok
	if [ "$scen" = on-hibernate ]; then
		expect_not "$d/boot3.log" "$ER_RE|BdsDxe: (loading|starting) Boot$er" "efiresume did not run" || ok=1
		echo " efiresume-clear.service (a stale EfiresumeLocation planted by the resumed system):"
		val_is boot2 location-after-resume gone "no EfiresumeLocation after the resume (efiresume and the post hook delete it)"
		planted=$(deb_val "$d" boot2 location-planted)
		[[ $planted == '{"uuid":"'$DEB_SWAP_UUID'",'*'"kernelVersion":'* ]] && pass "planted $planted" ||
			fail "planting EfiresumeLocation: '$planted'"
		val_is boot3 location-at-boot gone "the normal boot deleted EfiresumeLocation before the test agent started"
		val_is boot3 clear-unit active,success "efiresume-clear.service ran and succeeded"
		clean_log "$d/boot3.log" > "$d/boot3.log.txt"
		if grep -aqF -- "EFIRESUME-TEST: clear-unit: efiresume-install: deleted EfiresumeLocation (left over from a hibernation not resumed through efiresume): $planted" "$d/boot3.log.txt"; then
			pass "the unit said so in the journal, with what the variable held"
		else
			fail "no 'deleted EfiresumeLocation ...: $planted' from the unit:"; grep -a 'clear-unit' "$d/boot3.log.txt" | sed 's/^/  | /'
		fi
		expect "$d/boot3.log" "BdsDxe: starting Boot$entry \"Debian\"" "the firmware started Boot$entry \"Debian\"" || ok=1
		val_is boot3 bootcurrent "$entry" "BootCurrent: Debian"
	else
		expect "$d/boot3.log" "BdsDxe: starting Boot$er \"Resume hibernated Linux\"" "the firmware started Boot$er first" || ok=1
		expect "$d/boot3.log" "${ER_RE}.*no image" "efiresume found no image" || ok=1
		expect "$d/boot3.log" "${ER_RE}starting .EFI.debian.vmlinuz.efi initrd=.EFI.debian.initrd.img root=PARTUUID=$DEB_ROOT_PARTUUID" "efiresume started the Debian entry's kernel with its options" || ok=1
		val_is boot3 bootcurrent "$er" "BootCurrent: the efiresume entry"
		expect "$d/boot3.log" "EFIRESUME-TEST: cmdline=.*root=PARTUUID=$DEB_ROOT_PARTUUID" "the kernel got the Debian entry's command line" || ok=1
	fi
	check_failed_and_remove boot3 boot1
	;;
*)
	echo "unknown scenario $scen"; exit 2 ;;
esac

t_end=$(date +%s.%N)
echo "scenario $scen: $(fmt_secs "$t_start" "$t_end") s ($(paste -sd' ' "$d/times"))"
exit $ok
