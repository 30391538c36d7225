#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A real TPM stack end to end (issue 25 §5): swtpm (tests/lib/swtpm.sh) as the machine's TPM 2.0
# on QEMU's TIS interface (qemu.sh tpm=), OVMF's TCG2 measurements, the real Debian 13 system
# on the installer's encrypted LVM layout (tests/lib/debian13-vol.sh crypt-lvm: the VG with the
# swap LV inside LUKS2 on partition 2), systemd 257's systemd-cryptenroll in the guest.
# The TPM's state (a directory of the run) persists from the hibernating boot to the resuming
# one, as a real machine's TPM does; each boot is a new swtpm process (PCRs reset, the
# firmware measures again).
#   tpm.sh SCENARIO
#     measures     no Debian system: Debian 12's cloud kernel and a busybox initramfs started by
#                  OVMF (TPM_OVMF_CODE=FILE: another firmware code file, TPM_OVMF_VARS=FILE its
#                  variables; default the plain 4M build) with swtpm; the kernel has the
#                  firmware's TCG2 event log (binary_bios_measurements), PCR 7 holds the
#                  SecureBoot, PK, KEK, db, dbx measurements and a separator (tpm2_eventlog on
#                  the host; docs/tpm.md has the results for every Debian OVMF build);
#                  trixie:FILE: FILE of Debian 13's ovmf package (apt-get download, cached)
#     pcr7         boot 1: the initramfs asks for the passphrase (typed), systemd-cryptenroll
#                  --tpm2-device=auto --tpm2-pcrs=7 on the container (the passphrase by
#                  --unlock-key-file); the token is in the header (luksDump, token export: type
#                  systemd-tpm2, PCR 7) and cryptsetup --token-only unlocks with it in this boot
#                  (the enrolment is real); install --mode=always, systemctl hibernate with the
#                  workload. boot 2: efiresume unseals with the TPM, no passphrase asked
#                  ("luks-<uuid>: unlocked with the TPM (systemd-tpm2 token 0)"), resumes; the
#                  resumed system: same token, counter, file; boot 3: a normal boot, the
#                  initramfs asks as usual (Debian 13's cryptsetup-initramfs has no token
#                  support) and cryptsetup --token-only unlocks with the TPM again (PCR 7 as
#                  sealed on a fresh boot)
#     pcr7-pin     the same with --tpm2-with-pin=yes (NEWPIN): boot 2: efiresume asks for the
#                  PIN, a wrong one first (refused by the TPM's policy), then the right one
#     pcr-changed  control: pcr7, and between the hibernation and the resume a certificate
#                  added to db in the machine's variable store (as keys changed in the firmware's
#                  setup): PCR 7 differs, the TPM refuses to unseal, efiresume asks for the
#                  passphrase (typed) and resumes; the resumed system's PCR 7 differs from
#                  boot 1's and --token-only fails there too
#     other-tpm    control: pcr7, the resume on a fresh swtpm (another TPM: another storage
#                  seed, no SRK at 0x81000001): the token refused, the passphrase asked, typed,
#                  resumed; --token-only fails in the resumed system
#   Until efiresume unseals (the TPM unlock of loader/unlock.c and efi/tcg2.c), pcr7 and
#   pcr7-pin fail at the efiresume lines of boot 2 (it asks for the passphrase: typed, so the
#   system still resumes and the rest is checked); the controls pass either way.
#   TPM_KEEP_PROMPT=1: boot 2 of pcr7/pcr7-pin expects the passphrase prompt (no TPM unlock:
#   the guest half only, for a tree without the unlock)
#   The .deb: the newest build/efiresume_*_amd64.deb (make deb), or EFIRESUME_DEB=FILE.
set -euo pipefail
[ $# -eq 1 ] || { awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 2; }
tscen=$1
# the helpers of tests/e2e/debian13.sh (sourced: no scenario of its own runs) and its libraries
. "$(dirname "$0")/debian13.sh"
. "$TOP/tests/lib/swtpm.sh"
ok=0

# trixie_pkg PKG: Debian 13's PKG (apt-get download with a trixie sources file made from the
# host's apt configuration, tests/lib/debian13.sh's deb13_sources), unpacked under the cache;
# prints the directory
trixie_pkg() {
	local a=$CACHE/apt-trixie dest v
	local -a o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$a/sources.list.d"
		-o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a" -o Dir::State::status=/dev/null)
	(
		flock 9
		mkdir -p "$a/lists/partial" "$a/sources.list.d" "$a/debs"
		deb13_sources "$a/sources.list.d/debian.sources" || exit 1
		compgen -G "$a/lists/*_Packages*" >/dev/null || apt-get "${o[@]}" update -q >&2 || exit 1
		v=$(apt-cache "${o[@]}" show --no-all-versions "$1" | sed -n 's/^Version: //p' | head -1)
		[ -n "$v" ] || { echo "trixie_pkg: no $1 in trixie" >&2; exit 1; }
		dest=$a/pkg/$1_$v
		if [ ! -f "$dest/.done" ]; then
			( cd "$a/debs" && apt-get "${o[@]}" download -q "$1=$v" >&2 ) || exit 1
			rm -rf "$dest"; mkdir -p "$dest"
			dpkg -x "$(ls -t "$a/debs/$1"_*.deb | head -1)" "$dest" && touch "$dest/.done"
		fi
		echo "$dest"
	) 9> "$CACHE/.fetch.lock"
}

# ---- measures: does this OVMF build measure (TCG2 event log in the guest)?
if [ "$tscen" = measures ]; then
	code=${TPM_OVMF_CODE:-$(ovmf_code x64 plain)} vars=${TPM_OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
	# trixie:FILE: a file of Debian 13's ovmf package (downloaded by apt-get from the archive
	# of the host's apt configuration, unpacked in the cache)
	if [[ $code == trixie:* || $vars == trixie:* ]]; then
		o13=$(trixie_pkg ovmf) || exit 1
		[[ $code != trixie:* ]] || code=$o13/usr/share/OVMF/${code#trixie:}
		[[ $vars != trixie:* ]] || vars=$o13/usr/share/OVMF/${vars#trixie:}
	fi
	fw=plain
	[[ $code == *.secboot* || $code == *.ms.* || $code == *.snakeoil* ]] && fw=secboot
	d=$(scratch "tpm-measures-$(basename "$code" .fd)")
	k=$(kernel_dir linux-image-cloud-amd64)
	cat > "$d/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo "TPM-PROBE: tpm=$(ls /sys/class/tpm 2>/dev/null | paste -sd,) version=$(cat /sys/class/tpm/tpm0/tpm_version_major 2>/dev/null)"
f=/sys/kernel/security/tpm0/binary_bios_measurements
if [ -e $f ]; then
	echo "TPM-PROBE: eventlog-bytes=$(cat $f | wc -c)"
	echo "TPM-PROBE-B64-BEGIN"; busybox base64 $f; echo "TPM-PROBE-B64-END"
else
	echo "TPM-PROBE: eventlog=none"
fi
poweroff -f
EOF
	make_initramfs x64 "$k" "$d/init" "$d/initrd.gz"
	cp "$vars" "$d/vars.fd"
	echo "firmware $code (fw=$fw), variables $vars; kernel $(basename "$(kernel_image "$k")")"
	rc=0
	swtpm_boot "$d/tpm" qemu_run "$d/boot.log" 300 code="$code" fw="$fw" vars="$d/vars.fd" -- \
		-kernel "$(kernel_image "$k")" -initrd "$d/initrd.gz" -append "console=ttyS0 panic=-1 quiet" || rc=$?
	check_status "the boot" "$rc"
	expect "$d/boot.log" 'TPM-PROBE: tpm=tpm0 version=2' "the kernel found a TPM 2.0 (tpm0)" || ok=1
	expect "$d/boot.log" 'TPM-PROBE: eventlog-bytes=[1-9]' "the firmware's event log reached the kernel (binary_bios_measurements)" || ok=1
	clean_log "$d/boot.log" | sed -n '/TPM-PROBE-B64-BEGIN/,/TPM-PROBE-B64-END/p' | grep -v TPM-PROBE |
		base64 -d > "$d/eventlog.bin" 2>/dev/null || true
	if tpm2_eventlog "$d/eventlog.bin" > "$d/eventlog.yaml" 2>&1; then
		pass "tpm2_eventlog parsed it ($(stat -c %s "$d/eventlog.bin") bytes)"
	else
		fail "tpm2_eventlog: $(tail -1 "$d/eventlog.yaml")"
	fi
	# the events per PCR, and PCR 7's variables
	echo "  events (count PCR type):"
	grep -E '^ *(PCRIndex|EventType):' "$d/eventlog.yaml" | paste - - | awk '{ print $2, $4 }' | sort -n | uniq -c | sed 's/^/  | /'
	p7=$(awk '/PCRIndex: 7$/ { p = 1 } /PCRIndex: [0-9]+$/ && !/PCRIndex: 7$/ { p = 0 } p && /UnicodeName:/ { print $2 }' "$d/eventlog.yaml" | paste -sd' ')
	sbv=$(grep -A3 'UnicodeName: SecureBoot' "$d/eventlog.yaml" | sed -n 's/.*VariableData: "\(.*\)"/\1/p' | head -1)
	check_eq "PCR 7 measured the Secure Boot variables" "$p7" "SecureBoot PK KEK db dbx"
	echo "  SecureBoot as measured: ${sbv:-none (no data: the variable is not set)}; banks: $(sed -n 's/^  \(sha[0-9]*\):$/\1/p' "$d/eventlog.yaml" | sort -u | paste -sd' ')"
	echo "  PCR 7 (sha256): $(awk '/^  sha256:/ { s = 1; next } /^  sha/ { s = 0 } s && $1 == 7 { print $3 }' "$d/eventlog.yaml")"
	exit $ok
fi

case $tscen in
pcr7|pcr7-pin|pcr-changed|other-tpm) ;;
*) echo "unknown scenario $tscen"; exit 2 ;;
esac
command -v swtpm >/dev/null || { echo "swtpm missing (make deps)"; exit 1; }
d=$(scratch "tpm-$tscen")
d13v_fixture crypt-lvm
deb_new "$d"
entry=$(fixture_fact "$d" debian_entry)
echo "fixture: $DEB_DIR (kernel $(fixture_fact "$d" kernel), Debian entry Boot$entry)"
t_start=$(date +%s.%N)
deb=$(deb_file) || exit 1
echo "package: $deb"
cp "$deb" "$d/fwcfg/efiresume.deb"
printf %s "$D13V_PASS" > "$d/fwcfg/pass"
pin='4711 efiresume'
wrongpin='4712 efiresume'
[ "$tscen" = pcr7-pin ] && printf %s "$pin" > "$d/fwcfg/pin"
tpm=$d/tpm
# a random source for the firmware (EFI_RNG_PROTOCOL): efiresume salts its TPM session from
# it and refuses the TPM without one (TPM2_GetRandom crosses the bus in clear). Every boot has
# it, the hibernating one too (the same machine); at a fixed PCI address after the disk's, so
# the disk stays where the installer boot's Boot#### entries say it is.
rngdev=(-device virtio-rng-pci,addr=0x10)
uuid=$D13V_LUKS_UUID
VGM=$D13V_VGM
unlock_re="Please unlock disk $D13V_CRYPT"
prompt_re="passphrase for luks-$uuid on .*try [0-9] of 3"
# efiresume's lines of the TPM unlock (loader/unlock.c)
tpm_ok_re="${ER_RE}luks-$uuid: unlocked with the TPM \\(systemd-tpm2 token [0-9]+\\)"
# the PIN prompt (TPM_PIN_RE: another wording); the refusal of a wrong PIN
pin_re=${TPM_PIN_RE:-"${ER_RE}.*PIN for luks-$uuid"}
wrongpin_re="${ER_RE}luks-$uuid: systemd-tpm2 token [0-9]+: wrong PIN \\(try 1 of 3"
# the swap LV is encrypted: the host cannot read its signature (debian13.sh crypt-lvm)
sig_is() { echo "  note: swap signature not read by the host (encrypted): $2"; }

# guest helpers of this file: the TPM's facts, the token's unlock by cryptsetup (the plugin
# libcryptsetup-token-systemd-tpm2.so of systemd-cryptsetup; the PIN on stdin)
tpm_lib() {
	cat <<'EOF'
tpm_facts() {
	say "tpm-$1=$(cat /sys/class/tpm/tpm0/tpm_version_major 2>/dev/null || echo none)"
	say "pcr7-$1=$(cat /sys/class/tpm/tpm0/pcr-sha256/7 2>/dev/null || echo none)"
}
token_test() {
	local rc=0
	if [ -e $IN/pin ]; then
		cat $IN/pin | cryptsetup open --test-passphrase --token-only --token-type systemd-tpm2 /dev/vda2 > $T/tt.log 2>&1 || rc=$?
	else
		cryptsetup open --test-passphrase --token-only --token-type systemd-tpm2 /dev/vda2 < /dev/null > $T/tt.log 2>&1 || rc=$?
	fi
	sed "s/^/EFIRESUME-TEST: token-test-$1: /" $T/tt.log
	say "token-unlock-$1=$rc"
}
EOF
}

{ guest_lib; tpm_lib; echo "VGM=$VGM"; cat <<'EOF'
sys_facts
tpm_facts boot1
say "cryptenroll=$(command -v systemd-cryptenroll || echo none)"
say "token-plugin=$(ls /usr/lib/x86_64-linux-gnu/cryptsetup/libcryptsetup-token-systemd-tpm2.so 2>/dev/null || echo none)"
# the enrolment, as a user does it: PCR 7, the passphrase from a file (PIN: NEWPIN)
rc=0
if [ -e $IN/pin ]; then
	NEWPIN=$(cat $IN/pin) systemd-cryptenroll --unlock-key-file=$IN/pass --tpm2-device=auto --tpm2-pcrs=7 --tpm2-with-pin=yes /dev/vda2 > $T/enrol.log 2>&1 || rc=$?
else
	systemd-cryptenroll --unlock-key-file=$IN/pass --tpm2-device=auto --tpm2-pcrs=7 /dev/vda2 > $T/enrol.log 2>&1 || rc=$?
fi
sed 's/^/EFIRESUME-TEST: enrol: /' $T/enrol.log
say "enrol-status=$rc"
cryptsetup luksDump /dev/vda2 | sed -n '/^Keyslots:/,/^Digests:/p' | tr -s ' \t' ' ' | sed 's/^/EFIRESUME-TEST: luksdump: /'
say "token0=$(cryptsetup token export --token-id 0 /dev/vda2 | tr -d ' \n')"
token_test boot1
install_pkg --mode=always
swap_sig() { say "swap-sig-resumed=$(dd if=/dev/mapper/$VGM-swap_1 bs=1 skip=4086 count=10 2>/dev/null | tr -d '\0')"; }
after() { swap_sig; tpm_facts resumed; token_test resumed; }
hibernate_cycle after
vars_after
efi_show
EOF
} > "$d/boot1.sh"
echo 'say fresh-boot; efi_show' > "$d/boot2.sh"
{ guest_lib; tpm_lib; echo "VGM=$VGM"; cat <<'EOF'
sys_facts
work_check work-boot
tpm_facts boot3
token_test boot3
say "hibloc-at-boot=$(var_text $HIBLOC)"
say "erloc-at-boot=$(var_text $ERLOC)"
EOF
} > "$d/boot3.sh"

echo "boot 1 (Debian 13 on crypt-lvm with swtpm: the passphrase typed at the initramfs; systemd-cryptenroll --tpm2-pcrs=7$([ $tscen = pcr7-pin ] && echo ' --tpm2-with-pin=yes'), install, hibernate):"
D13V_ANSWERS=("$unlock_re"$'\t'"$D13V_PASS")
swtpm_boot "$tpm" d13v_boot "$d" boot1 "$DEB_TIMEOUT" "$d/boot1.sh" d13v_type "${rngdev[@]}" || true
check_facts boot1
val_is boot1 tpm-boot1 2 "the guest has a TPM 2.0 (swtpm)"
p7=$(deb_val "$d" boot1 pcr7-boot1)
[[ $p7 =~ ^[0-9A-Fa-f]{64}$ ]] && pass "PCR 7 in the guest: $p7" || fail "PCR 7 '$p7'"
val_is boot1 enrol-status 0 "systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=7$([ $tscen = pcr7-pin ] && echo ' --tpm2-with-pin=yes')"
sed -n 's/.*EFIRESUME-TEST: enrol: \(.*\)/  | \1/p' "$d/boot1.log.txt"
expect "$d/boot1.log" 'EFIRESUME-TEST: luksdump: +1: luks2' "a second keyslot (1)" || ok=1
expect "$d/boot1.log" 'EFIRESUME-TEST: luksdump: +0: systemd-tpm2' "token 0: systemd-tpm2 (luksDump)" || ok=1
t0=$(deb_val "$d" boot1 token0)
echo "  token 0: ${t0:0:160}..."
[[ $t0 == *'"type":"systemd-tpm2"'* && $t0 == *'"keyslots":["1"]'* && $t0 == *'"tpm2-pcrs":[7]'* ]] &&
	pass "token export: systemd-tpm2, keyslot 1, PCR 7" || fail "token 0: '$t0'"
if [ $tscen = pcr7-pin ]; then
	[[ $t0 == *'"tpm2-pin":true'* && $t0 == *'"tpm2_salt":'* ]] && pass "the token needs a PIN (tpm2-pin, tpm2_salt)" || fail "no PIN in the token"
else
	[[ $t0 != *'"tpm2-pin":true'* ]] && pass "no PIN in the token" || fail "a PIN in the token"
fi
val_is boot1 token-unlock-boot1 0 "cryptsetup --token-only unlocks with the TPM in this boot (the enrolment is real)"
check_install boot1 always
check_hibernated boot1

case $tscen in
pcr-changed)
	# the machine's keys changed while it was hibernated: a certificate appended to db (the
	# variable store, as the firmware's setup or a db update writes it): PCR 7 measures db
	vars_add_db "$d/vars.fd" "$d" && pass "a certificate added to db between the hibernation and the resume" ||
		{ fail "virt-fw-vars --add-db"; cat "$d/vfw.log"; } ;;
other-tpm)
	tpm=$d/tpm-other
	pass "the resume on another TPM (a fresh swtpm state: $tpm)" ;;
