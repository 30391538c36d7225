# SPDX-License-Identifier: GPL-2.0-or-later
# Where things lie in a modern (6.1+) hibernation image, read with od from the shell,
# independently of image/: map chain, stream page -> swap page, compressed chunks.
# Offsets are bytes from the start of the swap area; LAYOUT_BASE (bytes, default 0)
# is where that area starts in the file (the swap partition's offset in a whole disk).

# le FILE OFFSET [BYTES]: unsigned little-endian integer (od prints host order: x86)
le() { od -An -tu"${3:-8}" -j "$((${LAYOUT_BASE:-0} + $2))" -N "${3:-8}" "$1" | tr -d ' \n'; }
# put_le FILE OFFSET VALUE [BYTES]
put_le() {
	local s='' i
	for ((i = 0; i < ${4:-8}; i++)); do s+=$(printf '\\%03o' $((($3 >> (8 * i)) & 255))); done
	printf "$s" | dd of="$1" bs=1 seek="$((${LAYOUT_BASE:-0} + $2))" conv=notrunc status=none
}

# load_layout R: the map chain (swsusp_header.image at 4064, next_swap at 4088 of each map page)
maps=()
load_layout() {
	local R=$1 at
	maps=()
	at=$(le "$R" 4064)
	while [ "$at" != 0 ] && [ ${#maps[@]} -lt 1000 ]; do
		maps+=("$at")
		at=$(le "$R" $((at * 4096 + 4088)))
	done
}
# entry R S: swap page of stream page S
entry() { le "$1" $((maps[$2 / 511] * 4096 + 8 * ($2 % 511))); }
# chunk_at R WORD K: stream page where chunk K starts, walking the cmp_len words
# (stream page 0 is the header page; from stream page 1 the PFN pages and the data
# pages are compressed together, 32 pages to a chunk)
chunk_at() {
	local R=$1 word=$2 k=$3 s=1 i cmp
	for ((i = 0; i < k; i++)); do
		cmp=$(le "$R" $(($(entry "$R" $s) * 4096)) "$word")
		s=$((s + (word + cmp + 4095) / 4096))
	done
	echo $s
}
# cbyte R S OFF: byte offset of byte OFF of the chunk starting at stream page S
cbyte() { echo $(($(entry "$1" $(($2 + $3 / 4096))) * 4096 + $3 % 4096)); }
# lzo_literal R S WORD: byte offset of the first literal of the chunk's LZO1X stream
# (state 0: byte 0 is a literal count t-3 / t+17, or 0 followed by zero bytes and a count)
lzo_literal() {
	local R=$1 s=$2 w=$3 pos=1
	if [ "$(le "$R" "$(cbyte "$R" "$s" "$w")" 1)" = 0 ]; then
		while [ "$(le "$R" "$(cbyte "$R" "$s" $((w + pos)))" 1)" = 0 ]; do pos=$((pos + 1)); done
		pos=$((pos + 1))
	fi
	cbyte "$R" "$s" $((w + pos))
}
