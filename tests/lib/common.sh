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
