# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the verb status.

# status [--esp-path=DIR] [--json[=pretty|short]]: the facts are gathered first
# (status_gather, into one associative array), then printed as text (status_text) or as
# one JSON object (status_json; its members are documented in efiresume-install(8)).
cmd_status() {
	local json= a args=()
	for a; do
		case $a in
		--json | --json=pretty) json=pretty ;;
		--json=short) json=short ;;
		--json=*) die "--json must be pretty or short" ;;
		*) args+=("$a") ;;
		esac
	done
	parse_opts "${args[@]}"
	work_dir
	local -A S=()
	status_gather S
	if [ -n "$json" ]; then
		status_json S "$json"
	else
		status_text S
	fi
	return 0
}

# key_store: where this boot's efiresume keeps the Secure Boot hibernation key, as it says in
# the volatile EfiresumeKeyStore: V3 (sealed to the TPM), V2 (a boot-services variable), none
# (no key made); nothing when the variable is absent (this boot did not start efiresume, or one
# older than the variable)
key_store() {
	local f
	f=$(var_path EfiresumeKeyStore "$ER_GUID")
	[ -r "$f" ] || return 0
	tail -c +5 "$f" 2>/dev/null | tr -cd 'A-Za-z0-9' | head -c 8
}
key_store_text() {
	case $1 in
	V3) echo "the hibernation key is sealed to the TPM (PCR 7) in EfiresumeHibernationKeyV3" ;;
	V2) echo "the hibernation key is in plain in the boot-services variable EfiresumeHibernationKeyV2 (no TPM at this boot)" ;;
	none) echo "efiresume made no hibernation key at this boot (its log says why): hibernation is refused" ;;
	'') echo "unknown (this boot did not start through efiresume, or through a version that does not say)" ;;
	*) echo "unknown (EfiresumeKeyStore says '$1')" ;;
	esac
}
key_store_json() {
	case $1 in V3) echo tpm ;; V2) echo variable ;; none) echo none ;; esac
}

