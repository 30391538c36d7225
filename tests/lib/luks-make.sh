#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a LUKS container on a plain file with the real cryptsetup (no root, no device-mapper),
# for tests/unit/test_luks.c and the LUKS fuzz seeds.
#
#   luks-make.sh FILE TYPE PBKDF HASH KEYBITS SECTOR PASS [PASS2 ...] [-- EXTRA luksFormat ARGS]
#     TYPE    luks1 | luks2
#     PBKDF   pbkdf2 | argon2i | argon2id (argon2: 4 passes, 64 KiB x cpus, cpus from $LUKS_CPUS or 1)
#     HASH    sha1 | sha256 | sha512 (pbkdf2 hash, AF hash, digest hash)
#     KEYBITS 256 | 512 (aes-xts-plain64)
#     SECTOR  512 | 1024 | 2048 | 4096 (luks2; "-" for luks1 or cryptsetup's choice)
#     PASS    the first keyslot's passphrase; PASS2... added with luksAddKey (keyslots 1, 2...)
# Writes FILE (sparse, $LUKS_SIZE_MB MiB, default 20), FILE.vk: the volume key in hex, as
# `cryptsetup luksDump --dump-volume-key` reports it, and FILE.info: the data segment's offset
# and sector size as luksDump shows them, and LUKS2 keyslots' KDF parameters (slotN-time,
# slotN-memory, slotN-threads).
set -euo pipefail
[ $# -ge 7 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
file=$1 type=$2 pbkdf=$3 hash=$4 bits=$5 sector=$6
shift 6
passes=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do passes+=("$1"); shift; done
[ $# -gt 0 ] && shift
extra=("$@")

rm -f "$file" "$file.vk"
truncate -s "${LUKS_SIZE_MB:-20}M" "$file"
kdf=(--pbkdf "$pbkdf")
if [ "$pbkdf" = pbkdf2 ]; then
	kdf+=(--pbkdf-force-iterations 1000)
else
	kdf+=(--pbkdf-force-iterations 4 --pbkdf-memory $((64 * ${LUKS_CPUS:-1})) --pbkdf-parallel "${LUKS_CPUS:-1}")
fi
args=(--batch-mode --type "$type" --cipher aes-xts-plain64 --key-size "$bits" --hash "$hash" "${kdf[@]}")
[ "$sector" != - ] && args+=(--sector-size "$sector")
printf %s "${passes[0]}" | cryptsetup luksFormat "${args[@]}" "${extra[@]}" --key-file - "$file"
for ((i = 1; i < ${#passes[@]}; i++)); do
	printf %s "${passes[$i]}" > "$file.newkey"
	printf %s "${passes[0]}" | cryptsetup luksAddKey --batch-mode "${kdf[@]}" --hash "$hash" \
		--key-file - "$file" "$file.newkey"
	rm -f "$file.newkey"
done
printf %s "${passes[0]}" | cryptsetup luksDump --batch-mode --dump-volume-key --key-file - "$file" |
	awk '/^(MK dump|Volume key):/ { on = 1; sub(/^[A-Za-z ]+:/, "") } on && /^[ \t]*([0-9a-f][0-9a-f] )+/ { gsub(/[ \t]/, ""); printf "%s", $0; next } on && !/^[ \t]/ { on = 0 }' > "$file.vk"
[ -s "$file.vk" ] || { echo "luks-make: no volume key from luksDump" >&2; exit 1; }
echo >> "$file.vk"
# FILE.info: the data segment as luksDump shows it ("offset BYTES", "sector BYTES")
cryptsetup luksDump "$file" | awk '
	/^Payload offset:/ { print "offset", $3 * 512; print "sector 512"; exit }
	/^Data segments:/ { seg = 1 }
	seg && /^[ \t]+offset:/ && !o { print "offset", $2; o = 1 }
	seg && /^[ \t]+sector:/ { print "sector", $2; seg = 0 }
	/^Keyslots:/ { ks = 1 }
	/^(Tokens|Digests):/ { ks = 0 }
	ks && /^  [0-9]+: luks2/ { slot = $1 + 0 }
	ks && /^[ \t]+(Time cost|Iterations):/ { print "slot" slot "-time", $NF }
	ks && /^[ \t]+Memory:/ { print "slot" slot "-memory", $2 }
	ks && /^[ \t]+Threads:/ { print "slot" slot "-threads", $2 }' > "$file.info"
