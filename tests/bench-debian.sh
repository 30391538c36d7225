#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Resume time on the real Debian 12 system (tests/lib/debian.sh's fixture: systemd,
# initramfs-tools, Debian's 6.1 kernel started by the firmware's "Debian" entry):
# efiresume against the kernel's own initramfs-tools resume, same system, same memory.
#   Two hibernated templates, made once and cached (key: the fixture and the .deb):
#     efiresume: boot the fixture, dpkg -i the .deb, efiresume-install install (on-hibernate:
#                efiresume's sleep hook sets BootNext), a counter in tmpfs + a token,
#                systemctl hibernate. The firmware then starts efiresume through BootNext.
#     kernel:    the same without efiresume (plain systemctl hibernate): the firmware
#                starts "Debian" (EFI stub + initramfs-tools initrd), which resumes.
#   Then RUNS (default 3, or BENCH_RUNS) timed boots of each, on fresh copies of the
#   templates, alternating efiresume / kernel. Serial lines are timestamped by
#   tests/lib/tslog.py (seconds since QEMU was started). The marker "resumed" is the line
#   that the test sleep hook prints at systemd-sleep's "post": the first thing the resumed
#   system's user space does; every run also checks that the token in tmpfs is the one
#   from before the hibernation (the same system came back, not a fresh boot).
#   The .deb: the newest build/efiresume_*_amd64.deb (make deb), or EFIRESUME_DEB=FILE.
#   BENCH_DEBIAN=13: the same on the Debian 13 system (tests/lib/debian13.sh: systemd 257,
#   Debian's 6.12 kernel, built and cached by the first run that needs it).
#   BENCH_LAYOUT=crypt-lvm: the installer's encrypted-LVM layout instead (tests/lib/debian13-vol.sh:
#   swap_1 and root LVs in a VG inside LUKS2 with cryptsetup's defaults, crypttab,
#   cryptsetup-initramfs): the passphrase is typed on the serial console where it is asked
#   (efiresume at the firmware; the initramfs on the kernel path), as a user types it, and
#   the LUKS unlock's share is reported: from the prompt line's end (the typed Enter) to
#   "unlocked" on each path, and efiresume's own key-derivation time.
set -euo pipefail
REL=${BENCH_DEBIAN:-12}
LAYOUT=${BENCH_LAYOUT:-plain}
case $REL/$LAYOUT in
12/plain) . "$(dirname "$0")/lib/debian.sh" ;;
13/plain) . "$(dirname "$0")/lib/debian13.sh" ;;
1[23]/crypt-lvm) EFIRESUME_DEBIAN=$REL . "$(dirname "$0")/lib/debian13-vol.sh" ;;
*) echo "BENCH_DEBIAN=$REL BENCH_LAYOUT=$LAYOUT: 12 or 13, plain or crypt-lvm" >&2; exit 2 ;;
esac
RUNS=${RUNS:-${BENCH_RUNS:-3}}
TMO=${BENCH_DEBIAN_TIMEOUT:-600}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }
# first timestamp of a line matching ERE in a tslog'd log (.txt), empty if none
ts_of() { awk -v re="$2" '{ l = $0; sub(/^[0-9.]+ /, "", l) } l ~ re { print $1; exit }' "$1"; }
span() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "nan"; else printf "%.3f", b - a }'; }

deb=${EFIRESUME_DEB:-$(ls -t "$TOP"/build/efiresume_*_amd64.deb 2>/dev/null | head -1)}
[ -n "$deb" ] && [ -f "$deb" ] || { echo "no .deb: make deb (or EFIRESUME_DEB=FILE)" >&2; exit 1; }
if [ "$LAYOUT" = crypt-lvm ]; then
	d13v_fixture crypt-lvm
	BENCH_CPU=$D13V_QEMU_CPU
	UNLOCK_RE="Please unlock disk $D13V_CRYPT"
	PROMPT_RE="passphrase for luks-$D13V_LUKS_UUID on .*try [0-9] of 3"
	# the swap LV is encrypted: its signature is not read on the host
	deb_swap_sig() { echo S1SUSPEND; }