# status_gather ARRAY: every fact status shows, into the associative array ARRAY. Keys:
# uefi (1|""), bits, arch, sb (1|0|"": SecureBoot), sbm (shim|db|""), version, libdir, mode,
# esp, esp_dev, esp_partuuid, esp_error (why no ESP), binary (its path on the ESP), installed
# (1|""), current (1|""), ver (text), sb_text (the Secure Boot lines), efivars (1|""),
# current_entry, next, order, entries (numbers), e:N:desc, e:N:path, e:N:partguid, e:N:pos,
# location, conf (1|""), fallback, timeout, swaps (count), sw:I:path, sw:I:type, sw:I:uuid,
# sw:I:offset, sw:I:image, swap_text (the lines of the Swap: section), rdev, roff.
status_gather() {
	local -n sg=$1
	local sbm arch= f pkgbin e order n i err
	local -A lo nm
	sbm=$(state_get secure-boot)
	sg[sbm]=$sbm
	if [ -d "$SYSFS/firmware/efi" ]; then
		sg[uefi]=1
		arch=$(fw_arch) || arch=
		sg[arch]=$arch
		sg[bits]=$(cat "$SYSFS/firmware/efi/fw_platform_size" 2>/dev/null)
		sg[sb]=$(secure_boot_byte)
		sg[keystore]=$(key_store)
	fi
	sg[version]=$(pkg_version) sg[libdir]=$LIBDIR
	sg[mode]=$(state_get mode)
	ESP= ESP_DEV= ESP_PARTUUID=
	# (find_esp dies when there is none: tried in a subshell first, for its reason)
	if err=$( (find_esp "$OPT_ESP") 2>&1 >/dev/null); then
		find_esp "$OPT_ESP" 2>/dev/null
	else
		sg[esp_error]=${err#"$PROG: error: "}
	fi
	sg[esp]=$ESP sg[esp_dev]=$ESP_DEV sg[esp_partuuid]=$ESP_PARTUUID
	sb_names "$sbm" "${arch:-x64}" nm
	f=${ESP:+$ESP/EFI/efiresume/${nm[bin]}}
	if [ -n "$f" ] && [ -e "$f" ]; then
		sg[installed]=1 sg[binary]=$f
		pkgbin=$LIBDIR/efiresume-${arch:-x64}.efi
		if [ -n "$sbm" ]; then
			if [ "$(sha256sum "$pkgbin" 2>/dev/null | cut -d' ' -f1)" = "$(state_get sha256)" ] &&
				[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(state_get signed-sha256)" ]; then
				sg[current]=1 sg[ver]="the package's (${sg[version]}), signed"
			elif [ -n "$(state_get key)" ]; then
				sg[ver]="not the package's $pkgbin as signed by efiresume-install (recorded version $(state_get version); run efiresume-install update)"
			else
				sg[ver]="not the package's $pkgbin as signed by efiresume-install (recorded version $(state_get version); the signing key is not kept: run efiresume-install update --key=KEY --cert=$(state_get cert))"
			fi
		elif cmp -s "$f" "$pkgbin"; then
			sg[current]=1 sg[ver]="the package's (${sg[version]})"
		else
			sg[ver]="differs from $pkgbin (recorded version $(state_get version); run efiresume-install update)"
		fi
	fi
	if [ -n "$sbm" ] && [ -n "$f" ]; then
		sg[sb_text]=$(sb_status_lines "$sbm" "$f" "${arch:-x64}")
	fi
	if [ -d "$EFIVARS" ]; then
		sg[efivars]=1
		sg[current_entry]=$(var_u16 BootCurrent) sg[next]=$(var_u16 BootNext)
		order=$(boot_order)
		sg[order]=$order
		sg[entries]=$(our_entries | tr '\n' ' ')
		for e in ${sg[entries]}; do
			load_option "$e" lo 2>/dev/null || lo=()
			sg[e:$e:desc]=${lo[desc]:-} sg[e:$e:path]=${lo[path]:-} sg[e:$e:partguid]=${lo[partguid]:-} sg[e:$e:pos]=
			n=0
			for i in ${order//,/ }; do
				n=$((n + 1))
				if [ "$i" = "$e" ]; then sg[e:$e:pos]=$n; break; fi
			done
		done
		sg[location]=$(cat "$(var_path EfiresumeLocation "$ER_GUID")" 2>/dev/null | tail -c +5 | tr -d '\0')
	fi
	if [ -n "$f" ] && [ -e "${f%/*}/efiresume.conf" ]; then
		sg[conf]=1
		sg[fallback]=$(conf_get "${f%/*}/efiresume.conf" fallback)
		sg[timeout]=$(conf_get "${f%/*}/efiresume.conf" timeout)
	fi
	# the Swap: section, written in this shell (it fills the sw:* keys) to a file, then kept
	status_swaps "$1" >"$WORKDIR/swap.txt"
	sg[swap_text]=$(cat "$WORKDIR/swap.txt")
	sg[rdev]=$(cat "$SYSFS/power/resume" 2>/dev/null)
	sg[roff]=$(cat "$SYSFS/power/resume_offset" 2>/dev/null)
	tpm_gather sg        # the TPM2 keyslots of the swap containers (tpm.sh): tpm:*, tpm_text
	return 0
}

# status_text ARRAY: the facts as the lines status has always printed
status_text() {
	local -n sx=$1
	local sb e next=${sx[next]:-}
	if [ -z "${sx[uefi]:-}" ]; then
		echo "Firmware:     not UEFI ($SYSFS/firmware/efi is missing): efiresume cannot be used"
	else
		sb=disabled
		if [ "${sx[sb]:-}" = 1 ]; then
			if [ -n "${sx[sbm]}" ]; then
				sb=enabled
			elif [ -e "$STATE" ]; then
				sb="enabled (efiresume is installed unsigned: the firmware refuses to start it; install it with --secure-boot=shim or db)"
			else
				sb="enabled (the package's efiresume is not signed: install it with --secure-boot=shim or db)"
			fi
		fi
		echo "Firmware:     UEFI, ${sx[bits]:-?}-bit (${sx[arch]:-} binary); Secure Boot $sb"
		[ "${sx[sb]:-}" = 1 ] && echo "Key:          $(key_store_text "${sx[keystore]:-}")"
	fi
	echo "Package:      ${sx[version]} (${sx[libdir]})"
	if [ -n "${sx[installed]:-}" ]; then
		echo "Installed:    yes, ${sx[binary]}, ${sx[ver]}"
	elif [ -n "${sx[esp]}" ]; then
		echo "Installed:    no (nothing in ${sx[esp]}/EFI/efiresume)"
	elif [ -n "${sx[esp_error]:-}" ] && [ -n "$(state_get esp)" ]; then
		echo "Installed:    unknown: ${sx[esp_error]}"
	else
		echo "Installed:    no (no EFI system partition found)"
	fi
	echo "Mode:         ${sx[mode]:-none (no $STATE)}"
	[ -n "${sx[sb_text]:-}" ] && printf '%s\n' "${sx[sb_text]}"
	if [ -n "${sx[efivars]:-}" ]; then
		[ -n "${sx[entries]// /}" ] || echo "Entry:        none"
		for e in ${sx[entries]}; do
			echo "Entry:        Boot$e \"${sx[e:$e:desc]}\" ${sx[e:$e:path]}; in BootOrder: $([ -n "${sx[e:$e:pos]}" ] && echo "yes (position ${sx[e:$e:pos]})" || echo no); BootNext: $([ "$next" = "$e" ] && echo "points at it" || echo "${next:-not set}")"
		done
		echo "BootCurrent:  ${sx[current_entry]:-none}; BootOrder: ${sx[order]:-empty}"
		[ -n "${sx[location]}" ] && echo "Location:     EfiresumeLocation ${sx[location]} (written before a hibernation)"
	fi
	if [ -n "${sx[conf]:-}" ]; then
		echo "Fallback:     ${sx[fallback]:-none (efiresume returns to the firmware, which goes on with BootOrder)}"
		echo "Timeout:      ${sx[timeout]:-3 (default)}"
	fi
	echo "Swap:"
	[ -n "${sx[swap_text]}" ] && printf '%s\n' "${sx[swap_text]}"
	[ -n "${sx[tpm_text]:-}" ] && printf '%s\n' "${sx[tpm_text]}"
	return 0
}

# json_s VALUE: VALUE as a JSON string (other control characters than tab, CR and LF as ?)
json_s() {
	local s=$1
	s=${s//\\/\\\\} s=${s//\"/\\\"} s=${s//$'\t'/\\t} s=${s//$'\n'/\\n} s=${s//$'\r'/\\r}
	s=${s//[$'\001'-$'\037'$'\177']/?}
	printf '"%s"' "$s"
}
# json_sn VALUE: json_s, or null when VALUE is empty
json_sn() { if [ -n "$1" ]; then json_s "$1"; else printf null; fi; }
# json_n VALUE: a decimal number, or null
json_n() { if [[ $1 =~ ^(0|[1-9][0-9]{0,18})$ ]]; then printf '%s' "$1"; else printf null; fi; }
# json_b VALUE: true when VALUE is not empty, else false
json_b() { if [ -n "$1" ]; then printf true; else printf false; fi; }

# status_json ARRAY pretty|short: the facts as one JSON object, members in a fixed order
# (documented in efiresume-install(8), JSON OUTPUT)
status_json() {
	local -n sj=$1
	local nl=$'\n' i1='  ' i2='    ' i3='      ' sp=' ' o e i first sb=null order=() x
	if [ "$2" = short ]; then nl= i1= i2= i3= sp=; fi
	case ${sj[sb]:-} in 1) sb=true ;; 0) sb=false ;; esac
	IFS=, read -r -a order <<<"${sj[order]:-}"
	o="{$nl"
	o+="$i1\"firmware\":$sp{$nl$i2\"uefi\":$sp$(json_b "${sj[uefi]:-}"),$nl$i2\"bits\":$sp$(json_n "${sj[bits]:-}"),$nl$i2\"arch\":$sp$(json_sn "${sj[arch]:-}"),$nl$i2\"secureBoot\":$sp$sb,$nl$i2\"hibernationKey\":$sp$(json_sn "$(key_store_json "${sj[keystore]:-}")")$nl$i1},$nl"
	o+="$i1\"package\":$sp{$nl$i2\"version\":$sp$(json_s "${sj[version]}"),$nl$i2\"libdir\":$sp$(json_s "${sj[libdir]}")$nl$i1},$nl"
	if [ -n "${sj[esp]}" ]; then
		o+="$i1\"esp\":$sp{$nl$i2\"path\":$sp$(json_s "${sj[esp]}"),$nl$i2\"device\":$sp$(json_sn "${sj[esp_dev]}"),$nl$i2\"partUuid\":$sp$(json_sn "${sj[esp_partuuid]}")$nl$i1},$nl"
	else
		o+="$i1\"esp\":${sp}null,$nl"
	fi
	o+="$i1\"espError\":$sp$(json_sn "${sj[esp_error]:-}"),$nl"
	o+="$i1\"installed\":$sp$(json_b "${sj[installed]:-}"),$nl"
	if [ -n "${sj[installed]:-}" ]; then
		o+="$i1\"binary\":$sp{$nl$i2\"path\":$sp$(json_s "${sj[binary]}"),$nl$i2\"current\":$sp$(json_b "${sj[current]:-}"),$nl$i2\"state\":$sp$(json_s "${sj[ver]}")$nl$i1},$nl"
	else
		o+="$i1\"binary\":${sp}null,$nl"
	fi
	o+="$i1\"mode\":$sp$(json_sn "${sj[mode]}"),$nl"
	o+="$i1\"secureBootMode\":$sp$(json_sn "${sj[sbm]}"),$nl"
	o+="$i1\"entries\":${sp}["
	first=1
	for e in ${sj[entries]:-}; do
		[ -n "$first" ] || o+=","
		first=
		o+="$nl$i2{$nl$i3\"number\":$sp$(json_s "$e"),$nl$i3\"description\":$sp$(json_s "${sj[e:$e:desc]}"),$nl$i3\"path\":$sp$(json_s "${sj[e:$e:path]}"),$nl$i3\"partUuid\":$sp$(json_sn "${sj[e:$e:partguid]}"),$nl$i3\"bootOrderPosition\":$sp$(json_n "${sj[e:$e:pos]}"),$nl$i3\"bootNext\":$sp$([ "${sj[next]:-}" = "$e" ] && echo true || echo false)$nl$i2}"
	done
	[ -n "$first" ] || o+="$nl$i1"
	o+="],$nl"
	o+="$i1\"bootCurrent\":$sp$(json_sn "${sj[current_entry]:-}"),$nl"
	o+="$i1\"bootNext\":$sp$(json_sn "${sj[next]:-}"),$nl"
	o+="$i1\"bootOrder\":${sp}["
	first=1
	for x in "${order[@]}"; do
		[ -n "$first" ] || o+=",$sp"
		first=
		o+=$(json_s "$x")
	done
	o+="],$nl"
	o+="$i1\"efiresumeLocation\":$sp$(json_sn "${sj[location]:-}"),$nl"
	if [ -n "${sj[conf]:-}" ]; then
		o+="$i1\"config\":$sp{$nl$i2\"fallback\":$sp$(json_sn "${sj[fallback]}"),$nl$i2\"timeout\":$sp$(json_n "${sj[timeout]:-3}")$nl$i1},$nl"
	else
		o+="$i1\"config\":${sp}null,$nl"
	fi
	o+="$i1\"swaps\":${sp}["
	for ((i = 0; i < ${sj[swaps]:-0}; i++)); do
		[ "$i" = 0 ] || o+=","
		o+="$nl$i2{$nl$i3\"path\":$sp$(json_s "${sj[sw:$i:path]}"),$nl$i3\"type\":$sp$(json_sn "${sj[sw:$i:type]}"),$nl$i3\"uuid\":$sp$(json_sn "${sj[sw:$i:uuid]}"),$nl$i3\"offset\":$sp$(json_n "${sj[sw:$i:offset]}"),$nl$i3\"image\":$sp$(json_s "${sj[sw:$i:image]}")$(status_json_swap "$1" "$i" "$2")$nl$i2}"
	done
	[ "${sj[swaps]:-0}" = 0 ] || o+="$nl$i1"
	o+="],$nl"
	o+="$i1\"tpm2\":$sp$(tpm_json sj "$2"),$nl"
	if [ -n "${sj[rdev]}" ] && [ "${sj[rdev]}" != 0:0 ]; then
		o+="$i1\"resumeDevice\":$sp{$nl$i2\"device\":$sp$(json_s "${sj[rdev]}"),$nl$i2\"offset\":$sp$(json_n "${sj[roff]:-0}")$nl$i1}$nl"
	else
		o+="$i1\"resumeDevice\":${sp}null$nl"
	fi
	o+="}"
	printf '%s\n' "$o"
}

# status_json_swap ARRAY I pretty|short: the members of swap I after "image": "stack" (the
# device stack, stack_walk: a swap file's own layer first, then the filesystem's device and
# what it is on) and "locations" (the location variables naming it, location_lines), each
# layer and each variable one object (on one line when pretty)
status_json_swap() {
	local -n sjs=$1
	local nl=$'\n' i3='      ' i4='        ' sp=' ' p=sw:$2 o k x a
	if [ "$3" = short ]; then nl= i3= i4= sp=; fi
	o=",$nl$i3\"stack\":$sp["
	for ((k = 0; k < ${sjs[$p:stack:n]:-0}; k++)); do
		x=$p:stack:$k
		[ "$k" = 0 ] || o+=","
		o+="$nl$i4{\"type\":$sp$(json_s "${sjs[$x:type]}"),$sp\"device\":$sp$(json_sn "${sjs[$x:device]}"),$sp\"majMin\":$sp$(json_sn "${sjs[$x:devnum]}")"
		o+=",$sp\"uuid\":$sp$(json_sn "${sjs[$x:uuid]}"),$sp\"name\":$sp$(json_sn "${sjs[$x:name]}"),$sp\"depth\":$sp$(json_n "${sjs[$x:depth]}")"
		if [ "${sjs[$x:type]}" = file ]; then
			o+=",$sp\"filesystem\":$sp$(json_sn "${sjs[$x:filesystem]}"),$sp\"mountPoint\":$sp$(json_sn "${sjs[$x:mount]}"),$sp\"offset\":$sp$(json_n "${sjs[$x:offset]}")"
		fi
		o+="}"
	done
	[ "${sjs[$p:stack:n]:-0}" = 0 ] || o+="$nl$i3"
	o+="],$nl$i3\"locations\":$sp["
	for ((k = 0; k < ${sjs[$p:locs]:-0}; k++)); do
		x=$p:loc:$k
		[ "$k" = 0 ] || o+=","
		case ${sjs[$x:agrees]} in 1) a=true ;; 0) a=false ;; *) a=null ;; esac
		o+="$nl$i4{\"variable\":$sp$(json_s "${sjs[$x:variable]}"),$sp\"uuid\":$sp$(json_sn "${sjs[$x:uuid]}"),$sp\"offset\":$sp$(json_n "${sjs[$x:offset]}")"
		o+=",$sp\"kernelVersion\":$sp$(json_sn "${sjs[$x:kernel]}"),$sp\"agrees\":$sp$a}"
	done
	[ "${sjs[$p:locs]:-0}" = 0 ] || o+="$nl$i3"
	o+="]"
	printf '%s' "$o"
}

