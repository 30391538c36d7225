#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Host-side test of tools/efiresume-install and its systemd-sleep hook against a fake root:
# a fake sysfs (firmware/efi, efivars as a plain directory, power/resume, class/block,
# dev/block), tmpfs mounts standing in for the ESP (mounted with source /dev/vda1) and for a
# read-only efivarfs, swap "devices" that are regular files (mkswap, mke2fs), and
# /proc/swaps. The real efibootmgr works on the fake efivars (EFIVARFS_PATH); only its
# entry creation (-C, which needs a real disk) is played by a wrapper that writes the
# HD()/File() load option efibootmgr would write, and logs its arguments.
# Oracles: efiresume's own parsers (loader/config.c reads the efiresume.conf the tool
# wrote; loader/location.c reads EfiresumeLocation; the loader's swap and filesystem UUID
# readers read the devices), efibootmgr -v (reads the entries), blkid, cmp.
# Needs root (tmpfs mounts). Prints "ok:"/"FAIL:" lines and ends with "N passed, N failed".
#   tests/host/test-install.sh        (from the top of the tree; builds its helper with gcc)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# EFIRESUME_TEST_TOOL, EFIRESUME_TEST_HOOK: another efiresume-install / hook to test (control runs)
TOOL=${EFIRESUME_TEST_TOOL:-$TOP/tools/efiresume-install}
HOOK=${EFIRESUME_TEST_HOOK:-$TOP/packaging/efiresume.sleep}
G=8be4df61-93ca-11d2-aa0d-00e098032b8c
ERG=338ebdff-5bf8-4971-8760-45caada2d435
LABEL="Resume hibernated Linux"

passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
# (a here-string, not a pipe: under pipefail, grep -q quitting at the first match can kill printf
# with SIGPIPE and turn a match into a failure)
has() { if grep -qF -- "$3" <<<"$2"; then ok "$1"; else fail "$1: no '$3' in: $2"; fi; }
finish() { echo "$passes passed, $fails failed"; [ "$fails" = 0 ]; exit $?; }
# jq_ EXPR: the python expression EXPR on the JSON object on stdin (d; python3's json parser
# is the oracle)
jq_() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

W=$(mktemp -d /tmp/efiresume-install-test.XXXXXX)
MOUNTS=()
cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

# ---------------------------------------------------------------- oracle: the loader's parsers
cat >"$W/oracle.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader/config.h"
#include "loader/location.h"
static unsigned char buf[1 << 20];
static size_t slurp(const char *p, size_t max)
{
	FILE *f = fopen(p, "rb");
	if (!f) { perror(p); exit(2); }
	size_t n = fread(buf, 1, max, f);
	fclose(f);
	return n;
}
static void warn(void *ctx, unsigned line, const char *key, const char *reason)
{
	(void)ctx;
	printf("warning=%u %s %s\n", line, key, reason);
}
int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "conf")) {
		struct er_config c;
		size_t n = slurp(argv[2], sizeof(buf));
		er_config_defaults(&c);
		unsigned w = er_config_parse(&c, (const char *)buf, n, warn, NULL);
		printf("warnings=%u\ntimeout=%u\nfallback=%s\noptions=%s\ndry_run=%d\n", w, c.timeout,
		       c.fallback, c.options, c.dry_run);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "hibloc")) {   /* an efivarfs file: 4 attribute bytes first */
		struct er_location h;
		char u[37];
		size_t n = slurp(argv[2], sizeof(buf));
		if (n < 4 || !er_location_parse((const char *)buf + 4, n - 4, &h)) {
			printf("unparsable\n");
			return 1;
		}
		er_uuid_format(h.uuid, u);
		printf("attr=%u\nuuid=%s\noffset=%llu\nkernel=%s\nluks=%s\nlv=%s\n", er_le32(buf), u,
		       (unsigned long long)h.offset, h.kernel, h.luks, h.lv);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "swapuuid")) {
		uint8_t g[16];
		char u[37];
		slurp(argv[2], 4096);
		er_swap_uuid(buf, g);
		er_uuid_format(g, u);
		printf("%s\n", u);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "fsuuid")) {
		uint8_t g[16];
		char u[37];
		size_t n = slurp(argv[2], ER_FS_UUID_BYTES);
		if (!er_fs_uuid(buf, n, g))
			return 1;
		er_uuid_format(g, u);
		printf("%s\n", u);
		return 0;
	}
	return 2;
}
EOF
# linked like the unit tests: with the host objects make builds (build/host), else the sources
if [ -e "$TOP/build/host/loader/location.o" ] && [ -e "$TOP/build/host/loader/config.o" ]; then
	srcs=("$TOP"/build/host/{image,crypto,volume}/*.o "$TOP/build/host/loader/config.o" "$TOP/build/host/loader/location.o")
else
	srcs=("$TOP"/{image,crypto,volume}/*.c "$TOP/loader/config.c" "$TOP/loader/location.c")
fi
gcc -O1 -I"$TOP" -DEFIRESUME_HOST "$W/oracle.c" "${srcs[@]}" -o "$W/oracle" || { fail "cannot build the oracle"; finish; }
ORACLE=$W/oracle

# ---------------------------------------------------------------- load options
# mkopt FILE DESC PART PARTGUID PATH [OPTDATA_TEXT [ascii]]   (UCS-2 unless ascii; PATH "" = no File node:
# a firmware-volume file node instead, as OVMF's own entries)
cp "$TOP/tests/host/mkopt.pl" "$W/mkopt.pl"
mkopt() { perl "$W/mkopt.pl" "$@"; }
u16var() { perl -e 'open my $fh, ">:raw", $ARGV[0] or die; print $fh pack("V", 7), pack("v*", map { hex } @ARGV[1..$#ARGV])' "$@"; }
rdorder() { perl -e 'local $/; open my $fh, "<:raw", $ARGV[0] or exit 0; my $d = <$fh>; print join(",", map { sprintf "%04X", $_ } unpack("v*", substr($d, 4))), "\n"' "$1"; }

ESP_GUID=0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f50
STUB_OPTS='initrd=\EFI\debian\initrd.img root=/dev/vda3 ro console=ttyS0'

# build a fresh fake machine in $W/m; $1: fw word size (64|32)
machine() {
	local m=$W/m
	for x in "${MOUNTS[@]}"; do umount "$x" 2>/dev/null; done
	MOUNTS=()
	rm -rf "$m"
	mkdir -p "$m"/sys/firmware/efi/efivars "$m"/sys/power "$m"/sys/devices/virtual/block/vda/{vda1,vda2,vda3} \
		"$m"/sys/class/block "$m"/sys/dev/block/{254:1,254:2,254:3} "$m"/proc "$m"/dev "$m"/state "$m"/lib \
		"$m"/bin "$m"/boot/efi "$m"/efi
	echo "${1:-64}" >"$m/sys/firmware/efi/fw_platform_size"
	for p in 1 2 3; do
		echo "$p" >"$m/sys/devices/virtual/block/vda/vda$p/partition"
		ln -s "../../devices/virtual/block/vda/vda$p" "$m/sys/class/block/vda$p"
		printf 'MAJOR=254\nMINOR=%s\nDEVNAME=vda%s\nDEVTYPE=partition\nPARTN=%s\n' "$p" "$p" "$p" >"$m/sys/devices/virtual/block/vda/vda$p/uevent"
		rmdir "$m/sys/dev/block/254:$p"
		ln -s "../../devices/virtual/block/vda/vda$p" "$m/sys/dev/block/254:$p"
		# udev's links (the partition UUIDs of a GPT; blkid -p finds none in these files)
		mkdir -p "$m/dev/disk/by-partuuid"
		ln -s "../../vda$p" "$m/dev/disk/by-partuuid/$(printf '0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f5%s' "$p")"
	done
	echo 254:2 >"$m/sys/power/resume"
	echo 0 >"$m/sys/power/resume_offset"
	# swap partition vda2 (a file), and vda3 an ext4 filesystem holding a swap file
	truncate -s 8M "$m/dev/vda2"
	mkswap -U 5b3a0c9e-1111-4222-8333-944455556666 "$m/dev/vda2" >/dev/null 2>&1
	truncate -s 16M "$m/dev/vda3"
	mke2fs -q -F -t ext4 -U 7e2f4a10-aaaa-4bbb-8ccc-dddddddddddd "$m/dev/vda3" >/dev/null 2>&1
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n%s\tpartition\t8188\t\t0\t\t-2\n' "$m/dev/vda2" >"$m/proc/swaps"
	# EFI variables: OVMF-like entries, a shim entry, a kernel EFI stub entry with a command line
	local v=$m/sys/firmware/efi/efivars
	mkopt "$v/Boot0000-$G" UiApp 0 "" ""
	mkopt "$v/Boot0001-$G" debian 1 "$ESP_GUID" '\EFI\debian\shimx64.efi'
	mkopt "$v/Boot0002-$G" "Debian (EFI stub)" 1 "$ESP_GUID" '\EFI\debian\vmlinuz.efi' "$STUB_OPTS"
	mkopt "$v/Boot0003-$G" "UEFI Misc Device" 0 "" ""
	u16var "$v/BootOrder-$G" 0002 0001 0003 0000
	u16var "$v/BootCurrent-$G" 0002
	printf '\006\000\000\000\000' >"$v/SecureBoot-$G"
	# package binaries (distinct contents per arch) and the ESP
	head -c 70000 /dev/urandom >"$m/lib/efiresume-x64.efi"
	head -c 60000 /dev/urandom >"$m/lib/efiresume-ia32.efi"
	mount -t tmpfs -o size=16m /dev/vda1 "$m/boot/efi" || { fail "cannot mount a tmpfs (needs root)"; finish; }
	MOUNTS+=("$m/boot/efi")
	mkdir -p "$m/boot/efi/EFI/debian" "$m/boot/efi/EFI/BOOT"
	echo shim >"$m/boot/efi/EFI/debian/shimx64.efi"
	echo stub >"$m/boot/efi/EFI/debian/vmlinuz.efi"
	echo removable >"$m/boot/efi/EFI/BOOT/BOOTX64.EFI"
	# efibootmgr: the real one, except -C (needs a real disk): write what it would, log the call
	cat >"$m/bin/efibootmgr" <<EOF
#!/bin/bash
case " \$* " in
*" -C "*)
	echo "\$*" >>"$m/efibootmgr-create.log"
	[ -e "$m/fail-create" ] && { echo "Could not prepare Boot variable: No space left on device" >&2; exit 5; }
	while [ \$# -gt 0 ]; do
		case \$1 in -d) disk=\$2; shift ;; -p) part=\$2; shift ;; -L) label=\$2; shift ;; -l) loader=\$2; shift ;; esac
		shift
	done
	[ -e "\$disk" ] || [ "\$disk" = "$m/dev/vda" ] || { echo "no disk \$disk" >&2; exit 1; }
	for n in \$(seq 0 255); do
		x=\$(printf %04X \$n)
		[ -e "$v/Boot\$x-$G" ] && continue
		# the partition's GUID as the kernel shows it (uevent PARTUUID), else ESP_GUID
		g=\$(sed -n 's/^PARTUUID=//p' "$m/sys/class/block/vda\$part/uevent" 2>/dev/null)
		perl "$W/mkopt.pl" "$v/Boot\$x-$G" "\$label" "\$part" "\${g:-$ESP_GUID}" "\$loader"
		exit 0
	done
	exit 1 ;;
*" -o "*)
	# efivarfs replaces a variable on write; libefivar's write into a plain directory
	# would leave the old tail of a longer BootOrder: remove it first, as the kernel would
	cp "$v/BootOrder-$G" "$m/BootOrder.old" 2>/dev/null
	rm -f "$v/BootOrder-$G"
	/usr/bin/efibootmgr "\$@" && exit 0
	rc=\$?
	cp "$m/BootOrder.old" "$v/BootOrder-$G" 2>/dev/null
	exit \$rc ;;
esac
exec /usr/bin/efibootmgr "\$@"
EOF
	chmod +x "$m/bin/efibootmgr"
	M=$m V=$v ESP=$m/boot/efi
	export EFIRESUME_SYSFS=$m/sys EFIRESUME_PROC=$m/proc EFIRESUME_DEV=$m/dev EFIRESUME_STATE_DIR=$m/state \
		EFIRESUME_LIBDIR=$m/lib EFIRESUME_ESP_FSTYPES="vfat tmpfs" EFIRESUME_EFIBOOTMGR=$m/bin/efibootmgr \
		EFIRESUME_INSPECT=$TOP/build/swsusp-inspect EFIRESUME_ESP_CANDIDATES="$m/boot/efi $m/efi"
	export EFIVARFS_PATH=$v/
}

# everything the tool may change, as one checksum
snapshot() { (cd "$M" && find sys/firmware/efi/efivars boot/efi state -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum; find boot/efi state | sort) | sha256sum; }
ours() { # Boot#### whose file path is ours, by efibootmgr -v (the oracle for our entries)
	efibootmgr -v 2>/dev/null | grep -i 'File(\\EFI\\efiresume\\efiresume.efi)' | sed -n 's/^Boot\([0-9A-F]\{4\}\).*/\1/p'
}
conf() { "$ORACLE" conf "$ESP/EFI/efiresume/efiresume.conf" | sed -n "s/^$1=//p"; }
st() { sed -n "s/^$1=//p" "$M/state/state"; }

# mkdm N NAME UUID SLAVE...: device-mapper device dm-N (253:N) as the kernel shows it in
# sysfs (dm/name, dm/uuid, slaves/, /sys/dev/block, /sys/class/block, /sys/block links),
# and its "device node" $M/dev/dm-N
mkdm() {
	local n=$1 name=$2 uuid=$3 d=$M/sys/devices/virtual/block/dm-$1 sl
	shift 3
	mkdir -p "$d/dm" "$d/slaves" "$M/sys/block"
	echo "$name" >"$d/dm/name"
	echo "$uuid" >"$d/dm/uuid"
	printf 'MAJOR=253\nMINOR=%s\nDEVNAME=dm-%s\nDEVTYPE=disk\n' "$n" "$n" >"$d/uevent"
	for sl; do
		case $sl in dm-*) ln -s "../../$sl" "$d/slaves/$sl" ;; *) ln -s "../../vda/$sl" "$d/slaves/$sl" ;; esac
	done
	ln -s "../../devices/virtual/block/dm-$n" "$M/sys/class/block/dm-$n"
	ln -s "../devices/virtual/block/dm-$n" "$M/sys/block/dm-$n"
	ln -s "../../devices/virtual/block/dm-$n" "$M/sys/dev/block/253:$n"
}
rmdm() { rm -rf "$M"/sys/devices/virtual/block/dm-* "$M"/sys/class/block/dm-* "$M"/sys/block/dm-* "$M"/sys/dev/block/253:* "$M"/dev/dm-* "$M"/dev/mapper; }