else
	deb_fixture
	BENCH_CPU=$DEB_QEMU_CPU
fi

# --- the two hibernated templates -------------------------------------------------------
# the guest commands of the boot that hibernates (and, in the resumed system, goes on)
tpl_script() {
	if [ "$1" = efiresume ]; then
		cat <<'EOF'
run dpkg -i $IN/efiresume.deb
run efiresume-install install
say "er-entry=$(er_entry)"
EOF
	fi
	cat <<'EOF'
efi_show
counter_start
hibernate_wait 300
say "bootcurrent-after=$(efibootmgr | sed -n 's/^BootCurrent: //p')"
checks_resumed
EOF
}

# the key: the fixture, the .deb, the guest's helpers and the commands above
tkey=$( { echo "${DEB_DIR##*/} $LAYOUT"; sha256sum < "$deb"; cat "$DEB_GUEST/lib.sh"; tpl_script efiresume; tpl_script kernel; } | sha256sum | cut -c1-12)
TPL=$CACHE/bench-debian/$tkey

make_template() {
	local kind=$1 t=$TPL/$1
	[ -f "$t/.done" ] && return 0
	rm -rf "$t"
	deb_new "$t"
	[ "$kind" = efiresume ] && cp "$deb" "$t/fwcfg/efiresume.deb"
	tpl_script "$kind" > "$t/hibernate.sh"
	if [ "$LAYOUT" = crypt-lvm ]; then
		D13V_ANSWERS=("$UNLOCK_RE"$'\t'"$D13V_PASS")
		d13v_boot "$t" hibernate "$TMO" "$t/hibernate.sh" d13v_type > "$t/boot.out" 2>&1 || true
	else
		deb_boot "$t" hibernate "$TMO" "$t/hibernate.sh" > "$t/boot.out" 2>&1 || true
	fi
	local bad=
	grep -q 'QEMU status 0 ' "$t/boot.out" || bad="QEMU: $(tail -1 "$t/boot.out")"
	grep -aqE 'PM: hibernation: Wrote [0-9]+ kbytes' "$t/hibernate.log.txt" || bad="$bad; no image written"
	[ "$(deb_swap_sig "$t")" = S1SUSPEND ] || bad="$bad; swap signature $(deb_swap_sig "$t")"
	[ -n "$(deb_val "$t" hibernate token)" ] || bad="$bad; no token"
	if [ "$kind" = efiresume ]; then
		[ "$(deb_val "$t" hibernate efiresume-install-status)" = 0 ] || bad="$bad; efiresume-install failed"
		[[ $(deb_val "$t" hibernate er-entry) =~ ^[0-9A-F]{4}$ ]] || bad="$bad; no efiresume entry"
	fi
	[ -z "$bad" ] || { echo "template $kind: $bad (see $t/hibernate.log.txt)" >&2; return 1; }
	rm -rf "$t/fwcfg/efiresume.deb"
	touch "$t/.done"
}

mkdir -p "$TPL"
if [ -f "$TPL/efiresume/.done" ] && [ -f "$TPL/kernel/.done" ]; then
	say "bench-debian: templates cached ($TPL)"
else
	say "bench-debian: hibernating the two templates (in parallel; a few minutes)"
	make_template efiresume & p1=$!
	make_template kernel & p2=$!
	rc=0; wait $p1 || rc=1; wait $p2 || rc=1
	[ $rc = 0 ] || exit 1
fi

