#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Controls for the Secure Boot checks of tests/host/test-install.sh: each control takes one
# behaviour out of a copy of tools/efiresume-install and its libraries
# (tools/efiresume-install.d/*.sh; a sed edit), runs the Secure Boot part
# of test-install.sh against that copy (EFIRESUME_TEST_TOOL, EFIRESUME_TEST_ONLY=secure-boot),
# and passes when the check meant to catch it FAILs. A control whose edit does not apply
# fails too. Needs what test-install.sh needs (root, make all). About a minute per control.
#   tests/host/install-controls.sh [NAME...]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d /tmp/efiresume-install-controls.XXXXXX)
trap 'rm -rf "$W"' EXIT
passes=0 fails=0
# ctl NAME SED-EXPRESSION FAIL-LINE-EXPECTED (its start)
names=() exprs=() wants=()
ctl() { names+=("$1"); exprs+=("$2"); wants+=("$3"); }
ctl key-recorded 's/if \[ -n "\$SB_KEEP" \] \&\& \[ -n "\$SB_KEY" \]; then/if [ -n "$SB_KEY" ]; then/' \
	'FAIL: shim: state: mode and certificate, no key recorded'
ctl key-copied 's/^\t\[ -n "\$SB_SIGNED" \] || return 0$/\t[ -n "$SB_SIGNED" ] || return 0; cp "$SB_KEY" "$STATE_DIR\/key.copy" 2>\/dev\/null/' \
	'FAIL: shim: no copy of the key on the ESP or in the state directory'
ctl engine-dropped 's/sbsign \${SB_ENGINE:+--engine "\$SB_ENGINE"} --key/sbsign --key/' \
	'FAIL: pkcs11: sbsign got --engine pkcs11'
ctl encrypted-refused 's/SB_KEY_ASKS="sbsign asks for its passphrase"/die "encrypted"/' \
	'FAIL: encrypted key: install status'
ctl mode-not-implied 's/if \[ -n "\$SB_MODE" \] \&\& \[ "\$mode" != always \]; then/if false; then/' \
	'FAIL: shim: --secure-boot implies --mode=always (state)'
ctl update-no-switch 's/\[ -n "\$SB_MODE" \] \&\& \[ "\$mode" != always \] \&\& mode=always switched=1/false/' \
	'FAIL: old on-hibernate + db: update switches the state to always'
ctl stale-overwritten 's/^\t\tversion=\$(state_get version) sha=\$(state_get sha256)$/\t\tcopy_binary "$bin" "$SB_BIN"; version=$(state_get version) sha=$(state_get sha256)/' \
	'FAIL: shim update, no key: nothing changed'
ctl on-hibernate-allowed 's/if \[ "\$OPT_MODE" = on-hibernate \] \&\& \[ -n "\$(sb_mode_wanted)" \]; then/if false; then/' \
	'FAIL: Secure Boot refused: --secure-boot=shim with --mode=on-hibernate'
ctl hook-sets-bootnext 's/if \[ "\$mode" = on-hibernate \] \&\& \[ -z "\$sbm" \] \&\& \[ "\$(secure_boot_byte)" = 1 \]; then/if false; then/' \
	'FAIL: unsigned, Secure Boot on: the hook set BootNext'
for i in "${!names[@]}"; do
	name=${names[$i]} expr=${exprs[$i]} want=${wants[$i]}
	[ $# -eq 0 ] || printf ' %s ' "$@" | grep -qF " $name " || continue
	# a copy of the installer (the dispatcher and its libraries), the edit applied to every file
	mkdir -p "$W/$name"
	cp -r "$TOP/tools/efiresume-install" "$TOP/tools/efiresume-install.d" "$W/$name/"
	tool=$W/$name/efiresume-install
	for f in "$tool" "$W/$name/efiresume-install.d"/*.sh; do sed -i "$expr" "$f"; done
	if diff -r -q "$W/$name/efiresume-install.d" "$TOP/tools/efiresume-install.d" >/dev/null && cmp -s "$tool" "$TOP/tools/efiresume-install"; then
		echo "FAIL: control $name: the edit does not apply to tools/efiresume-install{,.d/*.sh}"; fails=$((fails + 1)); continue
	fi
	EFIRESUME_TEST_TOOL=$tool EFIRESUME_TEST_ONLY=secure-boot bash "$TOP/tests/host/test-install.sh" >"$W/$name.log" 2>&1
	if grep -qF -- "$want" "$W/$name.log"; then
		echo "ok: control $name: $(grep -F -- "$want" "$W/$name.log" | head -n 1 | cut -c1-160) ($(tail -n 1 "$W/$name.log"))"
		passes=$((passes + 1))
	else
		echo "FAIL: control $name: no '$want' ($(tail -n 1 "$W/$name.log"))"; fails=$((fails + 1))
	fi
done
echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