# ---------------------------------------------------------------- Secure Boot (issue 17 item 1)
# install --secure-boot=shim|db --key --cert: the real sbsign, sbverify and openssl sign the
# real EFI binary (build/efiresume-x64.efi, make all) with a throw-away key; the real
# mokutil works on the fake efivars (EFIVARFS_PATH, like efibootmgr) behind a wrapper that
# logs its arguments and keeps the DER it was given to import; Debian's signed shim and
# MokManager (shim-signed, shim-helpers-amd64-signed: the host's /usr/lib/shim, else
# apt-get download). efi-updatevar is a stub that appends the certificate to db as an
# EFI_SIGNATURE_LIST. Oracles: sbverify --cert, openssl, cmp with the shim-signed files and
# with the package binary (signature and PE checksum taken off), efibootmgr -v, mokutil
# --list-new/--test-key, the state file. EFIRESUME_TEST_ONLY=secure-boot runs only this.
# esl FILE ATTR DER...: an EFI variable file of one EFI_SIGNATURE_LIST (X.509) per certificate
# (tests/host/esl.pl)
cp "$TOP/tests/host/esl.pl" "$W/esl.pl"
esl() { perl "$W/esl.pl" "$@"; }
# same_image SIGNED UNSIGNED: the signed file is UNSIGNED plus a signature (sbattach --remove,
# then the PE checksum zeroed in both and the padding sbsign adds cut off)
same_image() {
	cp "$1" "$W/strip.efi" && sbattach --remove "$W/strip.efi" >/dev/null 2>&1 || return 1
	perl -e 'sub rd { open my $f, "<:raw", $_[0] or die; local $/; my $d = <$f>; my $pe = unpack("V", substr($d, 0x3c, 4)); substr($d, $pe + 88, 4) = "\0" x 4; $d }
		my ($a, $b) = (rd($ARGV[0]), rd($ARGV[1])); exit(substr($a, 0, length $b) eq $b && length($a) - length($b) < 8 ? 0 : 1)' "$W/strip.efi" "$2"
}
secure_boot_tests() {
	local out rc before dbv mokv shimd k=$W/keys i n fp
	if [ ! -e "$TOP/build/efiresume-x64.efi" ]; then fail "Secure Boot: build/efiresume-x64.efi is missing (make all)"; return; fi
	for i in sbsign sbverify sbattach openssl mokutil; do
		command -v "$i" >/dev/null 2>&1 || { fail "Secure Boot: $i is not installed (tests/lib/deps.sh)"; return; }
	done
	mkdir -p "$k"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=efiresume-test-mok -keyout "$k/mok.key" -out "$k/mok.crt" >/dev/null 2>&1
	openssl x509 -outform DER -in "$k/mok.crt" -out "$k/mok.der"
	openssl req -new -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=someone-else -keyout "$k/other.key" -out "$k/other.crt" >/dev/null 2>&1
	openssl x509 -outform DER -in "$k/other.crt" -out "$k/other.der"
	openssl pkey -in "$k/mok.key" -aes256 -passout pass:secret -out "$k/mok-enc.key" 2>/dev/null
	# Debian's signed shim and MokManager
	shimd=/usr/lib/shim
	if [ ! -r "$shimd/shimx64.efi.signed" ] || [ ! -r "$shimd/mmx64.efi.signed" ]; then
		shimd=$W/shimroot/usr/lib/shim
		mkdir -p "$W/shimdl" && chmod 755 "$W" "$W/shimdl"
		(cd "$W/shimdl" && apt-get download -q shim-signed shim-helpers-amd64-signed) >/dev/null 2>&1
		for i in "$W"/shimdl/*.deb; do [ -e "$i" ] && dpkg-deb -x "$i" "$W/shimroot"; done
	fi
	if [ -r "$shimd/shimx64.efi.signed" ] && [ -r "$shimd/mmx64.efi.signed" ]; then
		REALSHIM=1
		echo "note: Secure Boot: shim from $shimd"
	else
		# no shim-signed to be had: stand-ins (a signed PE each), the vendor-certificate check skipped
		REALSHIM=
		shimd=$W/fakeshim
		mkdir -p "$shimd"
		sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$shimd/shimx64.efi.signed" "$TOP/build/efiresume-ia32.efi" >/dev/null 2>&1
		sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$shimd/mmx64.efi.signed" "$TOP/build/seeds-writer-x64.efi" >/dev/null 2>&1
		echo "note: Secure Boot: shim-signed not available, stand-in shim files"
	fi
	sbmachine() { # a machine with Secure Boot on, the real binary, the wrappers
		machine 64
		cp "$TOP/build/efiresume-x64.efi" "$M/lib/efiresume-x64.efi"
		printf '\006\000\000\000\001' >"$V/SecureBoot-$G"
		printf '\006\000\000\000\000' >"$V/SetupMode-$G"
		dbv=$V/db-d719b2cb-3d3a-4596-a3bc-dad00e67656f
		mokv=$V/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
		esl "$dbv" 39 "$k/other.der"        # someone's db: not our certificate
		cat >"$M/bin/mokutil" <<EOF2
#!/bin/bash
echo "\$*" >>"$M/mokutil.log"
case " \$* " in *" --import "*) cp "\${@: -1}" "$M/mokutil-import.der" ;; esac
[ -e "$M/mokutil-fail" ] && [ "\$1" = --import ] && { echo "Failed to enroll new keys" >&2; exit 1; }
exec mokutil "\$@"
EOF2
		cat >"$M/bin/efi-updatevar" <<EOF2
#!/bin/bash
# efi-updatevar -a -c CERT.pem -k KEK.key db: appends CERT to db (what efitools does, unsigned)
echo "\$*" >>"$M/efi-updatevar.log"
[ "\$1 \$2 \$4 \$6" = "-a -c -k db" ] || exit 1
openssl x509 -in "\$3" -outform DER -out "$M/add.der" || exit 1
perl "$W/esl.pl" "$M/add.esl" 0 "$M/add.der" && tail -c +5 "$M/add.esl" >>"$dbv"
EOF2
		chmod +x "$M/bin/mokutil" "$M/bin/efi-updatevar"
		export EFIRESUME_SHIM_DIR=$shimd EFIRESUME_MOKUTIL=$M/bin/mokutil EFIRESUME_EFI_UPDATEVAR=$M/bin/efi-updatevar
	}
	sbrefused() { # CASE MESSAGE -- ARGS...: fails, says MESSAGE, nothing changed (ESP, variables, state)
		local name=$1 msg=$2 b a o r
		shift 3
		b=$(snapshot)
		o=$("$TOOL" "$@" 2>&1 </dev/null); r=$?
		a=$(snapshot)
		if [ "$r" != 0 ] && grep -qF -- "$msg" <<<"$o" && [ "$b" = "$a" ]; then ok "Secure Boot refused: $name"
		else fail "Secure Boot refused: $name: rc $r, unchanged $([ "$b" = "$a" ] && echo yes || echo NO), output: $o"; fi
	}
	entries_v() { efibootmgr -v 2>/dev/null | grep -i 'File(\\EFI\\efiresume\\'; }
	shim_entry() { efibootmgr -v 2>/dev/null | grep -i 'File(\\EFI\\efiresume\\shimx64.efi)' | sed -n 's/^Boot\([0-9A-F]\{4\}\).*/\1/p'; }
	D() { echo "$ESP/EFI/efiresume/$1"; }
	KC=(--key="$k/mok.key" --cert="$k/mok.crt")
	# postinst_run ARGS...: packaging/postinst as dpkg runs it, in a mount namespace whose
	# /var/lib/efiresume is the fake machine's state directory; efiresume-install is the tool
	# under test, deb-systemd-helper and systemctl stand-ins that do nothing
	postinst_run() {
		mkdir -p "$W/pbin"
		printf '#!/bin/sh\nexec "%s" "$@"\n' "$TOOL" >"$W/pbin/efiresume-install"
		printf '#!/bin/sh\nexit 0\n' >"$W/pbin/deb-systemd-helper"
		printf '#!/bin/sh\nexit 0\n' >"$W/pbin/systemctl"
		chmod +x "$W/pbin/efiresume-install" "$W/pbin/deb-systemd-helper" "$W/pbin/systemctl"
		PATH=$W/pbin:$PATH unshare -m sh -c 'mount -t tmpfs none /var/lib && mkdir /var/lib/efiresume &&
			mount --bind "$0" /var/lib/efiresume && exec sh "$@"' "$M/state" "$TOP/packaging/postinst" "$@" </dev/null
	}

	# --- Secure Boot on, nothing asked: refused, both ways named, nothing changed
	sbmachine
	sbrefused "on, no --secure-boot: names --secure-boot=shim" "--secure-boot=shim --key=KEY --cert=CERT" -- install
	sbrefused "on, no --secure-boot: names --secure-boot=db" "--secure-boot=db --key=KEY --cert=CERT" -- install
	sbrefused "on, --secure-boot=none" "efiresume is not signed" -- install --secure-boot=none
	sbrefused "shim without --key" "needs --key=KEY and --cert=CERT" -- install --secure-boot=shim --cert="$k/mok.crt"
	sbrefused "a key that is not the certificate's" "does not belong to the certificate" -- install --secure-boot=shim --key="$k/other.key" --cert="$k/mok.crt"
	sbrefused "a certificate that is none" "is not an X.509 certificate" -- install --secure-boot=shim --key="$k/mok.key" --cert="$k/mok.key"
	EFIRESUME_SHIM_DIR=$W/noshim sbrefused "no shim-signed" "apt install shim-signed" -- install --secure-boot=shim "${KC[@]}"
	sbrefused "bad --secure-boot" "--secure-boot must be shim, db or none" -- install --secure-boot=grub "${KC[@]}"
	# under Secure Boot only a kernel started through efiresume gets a hibernation key: efiresume
	# must be in front of every boot (issue "Secure Boot hibernation that keeps lockdown's promise")
	sbrefused "--secure-boot=shim with --mode=on-hibernate" "--mode=on-hibernate cannot be used with --secure-boot" -- install --secure-boot=shim --mode=on-hibernate "${KC[@]}"
	sbrefused "--secure-boot=db with --mode=on-hibernate" "--mode=on-hibernate cannot be used with --secure-boot" -- install --secure-boot=db --mode=on-hibernate "${KC[@]}"
	# control: the same refusal helper passes a run that is not refused only when it changes nothing
	out=$("$TOOL" install --secure-boot=db --mode=always "${KC[@]}" 2>&1 </dev/null)
	grep -qF -- "--mode=on-hibernate cannot be used" <<<"$out" && fail "control: --mode=always refused too: $out" || ok "control: --secure-boot with --mode=always is not refused for the mode"
	sbrefused "--engine other than pkcs11" "--engine must be pkcs11" -- install --secure-boot=db --engine=tpm2 "${KC[@]}"
	sbrefused "--engine=pkcs11 with a key file, not a URI" "a PKCS#11 URI" -- install --secure-boot=db --engine=pkcs11 "${KC[@]}"
	sbrefused "--keep-key without --secure-boot" "--keep-key is for --secure-boot=shim or db" -- install --keep-key
	check "refused: mokutil never asked to import" "$(cat "$M/mokutil.log" 2>/dev/null | grep -c -- --import)" 0

	# --- shim: Debian's shim starts efiresume as its second stage; the certificate imported as a MOK
	sbmachine
	order0=$(rdorder "$V/BootOrder-$G")
	mkdir -p "$W/sbtmp"
	out=$(printf 'mokpass1\nmokpass1\n' | TMPDIR=$W/sbtmp "$TOOL" install --secure-boot=shim "${KC[@]}" 2>&1); rc=$?
	check "shim: install status" "$rc" 0
	cmp -s "$shimd/shimx64.efi.signed" "$(D shimx64.efi)" && ok "shim: shimx64.efi is shim-signed's shimx64.efi.signed, byte for byte" || fail "shim: shimx64.efi: $(ls -l "$(D shimx64.efi)" 2>&1)"
	cmp -s "$shimd/mmx64.efi.signed" "$(D mmx64.efi)" && ok "shim: mmx64.efi (MokManager) next to it, byte for byte" || fail "shim: no mmx64.efi: $out"
	out2=$(sbverify --cert "$k/mok.crt" "$(D grubx64.efi)" 2>&1); rc=$?
	check "shim: grubx64.efi verifies against the certificate (sbverify --cert)" "$rc:$(tail -n 1 <<<"$out2")" "0:Signature verification OK"
	[ -e "$(D grubx64.efi)" ] && ! sbverify --cert "$k/other.crt" "$(D grubx64.efi)" >/dev/null 2>&1 &&
		ok "shim: grubx64.efi does not verify against another certificate" || fail "shim: grubx64.efi missing, or verifies against another certificate too"
	same_image "$(D grubx64.efi)" "$M/lib/efiresume-x64.efi" && ok "shim: grubx64.efi is the package binary plus the signature" || fail "shim: grubx64.efi is not the package binary signed"
	check "shim: no unsigned efiresume.efi left on the ESP" "$(ls "$ESP/EFI/efiresume" | tr '\n' ' ')" "efiresume.conf grubx64.efi mmx64.efi shimx64.efi "
	e=$(shim_entry)
	check "shim: one entry of ours, and it starts \\EFI\\efiresume\\shimx64.efi (efibootmgr -v)" "$(entries_v | wc -l):$(echo "$e" | grep -c .)" 1:1
	check "shim: state entry" "$(st entry)" "${e:-no shim entry}"
	# the signing key (item 4): used once, neither its path nor a copy kept
	check "shim: state: mode and certificate, no key recorded" "$(st secure-boot) $(st cert) key-lines=$(grep -c '^key=' "$M/state/state")" "shim $k/mok.crt key-lines=0"
	check "shim: no copy of the key on the ESP or in the state directory" \
		"$(grep -rlF -- "$(sed -n 2p "$k/mok.key")" "$ESP" "$M/state" 2>/dev/null)" ""
	check "shim: nothing left in TMPDIR" "$(ls -A "$W/sbtmp")" ""
	has "shim: says the key is not kept and should go offline" "$out" "not recorded and no copy kept: store it offline"
	# control: the key's second line is there to be found (the grep above can find it)
	grep -qF -- "$(sed -n 2p "$k/mok.key")" "$k/mok.key" && ok "control: the key's own file holds the line looked for" || fail "control: the key line is not found in the key"
	# the mode (item 6): efiresume in front of every boot
	check "shim: --secure-boot implies --mode=always (state)" "$(st mode)" always
	check "shim: the entry first in BootOrder, the rest as before" "$(rdorder "$V/BootOrder-$G")" "${e:-none},$order0"
	has "shim: says --secure-boot implies --mode=always" "$out" "--secure-boot implies --mode=always"
	has "shim: mokutil --import called" "$(cat "$M/mokutil.log")" "--import $M/state/mok.der"
	cmp -s "$M/mokutil-import.der" "$k/mok.der" && ok "shim: mokutil got the certificate in DER (= openssl x509 -outform DER)" || fail "shim: the DER given to mokutil differs"
	fp=$(openssl x509 -in "$k/mok.crt" -noout -fingerprint -sha1 | sed 's/^[^=]*=//' | tr A-F a-f)
	has "shim: the real mokutil --list-new lists the certificate (MokNew written)" "$(mokutil --list-new 2>&1 | tr A-F a-f)" "$fp"
	has "shim: says MokManager comes at the next boot" "$out" "at the next boot shim shows MokManager"
	has "shim: says to type the password given to mokutil" "$out" "type the password just given to mokutil"
	has "shim: the unsigned fallback (the stub) is warned about" "$out" "the fallback \\EFI\\debian\\vmlinuz.efi is not signed"
	check "shim: efiresume.conf read by the loader without warnings" "$(conf warnings)" 0
	out=$("$TOOL" status 2>&1)
	check "shim status: Secure Boot on, no complaint" "$(grep '^Firmware:' <<<"$out")" "Firmware:     UEFI, 64-bit (x64 binary); Secure Boot enabled"
	has "shim status: the mode and certificate" "$out" "Secure Boot:  --secure-boot=shim, certificate $k/mok.crt"
	has "shim status: the key is not kept" "$out" "Signing key:  not kept on this machine"
	has "shim status: mode always" "$out" "Mode:         always"
	has "shim status: installed, signed" "$out" "Installed:    yes, $(D grubx64.efi), the package's (unknown), signed"
	# where efiresume keeps the hibernation key, as this boot's efiresume said (EfiresumeKeyStore)
	has "shim status: no EfiresumeKeyStore: where the key is, unknown" "$out" "Key:          unknown (this boot did not start through efiresume"
	for ks in V3:tpm V2:variable none:none; do
		printf '\006\000\000\000%s' "${ks%%:*}" >"$V/EfiresumeKeyStore-$ERG"
		out=$("$TOOL" status 2>&1)
		case ${ks%%:*} in
		V3) has "shim status: the key sealed to the TPM (EfiresumeKeyStore V3)" "$out" "Key:          the hibernation key is sealed to the TPM (PCR 7) in EfiresumeHibernationKeyV3" ;;
		V2) has "shim status: the key in a variable (EfiresumeKeyStore V2)" "$out" "Key:          the hibernation key is in plain in the boot-services variable EfiresumeHibernationKeyV2 (no TPM at this boot)" ;;
		none) has "shim status: no key made (EfiresumeKeyStore none)" "$out" "Key:          efiresume made no hibernation key at this boot" ;;
		esac
		check "shim status --json: firmware.hibernationKey for ${ks%%:*}" "$("$TOOL" status --json 2>/dev/null | jq_ 'd["firmware"]["hibernationKey"]')" "${ks#*:}"
	done
	rm -f "$V/EfiresumeKeyStore-$ERG"
	has "shim status: the signature verifies" "$out" "Signature:    grubx64.efi verifies against the certificate (CN = efiresume-test-mok) (sbverify)"
	has "shim status: shim is shim-signed's, MokManager there" "$out" "Shim:         shimx64.efi is $shimd/shimx64.efi.signed; mmx64.efi next to it"
	has "shim status: the MOK pending" "$out" "MOK:          pending: at the next boot through shim, MokManager asks to confirm it"
	has "shim status: the entry starts shim, first in BootOrder" "$out" "Entry:        Boot$e \"$LABEL\" \\EFI\\efiresume\\shimx64.efi; in BootOrder: yes (position 1)"
	# always mode: the hook leaves BootNext alone
	out=$(EFIRESUME_INSTALL=$TOOL "$HOOK" pre hibernate 2>&1)
	[ -e "$V/BootNext-$G" ] && fail "shim, always: the hook set BootNext: $out" || ok "shim, always: the hook leaves BootNext alone"
	EFIRESUME_INSTALL=$TOOL "$HOOK" post hibernate >/dev/null 2>&1
	# again, the request pending: not imported a second time; no key needed (the ESP is current)
	out=$("$TOOL" install 2>&1 </dev/null); rc=$?
	check "shim, install again (recorded mode, no key): status" "$rc" 0
	check "shim, install again: mokutil --import not called again (pending)" "$(grep -c -- '--import' "$M/mokutil.log")" 1
	has "shim, install again: says it waits" "$out" "waits for enrolment already"
	check "shim, install again: still one entry" "$(entries_v | wc -l):$(shim_entry)" "1:$e"
	sbrefused "shim installed, then --mode=on-hibernate" "--mode=on-hibernate cannot be used with --secure-boot" -- install --mode=on-hibernate

	# --- update without the key (the default): the signed binary stays, the command to re-sign is printed
	perl -pi -e 's/0~git/9~git/g' "$M/lib/efiresume-x64.efi"
	cmp -s "$TOP/build/efiresume-x64.efi" "$M/lib/efiresume-x64.efi" && fail "update: the new package binary is the old one"
	before=$(snapshot)
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	check "shim update, no key: status 0 (nothing is wrong, nothing was signed)" "$rc" 0
	check "shim update, no key: nothing changed (ESP, variables, state)" "$(snapshot)" "$before"
	has "shim update, no key: says the signed one stays" "$out" "the signed efiresume on the ESP stays as it is"
	has "shim update, no key: prints the command to re-sign" "$out" "efiresume-install update --key=KEY --cert=$k/mok.crt"
	same_image "$(D grubx64.efi)" "$M/lib/efiresume-x64.efi" && fail "shim update, no key: grubx64.efi became the new binary" || ok "shim update, no key: grubx64.efi is not the new binary"
	check "shim update, no key: the old signed binary still verifies" "$(sbverify --cert "$k/mok.crt" "$(D grubx64.efi)" >/dev/null 2>&1; echo $?)" 0
	has "shim update, no key: status says the package's is not installed, and how" "$("$TOOL" status 2>&1)" "run efiresume-install update --key=KEY --cert=$k/mok.crt"
	out=$("$TOOL" update --graceful 2>&1 </dev/null); rc=$?
	check "shim update --graceful, no key: status 0" "$rc" 0
	has "shim update --graceful, no key: prints the command" "$out" "efiresume-install update --key=KEY --cert=$k/mok.crt"
	check "shim update --graceful, no key: nothing changed" "$(snapshot)" "$before"
	# the package's postinst on an upgrade (dpkg's "configure OLD"): succeeds and prints the same
	out=$(postinst_run configure 0~old 2>&1); rc=$?
	check "postinst configure (upgrade), no key: status 0" "$rc" 0
	has "postinst configure (upgrade), no key: prints the command to re-sign" "$out" "efiresume-install update --key=KEY --cert=$k/mok.crt"
	check "postinst configure (upgrade), no key: nothing changed" "$(snapshot)" "$before"
	# control: the postinst wrapper really runs the tool (a first install runs no update: no message)
	out=$(postinst_run configure 2>&1); rc=$?
	check "control: postinst configure (first install) prints no advice" "$rc:$(grep -c 'update --key' <<<"$out")" 0:0
	# update --key --cert signs the new binary; the key is still not recorded
	out=$("$TOOL" update "${KC[@]}" 2>&1 </dev/null); rc=$?
	check "shim update --key: status" "$rc" 0
	same_image "$(D grubx64.efi)" "$M/lib/efiresume-x64.efi" && ok "shim update --key: grubx64.efi is the new package binary, signed" || fail "shim update --key: grubx64.efi is not the new binary: $out"
	check "shim update --key: it verifies (sbverify --cert)" "$(sbverify --cert "$k/mok.crt" "$(D grubx64.efi)" >/dev/null 2>&1; echo $?)" 0
	check "shim update --key: state sha256 = the new package binary's" "$(st sha256)" "$(sha256sum "$M/lib/efiresume-x64.efi" | cut -d' ' -f1)"
	check "shim update --key: state signed-sha256 = the file on the ESP" "$(st signed-sha256)" "$(sha256sum "$(D grubx64.efi)" 2>/dev/null | cut -d' ' -f1 | grep . || echo no-file)"
	check "shim update --key: the key still not recorded" "$(grep -c '^key=' "$M/state/state")" 0
	before=$(snapshot)
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	check "shim update again: status" "$rc" 0
	has "shim update again: nothing to do" "$out" "is already the package's (unknown), signed with $k/mok.crt"
	check "shim update again: no advice when nothing is to sign" "$(grep -c 'update --key' <<<"$out")" 0
	check "shim update again: nothing changed" "$(snapshot)" "$before"

	# --- --keep-key: the key path recorded, update signs unattended (the behaviour before)
	out=$("$TOOL" install --keep-key "${KC[@]}" 2>&1 </dev/null); rc=$?
	check "shim --keep-key: status" "$rc" 0
	check "shim --keep-key: state key" "$(st key)" "$k/mok.key"
	has "shim --keep-key: warns who can sign" "$out" "whoever can read $k/mok.key can sign a program that reads the hibernation key"
	has "shim --keep-key: status says the key is kept" "$("$TOOL" status 2>&1)" "Signing key:  kept: $k/mok.key"
	perl -pi -e 's/9~git/7~git/g' "$M/lib/efiresume-x64.efi"
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	check "shim --keep-key update: status" "$rc" 0
	same_image "$(D grubx64.efi)" "$M/lib/efiresume-x64.efi" && ok "shim --keep-key update: grubx64.efi is the new package binary, signed" || fail "shim --keep-key update: grubx64.efi is not the new binary: $out"
	check "shim --keep-key update: it verifies" "$(sbverify --cert "$k/mok.crt" "$(D grubx64.efi)" >/dev/null 2>&1; echo $?)" 0
	has "shim --keep-key update: warns again that the key is kept" "$out" "whoever can read $k/mok.key can sign a program that reads the hibernation key"
	perl -pi -e 's/7~git/8~git/g' "$M/lib/efiresume-x64.efi"
	mv "$k/mok.key" "$k/mok.key.away"
	before=$(snapshot)
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	[ "$rc" != 0 ] && ok "shim --keep-key update, key missing: refused (status $rc)" || fail "shim --keep-key update, key missing: status 0: $out"
	has "shim --keep-key update, key missing: says which key and that the signed one stays" "$out" "cannot read the signing key $k/mok.key (recorded by efiresume-install install --keep-key; give --key=KEY); the signed efiresume on the ESP is left as it was"
	check "shim --keep-key update, key missing: nothing changed (ESP, variables, state)" "$(snapshot)" "$before"
	out=$("$TOOL" update --graceful 2>&1 </dev/null); rc=$?
	check "shim --keep-key update --graceful (postinst), key missing: status 0" "$rc" 0
	has "shim --keep-key update --graceful, key missing: warns" "$out" "warning: update failed; the installed efiresume is left as it was"
	check "shim --keep-key update --graceful, key missing: nothing changed" "$(snapshot)" "$before"
	sbverify --cert "$k/mok.crt" "$(D grubx64.efi)" >/dev/null 2>&1 && ok "shim --keep-key update, key missing: the old signed binary still verifies" || fail "shim update, key missing: binary broken"
	mv "$k/mok.key.away" "$k/mok.key"
	# MOK confirmed (MokManager: MokList, so MokListRT; MokNew gone)
	rm -f "$V"/MokNew-* "$V"/MokAuth-*
	esl "$mokv" 6 "$k/mok.der"
	has "shim status: the MOK enrolled (the real mokutil --test-key)" "$("$TOOL" status 2>&1)" "MOK:          enrolled (mokutil --test-key: $M/state/mok.der is already enrolled)"
	# the fallback: Debian's MokManager is signed by Debian's CA, shim's built-in certificate
	if [ -n "$REALSHIM" ]; then
		cp "$shimd/mmx64.efi.signed" "$ESP/EFI/debian/vmlinuz.efi"
		out=$("$TOOL" update 2>&1 </dev/null)
		has "shim: a fallback signed by Debian's CA is accepted (shim's vendor certificate)" "$out" "fallback \\EFI\\debian\\vmlinuz.efi: signed by CN = Debian Secure Boot Signer 2022 - shim, which db, the MOKs or shim's built-in certificate accepts"
		echo stub >"$ESP/EFI/debian/vmlinuz.efi"
	fi

	# --- switching to db (the certificate in db, the kept key): shim and MokManager go, one entry starts efiresume.efi
	esl "$dbv" 39 "$k/other.der" "$k/mok.der"
	: >"$M/mokutil.log"
	out=$("$TOOL" install --secure-boot=db 2>&1 </dev/null); rc=$?
	check "shim -> db: status" "$rc" 0
	check "shim -> db: only efiresume.efi and efiresume.conf left" "$(ls "$ESP/EFI/efiresume" | tr '\n' ' ')" "efiresume.conf efiresume.efi "
	check "shim -> db: efiresume.efi verifies" "$(sbverify --cert "$k/mok.crt" "$(D efiresume.efi)" >/dev/null 2>&1; echo $?)" 0
	e=$(ours)
	check "shim -> db: one entry, it starts efiresume.efi" "$(entries_v | wc -l):$(echo "$e" | grep -c .)" 1:1
	check "shim -> db: the kept key and certificate kept from the state" "$(st secure-boot) $(st key)" "db $k/mok.key"
	check "shim -> db: mokutil not used" "$(cat "$M/mokutil.log")" ""
	check "shim -> db: the new entry first in BootOrder" "$(rdorder "$V/BootOrder-$G" | cut -d, -f1)" "${e:-none}"
	has "db status: db holds the certificate" "$("$TOOL" status 2>&1)" "db:           holds the certificate (or the one that issued it)"
	# --key without --keep-key: signed once more, the key no longer recorded
	out=$("$TOOL" install "${KC[@]}" 2>&1 </dev/null); rc=$?
	check "db, --key without --keep-key: status, key no longer recorded" "$rc:$(grep -c '^key=' "$M/state/state")" 0:0
	has "db, --key without --keep-key: says it is not recorded" "$out" "not recorded and no copy kept: store it offline"
	has "db status: the key is not kept" "$("$TOOL" status 2>&1)" "Signing key:  not kept on this machine"

	# --- an installation made before (secure-boot recorded with mode on-hibernate): update
	# switches it to always, with or without the key
	"$TOOL" install --keep-key "${KC[@]}" >/dev/null 2>&1 </dev/null
	sed -i 's/^mode=.*/mode=on-hibernate/' "$M/state/state"
	"$M/bin/efibootmgr" -o "$order0" >/dev/null 2>&1
	sed -i '/^key=/d' "$M/state/state"
	out=$(EFIRESUME_INSTALL=$TOOL "$HOOK" pre hibernate 2>&1)
	check "old on-hibernate + db state: the hook still sets BootNext to the signed efiresume" "$(rdorder "$V/BootNext-$G")" "${e:-none}"
	EFIRESUME_INSTALL=$TOOL "$HOOK" post hibernate >/dev/null 2>&1
	check "old on-hibernate + db state (control): the entry is not in BootOrder before update" "$(rdorder "$V/BootOrder-$G")" "$order0"
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	check "old on-hibernate + db: update status" "$rc" 0
	check "old on-hibernate + db: update switches the state to always" "$(st mode)" always
	check "old on-hibernate + db: update puts the entry first in BootOrder" "$(rdorder "$V/BootOrder-$G")" "${e:-none},$order0"
	has "old on-hibernate + db: update says so" "$out" "switched to --mode=always"
	out=$("$TOOL" update 2>&1 </dev/null)
	check "old on-hibernate + db: a second update says nothing about the mode" "$(grep -c 'switched to --mode=always' <<<"$out")" 0

	# --- a key in a PKCS#11 token (--engine=pkcs11): sbsign gets --engine pkcs11 and the URI.
	# No token here: a stand-in sbsign records its arguments and signs with the key file the
	# URI's object names (the real sbsign, the real key), so everything after it is real.
	mkdir -p "$M/stubbin"
	cat >"$M/stubbin/sbsign" <<EOF2
