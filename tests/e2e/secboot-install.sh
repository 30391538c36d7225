#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What `efiresume-install install --secure-boot=shim` puts on an ESP boots under Secure Boot
# (issue 17 item 1). The real tools/efiresume-install runs on the host against a fake root
# (as tests/host/test-install.sh: fake sysfs and efivarfs with Secure Boot on, a tmpfs
# standing in for the ESP, mounted with source /dev/vda1), with the snakeoil key and
# certificate, Debian's signed shim and MokManager (shim-signed, shim-helpers-amd64-signed)
# and the real mokutil on the fake efivarfs (EFIVARFS_PATH): it writes MokNew. efibootmgr -C
# (needs a real disk) is played by a wrapper that writes the load option efibootmgr would:
# HD(partition, GPT start, size, PARTUUID read from the test disk by sgdisk)/File(loader).
# \EFI\efiresume\ as the installer left it is copied into the FAT ESP of a test disk, with
# Debian's signed kernel (\vmlinuz.efi, the fallback) and \initrd.gz. The firmware: OVMF
# secboot with Debian's OVMF_VARS_4M.ms.fd (Microsoft's KEK and db), plus, by virt-fw-vars:
# the certificate in MokList (--add-mok: what MokManager leaves after the user confirmed the
# import mokutil asked for; MokManager's screen itself is not played), the installer's
# Boot#### byte for byte as it stands in the fake efivarfs (--set-json), and BootNext
# pointing at it (the entry is first in the fake BootOrder too: --secure-boot implies
# --mode=always; BootNext makes the firmware start it whatever its own BootOrder holds).
#   secboot-install.sh shim         shim -> efiresume (grubx64.efi) reads
#                                   \EFI\efiresume\efiresume.conf, no image, starts the
#                                   Debian-signed fallback, which runs under Secure Boot
#   secboot-install.sh shim-nomok   control: the same ESP and entry without the MOK:
#                                   shim refuses grubx64.efi
#   secboot-install.sh shim-moknew  the MOK request as the installer left it (mokutil's MokNew and
#                                   MokAuth carried into the firmware's store, no MokList): shim
#                                   starts MokManager from \EFI\efiresume\ (mmx64.efi); nobody
#                                   confirms, so after its countdown shim refuses efiresume
#   secboot-install.sh db           --secure-boot=db: the fake efivarfs's db (and the firmware's)
#                                   is OVMF_VARS_4M.snakeoil.fd's, which holds the certificate;
#                                   the entry starts \EFI\efiresume\efiresume.efi, which starts
#                                   the fallback \vmlinuz.efi (Debian's kernel re-signed with
#                                   the snakeoil key: the firmware's db is all there is)
#   secboot-install.sh db-notindb   control: the same install, booted on OVMF_VARS_4M.ms.fd
#                                   (the certificate is not in db): the firmware refuses efiresume
# Needs root (the tmpfs mount).
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/secboot.sh"
case=${1:?case: shim shim-nomok shim-moknew db db-notindb}
case $case in
shim | shim-nomok | shim-moknew) mode=shim store=/usr/share/OVMF/OVMF_VARS_4M.ms.fd loader=shimx64.efi ;;
db) mode=db store=$SB_VARS loader=efiresume.efi ;;
db-notindb) mode=db store=/usr/share/OVMF/OVMF_VARS_4M.ms.fd loader=efiresume.efi ;;
*) die "case: shim shim-nomok shim-moknew db db-notindb" ;;
esac
d=$(scratch "secboot-install-$case")
G=8be4df61-93ca-11d2-aa0d-00e098032b8c
for t in sbsign sbverify openssl mokutil sgdisk mcopy; do
	command -v "$t" >/dev/null || die "$t is not installed (tests/lib/deps.sh)"