esac

expect_tpm=yes
case $tscen in pcr-changed|other-tpm) expect_tpm=no ;; esac
[ -z "${TPM_KEEP_PROMPT:-}" ] || expect_tpm=no
echo "boot 2 (the firmware starts efiresume; $([ $expect_tpm = yes ] && echo 'the TPM unseals' || echo 'the TPM refuses: the passphrase')):"
D13V_ANSWERS=("$prompt_re"$'\t'"$D13V_PASS" "$unlock_re"$'\t'"$D13V_PASS")
[ $tscen = pcr7-pin ] && D13V_ANSWERS+=("$pin_re"$'\t'"$wrongpin"$'\t'"$pin")
swtpm_boot "$tpm" d13v_boot "$d" boot2 "$DEB_TIMEOUT" "$d/boot2.sh" d13v_type "${rngdev[@]}" || true
{ grep -aE "${ER_RE}.*(luks-|TPM|tpm|PIN)" "$d/boot2.log.txt" || true; } | sed 's/^/  | /' | head -20
if [ $expect_tpm = yes ]; then
	if [ $tscen = pcr7-pin ]; then
		n=$(grep -acE -- "$pin_re" "$d/boot2.log.txt" || true)
		[ "${n:-0}" -ge 2 ] && pass "efiresume asked for the PIN ($n prompts: the wrong PIN refused, asked again)" ||
			fail "efiresume asked for the PIN $n times (a wrong PIN, then the right one: 2)"
		expect "$d/boot2.log" "$wrongpin_re" "the wrong PIN refused by the TPM (try 1 of 3)" || ok=1
		for p in "$pin" "$wrongpin"; do grep -aqF -- "$p" "$d/boot2.log" && fail "a PIN is on the console"; done
	fi
	expect "$d/boot2.log" "$tpm_ok_re" "efiresume unlocked luks-$uuid with the TPM" || ok=1
	expect_not "$d/boot2.log" "$prompt_re" "no passphrase asked" || ok=1