#!/bin/bash
printf '%s\n' "\$@" >"$M/sbsign.argv"
a=("\$@")
if [ "\$1" = --engine ] && [ "\$2" = pkcs11 ] && [ "\$3" = --key ]; then
	case \$4 in pkcs11:*object=efiresume-db*) a=(--key "$k/mok.key" "\${@:5}") ;; *) echo "stand-in: no such token object" >&2; exit 1 ;; esac
fi
exec /usr/bin/sbsign "\${a[@]}"
EOF2
	chmod +x "$M/stubbin/sbsign"
	uri='pkcs11:token=efiresume;object=efiresume-db;type=private'
	perl -pi -e 's/8~git/6~git/g' "$M/lib/efiresume-x64.efi"
	out=$(PATH=$M/stubbin:$PATH "$TOOL" install --secure-boot=db --engine=pkcs11 --key="$uri" --cert="$k/mok.crt" 2>&1 </dev/null); rc=$?
	check "pkcs11: install status" "$rc" 0
	check "pkcs11: sbsign got --engine pkcs11 --key URI --cert ... (its argv)" "$(head -n 4 "$M/sbsign.argv" 2>/dev/null | tr '\n' ' ')" "--engine pkcs11 --key $uri "
	same_image "$(D efiresume.efi)" "$M/lib/efiresume-x64.efi" && sbverify --cert "$k/mok.crt" "$(D efiresume.efi)" >/dev/null 2>&1 &&
		ok "pkcs11: efiresume.efi is the new binary and verifies" || fail "pkcs11: efiresume.efi not the new binary signed: $out"
	check "pkcs11: neither the URI nor the engine recorded" "$(grep -c '^key=\|^engine=' "$M/state/state")" 0
	# control: the stand-in refuses a URI naming another object, and so the install fails, nothing changed
	before=$(snapshot)
	out=$(PATH=$M/stubbin:$PATH "$TOOL" update --engine=pkcs11 --key='pkcs11:token=efiresume;object=nothing' --cert="$k/mok.crt" 2>&1 </dev/null); rc=$?
	[ "$rc" != 0 ] && [ "$(snapshot)" = "$before" ] && ok "control: pkcs11, a URI the token lacks: refused, nothing changed" || fail "control: pkcs11 wrong URI: rc $rc: $out"
	has "control: pkcs11, a URI the token lacks: sbsign's message" "$out" "sbsign could not sign"
	# --keep-key with the engine: both recorded, update passes them again
	out=$(PATH=$M/stubbin:$PATH "$TOOL" install --keep-key --engine=pkcs11 --key="$uri" --cert="$k/mok.crt" 2>&1 </dev/null); rc=$?
	check "pkcs11 --keep-key: status; state key and engine" "$rc:$(st key):$(st engine)" "0:$uri:pkcs11"
	perl -pi -e 's/6~git/5~git/g' "$M/lib/efiresume-x64.efi"
	rm -f "$M/sbsign.argv"
	out=$(PATH=$M/stubbin:$PATH "$TOOL" update 2>&1 </dev/null); rc=$?
	check "pkcs11 --keep-key update: status" "$rc" 0
	check "pkcs11 --keep-key update: sbsign got --engine pkcs11 and the recorded URI" "$(head -n 4 "$M/sbsign.argv" 2>/dev/null | tr '\n' ' ')" "--engine pkcs11 --key $uri "
	same_image "$(D efiresume.efi)" "$M/lib/efiresume-x64.efi" && ok "pkcs11 --keep-key update: the new binary signed" || fail "pkcs11 --keep-key update: not the new binary: $out"
	has "pkcs11 --keep-key: status names the engine" "$("$TOOL" status 2>&1)" "Signing key:  kept: $uri (engine pkcs11)"

	# --- an encrypted PEM key: sbsign asks for the passphrase on the terminal (script(1) gives
	# the run a terminal and types it)
	sbmachine
	esl "$dbv" 39 "$k/mok.der"
	sbterm() { # PASSPHRASE ARGS...: the tool on a terminal, PASSPHRASE typed
		local p=$1 q= a
		shift
		for a in "$TOOL" "$@"; do q="$q $(printf '%q' "$a")"; done
		printf '%s\n' "$p" | SHELL=/bin/bash script -qec "$q" /dev/null
	}
	before=$(snapshot)
	out=$(sbterm wrong install --secure-boot=db --key="$k/mok-enc.key" --cert="$k/mok.crt" 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(snapshot)" = "$before" ] && ok "encrypted key, wrong passphrase (control): refused, nothing changed" || fail "encrypted key, wrong passphrase: rc $rc: $out"
	has "encrypted key, wrong passphrase: sbsign's failure said" "$out" "sbsign could not sign"
	out=$(sbterm secret install --secure-boot=db --key="$k/mok-enc.key" --cert="$k/mok.crt" 2>&1); rc=$?
	check "encrypted key: install status (the passphrase typed at sbsign's prompt)" "$rc" 0
	has "encrypted key: sbsign asked on the terminal" "$out" "Enter PEM pass phrase:"
	check "encrypted key: efiresume.efi verifies" "$(sbverify --cert "$k/mok.crt" "$(D efiresume.efi)" >/dev/null 2>&1; echo $?)" 0
	check "encrypted key: not recorded" "$(grep -c '^key=' "$M/state/state" 2>/dev/null)" 0
	perl -pi -e 's/0~git/4~git/g' "$M/lib/efiresume-x64.efi"
	out=$(sbterm secret update --key="$k/mok-enc.key" --cert="$k/mok.crt" 2>&1); rc=$?
	check "encrypted key: update --key status" "$rc" 0
	same_image "$(D efiresume.efi)" "$M/lib/efiresume-x64.efi" && ok "encrypted key: update --key signs the new binary" || fail "encrypted key: update --key: not the new binary: $out"
	before=$(snapshot)
	out=$(sbterm secret update --key="$k/mok-enc.key" --cert="$k/other.crt" 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(snapshot)" = "$before" ] && ok "encrypted key, another certificate: refused, nothing changed" || fail "encrypted key, another certificate: rc $rc: $out"

	# --- installed unsigned, then Secure Boot turned on: update refuses, the binary stays
	machine 64
	"$TOOL" install >/dev/null 2>&1
	e=$(ours)
	# control: Secure Boot off, the hook sets BootNext (on-hibernate)
	EFIRESUME_INSTALL=$TOOL "$HOOK" pre hibernate >/dev/null 2>&1
	check "unsigned, Secure Boot off (control): the hook sets BootNext" "$(rdorder "$V/BootNext-$G")" "${e:-none}"
	EFIRESUME_INSTALL=$TOOL "$HOOK" post hibernate >/dev/null 2>&1
	printf '\006\000\000\000\001' >"$V/SecureBoot-$G"
	out=$(EFIRESUME_INSTALL=$TOOL "$HOOK" pre hibernate 2>&1); rc=$?
	check "unsigned, Secure Boot on: hook status 0" "$rc" 0
	[ -e "$V/BootNext-$G" ] && fail "unsigned, Secure Boot on: the hook set BootNext" || ok "unsigned, Secure Boot on: the hook does not set BootNext"
	has "unsigned, Secure Boot on: the hook says why" "$out" "Secure Boot is on and efiresume is installed without --secure-boot"
	has "unsigned, Secure Boot on: ... BootNext not set" "$out" "BootNext not set"
	EFIRESUME_INSTALL=$TOOL "$HOOK" post hibernate >/dev/null 2>&1
	u16var "$V/BootNext-$G" "${e:-0000}"
	out=$(EFIRESUME_INSTALL=$TOOL "$HOOK" pre hibernate 2>&1)
	[ -e "$V/BootNext-$G" ] && fail "unsigned, Secure Boot on: a BootNext at efiresume left for the firmware to refuse" || ok "unsigned, Secure Boot on: a BootNext left at efiresume is deleted"
	EFIRESUME_INSTALL=$TOOL "$HOOK" post hibernate >/dev/null 2>&1
	head -c 71000 /dev/urandom >"$M/lib/efiresume-x64.efi"
	before=$(snapshot)
	out=$("$TOOL" update 2>&1 </dev/null); rc=$?
	[ "$rc" != 0 ] && [ "$(snapshot)" = "$before" ] && ok "unsigned install, Secure Boot on: update refused, nothing changed" || fail "unsigned install, Secure Boot on: update: rc $rc: $out"
	has "unsigned install, Secure Boot on: status says so" "$("$TOOL" status 2>&1)" "Secure Boot enabled (efiresume is installed unsigned: the firmware refuses to start it; install it with --secure-boot=shim or db)"
	"$TOOL" remove >/dev/null 2>&1
	unset EFIRESUME_SHIM_DIR EFIRESUME_MOKUTIL EFIRESUME_EFI_UPDATEVAR

	# --- 32-bit UEFI through shim: the ia32 names (stand-ins for shim-signed:i386's files); remove
	machine 32
	cp "$TOP/build/efiresume-ia32.efi" "$M/lib/efiresume-ia32.efi"
	mkdir -p "$W/shim32"
	sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$W/shim32/shimia32.efi.signed" "$TOP/build/seeds-writer-ia32.efi" >/dev/null 2>&1
	sbsign --key "$k/other.key" --cert "$k/other.crt" --output "$W/shim32/mmia32.efi.signed" "$TOP/build/efiresume-ia32.efi" >/dev/null 2>&1
	esl "$V/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23" 6 "$k/mok.der"
	out=$(EFIRESUME_SHIM_DIR=$W/shim32 EFIRESUME_MOKUTIL=mokutil "$TOOL" install --secure-boot=shim "${KC[@]}" 2>&1 </dev/null); rc=$?
	check "ia32 shim: status" "$rc" 0
	check "ia32 shim: shimia32.efi, grubia32.efi, mmia32.efi" "$(ls "$ESP/EFI/efiresume" | tr '\n' ' ')" "efiresume.conf grubia32.efi mmia32.efi shimia32.efi "
	check "ia32 shim: grubia32.efi is the ia32 binary, signed" "$(same_image "$(D grubia32.efi)" "$M/lib/efiresume-ia32.efi" && sbverify --cert "$k/mok.crt" "$(D grubia32.efi)" >/dev/null 2>&1; echo $?)" 0
	check "ia32 shim: the entry starts shimia32.efi" "$(entries_v | grep -ci 'File(\\EFI\\efiresume\\shimia32.efi)')" 1
	has "ia32 shim: MOK enrolled already, not imported" "$out" "is enrolled already"
	out=$(EFIRESUME_SHIM_DIR=$W/shim32 "$TOOL" remove 2>&1); rc=$?
	check "ia32 shim: remove: status, no entry of ours, no directory, no state" \
		"$rc:$(entries_v | wc -l):$([ -e "$ESP/EFI/efiresume" ] && echo dir):$(ls "$M/state")" "0:0::"
	# the next sections expect a plain machine (Secure Boot off)
	machine 64
}
# ---------------------------------------------------------------- ESP writes and which ESP (review findings 2, 3)
esp_tests() {
	local out rc before sum n a b
	# Finding 2: conf_set on a full ESP. A 48 KiB tmpfs ESP (12 pages) with a one-page binary
	# and a 31 KiB efiresume.conf (8 pages) whose last line is "resume": 2 pages left, not
	# enough for a second copy of the file. install --fallback=none (an empty value) must fail
	# and leave efiresume.conf whole; the installer before the fix replaced it with the 8 KiB
	# it could write, status 0.
	machine 64
	umount "$ESP" && mount -t tmpfs -o size=48k /dev/vda1 "$ESP" || { fail "cannot mount a 48k tmpfs"; return; }
	mkdir -p "$ESP/EFI/debian" "$ESP/EFI/BOOT"
	echo stub >"$ESP/EFI/debian/vmlinuz.efi"
	head -c 4000 /dev/urandom >"$M/lib/efiresume-x64.efi"
	"$TOOL" install >/dev/null 2>&1
	for n in $(seq 1 560); do printf '# padding line %03d of a long, commented configuration\n' "$n"; done >>"$ESP/EFI/efiresume/efiresume.conf"
	echo "resume UUID=5b3a0c9e-1111-4222-8333-944455556666" >>"$ESP/EFI/efiresume/efiresume.conf"
	sum=$(sha256sum <"$ESP/EFI/efiresume/efiresume.conf")
	a=$(stat -c %s "$ESP/EFI/efiresume/efiresume.conf")
	out=$("$TOOL" install --fallback=none 2>&1); rc=$?
	b=$(stat -c %s "$ESP/EFI/efiresume/efiresume.conf")
	[ "$rc" != 0 ] && ok "conf_set, full ESP: install fails (status $rc)" || fail "conf_set, full ESP: status 0 ($a -> $b bytes): $out"
	check "conf_set, full ESP: efiresume.conf unchanged ($a bytes)" "$(sha256sum <"$ESP/EFI/efiresume/efiresume.conf")" "$sum"
	check "conf_set, full ESP: its resume line kept" "$(conf_resume)" "UUID=5b3a0c9e-1111-4222-8333-944455556666"
	has "conf_set, full ESP: says which file" "$out" "cannot write $ESP/EFI/efiresume/efiresume.conf"
	check "conf_set, full ESP: no temporary file left" "$(ls "$ESP/EFI/efiresume" | grep -c '\.new$')" 0
	# with room again the same command goes through, and the rest of the file is kept
	rm -f "$ESP/EFI/debian/vmlinuz.efi"
	umount "$ESP" && mount -t tmpfs -o size=16m /dev/vda1 "$ESP"
	"$TOOL" remove >/dev/null 2>&1

	# Finding 3: boot entries are matched by partition too, and the recorded ESP is never left
	# silently. A second ESP, vda4 (PARTUUID ...b4), mounted at $M/efi (a default candidate);
	# vda1 gets its PARTUUID (ESP_GUID) in uevent as the kernel shows it.
	local B=$M/efi GA=$ESP_GUID GB=0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4fb4
	second_esp() {
		local d=$M/sys/devices/virtual/block/vda
		echo "PARTUUID=$GA" >>"$d/vda1/uevent"
		mkdir -p "$d/vda4" && echo 4 >"$d/vda4/partition"
		printf 'MAJOR=254\nMINOR=4\nDEVNAME=vda4\nDEVTYPE=partition\nPARTN=4\nPARTUUID=%s\n' "$GB" >"$d/vda4/uevent"
		ln -sfn "../../devices/virtual/block/vda/vda4" "$M/sys/class/block/vda4"
		mount -t tmpfs -o size=16m /dev/vda4 "$B" && MOUNTS=("$B" "${MOUNTS[@]}")
	}
	on_part() { efibootmgr -v 2>/dev/null | grep -i 'File(\\EFI\\efiresume\\efiresume.efi)' | grep -ic "$1"; }
	machine 64
	second_esp
	"$TOOL" install >/dev/null 2>&1
	check "two ESPs: installed on A (recorded)" "$(st esp)" "$ESP"
	check "two ESPs: the entry starts efiresume on A's partition" "$(on_part "$GA"):$(on_part "$GB")" "1:0"
	out=$("$TOOL" install --esp-path="$B" 2>&1); rc=$?
	check "install --esp-path=B: status" "$rc" 0
	cmp -s "$M/lib/efiresume-x64.efi" "$B/EFI/efiresume/efiresume.efi" && ok "install --esp-path=B: the binary on B" || fail "install --esp-path=B: no binary on B: $out"
	check "install --esp-path=B: recorded" "$(st esp)" "$B"
	check "install --esp-path=B: one entry of ours, on B's partition, none on A's" "$(ours | grep -c .):$(on_part "$GB"):$(on_part "$GA")" "1:1:0"
	check "install --esp-path=B: the state's entry is that one" "Boot$(st entry)" "$(efibootmgr -v | grep -i "$GB" | grep -i 'File(\\EFI\\efiresume' | cut -c1-8)"
	has "install --esp-path=B: says it moved from A" "$out" "$ESP"
	"$TOOL" remove >/dev/null 2>&1
	# update while the recorded ESP is not mounted: refused, B untouched
	machine 64
	second_esp
	"$TOOL" install >/dev/null 2>&1
	umount "$ESP"; MOUNTS=("${MOUNTS[@]/$ESP}")
	before=$(snapshot)
	out=$("$TOOL" update 2>&1); rc=$?
	[ "$rc" != 0 ] && ok "update, recorded ESP not mounted: refused (status $rc)" || fail "update, recorded ESP not mounted: status 0: $out"
	has "update, recorded ESP not mounted: names it" "$out" "$ESP"
	check "update, recorded ESP not mounted: nothing on B" "$(ls "$B")" ""
	check "update, recorded ESP not mounted: nothing changed" "$(snapshot)" "$before"
	out=$("$TOOL" update --graceful 2>&1); rc=$?
	check "update --graceful, recorded ESP not mounted: status 0, nothing on B" "$rc:$(ls "$B")" "0:"
	has "update --graceful, recorded ESP not mounted: warns" "$out" "update failed"
	out=$("$TOOL" status 2>&1)
	has "status, recorded ESP not mounted: says so" "$out" "$ESP is not mounted"
	mount -t tmpfs -o size=16m /dev/vda1 "$ESP" && MOUNTS=("$ESP" "${MOUNTS[@]}")
	machine 64
}
# ---------------------------------------------------------------- status --json
# one JSON object (python3's json parser is the oracle), its members in the documented order
status_json_tests() {
	local out rc j keys
	machine 64
	"$TOOL" install >/dev/null 2>&1
	out=$("$TOOL" status --json 2>/dev/null); rc=$?
	check "status --json: status" "$rc" 0
	if ! python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$out" 2>/dev/null; then
		fail "status --json: not JSON: $out"
		return
	fi
	ok "status --json: JSON (python3 json.load)"
	keys="firmware package esp espError installed binary mode secureBootMode entries bootCurrent bootNext bootOrder efiresumeLocation config swaps tpm2 resumeDevice"
	check "status --json: the members, in order" "$(jq_ '" ".join(d.keys())' <<<"$out")" "$keys"
	check "status --json: firmware" "$(jq_ 'd["firmware"]' <<<"$out")" "{'uefi': True, 'bits': 64, 'arch': 'x64', 'secureBoot': False, 'hibernationKey': None}"
	check "status --json: installed, the binary current" "$(jq_ '(d["installed"], d["binary"]["path"], d["binary"]["current"])' <<<"$out")" "(True, '$ESP/EFI/efiresume/efiresume.efi', True)"
	check "status --json: esp path" "$(jq_ 'd["esp"]["path"]' <<<"$out")" "$ESP"
	check "status --json: mode, no Secure Boot mode" "$(jq_ '(d["mode"], d["secureBootMode"])' <<<"$out")" "('on-hibernate', None)"
	check "status --json: the entry (state's number, efibootmgr's partition)" \
		"$(jq_ '[(e["number"], e["path"], e["partUuid"], e["bootOrderPosition"], e["bootNext"]) for e in d["entries"]]' <<<"$out")" \
		"[('$(st entry)', '\\\\EFI\\\\efiresume\\\\efiresume.efi', '$ESP_GUID', None, False)]"
	check "status --json: bootOrder (the variable)" "$(jq_ '",".join(d["bootOrder"])' <<<"$out")" "$(rdorder "$V/BootOrder-$G")"
	check "status --json: bootCurrent" "$(jq_ 'd["bootCurrent"]' <<<"$out")" 0002
	check "status --json: config (the loader's reading)" "$(jq_ '(d["config"]["fallback"], d["config"]["timeout"])' <<<"$out")" "('$(conf fallback | sed 's/\\/\\\\/g')', $(conf timeout))"
	check "status --json: the swap partition" "$(jq_ '[(x["path"], x["type"], x["uuid"], x["offset"], x["image"]) for x in d["swaps"]]' <<<"$out")" \
		"[('$M/dev/vda2', 'partition', '5b3a0c9e-1111-4222-8333-944455556666', 0, 'no image')]"
	check "status --json: a swap's members, in order" "$(jq_ '" ".join(d["swaps"][0].keys())' <<<"$out")" \
		"path type uuid offset image stack locations"
	check "status --json: the swap partition's stack: the partition, its PARTUUID (udev's link)" \
		"$(jq_ '[(l["type"], l["device"], l["majMin"], l["uuid"], l["name"], l["depth"]) for l in d["swaps"][0]["stack"]]' <<<"$out")" \
		"[('partition', '$M/dev/vda2', '254:2', '$(basename "$(find "$M/dev/disk/by-partuuid" -lname '*vda2')")', None, 0)]"
	check "status --json: no location variable: no locations" "$(jq_ 'd["swaps"][0]["locations"]' <<<"$out")" "[]"
	check "status --json: resumeDevice" "$(jq_ 'd["resumeDevice"]' <<<"$out")" "{'device': '254:2', 'offset': 0}"
	check "status --json=short: one line, the same object" \
		"$("$TOOL" status --json=short 2>/dev/null | wc -l):$("$TOOL" status --json=short 2>/dev/null | jq_ 'd')" "1:$(jq_ 'd' <<<"$out")"
	# text the JSON must escape: an entry of ours whose description has quotes and a backslash
	# (and a tab, which the load option parser shows as ?)
	mkopt "$V/Boot0009-$G" "$(printf 'Resume "x" \\ y\tz')" 1 "$ESP_GUID" '\EFI\efiresume\efiresume.efi'
	check "status --json: a description with quotes, backslash and tab" \
		"$("$TOOL" status --json 2>/dev/null | jq_ '[e["description"] for e in d["entries"] if e["number"] == "0009"]')" "['Resume \"x\" \\\\ y?z']"
	rm -f "$V/Boot0009-$G"
	"$TOOL" remove >/dev/null 2>&1
	out=$("$TOOL" status --json 2>/dev/null)
	check "status --json, not installed: installed, binary, entries, mode" \
		"$(jq_ '(d["installed"], d["binary"], d["entries"], d["mode"])' <<<"$out")" "(False, None, [], None)"
	"$TOOL" install >/dev/null 2>&1
	umount "$ESP"; MOUNTS=("${MOUNTS[@]/$ESP}")
	out=$("$TOOL" status --json 2>/dev/null)
	check "status --json, recorded ESP not mounted: esp null, espError says so" \
		"$(jq_ '(d["esp"], "is not mounted" in d["espError"], d["installed"])' <<<"$out")" "(None, True, False)"
	has "status (text), recorded ESP not mounted: says so" "$("$TOOL" status 2>&1)" "Installed:    unknown: "
	mount -t tmpfs -o size=16m /dev/vda1 "$ESP" && MOUNTS=("$ESP" "${MOUNTS[@]}")
	machine 64
}
conf_resume() { sed -n 's/^resume *//p' "$ESP/EFI/efiresume/efiresume.conf" | tail -n 1; }
if [ "${EFIRESUME_TEST_ONLY:-}" = esp ]; then
	esp_tests
	status_json_tests
	finish
fi
if [ "${EFIRESUME_TEST_ONLY:-}" = secure-boot ]; then
	secure_boot_tests
	finish
fi

# ---------------------------------------------------------------- status: where each swap lives (issue 16)
# Every active swap with the device stack under it, a swap file with its filesystem, the
# stack under that and its resume offset, and the location variables checked against them.
# Fake /proc/swaps and /proc/self/mountinfo, stub filefrag and btrfs first on PATH (they
# log their arguments), sysfs as the kernel shows it. Oracles: blkid, the loader's own
# filesystem UUID reader, dmsetup splitname, cryptsetup luksUUID, swsusp-inspect run on the
# page the offset names.
lacks() { if grep -qF -- "$3" <<<"$2"; then fail "$1: '$3' in: $2"; else ok "$1"; fi; }
machine 64
STUB=$M/stub
mkdir -p "$STUB" "$M/proc/self"
cat >"$STUB/filefrag" <<EOF2
#!/bin/bash
echo "\$*" >>"$STUB/filefrag.log"
[ -e "$STUB/filefrag.err" ] && { cat "$STUB/filefrag.err" >&2; exit 1; }
f=\${*: -1}
echo "Filesystem type is: ef53"
echo "File size of \$f is 8388608 (\$((8388608 / \$(cat "$STUB/filefrag.bs"))) blocks of \$(cat "$STUB/filefrag.bs") bytes)"
echo " ext:     logical_offset:        physical_offset: length:   expected: flags:"
printf '   0:        0..    2047:  %9s..     %s:   2048:             last,eof\n' "\$(cat "$STUB/filefrag.phys")" 99999
echo "\$f: 1 extent found"
EOF2
cat >"$STUB/btrfs" <<EOF2
#!/bin/bash
echo "\$*" >>"$STUB/btrfs.log"
[ "\$1 \$2 \$3" = "inspect-internal map-swapfile -r" ] || exit 1
cat "$STUB/btrfs.out"
EOF2
chmod +x "$STUB/filefrag" "$STUB/btrfs"
echo 4096 >"$STUB/filefrag.bs"; echo 3000 >"$STUB/filefrag.phys"
sst() { PATH="$STUB:$PATH" "$TOOL" status 2>&1; }
sjs() { PATH="$STUB:$PATH" "$TOOL" status --json 2>/dev/null; }
# the layers of swap $1 (0) in status --json, and the location variables naming it
layers() { jq_ '[(l["type"], l["device"], l["uuid"], l["name"], l["depth"], l.get("filesystem"), l.get("mountPoint"), l.get("offset")) for l in d["swaps"]['"${1:-0}"']["stack"]]'; }
locs() { jq_ '[(x["variable"], x["uuid"], x["offset"], x["kernelVersion"], x["agrees"]) for x in d["swaps"]['"${1:-0}"']["locations"]]'; }
hibloc() { # JSON: systemd's HibernateLocation as it writes it (UTF-16LE, final NUL, NV|BS|RT)
	perl -CSA -e 'open my $fh, ">:raw", $ARGV[0] or die; print $fh pack("V", 7), map { pack("v*", unpack("n*", $_)) } (do { my $s = $ARGV[1] . "\0"; require Encode; Encode::encode("UTF-16BE", $s) })' \
		"$V/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67" "$1"
}
HL=$V/HibernateLocation-8cf2644b-4b0b-428f-9387-6d876050dc67
P3=0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f53
FSU=7e2f4a10-aaaa-4bbb-8ccc-dddddddddddd
swaps() { # LINES (PATH TYPE): /proc/swaps
	printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$M/proc/swaps"
	while [ $# -gt 1 ]; do printf '%s\t\t\t\t%s\t\t8188\t\t0\t\t-2\n' "$1" "$2" >>"$M/proc/swaps"; shift 2; done
}
# Debian 13 (systemd 257): /swapfile on ext4 on vda3, /sys/power/resume not written until
# hibernation, no HibernateLocation yet. mountinfo also has /boot/efi and a /sw mount (a
# prefix of /swapfile that is not a directory over it)
cat >"$M/proc/self/mountinfo" <<EOF2
22 1 254:3 / / rw,relatime shared:1 - ext4 $M/dev/vda3 rw,errors=remount-ro
23 22 254:1 / /boot/efi rw,relatime shared:2 - vfat $M/dev/vda1 rw,fmask=0077
24 22 0:40 / /sw rw,relatime shared:3 - tmpfs tmpfs rw
EOF2
swaps /swapfile file
echo 0:0 >"$M/sys/power/resume"; echo 0 >"$M/sys/power/resume_offset"
# a swap header at page 3000 of the filesystem, where the stub filefrag puts the file
truncate -s 4M "$W/sw.img"; mkswap "$W/sw.img" >/dev/null 2>&1
dd if="$W/sw.img" of="$M/dev/vda3" bs=4096 count=1 seek=3000 conv=notrunc status=none
out=$(sst); rc=$?
check "status, Debian 13 swap file: status 0" "$rc" 0
lacks "status, Debian 13 swap file: not 'none: hibernation needs swap' (the wrong line)" "$out" "none: hibernation needs swap"
lacks "status, Debian 13 swap file: not the misleading 'inspected through /sys/power/resume'" "$out" "inspected through /sys/power/resume"
has "status, Debian 13 swap file: inspected at its offset (a swap header there: no image)" "$out" "  /swapfile (active swap file): no image"
check "status, Debian 13 swap file: the filesystem UUID = blkid's = the loader's reading" \
	"$(blkid -o value -s UUID "$M/dev/vda3"):$("$ORACLE" fsuuid "$M/dev/vda3")" "$FSU:$FSU"
has "status, Debian 13 swap file: its filesystem, type, UUID, mount; efiresume reads ext4" "$out" \
	"    in the ext4 filesystem UUID $FSU mounted at / ($M/dev/vda3); efiresume recognises ext4"
has "status, Debian 13 swap file: resume offset from filefrag -v" "$out" \
	"    resume offset: 3000 pages, first extent at block 3000 of 4096 bytes (filefrag -v)"
check "status, Debian 13 swap file: filefrag -v ran on the file" "$(cat "$STUB/filefrag.log")" "-v /swapfile"
has "status, Debian 13 swap file: the stack under the filesystem" "$out" "    filesystem on $M/dev/vda3: partition 3 of $M/dev/vda, PARTUUID $P3"
has "status, Debian 13 swap file: the efiresume.conf equivalent" "$out" "\"resume UUID=$FSU\" and \"resume-offset 3000\" in efiresume.conf"
has "status, Debian 13 swap file: /sys/power/resume not set, said" "$out" "resume device ($M/sys/power/resume): not set"
lacks "status, Debian 13 swap file: no HibernateLocation line without the variable" "$out" "HibernateLocation (systemd"
check "status --json, Debian 13 swap file: the file (filesystem, mount, offset), then the partition under it" "$(sjs | layers)" \
	"[('file', '$M/dev/vda3', '$FSU', None, 0, 'ext4', '/', 3000), ('partition', '$M/dev/vda3', '$P3', None, 1, None, None, None)]"
check "status --json, Debian 13 swap file: no locations" "$(sjs | locs)" "[]"
check "status, not installed: the Installed line (the ESP named once)" "$(printf '%s\n' "$out" | grep '^Installed:')" "Installed:    no (nothing in $ESP/EFI/efiresume)"
# an image at that page: swsusp-inspect's verdict for exactly that page
printf 'S1SUSPEND\0' | dd of="$M/dev/vda3" bs=1 seek=$((3000 * 4096 + 4086)) conv=notrunc status=none
want=$("$TOP/build/swsusp-inspect" --json --resume-offset 3000 "$M/dev/vda3" | sed -n 's/^  "verdict": "\(.*\)"$/\1/p' | sed 's/\\"/"/g')
has "status, swap file holding an image: swsusp-inspect's verdict at page 3000" "$(sst)" "  /swapfile (active swap file): image found, $want"
dd if="$W/sw.img" of="$M/dev/vda3" bs=4096 count=1 seek=3000 conv=notrunc status=none
# 1 KiB blocks: block 12000 is page 3000
echo 1024 >"$STUB/filefrag.bs"; echo 12000 >"$STUB/filefrag.phys"
has "status, 1 KiB blocks: offset in pages" "$(sst)" "    resume offset: 3000 pages, first extent at block 12000 of 1024 bytes (filefrag -v)"
echo 12001 >"$STUB/filefrag.phys"
has "status, a first extent not on a page boundary: no offset" "$(sst)" \
	"  /swapfile (active swap file): cannot inspect: its resume offset is unknown: filefrag -v puts its first extent at block 12001 of 1024 bytes (not allocated, or not on a page boundary)"
echo 4096 >"$STUB/filefrag.bs"; echo 3000 >"$STUB/filefrag.phys"
# HibernateLocation (systemd 254+ writes it at hibernation): decoded; agrees / does not
hibloc '{"uuid":"'$FSU'","offset":3000,"kernelVersion":"6.12.57+deb13-amd64","osReleaseId":"débian 😀"}'
out=$(sst)
has "status, HibernateLocation: decoded from UTF-16LE (a surrogate pair too)" "$out" \
	"  HibernateLocation (systemd, decoded): {\"uuid\":\"$FSU\",\"offset\":3000,\"kernelVersion\":\"6.12.57+deb13-amd64\",\"osReleaseId\":\"débian 😀\"}"
has "status, HibernateLocation naming the swap file: agrees" "$out" "    agrees with /swapfile (UUID $FSU, offset 3000)"
has "status, HibernateLocation of another kernel: said" "$out" "    written by kernel 6.12.57+deb13-amd64; this one is $(uname -r)"
check "status --json, HibernateLocation naming the swap file: decoded, agrees" "$(sjs | locs)" \
	"[('HibernateLocation', '$FSU', 3000, '6.12.57+deb13-amd64', True)]"
hibloc '{"uuid":"'$FSU'","offset":3001,"kernelVersion":"'"$(uname -r)"'"}'
out=$(sst)
has "status, HibernateLocation, other offset: does not agree" "$out" "    does not agree: UUID $FSU is /swapfile at offset 3000, not at offset 3001"
lacks "status, HibernateLocation of this kernel: no kernel line" "$out" "written by kernel"
check "status --json, HibernateLocation, other offset: does not agree" "$(sjs | locs)" "[('HibernateLocation', '$FSU', 3001, '$(uname -r)', False)]"
hibloc '{"uuid":"11111111-2222-4333-8444-555555555555","offset":3000,"kernelVersion":"x"}'
has "status, HibernateLocation, unknown UUID: does not agree" "$(sst)" "    does not agree: no active swap has UUID 11111111-2222-4333-8444-555555555555"
check "status --json, HibernateLocation, unknown UUID: in no swap's locations" "$(sjs | locs)" "[]"
# efiresume's own variable (UTF-8, written by the hook) and /sys/power/resume as systemd-sleep
# writes them at hibernation: both name the swap file above
printf '\007\000\000\000{"uuid":"%s","offset":3000,"device":"254:3","kernelVersion":"%s"}' "$FSU" "$(uname -r)" >"$V/EfiresumeLocation-$ERG"
echo 254:3 >"$M/sys/power/resume"; echo 3000 >"$M/sys/power/resume_offset"
out=$(sst)
has "status, EfiresumeLocation: shown" "$out" "  EfiresumeLocation (efiresume's sleep hook): {\"uuid\":\"$FSU\",\"offset\":3000,\"device\":\"254:3\",\"kernelVersion\":\"$(uname -r)\"}"
has "status, EfiresumeLocation naming the swap file: agrees" "$(grep -A1 '^  EfiresumeLocation' <<<"$out")" "    agrees with /swapfile (UUID $FSU, offset 3000)"
has "status, /sys/power/resume naming the swap file: that swap file, not inspected twice" "$out" "  resume device ($M/sys/power/resume): 254:3, offset 3000: /swapfile, above"
check "status, swap file named by /sys/power/resume: one verdict line" "$(grep -c '(active swap file)\|(resume device)' <<<"$out")" 1
check "status --json, EfiresumeLocation naming the swap file (HibernateLocation another UUID)" "$(sjs | locs)" \
	"[('EfiresumeLocation', '$FSU', 3000, '$(uname -r)', True)]"
hibloc '{"uuid":"'$FSU'","offset":3000}'
check "status --json, both variables naming the swap file: HibernateLocation, then EfiresumeLocation" "$(sjs | locs)" \
	"[('HibernateLocation', '$FSU', 3000, None, True), ('EfiresumeLocation', '$FSU', 3000, '$(uname -r)', True)]"
rm -f "$V/EfiresumeLocation-$ERG"
echo 0:0 >"$M/sys/power/resume"; echo 0 >"$M/sys/power/resume_offset"
printf '\007\000\000\000{\000"\000x' >"$HL"
has "status, HibernateLocation of an odd length: not readable, said" "$(sst)" "HibernateLocation (systemd, decoded): present but not readable: an odd number of bytes for UTF-16LE"
rm -f "$HL"
# filefrag fails (not root: the swap file is 0600): status goes on
echo "filefrag: /swapfile: Permission denied" >"$STUB/filefrag.err"
out=$(sst); rc=$?
check "status, filefrag fails: status 0" "$rc" 0
has "status, filefrag fails: the offset is unknown, and why" "$out" \
	"  /swapfile (active swap file): cannot inspect: its resume offset is unknown: filefrag -v: filefrag: /swapfile: Permission denied"
has "status, filefrag fails: the filesystem still named" "$out" "    in the ext4 filesystem UUID $FSU mounted at /"
hibloc '{"uuid":"'$FSU'","offset":3000,"kernelVersion":"x"}'
j=$(sjs)
check "status --json, filefrag fails: the file's offset null" "$(layers <<<"$j")" \
	"[('file', '$M/dev/vda3', '$FSU', None, 0, 'ext4', '/', None), ('partition', '$M/dev/vda3', '$P3', None, 1, None, None, None)]"
check "status --json, filefrag fails: whether HibernateLocation agrees is unknown (null)" "$(locs <<<"$j")" "[('HibernateLocation', '$FSU', 3000, 'x', None)]"
rm -f "$HL"
rm -f "$STUB/filefrag.err"
# a path with a space (/proc/swaps and mountinfo escape it as \040)
: >"$STUB/filefrag.log"
swaps '/swap\040file' file
has "status, a swap file with a space in its name" "$(sst)" "  /swap file (active swap file): no image"
check "status, a swap file with a space: filefrag got the real name" "$(cat "$STUB/filefrag.log")" "-v /swap file"
# no external command at all: PATH without /usr/sbin (blkid, filefrag) and no swsusp-inspect
swaps "$M/dev/vda2" partition /swapfile file
mkdir -p "$M/dev/disk/by-uuid" && ln -s ../../vda3 "$M/dev/disk/by-uuid/$FSU"
out=$(PATH=/usr/bin EFIRESUME_INSPECT=$M/no-inspect "$TOOL" status 2>&1); rc=$?
check "status, no blkid, filefrag, swsusp-inspect: status 0" "$rc" 0
has "status, no filefrag: said" "$out" "  /swapfile (active swap file): cannot inspect: its resume offset is unknown: filefrag (e2fsprogs) is not installed"
has "status, no blkid: the filesystem UUID from /dev/disk/by-uuid" "$out" "    in the ext4 filesystem UUID $FSU mounted at /"
has "status, no swsusp-inspect: the swap signature read directly" "$out" "  $M/dev/vda2 (active swap): no image (swap signature SWAPSPACE2; swsusp-inspect not found"
rm -rf "$M/dev/disk/by-uuid"
# no mountinfo: the swap file is still listed, and status goes on
mv "$M/proc/self/mountinfo" "$W/mountinfo"
out=$(sst); rc=$?
check "status, no mountinfo: status 0" "$rc:$(printf '%s\n' "$out" | grep -c '/swapfile (active swap file): cannot inspect: no mount over it')" 0:1
mv "$W/mountinfo" "$M/proc/self/mountinfo"
# really no swap: then, and only then, "none"
swaps
has "status, no swap at all: none" "$(sst)" "  none: hibernation needs swap"

# the swap partition: its /dev name, PARTUUID, swap UUID, and the signature (as before)
swaps "$M/dev/vda2" partition
out=$(sst)
has "status, swap partition: inspected" "$out" "  $M/dev/vda2 (active swap): no image"
has "status, swap partition: swap area UUID (blkid's)" "$out" "    swap area UUID $(blkid -o value -s UUID "$M/dev/vda2")"
has "status, swap partition: partition, PARTUUID" "$out" "    $M/dev/vda2: partition 2 of $M/dev/vda, PARTUUID 0c9f1e4a-3b7d-4e62-9a51-7d1c2b3e4f52"
hibloc '{"uuid":"5b3a0c9e-1111-4222-8333-944455556666","offset":0,"kernelVersion":"x"}'
has "status, HibernateLocation naming the swap partition: agrees" "$(sst)" "    agrees with $M/dev/vda2 (UUID 5b3a0c9e-1111-4222-8333-944455556666, offset 0)"
check "status --json, HibernateLocation naming the swap partition: agrees" "$(sjs | locs)" \
	"[('HibernateLocation', '5b3a0c9e-1111-4222-8333-944455556666', 0, 'x', True)]"
rm -f "$HL"

# an LV on a partition: vg/lv, its PV and the PV's partition
SLVMU=LVM-Xq3V9yWbqk0c5z0pT2mGk1hR7sN4uE8dAa0Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk
mkdm 0 debian--vg-swap--1 "$SLVMU" vda3
truncate -s 8M "$M/dev/dm-0"; mkswap -U 1a2b3c4d-0000-4000-8000-00000000d0d0 "$M/dev/dm-0" >/dev/null 2>&1
swaps "$M/dev/dm-0" partition
hibloc '{"uuid":"1a2b3c4d-0000-4000-8000-00000000d0d0","offset":0,"kernelVersion":"x"}'
out=$(sst)
has "status, LV: inspected" "$out" "  $M/dev/dm-0 (active swap): no image"
has "status, LV: vg/lv = dmsetup splitname's" "$out" "    $M/dev/dm-0: LVM logical volume $(dmsetup splitname --noheadings --separator / -- debian--vg-swap--1 LVM | sed 's,/$,,')"
has "status, LV: its PV, a partition with its PARTUUID" "$out" "    PV $M/dev/vda3: partition 3 of $M/dev/vda, PARTUUID $P3"
has "status, LV: HibernateLocation naming it agrees" "$out" "    agrees with $M/dev/dm-0 (UUID 1a2b3c4d-0000-4000-8000-00000000d0d0, offset 0)"
lacks "status, LV on a partition: no passphrase" "$out" "passphrase"
rm -f "$HL"
rmdm

# an LV in a LUKS2 container (Debian's guided "encrypted LVM"): the container's device and UUID
truncate -s 16M "$W/sluks2.img"
printf pw | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file - "$W/sluks2.img" >/dev/null 2>&1
SLUKS=$(cryptsetup luksUUID "$W/sluks2.img" 2>/dev/null)
mkdm 0 "luks-$SLUKS" "CRYPT-LUKS2-${SLUKS//-/}-luks-$SLUKS" vda3
mkdm 1 vg0-swap_1 "$SLVMU" dm-0
truncate -s 8M "$M/dev/dm-1"; mkswap "$M/dev/dm-1" >/dev/null 2>&1
swaps "$M/dev/dm-1" partition
out=$(sst)
has "status, LV in LUKS2: inspected" "$out" "  $M/dev/dm-1 (active swap): no image"
has "status, LV in LUKS2: the LV" "$out" "    $M/dev/dm-1: LVM logical volume vg0/swap_1"
has "status, LV in LUKS2: the PV is the open container, UUID = cryptsetup luksUUID's; passphrase at the firmware" "$out" \
	"    PV $M/dev/dm-0: open LUKS2 container, UUID $SLUKS (/dev/mapper/luks-$SLUKS): efiresume asks for its passphrase at the firmware"
has "status, LV in LUKS2: the container's device" "$out" "    LUKS2 container $M/dev/vda3: partition 3 of $M/dev/vda, PARTUUID $P3"
# the LV's UUID as LVM prints it (lvs -o lv_uuid: the last 32 characters of dm/uuid, 6-4-4-4-4-4-6)
SLVU=$(python3 -c 'import sys; h = sys.argv[1][-32:]; print("-".join(h[a:b] for a, b in ((0, 6), (6, 10), (10, 14), (14, 18), (18, 22), (22, 26), (26, 32))))' "$SLVMU")
check "status --json, LV in LUKS2: the stack (LV, LUKS container, partition)" \
	"$(sjs | jq_ '[(l["type"], l["device"], l["majMin"], l["uuid"], l["name"], l["depth"]) for l in d["swaps"][0]["stack"]]')" \
	"[('lv', '$M/dev/dm-1', '253:1', '$SLVU', 'vg0/swap_1', 0), ('luks', '$M/dev/dm-0', '253:0', '$SLUKS', 'luks-$SLUKS', 1), ('partition', '$M/dev/vda3', '254:3', '$P3', None, 2)]"
# a swap file on ext4 on an LV in that container, its filesystem named by /dev/mapper
rm -f "$M/dev/dm-1"; truncate -s 16M "$M/dev/dm-1"
mke2fs -q -F -t ext4 -U 2b3c4d5e-0000-4000-8000-00000000f5f5 "$M/dev/dm-1" >/dev/null 2>&1
mkdir -p "$M/dev/mapper" && ln -s ../dm-1 "$M/dev/mapper/vg0-root"
sed -i "s|^22 1 254:3 .*|22 1 253:1 / / rw,relatime shared:1 - ext4 $M/dev/mapper/vg0-root rw|" "$M/proc/self/mountinfo"
swaps /swapfile file
out=$(sst)
has "status, swap file in an LV in LUKS2: its filesystem" "$out" "    in the ext4 filesystem UUID 2b3c4d5e-0000-4000-8000-00000000f5f5 mounted at / ($M/dev/mapper/vg0-root); efiresume recognises ext4"
has "status, swap file in an LV in LUKS2: the LV under it" "$out" "    filesystem on $M/dev/dm-1: LVM logical volume vg0/swap_1"
has "status, swap file in an LV in LUKS2: the container" "$out" "    PV $M/dev/dm-0: open LUKS2 container, UUID $SLUKS"
has "status, swap file in an LV in LUKS2: the container's partition" "$out" "    LUKS2 container $M/dev/vda3: partition 3 of $M/dev/vda, PARTUUID $P3"
check "status --json, swap file in an LV in LUKS2: the file, the LV, the container, the partition" "$(sjs | layers)" \
	"[('file', '$M/dev/dm-1', '2b3c4d5e-0000-4000-8000-00000000f5f5', None, 0, 'ext4', '/', 3000), ('lv', '$M/dev/dm-1', '$SLVU', 'vg0/swap_1', 1, None, None, None), ('luks', '$M/dev/dm-0', '$SLUKS', 'luks-$SLUKS', 2, None, None, None), ('partition', '$M/dev/vda3', '$P3', None, 3, None, None, None)]"
rmdm

# a Btrfs swap file (Fedora's way): offset from btrfs inspect-internal map-swapfile -r, the
# filesystem's device from mountinfo's source (its device number is an anonymous 0:N)
truncate -s 0 "$M/dev/vda3"; truncate -s 128M "$M/dev/vda3"
# (a random UUID: mkfs.btrfs -U refuses one that blkid's cache remembers from an earlier run)
mkfs.btrfs -q -f "$M/dev/vda3" >/dev/null 2>&1
BFU=$(blkid -p -o value -s UUID "$M/dev/vda3")
check "btrfs: blkid's UUID = the loader's reading" "${#BFU}:$BFU" "36:$("$ORACLE" fsuuid "$M/dev/vda3")"
cat >"$M/proc/self/mountinfo" <<EOF2
22 1 0:33 /@ / rw,relatime shared:1 - btrfs $M/dev/vda3 rw,space_cache=v2,subvol=/@
25 22 0:45 /@swap /swap rw,relatime shared:4 - btrfs $M/dev/vda3 rw,space_cache=v2,subvol=/@swap
EOF2
swaps /swap/swapfile file
echo 5000 >"$STUB/btrfs.out"; : >"$STUB/filefrag.log"
hibloc '{"uuid":"'$BFU'","offset":5000,"kernelVersion":"'"$(uname -r)"'"}'
out=$(sst); rc=$?
check "status, Btrfs swap file: status 0" "$rc" 0
has "status, Btrfs swap file: inspected at its offset" "$out" "  /swap/swapfile (active swap file): no image"
has "status, Btrfs swap file: the filesystem (blkid's UUID)" "$out" "    in the btrfs filesystem UUID $BFU mounted at /swap ($M/dev/vda3); efiresume recognises btrfs"
has "status, Btrfs swap file: offset from btrfs inspect-internal map-swapfile -r" "$out" "    resume offset: 5000 pages, btrfs inspect-internal map-swapfile -r"
check "status, Btrfs swap file: btrfs ran on the file" "$(cat "$STUB/btrfs.log")" "inspect-internal map-swapfile -r /swap/swapfile"
check "status, Btrfs swap file: not filefrag" "$(cat "$STUB/filefrag.log")" ""
has "status, Btrfs swap file: the partition under it (not the anonymous 0:45)" "$out" "    filesystem on $M/dev/vda3: partition 3 of $M/dev/vda, PARTUUID $P3"
has "status, Btrfs swap file: HibernateLocation agrees" "$out" "    agrees with /swap/swapfile (UUID $BFU, offset 5000)"
j=$(sjs)
check "status --json, Btrfs swap file: the file on btrfs at /swap, offset map-swapfile's" "$(layers <<<"$j")" \
	"[('file', '$M/dev/vda3', '$BFU', None, 0, 'btrfs', '/swap', 5000), ('partition', '$M/dev/vda3', '$P3', None, 1, None, None, None)]"
check "status --json, Btrfs swap file: HibernateLocation agrees" "$(locs <<<"$j")" "[('HibernateLocation', '$BFU', 5000, '$(uname -r)', True)]"
rm -f "$HL"
# map-swapfile -r of a file with no extent prints 2^52-1 (physical -1): no offset
echo 4503599627370495 >"$STUB/btrfs.out"
has "status, Btrfs, a page no device has: no offset" "$(sst)" \
	"  /swap/swapfile (active swap file): cannot inspect: its resume offset is unknown: btrfs inspect-internal map-swapfile -r gives page 4503599627370495, not inside $M/dev/vda3"
echo 5000 >"$STUB/btrfs.out"
# a filesystem efiresume does not read
sed -i 's/ - btrfs / - f2fs /' "$M/proc/self/mountinfo"
has "status, swap file on f2fs: efiresume cannot find it there" "$(sst)" "efiresume does not recognise f2fs: it cannot find a swap file there"
# the real filefrag and btrfs-progs on loop-mounted filesystems (the image is the fake
# partition vda3): the offset status computes must be the page where mkswap wrote the swap
# header (the signature read from the partition is the oracle), and swsusp-inspect finds it
real_swapfile() { # FSTYPE: mkfs vda3, mount it, make /swapfile there; status with no stubs
	local mnt=$W/mnt fst=$1 page sig
	umount "$mnt" 2>/dev/null
	mkdir -p "$mnt"
	rm -f "$M/dev/vda3"; truncate -s 160M "$M/dev/vda3"
	if [ "$fst" = btrfs ]; then mkfs.btrfs -q -f "$M/dev/vda3" >/dev/null 2>&1; else mke2fs -q -F -t ext4 -b 4096 "$M/dev/vda3" >/dev/null 2>&1; fi
	if ! mount -o loop "$M/dev/vda3" "$mnt" 2>/dev/null; then
		echo "skip: real $fst swap file: cannot loop-mount (no loop device?)"
		return 0
	fi
	MOUNTS=("$mnt" "${MOUNTS[@]}")
	# something first, so that the swap file does not start at the filesystem's first block
	head -c 3M /dev/urandom >"$mnt/before"; sync
	# as the Btrfs documentation makes one by hand: empty, NOCOW, allocated, mkswap
	touch "$mnt/swapfile" && chmod 600 "$mnt/swapfile"
	[ "$fst" = btrfs ] && chattr +C "$mnt/swapfile"
	fallocate -l 8M "$mnt/swapfile" && mkswap "$mnt/swapfile" >/dev/null 2>&1
	sync
	check "real $fst swap file: made (8 MiB with a swap signature)" "$(stat -c %s "$mnt/swapfile"):$(blkid -p -o value -s TYPE "$mnt/swapfile")" 8388608:swap
	printf '22 1 %s / %s rw,relatime shared:1 - %s %s rw\n' "$([ "$fst" = btrfs ] && echo 0:61 || echo 254:3)" "$mnt" "$fst" "$M/dev/vda3" >"$M/proc/self/mountinfo"
	swaps "$mnt/swapfile" file
	out=$("$TOOL" status 2>&1)
	page=$(sed -n 's/^    resume offset: \([0-9]*\) pages, .*/\1/p' <<<"$out")
	check "real $fst swap file: an offset" "$([ -n "$page" ] && [ "$page" -gt 0 ] && echo yes)" yes
	[ -n "$page" ] || { umount "$mnt"; MOUNTS=("${MOUNTS[@]:1}"); return 0; }
	sig=$(dd if="$M/dev/vda3" bs=1 skip=$((page * 4096 + 4086)) count=10 status=none)
	check "real $fst swap file: mkswap's signature is at that page of the partition" "$sig" SWAPSPACE2
	check "real $fst swap file: the header there is the file's (its first page)" \
		"$(dd if="$M/dev/vda3" bs=4096 skip="$page" count=1 status=none | sha256sum)" "$(head -c 4096 "$mnt/swapfile" | sha256sum)"
	has "real $fst swap file: inspected there" "$out" "  $mnt/swapfile (active swap file): no image"
	has "real $fst swap file: the filesystem's UUID (blkid's)" "$out" "    in the $fst filesystem UUID $(blkid -p -o value -s UUID "$M/dev/vda3") mounted at $mnt"
	if [ "$fst" = btrfs ]; then
		check "real btrfs swap file: the offset is map-swapfile -r's" "$page" "$(btrfs inspect-internal map-swapfile -r "$mnt/swapfile" 2>/dev/null)"
	else
		has "real ext4 swap file: from filefrag -v" "$out" "    resume offset: $page pages, first extent at block"
	fi
	umount "$mnt"; MOUNTS=("${MOUNTS[@]:1}")
}
real_swapfile ext4
real_swapfile btrfs
[ "${EFIRESUME_TEST_ONLY:-}" = status ] && finish

# ---------------------------------------------------------------- preconditions: error, no change
# refused CASE MESSAGE -- ARGS...: the tool fails, says MESSAGE, and changes nothing
refused() {
	local name=$1 msg=$2 before after out rc
	shift 3
	before=$(snapshot)
	out=$("$TOOL" "$@" 2>&1)
	rc=$?
	after=$(snapshot)
	if [ "$rc" != 0 ] && printf '%s' "$out" | grep -qF -- "$msg" && [ "$before" = "$after" ]; then
		ok "refused: $name"
	else
		fail "refused: $name: rc $rc, unchanged $([ "$before" = "$after" ] && echo yes || echo NO), output: $out"
	fi
}

machine 64
mv "$M/sys/firmware/efi" "$M/sys/firmware/efi.off"
refused "not booted through UEFI" "not booted through UEFI" -- install
mv "$M/sys/firmware/efi.off" "$M/sys/firmware/efi"

printf '\006\000\000\000\001' >"$V/SecureBoot-$G"
refused "Secure Boot enabled" "efiresume is not signed; the firmware would refuse to start it" -- install
printf '\006\000\000\000\000' >"$V/SecureBoot-$G"

cp "$M/proc/swaps" "$W/swaps"
head -n 1 "$W/swaps" >"$M/proc/swaps"
refused "no swap" "no swap is active" -- install
cp "$W/swaps" "$M/proc/swaps"

EFIRESUME_ESP_CANDIDATES="$M/efi" refused "no ESP" "no EFI system partition found" -- install
refused "--esp-path not mounted" "is not a mount point" -- install --esp-path="$M/efi"
EFIRESUME_ESP_FSTYPES=vfat refused "ESP not FAT" "not FAT" -- install --esp-path="$ESP"
refused "--fallback missing on the ESP" "no such file on the EFI system partition" -- install --fallback='\EFI\nothere.efi'
refused "bad --mode" "--mode must be" -- install --mode=sometimes
touch "$M/fail-create"
refused "efibootmgr cannot create the entry: the copied files are deleted again" "no boot entry could be created" -- install
rm "$M/fail-create"

# read-only efivarfs: a copy of the variables on a tmpfs mounted read-only
cp -a "$V" "$W/efivars.rw"
mount -t tmpfs tmpfs "$V" && MOUNTS=("$V" "${MOUNTS[@]}")
cp -a "$W/efivars.rw/." "$V/"
mount -o remount,ro "$V"
refused "read-only efivarfs" "read-only" -- install
umount "$V"; MOUNTS=("${MOUNTS[@]:1}")
mv "$V" "$W/efivars.gone"
refused "no efivars" "EFI variables are not available" -- install
mv "$W/efivars.gone" "$V"

out=$("$TOOL" update 2>&1); rc=$?
[ "$rc" != 0 ] && has "update before install: refused" "$out" "not installed" || fail "update before install succeeded: $out"
before=$(snapshot); out=$("$TOOL" update --graceful 2>&1); rc=$?
check "update --graceful, not installed: status" "$rc" 0
check "update --graceful, not installed: nothing changed" "$(snapshot)" "$before"

# ---------------------------------------------------------------- install (on-hibernate)
order0=$(rdorder "$V/BootOrder-$G")
out=$("$TOOL" install 2>&1); rc=$?
check "install: status" "$rc" 0
cmp -s "$M/lib/efiresume-x64.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "install: the x64 binary is \\EFI\\efiresume\\efiresume.efi" || fail "install: binary on the ESP differs"
e=$(ours)
check "install: one entry with our path (efibootmgr -v)" "$(echo "$e" | grep -c .)" 1
has "install: the entry's label" "$(efibootmgr 2>/dev/null)" "Boot$e* $LABEL"
has "install: efibootmgr -C got the ESP's disk and partition" "$(cat "$M/efibootmgr-create.log")" "-d $M/dev/vda -p 1 -L $LABEL -l \\EFI\\efiresume\\efiresume.efi"
check "install: BootOrder untouched (on-hibernate)" "$(rdorder "$V/BootOrder-$G")" "$order0"
check "install: state mode" "$(st mode)" on-hibernate
check "install: state entry" "$(st entry)" "$e"
check "install: loader parses efiresume.conf without warnings" "$(conf warnings)" 0
check "install: timeout 0" "$(conf timeout)" 0
check "install: fallback from BootCurrent (the stub)" "$(conf fallback)" '\EFI\debian\vmlinuz.efi'
check "install: options = the stub entry's command line" "$(conf options)" "$STUB_OPTS"
has "install: the fallback's origin in a comment" "$(cat "$ESP/EFI/efiresume/efiresume.conf")" 'Boot0002 ("Debian (EFI stub)"), the entry this system booted from (BootCurrent)'

# again: still one entry, the same configuration
cp "$ESP/EFI/efiresume/efiresume.conf" "$W/conf1"
"$TOOL" install >/dev/null 2>&1
check "install twice: still one entry" "$(ours | grep -c .)" 1
cmp -s "$W/conf1" "$ESP/EFI/efiresume/efiresume.conf" && ok "install twice: efiresume.conf unchanged" || fail "install twice: efiresume.conf changed: $(diff "$W/conf1" "$ESP/EFI/efiresume/efiresume.conf")"

# ---------------------------------------------------------------- update keeps user settings
cat >>"$ESP/EFI/efiresume/efiresume.conf" <<'EOF'
# mine
dry-run yes
timeout 7
EOF
sed -i 's/^fallback .*/fallback \\EFI\\debian\\shimx64.efi/' "$ESP/EFI/efiresume/efiresume.conf"
cp "$ESP/EFI/efiresume/efiresume.conf" "$W/conf2"
head -c 71000 /dev/urandom >"$M/lib/efiresume-x64.efi"     # a new package version
out=$("$TOOL" update 2>&1); rc=$?
check "update: status" "$rc" 0
cmp -s "$M/lib/efiresume-x64.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "update: new binary on the ESP" || fail "update: binary not replaced"
cmp -s "$W/conf2" "$ESP/EFI/efiresume/efiresume.conf" && ok "update: efiresume.conf byte for byte as the user left it" || fail "update changed efiresume.conf"
check "update: loader sees the user's timeout" "$(conf timeout)" 7
check "update: loader sees the user's fallback" "$(conf fallback)" '\EFI\debian\shimx64.efi'
check "update: loader sees dry-run" "$(conf dry_run)" 1
check "update: still one entry" "$(ours | grep -c .)" 1
# update --graceful when installed: also updates
head -c 72000 /dev/urandom >"$M/lib/efiresume-x64.efi"
"$TOOL" update --graceful >/dev/null 2>&1
cmp -s "$M/lib/efiresume-x64.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "update --graceful, installed: new binary" || fail "update --graceful did not update"
# update recreates a deleted entry (and keeps it out of BootOrder)
efibootmgr -b "$e" -B >/dev/null 2>&1
"$TOOL" update >/dev/null 2>&1
e=$(ours)
check "update: a deleted entry is recreated, once" "$(echo "$e" | grep -c .)" 1
check "update: recreated entry recorded" "$(st entry)" "$e"
check "update: BootOrder still untouched" "$(rdorder "$V/BootOrder-$G")" "$order0"
# install again with a changed setting keeps the others
"$TOOL" install --timeout=2 >/dev/null 2>&1
check "install --timeout: timeout" "$(conf timeout)" 2
check "install --timeout: the user's fallback kept" "$(conf fallback)" '\EFI\debian\shimx64.efi'
check "install --timeout: dry-run kept" "$(conf dry_run)" 1
check "install --timeout: no warnings" "$(conf warnings)" 0

# ---------------------------------------------------------------- the sleep hook
runhook() { EFIRESUME_INSTALL=$TOOL "$HOOK" "$@"; }
loc=$V/EfiresumeLocation-$ERG
out=$(runhook pre hibernate 2>&1); rc=$?
check "hook pre hibernate: status" "$rc" 0
check "hook pre hibernate: BootNext = our entry" "$(rdorder "$V/BootNext-$G")" "$e"
check "hook: EfiresumeLocation attributes (NV+BS+RT)" "$("$ORACLE" hibloc "$loc" | sed -n 's/^attr=//p')" 7
check "hook: EfiresumeLocation uuid = the loader's reading of the swap header" \
	"$("$ORACLE" hibloc "$loc" | sed -n 's/^uuid=//p')" "$("$ORACLE" swapuuid "$M/dev/vda2")"
check "hook: EfiresumeLocation uuid = blkid's" "$("$ORACLE" hibloc "$loc" | sed -n 's/^uuid=//p')" "$(blkid -o value -s UUID "$M/dev/vda2")"
check "hook: EfiresumeLocation offset 0 (partition)" "$("$ORACLE" hibloc "$loc" | sed -n 's/^offset=//p')" 0
check "hook: EfiresumeLocation kernelVersion" "$("$ORACLE" hibloc "$loc" | sed -n 's/^kernel=//p')" "$(uname -r)"
has "hook: EfiresumeLocation device" "$(tail -c +5 "$loc")" '"device":"254:2"'
check "hook, swap partition: no \"luks\" hint" "$("$ORACLE" hibloc "$loc" | sed -n 's/^luks=//p')" ""
check "hook, swap partition: no \"lv\" hint" "$("$ORACLE" hibloc "$loc" | sed -n 's/^lv=//p')" ""
check "hook, swap partition: the JSON has neither member" "$(tail -c +5 "$loc" | grep -c '"luks"\|"lv"')" 0
out=$("$TOOL" status 2>&1)
has "status: installed" "$out" "Installed:    yes"
has "status: mode" "$out" "Mode:         on-hibernate"
has "status: entry, not in BootOrder, BootNext at it" "$out" "Boot$e \"$LABEL\" \\EFI\\efiresume\\efiresume.efi; in BootOrder: no; BootNext: points at it"
has "status: fallback" "$out" 'Fallback:     \EFI\debian\shimx64.efi'
has "status: swap without image (swsusp-inspect)" "$out" "$M/dev/vda2 (active swap): no image"
out=$(runhook post hibernate 2>&1); rc=$?
check "hook post hibernate: status" "$rc" 0
[ -e "$V/BootNext-$G" ] && fail "hook post: BootNext still set" || ok "hook post: BootNext cleared"
[ -e "$loc" ] && fail "hook post: EfiresumeLocation still there" || ok "hook post: EfiresumeLocation deleted"
# systemd's HibernateLocation left after a resume by initramfs-tools (no systemd-hibernate-
# resume there): post deletes it, or the next boot through efiresume asks again (debian13
# crypt-lvm-faults boot 4); a variable of another vendor with that name stays
hibloc '{"uuid":"'"$(blkid -o value -s UUID "$M/dev/vda2")"'","offset":0,"kernelVersion":"6.12.57+deb13-amd64"}'
printf '\7\0\0\0x' > "$V/HibernateLocation-$G"
out=$(runhook post hibernate 2>&1); rc=$?
check "hook post, HibernateLocation left: status" "$rc" 0
[ -e "$HL" ] && fail "hook post: HibernateLocation still there" || ok "hook post: HibernateLocation deleted"
has "hook post: says so" "$out" "HibernateLocation deleted"
[ -e "$V/HibernateLocation-$G" ] && ok "hook post: another vendor's HibernateLocation kept" || fail "hook post: another vendor's HibernateLocation deleted"
rm -f "$V/HibernateLocation-$G"
# post must not touch a BootNext that points elsewhere
u16var "$V/BootNext-$G" 0001
runhook post hibernate >/dev/null 2>&1
check "hook post: a BootNext at another entry is kept" "$(rdorder "$V/BootNext-$G")" 0001
rm -f "$V/BootNext-$G"
# pre must not take a BootNext that points at another existing entry (a firmware update's,
# a one-time boot): it is kept, the journal says so, and post keeps it too (issue 15)
u16var "$V/BootNext-$G" 0001
out=$(runhook pre hibernate 2>&1); rc=$?
check "hook pre, BootNext at another entry: status" "$rc" 0
check "hook pre, BootNext at another entry: kept" "$(rdorder "$V/BootNext-$G")" 0001
has "hook pre, BootNext at another entry: says so" "$out" 'BootNext already points at Boot0001 ("debian"), not at efiresume: left as it is'
runhook post hibernate >/dev/null 2>&1
check "hook post, BootNext at another entry: still kept" "$(rdorder "$V/BootNext-$G")" 0001
# a BootNext naming no entry (the firmware ignores it): efiresume's
u16var "$V/BootNext-$G" 00AA
runhook pre hibernate >/dev/null 2>&1
check "hook pre, BootNext naming no entry: set to ours" "$(rdorder "$V/BootNext-$G")" "$e"
runhook post hibernate >/dev/null 2>&1
[ -e "$V/BootNext-$G" ] && fail "hook post: BootNext (ours, was dangling) still set" || ok "hook post: BootNext (ours, was dangling) cleared"
# suspend: nothing
runhook pre suspend >/dev/null 2>&1
[ -e "$V/BootNext-$G" ] || [ -e "$loc" ] && fail "hook pre suspend changed variables" || ok "hook pre suspend: nothing"
for a in hybrid-sleep suspend-then-hibernate; do
	runhook pre $a >/dev/null 2>&1
	check "hook pre $a: BootNext" "$(rdorder "$V/BootNext-$G")" "$e"
	runhook post $a >/dev/null 2>&1
done
# a swap file: the filesystem's UUID and resume_offset
echo 254:3 >"$M/sys/power/resume"; echo 34816 >"$M/sys/power/resume_offset"
runhook pre hibernate >/dev/null 2>&1
check "hook, swap file: uuid = the loader's reading of the ext4 superblock" \
	"$("$ORACLE" hibloc "$loc" | sed -n 's/^uuid=//p')" "$("$ORACLE" fsuuid "$M/dev/vda3")"
check "hook, swap file: offset" "$("$ORACLE" hibloc "$loc" | sed -n 's/^offset=//p')" 34816
runhook post hibernate >/dev/null 2>&1
echo 254:2 >"$M/sys/power/resume"; echo 0 >"$M/sys/power/resume_offset"
# ---------------------------------------------------------------- LVM and LUKS under the resume device (issue 11)
# the hook's EfiresumeLocation as the loader reads it: KEY of the oracle's output
hl() { "$ORACLE" hibloc "$loc" | sed -n "s/^$1=//p"; }
# dmswap N [UUID]: a swap area on dm-N (mkswap, with UUID when given), /sys/power/resume naming it
dmswap() {
	truncate -s 8M "$M/dev/dm-$1"
	mkswap ${2:+-U "$2"} "$M/dev/dm-$1" >/dev/null 2>&1
	echo "253:$1" >"$M/sys/power/resume"
}
# dmsetup splitname (libdevmapper) as the oracle for an LV's dm name: "vg/lv"
splitname() { dmsetup splitname --noheadings --separator / -- "$1" LVM | sed 's,/$,,'; }
LVMU=LVM-Xq3V9yWbqk0c5z0pT2mGk1hR7sN4uE8dAa0Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk   # 4 + 64
# real LUKS headers: cryptsetup's own UUID (luksUUID) is what the loader compares
truncate -s 16M "$W/luks2.img" "$W/luks1.img"
printf pw | cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file - "$W/luks2.img" >/dev/null 2>&1
printf pw | cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 --key-file - "$W/luks1.img" >/dev/null 2>&1
LUKS2=$(cryptsetup luksUUID "$W/luks2.img" 2>/dev/null) LUKS1=$(cryptsetup luksUUID "$W/luks1.img" 2>/dev/null)
check "cryptsetup made a LUKS2 and a LUKS1 header" "${#LUKS2}:${#LUKS1}" 36:36

# an LV on a partition: "lv" only
mkdm 0 debian--vg-swap--1 "${LVMU}" vda3
dmswap 0 1a2b3c4d-0000-4000-8000-00000000d0d0
runhook pre hibernate >/dev/null 2>&1
check "hook, LV on a partition: uuid = blkid's of the LV" "$(hl uuid)" "$(blkid -o value -s UUID "$M/dev/dm-0")"
check "hook, LV on a partition: lv = dmsetup splitname's vg/lv" "$(hl lv)" "$(splitname debian--vg-swap--1)"
check "hook, LV on a partition: lv" "$(hl lv)" debian-vg/swap-1
check "hook, LV on a partition: no luks" "$(hl luks)" ""
has "hook, LV on a partition: \"lv\" right after \"device\"" "$(tail -c +5 "$loc")" '"device":"253:0","lv":"debian-vg/swap-1","kernelVersion"'
has "status: the resume device is an LV" "$("$TOOL" status 2>&1)" "resume device 253:0: LVM logical volume debian-vg/swap-1"
runhook post hibernate >/dev/null 2>&1
# a swap file in a filesystem on that LV: the filesystem's UUID, the offset, and "lv"
rm -f "$M/dev/dm-0"; truncate -s 16M "$M/dev/dm-0"
mke2fs -q -F -t ext4 -U 2b3c4d5e-0000-4000-8000-00000000f5f5 "$M/dev/dm-0" >/dev/null 2>&1
echo 34816 >"$M/sys/power/resume_offset"
runhook pre hibernate >/dev/null 2>&1
check "hook, swap file on an LV: uuid = the loader's reading of the ext4 superblock" "$(hl uuid)" "$("$ORACLE" fsuuid "$M/dev/dm-0")"
check "hook, swap file on an LV: offset" "$(hl offset)" 34816
check "hook, swap file on an LV: lv" "$(hl lv)" debian-vg/swap-1
runhook post hibernate >/dev/null 2>&1
echo 0 >"$M/sys/power/resume_offset"
rmdm

# an LV inside a LUKS2 container (Debian's "guided, encrypted LVM"): "luks" and "lv"
mkdm 0 "luks-$LUKS2" "CRYPT-LUKS2-${LUKS2//-/}-luks-$LUKS2" vda3
mkdm 1 vg0-swap_1 "${LVMU}" dm-0
dmswap 1 3c4d5e6f-0000-4000-8000-00000000a1a1
runhook pre hibernate >/dev/null 2>&1
check "hook, LV in LUKS2: uuid" "$(hl uuid)" 3c4d5e6f-0000-4000-8000-00000000a1a1
check "hook, LV in LUKS2: lv = dmsetup splitname's" "$(hl lv)" "$(splitname vg0-swap_1)"
check "hook, LV in LUKS2: luks = cryptsetup luksUUID of the header" "$(hl luks)" "$LUKS2"
has "hook, LV in LUKS2: \"luks\", \"lv\" after \"device\"" "$(tail -c +5 "$loc")" "\"device\":\"253:1\",\"luks\":\"$LUKS2\",\"lv\":\"vg0/swap_1\",\"kernelVersion\""
has "status: LV in a LUKS container" "$("$TOOL" status 2>&1)" "resume device 253:1: LVM logical volume vg0/swap_1, in LUKS container $LUKS2"
runhook post hibernate >/dev/null 2>&1
rmdm

# swap directly inside LUKS1: "luks" only
mkdm 0 cryptswap "CRYPT-LUKS1-${LUKS1//-/}-cryptswap" vda3
dmswap 0 4d5e6f70-0000-4000-8000-00000000b2b2
runhook pre hibernate >/dev/null 2>&1
check "hook, swap in LUKS1: uuid" "$(hl uuid)" 4d5e6f70-0000-4000-8000-00000000b2b2
check "hook, swap in LUKS1: luks = cryptsetup luksUUID of the header" "$(hl luks)" "$LUKS1"
check "hook, swap in LUKS1: no lv" "$(hl lv)" ""
has "hook, swap in LUKS1: \"luks\" after \"device\"" "$(tail -c +5 "$loc")" "\"device\":\"253:0\",\"luks\":\"$LUKS1\",\"kernelVersion\""
runhook post hibernate >/dev/null 2>&1
rmdm

# on top of a LUKS2 container: plain dm-crypt (no LUKS header) and an LVM layer (a
# snapshot's -cow) give no hint; an LV whose dm name is not <vg>-<lv> (LVM makes none)
# gives no "lv", the container under it still counts; upper-case hex in a LUKS dm uuid
# gives the UUID in lower case (as cryptsetup writes it into the header)
UP=$(printf '%s' "${LUKS2//-/}" | tr a-f A-F)
for c in "cryptswap CRYPT-PLAIN-cryptswap :" "vg0-swap-cow ${LVMU}-cow :" "vg0-sw-ap ${LVMU} $LUKS2:" "swap ${LVMU} $LUKS2:" \
	"cryptup CRYPT-LUKS2-$UP-cryptup $LUKS2:"; do
	set -- $c
	mkdm 0 "luks-$LUKS2" "CRYPT-LUKS2-${LUKS2//-/}-luks-$LUKS2" vda3
	mkdm 1 "$1" "$2" dm-0
	dmswap 1
	out=$(runhook pre hibernate 2>&1)
	[ "$1" = swap ] && out_swap=$out
	check "hook, dm $1 ($2): luks:lv" "$(hl luks):$(hl lv)" "$3"
	check "hook, dm $1: still written (uuid)" "$(hl uuid)" "$(blkid -o value -s UUID "$M/dev/dm-1")"
	runhook post hibernate >/dev/null 2>&1
	rmdm
done
has "hook: says why a dm name gives no lv" "$out_swap" "device-mapper name 'swap' is not <vg>-<lv>"
mkdm 0 "luks-$LUKS2" "CRYPT-LUKS2-${LUKS2//-/}-luks-$LUKS2" vda3
mkdm 1 vg0-swap "${LVMU}" dm-0 vda1
dmswap 1
runhook pre hibernate >/dev/null 2>&1
check "hook, LV on two PVs: lv, no luks" "$(hl lv):$(hl luks)" "vg0/swap:"
runhook post hibernate >/dev/null 2>&1
rmdm
echo 254:2 >"$M/sys/power/resume"

# entry deleted behind our back: the hook must not set BootNext to a dangling number
efibootmgr -b "$e" -B >/dev/null 2>&1
out=$(runhook pre hibernate 2>&1); rc=$?
check "hook, entry missing: status 0" "$rc" 0
[ -e "$V/BootNext-$G" ] && fail "hook, entry missing: BootNext set" || ok "hook, entry missing: BootNext not set"
has "hook, entry missing: says so" "$out" "boot entry is missing"
runhook post hibernate >/dev/null 2>&1
"$TOOL" update >/dev/null 2>&1
e=$(ours)
# a hook that cannot work (no efivars) still exits 0
mv "$V" "$W/efivars.gone"
runhook pre hibernate >/dev/null 2>&1
check "hook without efivars: status 0" "$?" 0
mv "$W/efivars.gone" "$V"

# ---------------------------------------------------------------- boot-clear (efiresume-clear.service)
# a normal boot after a hibernation that efiresume did not resume: the hook's variable is
# deleted, in one line naming what it held; the loader's EfiresumeSeen and the rest stay
runhook pre hibernate >/dev/null 2>&1
held=$(tail -c +5 "$loc")
check "boot-clear: the hook planted EfiresumeLocation (the loader parses it)" "$(hl uuid)" "$(blkid -o value -s UUID "$M/dev/vda2")"
printf '\007\000\000\000seen' >"$V/EfiresumeSeen-$ERG"
others=$(cd "$V" && ls | grep -v "^EfiresumeLocation-" | xargs sha256sum)
out=$("$TOOL" boot-clear 2>&1); rc=$?
check "boot-clear, variable there: status" "$rc" 0
[ -e "$loc" ] && fail "boot-clear: EfiresumeLocation still there" || ok "boot-clear: EfiresumeLocation deleted"
check "boot-clear: one line" "$(printf '%s\n' "$out" | wc -l)" 1
check "boot-clear: the line says so, with the location it held" "$out" \
	"efiresume-install: deleted EfiresumeLocation (left over from a hibernation not resumed through efiresume): $held"
check "boot-clear: every other variable unchanged (EfiresumeSeen, Boot*, BootNext)" "$(cd "$V" && ls | xargs sha256sum)" "$others"
before=$(snapshot); out=$("$TOOL" boot-clear 2>&1); rc=$?
check "boot-clear, no variable: status" "$rc" 0
check "boot-clear, no variable: quiet" "$out" ""
check "boot-clear, no variable: nothing changed" "$(snapshot)" "$before"
rm -f "$V/EfiresumeSeen-$ERG"
# not installed on the ESP (no state file): the variable is efiresume's all the same
runhook pre hibernate >/dev/null 2>&1
mv "$M/state/state" "$W/state.off"
out=$("$TOOL" boot-clear 2>&1); rc=$?
[ "$rc" = 0 ] && [ ! -e "$loc" ] && ok "boot-clear without a state file: deleted" || fail "boot-clear without a state file: rc $rc, $out"
mv "$W/state.off" "$M/state/state"
# no efivars at all (not a UEFI boot): quiet success
mv "$V" "$W/efivars.gone"
out=$("$TOOL" boot-clear 2>&1); rc=$?
check "boot-clear without efivars: status 0, quiet" "$rc:$out" "0:"
mv "$W/efivars.gone" "$V"
check "boot-clear with an argument: usage error" "$("$TOOL" boot-clear now >/dev/null 2>&1; echo $?)" 2
# the variable cannot be deleted (read-only efivarfs): status 1, says why, the unit fails
runhook pre hibernate >/dev/null 2>&1
cp -a "$V" "$W/efivars.rw2"
mount -t tmpfs tmpfs "$V" && MOUNTS=("$V" "${MOUNTS[@]}")
cp -a "$W/efivars.rw2/." "$V/"
mount -o remount,ro "$V"
out=$("$TOOL" boot-clear 2>&1); rc=$?
check "boot-clear, read-only efivarfs: status 1" "$rc" 1
has "boot-clear, read-only efivarfs: says so" "$out" "cannot delete the EFI variable EfiresumeLocation"
umount "$V"; MOUNTS=("${MOUNTS[@]:1}")
rm -rf "$W/efivars.rw2"
"$TOOL" boot-clear >/dev/null 2>&1
rm -f "$V/BootNext-$G"       # the pre hooks above set it; the firmware would have consumed it

# ---------------------------------------------------------------- image in swap: status reports the refusal
cp "$M/dev/vda2" "$W/vda2.clean"
printf 'S1SUSPEND\0' | dd of="$M/dev/vda2" bs=1 seek=4086 conv=notrunc status=none
want=$("$TOP/build/swsusp-inspect" --json "$M/dev/vda2" | sed -n 's/^  "verdict": "\(.*\)"$/\1/p' | sed 's/\\"/"/g')
out=$("$TOOL" status 2>&1)
case $want in refused*) ok "a damaged image: swsusp-inspect refuses it ($want)" ;; *) fail "damaged image not refused: $want" ;; esac
has "status: swsusp-inspect's verdict for an image in swap" "$out" "$M/dev/vda2 (active swap): image found, $want"
cp "$W/vda2.clean" "$M/dev/vda2"

