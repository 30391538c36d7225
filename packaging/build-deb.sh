#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds build/efiresume_<version>_amd64.deb from the build products (make all) with
# dpkg-deb; files owned by root (--root-owner-group). Version: the one the EFI binaries
# were built with, $BUILD/version (packaging/version.sh: 0~git<commit count>.<short hash>,
# +dirty when the tree has uncommitted changes, a native Debian version); refused when
# it is not the tree's any more or a binary does not carry it.
#   packaging/build-deb.sh            (from anywhere; prints the .deb's path last)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD:-build}
P=packaging

for f in "$BUILD/efiresume-x64.efi" "$BUILD/efiresume-ia32.efi" "$BUILD/swsusp-inspect" "$BUILD/version"; do
	[ -e "$f" ] || { echo "build-deb: $f is missing (make all)" >&2; exit 1; }
done

version=$(cat "$BUILD/version")
now=$(packaging/version.sh "$BUILD/version.now")
rm -f "$BUILD/version.now"
[ "$version" = "$now" ] || { echo "build-deb: $BUILD holds a build of $version, the tree is $now (make all)" >&2; exit 1; }
for f in "$BUILD/efiresume-x64.efi" "$BUILD/efiresume-ia32.efi"; do
	# (no grep -q: it would end the pipe early, and pipefail would count strings' SIGPIPE)
	strings -n 6 "$f" | grep -xF "$version" >/dev/null ||
		{ echo "build-deb: $f does not carry the version $version (make all)" >&2; exit 1; }
done
maint=$(sed -n 's/^Maintainer: //p' "$P/control.in")
# the changelog's date: the commit's, so that two builds of one commit are the same
date=$(date -R -u -d "@$(git log -1 --format=%ct)")
export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)

stage=$BUILD/deb/efiresume
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
install -D -m 0644 "$BUILD/efiresume-x64.efi" "$stage/usr/lib/efiresume/efiresume-x64.efi"
install -D -m 0644 "$BUILD/efiresume-ia32.efi" "$stage/usr/lib/efiresume/efiresume-ia32.efi"
install -D -m 0755 tools/efiresume-install "$stage/usr/sbin/efiresume-install"
# its libraries (sourced: not executable), where the installed efiresume-install looks for them
for f in tools/efiresume-install.d/*.sh; do
	install -D -m 0644 "$f" "$stage/usr/share/efiresume/install.d/${f##*/}"
done
install -D -m 0755 "$BUILD/swsusp-inspect" "$stage/usr/sbin/swsusp-inspect"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/sbin/swsusp-inspect"
# the installer's reader of binary EFI variables (libefiboot, libefivar)
install -D -m 0755 "$BUILD/efiresume-efivar" "$stage/usr/lib/efiresume/efiresume-efivar"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/lib/efiresume/efiresume-efivar"
install -D -m 0755 "$P/efiresume.sleep" "$stage/usr/lib/systemd/system-sleep/efiresume"
install -D -m 0644 "$P/efiresume-clear.service" "$stage/usr/lib/systemd/system/efiresume-clear.service"
for m in efiresume-install.8 swsusp-inspect.8 efiresume.conf.5; do
	sec=${m##*.}
	install -D -m 0644 "$P/man/$m" "$stage/usr/share/man/man$sec/$m"
	gzip -9n "$stage/usr/share/man/man$sec/$m"
done
install -D -m 0644 "$P/copyright" "$stage/usr/share/doc/efiresume/copyright"
# efiresume-clear.service needs no init.d twin: only the systemd-sleep hook writes the
# variable it deletes
mkdir -p "$stage/usr/share/lintian/overrides"
cat >"$stage/usr/share/lintian/overrides/efiresume" <<'EOF'
# only the systemd-sleep hook writes EfiresumeLocation; without systemd nothing is left to clear
efiresume: package-supports-alternative-init-but-no-init.d-script [usr/lib/systemd/system/efiresume-clear.service]
EOF
chmod 0644 "$stage/usr/share/lintian/overrides/efiresume"
{
	echo "efiresume ($version) unstable; urgency=medium"
	echo
	echo "  * Snapshot of git commit $(git rev-parse HEAD)."
	echo
	echo " -- $maint  $date"
} >"$stage/usr/share/doc/efiresume/changelog"
gzip -9n "$stage/usr/share/doc/efiresume/changelog"

# libc version: the newest GLIBC_x.y symbol version swsusp-inspect needs
glibc=$(objdump -T "$stage/usr/sbin/swsusp-inspect" | sed -n 's/.*GLIBC_\([0-9.]*\).*/\1/p' | sort -V | tail -n 1)
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
# (control.in's comment lines, its licence line among them, are not for dpkg-deb)
sed -e '/^#/d' -e "s/@VERSION@/$version/" -e "s/@SIZE@/$size/" -e "s/@LIBC@/libc6 (>= ${glibc:-2.34})/" \
	"$P/control.in" >"$stage/DEBIAN/control"
for s in postinst prerm postrm; do
	install -m 0755 "$P/$s" "$stage/DEBIAN/$s"
done
# shim-signed's files: postinst "triggered" refreshes the copy of shim on the ESP
printf 'interest-noawait /usr/lib/shim\n' >"$stage/DEBIAN/triggers"
(cd "$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/control" "$stage/DEBIAN/triggers"
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb=$BUILD/efiresume_${version}_amd64.deb
rm -f "$BUILD"/efiresume_*_amd64.deb     # one package in build/: the current one
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
