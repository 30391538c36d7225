# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the configuration: efiresume.conf on the ESP (conf_set, conf_get, the fallback it names)
# and the state file /var/lib/efiresume/state.

# ------------------------------------------------------------------ state file
# /var/lib/efiresume/state: key=value lines (never sourced). Keys: mode, entry, esp, arch,
# version, sha256, installed (date).
state_get() {
	[ -r "$STATE" ] || return 0
	sed -n "s/^$1=//p" "$STATE" | head -n 1
}

state_write() { # key=value ...
	local tmp
	mkdir -p "$STATE_DIR" || return 1
	tmp=$STATE.new
	{
		echo "# efiresume-install state (read by efiresume-install and the systemd-sleep hook)"
		for kv in "$@"; do echo "$kv"; done
	} >"$tmp" && mv -f "$tmp" "$STATE"
}

# ------------------------------------------------------------------ efiresume.conf
# conf_set FILE KEY VALUE [COMMENT]: replace KEY's line (and our comment for it) or append;
# VALUE "" removes the key. Other lines are kept as they are. The new file is made off the
# ESP (every step checked), then written with esp_put_file: whatever fails, FILE stays whole
# and the status is 1.
conf_set() {
	local file=$1 key=$2 value=$3 comment=${4:-} want rc=0
	work_dir
	want=$WORKDIR/efiresume.conf.want
	{
		if [ -e "$file" ]; then
			awk -v k="$key" '
				{ line = $0; sub(/^[ \t]+/, "", line) }
				line ~ ("^# efiresume-install " k ":") { next }
				{ split(line, w, /[ \t]+/); if (w[1] == k) next; print }' "$file" || rc=1
		fi
		if [ -n "$comment" ]; then printf '%s\n' "# efiresume-install $key: $comment" || rc=1; fi
		if [ -n "$value" ]; then printf '%s\n' "$key $value" || rc=1; fi
	} >"$want" || rc=1
	if [ "$rc" != 0 ]; then
		err "cannot make the new $file (in $WORKDIR); it is left as it was"
		return 1
	fi
	esp_put_file "$want" "$file"
}

# conf_create FILE: a new efiresume.conf holding its header only (esp_put_file)
conf_create() {
	work_dir
	printf '%s\n' "# efiresume.conf: \"key value\" lines, see efiresume.conf(5)." \
		"# Written by efiresume-install; efiresume-install update keeps this file as it is." \
		>"$WORKDIR/efiresume.conf.want" || return 1
	esp_put_file "$WORKDIR/efiresume.conf.want" "$1"
}

conf_get() { # FILE KEY: the last value (as the loader applies them in order)
	[ -r "$1" ] || return 0
	awk -v k="$2" '{ line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t\r]+$/, "", line)
		if (line ~ /^#/) next
		n = index(line, " "); t = index(line, "\t"); if (n == 0 || (t > 0 && t < n)) n = t
		if (n == 0) next
		if (substr(line, 1, n - 1) == k) { v = substr(line, n); sub(/^[ \t]+/, "", v); val = v } }
		END { if (val != "") print val }' "$1"
}

# detect_fallback ARRAY ARCH: the fallback from BootCurrent, into the associative array ARRAY:
# [path] (the program; "" = none found), [opts] (its command line), [comment] (why). ARCH
# (x64, ia32): the firmware's, for the removable-media path.
detect_fallback() {
	local -n df=$1
	local cur n path guid kind arch_up o
	local -A lo
	df=([path]="" [opts]="" [comment]="")
	cur=$(var_u16 BootCurrent)
	if [ -z "$cur" ]; then
		df[comment]="no BootCurrent variable: none configured, efiresume returns to the firmware"
		return 0
	fi
	if is_ours "$cur"; then
		# booted through efiresume: use the first other entry of BootOrder
		for o in $(boot_order | tr , ' '); do
			[ "$o" = "$cur" ] && continue
			is_ours "$o" && continue
			load_option "$o" lo 2>/dev/null || continue
			[ -n "${lo[path]}" ] || continue
			cur=$o
			break
		done
		is_ours "$cur" && { df[comment]="booted through efiresume and no other entry has a program: none configured"; return 0; }
		n="Boot$cur (\"$(entry_desc "$cur")\"), the first other entry in BootOrder (this system booted through efiresume)"
	else
		n="Boot$cur (\"$(entry_desc "$cur")\"), the entry this system booted from (BootCurrent)"
	fi
	load_option "$cur" lo 2>/dev/null || { df[comment]="Boot$cur cannot be read: none configured"; return 0; }
	path=${lo[path]} guid=${lo[partguid]} kind=${lo[optkind]}
	if [ -z "$path" ]; then
		# a device entry (e.g. "UEFI Misc Device"): the firmware started the removable path
		arch_up=${2^^}
		if [ -e "$ESP/EFI/BOOT/BOOT$arch_up.EFI" ]; then
			df[path]="\\EFI\\BOOT\\BOOT$arch_up.EFI"
			df[comment]="$n has no file path: the firmware started the removable-media path"
		else
			df[comment]="$n has no file path and $ESP has no \\EFI\\BOOT\\BOOT$arch_up.EFI: none configured"
		fi
		return 0
	fi
	if [ -n "$guid" ] && [ -n "$ESP_PARTUUID" ] && [ "$guid" != "${ESP_PARTUUID,,}" ]; then
		df[comment]="$n starts $path from another partition ($guid): none configured"
		return 0
	fi
	df[path]=$path
	df[comment]="$n"
	if [ "$kind" = ascii ]; then
		# efiresume hands its options to the fallback as UCS-2 (what the kernel's EFI stub
		# reads); ASCII optional data (efibootmgr without -u) is for the program itself
		# (shim, GRUB) and would reach it changed
		warn "Boot$cur carries ASCII optional data (\"${lo[opt]}\"), not the UCS-2 command line efiresume passes on; not copied (give --options if $path needs one)"
		df[comment]="${df[comment]}; its ASCII optional data not copied"
	elif [ "$kind" = text ]; then
		df[opts]=${lo[opt]}
		if [ "${#df[opts]}" -gt 1023 ]; then
			warn "the command line of Boot$cur is longer than efiresume accepts (1023 bytes); not copied"
			df[opts]=
		fi
	fi
}
