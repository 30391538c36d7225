# SPDX-License-Identifier: GPL-2.0-or-later
# A real Debian 13 "trixie" system for the end-to-end tests (issue 16): systemd 257
# (writes HibernateLocation), initramfs-tools, Debian's 6.12 kernel (linux-image-amd64),
# efibootmgr. Built as tests/lib/debian.sh builds Debian 12 (same layout, same guest
# agent, same provisioning boot), with these differences:
#   - suites trixie, trixie-updates, trixie-security, from the archive addresses the host's
#     apt is configured with (apt-get indextargets): nothing about a mirror in the tree;
#   - the cache is $CACHE/debian13/ (its own lock; the Debian 12 fixture is untouched).
# Sourced instead of tests/lib/debian.sh; every deb_* function of that file works on
# this system (deb_fixture sets DEB_DIR to the Debian 13 build).
# one boot: on a loaded 2-core host (load 20 here) a Debian 13 boot took over 600 s
DEB_TIMEOUT=${DEB_TIMEOUT:-1200}
. "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

DEB_SUITE=trixie
DEB_CACHE_TOP=$CACHE/debian13
# On a loaded host udev took longer than systemd's 90 s device timeout to find the swap
# and ESP partitions (emergency mode); modules for hardware this guest cannot use
# (KVM, the AHCI controller without SCSI modules, the parallel port) are not loaded
DEB_CMDLINE="$DEB_CMDLINE systemd.default_device_timeout_sec=900 modprobe.blacklist=kvm_amd,kvm_intel,kvm,ahci,libata,parport_pc,ppdev"

# deb13_sources OUT: a deb822 sources file for trixie from the host's apt configuration:
# the URI of its Debian archive (a release without '-') and of its security archive
# (a release ending in -security); suites trixie trixie-updates and trixie-security
deb13_sources() {
	local out=$1 main sec
	read -r main sec < <(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		sort -u | awk '$2 ~ /-security$/ && !s { s = $1 } $2 !~ /-/ && !m { m = $1 } END { print m, s }')
	[ -n "$main" ] || { echo "deb13_sources: no Debian archive in the host's apt configuration" >&2; return 1; }
	{
		printf 'Types: deb\nURIs: %s\nSuites: trixie trixie-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$main"
		if [ -n "$sec" ]; then
			printf '\nTypes: deb\nURIs: %s\nSuites: trixie-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$sec"
		else
			echo "deb13_sources: no security archive in the host's apt configuration; trixie-security left out" >&2
		fi
	} > "$out"
}

# _deb_rootfs DIR: the trixie tree (root mode; the packages kept in $DEB_CACHE_TOP/debs)
_deb_rootfs() {
	local out=$1 debs=$DEB_CACHE_TOP/debs opts=() p src
	mkdir -p "$debs"
	src=$(mktemp -d)
	deb13_sources "$src/debian.sources" || return 1
	sed 's/^/  sources: /' "$src/debian.sources"
	for p in $DEB_EXCLUDES; do opts+=(--dpkgopt="path-exclude=$p" --dpkgopt="path-exclude=/usr$p"); done
	nice mmdebstrap --variant=minbase --include="$DEB_PACKAGES" "${opts[@]}" \
		--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\"; cp $debs/*.deb \"\$1/var/cache/apt/archives/\" 2>/dev/null || true" \
		--essential-hook="bash $TOP/tests/lib/debian13.sh --hook essential \"\$1\"" \
		--customize-hook="bash $TOP/tests/lib/debian13.sh --hook customize \"\$1\"" \
		--customize-hook="cp -u \"\$1\"/var/cache/apt/archives/*.deb $debs/ 2>/dev/null || true" \
		trixie "$out" "$src/debian.sources"
	local rc=$?
	rm -rf "$src"
	return $rc
}

# run as an mmdebstrap hook
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "${1:-}" = --hook ]; then
	set -e
	case $2 in
	essential) _deb_hook_essential "$3" ;;
	customize) _deb_hook_customize "$3" ;;
	*) exit 2 ;;
	esac
fi
