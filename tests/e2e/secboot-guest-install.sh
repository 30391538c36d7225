#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume-install's Secure Boot modes run INSIDE a Debian 13 guest booted under OVMF Secure
# Boot (issue 17 item 1), with the real tools on the kernel's efivarfs: efibootmgr writes the
# installer's Boot#### and BootNext, mokutil writes MokNew/MokAuth, MokManager's screens are
# played by keystrokes on the serial console, efi-updatevar appends to db (an authenticated
# write OVMF checks in its SMM-protected store). The guest: tests/lib/guestinst.sh (trixie
# minbase: Debian's signed kernel, shim-signed, shim-helpers-amd64-signed,
# grub-efi-amd64-signed, mokutil, efitools, sbsigntool; init= a script that runs what the
# host hands over as fw_cfg opt/efiresume/script). The efiresume .deb under test is installed
# in the guest with dpkg -i (deb_file: build/efiresume_*_amd64.deb, make deb).
# Disk: GPT 1 ESP, 2 swap, 3 root ext4 (tests/lib/debian.sh's layout).
#   shim     OVMF_VARS_4M.ms.fd (Microsoft's keys), Boot0008 "debian" first in BootOrder:
#            \EFI\debian\shimx64.efi -> Debian's signed grubx64.efi -> \EFI\debian\grub.cfg ->
#            Debian's signed kernel (\vmlinuz, \initrd.img on the ESP), as Debian boots.
#            boot 1 (Linux): dpkg -i, efiresume-install install --secure-boot=shim (fallback
#              detected from BootCurrent: the debian entry's shim), mokutil's password from
#              stdin, BootNext = the installer's entry (efibootmgr -n, as the sleep hook does)
#            boot 2 (firmware): BootNext -> \EFI\efiresume\shimx64.efi sees MokNew -> MokManager
#              (\EFI\efiresume\mmx64.efi): "Enroll MOK", Continue, Yes, the password, Reboot,
#              typed into the serial console
#            boot 3 (through BootOrder: --secure-boot implies --mode=always, the installer's
#              entry is first): shim -> efiresume (no image) -> Debian's shim -> Linux; mokutil
#              --test-key says enrolled, efiresume-install status; what the sleep hook runs
#              (efiresume-install hook pre hibernate) sets no BootNext in mode always
#            boot 4: BootOrder -> shim -> efiresume ("Secure Boot is on", "no image") -> its
#              fallback \EFI\debian\shimx64.efi -> grub -> the kernel, under Secure Boot
#   shim-nomok  control: boot 2 with nobody at the console: MokManager's countdown passes,
#            the key stays pending and shim refuses efiresume (Security Violation)
#   db       OVMF_VARS_4M.snakeoil.fd (PK, KEK, db: the snakeoil certificate), Boot0008 "Linux"
#            first: Debian's kernel re-signed with the snakeoil key, started by the firmware
#            itself (EFI stub; its command line in the entry's optional data). efiresume is
#            signed with a key made for this run (not in db).
#            boot 1: efiresume-install install --secure-boot=db --kek=<snakeoil key>: the real
#              efi-updatevar appends the certificate to db; BootNext = the installer's entry
#            boot 2: BootNext -> the firmware starts \EFI\efiresume\efiresume.efi (its
#              certificate in db now) -> the fallback (the Linux entry's kernel and command line)
#   db-nokek control: without --kek the installer refuses (prints the efi-updatevar command
#            line, installs nothing); with --kek = a key that is not a KEK's efi-updatevar itself
#            refuses ("No public key matching ... in KEK"; nothing installed); an append to db
#            signed with that key all the same (sign-efi-sig-list, written by efi-updatevar -f)
#            is refused by the firmware (EACCES through efivarfs); db unchanged, in the guest and
#            in the store read on the host
set -euo pipefail
. "$(dirname "$0")/../lib/guestinst.sh"     # debian13.sh, debian.sh, fixture.sh, harness.sh
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: shim shim-nomok db db-nokek}
case $case in
shim | shim-nomok) mode=shim store=/usr/share/OVMF/OVMF_VARS_4M.ms.fd ;;
db | db-nokek) mode=db store=$SB_VARS ;;
*) die "case: shim shim-nomok db db-nokek" ;;
esac
for t in sbsign openssl sgdisk mcopy mke2fs mmdebstrap; do
	command -v "$t" >/dev/null || die "$t is not installed (tests/lib/deps.sh)"