# --- timed boots -----------------------------------------------------------------------
# timed_boot KIND DIR: one boot of a copy of template KIND in DIR, serial timestamped to
# DIR/serial.log (.txt); appends "<qemu->resumed> <firmware start->resumed>
# <first line->resumed>" to DIR/../KIND.times, phases to DIR/../KIND.phases
timed_boot() {
	local kind=$1 r=$2 t=$TPL/$1 log=$2/serial.log txt
	mkdir -p "$r/fwcfg"
	cp --sparse=always "$t/disk.raw" "$r/disk.raw"
	cp "$t/vars.fd" "$r/vars.fd"
	# a fresh boot (no resume) would run the agent: say so, and end at once
	printf '#!/bin/bash\nprintf "EFIRESUME-TEST: fresh-boot\\n"\n' > "$r/fwcfg/script"
	local qargs=(-machine q35 -accel tcg -cpu "$BENCH_CPU" -m "$DEB_MEM" -smp 1
		-drive if=pflash,format=raw,unit=0,readonly=on,file="$(ovmf_code x64)"
		-drive if=pflash,format=raw,unit=1,file="$r/vars.fd"
		-drive file="$r/disk.raw",format=raw,if=virtio,cache=unsafe
		-nic none -display none -monitor none -no-reboot
		-fw_cfg "name=opt/efiresume/script,file=$r/fwcfg/script")
	if [ "$LAYOUT" = crypt-lvm ]; then
		# the console on a pipe pair: the passphrase typed where it is asked (d13v_type)
		local catpid tpid
		rm -f "$log.ser.in" "$log.ser.out"
		mkfifo "$log.ser.in" "$log.ser.out"
		: > "$log"
		# the typist reads the raw stream: a prompt is a line without its end until Enter
		tee "$log.raw" < "$log.ser.out" | "$TOP/tests/lib/tslog.py" "$log" &
		catpid=$!
		exec 7<>"$log.ser.in"
		D13V_ANSWERS=("$PROMPT_RE"$'\t'"$D13V_PASS" "$UNLOCK_RE"$'\t'"$D13V_PASS")
		d13v_type "$log.raw" >&7 &
		tpid=$!
		timeout --foreground -k 5 "$TMO" qemu-system-x86_64 "${qargs[@]}" \
			-chardev pipe,id=ser0,path="$log.ser" -serial chardev:ser0 </dev/null || echo "QEMU-STATUS $?" >> "$r/qemu.status"
		wait $catpid || true
		kill $tpid 2>/dev/null || true
		wait $tpid 2>/dev/null || true
		exec 7>&-
		rm -f "$log.ser.in" "$log.ser.out"
	else
		{ timeout --foreground -k 5 "$TMO" qemu-system-x86_64 "${qargs[@]}" -serial stdio </dev/null ||
			echo "QEMU-STATUS $?"; } | "$TOP/tests/lib/tslog.py" "$log"
	fi
	clean_log "$log" > "$log.txt"
	txt=$log.txt
	local q fw first mark bad=
	fw=$(ts_of "$txt" 'BdsDxe: starting Boot')
	mark=$(ts_of "$txt" 'EFIRESUME-TEST: sleep-hook post hibernate')
	if [ "$kind" = efiresume ]; then
		first=$(ts_of "$txt" '^efiresume: efiresume .* started')
		grep -aq 'BdsDxe: starting Boot[0-9A-F]* "Resume hibernated Linux"' "$txt" || bad="the firmware did not start efiresume"
		grep -aq '^[0-9.]* efiresume: .*handing off' "$txt" || bad="$bad; efiresume did not hand off"
		! grep -aq 'Run /init as init process' "$txt" || bad="$bad; a kernel booted"
	else
		# the kernel's EFI stub's first line, else the kernel's first printk
		first=$(ts_of "$txt" '^EFI stub: ')
		[ -n "$first" ] || first=$(ts_of "$txt" 'Linux version ')
		grep -aq 'BdsDxe: starting Boot[0-9A-F]* "Debian"' "$txt" || bad="the firmware did not start Debian"
		grep -aqE 'PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data' "$txt" || bad="$bad; the kernel did not load an image"
		! grep -aq '^[0-9.]* efiresume: ' "$txt" || bad="$bad; efiresume ran"
	fi
	! grep -aq 'EFIRESUME-TEST: fresh-boot' "$txt" || bad="$bad; a fresh boot, no resume"
	[ "$(deb_val "$r" serial token-after)" = "$(deb_val "$t" hibernate token)" ] || bad="$bad; token '$(deb_val "$r" serial token-after)' is not the template's"
	[ -n "$mark" ] || bad="$bad; no marker"
	if [ -n "$bad" ]; then
		echo "  $kind run ${r##*/}: WRONG: ${bad#; } (see $txt)" >&2
		rm -f "$r/disk.raw"
		return 1
	fi
	echo "$mark $(span "$fw" "$mark") $(span "$first" "$mark")" >> "${r%/*}/$kind.times"
	if [ "$kind" = efiresume ]; then
		{ grep -a 'efiresume: timing:' "$txt" | sed 's/^[0-9.]* //' | tr '\n' ' '
		  awk '/efiresume: .*handing off/ { h = $1 } /EFIRESUME-TEST: sleep-hook post hibernate/ { printf " handoff %d ms", ($1 - h) * 1000; exit }' "$txt"
		  if [ "$LAYOUT" = crypt-lvm ]; then
			printf ' unlock-span %s s' "$(span "$(ts_of "$txt" "$PROMPT_RE")" "$(ts_of "$txt" 'efiresume: luks-.*: unlocked \\(')")"
			sed -nE 's/.*efiresume: luks-.*: unlocked \(keyslot [0-9]+, [^,]*, ([0-9]+) ms on.*/ kdf \1 ms/p' "$txt" | head -1 | tr -d '\n'
		  fi
		  echo; } >> "${r%/*}/$kind.phases"
	else
		# what initramfs-tools + the kernel report: "PM: ... Read N kbytes in S seconds"
		{ sed -nE 's/.*PM: (hibernation: )?Read ([0-9]+) kbytes in ([0-9.]+) seconds.*/read \3 s \2 kB/p' "$txt" | head -1 | tr '\n' ' '
		  s=$(ts_of "$txt" 'Linux version '); l=$(ts_of "$txt" 'PM: (hibernation: )?(Loading|Reading) (and decompressing )?image data')
		  printf 'kernel-to-load %s s' "$(span "$s" "$l")"
		  if [ "$LAYOUT" = crypt-lvm ]; then
			printf ' unlock-span %s s' "$(span "$(ts_of "$txt" "$UNLOCK_RE")" "$(ts_of "$txt" "cryptsetup: $D13V_CRYPT: set up successfully")")"
		  fi
		  echo; } >> "${r%/*}/$kind.phases"
	fi
	echo "  $kind run ${r##*/}: $(tail -1 "${r%/*}/$kind.times")"
	rm -f "$r/disk.raw"
}

d=$(scratch "bench-debian$([ "$REL" = 12 ] || echo "$REL")$([ "$LAYOUT" = plain ] || echo "-$LAYOUT")")
: > "$d/efiresume.times"; : > "$d/kernel.times"; : > "$d/efiresume.phases"; : > "$d/kernel.phases"
echo "== Debian $REL, $LAYOUT layout ($(fixture_fact "$DEB_DIR" kernel), ${DEB_MEM} MiB, TCG, 1 vCPU): resume time, $RUNS runs each"
wrote() { sed -nE 's/.*PM: hibernation: Wrote ([0-9]+ kbytes).*/\1/p' "$TPL/$1/hibernate.log.txt" | head -1; }
echo "   efiresume: $(basename "$deb"); images: $(wrote efiresume) (efiresume template), $(wrote kernel) (kernel template), LZO"
echo "   load on this host before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores; other QEMUs make the spans longer and noisier)"
fails=0
for i in $(seq "$RUNS"); do
	timed_boot efiresume "$d/e$i" || fails=$((fails + 1))
	timed_boot kernel "$d/k$i" || fails=$((fails + 1))
done

echo "   load on this host after: $(cut -d' ' -f1-3 /proc/loadavg)"
col() { cut -d' ' -f"$2" "$d/$1.times" | grep -v nan | median; }
ea=$(col efiresume 1); eb=$(col efiresume 2); ec=$(col efiresume 3)
ka=$(col kernel 1); kb=$(col kernel 2); kc=$(col kernel 3)
echo "   spans (seconds; 'resumed' = the resumed system's systemd-sleep post hook, token checked):"
echo "     A  QEMU start -> resumed"
echo "     B  the firmware starts the boot program (OVMF 'BdsDxe: starting Boot####': efiresume's"
echo "        entry via BootNext, or \"Debian\") -> resumed"
echo "     C  the boot program's first line (efiresume's 'started'; the EFI stub's first line or,"
echo "        without one, the kernel's 'Linux version') -> resumed"
printf '    %-44s %9s %8s %8s\n' "median seconds ($(wc -l < "$d/efiresume.times")+$(wc -l < "$d/kernel.times") good runs)" efiresume kernel ratio
printf '    %-44s %9.2f %8.2f %8s\n' "A  QEMU start -> resumed" "$ea" "$ka" "$(ratio "$ea" "$ka")"
printf '    %-44s %9.2f %8.2f %8s\n' "B  firmware starts boot program -> resumed" "$eb" "$kb" "$(ratio "$eb" "$kb")"
printf '    %-44s %9.2f %8.2f %8s\n' "C  boot program's first line -> resumed" "$ec" "$kc" "$(ratio "$ec" "$kc")"
echo "    efiresume phases (its 'timing:' lines, median ms):"
for ph in verify read decompress plan place prepare total handoff; do
	v=$(sed -nE "s/.* $ph[+a-z0-9]* ([0-9]+) ms.*/\1/p" "$d/efiresume.phases" | median)
	case $ph in
	decompress) label="decompress+crc32" ;;
	total) label="total (efiresume's own)" ;;
	handoff) label="hand-off -> resumed (EBS, restore, kernel, post hook)" ;;
	*) label=$ph ;;
	esac
	printf '      %-56s %6s ms\n' "$label" "$v"
