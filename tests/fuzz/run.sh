#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs libFuzzer targets for a bounded time each.
#   tests/fuzz/run.sh SECONDS [TARGET...]   (default: every build/fuzz/fuzz_*)
# Corpora live in the cache; seeds come from tests/fuzz/seeds/<target>/ when present.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
secs=${1:-60}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd "$BUILD/fuzz" && ls fuzz_*))
for t in "${targets[@]}"; do
	corpus="$CACHE/fuzz-corpus/$t"
	mkdir -p "$corpus"
	seeds=()
	[ -d "$TOP/tests/fuzz/seeds/$t" ] && seeds+=("$TOP/tests/fuzz/seeds/$t")
	[ -d "$CACHE/fuzz-seeds/$t" ] && seeds+=("$CACHE/fuzz-seeds/$t")
	echo "fuzzing $t for ${secs}s"
	"$BUILD/fuzz/$t" -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=2048 "$corpus" "${seeds[@]}" 2>&1 | tail -12
done