done
d=$(scratch "secboot-guest-install-$case")
G=8be4df61-93ca-11d2-aa0d-00e098032b8c
GUEST_INIT=/usr/local/sbin/efiresume-guest
MOKPASS=mokpass1
GI_CMDLINE="root=PARTUUID=$DEB_ROOT_PARTUUID ro console=ttyS0,115200 panic=-1 init=$GUEST_INIT"
ok=0
t_all=$(date +%s)

deb=$(deb_file) || exit 1
gi_tree || exit 1
echo "  tree: $GI_TREE; package: ${deb##*/}"
vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages

# ---- the disk (the tree as partition 3) and what the host puts on its ESP
v=$(_deb_disk "$GI_TREE" "$d/disk.raw")
echo "  disk: kernel $v, $(( $(stat -c %s "$d/disk.raw") / 1048576 )) MiB"
espimg="$d/disk.raw@@$((DEB_ESP_START * 512))"
mdel -i "$espimg" ::/EFI/debian/vmlinuz.efi ::/EFI/debian/initrd.img
mkdir -p "$d/fwcfg"
cp "$deb" "$d/fwcfg/deb"
if [ $mode = shim ]; then
	# Debian's chain as grub-install --uefi-secure-boot leaves it: shim, MokManager, signed grub
	mcopy -i "$espimg" "$GI_TREE/usr/lib/shim/shimx64.efi.signed" ::/EFI/debian/shimx64.efi
	mcopy -i "$espimg" "$GI_TREE/usr/lib/shim/mmx64.efi.signed" ::/EFI/debian/mmx64.efi
	mcopy -i "$espimg" "$GI_TREE/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" ::/EFI/debian/grubx64.efi
	cat > "$d/grub.cfg" <<EOF
set timeout=0
set default=0
menuentry "Debian GNU/Linux (efiresume guest)" {
	search --no-floppy --fs-uuid --set=root ${DEB_ESP_SERIAL:0:4}-${DEB_ESP_SERIAL:4:4}
	echo "EFIRESUME-TEST: grub: loading the kernel"
	linux /vmlinuz $GI_CMDLINE
	initrd /initrd.img
}
EOF
	mcopy -i "$espimg" "$d/grub.cfg" ::/EFI/debian/grub.cfg
	mcopy -i "$espimg" "$GI_TREE/boot/vmlinuz-$v" ::/vmlinuz          # Debian's signature
	mcopy -i "$espimg" "$GI_TREE/boot/initrd.img-$v" ::/initrd.img
	key=$(sb_key "$d") cert=$SB_CERT                                    # the project's test key
	entry_desc=debian entry_path='\EFI\debian\shimx64.efi' entry_opts=
else
	mmd -i "$espimg" ::/EFI/linux
	sb_sign "$(sb_key "$d")" "$GI_TREE/boot/vmlinuz-$v" "$d/vmlinuz.efi"  # snakeoil: in db
	mcopy -i "$espimg" "$d/vmlinuz.efi" ::/EFI/linux/vmlinuz.efi
	mcopy -i "$espimg" "$GI_TREE/boot/initrd.img-$v" ::/EFI/linux/initrd.img
	# efiresume's own key: a certificate that is not in the snakeoil db
	openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=efiresume guest test $case/" \
		-keyout "$d/own.key" -out "$d/own.pem" 2>/dev/null
	key=$d/own.key cert=$d/own.pem
	cp "$d/snakeoil.key" "$d/fwcfg/kek"
	entry_desc=Linux entry_path='\EFI\linux\vmlinuz.efi' entry_opts="initrd=\\EFI\\linux\\initrd.img $GI_CMDLINE"
fi
cp "$key" "$d/fwcfg/key"
cp "$cert" "$d/fwcfg/cert"
echo "  ESP: $(mdir -/ -b -i "$espimg" ::/ | tr '\n' ' ')"

