# SPDX-License-Identifier: GPL-2.0-or-later
# Shared settings and helpers for the test scripts. Sourced, not run.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# downloaded kernels, built systems and disks: one cache per machine, shared by every clone
# (a fresh clone on a machine that ran the suite before starts warm); never in git
CACHE=${EFIRESUME_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/efiresume}
BUILD=${BUILD:-$TOP/build}
mkdir -p "$CACHE"

say()  { echo "[$(date +%T)] $*" >&2; }
die()  { echo "FAIL: $*" >&2; exit 1; }

# The cache is shared by every clone on the machine, and two clones (two branches) may build
# other recipes of one fixture at the same time. A recipe that finishes a build removes the
# builds of other recipes with cache_prune, which leaves alone what a run used lately:
#   cache_used PATH     PATH (a cached tree or disk directory) is used by this run: its stamp
#                       PATH.used renewed
#   cache_prune PATH... each PATH removed (with PATH.done, .log, .used) unless PATH, its .used
#                       or its .done changed in the last CACHE_KEEP_HOURS (default 24) hours
cache_used() { touch "$1.used" 2>/dev/null || true; }
cache_prune() {
	local t h=${CACHE_KEEP_HOURS:-24}
	for t; do
		[ -e "$t" ] || continue
		if [ -n "$(find "$t" "$t.used" "$t.done" -maxdepth 0 -mmin -$((h * 60)) 2>/dev/null)" ]; then
			say "cache: $t kept (another recipe's, used in the last $h h)"
			continue
		fi
		rm -rf "$t" "$t.done" "$t.log" "$t.used"
	done
}