done
key=$(sb_key "$d")
make -s -C "$TOP" sign KEY="$key" CERT="$SB_CERT" >/dev/null 2>&1 || die "make sign failed"
# shim-signed's shim and shim-helpers-amd64-signed's MokManager: the installer's EFIRESUME_SHIM_DIR
mkdir -p "$d/shim"
cp "$(kernel_dir shim-signed)"/usr/lib/shim/shimx64.efi.signed "$(kernel_dir shim-helpers-amd64-signed)"/usr/lib/shim/mmx64.efi.signed "$d/shim/"
vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages
kdir=$(kernel_dir linux-image-cloud-amd64)
cat "$TOP"/tests/e2e/init/prelude.sh "$TOP"/tests/e2e/init/secboot.sh > "$d/init"
make_initramfs x64 "$kdir" "$d/init" "$d/initrd.gz"
marker=m$RANDOM$RANDOM
make_disk "$d/disk.img" 64
mkswap_disk "$d/disk.img" $SWAP_PARTUUID

# ---- the fake root (a short copy of test-install.sh's machine(): vda1 the ESP, vda2 swap)
m=$d/root v=$d/root/sys/firmware/efi/efivars esp=$d/root/boot/efi
mkdir -p "$v" "$m"/sys/devices/virtual/block/vda/{vda1,vda2} "$m"/sys/class/block "$m"/sys/dev/block \
	"$m"/sys/power "$m"/proc "$m"/dev "$m"/state "$m"/lib "$m"/bin "$esp"
echo 64 >"$m/sys/firmware/efi/fw_platform_size"
for p in 1 2; do
	echo $p >"$m/sys/devices/virtual/block/vda/vda$p/partition"
	ln -s "../../devices/virtual/block/vda/vda$p" "$m/sys/class/block/vda$p"
	ln -s "../../devices/virtual/block/vda/vda$p" "$m/sys/dev/block/254:$p"
done
ln -s "$d/disk.img" "$m/dev/vda"
echo 254:2 >"$m/sys/power/resume"
echo 0 >"$m/sys/power/resume_offset"
truncate -s 8M "$m/dev/vda2"
mkswap -U $SWAP_PARTUUID "$m/dev/vda2" >/dev/null 2>&1
printf 'Filename\tType\tSize\tUsed\tPriority\n%s\tpartition\t8188\t0\t-2\n' "$m/dev/vda2" >"$m/proc/swaps"
cp "$BUILD/efiresume-x64.efi" "$m/lib/efiresume-x64.efi"
# variables (efivarfs files: 4 attribute bytes, then data): the Boot#### of OVMF_VARS_4M.ms.fd (the
# installer's entry gets the number it would get on that machine), a BootOrder, Secure Boot on, user mode
# (and its db: the installer checks the fallback's signature, and under db the certificate, against it)
vstore=$store; [ "$case" = db-notindb ] && vstore=$SB_VARS      # the machine the installer ran on
PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$vstore" --output-json "$d/store.json" >/dev/null 2>&1
python3 - "$d/store.json" "$v" "$G" <<'PY'
import json, re, sys
j, v, g = sys.argv[1:]
for x in json.load(open(j))["variables"]:
	if (re.fullmatch(r"Boot[0-9A-F]{4}", x["name"]) and x["guid"] == g) or \
	   (x["name"] == "db" and x["guid"] == "d719b2cb-3d3a-4596-a3bc-dad00e67656f"):
		open(f"{v}/{x['name']}-{x['guid']}", "wb").write(int(x["attr"]).to_bytes(4, "little") + bytes.fromhex(x["data"]))