# ---- the variable store: the firmware's keys, plus the system's own entry Boot0008, first in BootOrder
python3 - "$entry_desc" "$entry_path" "$entry_opts" "$DEB_ESP_START" $((DEB_ESP_MB * 2048)) "$DEB_ESP_PARTUUID" "$G" > "$d/boot.json" <<'PY'
import json, struct, sys, uuid
desc, path, opts, start, size, partuuid, g = sys.argv[1:]
ucs2 = lambda s: s.encode("utf-16-le") + b"\0\0"
hd = struct.pack("<BBHIQQ", 4, 1, 42, 1, int(start), int(size)) + uuid.UUID(partuuid).bytes_le + bytes([2, 2])
f = ucs2(path)
fp = hd + struct.pack("<BBH", 4, 4, 4 + len(f)) + f + bytes([0x7f, 0xff, 4, 0])
lo = struct.pack("<IH", 1, len(fp)) + ucs2(desc) + fp + (ucs2(opts) if opts else b"")
print(json.dumps({"version": 2, "variables": [
	{"name": "Boot0008", "guid": g, "attr": 7, "data": lo.hex()},
	{"name": "BootOrder", "guid": g, "attr": 7, "data": struct.pack("<4H", 8, 0, 1, 2).hex()}]}))
PY
PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$store" -o "$d/vars.fd" --set-json "$d/boot.json" > "$d/vfw.log" 2>&1 ||
	{ echo "  virt-fw-vars failed"; cat "$d/vfw.log"; exit 1; }
vars_show() { # what the store holds now (virt-fw-vars -p)
	PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$d/vars.fd" -p 2>/dev/null |
		grep -aE "^ *(Boot[0-9A-F]{4}|BootNext|BootOrder|MokList|MokNew|MokAuth|db|PK|KEK) " | sed "s/^ */  vars($1): /" || true
}
vars_show start
# store_db_has CERT: the firmware's store (read on the host) holds CERT's DER in db
store_db_has() {
	PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$d/vars.fd" --output-json "$d/store.json" >/dev/null 2>&1 || return 2
	python3 - "$d/store.json" "$(openssl x509 -in "$1" -outform DER | od -An -v -tx1 | tr -d ' \n')" <<'PY'
import json, sys
j, der = sys.argv[1:]
sys.exit(0 if any(x["name"] == "db" and x["guid"] == "d719b2cb-3d3a-4596-a3bc-dad00e67656f" and der in x["data"]
	for x in json.load(open(j))["variables"]) else 1)
PY
}

# ---- one boot: OVMF secboot (SMM, secure pflash), the serial console on a pipe pair (the
# typist's keys go in), the guest's files as fw_cfg opt/efiresume/NAME
# gi_boot NAME TIMEOUT SCRIPT TYPIST: sets RC, SECS; the log is $d/NAME.log
gi_boot() {
	local name=$1 tmo=$2 script=$3 typist=$4 log=$d/$1.log f fwcfg=() t0
	cp "$script" "$d/fwcfg/script"
	for f in "$d"/fwcfg/*; do fwcfg+=(fwcfg="${f##*/}=$f"); done
	rm -f "$log.typed"
	t0=$(date +%s)
	RC=0
	say "boot $name"
	qemu_run_typed "$log" "$tmo" "$typist" fw=secboot cpu="$DEB_QEMU_CPU" mem=1024 vars="$d/vars.fd" \
		disk="$d/disk.raw" rng=1 "${fwcfg[@]}" || RC=$?
	SECS=$(( $(date +%s) - t0 ))
	clean_log "$log" > "$log.txt"
	echo "  boot $name: QEMU status $RC after $SECS s"
	grep -a 'EFIRESUME-TEST: ' "$log.txt" | sed 's/^.*EFIRESUME-TEST: /  | /' || true
	[ ! -s "$log.typed" ] || sed 's/^/  typed: /' "$log.typed"
}

