# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the verbs install, update and remove.

cmd_install() {
	parse_opts "$@"
	if [ "$OPT_MODE" = on-hibernate ] && [ -n "$(sb_mode_wanted)" ]; then
		die "--mode=on-hibernate cannot be used with --secure-boot=$(sb_mode_wanted): $SB_MODE_WHY (--mode=always, which --secure-boot implies); nothing was changed"
	fi
	check_uefi
	check_efivarfs
	check_secure_boot "$(sb_mode_wanted)"
	check_swap
	local arch bin
	local -A sb
	arch=$(fw_arch) || die "cannot tell the firmware's word size ($SYSFS/firmware/efi/fw_platform_size)"
	bin=$(binary_for "$arch")
	[ -r "$bin" ] || die "$bin is missing (is the efiresume package installed?)"
	find_esp "$OPT_ESP"
	local recorded entry= entry_new=
	recorded=$(state_get esp)
	if [ -n "$recorded" ] && [ "$recorded" != "$ESP" ]; then
		say "efiresume was installed on the EFI system partition at $recorded (recorded in $STATE): installing on $ESP instead; the boot entry that starts it there goes, its files in $recorded/EFI/efiresume are left as they are (nothing starts them)"
	fi
	sb_prepare sb "$bin" install "$arch"
	if [ "$arch" = ia32 ] && [ "$(uname -m)" = x86_64 ]; then
		warn "64-bit kernel on 32-bit UEFI: efiresume-ia32 resumes 32-bit kernels only"
	fi

	local mode=${OPT_MODE:-$(state_get mode)}
	mode=${mode:-on-hibernate}
	if [ -n "${sb[mode]}" ] && [ "$mode" != always ]; then
		mode=always
		say "--secure-boot implies --mode=always: $SB_MODE_WHY"
	fi
	local conf=$ESP/EFI/efiresume/efiresume.conf
	local fresh= newdir=
	[ -e "$conf" ] || fresh=1
	[ -e "$ESP/EFI/efiresume" ] || newdir=1

	# what the configuration will say (decided before anything changes)
	local fb_path= fb_comment= fb_opts= fb_set= opts_set=
	if [ -n "$OPT_FALLBACK_SET" ]; then
		fb_set=1
		if [ "$OPT_FALLBACK" = none ] || [ -z "$OPT_FALLBACK" ]; then
			fb_path= fb_comment="none (--fallback=none): efiresume returns to the firmware when there is nothing to resume"
		else
			fb_path=$(printf '%s' "$OPT_FALLBACK" | tr / '\\')
			case $fb_path in '\'*) ;; *) fb_path="\\$fb_path" ;; esac
			local unix=${fb_path//\\//}
			[ -e "$ESP$unix" ] || die "--fallback $fb_path: no such file on the EFI system partition ($ESP$unix)"
			fb_comment="given with --fallback"
		fi
	elif [ -n "$fresh" ] || [ -z "$(conf_get "$conf" fallback)" ] && [ -z "$(grep -s '^# efiresume-install fallback:' "$conf")" ]; then
		local -A fb
		detect_fallback fb "$arch"
		fb_set=1 fb_path=${fb[path]} fb_comment=${fb[comment]} fb_opts=${fb[opts]}
		[ -z "$OPT_OPTIONS_SET" ] && [ -n "$fb_opts" ] && opts_set=1
	fi
	if [ -n "$OPT_OPTIONS_SET" ]; then
		fb_opts=$OPT_OPTIONS opts_set=1
	fi

	# --- changes start here
	sb_add_db sb
	if [ -n "${sb[mode]}" ] && [ -z "${sb[signed]}" ]; then
		say "$ESP/EFI/efiresume/${sb[bin]} is the package's ($(pkg_version)) signed with ${sb[cert]} already: kept"
	elif [ -n "${sb[mode]}" ]; then
		if ! sb_copy sb; then
			[ -n "$newdir" ] && rm -rf "$ESP/EFI/efiresume"
			die "cannot write to $ESP/EFI/efiresume; $([ -n "$newdir" ] && echo "nothing was installed" || echo "the files there are left as they were")"
		fi
		if [ "${sb[mode]}" = shim ]; then
			say "copied ${sb[shim]} to $ESP/EFI/efiresume/${sb[loader]}, ${sb[mmsrc]} to ${sb[mm]}, and $bin signed with ${sb[key]} to ${sb[bin]}"
		else
			say "copied $bin signed with ${sb[key]} to $ESP/EFI/efiresume/${sb[bin]}"
		fi
	else
		if ! copy_binary "$bin"; then
			[ -n "$newdir" ] && rm -rf "$ESP/EFI/efiresume"
			die "cannot write $ESP/EFI/efiresume/efiresume.efi; $([ -n "$newdir" ] && echo "nothing was installed" || echo "the binary there is left as it was")"
		fi
		say "copied $bin to $ESP/EFI/efiresume/efiresume.efi"
	fi
	if [ -n "$fresh" ]; then
		conf_create "$conf" || die "cannot write $conf"
	fi
	if [ -n "$OPT_TIMEOUT" ]; then
		conf_set "$conf" timeout "$OPT_TIMEOUT" || die "cannot write $conf"
	elif [ -n "$fresh" ] && [ "$mode" = on-hibernate ]; then
		conf_set "$conf" timeout 0 "efiresume starts only right after a hibernation: resume without waiting" ||
			die "cannot write $conf"
	fi
	if [ -n "$fb_set" ]; then
		conf_set "$conf" fallback "$fb_path" "$fb_comment" || die "cannot write $conf"
		[ -n "$fb_path" ] && say "fallback: $fb_path ($fb_comment)" || say "fallback: $fb_comment"
	fi
	if [ -n "$opts_set" ]; then
		conf_set "$conf" options "$fb_opts" || die "cannot write $conf"
		[ -n "$fb_opts" ] && say "options: $fb_opts"
	fi
	if ! ensure_entry "\\EFI\\efiresume\\${sb[loader]}" entry entry_new; then
		[ -n "$newdir" ] && rm -rf "$ESP/EFI/efiresume"
		die "no boot entry could be created; $([ -n "$newdir" ] && echo "the files copied to the ESP were deleted again" || echo "the files on the ESP were updated")"
	fi
	apply_mode "$mode" "$entry" || die "cannot change BootOrder"
	sb_remove_stale sb
	# a BootNext left pointing at our entry from an earlier hibernation is harmless; keep it
	local sbs=()
	mapfile -t sbs < <(sb_state sb)
	state_write "mode=$mode" "entry=$entry" "esp=$ESP" "esp-partuuid=${ESP_PARTUUID:-}" "arch=$arch" "version=$(pkg_version)" \
		"sha256=$(sha256sum "$bin" | cut -d' ' -f1)" "installed=$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${sbs[@]}" ||
		die "cannot write $STATE"
	say "installed efiresume ($arch) on $ESP, Boot$entry, mode $mode${sb[mode]:+, Secure Boot through ${sb[mode]} (\\EFI\\efiresume\\${sb[loader]})}"
	sb_key_lines sb
	sb_check_fallback sb "$(conf_get "$conf" fallback)"
	sb_mok_import sb
	if [ "$mode" = on-hibernate ]; then
		say "the systemd-sleep hook sets BootNext to Boot$entry before each hibernation"
		[ -d /run/systemd/system ] || [ -n "${EFIRESUME_SYSFS:-}" ] ||
			warn "systemd is not running: nothing runs the sleep hook, so hibernating will not set BootNext (use --mode=always)"
	fi
}

# installed on the ESP? (our entry or our binary): sets ESP as find_esp does
is_installed() {
	[ -e "$STATE" ] && return 0
	[ -n "$(our_entries)" ] && return 0
	return 1
}

cmd_update() {
	parse_opts "$@"
	if [ -n "$OPT_GRACEFUL" ]; then
		# never fail a package upgrade: each reason to skip is a message, status 0
		[ -d "$SYSFS/firmware/efi" ] || { say "not booted through UEFI: nothing to update"; exit 0; }
		[ -d "$EFIVARS" ] || { say "no EFI variables: nothing to update"; exit 0; }
		is_installed || exit 0
		( cmd_update_real ) || warn "update failed; the installed efiresume is left as it was"
		exit 0
	fi
	check_uefi
	check_efivarfs
	is_installed || die "efiresume is not installed on the EFI system partition (run efiresume-install install)"
	cmd_update_real
}

cmd_update_real() {
	check_efivarfs
	# (a Secure Boot on now with efiresume installed unsigned: refused, the old binary stays)
	check_secure_boot "$(sb_mode_wanted)"
	find_esp "$OPT_ESP"
	local arch bin mode dir=$ESP/EFI/efiresume entry= entry_new=
	local -A sb
	arch=$(fw_arch) || die "cannot tell the firmware's word size"
	bin=$(binary_for "$arch")
	[ -r "$bin" ] || die "$bin is missing"
	mode=$(state_get mode)
	mode=${mode:-on-hibernate}
	[ -e "$dir/efiresume.efi" ] || [ -e "$dir/grub$arch.efi" ] || [ -n "$(our_entries)" ] ||
		die "efiresume is not installed on $ESP (run efiresume-install install)"
	# signs the new binary (or finds the ESP current, or has no key), or refuses before anything changes
	sb_prepare sb "$bin" update "$arch"
	local switched= version sha
	version=$(pkg_version) sha=$(sha256sum "$bin" | cut -d' ' -f1)
	# an installation made before --secure-boot implied --mode=always
	[ -n "${sb[mode]}" ] && [ "$mode" != always ] && mode=always switched=1
	if [ -n "${sb[stale]}" ]; then
		# no key (not kept): the signed binary stays, and so do its recorded version and hash
		version=$(state_get version) sha=$(state_get sha256)
		warn "the package's efiresume $(pkg_version) is not signed: the signing key is not kept on this machine (installed with --secure-boot=${sb[mode]}, without --keep-key); the signed efiresume on the ESP stays as it is ($dir/${sb[bin]}, version $version)"
		echo "To sign and install $(pkg_version), with the signing key at hand (then store it offline again), run:" >&2
		echo "  $(sb_resign_command "${sb[cert]}")" >&2
		echo "(KEY: the private key of that certificate; a key in a token: --engine=pkcs11 --key=pkcs11:URI)" >&2
	elif [ -n "${sb[mode]}" ]; then
		if [ -z "${sb[signed]}" ]; then
			say "$dir/${sb[bin]} is already the package's ($(pkg_version)), signed with ${sb[cert]}"
		else
			sb_add_db sb
			sb_copy sb || die "cannot write to $dir; the files there are left as they were"
			say "updated $dir/${sb[bin]} to $(pkg_version) ($arch), signed with ${sb[key]}"
			[ "${sb[mode]}" = shim ] && say "$dir/${sb[loader]} is ${sb[shim]}, ${sb[mm]} is ${sb[mmsrc]}"
			sb_key_lines sb
		fi
	elif cmp -s "$bin" "$dir/efiresume.efi"; then
		say "$dir/efiresume.efi is already the package's ($(pkg_version))"
	else
		copy_binary "$bin" || die "cannot write $dir/efiresume.efi; the binary there is left as it was"
		say "updated $dir/efiresume.efi to $(pkg_version) ($arch)"
	fi
	ensure_entry "\\EFI\\efiresume\\${sb[loader]}" entry entry_new || die "cannot create the boot entry"
	# an entry that was missing is put back where the mode wants it; an existing one keeps
	# its place in BootOrder (the user may have moved it)
	if [ -n "$entry_new" ] || [ -n "$switched" ]; then
		apply_mode "$mode" "$entry" || die "cannot change BootOrder"
	fi
	[ -n "$switched" ] && say "--secure-boot=${sb[mode]}: switched to --mode=always (Boot$entry first in BootOrder): $SB_MODE_WHY"
	sb_remove_stale sb
	local sbs=()
	mapfile -t sbs < <(sb_state sb)
	state_write "mode=$mode" "entry=$entry" "esp=$ESP" "esp-partuuid=${ESP_PARTUUID:-}" "arch=$arch" "version=$version" \
		"sha256=$sha" "installed=$(state_get installed)" "${sbs[@]}" ||
		die "cannot write $STATE"
	if [ "${sb[mode]}" = shim ]; then
		[ -n "${sb[mok]}" ] || mok_state "$WORKDIR/cert.der" sb
		case ${sb[mok]} in
		not) warn "${sb[cert]} is not enrolled as a MOK: shim refuses efiresume (efiresume-install install --secure-boot=shim enrols it, or: mokutil --import $STATE_DIR/mok.der)" ;;
		pending) say "${sb[cert]} waits for enrolment: at the next boot through shim, MokManager asks to confirm it" ;;
		esac
	fi
	sb_check_fallback sb "$(conf_get "$dir/efiresume.conf" fallback)"
}