PY
printf '\007\000\000\000\000\000\001\000\002\000' >"$v/BootOrder-$G"
printf '\006\000\000\000\001' >"$v/SecureBoot-$G"
printf '\006\000\000\000\000' >"$v/SetupMode-$G"
# efibootmgr: the real one, except -C: the load option it would write for the test disk
cat >"$m/bin/efibootmgr" <<EOF
#!/bin/bash
case " \$* " in
*" -C "*)
	echo "\$*" >>"$m/efibootmgr-create.log"
	while [ \$# -gt 0 ]; do
		case \$1 in -d) disk=\$2; shift ;; -p) part=\$2; shift ;; -L) label=\$2; shift ;; -l) loader=\$2; shift ;; esac
		shift
	done
	info=\$(sgdisk -i "\$part" "\$disk") || exit 1
	first=\$(awk '/^First sector:/ {print \$3}' <<<"\$info")
	last=\$(awk '/^Last sector:/ {print \$3}' <<<"\$info")
	uuid=\$(awk '/^Partition unique GUID:/ {print \$4}' <<<"\$info")
	for n in \$(seq 0 255); do
		x=\$(printf %04X \$n)
		[ -e "$v/Boot\$x-$G" ] && continue
		perl -e '
			my (\$file, \$desc, \$part, \$first, \$size, \$guid, \$path) = @ARGV;
			sub ucs2 { pack("v*", map { ord } split //, shift) . "\0\0" }
			my @g = split /-/, \$guid;
			my \$sig = pack("V v v", hex \$g[0], hex \$g[1], hex \$g[2]) . pack("H4", \$g[3]) . pack("H12", \$g[4]);
			my \$fp = pack("C C v V Q< Q<", 4, 1, 42, \$part, \$first, \$size) . \$sig . pack("C C", 2, 2);
			my \$f = ucs2(\$path);
			\$fp .= pack("C C v", 4, 4, 4 + length \$f) . \$f . pack("C C v", 0x7f, 0xff, 4);
			open my \$fh, ">:raw", \$file or die; print \$fh pack("V V v", 7, 1, length \$fp) . ucs2(\$desc) . \$fp;
		' "$v/Boot\$x-$G" "\$label" "\$part" "\$first" \$((last - first + 1)) "\$uuid" "\$loader"
		exit 0
	done
	exit 1 ;;
*" -o "*)
	rm -f "$v/BootOrder-$G"     # efivarfs replaces a variable; a plain file would keep a longer tail
	exec /usr/bin/efibootmgr "\$@" ;;
esac
exec /usr/bin/efibootmgr "\$@"
EOF
chmod +x "$m/bin/efibootmgr"
mount -t tmpfs -o size=64m /dev/vda1 "$esp" || die "cannot mount a tmpfs (needs root)"
trap 'umount "$esp"' EXIT
if [ $mode = shim ]; then
	cp "$(kernel_image "$kdir")" "$esp/vmlinuz.efi"        # Debian's own signature
else
	sb_sign "$key" "$(kernel_image "$kdir")" "$esp/vmlinuz.efi"
fi
cp "$d/initrd.gz" "$esp/initrd.gz"
export EFIRESUME_SYSFS=$m/sys EFIRESUME_PROC=$m/proc EFIRESUME_DEV=$m/dev EFIRESUME_STATE_DIR=$m/state \
	EFIRESUME_LIBDIR=$m/lib EFIRESUME_ESP_FSTYPES="vfat tmpfs" EFIRESUME_EFIBOOTMGR=$m/bin/efibootmgr \
	EFIRESUME_INSPECT=$BUILD/swsusp-inspect EFIRESUME_ESP_CANDIDATES="$esp" \
	EFIRESUME_SHIM_DIR=$d/shim EFIVARFS_PATH=$v/

ok=0
rc=0
printf 'mokpass1\nmokpass1\n' | "$TOP/tools/efiresume-install" install --esp-path="$esp" --secure-boot=$mode \
	--key="$key" --cert="$SB_CERT" --fallback='\vmlinuz.efi' \
	--options="initrd=\\initrd.gz console=ttyS0 panic=-1 efiresume_marker=$marker" > "$d/install.log" 2>&1 || rc=$?
sed 's/^/  | /' "$d/install.log"
echo "  install: status $rc"
[ $rc = 0 ] || ok=1
fp=$(openssl x509 -in "$SB_CERT" -noout -fingerprint -sha1 | sed 's/^[^=]*=//' | tr A-F a-f)
if [ $mode = shim ]; then
	check_eq "installer: \\EFI\\efiresume\\ holds" "$(ls "$esp/EFI/efiresume" 2>/dev/null | tr '\n' ' ')" "efiresume.conf grubx64.efi mmx64.efi shimx64.efi "
	check_eq "mokutil wrote MokNew (mokutil --list-new lists the certificate)" \
		"$(mokutil --list-new 2>&1 | tr A-F a-f | grep -c "$fp")" 1
	echo "  MokNew: $(ls -l "$v"/MokNew-* 2>/dev/null | awk '{print $5, $NF}')"
else
	check_eq "installer: \\EFI\\efiresume\\ holds" "$(ls "$esp/EFI/efiresume" 2>/dev/null | tr '\n' ' ')" "efiresume.conf efiresume.efi "
	check_eq "no MokNew (db: mokutil not used)" "$(compgen -G "$v/MokNew-*" | wc -l)" 0
	check_eq "efiresume.efi verifies against the certificate" "$(sbverify --cert "$SB_CERT" "$esp/EFI/efiresume/efiresume.efi" 2>&1 | tail -n 1)" "Signature verification OK"
fi
entry=$(sed -n 's/^entry=//p' "$m/state/state" 2>/dev/null)
echo "  entry: Boot$entry, efibootmgr $(cat "$m/efibootmgr-create.log" 2>/dev/null)"
echo "  efibootmgr -v: $(/usr/bin/efibootmgr -v 2>/dev/null | grep -a "^Boot$entry")"
[ -n "$entry" ] && [ -e "$v/Boot$entry-$G" ] || { echo "  WRONG: no entry of the installer (state: $(cat "$m/state/state" 2>/dev/null))"; exit 1; }
check_eq "the entry is first in BootOrder (--secure-boot implies --mode=always)" "$(/usr/bin/efibootmgr 2>/dev/null | sed -n 's/^BootOrder: //p' | cut -d, -f1)" "$entry"

# ---- the installer's ESP directory on the test disk's FAT ESP, with the kernel and initrd
mcopy -s -o -i "$d/disk.img@@$((ESP_START * 512))" "$esp/EFI/efiresume" ::/EFI/
esp_put "$d/disk.img" "$esp/vmlinuz.efi" ::/vmlinuz.efi
esp_put "$d/disk.img" "$esp/initrd.gz" ::/initrd.gz
echo "  ESP: $(mdir -/ -b -i "$d/disk.img@@$((ESP_START * 512))" ::/ | tr '\n' ' ')"

# ---- the variable store: Microsoft's keys, the MOK (the shim case), the installer's entry, BootNext
# shim-moknew: also mokutil's MokNew and MokAuth as the installer left them (the MOK request)
carry=(); [ "$case" = shim-moknew ] && carry=("$v"/MokNew-* "$v"/MokAuth-*)
python3 - "$v/Boot$entry-$G" "$entry" "$G" "${carry[@]}" > "$d/boot.json" <<'EOF'
import json, os, sys
f, n, g = sys.argv[1:4]
raw = open(f, "rb").read()
vs = [{"name": "Boot" + n, "guid": g, "attr": int.from_bytes(raw[:4], "little"), "data": raw[4:].hex()},
	{"name": "BootNext", "guid": g, "attr": 7, "data": int(n, 16).to_bytes(2, "little").hex()}]
for c in sys.argv[4:]:
	raw = open(c, "rb").read()
	name, guid = os.path.basename(c).split("-", 1)
	vs.append({"name": name, "guid": guid, "attr": int.from_bytes(raw[:4], "little"), "data": raw[4:].hex()})
print(json.dumps({"version": 2, "variables": vs}))
EOF
cp "$store" "$d/vars.fd"
mok=()
[ "$case" = shim ] && mok=(--add-mok 338ebdff-5bf8-4971-8760-45caada2d435 "$SB_CERT")
PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$d/vars.fd" -o "$d/vars.new" "${mok[@]}" \
	--set-json "$d/boot.json" > "$d/vfw.log" 2>&1 || { echo "  virt-fw-vars failed"; cat "$d/vfw.log"; exit 1; }
mv "$d/vars.new" "$d/vars.fd"
PYTHONPATH=$vfw python3 -m virt.firmware.vars -i "$d/vars.fd" -p 2>/dev/null | grep -aE "^ *(Boot$entry|BootNext|MokList|MokNew|MokAuth)" | sed 's/^ */  vars: /' || true

L=$d/serial1.log
tmo=240; case $case in *no* | *moknew) tmo=90 ;; esac     # shim-nomok, shim-moknew, db-notindb
t0=$(date +%s)
rc=0
sb_run_qemu "$d/disk.img" "$d/vars.fd" "$L" $tmo -device virtio-rng-pci || rc=$?
echo "  boot 1: qemu exit status $rc ($(( $(date +%s) - t0 )) s)"
go=starting; [ "$case" = db-notindb ] && go=loading        # refused by LoadImage: never "starting"
expect "$L" "BdsDxe: $go Boot$entry \"Resume hibernated Linux\" from HD\(1,GPT,($ESP_PARTUUID|${ESP_PARTUUID^^}),.*\)/\\\\EFI\\\\efiresume\\\\$loader" \
	"BdsDxe $go the installer's entry Boot$entry (BootNext): \\EFI\\efiresume\\$loader" || ok=1
