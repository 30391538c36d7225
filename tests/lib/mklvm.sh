#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Makes LVM2 physical volumes with the real lvm2 tools, for tests/unit/test_lvm.c.
#   tests/lib/mklvm.sh OUTDIR
# Needs root (loop devices); device-mapper is not needed: every command runs with
# global/activation=0, so LVs are created (-an -Zn) but never activated. Each layout
# is built on sparse files bound to loop devices, and lvm2 is only allowed to see
# those devices (a filter), so other loop devices on the machine are never touched.
#
# OUTDIR gets, per layout L and PV index N:
#   L.pvN.img           the PV (a sparse file)
#   L.pvN.mdaM.txt      the metadata text of area M as `pvck --dump metadata` writes it
#   L.oracle            what lvm2 reports, one record per line:
#     label N SECTOR UUID DEVSIZE DATAOFFSET          pvck --dump headers
#     mda N M START SIZE TEXTOFF TEXTSIZE CRC FLAGS   pvck --dump headers (raw_locn 0)
#     vg NAME UUID EXTENT_SECTORS SEQNO               vgs
#     pv N UUID PE_START_SECTORS PE_COUNT             pvs
#     lv NAME LAYOUT ROLE                             lvs -a (lv_layout, lv_role)
#     seg LV START_PE SIZE_PE TYPE STRIPES RANGES     lvs -a --segments (seg_pe_ranges,
#                                                     device names replaced by pvN)
# A stamp (the hash of this script) makes a second run a no-op; a lock serialises
# the unit tests that call it at the same time.
set -euo pipefail
out=${1:?usage: mklvm.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
stamp="$out/.stamp"
me=$(sha256sum "$0" | cut -c1-16)
exec 9>"$out/.lock"
flock 9
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$me" ] && exit 0
[ "$(id -u)" = 0 ] || { echo "mklvm.sh: needs root for loop devices" >&2; exit 1; }
command -v pvcreate >/dev/null || { echo "mklvm.sh: lvm2 is not installed" >&2; exit 1; }
rm -f "$out"/*.img "$out"/*.txt "$out"/*.oracle "$stamp"
export LVM_SUPPRESS_FD_WARNINGS=1

loops=()
cleanup() { for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done; }
trap cleanup EXIT

# lvm2 with only this layout's loop devices visible, no udev, no device-mapper,
# no archives in /etc/lvm
lvmc() {
	local cmd=$1; shift
	local f="" l
	for l in "${devs[@]}"; do f="$f\"a|^$l\$|\","; done
	f="$f\"r|.*|\""
	"$cmd" --config "devices{obtain_device_list_from_udev=0 use_devicesfile=0 hints=\"none\" filter=[$f] global_filter=[$f]} activation{udev_sync=0 udev_rules=0} global{activation=0} backup{backup=0 archive=0}" "$@" 2> >(grep -v 'Activation disabled\|not zeroed\|NOT backed up\|device-mapper\|/dev/mapper/control\|libdevmapper\|without activation support\|without initialization' >&2)
}

# layout NAME SIZE_MIB...: one sparse file and loop device per PV
layout() {
	name=$1; shift
	devs=()
	local i=0 s
	for s in "$@"; do
		rm -f "$out/$name.pv$i.img"
		truncate -s "${s}M" "$out/$name.pv$i.img"
		local l
		l=$(losetup -f --show ${sector_size:+-b $sector_size} "$out/$name.pv$i.img")
		loops+=("$l")
		devs+=("$l")
		i=$((i + 1))
	done
}

# the oracle of the current layout, then the loop devices go
finish() {
	local o="$out/$name.oracle" i sed_expr="" l
	: > "$o"
	for i in "${!devs[@]}"; do sed_expr="$sed_expr;s|${devs[$i]}:|pv$i:|g"; done
	for i in "${!devs[@]}"; do
		l=${devs[$i]}
		local h
		h=$(lvmc pvck --dump headers "$l" 2>/dev/null || true)
		awk -v n="$i" '
			$1 == "label_header.sector" { sec = $2 }
			$1 == "pv_header.pv_uuid" { uuid = $2 }
			$1 == "pv_header.device_size" { size = $2 }
			$1 == "pv_header.disk_locn[0].offset" { data = $2 }
			match($1, /^mda_header_[0-9]+\./) {
				m = substr($1, 12, RLENGTH - 12)
				f = substr($1, RLENGTH + 1)
				v[m, f] = $2; if (m > nm) nm = m
			}
			END {
				print "label", n, sec, uuid, size, data
				for (m = 1; m <= nm; m++)
					print "mda", n, m, v[m, "start"], v[m, "size"], v[m, "raw_locn[0].offset"], v[m, "raw_locn[0].size"], v[m, "raw_locn[0].checksum"], v[m, "raw_locn[0].flags"]
			}' <<<"$h" >> "$o"
		local m
		for m in 1 2; do
			lvmc pvck --dump metadata --settings "mda_num=$m" -f "$out/$name.pv$i.mda$m.txt" "$l" >/dev/null 2>&1 ||
				rm -f "$out/$name.pv$i.mda$m.txt"
		done
	done
	if lvmc vgs --noheadings --units s --nosuffix --separator ' ' -o vg_name,vg_uuid,vg_extent_size,vg_seqno 2>/dev/null |
		awk 'NF { gsub(/-/, "", $2); print "vg", $1, $2, $3, $4 }' >> "$o"; then :; fi
	for i in "${!devs[@]}"; do
		lvmc pvs --noheadings --units s --nosuffix --separator ' ' -o pv_uuid,pe_start,pv_pe_count "${devs[$i]}" 2>/dev/null |
			awk -v n="$i" 'NF { gsub(/-/, "", $1); print "pv", n, $1, $2, $3 }' >> "$o"
	done
	lvmc lvs -a --noheadings --separator '|' -o lv_name,lv_layout,lv_role 2>/dev/null |
		awk -F'|' 'NF { gsub(/[][ ]/, "", $1); gsub(/ /, "", $2); gsub(/ /, "", $3); print "lv", $1, $2, $3 }' >> "$o"
	lvmc lvs -a --segments --noheadings --separator '|' -o lv_name,seg_start_pe,seg_size_pe,segtype,stripes,seg_pe_ranges 2>/dev/null |
		sed -e "$sed_expr" |
		awk -F'|' 'NF { for (k = 1; k <= NF; k++) gsub(/^ +| +$/, "", $k); gsub(/[][]/, "", $1); gsub(/[][]/, "", $6); print "seg", $1, $2, $3, $4, $5, $6 }' >> "$o"
	for l in "${devs[@]}"; do losetup -d "$l"; done
	loops=()
}

# raw_locn[0] of mda 1: offset + size > area size?
wrapped() {
	lvmc pvck --dump headers "$1" 2>/dev/null | awk '
		$1 == "mda_header_1.size" { s = $2 }
		$1 == "mda_header_1.raw_locn[0].offset" { o = $2 }
		$1 == "mda_header_1.raw_locn[0].size" { n = $2 }
		END { exit !(o + n > s) }'
}

# 1. Debian's guided "use entire disk and set up LVM": VG <host>-vg, LVs root, swap_1
layout debian 96
lvmc pvcreate -q "${devs[0]}" >/dev/null
lvmc vgcreate -q -s 4m debian-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -L 60m -n root debian-vg >/dev/null
lvmc lvcreate -q -an -Zn -l 100%FREE -n swap_1 debian-vg >/dev/null
finish

# 2. LVs of several segments: each extended after another LV was created
layout segs 40
lvmc pvcreate -q "${devs[0]}" >/dev/null
lvmc vgcreate -q -s 1m seg-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 3 -n a seg-vg >/dev/null
lvmc lvcreate -q -an -Zn -l 2 -n b seg-vg >/dev/null
lvmc lvextend -q -l +4 seg-vg/a >/dev/null
lvmc lvcreate -q -an -Zn -l 1 -n c seg-vg >/dev/null
lvmc lvextend -q -l +2 seg-vg/b >/dev/null
lvmc lvextend -q -l +3 seg-vg/a >/dev/null
lvmc lvremove -q -y seg-vg/c >/dev/null
lvmc lvextend -q -l +5 seg-vg/b >/dev/null
finish

# 3. a VG over two PVs, an LV spanning both, one only on the second
layout span 24 20
lvmc pvcreate -q "${devs[@]}" >/dev/null
lvmc vgcreate -q -s 1m span-vg "${devs[@]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 8 -n small span-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 4 -n onb span-vg "${devs[1]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 100%FREE -n big span-vg >/dev/null
finish

# 4. what efiresume refuses: a striped LV, a cache pool; next to a linear LV
layout refuse 24 24
lvmc pvcreate -q "${devs[@]}" >/dev/null
lvmc vgcreate -q -s 1m refuse-vg "${devs[@]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 4 -n lin refuse-vg >/dev/null
lvmc lvcreate -q -an -Zn -i 2 -I 64k -l 6 -n str refuse-vg >/dev/null
lvmc lvcreate -q -an --type cache-pool -l 2 -n cpool refuse-vg >/dev/null
lvmc lvcreate -q -an -Zn -l 3 -n swap refuse-vg >/dev/null
finish

# 5. metadata wrapped around the circular buffer of a small metadata area; the PV
#    also has the second metadata area at its end
layout wrap 16
lvmc pvcreate -q --metadatasize 32k --dataalignment 64k --pvmetadatacopies 2 "${devs[0]}" >/dev/null
lvmc vgcreate -q -s 64k wrap-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 2 -n keep wrap-vg >/dev/null
k=0
until wrapped "${devs[0]}"; do
	k=$((k + 1))
	[ $k -le 200 ] || { echo "mklvm.sh: metadata never wrapped" >&2; exit 1; }
	lvmc lvcreate -q -an -Zn -l 1 -n "tmp_with_a_rather_long_name_$k" wrap-vg >/dev/null
	[ $((k % 3)) = 0 ] && lvmc lvremove -q -y "wrap-vg/tmp_with_a_rather_long_name_$((k - 1))" >/dev/null
	lvmc lvextend -q -l +1 wrap-vg/keep >/dev/null
done
finish

# 6. two PVs whose metadata disagree: pv1 keeps an older copy (its device was away
#    while the VG changed); pv2 has its metadata area marked ignored; pv3 is an
#    orphan PV (no VG); pv4 has no metadata area at all. Reporting commands do not
#    repair old metadata (only commands that write do), so the oracle shows pv1 stale.
layout stale 16 16 16 16 16
lvmc pvcreate -q "${devs[0]}" "${devs[1]}" "${devs[2]}" "${devs[3]}" >/dev/null
lvmc pvcreate -q --metadatacopies 0 "${devs[4]}" >/dev/null
lvmc vgcreate -q -s 1m stale-vg "${devs[0]}" "${devs[1]}" "${devs[2]}" "${devs[4]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 6 -n old stale-vg "${devs[0]}" >/dev/null
lvmc pvchange -q --metadataignore y "${devs[2]}" >/dev/null
blockdev --flushbufs "${devs[1]}"
cp --sparse=always "${devs[1]}" "$out/stale.pv1.old"
lvmc lvcreate -q -an -Zn -l 20 -n new stale-vg >/dev/null
lvmc lvextend -q -l +2 stale-vg/old >/dev/null
dd if="$out/stale.pv1.old" of="${devs[1]}" bs=1M conv=sparse,fsync status=none
rm -f "$out/stale.pv1.old"
finish

# 7. a PV on a device of 4096-byte logical sectors (the metadata still counts in
#    512-byte units and bytes; the text is not 4 KiB aligned)
sector_size=4096 layout sect4k 32
lvmc pvcreate -q "${devs[0]}" >/dev/null
lvmc vgcreate -q -s 1m k-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 3 -n a k-vg >/dev/null
lvmc lvcreate -q -an -Zn -l 2 -n swap k-vg >/dev/null
lvmc lvextend -q -l +4 k-vg/a >/dev/null
finish

# 8. what lvm2 can only create with device-mapper (thin, raid1, mirror, snapshot):
#    written as metadata text and restored with vgcfgrestore, which checks it as lvm2
#    checks any metadata; lvm2 then writes it to the PV in its own form
layout exotic 40
lvmc pvcreate -q "${devs[0]}" >/dev/null
lvmc vgcreate -q -s 1m exotic-vg "${devs[0]}" >/dev/null
lvmc lvcreate -q -an -Zn -l 1 -n tmp exotic-vg >/dev/null
lvmc vgcfgbackup -q -f "$out/exotic.backup" exotic-vg >/dev/null
# an lvm2 id from a name: 32 hex digits are valid id characters
uid() { local h; h=$(printf '%s' "$1" | md5sum | cut -c1-32); echo "${h:0:6}-${h:6:4}-${h:10:4}-${h:14:4}-${h:18:4}-${h:22:4}-${h:26:6}"; }
# lvtext NAME STATUS EXTENTS SEGMENT-BODY
lvtext() {
	printf '%s {\nid = "%s"\nstatus = %s\nflags = []\nsegment_count = 1\nsegment1 {\nstart_extent = 0\nextent_count = %d\n%s\n}\n}\n' \
		"$1" "$(uid "$1")" "$2" "$3" "$4"
}
lintext() { lvtext "$1" "$2" "$4" "type = \"striped\"
stripe_count = 1
stripes = [\"pv0\", $3]"; }
vis='["READ", "WRITE", "VISIBLE"]' hid='["READ", "WRITE"]'
{
	sed -e '/^[[:space:]]*logical_volumes {/,$d' "$out/exotic.backup" |
		awk '!done && $1 == "seqno" { $3 = $3 + 1; done = 1 } { print }'
	echo "logical_volumes {"
	lintext base "$vis" 0 4
	lintext home "$vis" 4 4
	lintext home_snap "$vis" 8 2
	lvtext snapshot0 "$hid" 4 'type = "snapshot"
chunk_size = 8
origin = "home"
cow_store = "home_snap"'
	lvtext tp "$vis" 4 'type = "thin-pool"
metadata = "tp_tmeta"
pool = "tp_tdata"
transaction_id = 1
chunk_size = 128
discards = "passdown"
zero_new_blocks = 1'
	lvtext thinvol "$vis" 8 'type = "thin"
thin_pool = "tp"
transaction_id = 0
device_id = 1'
	lintext tp_tmeta "$hid" 14 1
	lintext tp_tdata "$hid" 10 4
	lvtext r "$vis" 2 'type = "raid1"
device_count = 2
region_size = 1024
raids = ["r_rmeta_0", "r_rimage_0", "r_rmeta_1", "r_rimage_1"]'
	lintext r_rmeta_0 "$hid" 15 1
	lintext r_rimage_0 "$hid" 16 2
	lintext r_rmeta_1 "$hid" 18 1
	lintext r_rimage_1 "$hid" 19 2
	lvtext m "$vis" 2 'type = "mirror"
mirror_count = 2
mirror_log = "m_mlog"
region_size = 1024
mirrors = ["m_mimage_0", 0, "m_mimage_1", 0]'
	lintext m_mlog "$hid" 25 1
	lintext m_mimage_0 "$hid" 21 2
	lintext m_mimage_1 "$hid" 23 2
	lintext swap "$vis" 26 3
	echo "}"
	echo "}"
} > "$out/exotic.restore"
lvmc vgcfgrestore -q --force -f "$out/exotic.restore" exotic-vg 2>&1 |
	grep -v 'device-mapper\|Failure to communicate\|Incompatible libdevmapper\|Failed to check for active\|Forced restore\|Restored volume group' >&2 || true
rm -f "$out/exotic.backup" "$out/exotic.restore"
finish

echo "$me" > "$stamp"