# ---------------------------------------------------------------- always mode, and back
out=$("$TOOL" install --mode=always 2>&1)
check "always: entry first in BootOrder, the rest as before" "$(rdorder "$V/BootOrder-$G")" "$e,$order0"
check "always: state" "$(st mode)" always
check "always: still one entry" "$(ours | grep -c .)" 1
runhook pre hibernate >/dev/null 2>&1
[ -e "$V/BootNext-$G" ] && fail "always: the hook set BootNext" || ok "always: the hook leaves BootNext alone"
[ -e "$loc" ] && ok "always: the hook writes EfiresumeLocation" || fail "always: no EfiresumeLocation"
runhook post hibernate >/dev/null 2>&1
"$TOOL" install >/dev/null 2>&1
check "install without --mode keeps the recorded mode" "$(st mode)" always
"$TOOL" install --mode=on-hibernate >/dev/null 2>&1
check "back to on-hibernate: BootOrder as before" "$(rdorder "$V/BootOrder-$G")" "$order0"

# ---------------------------------------------------------------- remove
"$TOOL" install --mode=always >/dev/null 2>&1
runhook pre hibernate >/dev/null 2>&1
u16var "$V/BootNext-$G" "$e"
printf '\007\000\000\000seen' >"$V/EfiresumeSeen-$ERG"      # the loader's own record
out=$("$TOOL" remove 2>&1); rc=$?
check "remove: status" "$rc" 0
check "remove: no entry with our path left" "$(ours | grep -c .)" 0
check "remove: BootOrder as before install" "$(rdorder "$V/BootOrder-$G")" "$order0"
[ -e "$V/BootNext-$G" ] && fail "remove: BootNext still there" || ok "remove: BootNext pointing at it deleted"
[ -e "$loc" ] && fail "remove: EfiresumeLocation left" || ok "remove: EfiresumeLocation deleted"
[ -e "$V/EfiresumeSeen-$ERG" ] && fail "remove: EfiresumeSeen left" || ok "remove: the loader's EfiresumeSeen deleted"
[ -e "$ESP/EFI/efiresume" ] && fail "remove: \\EFI\\efiresume left" || ok "remove: \\EFI\\efiresume deleted"
[ -e "$M/state/state" ] && fail "remove: state file left" || ok "remove: state file deleted"
[ -e "$ESP/EFI/debian/shimx64.efi" ] && ok "remove: other files on the ESP kept" || fail "remove deleted other files"
check "remove: the other entries kept" "$(ls "$V" | grep -c '^Boot[0-9A-F]\{4\}-')" 4
out=$("$TOOL" remove 2>&1); rc=$?
check "remove twice: status 0" "$rc" 0
has "remove twice: nothing to remove" "$out" "not installed"
# a BootNext at another entry survives remove
"$TOOL" install >/dev/null 2>&1
u16var "$V/BootNext-$G" 0001
"$TOOL" remove >/dev/null 2>&1
check "remove: a BootNext at another entry is kept" "$(rdorder "$V/BootNext-$G")" 0001

