# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the systemd-sleep hook (efiresume-install hook pre|post OPERATION): BootNext and
# EfiresumeLocation around a hibernation.

# internal: the systemd-sleep hook (/usr/lib/systemd/system-sleep/efiresume calls it).
# Never fails: every problem is a message on stderr (systemd-sleep sends it to the journal).
cmd_hook() {
	local when=${1:-} what=${2:-} mode= entry= sbm= next k v t0=$SECONDS
	[ -e "$STATE" ] || return 0               # not installed on the ESP
	[ -d "$EFIVARS" ] || { echo "efiresume: no EFI variables at $EFIVARS" >&2; return 0; }
	while IFS='=' read -r k v; do
		case $k in mode) mode=$v ;; entry) entry=$v ;; secure-boot) sbm=$v ;; esac
	done <"$STATE"
	case $when/$what in
	pre/hibernate | pre/hybrid-sleep | pre/suspend-then-hibernate)
		# BootNext first: it is what makes the firmware start efiresume
		if [ "$mode" = on-hibernate ] && [ -z "$sbm" ] && [ "$(secure_boot_byte)" = 1 ]; then
			# Unsigned under Secure Boot: the firmware refuses to start efiresume (some stop at
			# an error screen), and a kernel not started through efiresume has no hibernation
			# key. A BootNext left at efiresume goes too.
			echo "efiresume: Secure Boot is on and efiresume is installed without --secure-boot: the firmware would refuse to start it; BootNext not set, efiresume will not resume this hibernation (under Secure Boot only a kernel started through efiresume gets a hibernation key: efiresume-install install --secure-boot=shim|db, which puts it in front of every boot)" >&2
			next=$(var_u16 BootNext)
			if [ -n "$next" ] && is_ours "$next"; then
				ebm -N && echo "efiresume: BootNext (Boot$next, efiresume's) deleted" >&2
			fi
		elif [ "$mode" = on-hibernate ]; then
			if [ -z "$entry" ] || ! is_ours "$entry"; then
				entry=$(our_entries | head -n 1)
			fi
			next=$(var_u16 BootNext)
			if [ -z "$entry" ]; then
				echo "efiresume: the boot entry is missing (run efiresume-install update); BootNext not set" >&2
			elif [ -n "$next" ] && [ "$next" != "$entry" ] && [ -e "$(var_path "Boot$next")" ] && ! is_ours "$next"; then
				# someone else's one-shot (a firmware update, a one-time boot): theirs to
				# consume. This resume goes through BootOrder (the kernel's own resume).
				echo "efiresume: BootNext already points at Boot$next (\"$(entry_desc "$next")\"), not at efiresume: left as it is; BootNext not set, efiresume will not resume this hibernation" >&2
			elif ebm -n "$entry"; then
				echo "efiresume: BootNext set to Boot$entry"
			else
				echo "efiresume: could not set BootNext to Boot$entry" >&2
			fi
		fi
		write_location
		echo "efiresume: pre $what done in $((SECONDS - t0)) s" ;;
	post/hibernate | post/hybrid-sleep | post/suspend-then-hibernate)
		next=$(var_u16 BootNext)
		if [ -n "$next" ] && is_ours "$next"; then
			ebm -N && echo "efiresume: BootNext (Boot$next) cleared: the machine did not go through a resume by efiresume"
		fi
		# after a resume the loader deleted it; still there: hibernation failed or another path
		# resumed. (After a resume efivarfs may still list a variable the firmware no longer
		# has: it reads empty, and deleting it only tidies the listing.)
		local f
		f=$(var_path EfiresumeLocation "$ER_GUID")
		if [ -e "$f" ]; then
			if [ "$(cat "$f" 2>/dev/null | wc -c)" -gt 4 ]; then
				var_delete EfiresumeLocation "$ER_GUID" &&
					echo "efiresume: EfiresumeLocation deleted (left over: no resume through efiresume used it)"
			else
				var_delete EfiresumeLocation "$ER_GUID" 2>/dev/null
			fi
		fi
		# systemd's HibernateLocation: systemd-hibernate-resume (systemd initrds) deletes it
		# before the kernel resumes, efiresume at its commit; after a resume by initramfs-tools
		# nothing does, and the next boot through efiresume would look for the image it names
		# (and ask for the passphrase of an encrypted swap). The image is gone by now (resumed,
		# or never written: systemd deletes the variable itself when hibernation fails).
		f=$(var_path HibernateLocation "$SYSTEMD_GUID")
		if [ -e "$f" ] && [ "$(cat "$f" 2>/dev/null | wc -c)" -gt 4 ]; then
			var_delete HibernateLocation "$SYSTEMD_GUID" &&
				echo "efiresume: HibernateLocation deleted (left over: the resume did not go through systemd-hibernate-resume or efiresume)"
		fi ;;
	esac
	return 0
}

# EfiresumeLocation: {"uuid","offset","device","kernelVersion"} like systemd's HibernateLocation,
# plus "luks" and "lv" after "device" when the swap sits in a LUKS container and/or an LV
write_location() {
	local rdev roff dev uuid f tmp hints=
	local -A vol
	rdev=$(cat "$SYSFS/power/resume" 2>/dev/null)
	roff=$(cat "$SYSFS/power/resume_offset" 2>/dev/null)
	f=$(var_path EfiresumeLocation "$ER_GUID")
	if [ -z "$rdev" ] || [ "$rdev" = 0:0 ]; then
		echo "efiresume: $SYSFS/power/resume names no device; EfiresumeLocation not written" >&2
		var_delete EfiresumeLocation "$ER_GUID"
		return 0
	fi
	dev=$(dev_of "$rdev")
	uuid=
	[ -n "$dev" ] && uuid=$(blkid -o value -s UUID "$dev" 2>/dev/null)
	if [ -z "$uuid" ]; then
		echo "efiresume: no UUID for the resume device $rdev (${dev:-no device node}); EfiresumeLocation not written" >&2
		var_delete EfiresumeLocation "$ER_GUID"
		return 0
	fi
	volume_stack "$rdev" vol
	[ -n "${vol[luks]}" ] && hints="$hints,\"luks\":\"${vol[luks]}\""
	[ -n "${vol[lv]}" ] && hints="$hints,\"lv\":\"$(json_escape "${vol[lv]}")\""
	tmp=$(mktemp) || return 0
	{
		printf '\007\000\000\000'
		printf '{"uuid":"%s","offset":%s,"device":"%s"%s,"kernelVersion":"%s"}' \
			"$(json_escape "$uuid")" "${roff:-0}" "$rdev" "$hints" "$(json_escape "$(uname -r)")"
	} >"$tmp"
	var_delete EfiresumeLocation "$ER_GUID"
	# efivarfs wants the whole variable in one write
	if dd if="$tmp" of="$f" bs=64k count=1 conv=notrunc status=none 2>/dev/null; then
		echo "efiresume: EfiresumeLocation: $(tail -c +5 "$tmp")"
	else
		echo "efiresume: could not write EfiresumeLocation" >&2
	fi
	rm -f "$tmp"
}