case $case in
shim | db)
	who="shim started efiresume (grubx64.efi, signed by the installer)"
	[ $mode = db ] && who="the firmware started efiresume.efi (signed by the installer, certificate in db)"
	expect "$L" "efiresume: efiresume .* \(x64\) started" "$who" || ok=1
	expect "$L" "efiresume: configuration \\\\EFI\\\\efiresume\\\\efiresume.conf read" "efiresume read the installer's \\EFI\\efiresume\\efiresume.conf" || ok=1
	expect "$L" "efiresume: Secure Boot is on" "efiresume saw Secure Boot" || ok=1
	expect "$L" "efiresume: swap PARTUUID=$SWAP_PARTUUID: no image" "no image" || ok=1
	expect "$L" "efiresume: starting \\\\vmlinuz.efi initrd=\\\\initrd.gz console=ttyS0 panic=-1 efiresume_marker=$marker" "it starts the installer's fallback with its options" || ok=1
	expect "$L" "EFIRESUME-TEST: marker=$marker\$" "the fallback kernel started ($([ $mode = shim ] && echo "Debian's signature, shim verified it" || echo "snakeoil signature, the firmware's db"))" || ok=1
	expect "$L" "EFIRESUME-TEST: secureboot=1 lockdown=.*\[integrity\]" "the kernel runs under Secure Boot, locked down" || ok=1
	;;
shim-moknew)
	expect "$L" "Perform MOK management|Press any key to perform MOK management" "shim started MokManager (\\EFI\\efiresume\\mmx64.efi) for the MOK request" || ok=1
	# nobody confirms it (MokManager's screens are not played): its 10 s pass, shim goes on and refuses
	expect "$L" "Verification failed: \(0x1A\) Security Violation" "unconfirmed: after MokManager's countdown shim refuses efiresume" || ok=1
	expect_not "$L" "efiresume: efiresume .* started" "efiresume never started" || ok=1
	;;
shim-nomok | db-notindb)
	expect_not "$L" "efiresume: efiresume .* started" "efiresume never started" || ok=1
	if [ $mode = shim ]; then
		expect "$L" "Verification failed: \(0x1A\) Security Violation" "shim refused it" || ok=1
	else
		expect "$L" "BdsDxe: failed to load Boot$entry .*efiresume.efi: Access Denied" "the firmware refused it" || ok=1
	fi
	;;
esac
exit $ok