# ---------------------------------------------------------------- fallback detection variants
machine 64
u16var "$V/BootCurrent-$G" 0001
"$TOOL" install >/dev/null 2>&1
check "BootCurrent shim: fallback" "$(conf fallback)" '\EFI\debian\shimx64.efi'
check "BootCurrent shim: no options" "$(conf options)" ""
"$TOOL" remove >/dev/null 2>&1
# efibootmgr without -u writes the optional data as ASCII bytes: not read as UCS-2 (it would be
# CJK garbage copied as the fallback's command line), not copied, said (issue 18)
mkopt "$V/Boot0001-$G" debian 1 "$ESP_GUID" '\EFI\debian\shimx64.efi' 'root=/dev/sda1 quiet' ascii
out=$("$TOOL" install 2>&1)
check "BootCurrent shim, ASCII optional data: fallback" "$(conf fallback)" '\EFI\debian\shimx64.efi'
check "BootCurrent shim, ASCII optional data: not copied as options" "$(conf options)" ""
has "BootCurrent shim, ASCII optional data: said" "$out" 'ASCII optional data ("root=/dev/sda1 quiet")'
"$TOOL" remove >/dev/null 2>&1
mkopt "$V/Boot0001-$G" debian 1 "$ESP_GUID" '\EFI\debian\shimx64.efi'
u16var "$V/BootCurrent-$G" 0003
"$TOOL" install >/dev/null 2>&1
check "BootCurrent device entry: the removable path" "$(conf fallback)" '\EFI\BOOT\BOOTX64.EFI'
"$TOOL" remove >/dev/null 2>&1
"$TOOL" install --fallback=/EFI/debian/shimx64.efi --options="root=/dev/vda3 quiet" >/dev/null 2>&1
check "--fallback with slashes" "$(conf fallback)" '\EFI\debian\shimx64.efi'
check "--options" "$(conf options)" "root=/dev/vda3 quiet"
"$TOOL" remove >/dev/null 2>&1
# booted through efiresume (always mode), configuration lost: the first other BootOrder entry
"$TOOL" install --mode=always --fallback=none >/dev/null 2>&1
check "--fallback=none: no fallback" "$(conf fallback)" ""
u16var "$V/BootCurrent-$G" "$(ours)"
"$TOOL" install >/dev/null 2>&1
check "BootCurrent ours, explicit none kept" "$(conf fallback)" ""
rm "$ESP/EFI/efiresume/efiresume.conf"
"$TOOL" install >/dev/null 2>&1
check "BootCurrent ours, no configuration: next BootOrder entry's program" "$(conf fallback)" '\EFI\debian\vmlinuz.efi'
"$TOOL" remove >/dev/null 2>&1

