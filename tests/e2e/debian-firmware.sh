#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end scenarios on the real Debian 12 system (tests/lib/debian.sh) about what the
# firmware does around efiresume (issue 9, sections 3 and 6).
#   debian-firmware.sh SCENARIO
#     zero-config   boot 1: dpkg -i the .deb, efiresume-install install --fallback=none
#                   (on-hibernate mode), BootNext set to efiresume's entry by hand, no
#                   hibernation, power off; boot 2: the firmware starts efiresume through
#                   BootNext, it finds nothing to resume and returns to the firmware, which
#                   goes on with BootOrder and starts "Debian" (BootCurrent Debian, no BootNext)
#     boot-menu     boot 1: install --mode=always, efiresume's entry put second in BootOrder
#                   (after "Debian"), systemctl hibernate; boot 2 (-boot menu=on): Esc on the
#                   serial console opens OVMF's front page, the test goes to "Boot Manager" and
#                   selects "Resume hibernated Linux": efiresume (not the kernel's
#                   initramfs-tools resume) brings the same system back
#   The .deb: the newest build/efiresume_*_amd64.deb (make deb), or EFIRESUME_DEB=FILE.
#   Control runs (must fail): DFW_CONTROL_FALLBACK=1 zero-config (installed without
#   --fallback=none: efiresume starts the fallback itself); DFW_CONTROL_NOKEYS=1 boot-menu (no
#   keys: the firmware starts Debian, the kernel's initramfs-tools resume takes the image).
set -euo pipefail
. "$(dirname "$0")/../lib/debian.sh"
[ $# -eq 1 ] || { sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 2; }
scen=$1
ok=0

# line number of the first match of ERE in a boot's clean log (0: none)
line_of() {
	local n
	n=$(grep -anE -- "$2" "$d/$1.log.txt" | head -1 | cut -d: -f1 || true)
	echo "${n:-0}"
}

# fw_boot_keys DIR NAME TIMEOUT SCRIPT KEYFN [qemu args]: deb_boot with the serial console
# through a pipe pair (qemu.sh's qemu_run_typed): KEYFN LOG FD runs in the background and types
# on fd FD while LOG grows (what it prints: DIR/NAME.keys). Same QEMU as deb_boot otherwise.
fw_boot_keys() {
	local dir=$1 name=$2 tmo=$3 script=$4 keyfn=$5 t0 t1
	shift 5
	cp "$script" "$dir/fwcfg/script"
	deb_fwcfg "$dir/fwcfg"
	deb_qemu_opts
	say "boot $name (serial console through a pipe)"
	if [ -n "${DFW_CONTROL_NOKEYS:-}" ]; then keyfn=true; fi    # control run: no keys typed
	t0=$(date +%s.%N)
	DEB_RC=0
	qemu_run_typed "$dir/$name.log" "$tmo" _fw_keys "${DEB_QEMU_OPTS[@]}" vars="$dir/vars.fd" \
		disk="$dir/disk.raw" "${DEB_FWCFG[@]}" -- "$@" || DEB_RC=$?
	t1=$(date +%s.%N)
	DEB_SECS=$(fmt_secs "$t0" "$t1")
	clean_log "$dir/$name.log" > "$dir/$name.log.txt"
	sed 's/^/  keys: /' "$dir/$name.keys"
	echo "  $name: QEMU status $DEB_RC after $DEB_SECS s"
	echo "$name=$DEB_SECS" >> "$dir/times"
}
# the typist of fw_boot_keys (its keyfn, dir and name)
_fw_keys() { "$keyfn" "$1" 7 > "$dir/$name.keys" 2>&1; }

# the screen as text so far (ANSI stripped; OVMF's forms position the cursor, so each
# escape becomes a line break and every drawn item is a line of its own)
screen() {
	sed -e 's/\x1b\[[0-9;?]*[A-Za-z]/\n/g' -e 's/\x1b[()][A-Z0-9]//g' -e 's/\r/\n/g' "$1" |
		sed -e 's/^ *//; s/ *$//' | grep -av '^$'
}
# wait_for LOG ERE SECS [FROM]: the ERE in LOG's screen after byte FROM
wait_for() {
	local i
	for i in $(seq $(($3 * 5))); do
		tail -c +"$((${4:-0} + 1))" "$1" | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]/\n/g' | grep -aqE -- "$2" && return 0
		sleep 0.2
	done
	return 1
}

