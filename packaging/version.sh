#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The one version of a build: the EFI binaries carry it (EFIRESUME_VERSION, the Makefile
# reads it on every run) and packaging/build-deb.sh names the .deb with it.
#   packaging/version.sh FILE     prints the version; rewrites FILE only when it changed,
#                                 so what depends on FILE is rebuilt exactly then
# Version: 0~git<commit count>.<short hash>, +dirty when tracked files have uncommitted
# changes (a native Debian version). Outside git: FILE's version as it is, else 0~unknown.
set -u
file=$1
cd "$(dirname "$0")/.." || exit 1
if count=$(git rev-list --count HEAD 2>/dev/null) && short=$(git rev-parse --short HEAD 2>/dev/null); then
	v="0~git$count.$short"
	[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || v="$v+dirty"
elif [ -s "$file" ]; then
	v=$(cat "$file")
else
	v=0~unknown
fi
if [ "$(cat "$file" 2>/dev/null)" != "$v" ]; then
	mkdir -p "$(dirname "$file")" && echo "$v" >"$file.new" && mv -f "$file.new" "$file"
fi
echo "$v"