# ---------------------------------------------------------------- 32-bit firmware
machine 32
"$TOOL" install >/dev/null 2>&1
cmp -s "$M/lib/efiresume-ia32.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "32-bit firmware: the ia32 binary" || fail "32-bit firmware: wrong binary"
check "32-bit firmware: state arch" "$(st arch)" ia32
"$TOOL" remove >/dev/null 2>&1

# ---------------------------------------------------------------- a full ESP (issue 15): the old binary stays
# tmpfs ESPs of a few 4 KiB pages: the binaries are 70000..72000 bytes (18 pages)
small_esp() { # SIZE: remount the ESP with that size, with the files machine() puts there
	umount "$ESP" && mount -t tmpfs -o "size=$1" /dev/vda1 "$ESP" || { fail "cannot mount a $1 tmpfs"; finish; }
	mkdir -p "$ESP/EFI/debian" "$ESP/EFI/BOOT"
	echo shim >"$ESP/EFI/debian/shimx64.efi"
	echo stub >"$ESP/EFI/debian/vmlinuz.efi"
	echo removable >"$ESP/EFI/BOOT/BOOTX64.EFI"
}
machine 64
small_esp 64k           # 16 pages: the binary cannot fit
before=$(snapshot); out=$("$TOOL" install 2>&1); rc=$?
[ "$rc" != 0 ] && ok "install, ESP too small: fails (status $rc)" || fail "install, ESP too small: status 0: $out"
has "install, ESP too small: says so" "$out" "nothing was installed"
check "install, ESP too small: nothing changed (ESP, variables, state)" "$(snapshot)" "$before"
check "install, ESP too small: no entry" "$(ours | grep -c .)" 0
small_esp 128k          # 32 pages: the binary fits once, not twice
"$TOOL" install >/dev/null 2>&1
cmp -s "$M/lib/efiresume-x64.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "install, 128k ESP: installed" || fail "install, 128k ESP: binary differs"
cp "$M/lib/efiresume-x64.efi" "$W/old.efi"
head -c 71000 /dev/urandom >"$M/lib/efiresume-x64.efi"
before=$(snapshot); out=$("$TOOL" update 2>&1); rc=$?
[ "$rc" != 0 ] && ok "update, no room for the new binary: fails (status $rc)" || fail "update, no room for the new binary: status 0: $out"
has "update, no room: says the old binary is kept" "$out" "the binary there is left as it was"
cmp -s "$W/old.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "update, no room: the old binary intact" ||
	fail "update, no room: efiresume.efi is not the old binary ($(stat -c %s "$ESP/EFI/efiresume/efiresume.efi") bytes)"
