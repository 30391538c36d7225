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
# conf_set FILE KEY VALUE: replace KEY's line (and our comment for it) or append; VALUE ""
# removes the key. Other lines are kept as they are.
conf_set() {
	local file=$1 key=$2 value=$3 comment=${4:-} tmp=$1.new
	{
		[ -e "$file" ] && awk -v k="$key" '
			{ line = $0; sub(/^[ \t]+/, "", line) }
			line ~ ("^# efiresume-install " k ":") { next }
			{ split(line, w, /[ \t]+/); if (w[1] == k) next; print }' "$file"
		if [ -n "$comment" ]; then echo "# efiresume-install $key: $comment"; fi
		if [ -n "$value" ]; then echo "$key $value"; fi
	} >"$tmp" || return 1
	mv -f "$tmp" "$file"
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

# Fallback from BootCurrent: sets FB_PATH, FB_OPTS, FB_COMMENT (FB_PATH "" = none found)
detect_fallback() {
	local cur n desc path guid kind arch_up
	FB_PATH= FB_OPTS= FB_COMMENT=
	cur=$(var_u16 BootCurrent)
	if [ -z "$cur" ]; then
		FB_COMMENT="no BootCurrent variable: none configured, efiresume returns to the firmware"
		return 0
	fi
	if is_ours "$cur"; then
		# booted through efiresume: use the first other entry of BootOrder
		local o
		for o in $(boot_order | tr , ' '); do
			[ "$o" = "$cur" ] && continue
			is_ours "$o" && continue
			LO=$(load_option "$o" 2>/dev/null) || continue
			[ -n "$(lo_get path)" ] || continue
			cur=$o
			break
		done
		is_ours "$cur" && { FB_COMMENT="booted through efiresume and no other entry has a program: none configured"; return 0; }
		n="Boot$cur (\"$(LO=$(load_option "$cur") && lo_get desc)\"), the first other entry in BootOrder (this system booted through efiresume)"
	else
		n="Boot$cur (\"$(LO=$(load_option "$cur") && lo_get desc)\"), the entry this system booted from (BootCurrent)"
	fi
	LO=$(load_option "$cur" 2>/dev/null) || { FB_COMMENT="Boot$cur cannot be read: none configured"; return 0; }
	desc=$(lo_get desc) path=$(lo_get path) guid=$(lo_get partguid) kind=$(lo_get optkind)
	if [ -z "$path" ]; then
		# a device entry (e.g. "UEFI Misc Device"): the firmware started the removable path
		arch_up=$(echo "$ARCH" | tr a-z A-Z)
		if [ -e "$ESP/EFI/BOOT/BOOT$arch_up.EFI" ]; then
			FB_PATH="\\EFI\\BOOT\\BOOT$arch_up.EFI"
			FB_COMMENT="$n has no file path: the firmware started the removable-media path"
		else
			FB_COMMENT="$n has no file path and $ESP has no \\EFI\\BOOT\\BOOT$arch_up.EFI: none configured"
		fi
		return 0
	fi
	if [ -n "$guid" ] && [ -n "$ESP_PARTUUID" ] && [ "$guid" != "${ESP_PARTUUID,,}" ]; then
		FB_COMMENT="$n starts $path from another partition ($guid): none configured"
		return 0
	fi
	FB_PATH=$path
	FB_COMMENT="$n"
	if [ "$kind" = ascii ]; then
		# efiresume hands its options to the fallback as UCS-2 (what the kernel's EFI stub
		# reads); ASCII optional data (efibootmgr without -u) is for the program itself
		# (shim, GRUB) and would reach it changed
		warn "Boot$cur carries ASCII optional data (\"$(lo_get opt)\"), not the UCS-2 command line efiresume passes on; not copied (give --options if $path needs one)"
		FB_COMMENT="$FB_COMMENT; its ASCII optional data not copied"
	elif [ "$kind" = text ]; then
		FB_OPTS=$(lo_get opt)
		if [ "${#FB_OPTS}" -gt 1023 ]; then
			warn "the command line of Boot$cur is longer than efiresume accepts (1023 bytes); not copied"
			FB_OPTS=
		fi
	fi
}
