#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# swsusp-inspect on real hibernation images (the cached fixtures) and on corrupted
# copies of them. Prints one "ok: ..." or "WRONG: ..." line per check; exit status 0
# only when every check passed.
#   tests/e2e/inspect.sh          (needs build/swsusp-inspect and build/efiresume-*.efi)
#
# Accepted images: exit 0, verdict resumable, arch, compression, CRC status, and the
# page counts against what the kernel logged while hibernating (serial.log.txt, as
# the fixture's facts file records it):
#   "Need to copy N pages"           N = PFNs listed = image_pages (+ zero pages, 6.6+)
#   "Image created (X pages copied[, Y zero pages])"   X = header image_pages, Y = zero PFNs
#   "[Compressing and ]saving image data [pages ](N pages)"   N = header pages - 1
#   "Wrote N kbytes"                 kernel/power/swap.c save_image() and
#       save_{lzo,compressed}_image() call swsusp_show_speed(start, stop, nr_to_write,
#       "Wrote") with nr_to_write = snapshot_get_image_size() - 1 = PFN pages + data
#       pages, and print nr_to_write * (PAGE_SIZE / 1024): the body BEFORE compression,
#       so N * 1024 == uncompressed_bytes exactly (== stored_bytes only when uncompressed)
#   "Image size after compression: N kbytes"  (6.12) the sum of every chunk's cmp_len
#       (size_t header and page padding excluded) / 1024, so N == stored_bytes / 1024
# Refusals (copies of x64-6.1-lzo, and of ia32-686): the JSON reason and the exit status
# 10 + reason number for a flipped byte in a data chunk's literal (crc-mismatch), in its
# end-of-stream marker (decompression-error), a zero chunk length (bad-chunk-length),
# a map entry pointing outside (bad-map), the header page's magic (bad-arch-magic) and
# page count (bad-header), a map chain that loops (bad-map), an unknown flag bit
# (unsupported-flags), no signature, a truncated partition (raw prefix or --offset on a
# disk prefix: bad-map; a disk prefix whose GPT still claims the whole partition:
# io-error). Raw swap image and --offset modes give the same results as the GPT disk.
set -uo pipefail
. "$(dirname "$0")/../lib/fixture.sh"
. "$(dirname "$0")/../lib/layout.sh"

INSPECT=$BUILD/swsusp-inspect
[ -x "$INSPECT" ] || die "no $INSPECT (make $INSPECT)"

ok=0   # pass, fail, check_eq: tests/lib/check.sh

# enum er_reason (image/reader.h): swsusp-inspect exits with 10 + the number
declare -A REASON_NO=([io-error]=1 [no-signature]=2 [unsupported-flags]=3 [bad-map]=4 [bad-arch-magic]=5
	[wrong-arch]=6 [bad-header]=7 [bad-pfn-list]=8 [pfn-outside-ram]=9 [bad-chunk-length]=10
	[decompression-error]=11 [page-count-mismatch]=12 [crc-mismatch]=13)

# inspect OUT PATH [ARGS...]: --json output in OUT, exit status in $rc
inspect() {
	local out=$1
	shift
	rc=0
	"$INSPECT" --json "$@" > "$out" 2> "$out.err" || rc=$?
}
# inspect_fixture NAME OUT [ARGS...]: the same on the cached disk, under the fixture's lock
inspect_fixture() {
	local name=$1 out=$2
	shift 2
	(
		flock 9
		r=0
		"$INSPECT" --json "$(fixture_dir "$name")/disk.img" "$@" > "$out" 2> "$out.err" || r=$?
		echo $r > "$out.rc"
	) 9> "$CACHE/fixtures/.$name.lock"
	rc=$(cat "$out.rc")
}
# j FILE KEY: one value of swsusp-inspect's JSON (one key per line), quotes stripped
j() { sed -n "s/^  \"$2\": //p" "$1" | head -1 | sed 's/,$//; s/^"//; s/"$//'; }