# the keys for boot-menu's boot 2: Esc until OVMF's front page shows, "Boot Manager",
# then "Resume hibernated Linux"
menu_keys() {
	local log=$1 fd=$2 i n pos
	# a lone Esc is taken by OVMF's terminal 2 s after it arrives: one at a time, and
	# another only when the front page did not come
	for i in $(seq 20); do
		wait_for "$log" 'Boot Maintenance Manager|Device Manager|"UiApp"' 1 && break
		echo "Esc ($i)"
		printf '\033' >&"$fd"
		wait_for "$log" 'Boot Maintenance Manager|Device Manager|"UiApp"' 8 && break
	done
	wait_for "$log" 'Boot Maintenance Manager' 30 || { echo "no front page"; return 1; }
	sleep 3
	# the front page's items in screen order; the cursor starts on the first one
	screen "$log" > "$log.front"
	n=$(grep -anE '^(Select Language|Standard English|Device Manager|Boot Manager|Boot Maintenance Manager|Continue|Reset)$' "$log.front" |
		cut -d: -f2 | awk '!s[$0]++' | grep -v '^Standard English$' | grep -n "^Boot Manager$" | cut -d: -f1 || true)
	echo "front page items: $(grep -aE '^(Select Language|Device Manager|Boot Manager|Boot Maintenance Manager|Continue|Reset)$' "$log.front" | awk '!s[$0]++' | paste -sd'|')"
	[ -n "$n" ] || { echo "no Boot Manager item"; return 1; }
	echo "Boot Manager is item $n: $((n - 1)) x down, Enter"
	for i in $(seq $((n - 1))); do printf '\033[B' >&"$fd"; sleep 0.7; done
	pos=$(stat -c %s "$log")
	printf '\r' >&"$fd"
	wait_for "$log" 'Boot Manager Menu' 30 "$pos" || { echo "no Boot Manager Menu"; return 1; }
	wait_for "$log" 'Resume hibernated Linux' 30 "$pos" || { echo "no efiresume entry in the Boot Manager"; return 1; }
	sleep 3
	tail -c +"$((pos + 1))" "$log" > "$log.bm.raw"
	screen "$log.bm.raw" > "$log.bm"
	# the boot options, in order, between the menu's title and its help text
	awk '/^Boot Manager Menu$/ {m=1; next} m && /^(Use the|Device Path|\^ and v|↑|Enter=|Esc=|F9=|F10=|\/)/ {exit} m' "$log.bm" |
		grep -avE '^(-+|/-+\\|\\-+/|\|.*)$' | grep -avE '^(Boot Manager|Boot Option Menu)$' | awk 'length > 2 && !s[$0]++' > "$log.bm.items"
	echo "boot manager items: $(paste -sd'|' "$log.bm.items")"
	n=$(grep -n "^Resume hibernated Linux$" "$log.bm.items" | cut -d: -f1 || true)
	[ -n "$n" ] || { echo "Resume hibernated Linux not among the items"; return 1; }
	echo "Resume hibernated Linux is item $n: $((n - 1)) x down, Enter"
	for i in $(seq $((n - 1))); do printf '\033[B' >&"$fd"; sleep 0.7; done
	printf '\r' >&"$fd"
	echo "selected"
}

d=$(scratch "debian-firmware-$scen${DFW_CONTROL_NOKEYS:+-control}${DFW_CONTROL_FALLBACK:+-control}")
deb_fixture
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry, BootOrder $(fixture_fact "$d" boot_order))"
deb=$(deb_file) || exit 1
echo "package: $deb"
cp "$deb" "$d/fwcfg/efiresume.deb"
t_start=$(date +%s.%N)
ER_RE='efiresume: '

case $scen in
zero-config)
	cat > "$d/boot1.sh" <<'EOF'