check "update, no room: no temporary file left" "$(ls "$ESP/EFI/efiresume")" "$(printf 'efiresume.conf\nefiresume.efi')"
check "update, no room: nothing changed" "$(snapshot)" "$before"
out=$("$TOOL" update --graceful 2>&1); rc=$?
check "update --graceful, no room: status 0 (package upgrades go on)" "$rc" 0
has "update --graceful, no room: warns" "$out" "update failed; the installed efiresume is left as it was"
cmp -s "$W/old.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "update --graceful, no room: the old binary intact" || fail "update --graceful, no room: binary damaged"
out=$("$TOOL" install 2>&1); rc=$?
[ "$rc" != 0 ] && ok "install again, no room: fails (status $rc)" || fail "install again, no room: status 0: $out"
cmp -s "$W/old.efi" "$ESP/EFI/efiresume/efiresume.efi" && ok "install again, no room: the old binary intact" || fail "install again, no room: binary damaged"
"$TOOL" remove >/dev/null 2>&1

# ---------------------------------------------------------------- an ESP mount path with spaces (issue 15)
machine 64
SP="$M/boot/my esp"
mkdir -p "$SP"
mount -t tmpfs -o size=16m /dev/vda1 "$SP" && MOUNTS=("$SP" "${MOUNTS[@]}")
mkdir -p "$SP/EFI/debian" && echo stub >"$SP/EFI/debian/vmlinuz.efi"
out=$("$TOOL" install --esp-path="$SP" 2>&1); rc=$?
check "ESP path with spaces: install status" "$rc" 0
cmp -s "$M/lib/efiresume-x64.efi" "$SP/EFI/efiresume/efiresume.efi" && ok "ESP path with spaces: the binary there" || fail "ESP path with spaces: no binary: $out"
check "ESP path with spaces: recorded" "$(st esp)" "$SP"
head -c 71000 /dev/urandom >"$M/lib/efiresume-x64.efi"
out=$("$TOOL" update 2>&1); rc=$?
check "ESP path with spaces: update (the recorded ESP) status" "$rc" 0
cmp -s "$M/lib/efiresume-x64.efi" "$SP/EFI/efiresume/efiresume.efi" && ok "ESP path with spaces: updated" || fail "ESP path with spaces: not updated: $out"
has "ESP path with spaces: status finds it" "$("$TOOL" status 2>&1)" "Installed:    yes, $SP/EFI/efiresume/efiresume.efi"
out=$("$TOOL" remove 2>&1); rc=$?
[ "$rc" = 0 ] && [ ! -e "$SP/EFI/efiresume" ] && [ -z "$(ours)" ] && ok "ESP path with spaces: removed" || fail "ESP path with spaces: remove: rc $rc: $out"
umount "$SP"; MOUNTS=("${MOUNTS[@]:1}")

