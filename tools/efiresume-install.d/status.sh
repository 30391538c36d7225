# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the verb status.

cmd_status() {
	parse_opts "$@"
	local fw sb arch= mode cur next order e sbm
	sbm=$(state_get secure-boot)
	if [ ! -d "$SYSFS/firmware/efi" ]; then
		echo "Firmware:     not UEFI ($SYSFS/firmware/efi is missing): efiresume cannot be used"
	else
		arch=$(fw_arch)
		fw=$(cat "$SYSFS/firmware/efi/fw_platform_size" 2>/dev/null)
		sb=disabled
		if [ "$(secure_boot_byte)" = 1 ]; then
			if [ -n "$sbm" ]; then
				sb=enabled
			elif [ -e "$STATE" ]; then
				sb="enabled (efiresume is installed unsigned: the firmware refuses to start it; install it with --secure-boot=shim or db)"
			else
				sb="enabled (the package's efiresume is not signed: install it with --secure-boot=shim or db)"
			fi
		fi
		echo "Firmware:     UEFI, ${fw:-?}-bit ($arch binary); Secure Boot $sb"
	fi
	echo "Package:      $(pkg_version) ($LIBDIR)"
	mode=$(state_get mode)
	ESP=
	( find_esp "$OPT_ESP" ) >/dev/null 2>&1 && find_esp "$OPT_ESP" 2>/dev/null
	ARCH=${arch:-x64}
	sb_names "$sbm"
	local f=${ESP:+$ESP/EFI/efiresume/$SB_BIN}
	if [ -n "$f" ] && [ -e "$f" ]; then
		local pkgbin=$LIBDIR/efiresume-${arch:-x64}.efi ver
		if [ -n "$sbm" ]; then
			if [ "$(sha256sum "$pkgbin" 2>/dev/null | cut -d' ' -f1)" = "$(state_get sha256)" ] &&
				[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(state_get signed-sha256)" ]; then
				ver="the package's ($(pkg_version)), signed"
			else
				if [ -n "$(state_get key)" ]; then
					ver="not the package's $pkgbin as signed by efiresume-install (recorded version $(state_get version); run efiresume-install update)"
				else
					ver="not the package's $pkgbin as signed by efiresume-install (recorded version $(state_get version); the signing key is not kept: run efiresume-install update --key=KEY --cert=$(state_get cert))"
				fi
			fi
		elif cmp -s "$f" "$pkgbin"; then
			ver="the package's ($(pkg_version))"
		else
			ver="differs from $pkgbin (recorded version $(state_get version); run efiresume-install update)"
		fi
		echo "Installed:    yes, $f, $ver"
	else
		if [ -n "$ESP" ]; then
			echo "Installed:    no (nothing in $ESP/EFI/efiresume)"
		else
			echo "Installed:    no (no EFI system partition found)"
		fi
	fi
	echo "Mode:         ${mode:-none (no $STATE)}"
	[ -n "$sbm" ] && [ -n "$f" ] && sb_status_lines "$sbm" "$f"
	if [ -d "$EFIVARS" ]; then
		cur=$(var_u16 BootCurrent) next=$(var_u16 BootNext) order=$(boot_order)
		local mine
		mine=$(our_entries)
		if [ -z "$mine" ]; then
			echo "Entry:        none"
		fi
		for e in $mine; do
			local inorder=no
			echo ",$order," | grep -q ",$e," && inorder="yes (position $(echo "$order" | tr , '\n' | grep -nx "$e" | cut -d: -f1))"
			echo "Entry:        Boot$e \"$(LO=$(load_option "$e") && lo_get desc)\" $(entry_path "$e"); in BootOrder: $inorder; BootNext: $([ "$next" = "$e" ] && echo "points at it" || echo "${next:-not set}")"
		done
		echo "BootCurrent:  ${cur:-none}; BootOrder: ${order:-empty}"
		local loc
		loc=$(cat "$(var_path EfiresumeLocation "$ER_GUID")" 2>/dev/null | tail -c +5 | tr -d '\0')
		[ -n "$loc" ] && echo "Location:     EfiresumeLocation $loc (written before a hibernation)"
	fi
	if [ -n "$f" ] && [ -e "${f%/*}/efiresume.conf" ]; then
		local fb
		fb=$(conf_get "${f%/*}/efiresume.conf" fallback)
		echo "Fallback:     ${fb:-none (efiresume returns to the firmware, which goes on with BootOrder)}"
		local t
		t=$(conf_get "${f%/*}/efiresume.conf" timeout)
		echo "Timeout:      ${t:-3 (default)}"
	fi
	# swap (issue 16): every active swap, inspected, with the device stack under it (a swap
	# file: its filesystem, the stack under that and its resume offset); the resume device;
	# swap marked swsuspend; the location variables and whether they name one of those swaps
	echo "Swap:"
	local seen=" " raw typ path dev mm u rdev roff i hit n=0 OFF OFF_HOW STACK_LUKS=
	local SW_LABEL=() SW_UUID=() SW_OFF=() SW_KEY=()
	while read -r raw typ _; do
		[ -n "$raw" ] || continue
		path=$(unesc "$raw")
		n=$((n + 1))
		if [ "$typ" = file ]; then
			swapfile_lines "$raw" "$path"
			continue
		fi
		seen="$seen$path "
		inspect_one "$path" "" "$path (active swap)"
		mm=$(devnum_of "$path")
		u=$(id_of "" "$path" uuid)
		echo "    swap area UUID ${u:-unknown}"
		if [ -n "$mm" ]; then
			stack_lines "$mm" "    " ""
		else
			echo "    $path: not in $SYSFS/class/block"
		fi
		SW_LABEL+=("$path") SW_UUID+=("$u") SW_OFF+=(0) SW_KEY+=("${mm:-?}@0")
	done < <(tail -n +2 "$PROCFS/swaps" 2>/dev/null)
	rdev=$(cat "$SYSFS/power/resume" 2>/dev/null)
	roff=$(cat "$SYSFS/power/resume_offset" 2>/dev/null)
	if [ -z "$rdev" ] || [ "$rdev" = 0:0 ]; then
		echo "  resume device ($SYSFS/power/resume): not set (systemd-sleep may write it just before hibernating)"
	else
		dev=$(dev_of "$rdev")
		hit=
		for i in "${!SW_KEY[@]}"; do
			[ "${SW_KEY[$i]}" = "$rdev@${roff:-0}" ] && hit=${SW_LABEL[$i]}
		done
		if [ -n "$hit" ]; then
			echo "  resume device ($SYSFS/power/resume): $rdev${roff:+, offset $roff}: $hit, above"
		elif [ -z "$dev" ]; then
			echo "  resume device $rdev: no such block device"
		elif [ "${roff:-0}" != 0 ]; then
			inspect_one "$dev" "$roff" "$dev, swap file at page $roff (resume device)"
		elif ! echo "$seen" | grep -qF " $dev "; then
			seen="$seen$dev "
			inspect_one "$dev" "" "$dev (resume device)"
		fi
		if [ -z "$hit" ] && [ -n "$dev" ]; then
			local LOC_LV LOC_LUKS
			volume_stack "$rdev" 2>/dev/null
			if [ -n "$LOC_LV$LOC_LUKS" ]; then
				echo "  resume device $rdev:${LOC_LV:+ LVM logical volume $LOC_LV}${LOC_LV:+${LOC_LUKS:+,}}${LOC_LUKS:+ in LUKS container $LOC_LUKS}"
			fi
			stack_lines "$rdev" "    " ""
		fi
	fi
	while read -r dev; do
		[ -n "$dev" ] || continue
		echo "$seen" | grep -qF " $dev " && continue
		seen="$seen$dev "
		inspect_one "$dev" "" "$dev (swap with a hibernation signature)"
	done < <(blkid -t TYPE=swsuspend -o device 2>/dev/null)
	[ "$n" -gt 0 ] || echo "  none: hibernation needs swap"
	if [ -d "$EFIVARS" ]; then
		location_lines HibernateLocation "$SYSTEMD_GUID" utf16 "systemd, decoded"
		location_lines EfiresumeLocation "$ER_GUID" utf8 "efiresume's sleep hook"
	fi
	return 0
}