# gi_type LOG: MokManager's screens, typed as a user does. GI_STEPS: "REGEX<TAB>KEYS" each;
# a step waits until LOG shows REGEX more often than just before the previous step's keys
# were typed (a screen drawn after them), waits 2 s (the screen is complete) and types KEYS:
# DOWN (ESC [ B in one write: the terminal driver takes an escape sequence only within one
# read), ENTER (CR), or text:WORD (one key at a time)
gi_type() {
	local log=$1 i re keys k c t n=0
	set +e +o pipefail
	for ((i = 0; i < ${#GI_STEPS[@]}; i++)); do
		re=${GI_STEPS[i]%%$'\t'*} keys=${GI_STEPS[i]#*$'\t'}
		while :; do
			c=$(clean_log "$log" | grep -aoE -- "$re" | wc -l)
			[ "${c:-0}" -gt "$n" ] && break
			sleep 0.3
		done
		sleep 2
		# the next step's count before these keys
		if [ $((i + 1)) -lt ${#GI_STEPS[@]} ]; then
			n=$(clean_log "$log" | grep -aoE -- "${GI_STEPS[i + 1]%%$'\t'*}" | wc -l)
			n=${n:-0}
		fi
		echo "$(date +%T) /$re/: $keys" >> "$log.typed"
		for k in $keys; do
			case $k in
			DOWN) printf '\033[B' ;;
			UP) printf '\033[A' ;;
			ENTER) printf '\r' ;;
			text:*) t=${k#text:}; for ((c = 0; c < ${#t}; c++)); do printf '%s' "${t:$c:1}"; sleep 0.3; done ;;
			esac
			sleep 1.5
		done
	done
	sleep 3600
}

# the guest's scripts (bash, run by $GUEST_INIT; /run/in holds the fw_cfg files)
cat > "$d/common.sh" <<'EOF'
say() { printf 'EFIRESUME-TEST: %s\n' "$*"; }
run() { # CMD...: its output prefixed "NAME: ", then "NAME-status=N"
	local n=${1##*/} rc=0
	"$@" > /tmp/run.out 2>&1 || rc=$?
	sed "s/^/EFIRESUME-TEST: $n: /; s/efiresume: /efiresume-tool: /g" /tmp/run.out
	say "$n-status=$rc"
	return 0
}
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount /dev/vda1 /boot/efi || say "cannot mount the ESP"
mok() { # mokutil ARGS: its answer, a certificate's fingerprint and subject only
	mokutil "$@" > /tmp/mok.out 2>&1; say "mokutil $*: status $?"
	grep -aE 'SHA1 Fingerprint|Subject:|enrolled|MokListRT|MokNew|key' /tmp/mok.out | grep -v '^ *[0-9a-f:]*$' | sed 's/^ */EFIRESUME-TEST: mokutil: /'
}
swapon /dev/vda2 2>/dev/null || true
say "bootcurrent=$(efibootmgr | sed -n 's/^BootCurrent: //p')"
say "secureboot=$(od -An -tu1 -j4 -N1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c | tr -d ' ')"
say "lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null)"
ebm() { efibootmgr -v | grep -E '^Boot' | cut -c1-160 | sed 's/^/EFIRESUME-TEST: efibootmgr: /'; }
er_entry() { efibootmgr | sed -n 's/^Boot\([0-9A-F]\{4\}\)\*\{0,1\} Resume hibernated Linux.*/\1/p' | head -1; }
EOF
{
	cat "$d/common.sh"
	cat <<'EOF'
run dpkg -i /run/in/deb
install -m 600 /run/in/key /root/efiresume.key
install -m 644 /run/in/cert /root/efiresume.pem
[ -e /run/in/kek ] && install -m 600 /run/in/kek /root/kek.key
EOF
	case $case in
	shim | shim-nomok)
		echo "printf '$MOKPASS\n$MOKPASS\n' | run efiresume-install install --secure-boot=shim --key=/root/efiresume.key --cert=/root/efiresume.pem"
		echo 'mok --list-new' ;;
	db)
		echo 'run efi-readvar -v db'
		echo 'run efiresume-install install --secure-boot=db --key=/root/efiresume.key --cert=/root/efiresume.pem --kek=/root/kek.key'
		echo 'run efi-readvar -v db' ;;
	db-nokek)
		echo 'run efiresume-install install --secure-boot=db --key=/root/efiresume.key --cert=/root/efiresume.pem'
		echo 'say "nokek-installed=$(ls /boot/efi/EFI/efiresume 2>/dev/null | wc -l)"'
		# a key that is not a KEK's (the one efiresume is signed with): the firmware refuses the write
		echo 'run efiresume-install install --secure-boot=db --key=/root/efiresume.key --cert=/root/efiresume.pem --kek=/root/efiresume.key'
		echo 'say "badkek-installed=$(ls /boot/efi/EFI/efiresume 2>/dev/null | wc -l)"'
		# efi-updatevar refuses that key itself (no KEK certificate matches it): the firmware's
		# own check, with an append signed by that key all the same (sign-efi-sig-list) and
		# handed to efivarfs by efi-updatevar -f
		cat <<'EOF2'
cert-to-efi-sig-list /root/efiresume.pem /tmp/own.esl
run sign-efi-sig-list -a -c /root/efiresume.pem -k /root/efiresume.key db /tmp/own.esl /tmp/own.auth
chattr -i /sys/firmware/efi/efivars/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
say "db-lsattr=$(lsattr /sys/firmware/efi/efivars/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f 2>&1 | cut -c1-20)"
run efi-updatevar -a -f /tmp/own.auth db
say "db-size=$(cat /sys/firmware/efi/efivars/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f | wc -c)"
EOF2
		echo 'run efi-readvar -v db' ;;
	esac
	cat <<'EOF'
e=$(er_entry)
say "entry=$e"
[ -z "$e" ] || run efibootmgr -n "$e"
ebm
run efiresume-install status
sed 's/^/EFIRESUME-TEST: state: /' /var/lib/efiresume/state 2>/dev/null
sed 's/^/EFIRESUME-TEST: conf: /' /boot/efi/EFI/efiresume/efiresume.conf 2>/dev/null
EOF
} > "$d/boot1.sh"
{
	cat "$d/common.sh"
	cat <<'EOF'
openssl x509 -in /root/efiresume.pem -outform DER -out /tmp/cert.der
mok --test-key /tmp/cert.der
mok --list-new
mok --list-enrolled
run efiresume-install status
say "entry=$(er_entry)"
# what systemd-sleep's hook does before a hibernation: BootNext and EfiresumeLocation
run efiresume-install hook pre hibernate
ebm
EOF
} > "$d/check.sh"
{
	cat "$d/common.sh"
	cat <<'EOF'
say "booted-through=$(efibootmgr | sed -n 's/^BootCurrent: //p')"
run efiresume-install status
ebm
EOF
} > "$d/last.sh"

# ---- boot 1: the installer in the guest
gi_boot install 900 "$d/boot1.sh" ""
vars_show "after install"
L=$d/install.log
expect "$L" "EFIRESUME-TEST: secureboot=1" "the guest runs under Secure Boot (efivarfs SecureBoot = 1)" || ok=1
expect "$L" "EFIRESUME-TEST: dpkg-status=0" "dpkg -i ${deb##*/}" || ok=1
entry=$(sed -nE 's/.*EFIRESUME-TEST: entry=([0-9A-F]{4}).*/\1/p' "$L.txt" | tail -1)
fp=$(openssl x509 -in "$cert" -noout -fingerprint -sha1 | sed 's/^[^=]*=//' | tr A-F a-f)
case $case in
shim | shim-nomok)
	expect "$L" "BdsDxe: starting Boot0008 \"debian\" .*\\\\EFI\\\\debian\\\\shimx64.efi" "the firmware started Debian's shim (Boot0008)" || ok=1
	expect "$L" "EFIRESUME-TEST: grub: loading the kernel" "Debian's signed grub read \\EFI\\debian\\grub.cfg" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install-status=0" "efiresume-install install --secure-boot=shim: status 0" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*fallback: \\\\EFI\\\\debian\\\\shimx64.efi \\(Boot0008" "the fallback: Debian's shim, from BootCurrent" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*mokutil --import" "the installer ran mokutil --import" || ok=1
	expect "$L" "EFIRESUME-TEST: mokutil: .*$(echo "$fp" | sed 's/:/:?/g')" "mokutil --list-new lists the certificate (MokNew written through efivarfs)" || ok=1
	expect "$L" "EFIRESUME-TEST: efibootmgr: Boot$entry\\* Resume hibernated Linux.*\\\\EFI\\\\efiresume\\\\shimx64.efi" "efibootmgr -C wrote Boot$entry -> \\EFI\\efiresume\\shimx64.efi" || ok=1
	expect "$L" "EFIRESUME-TEST: efibootmgr: BootNext: $entry" "BootNext = Boot$entry (efibootmgr -n)" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: MOK: +pending" "status: the MOK is pending" || ok=1
	[ -n "$entry" ] || { echo "  WRONG: no entry of the installer"; exit 1; }
	vars_show "after install" | grep -q 'MokNew' && pass "the store holds MokNew" || fail "missing: MokNew in the store"
	# ---- boot 2: shim sees MokNew and starts MokManager
	if [ $case = shim ]; then
		GI_STEPS=(
			$'Press any key to perform MOK management\tENTER'
			$'Enroll MOK\tDOWN ENTER'
			$'View key 0\tDOWN ENTER'
			$'Enroll the key\\(s\\)\\?\tDOWN ENTER'
			$'Password\tENTER'
			$'Reboot\tENTER'
		)
		GI_STEPS[4]=$'Password\ttext:'"$MOKPASS"' ENTER'
		gi_boot mokmanager 600 /dev/null gi_type
	else
		QEMU_STOP_AT='Security Violation' gi_boot mokmanager 300 /dev/null ""
	fi
	L=$d/mokmanager.log
	expect "$L" "BdsDxe: starting Boot$entry \"Resume hibernated Linux\" .*\\\\EFI\\\\efiresume\\\\shimx64.efi" "BootNext: the firmware started the installer's shim" || ok=1
	expect "$L" "Press any key to perform MOK management" "shim started MokManager (\\EFI\\efiresume\\mmx64.efi) for mokutil's request" || ok=1
	vars_show "after MokManager"
	if [ $case = shim-nomok ]; then
		expect "$L" "Verification failed: \(0x1A\) Security Violation" "nobody confirmed: shim refuses efiresume" || ok=1
		expect_not "$L" "efiresume: efiresume .* started" "efiresume never started" || ok=1
		vars_show "after MokManager" | grep -q 'MokList' && fail "the store holds a MokList" ||
			pass "no MokList in the store (nothing enrolled)"
	else
		expect "$L" "Enroll the key" "MokManager asked to enrol the key" || ok=1
		[ "$RC" = 0 ] && pass "MokManager rebooted (QEMU -no-reboot: status 0)" || fail "QEMU status $RC"
		expect_not "$L" "efiresume: efiresume .* started" "no efiresume in this boot (MokManager resets)" || ok=1
		vars_show "after MokManager" | grep -q 'MokList' && pass "the store holds MokList" || fail "missing: MokList in the store"
		# ---- boot 3: through BootOrder (BootNext was used), whose first entry is the
		# installer's (--secure-boot implies --mode=always): the MOK is enrolled
		gi_boot check 900 "$d/check.sh" ""
		L=$d/check.log
		expect "$L" "BdsDxe: starting Boot$entry \"Resume hibernated Linux\" .*\\\\EFI\\\\efiresume\\\\shimx64.efi" "through BootOrder: the installer's shim (its entry first: mode always)" || ok=1
		expect "$L" "efiresume: starting \\\\EFI\\\\debian\\\\shimx64.efi" "efiresume (no image) started its fallback, Debian's shim" || ok=1
		expect "$L" "EFIRESUME-TEST: mokutil: .*is already enrolled" "mokutil --test-key: the certificate is enrolled" || ok=1
		expect "$L" "EFIRESUME-TEST: efiresume-install: MOK: +enrolled" "efiresume-install status: MOK enrolled" || ok=1
		expect "$L" "EFIRESUME-TEST: efiresume-install: Mode: +always" "efiresume-install status: mode always (implied by --secure-boot)" || ok=1
		# the sleep hook's work (efiresume-install hook pre hibernate): in mode always efiresume
		# starts every boot, so it sets no BootNext
		expect "$L" "EFIRESUME-TEST: efiresume-install: efiresume-tool: pre hibernate done" "the sleep hook's work (efiresume-install hook pre hibernate) ran" || ok=1
		expect_not "$L" "EFIRESUME-TEST: efibootmgr: BootNext:" "it set no BootNext (mode always)" || ok=1
		expect "$L" "EFIRESUME-TEST: efibootmgr: BootOrder: $entry," "Boot$entry first in BootOrder" || ok=1
		# ---- boot 4: through the installer's entry again
		gi_boot efiresume 900 "$d/last.sh" ""
		L=$d/efiresume.log
		expect "$L" "BdsDxe: starting Boot$entry \"Resume hibernated Linux\" .*\\\\EFI\\\\efiresume\\\\shimx64.efi" "through BootOrder: the firmware started the installer's shim" || ok=1
		expect "$L" "efiresume: efiresume .* \(x64\) started" "shim started efiresume (signed with the MOK's key)" || ok=1
		expect "$L" "efiresume: Secure Boot is on" "efiresume saw Secure Boot" || ok=1
		expect "$L" "efiresume: swap .*: no image" "no image" || ok=1
		expect "$L" "efiresume: starting \\\\EFI\\\\debian\\\\shimx64.efi" "it starts its fallback, Debian's shim" || ok=1
		expect "$L" "EFIRESUME-TEST: grub: loading the kernel" "Debian's grub (started by that shim)" || ok=1
		expect "$L" "EFIRESUME-TEST: booted-through=$entry" "Linux came up (BootCurrent = Boot$entry)" || ok=1
		expect "$L" "EFIRESUME-TEST: secureboot=1" "under Secure Boot" || ok=1
		expect "$L" "EFIRESUME-TEST: lockdown=.*\[integrity\]" "locked down" || ok=1
	fi
	;;
