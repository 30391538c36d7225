#!/usr/bin/env bash
# Fetch a Debian package by name (resolving metapackages to the real one) and
# unpack it with dpkg -x into the cache. Nothing is installed on the host.
#   fetch.sh PKG[:ARCH] [backports]   -> prints the unpacked directory
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

pkg=$1; suite=${2:-}
# one fetch at a time: tests run in parallel and may want the same package
exec 9> "$CACHE/.fetch.lock"
flock 9
aptopts=()
if [ "$suite" = backports ]; then
	bp=$CACHE/apt-backports
	mkdir -p "$bp/lists/partial" "$bp/archives/partial"
	if [ ! -f "$bp/sources.list" ]; then
		echo "deb http://deb.debian.org/debian bookworm-backports main" > "$bp/sources.list"
	fi
	aptopts=(-o Dir::Etc::SourceList="$bp/sources.list" -o Dir::Etc::SourceParts=/dev/null
		 -o Dir::State::Lists="$bp/lists" -o Dir::Cache::Archives="$bp/archives")
	if [ -z "$(ls "$bp/lists" 2>/dev/null | grep -v partial)" ]; then
		apt-get "${aptopts[@]}" update -q >&2
	fi
fi

# Resolve a metapackage (linux-image-cloud-amd64) to the versioned package it depends on.
real=$pkg
case "$pkg" in
linux-image-*)
	dep=$(apt-cache "${aptopts[@]}" depends "$pkg" 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
	[ -n "$dep" ] && real=$dep
	;;
esac
name=${real//:/_}
dest=$CACHE/pkg/$name
if [ ! -f "$dest/.done" ]; then
	mkdir -p "$CACHE/debs"
	( cd "$CACHE/debs" && apt-get "${aptopts[@]}" download -q "$real" >&2 )
	deb=$(ls -t "$CACHE"/debs/"${real%%:*}"_*.deb | head -1)
	rm -rf "$dest" "$dest.tmp"; mkdir -p "$dest.tmp"
	dpkg -x "$deb" "$dest.tmp"
	touch "$dest.tmp/.done"
	mv "$dest.tmp" "$dest"
fi
echo "$dest"