done
echo "    kernel path (median): the kernel's own 'Read ... in S seconds' $(sed -nE 's/^read ([0-9.]+) s.*/\1/p' "$d/kernel.phases" | median) s;" \
	"'Linux version' -> image loading starts $(sed -nE 's/.*kernel-to-load ([0-9.]+) s.*/\1/p' "$d/kernel.phases" | median) s"
if [ "$LAYOUT" = crypt-lvm ]; then
	eu=$(sed -nE 's/.* unlock-span ([0-9.]+) s.*/\1/p' "$d/efiresume.phases" | median)
	ku=$(sed -nE 's/.* unlock-span ([0-9.]+) s.*/\1/p' "$d/kernel.phases" | median)
	ek=$(sed -nE 's/.* kdf ([0-9]+) ms.*/\1/p' "$d/efiresume.phases" | median)
	echo "    LUKS unlock (median; from the prompt line's end, the Enter typed, to efiresume's 'unlocked' /"
	echo "    cryptsetup's 'set up successfully'):"
	printf '      %-44s %9s %8s\n' "" efiresume kernel
	printf '      %-44s %9s %8s\n' "prompt -> unlocked (s)" "$eu" "$ku"
	printf '      %-44s %9s %8s\n' "share of B (firmware starts -> resumed)" \
		"$(awk -v u="$eu" -v b="$eb" 'BEGIN { printf "%.0f%%", 100 * u / b }')" "$(awk -v u="$ku" -v b="$kb" 'BEGIN { printf "%.0f%%", 100 * u / b }')"
	echo "      efiresume's key derivation alone (its 'unlocked (... N ms)'): $ek ms"
fi
echo "    raw: $d/{efiresume,kernel}.{times,phases}, serial logs $d/[ek]N/serial.log.txt"
[ "$fails" = 0 ] || { echo "    $fails run(s) WRONG (left out of the medians)"; exit 1; }