# patch FILE OFFSET VALUE BYTES: the old value is kept for unpatch
patches=()
patch() {
	patches+=("$1 $2 $(le "$1" "$2" "$4") $4")
	put_le "$1" "$2" "$3" "$4"
}
unpatch() {
	local i
	for ((i = ${#patches[@]} - 1; i >= 0; i--)); do put_le ${patches[i]}; done
	patches=()
}

# expect_refusal WHAT REASON PATH [ARGS...]
expect_refusal() {
	local what=$1 want=$2 out=$work/refusal.json got
	shift 2
	inspect "$out" "$@"
	got=$(j "$out" reason)
	if [ "$got" = "$want" ] && [ "$rc" = $((10 + REASON_NO[$want])) ]; then
		pass "$what: refused with $want, exit $rc ($(j "$out" detail))"
	else
		fail "$what: got reason '$got' exit $rc, want $want exit $((10 + REASON_NO[$want])) ($(j "$out" detail))"
	fi
}

work=$(scratch inspect)

# ------------------------------------------------------------------ accepted images

# fixture_checks NAME ARCH KPKG [backports] [-- ARGS]: build (or reuse) and check one fixture
fixture_checks() {
	local name=$1 arch=$2 out
	echo "--- $name"
	if ! make_fixture "$@"; then
		fail "$name: fixture could not be built"
		return
	fi
	out=$work/$name.json
	# a swap file: no swap partition in the GPT; the partition and resume_offset given
	local sp where=() src=gpt-swap-partition
	sp=$(fixture_fact "$name" swap_page)
	if [ "${sp:-0}" != 0 ]; then
		where=(--offset "$(swap_offset)" --resume-offset "$sp") src=offset
	fi
	inspect_fixture "$name" "$out" "${where[@]}"
	check_eq "$name: exit status" "$rc" 0
	check_eq "$name: verdict" "$(j "$out" verdict)" resumable
	check_eq "$name: source" "$(j "$out" source) $(j "$out" offset) $(j "$out" resume_offset)" "$src $(swap_offset) ${sp:-0}"
	check_eq "$name: arch" "$(j "$out" arch)" "$([ "$arch" = x64 ] && echo x86_64 || echo i386)"
	local comp word
	comp=$(fixture_fact "$name" compressor)
	word=$([ "$arch" = x64 ] && echo 8 || echo 4)
	check_eq "$name: compression (kernel: \"$comp\")" "$(j "$out" compression)" "$comp"
	local flags=$(j "$out" flags)
	check_eq "$name: flags nocompress/lz4 bits" "$((flags & 2)) $((flags & 16))" \
		"$([ "$comp" = none ] && echo 2 || echo 0) $([ "$comp" = lz4 ] && echo 16 || echo 0)"

	local ip pages pfns zero meta stored unc chunks stream mapp dread
	ip=$(j "$out" image_pages) pages=$(j "$out" pages) pfns=$(j "$out" pfns) zero=$(j "$out" zero_pages)
	meta=$(j "$out" meta_pages) stored=$(j "$out" stored_bytes) unc=$(j "$out" uncompressed_bytes)
	chunks=$(j "$out" chunks) stream=$(j "$out" stream_pages) mapp=$(j "$out" map_pages) dread=$(j "$out" data_pages_read)
	local need copied kzero saving wrote ckb
	need=$(fixture_fact "$name" need_copy_pages) copied=$(fixture_fact "$name" image_pages)
	kzero=$(fixture_fact "$name" zero_pages) saving=$(fixture_fact "$name" saving_pages)
	wrote=$(fixture_fact "$name" wrote_kbytes) ckb=$(fixture_fact "$name" compressed_kbytes)
	if [ -z "$need" ] || [ -z "$copied" ] || [ -z "$saving" ] || [ -z "$wrote" ]; then
		fail "$name: the kernel log lacks the counts (facts: need=$need copied=$copied saving=$saving wrote=$wrote)"
		return
	fi
	check_eq "$name: header image_pages = \"Image created ($copied pages copied\"" "$ip" "$copied"
	if [ -n "$kzero" ]; then
		check_eq "$name: zero PFNs = \"$kzero zero pages\"" "$zero" "$kzero"
		check_eq "$name: image_pages + zero pages = \"Need to copy $need pages\"" "$((ip + zero))" "$need"
	else
		check_eq "$name: no zero pages (6.1)" "$zero" 0
		check_eq "$name: image_pages = \"Need to copy $need pages\"" "$ip" "$need"
	fi
	check_eq "$name: PFNs listed = \"Need to copy\"" "$pfns" "$need"
	check_eq "$name: data pages delivered = image_pages" "$dread" "$ip"
	check_eq "$name: header pages - 1 = \"saving image data ($saving pages)\"" "$((pages - 1))" "$saving"
	check_eq "$name: PFN pages = ceil(PFNs * $word / 4096)" "$meta" "$(((pfns * word + 4095) / 4096))"
	check_eq "$name: uncompressed body = \"Wrote $wrote kbytes\" * 1024" "$unc" "$((wrote * 1024))"
	if [ "$comp" = none ]; then
		check_eq "$name: CRC status" "$(j "$out" crc_status)" none
		check_eq "$name: stored bytes = \"Wrote $wrote kbytes\" * 1024" "$stored" "$((wrote * 1024))"
		check_eq "$name: stream pages = header pages" "$stream" "$pages"
		check_eq "$name: chunks" "$chunks" 0
	else
		check_eq "$name: CRC status" "$(j "$out" crc_status)" ok
		check_eq "$name: CRC computed = recorded" "$(j "$out" crc_computed)" "$(j "$out" crc_recorded)"
		check_eq "$name: chunks = ceil((pages - 1) / 32)" "$chunks" "$(((pages - 1 + 31) / 32))"
		if [ "$stored" -lt "$unc" ]; then pass "$name: stored $stored < uncompressed $unc bytes"; else fail "$name: stored $stored >= uncompressed $unc"; fi
		if [ -n "$ckb" ]; then
			check_eq "$name: stored bytes / 1024 = \"Image size after compression: $ckb kbytes\"" "$((stored / 1024))" "$ckb"
		fi
	fi
	# the kernel starts a new (last, empty) map page after a full one
	check_eq "$name: map pages = stream pages / 511 + 1" "$mapp" "$((stream / 511 + 1))"

	local o2=$work/$name.offset.json k same=1
	if [ "${sp:-0}" != 0 ]; then
		# page 0 of that partition is the filesystem's, not a swap header
		inspect_fixture "$name" "$o2" --offset "$(swap_offset)"
		check_eq "$name: without --resume-offset: reason" "$rc $(j "$o2" reason)" "$((10 + REASON_NO[no-signature])) no-signature"
		return
	fi
	# --offset on the disk: the same image
	inspect_fixture "$name" "$o2" --offset "$(swap_offset)"
	for k in reason image_pages pages pfns zero_pages stored_bytes chunks stream_pages map_pages crc_computed arch compression; do
		[ "$(j "$out" $k)" = "$(j "$o2" $k)" ] || { same=0; fail "$name --offset: $k '$(j "$o2" $k)', GPT '$(j "$out" $k)'"; }
	done
	[ $same = 1 ] && [ "$rc" = 0 ] && [ "$(j "$o2" source)" = offset ] && pass "$name --offset $(swap_offset): same image, resumable"
	[ "$rc" = 0 ] || fail "$name --offset: exit $rc"
}

fixture_checks x64-6.1-lzo x64 linux-image-cloud-amd64
fixture_checks x64-6.1-nocompress x64 linux-image-cloud-amd64 -- hibernate=nocompress
fixture_checks ia32-686 ia32 linux-image-686:i386
fixture_checks x64-6.12-lzo x64 linux-image-cloud-amd64 backports
fixture_checks x64-6.12-lz4 x64 linux-image-cloud-amd64 backports -- hibernate.compressor=lz4
fixture_checks x64-6.1-swapfile x64 linux-image-cloud-amd64 -- efiresume_swapfile efiresume_hibloc

# ------------------------------------------------------------------ corrupted copies

# raw_copy NAME OUT [MIB]: the swap partition of the fixture (or its first MIB MiB) as a raw file
raw_copy() {
	local size
	size=$(j "$work/$1.json" partition_bytes)
	[ -n "${3:-}" ] && size=$(($3 * 1048576))
	(
		flock 9
		dd if="$(fixture_dir "$1")/disk.img" of="$2" bs=1M iflag=skip_bytes,count_bytes \
			skip="$(swap_offset)" count="$size" conv=sparse status=none
	) 9> "$CACHE/fixtures/.$1.lock"
	truncate -s "$size" "$2"
}

# corruptions NAME WORD: a raw copy of the fixture, patched and restored in turn
corruptions() {
	local name=$1 w=$2 R=$work/$1.raw
	echo "--- corrupted copies of $name"
	[ -f "$work/$name.json" ] && [ "$(j "$work/$name.json" reason)" = ok ] || { fail "$name: no good image to corrupt"; return; }
	raw_copy "$name" "$R"
	local out=$work/$name.raw.json
	inspect "$out" "$R"
	check_eq "$name raw swap image: exit status" "$rc" 0
	check_eq "$name raw swap image: source" "$(j "$out" source)" raw
	check_eq "$name raw swap image: same CRC and counts" \
		"$(j "$out" crc_computed) $(j "$out" image_pages) $(j "$out" stored_bytes)" \
		"$(j "$work/$name.json" crc_computed) $(j "$work/$name.json" image_pages) $(j "$work/$name.json" stored_bytes)"

	load_layout "$R"
	check_eq "$name: map chain walked" "${#maps[@]}" "$(j "$out" map_pages)"
	local H chunks k s cmp off b
	H=$(entry "$R" 0)
	chunks=$(j "$out" chunks)
	k=$((chunks / 2))
	s=$(chunk_at "$R" "$w" $k)
	cmp=$(le "$R" $(($(entry "$R" $s) * 4096)) "$w")
	echo "  header page at swap page $H; ${#maps[@]} map pages from $((maps[0])); chunk $k of $chunks at stream page $s, $cmp bytes"

	# a data chunk: the first literal of its LZO stream -> decompresses, wrong data
	off=$(lzo_literal "$R" "$s" "$w")
	patch "$R" "$off" $(($(le "$R" "$off" 1) ^ 0x5a)) 1
	expect_refusal "$name: literal byte of data chunk $k flipped (byte $off)" crc-mismatch "$R"
	unpatch
	[ "$w" = 8 ] || return 0

	# its end-of-stream marker (0x11 0x00 0x00): the last 0 becomes 0x5a, a match, then no input
	off=$(cbyte "$R" "$s" $((w + cmp - 1)))
	if [ "$(le "$R" "$off" 1)" = 0 ] && [ "$(le "$R" "$(cbyte "$R" "$s" $((w + cmp - 3)))" 1)" = 17 ]; then
		patch "$R" "$off" $((0x5a)) 1
		expect_refusal "$name: end marker of data chunk $k changed (byte $off)" decompression-error "$R"
		unpatch
	else
		fail "$name: chunk $k does not end in the LZO end marker 0x11 0x00 0x00"
	fi
	# the padding after the chunk's data is garbage to the reader too
	if [ $(((w + cmp) % 4096)) != 0 ]; then
		off=$(cbyte "$R" "$s" $((w + cmp)))
		patch "$R" "$off" $(($(le "$R" "$off" 1) ^ 0xff)) 1
		inspect "$work/pad.json" "$R"
		check_eq "$name: a padding byte after chunk $k flipped: still resumable" "$rc $(j "$work/pad.json" reason)" "0 ok"
		unpatch
	fi
	# its length word
	patch "$R" $(($(entry "$R" $s) * 4096)) 0 "$w"
	expect_refusal "$name: chunk $k length 0" bad-chunk-length "$R"
	unpatch

	# a map entry's high bytes (bits 40..47): far outside the partition
	patch "$R" $((maps[1] * 4096 + 8 * 100 + 5)) $((0x5a)) 1
	expect_refusal "$name: map page 1 entry 100 points outside" bad-map "$R"
	unpatch
	# the map chain loops: the last map page continues at the first
	patch "$R" $((maps[${#maps[@]} - 1] * 4096 + 4088)) "${maps[0]}" 8
	expect_refusal "$name: last map page's next_swap = first map page" bad-map "$R"
	unpatch
	# ... or a full map page continues at itself (the reader's bound on the chain's length)
	patch "$R" $((maps[0] * 4096 + 4088)) "${maps[0]}" 8
	expect_refusal "$name: first (full) map page's next_swap = itself" bad-map "$R"
	unpatch

	# the header page
	patch "$R" $((H * 4096 + 24)) $(($(le "$R" $((H * 4096 + 24)) 1) ^ 0x01)) 1
	expect_refusal "$name: header page magic flipped" bad-arch-magic "$R"
	unpatch
	patch "$R" $((H * 4096 + 424)) $(($(le "$R" $((H * 4096 + 424))) + 1)) 8
	expect_refusal "$name: header page count (pages) + 1" bad-header "$R"
	unpatch

	# page 0
	patch "$R" 4073 $(($(le "$R" 4073 1) | 0x01)) 1
	expect_refusal "$name: flag bit 0x100 set" unsupported-flags "$R"
	unpatch
	patch "$R" 4086 $((0x4341505350415753)) 8      # "SWAPSPAC" over "S1SUSPEN"
	expect_refusal "$name: signature gone" no-signature "$R"
	unpatch

	# nothing left behind: the copy is as good as the fixture again
	inspect "$out" "$R"
	check_eq "$name: the copy restored is resumable again" "$rc $(j "$out" reason)" "0 ok"

	# truncated: the first 32 MiB of the partition (the image spans $(j "$out" stream_pages) pages)
	local T=$work/$name.trunc
	raw_copy "$name" "$T" 32
	expect_refusal "$name: first 32 MiB of the swap partition as a raw image" bad-map "$T"
	rm -f "$T"
	# a disk cut 32 MiB into the swap partition: with --offset the partition is 32 MiB ...
	(
		flock 9
		dd if="$(fixture_dir "$name")/disk.img" of="$T" bs=1M count=$(($(swap_offset) / 1048576 + 32)) \
			conv=sparse status=none
	) 9> "$CACHE/fixtures/.$name.lock"
	truncate -s $(($(swap_offset) + 32 * 1048576)) "$T"
	expect_refusal "$name: disk cut 32 MiB into the swap partition, --offset" bad-map "$T" --offset "$(swap_offset)"
	# ... while its GPT still claims the whole partition: the reads past the end fail
	expect_refusal "$name: disk cut 32 MiB into the swap partition, GPT" io-error "$T"
	rm -f "$T"
}

corruptions x64-6.1-lzo 8

# i386: 4-byte words; the same literal flip, the magic at offset 12, a zero length
corruptions ia32-686 4
if [ -f "$work/ia32-686.raw" ]; then
	R=$work/ia32-686.raw
	load_layout "$R"
	H=$(entry "$R" 0)
	patch "$R" $((H * 4096 + 12)) $(($(le "$R" $((H * 4096 + 12)) 1) ^ 0x01)) 1
	expect_refusal "ia32-686: header page magic (offset 12) flipped" bad-arch-magic "$R"
	unpatch
	s=$(chunk_at "$R" 4 3)
	patch "$R" $(($(entry "$R" $s) * 4096)) 0 4
	expect_refusal "ia32-686: chunk 3 length 0 (4-byte size_t)" bad-chunk-length "$R"
	unpatch
	inspect "$work/ia32.json" "$R"
	check_eq "ia32-686: the copy restored is resumable again" "$rc $(j "$work/ia32.json" reason)" "0 ok"
fi

# read-only: the cached fixtures still carry their images
for n in x64-6.1-lzo ia32-686; do
	check_eq "$n: fixture untouched (swap signature)" "$(swap_sig "$(fixture_dir $n)/disk.img")" S1SUSPEND
done
rm -f "$work"/*.raw
echo "$CHECKS_PASSED checks passed, $CHECKS_FAILED failed"
exit $ok