else
	expect_not "$d/boot2.log" "$tpm_ok_re" "not unlocked with the TPM" || ok=1
	expect "$d/boot2.log" "${ER_RE}passphrase for luks-$uuid on .* \\(try 1 of 3, Esc: skip\\)" "efiresume asked for the passphrase" || ok=1
	expect "$d/boot2.log" "${ER_RE}luks-$uuid: unlocked \\(keyslot 0" "unlocked with the passphrase (keyslot 0)" || ok=1
fi
expect_not "$d/boot2.log" "$unlock_re" "the initramfs never asked (no kernel booted in between)" || ok=1
grep -aqF -- "$D13V_PASS" "$d/boot2.log" && fail "the passphrase is on the console"
check_efiresume_resumed boot2 "swap LV $D13V_VG/swap_1: hibernation image"
check_resumed boot1 boot2
val_is boot2 swap-sig-resumed SWAPSPACE2 "the swap LV's signature (through the mapping) reset to SWAPSPACE2"
vars_gone boot2
r7=$(deb_val "$d" boot2 pcr7-resumed)
case $tscen in
pcr-changed)
	[ -n "$r7" ] && [ "$r7" != "$p7" ] && pass "PCR 7 changed ($p7 -> $r7)" || fail "PCR 7 '$r7' (boot 1: $p7)"
	[ "$(deb_val "$d" boot2 token-unlock-resumed)" != 0 ] && pass "the token does not unlock in the resumed system either (PCR 7)" ||
		fail "the token unlocks with the changed PCR 7" ;;