run dpkg -i $IN/efiresume.deb
run efiresume-install install $FALLBACK
say "er-entry=$(er_entry)"
sed 's/^/EFIRESUME-TEST: conf: /' /boot/efi/EFI/efiresume/efiresume.conf
say "conf-fallback=$(grep -cE '^[[:space:]]*fallback[[:space:]]' /boot/efi/EFI/efiresume/efiresume.conf)"
run efibootmgr -n "$(er_entry)"
efi_show
EOF
	fb=--fallback=none
	[ -z "${DFW_CONTROL_FALLBACK:-}" ] || fb=    # control run: the default fallback (BootCurrent's program)
	sed -i "s|\$FALLBACK|$fb|" "$d/boot1.sh"
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	echo "boot 1 (Debian; install the package, efiresume-install install $fb, BootNext by hand):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	qemu_ok
	val_is boot1 dpkg-status 0 "dpkg -i efiresume_*.deb"
	val_is boot1 efiresume-install-status 0 "efiresume-install install $fb"
	er=$(deb_val "$d" boot1 er-entry)
	[[ $er =~ ^[0-9A-F]{4}$ ]] && pass "boot entry Boot$er \"Resume hibernated Linux\"" || { fail "no efiresume boot entry"; er=NONE; }
	val_is boot1 conf-fallback 0 "efiresume.conf has no fallback line"
	val_is boot1 efibootmgr-status 0 "efibootmgr -n $er"
	val_is boot1 bootnext "$er" "BootNext = Boot$er"
	bo=$(deb_val "$d" boot1 bootorder)
	[[ ,$bo, != *,$er,* ]] && pass "Boot$er not in BootOrder ($bo)" || fail "Boot$er in BootOrder $bo"
	expect_not "$d/boot1.log" 'EFIRESUME-TEST: hibernating' "no hibernation" || ok=1
	sig_is SWAPSPACE2 "no image"
	echo "boot 2 (BootNext: efiresume, nothing to resume, back to the firmware, BootOrder: Debian):"
	deb_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh"
	qemu_ok
	expect "$d/boot2.log" "${ER_RE}.*no fallback configured in .*returning to the firmware" "efiresume: no fallback configured, returning to the firmware" || ok=1
	l_er=$(line_of boot2 "BdsDxe: starting Boot$er \"Resume hibernated Linux\"")
	l_er_ret=$(line_of boot2 "${ER_RE}.*returning to the firmware")
	l_deb=$(line_of boot2 "BdsDxe: starting Boot$entry \"Debian\"")
	if [ "$l_er" -gt 0 ] && [ "$l_er_ret" -gt "$l_er" ] && [ "$l_deb" -gt "$l_er_ret" ]; then
		pass "the firmware started Boot$er (line $l_er), efiresume returned (line $l_er_ret), then Boot$entry \"Debian\" (line $l_deb)"
	else
		fail "order of Boot$er start ($l_er), efiresume's return ($l_er_ret), Boot$entry start ($l_deb) (0: missing)"
		grep -aE 'BdsDxe|efiresume' "$d/boot2.log.txt" | head -20 | sed 's/^/  | /'
	fi
	expect_not "$d/boot2.log" "${ER_RE}.*handing off|${ER_RE}starting " "efiresume neither resumed nor started a program" || ok=1
	expect "$d/boot2.log" 'EFIRESUME-TEST: fresh-boot' "Debian booted, the agent ran" || ok=1
	val_is boot2 bootcurrent "$entry" "BootCurrent: Boot$entry \"Debian\""
	val_is boot2 bootnext none "BootNext gone"
	;;
boot-menu)
	cat > "$d/boot1.sh" <<'EOF'
