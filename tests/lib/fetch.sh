#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fetch a Debian package by name (resolving metapackages to the real one) and
# unpack it with dpkg -x into the cache. Nothing is installed on the host.
#   fetch.sh PKG[:ARCH] [backports]   -> prints the unpacked directory
#   fetch.sh --backports-source       -> prints the sources.list line used for backports
# Backports come from the Debian archive the host's apt already uses for bookworm (its
# sources.list, sources.list.d/*.list and deb822 *.sources; a local mirror works), with
# that entry's options (signed-by, arch): no address is written here.
# EFIRESUME_APT_ETC (default /etc/apt): another apt configuration directory (tests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

CODENAME=bookworm
APT_ETC=${EFIRESUME_APT_ETC:-/etc/apt}

# The "deb [options] URI bookworm-backports main" line for the host's Debian archive: the
# first enabled "deb" entry with suite bookworm (else bookworm-updates) and component main.
backports_source() {
	local files=() f
	[ -f "$APT_ETC/sources.list" ] && files+=("$APT_ETC/sources.list")
	for f in "$APT_ETC"/sources.list.d/*.list "$APT_ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 1
	perl -e '
		use strict;
		my ($code, @files) = @ARGV;
		my @entries;    # [suite, uri, options]
		for my $file (@files) {
			open my $fh, "<", $file or next;
			my @lines = <$fh>;
			close $fh;
			if ($file =~ /\.sources$/) {
				# deb822: stanzas separated by blank lines; continuation lines start with space
				my (@stanzas, %s, $key);
				for my $line (@lines, "\n") {
					(my $l = $line) =~ s/\r?\n$//;
					next if $l =~ /^#/;
					if ($l =~ /^\s*$/) { push @stanzas, {%s} if %s; %s = (); $key = undef; next; }
					if ($l =~ /^\s/ && defined $key) { $s{$key} .= " $l"; next; }
					if ($l =~ /^([A-Za-z0-9-]+):\s*(.*)$/) { $key = lc $1; $s{$key} = $2; }
				}
				for my $s (@stanzas) {
					next if defined $s->{enabled} && $s->{enabled} =~ /^\s*no\s*$/i;
					next unless grep { $_ eq "deb" } split " ", ($s->{types} // "");
					next unless grep { $_ eq "main" } split " ", ($s->{components} // "");
					my @opt;
					my $sb = $s->{"signed-by"} // "";     # a keyring file; an inline key is left out
					$sb =~ s/^\s+|\s+$//g;
					push @opt, "signed-by=$sb" if $sb =~ m{^/\S+$};
					push @opt, "arch=" . join(",", split " ", $s->{architectures}) if defined $s->{architectures};
					for my $u (split " ", ($s->{uris} // "")) {
						push @entries, [$_, $u, join(" ", @opt)] for split " ", ($s->{suites} // "");
					}
				}
			} else {
				for my $line (@lines) {
					(my $l = $line) =~ s/#.*//;
					next unless $l =~ /^\s*deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s+(.*)$/;
					my ($opt, $uri, $suite, $comps) = ($1 // "", $2, $3, $4);
					next unless grep { $_ eq "main" } split " ", $comps;
					$opt =~ s/^\s+|\s+$//g;
					push @entries, [$suite, $uri, $opt];
				}
			}
		}
		for my $want ($code, "$code-updates") {
			for my $e (@entries) {
				next unless $e->[0] eq $want;
				(my $uri = $e->[1]) =~ s{/+$}{};
				my $opt = $e->[2] ne "" ? "[$e->[2]] " : "";
				print "deb $opt$uri $code-backports main\n";
				exit 0;
			}
		}
		exit 1;
	' "$CODENAME" "${files[@]}"
}

if [ "${1:-}" = --backports-source ]; then
	backports_source || { echo "fetch.sh: no Debian archive for $CODENAME (suite $CODENAME, component main) in $APT_ETC" >&2; exit 1; }
	exit 0
fi

. "$here/common.sh"

pkg=$1; suite=${2:-}
# one fetch at a time: tests run in parallel and may want the same package
exec 9> "$CACHE/.fetch.lock"
flock 9
aptopts=()
if [ "$suite" = backports ]; then
	bp=$CACHE/apt-backports
	mkdir -p "$bp/lists/partial" "$bp/archives/partial"
	line=$(backports_source) || die "no Debian archive for $CODENAME (suite $CODENAME, component main) in $APT_ETC's sources: cannot derive $CODENAME-backports"
	if [ "$(cat "$bp/sources.list" 2>/dev/null)" != "$line" ]; then
		# another archive than last time: its package lists are not ours
		echo "$line" > "$bp/sources.list"
		find "$bp/lists" -maxdepth 1 -type f -delete
	fi
	aptopts=(-o Dir::Etc::SourceList="$bp/sources.list" -o Dir::Etc::SourceParts=/dev/null
		 -o Dir::State::Lists="$bp/lists" -o Dir::Cache::Archives="$bp/archives")
	# no package index yet (apt keeps auxfiles/ and partial/ there even without one)
	if ! compgen -G "$bp/lists/*_Packages*" >/dev/null; then
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