esp_tests
status_json_tests
secure_boot_tests

# ---------------------------------------------------------------- the package: efiresume-clear.service
# built from this tree by packaging/build-deb.sh (as make deb does) into a scratch build
# directory; the unit checked by systemd's own parser and run as ExecStart says, the
# maintainer scripts run against a root directory (DPKG_ROOT, as dpkg does for
# --force-script-chrootless), with deb-systemd-helper and systemctl --root as oracles
unit=usr/lib/systemd/system/efiresume-clear.service
D=$W/debbuild R=$W/debroot
mkdir -p "$D" "$R"
cp "$TOP/build/efiresume-x64.efi" "$TOP/build/efiresume-ia32.efi" "$TOP/build/swsusp-inspect" "$TOP/build/efiresume-efivar" "$D/" 2>/dev/null
cp "$TOP/build/version" "$D/" 2>/dev/null
if deb=$(BUILD=$D "$TOP/packaging/build-deb.sh" 2>"$W/build-deb.err" | tail -n 1) && [ -f "$deb" ]; then
	ok "package built ($(basename "$deb"))"
	# one version (issue 15): the package's is the one its EFI binaries print, and the tree's
	debver=$(dpkg-deb -f "$deb" Version)
	check "package: its version is the tree's now (packaging/version.sh)" "$debver" "$("$TOP/packaging/version.sh" "$W/version")"
	for a in x64 ia32; do
		check "package: build/efiresume-$a.efi carries the package's version (strings)" \
			"$(strings -n 6 "$TOP/build/efiresume-$a.efi" | grep -cxF "$debver")" 1
	done
	check "package: Suggests what --secure-boot uses" "$(dpkg-deb -f "$deb" Suggests)" "sbsigntool, openssl, shim-signed, mokutil, efitools"
	check "package: a trigger on shim-signed's /usr/lib/shim (the shim copy on the ESP follows it)" "$(dpkg-deb -I "$deb" triggers 2>&1)" "interest-noawait /usr/lib/shim"
	check "package: /$unit, root-owned, mode 0644" \
		"$(dpkg-deb -c "$deb" | awk -v u="./$unit" '$6 == u { print $1, $2 }')" "-rw-r--r-- root/root"
	check "package: /usr/lib/efiresume/efiresume-efivar (the installer's reader of EFI variables), root-owned, mode 0755" \
		"$(dpkg-deb -c "$deb" | awk '$6 == "./usr/lib/efiresume/efiresume-efivar" { print $1, $2 }')" "-rwxr-xr-x root/root"
	dpkg-deb -x "$deb" "$R" && dpkg-deb -e "$deb" "$W/debctl"
	out=$(systemd-analyze --root="$R" verify --man=no "/$unit" 2>&1); rc=$?
	check "unit: systemd-analyze verify (systemd's parser, ExecStart's program in the package)" "$rc:$out" "0:"
	check "unit: runs only when the variable the hook writes is there" \
		"$(sed -n 's/^ConditionPathExists=\([^!]\)/\1/p' "$R/$unit")" "/sys/firmware/efi/efivars/${loc##*/}"
	has "unit: never in an initrd" "$(cat "$R/$unit")" "ConditionPathExists=!/etc/initrd-release"
	has "unit: before sysinit.target, as systemd-hibernate-clear.service" "$(cat "$R/$unit")" "Before=sysinit.target shutdown.target"
	# ExecStart as the unit has it, run from the package on the fake machine
	"$TOOL" install >/dev/null 2>&1
	runhook pre hibernate >/dev/null 2>&1
	rm -f "$V/BootNext-$G"
	[ -e "$loc" ] && ok "unit: the hook planted EfiresumeLocation" || fail "unit: the hook planted no EfiresumeLocation"
	read -r -a cmd <<<"$(sed -n 's/^ExecStart=//p' "$R/$unit")"
	out=$("$R${cmd[0]}" "${cmd[@]:1}" 2>&1); rc=$?
	[ "$rc" = 0 ] && [ ! -e "$loc" ] && ok "unit: ExecStart (${cmd[*]}) deletes EfiresumeLocation" ||
		fail "unit: ExecStart ${cmd[*]}: rc $rc, variable $([ -e "$loc" ] && echo left || echo gone): $out"
	"$TOOL" remove >/dev/null 2>&1
	# maintainer scripts
	mscript() { # NAME ARGS...
		DPKG_ROOT=$R DPKG_MAINTSCRIPT_PACKAGE=efiresume DPKG_MAINTSCRIPT_NAME=$1 sh "$W/debctl/$@"
	}
	enabled() { SYSTEMD_LOG_LEVEL=err systemctl --root="$R" is-enabled efiresume-clear.service 2>/dev/null; }
	wants=$R/etc/systemd/system/sysinit.target.wants/efiresume-clear.service
	mscript postinst configure; rc=$?
	check "postinst configure (first install): status" "$rc" 0
	check "postinst: the unit is enabled (systemctl --root is-enabled)" "$(enabled)" enabled
	check "postinst: enabled by sysinit.target (its [Install] WantedBy)" "$(readlink "$wants")" "/$unit"
	mscript postinst triggered /usr/lib/shim; rc=$?
	check "postinst triggered (shim-signed upgraded; DPKG_ROOT: the ESP left alone): status" "$rc" 0
	mscript prerm remove; rc1=$?
	rm -f "$R/$unit" "$R/usr/sbin/efiresume-install"          # dpkg removes the files
	mscript postrm remove; rc2=$?
	check "prerm/postrm remove: status" "$rc1:$rc2" 0:0
	check "postrm remove: masked while the enable link waits for purge" "$(enabled)" masked
	dpkg-deb -x "$deb" "$R"
	mscript postinst configure 0~old; rc=$?
	check "reinstall: unmasked and enabled again" "$rc:$(enabled)" 0:enabled
	SYSTEMD_LOG_LEVEL=err systemctl --root="$R" disable efiresume-clear.service >/dev/null 2>&1
	mscript postinst configure 0~old
	check "upgrade after the admin disabled it: stays disabled" "$(enabled)" disabled
	mscript prerm remove; rm -f "$R/$unit"; mscript postrm remove; mscript postrm purge; rc=$?
	check "postrm purge: status" "$rc" 0
	check "postrm purge: no link left under /etc/systemd, no deb-systemd-helper state" \
		"$(find "$R/etc/systemd" "$R/var/lib/systemd/deb-systemd-helper-enabled" "$R/var/lib/systemd/deb-systemd-helper-masked" \
			\( -type l -o -type f \) 2>/dev/null)" ""
	out=$(lintian --suppress-tags hardening-no-bindnow,hardening-no-fortify-functions -I "$deb" 2>&1 | grep -v "running with root privileges"); rc=$?
	check "lintian -I: no tags" "$out" ""
else
	fail "packaging/build-deb.sh: $(cat "$W/build-deb.err")"
fi

finish