db)
	expect "$L" "BdsDxe: starting Boot0008 \"Linux\" .*\\\\EFI\\\\linux\\\\vmlinuz.efi" "the firmware started the snakeoil-signed kernel (Boot0008)" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*adding .* to db: efi-updatevar" "the installer ran efi-updatevar" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*db holds .*efiresume guest test" "db holds the certificate after efi-updatevar (read back through efivarfs)" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install-status=0" "efiresume-install install --secure-boot=db --kek: status 0" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*fallback: \\\\EFI\\\\linux\\\\vmlinuz.efi \\(Boot0008" "the fallback: the Linux entry's kernel, from BootCurrent" || ok=1
	expect "$L" "EFIRESUME-TEST: efibootmgr: BootNext: $entry" "BootNext = Boot$entry (efibootmgr -n)" || ok=1
	store_db_has "$cert" && pass "the firmware's store (read on the host): db holds the certificate" ||
		fail "missing: the certificate in the store's db"
	store_db_has "$SB_CERT" && pass "and still the snakeoil certificate (appended, not replaced)" ||
		fail "missing: the snakeoil certificate in the store's db"
	[ -n "$entry" ] || { echo "  WRONG: no entry of the installer"; exit 1; }
	gi_boot efiresume 900 "$d/last.sh" ""
	L=$d/efiresume.log
	expect "$L" "BdsDxe: starting Boot$entry \"Resume hibernated Linux\" .*\\\\EFI\\\\efiresume\\\\efiresume.efi" "BootNext: the firmware started efiresume.efi (its certificate now in db)" || ok=1
	expect "$L" "efiresume: efiresume .* \(x64\) started" "efiresume started" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "efiresume saw Secure Boot" || ok=1
	expect "$L" "efiresume: swap .*: no image" "no image" || ok=1
	expect "$L" "efiresume: starting \\\\EFI\\\\linux\\\\vmlinuz.efi initrd=" "it starts its fallback with the entry's command line" || ok=1
	expect "$L" "EFIRESUME-TEST: booted-through=$entry" "Linux came up (BootCurrent = Boot$entry)" || ok=1
	expect "$L" "EFIRESUME-TEST: secureboot=1" "under Secure Boot" || ok=1
	;;
