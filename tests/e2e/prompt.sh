#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The prompt shown when an image is found and `timeout` > 0.
#   prompt.sh CASE    CASE: wait (no key: resumes when the time is up)
#                           esc  (boot normally, the image is kept untouched)
#                           discard ('d': the swap signature is restored, normal boot)
#                           esc-loading (timeout 0, no prompt: Esc typed as loading starts stops
#                                 it before the point of no return; image kept, normal boot)
set -euo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
case=$1
name=x64-6.1-lzo
make_fixture $name x64 linux-image-cloud-amd64
fx=$(fixture_dir $name)
d=$(scratch "prompt-$case")
copy_fixture $name "$d"
esp_put "$d/disk.img" "$BUILD/efiresume-x64.efi" ::/EFI/BOOT/BOOTX64.EFI
if [ "$case" = wait ]; then
	sed 's/^timeout 0$/timeout 2/' "$fx/efiresume.conf" > "$d/efiresume.conf"
elif [ "$case" = esc-loading ]; then
	sed -e 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
else
	# long enough that only the key decides
	sed -e 's/^timeout 0$/timeout 120/' -e 's/^options \(.*\)$/options \1 efiresume_probe/' "$fx/efiresume.conf" > "$d/efiresume.conf"
fi
esp_put "$d/disk.img" "$d/efiresume.conf" ::/EFI/BOOT/efiresume.conf
swap_page0 "$d/disk.img" "$d/page0.before"

# the serial console on a pipe: keys typed when the prompt shows
typist=
if [ "$case" = esc-loading ]; then
	# typed as soon as efiresume names the image: the loader reads keys while it loads.
	# Esc plus a space: OVMF's terminal driver takes a lone Esc only after 2 s (it could
	# start an escape sequence), Esc followed by another key at once.
	type_keys() {
		for _ in $(seq 600); do
			grep -aq 'efiresume: found a hibernated' "$1" && break
			sleep 0.05
		done
		printf '\033 '
	}
	typist=type_keys
elif [ "$case" != wait ]; then
	type_keys() {
		for _ in $(seq 600); do
			grep -aq 'resuming in 120 s' "$1" && break
			sleep 0.2
		done
		sleep 1
		if [ "$case" = esc ]; then printf '\033'; else printf 'd'; fi
	}
	typist=type_keys
fi
rc=0
serial_boot x64 "$d/disk.img" "$d/vars.fd" "$d/boot.log" 240 "$typist" || rc=$?
ok=0
[ $rc -eq 0 ] || fail "qemu status $rc"
log=$d/boot.log
case $case in
wait)
	expect "$log" 'efiresume: PARTUUID=.*: resuming in 2 s\. Enter: resume now, Esc: boot normally' "prompt shown" || ok=1
	expect "$log" "^EFIRESUME-TEST: md5-after=$(fixture_fact "$fx" md5)" "resumed when the time was up" || ok=1
	;;
esc)
	expect "$log" 'booting normally at the user.s request; the image is kept' "Esc: boot normally" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe' "normal boot program started" || ok=1
	swap_page0 "$d/disk.img" "$d/page0.after"
	cmp -s "$d/page0.before" "$d/page0.after" && pass "page 0 untouched" || fail "changed: page 0"
	;;
esc-loading)
	expect "$log" 'efiresume: found a hibernated Linux .* \(x86_64\) on PARTUUID=[0-9a-f-]+: [0-9]+ MiB in [0-9]+ pages' "first line: what will be resumed" || ok=1
	expect "$log" 'loading stopped at the user.s request \(Esc\); nothing was written, the image is kept' "Esc while loading: stopped" || ok=1
	expect_not "$log" 'handing off|swap signature (restored|reset)' "no commit" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe' "normal boot program started" || ok=1
	swap_page0 "$d/disk.img" "$d/page0.after"
	cmp -s "$d/page0.before" "$d/page0.after" && pass "page 0 untouched" || fail "changed: page 0"
	;;
discard)
	expect "$log" 'image discarded: swap signature restored' "D: discarded" || ok=1
	expect "$log" '^EFIRESUME-TEST: probe' "normal boot program started" || ok=1
	sig=$(swap_sig "$d/disk.img")
	[ "$sig" = SWAPSPACE2 ] && pass "signature now $sig" || fail "signature $sig"
	;;
esac
exit $ok