# status_swaps ARRAY: the lines of the Swap: section; fills the status array ARRAY's [swaps]
# and sw:* keys (status_gather; run it in the caller's shell, not in $(...)): for swap I
# sw:I:path, type, uuid, offset, image, key (MAJ:MIN@offset), its device stack sw:I:stack:*
# (stack_walk) and the location variables naming it, sw:I:locs and sw:I:loc:K:*
# (location_lines)
status_swaps() {
	local -n ss=$1
	# swap (issue 16): every active swap, inspected, with the device stack under it (a swap
	# file: its filesystem, the stack under that and its resume offset); the resume device;
	# swap marked swsuspend; the location variables and whether they name one of those swaps
	local seen=" " raw typ path dev mm u rdev roff i hit n=0 v
	ss[swaps]=0
	while read -r raw typ _; do
		[ -n "$raw" ] || continue
		path=$(unesc "$raw")
		n=$((n + 1))
		i=${ss[swaps]}
		ss[sw:$i:stack:n]=0 ss[sw:$i:locs]=0
		if [ "$typ" = file ]; then
			swapfile_lines "$raw" "$path" "$1" "$i"
			ss[swaps]=$n
			continue
		fi
		seen="$seen$path "
		v=$(inspect_one "$path" "" "$path (active swap)")
		printf '%s\n' "$v"
		mm=$(devnum_of "$path")
		u=$(id_of "" "$path" uuid)
		echo "    swap area UUID ${u:-unknown}"
		if [ -n "$mm" ]; then
			stack_walk "$1" "sw:$i:stack" "$mm" ""
			stack_print "$1" "sw:$i:stack" "    "
		else
			echo "    $path: not in $SYSFS/class/block"
		fi
		ss[sw:$i:path]=$path ss[sw:$i:type]=partition ss[sw:$i:uuid]=$u ss[sw:$i:offset]=0 ss[sw:$i:key]="${mm:-?}@0"
		ss[sw:$i:image]=${v#"  $path (active swap): "}
		ss[swaps]=$n
	done < <(tail -n +2 "$PROCFS/swaps" 2>/dev/null)
	rdev=$(cat "$SYSFS/power/resume" 2>/dev/null)
	roff=$(cat "$SYSFS/power/resume_offset" 2>/dev/null)
	if [ -z "$rdev" ] || [ "$rdev" = 0:0 ]; then
		echo "  resume device ($SYSFS/power/resume): not set (systemd-sleep may write it just before hibernating)"
	else
		dev=$(dev_of "$rdev")
		hit=
		for ((i = 0; i < ss[swaps]; i++)); do
			[ "${ss[sw:$i:key]}" = "$rdev@${roff:-0}" ] && hit=${ss[sw:$i:path]}
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
			local -A vol
			volume_stack "$rdev" vol 2>/dev/null
			if [ -n "${vol[lv]}${vol[luks]}" ]; then
				echo "  resume device $rdev:${vol[lv]:+ LVM logical volume ${vol[lv]}}${vol[lv]:+${vol[luks]:+,}}${vol[luks]:+ in LUKS container ${vol[luks]}}"
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
		location_lines HibernateLocation "$SYSTEMD_GUID" utf16 "systemd, decoded" "$1"
		location_lines EfiresumeLocation "$ER_GUID" utf8 "efiresume's sleep hook" "$1"
	fi
	return 0
}
