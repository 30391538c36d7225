# Shared settings and helpers for the test scripts. Sourced, not run.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${EFIRESUME_CACHE:-$TOP/.cache}
BUILD=${BUILD:-$TOP/build}
mkdir -p "$CACHE"

say()  { echo "[$(date +%T)] $*" >&2; }
die()  { echo "FAIL: $*" >&2; exit 1; }