other-tpm)
	[ "$(deb_val "$d" boot2 token-unlock-resumed)" != 0 ] && pass "the token does not unlock on the other TPM (resumed system)" ||
		fail "the token unlocks on another TPM" ;;
*)
	val_is boot2 pcr7-resumed "$p7" "PCR 7 as sealed"
	val_is boot2 token-unlock-resumed 0 "the token unlocks in the resumed system" ;;
esac

if [ $tscen = pcr7 ]; then
	echo "boot 3 (a normal boot: the initramfs asks; the TPM token unlocks on a fresh boot):"
	D13V_ANSWERS=("$prompt_re"$'\t'"ESC" "$unlock_re"$'\t'"$D13V_PASS")
	swtpm_boot "$tpm" d13v_boot "$d" boot3 "$DEB_TIMEOUT" "$d/boot3.sh" d13v_type "${rngdev[@]}" || true
	qemu_ok
	expect "$d/boot3.log" 'EFIRESUME-TEST: agent: booted' "a fresh boot" || ok=1
	expect_not "$d/boot3.log" "${ER_RE}.*(passphrase for|PIN for|resuming in|found a hibernated|unlocked with|unlocked \\()" "efiresume asked nothing, unlocked nothing (nothing to resume)" || ok=1
	expect "$d/boot3.log" "$unlock_re" "the initramfs asked for the passphrase (cryptsetup-initramfs: no token support)" || ok=1
	val_is boot3 pcr7-boot3 "$p7" "PCR 7 on a fresh boot as sealed"
	val_is boot3 token-unlock-boot3 0 "cryptsetup --token-only unlocks with the TPM on a fresh boot"
	vars_none boot3
	check_work boot1 boot2 boot3
fi

t_end=$(date +%s.%N)
echo "scenario $tscen: $(fmt_secs "$t_start" "$t_end") s ($(paste -sd' ' "$d/times"))"
exit $ok
