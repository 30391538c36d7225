#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/fetch.sh takes the archive for bookworm-backports from the host's apt
# configuration (issue 15), never from an address of its own: fake apt directories
# (EFIRESUME_APT_ETC) with one-line and deb822 sources, a local mirror, options, disabled
# entries; and the host's own configuration against apt's reading of it (apt-get
# indextargets). No network. Prints "ok:"/"FAIL:" lines and "N passed, N failed".
#   tests/host/test-fetch-sources.sh   (FETCH=... another fetch.sh, for control runs)
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FETCH=${FETCH:-$TOP/tests/lib/fetch.sh}
passes=0 fails=0
ok() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi; }
W=$(mktemp -d /tmp/fetch-sources.XXXXXX)
trap 'rm -rf "$W"' EXIT

n=0
# etc NAME: a fresh apt directory; the files are written by the caller
etc() { n=$((n + 1)); E=$W/etc$n; mkdir -p "$E/sources.list.d"; }
src() { EFIRESUME_APT_ETC=$E "$FETCH" --backports-source 2>"$W/err"; }

etc
cat >"$E/sources.list" <<'X'
# a local mirror (apt-cacher-ng)
deb http://mirror.local:3142/debian bookworm main contrib non-free-firmware
deb-src http://other.example/debian bookworm main
deb http://mirror.local:3142/debian-security bookworm-security main
X
check "sources.list, a local mirror" "$(src)" "deb http://mirror.local:3142/debian bookworm-backports main"

etc
printf 'deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://m.example/debian/ bookworm-updates main\n' >"$E/sources.list"
check "sources.list, options kept, bookworm-updates when there is no bookworm" "$(src)" \
	"deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://m.example/debian bookworm-backports main"

etc
: >"$E/sources.list"
printf 'deb http://wrong.example/debian bookworm main\n' >"$E/sources.list.d/old.list.disabled"
printf 'deb http://ftp.de.debian.org/debian bookworm contrib\ndeb http://ftp.at.debian.org/debian bookworm main\n' >"$E/sources.list.d/at.list"
check "sources.list.d/*.list (not *.disabled; component main)" "$(src)" "deb http://ftp.at.debian.org/debian bookworm-backports main"

etc
cat >"$E/sources.list.d/debian.sources" <<'X'
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb deb-src
# a comment inside a stanza
URIs: http://deb.local/debian/
 http://second.example/debian
Suites: bookworm bookworm-updates
Components: main
Architectures: amd64 i386
Signed-By: /etc/apt/keyrings/local.gpg

Types: deb
URIs: http://deb.local/debian-security
Suites: bookworm-security
Components: main
X
check "deb822 .sources: enabled stanza, first URI, Signed-By and Architectures" "$(src)" \
	"deb [signed-by=/etc/apt/keyrings/local.gpg arch=amd64,i386] http://deb.local/debian bookworm-backports main"

etc
printf 'deb http://deb.debian.org/debian-security bookworm-security main\ndeb http://x.example/ubuntu jammy main\n' >"$E/sources.list"
out=$(src); rc=$?
check "no bookworm archive: status 1, nothing printed" "$rc:$out" "1:"
check "no bookworm archive: says so" "$(cat "$W/err")" "fetch.sh: no Debian archive for bookworm (suite bookworm, component main) in $E"

# the host's own configuration: the archive apt itself reads for bookworm main
want=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 2>/dev/null |
	awk '$2 == "bookworm" && $3 == "main" { sub(/\/$/, "", $1); print $1; exit }')
if [ -n "$want" ]; then
	got=$("$FETCH" --backports-source 2>&1)
	check "the host's apt configuration: the URI apt uses for bookworm main" "$(printf '%s\n' "$got" | awk '{ print $(NF - 2) }')" "$want"
	check "the host's apt configuration: suite" "$(printf '%s\n' "$got" | awk '{ print $(NF - 1), $NF }')" "bookworm-backports main"
else
	echo "skip: the host's apt has no bookworm main (apt-get indextargets)"
fi
! grep -n 'deb\.debian\.org\|http://\|https://' "$FETCH" >"$W/addr" && ok "fetch.sh holds no archive address" ||
	fail "fetch.sh holds an address: $(cat "$W/addr")"

# a backports cache whose lists hold apt's auxfiles/ and partial/ but no package index (as
# left when the archive changed and its lists were dropped): the index is fetched again
# (it was not: every backports kernel then "cannot fetch", seen in a clean-clone run)
etc
echo "deb http://mirror.local/debian bookworm main" >"$E/sources.list"
C=$W/cache; mkdir -p "$C/apt-backports/lists/auxfiles" "$C/apt-backports/lists/partial" "$W/bin"
EFIRESUME_APT_ETC=$E "$FETCH" --backports-source >"$C/apt-backports/sources.list" 2>/dev/null
printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\nexit 1\n' "$W" >"$W/bin/apt-get"; chmod +x "$W/bin/apt-get"
PATH=$W/bin:$PATH EFIRESUME_CACHE=$C EFIRESUME_APT_ETC=$E "$FETCH" linux-image-cloud-amd64 backports >/dev/null 2>&1
check "lists without a package index: apt-get update runs" "$(grep -c ' update' "$W/apt.log" 2>/dev/null || echo 0)" 1

echo "$passes passed, $fails failed"
[ "$fails" = 0 ]