db-nokek)
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*efi-updatevar -a -c .* -k KEK.key db" "without --kek: the installer prints the efi-updatevar command line" || ok=1
	expect "$L" "EFIRESUME-TEST: nokek-installed=0" "without --kek: nothing installed" || ok=1
	expect "$L" "EFIRESUME-TEST: efiresume-install: .*efi-updatevar could not add" "--kek with a key that is no KEK's: efi-updatevar fails, the installer says so" || ok=1
	expect "$L" "EFIRESUME-TEST: badkek-installed=0" "nothing installed" || ok=1
	expect "$L" "EFIRESUME-TEST: sign-efi-sig-list-status=0" "an append to db signed with that key all the same" || ok=1
	expect "$L" "EFIRESUME-TEST: db-lsattr=-+ *$" "db not immutable for that write (chattr -i)" || ok=1
	# (efivarfs turns the firmware's EFI_SECURITY_VIOLATION into EACCES; efi-updatevar words it so)
	expect "$L" "EFIRESUME-TEST: efi-updatevar: Cannot write to db, wrong filesystem permissions" "the firmware refuses it (the efivarfs write fails: EACCES)" || ok=1
	expect "$L" "EFIRESUME-TEST: efi-updatevar-status=[1-9]" "efi-updatevar fails" || ok=1
	expect "$L" "EFIRESUME-TEST: db-size=939\$" "db unchanged (935 bytes + efivarfs' 4 attribute bytes)" || ok=1
	expect "$L" "EFIRESUME-TEST: entry=\$" "no entry of the installer" || ok=1
	if store_db_has "$cert"; then fail "the store's db holds the certificate"
	else pass "the firmware's store (read on the host): db does not hold the certificate"; fi
	;;
esac
echo "  $case: $(( $(date +%s) - t_all )) s in all"
exit $ok