cmd_remove() {
	parse_opts "$@"
	check_uefi
	check_efivarfs
	local mine dir e next order rest o f
	mine=$(our_entries)
	ESP=
	if [ -n "$OPT_ESP" ] || [ -n "$(state_get esp)" ]; then
		find_esp "$OPT_ESP"
	else
		local c
		read -r -a c <<<"$ESP_CANDIDATES"
		for o in "${c[@]}"; do
			[ -e "$o/EFI/efiresume" ] && { find_esp "$o"; break; }
		done
	fi
	dir=${ESP:+$ESP/EFI/efiresume}
	if [ -z "$mine" ] && { [ -z "$dir" ] || [ ! -e "$dir" ]; } && [ ! -e "$STATE" ]; then
		say "efiresume is not installed: nothing to remove"
		var_delete EfiresumeLocation "$ER_GUID"
		return 0
	fi
	next=$(var_u16 BootNext)
	for e in $mine; do
		if [ "$next" = "$e" ]; then
			ebm -N || die "cannot delete BootNext"
			say "deleted BootNext (it pointed at Boot$e)"
		fi
	done
	order=$(boot_order)
	rest=
	for o in $(echo "$order" | tr , ' '); do
		echo "$mine" | grep -qx "$o" && continue
		rest=${rest:+$rest,}$o
	done
	if [ "$order" != "$rest" ]; then
		if [ -n "$rest" ]; then ebm -o "$rest" || die "cannot change BootOrder"; else ebm -O || die "cannot delete BootOrder"; fi
		say "BootOrder: $rest"
	fi
	for e in $mine; do
		ebm -b "$e" -B || die "cannot delete Boot$e"
		say "deleted boot entry Boot$e"
	done
	# every variable of efiresume's vendor GUID (EfiresumeLocation, the loader's EfiresumeSeen, ...)
	for f in "$EFIVARS"/*-"$ER_GUID"; do
		[ -e "$f" ] || continue
		chattr -i "$f" 2>/dev/null
		rm -f "$f" && say "deleted EFI variable ${f##*/}"
	done
	if [ -n "$dir" ] && [ -e "$dir" ]; then
		rm -rf "$dir" || die "cannot delete $dir"
		say "deleted $dir"
	fi
	rm -f "$STATE" "$STATE_DIR/mok.der"
	say "efiresume removed"
}