run dpkg -i $IN/efiresume.deb
run efiresume-install install --mode=always
er=$(er_entry)
say "er-entry=$er"
say "bootorder-after-install=$(efibootmgr | sed -n 's/^BootOrder: //p')"
# efiresume second: "Debian" (BootCurrent) first, the rest as it was
cur=$(efibootmgr | sed -n 's/^BootCurrent: //p')
rest=$(efibootmgr | sed -n 's/^BootOrder: //p' | tr ',' '\n' | grep -vxE "$er|$cur" | paste -sd,)
run efibootmgr -o "$cur,$er${rest:+,$rest}"
efi_show
counter_start
hibernate_wait 300
checks_resumed
efi_show
EOF
	echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
	echo "boot 1 (Debian; install --mode=always, efiresume second in BootOrder, systemctl hibernate):"
	deb_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh"
	qemu_ok
	val_is boot1 dpkg-status 0 "dpkg -i efiresume_*.deb"
	val_is boot1 efiresume-install-status 0 "efiresume-install install --mode=always"
	er=$(deb_val "$d" boot1 er-entry)
	[[ $er =~ ^[0-9A-F]{4}$ ]] && pass "boot entry Boot$er \"Resume hibernated Linux\"" || { fail "no efiresume boot entry"; er=NONE; }
	val_is boot1 efibootmgr-status 0 "efibootmgr -o"
	bo=$(deb_val "$d" boot1 bootorder)
	[ "${bo%%,*}" = "$entry" ] && [ "$(echo "$bo" | cut -d, -f2)" = "$er" ] &&
		pass "BootOrder $bo: Debian first, efiresume second" || fail "BootOrder '$bo'"
	expect "$d/boot1.log" 'EFIRESUME-TEST: hibernating' "systemctl hibernate called" || ok=1
	expect "$d/boot1.log" 'PM: hibernation: Wrote [0-9]+ kbytes' "the kernel wrote the image" || ok=1
	expect_not "$d/boot1.log" 'EFIRESUME-TEST: (hibernate-returned|agent: script exit)' "the script did not go on in this boot" || ok=1
	sig_is S1SUSPEND "image written"
	echo "boot 2 (-boot menu=on: Esc, Boot Manager, \"Resume hibernated Linux\"):"
	fw_boot_keys "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh" menu_keys -boot menu=on,splash-time=30000
	qemu_ok
	expect "$d/boot2.keys" '^selected$' "the test selected \"Resume hibernated Linux\" in OVMF's Boot Manager" || ok=1
	expect "$d/boot2.log" 'Boot Manager Menu' "OVMF's Boot Manager was shown" || ok=1
	expect_not "$d/boot2.log" "BdsDxe: (loading|starting) Boot$entry \"Debian\"" "the firmware did not start Debian (first in BootOrder)" || ok=1
	# a boot option chosen in the Boot Manager is started by UiApp itself (no BdsDxe line):
	# efiresume's first line comes after the menu showed its entry
	# (the first "Resume hibernated Linux" is the menu's; the guest's efibootmgr prints it later)
	o_menu=$(grep -abo 'Resume hibernated Linux' "$d/boot2.log.txt" | head -1 | cut -d: -f1 || true)
	o_er=$(grep -abo "${ER_RE}efiresume .* started" "$d/boot2.log.txt" | head -1 | cut -d: -f1 || true)
	if [ -n "$o_menu" ] && [ -n "$o_er" ] && [ "$o_er" -gt "$o_menu" ]; then
		pass "efiresume started after the Boot Manager showed \"Resume hibernated Linux\" (bytes $o_menu, $o_er)"
	else
		fail "efiresume's start (byte '$o_er') not after the menu's entry (byte '$o_menu')"
	fi
	expect "$d/boot2.log" "${ER_RE}.*PARTUUID=$DEB_SWAP_PARTUUID" "efiresume looked at the swap partition" || ok=1
	expect "$d/boot2.log" "${ER_RE}.*handing off to the image kernel" "efiresume handed off to the image kernel" || ok=1
	expect_not "$d/boot2.log" 'Run /init as init process|PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data|PM: Image loading' "no kernel booted in between (not initramfs-tools' resume)" || ok=1
	expect_not "$d/boot2.log" 'EFIRESUME-TEST: fresh-boot' "no fresh boot" || ok=1
	val_is boot2 hibernate-returned yes "systemctl hibernate's sleep ended in the resumed system"
	val_is boot2 token-after "$(deb_val "$d" boot1 token)" "same token in tmpfs"
	val_is boot2 boot-id-after "$(deb_val "$d" boot1 boot-id)" "same boot id"
	c0=$(deb_val "$d" boot1 counter-before) c1=$(deb_val "$d" boot2 counter-after) c2=$(deb_val "$d" boot2 counter-later)
	if [[ $c0 =~ ^[0-9]+$ ]] && [[ $c1 =~ ^[0-9]+$ ]] && [[ $c2 =~ ^[0-9]+$ ]] && [ "$c0" -gt 0 ] && [ "$c1" -ge "$c0" ] && [ "$c2" -gt "$c1" ]; then
		pass "the counter goes on ($c0 before, $c1 -> $c2 after)"
	else
		fail "counter $c0 before, $c1 -> $c2 after"
	fi
	val_is boot2 swap-reusable yes "swapoff + swapon"
	val_is boot2 bootcurrent "$er" "BootCurrent: the efiresume entry"
	expect_not "$d/boot2.log" 'Kernel panic|BUG:|Oops' "no kernel error" || ok=1
	sig_is SWAPSPACE2 "the image was consumed"
	;;
*)
	echo "unknown scenario $scen"; exit 2 ;;
esac

t_end=$(date +%s.%N)
echo "scenario $scen: $(fmt_secs "$t_start" "$t_end") s ($(paste -sd' ' "$d/times"))"
exit $ok
