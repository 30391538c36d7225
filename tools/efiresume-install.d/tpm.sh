# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: the TPM2 keyslots of the swap
# containers (systemd-cryptenroll --tpm2-device=) against what efiresume sees in the TPM.
#
# efiresume runs before the initramfs, where systemd-cryptsetup unseals: PCR 7 (and every other
# PCR) may hold fewer events then (the firmware and shim measure the authority that verified
# each image into PCR 7 as they load it; docs/tpm-pcr7.md has the measured lists). For each
# swap container with a systemd-tpm2 token this reads the token's PCRs, bank, policy hash and
# PIN flag (cryptsetup luksDump --dump-json-metadata), replays the firmware's event log
# (binary_bios_measurements) to the point where efiresume starts (its own
# EV_EFI_BOOT_SERVICES_APPLICATION in PCR 4, found by its file name \EFI\efiresume\...), and
# compares the PolicyPCR digest of those values with the token's policy hash.
# Only bash, coreutils (od, sha*sum); cryptsetup when installed; openssl (optional) names the
# signer of an authority event.
#
# Environment (tests): EFIRESUME_EVENTLOG [$SYSFS/kernel/security/tpm0/binary_bios_measurements]
#   EFIRESUME_CRYPTSETUP [cryptsetup]

TPM_EVLOG=${EFIRESUME_EVENTLOG:-$SYSFS/kernel/security/tpm0/binary_bios_measurements}
TPM_CRYPTSETUP=${EFIRESUME_CRYPTSETUP:-cryptsetup}

# ------------------------------------------------------------------ hashes
# bank name -> TPM_ALG_ID (hex, 4 digits) and digest size; status 1 for another name
tpm_bank_alg() { # BANK
	case ${1,,} in
	sha1) echo "0004 20" ;;
	sha256) echo "000b 32" ;;
	sha384) echo "000c 48" ;;
	sha512) echo "000d 64" ;;
	*) return 1 ;;
	esac
}
# tpm_hash BANK HEX: the digest (hex) of the bytes HEX
tpm_hash() {
	local x
	x=$(printf '%s' "$2" | sed 's/../\\x&/g')
	# shellcheck disable=SC2059  # the format is the bytes (\xHH escapes only)
	printf "$x" | "${1,,}sum" | cut -d' ' -f1
}

# ------------------------------------------------------------------ the event log
# tpm_evlog_load FILE BANK: parses a crypto-agile TCG event log (TCG PC Client PFP: the Spec ID
# event, then TCG_PCR_EVENT2s) into EV_PCR[], EV_TYPE[] (8 hex digits), EV_DIG[] (BANK's
# digest, hex), EV_DATA[] (the event data, hex; only for the types the report reads), EV_N.
# Status 1 (TPM_EVLOG_ERR says why) when the file cannot be read or is not such a log.
EV_PCR=() EV_TYPE=() EV_DIG=() EV_DATA=() EV_N=0 TPM_EVLOG_ERR=
tpm_evlog_load() {
	local f=$1 bank=$2 ab want n i p t cnt a j sz dsz dig
	local -a B
	local -A size=()
	EV_PCR=() EV_TYPE=() EV_DIG=() EV_DATA=() EV_N=0 TPM_EVLOG_ERR=
	ab=$(tpm_bank_alg "$bank") || { TPM_EVLOG_ERR="unknown bank $bank"; return 1; }
	read -r want _ <<<"$ab"
	[ -r "$f" ] || { TPM_EVLOG_ERR="cannot read $f"; return 1; }
	mapfile -t B < <(od -An -v -tx1 -w1 "$f" | tr -d ' ')
	n=${#B[@]}
	# (into R, no subshell: u32 and u16 little-endian, hex bytes; every caller checks the bounds
	# against $n first)
	local R
	_u32() { R=$((16#${B[$1 + 3]}${B[$1 + 2]}${B[$1 + 1]}${B[$1]})); }
	_u16() { R=$((16#${B[$1 + 1]}${B[$1]})); }
	_hex() { local k; R=; for ((k = $1; k < $1 + $2; k++)); do R+=${B[k]}; done; }
	# the first event (SHA-1 format): PCR 0, EV_NO_ACTION, "Spec ID Event03"
	[ "$n" -ge 64 ] && _u32 4 && [ "$R" = 3 ] && _hex 32 15 && [ "$R" = 53706563204944204576656e743033 ] ||
		R=
	if [ -z "$R" ]; then
		TPM_EVLOG_ERR="$f is not a crypto-agile TCG event log (no Spec ID Event03)"
		return 1
	fi
	_u32 28; sz=$R
	_u32 56; cnt=$R
	[ "$cnt" -ge 1 ] && [ "$cnt" -le 16 ] && [ $((60 + 4 * cnt)) -le $((32 + sz)) ] && [ $((32 + sz)) -le "$n" ] ||
		{ TPM_EVLOG_ERR="$f: a malformed Spec ID event"; return 1; }
	for ((j = 0; j < cnt; j++)); do
		a=${B[61 + 4 * j]}${B[60 + 4 * j]}
		_u16 $((62 + 4 * j)); size[$a]=$R
	done
	[ -n "${size[$want]:-}" ] || { TPM_EVLOG_ERR="$f has no $bank digests"; return 1; }
	i=$((32 + sz))
	while [ "$i" -lt "$n" ]; do
		[ $((i + 12)) -le "$n" ] || { TPM_EVLOG_ERR="$f: truncated at byte $i"; return 1; }
		_u32 "$i"; p=$R
		t=${B[i + 7]}${B[i + 6]}${B[i + 5]}${B[i + 4]}
		_u32 $((i + 8)); cnt=$R
		[ "$p" -le 31 ] && [ "$cnt" -le 16 ] || { TPM_EVLOG_ERR="$f: event $EV_N at byte $i is malformed"; return 1; }
		i=$((i + 12))
		dig=
		for ((j = 0; j < cnt; j++)); do
			[ $((i + 2)) -le "$n" ] || { TPM_EVLOG_ERR="$f: truncated at byte $i"; return 1; }
			a=${B[i + 1]}${B[i]}
			dsz=${size[$a]:-}
			[ -n "$dsz" ] || { TPM_EVLOG_ERR="$f: event $EV_N has a digest of an algorithm the header does not list"; return 1; }
			[ $((i + 2 + dsz)) -le "$n" ] || { TPM_EVLOG_ERR="$f: truncated at byte $i"; return 1; }
			[ "$a" = "$want" ] && _hex $((i + 2)) "$dsz" && dig=$R
			i=$((i + 2 + dsz))
		done
		[ -n "$dig" ] || { TPM_EVLOG_ERR="$f: event $EV_N has no $bank digest"; return 1; }
		[ $((i + 4)) -le "$n" ] || { TPM_EVLOG_ERR="$f: truncated at byte $i"; return 1; }
		_u32 "$i"; sz=$R
		i=$((i + 4))
		[ $((i + sz)) -le "$n" ] || { TPM_EVLOG_ERR="$f: event $EV_N's data runs past the end"; return 1; }
		EV_PCR[EV_N]=$p EV_TYPE[EV_N]=$t EV_DIG[EV_N]=$dig EV_DATA[EV_N]=
		case $t in
		# EV_SEPARATOR, EV_EFI_VARIABLE_DRIVER_CONFIG, EV_EFI_BOOT_SERVICES_APPLICATION,
		# EV_EFI_VARIABLE_AUTHORITY: their data is read
		00000004 | 80000001 | 80000003 | 800000e0) _hex "$i" "$sz"; EV_DATA[EV_N]=$R ;;
		esac
		EV_N=$((EV_N + 1))
		i=$((i + sz))
	done
	return 0
}

# tpm_replay BANK PCR [END]: the PCR's value (hex) after the events 0..END-1 (all by default);
# EV_NO_ACTION is not extended
tpm_replay() {
	local bank=$1 pcr=$2 end=${3:-$EV_N} i v sz
	read -r _ sz <<<"$(tpm_bank_alg "$bank")"
	v=$(printf '%0*d' $((sz * 2)) 0)
	for ((i = 0; i < end; i++)); do
		[ "${EV_PCR[i]}" = "$pcr" ] && [ "${EV_TYPE[i]}" != 00000003 ] || continue
		v=$(tpm_hash "$bank" "$v${EV_DIG[i]}")
	done
	echo "$v"
}

# UCS-2 (hex, little-endian) -> text (ASCII; others as ?), up to a NUL
tpm_ucs2() {
	local h=$1 f= k c o
	for ((k = 0; k + 4 <= ${#h}; k += 4)); do
		c=$((16#${h:k+2:2}${h:k:2}))
		[ "$c" = 0 ] && break
		if [ "$c" -ge 32 ] && [ "$c" -lt 127 ]; then f+="\\x${h:k:2}"; else f+='?'; fi
	done
	# shellcheck disable=SC2059  # the format is \xHH escapes and '?' only
	printf -v o "$f"
	printf '%s' "$o"
}
tpm_u64le() { # HEX(16 digits) -> decimal
	local h=$1
	echo $((16#${h:14:2}${h:12:2}${h:10:2}${h:8:2}${h:6:2}${h:4:2}${h:2:2}${h:0:2}))
}

# tpm_image_path EVENT: the file path(s) in an EV_EFI_BOOT_SERVICES_APPLICATION's device path
# (UEFI_IMAGE_LOAD_EVENT: 4 u64s, then the device path), "\"-joined media file path nodes
tpm_image_path() {
	local h=${EV_DATA[$1]} dl k ty st ln o=
	[ ${#h} -ge 64 ] || return 0
	dl=$(tpm_u64le "${h:48:16}")
	h=${h:64:$((dl * 2))}
	k=0
	while [ $((k + 8)) -le ${#h} ]; do
		ty=${h:k:2} st=${h:k+2:2}
		ln=$((16#${h:k+6:2}${h:k+4:2}))
		[ "$ln" -ge 4 ] || break
		[ "$ty" = 7f ] && break
		if [ "$ty" = 04 ] && [ "$st" = 04 ]; then
			o+=$(tpm_ucs2 "${h:k+8:$(((ln - 4) * 2))}")
		fi
		k=$((k + ln * 2))
	done
	printf '%s' "$o"
}

# tpm_var_event EVENT: "NAME GUID DATAHEX" of a UEFI_VARIABLE_DATA event
tpm_var_event() {
	local h=${EV_DATA[$1]} nl dl g
	[ ${#h} -ge 64 ] || return 0
	g=${h:6:2}${h:4:2}${h:2:2}${h:0:2}-${h:10:2}${h:8:2}-${h:14:2}${h:12:2}-${h:16:4}-${h:20:12}
	nl=$(tpm_u64le "${h:32:16}")
	dl=$(tpm_u64le "${h:48:16}")
	printf '%s %s %s' "$(tpm_ucs2 "${h:64:$((nl * 4))}")" "$g" "${h:$((64 + nl * 4)):$((dl * 2))}"
}

# tpm_authority_text EVENT: an EV_EFI_VARIABLE_AUTHORITY in words: the variable (db, MokList,
# Shim, SbatLevel...) and, when the data is an EFI_SIGNATURE_DATA holding a certificate, its
# subject (openssl) or its SHA-256
tpm_authority_text() {
	local name guid data der subj=
	read -r name guid data <<<"$(tpm_var_event "$1")"
	if [ ${#data} -gt 40 ] && [ "${data:32:2}" = 30 ] && [ "${data:34:2}" = 82 ]; then
		# EFI_SIGNATURE_DATA: owner GUID, then the DER certificate
		der=${data:32}
		if command -v openssl >/dev/null 2>&1; then
			# shellcheck disable=SC2059
			subj=$(printf "$(printf '%s' "$der" | sed 's/../\\x&/g')" |
				openssl x509 -inform DER -noout -subject -nameopt oneline 2>/dev/null | sed 's/^subject= *//')
		fi
		[ -n "$subj" ] || subj="certificate sha256 $(tpm_hash sha256 "$der")"
		printf '%s: %s' "$name" "$subj"
	elif [ "$name" = SbatLevel ] || [ "$name" = MokSBState ] || [ "$name" = MokListTrusted ]; then
		printf '%s' "$name"
	else
		printf '%s (%d bytes)' "$name" $((${#data} / 2))
	fi
}

# ------------------------------------------------------------------ the policy
# tpm_policy_pcr DIGEST BANK "PCR..." "VALUE...": TPM2 Part 3 PolicyPCR applied to the session
# digest DIGEST (SHA-256, hex): SHA-256(DIGEST || TPM_CC_PolicyPCR || TPML_PCR_SELECTION ||
# SHA-256(the values in ascending PCR order)); the selection: count 1, the bank's algorithm,
# sizeofSelect 3, the bitmap of PCRs 0..23 (docs/tpm2-token.md)
tpm_policy_pcr() {
	local d=$1 bank=$2 alg m=0 p v=
	read -r alg _ <<<"$(tpm_bank_alg "$bank")"
	for p in $3; do m=$((m | (1 << p))); done
	for p in $4; do v+=$p; done
	tpm_hash sha256 "${d}0000017f00000001${alg}03$(printf %02x%02x%02x $((m & 255)) $(((m >> 8) & 255)) $(((m >> 16) & 255)))$(tpm_hash sha256 "$v")"
}
# tpm_policy_authvalue DIGEST: PolicyAuthValue (tpm2-pin): SHA-256(DIGEST || TPM_CC_PolicyAuthValue)
tpm_policy_authvalue() { tpm_hash sha256 "${1}0000016b"; }

# tpm_token_policy BANK "PCR..." "VALUE..." PIN(true|false): systemd's sealing policy for PCR
# values (PolicyPCR when PCRs are given, then PolicyAuthValue with a PIN; 32 zero bytes first)
tpm_token_policy() {
	local d
	d=$(printf '%064d' 0)
	[ -z "${2// /}" ] || d=$(tpm_policy_pcr "$d" "$1" "$2" "$3")
	[ "$4" = true ] && d=$(tpm_policy_authvalue "$d")
	echo "$d"
}

# ------------------------------------------------------------------ the tokens
# tpm_luks_under MAJ:MIN: the LUKS2 device(s) under a swap device (the device under a
# CRYPT-LUKS2 mapping, also through one LVM logical volume), one /dev path a line
tpm_luks_under() {
	local d=$SYSFS/dev/block/$1 u s depth=0
	while [ "$depth" -lt 8 ]; do
		d=$(readlink -f -- "$d" 2>/dev/null) || return 0
		u=$(cat "$d/dm/uuid" 2>/dev/null) || return 0
		s=$(ls -A "$d/slaves" 2>/dev/null)
		[ -n "$s" ] && [ "$(printf '%s\n' "$s" | wc -l)" = 1 ] || return 0
		if [[ $u == CRYPT-LUKS2-* ]]; then
			printf '%s\n' "$DEVDIR/$s"
			return 0
		fi
		d=$SYSFS/class/block/$s
		depth=$((depth + 1))
	done
}

# tpm_json_get JSON KEY: the value of KEY in a one-line JSON object (as cryptsetup token export
# prints it): a string without its quotes, a number, true/false, or an array's inside
tpm_json_get() {
	local j=$1 k=$2 re
	re="\"$k\"[[:space:]]*:[[:space:]]*(\"([^\"]*)\"|\[([^]]*)\]|([-0-9a-z.]+))"
	[[ $j =~ $re ]] || return 1
	if [[ ${BASH_REMATCH[1]} == \"* ]]; then
		printf '%s' "${BASH_REMATCH[2]}"
	elif [[ ${BASH_REMATCH[1]} == \[* ]]; then
		printf '%s' "${BASH_REMATCH[3]}" | tr -d '" \t' | tr , ' '
	else
		printf '%s' "${BASH_REMATCH[4]}"
	fi
}

# tpm_tokens DEV: the systemd-tpm2 tokens of the LUKS2 device DEV, "ID JSON" a line
# (cryptsetup token export; status 1 when cryptsetup is missing or cannot read DEV)
tpm_tokens() {
	local id j
	command -v "$TPM_CRYPTSETUP" >/dev/null 2>&1 || return 1
	"$TPM_CRYPTSETUP" isLuks --type luks2 "$1" >/dev/null 2>&1 || return 1
	for id in $(seq 0 31); do
		j=$("$TPM_CRYPTSETUP" token export --token-id "$id" "$1" 2>/dev/null) || continue
		j=$(printf '%s' "$j" | tr -d '\n')
		[ "$(tpm_json_get "$j" type)" = systemd-tpm2 ] && printf '%s %s\n' "$id" "$j"
	done
	return 0
}

# ------------------------------------------------------------------ efiresume in the log
# tpm_efiresume_event: the index of efiresume's own EV_EFI_BOOT_SERVICES_APPLICATION (PCR 4)
# in the loaded log: the image loaded from \EFI\efiresume\ whose file is efiresume (shim's
# second stage grub<arch>.efi under --secure-boot=shim, else efiresume.efi); status 1 when
# this boot did not go through efiresume
tpm_efiresume_event() {
	local i p m file
	m=$(state_get secure-boot)
	case $m in
	shim) file=grub${ARCH:-x64}.efi ;;
	*) file=efiresume.efi ;;
	esac
	for ((i = 0; i < EV_N; i++)); do
		[ "${EV_PCR[i]}" = 4 ] && [ "${EV_TYPE[i]}" = 80000003 ] || continue
		p=$(tpm_image_path "$i")
		p=${p//\//\\}
		case ${p,,} in
		*'\efi\efiresume\'"${file,,}") echo "$i"; return 0 ;;
		esac
	done
	return 1
}

# tpm_authorities FROM TO: the PCR 7 EV_EFI_VARIABLE_AUTHORITY events FROM..TO-1 in words,
# "; "-joined
tpm_authorities() {
	local i o=
	for ((i = $1; i < $2; i++)); do
		[ "${EV_PCR[i]}" = 7 ] && [ "${EV_TYPE[i]}" = 800000e0 ] || continue
		o+="${o:+; }$(tpm_authority_text "$i")"
	done
	printf '%s' "$o"
}

# ------------------------------------------------------------------ status
# tpm_gather ARRAY: the TPM2 facts of status into ARRAY (status_gather's): tpm:n (tokens),
# tpm:luks (LUKS2 containers under swap), tpm:note, tpm:log (the event log read), tpm:view
# (measured: efiresume's start found in this boot's log; absent: this boot did not go through
# efiresume; "" no log), tpm:K:dev, :token, :keyslot, :pcrs, :bank, :pin, :hash,
# :efiresume (yes|no|unknown), :initramfs (yes|no|unknown), :why; tpm_text: the lines
tpm_gather() {
	local -n tg=$1
	local raw typ path mm devs=() d l id j k=0 lines= bank pcrs pin hash ks why
	local -A seen=()
	while read -r raw typ _; do
		[ -n "$raw" ] && [ "$typ" != file ] || continue
		path=$(unesc "$raw")
		mm=$(devnum_of "$path")
		[ -n "$mm" ] && devs+=("$mm")
	done < <(tail -n +2 "$PROCFS/swaps" 2>/dev/null)
	mm=$(cat "$SYSFS/power/resume" 2>/dev/null)
	[ -n "$mm" ] && [ "$mm" != 0:0 ] && devs+=("$mm")
	local luks=()
	for mm in "${devs[@]}"; do
		while read -r d; do
			[ -n "$d" ] && [ -z "${seen[$d]:-}" ] || continue
			seen[$d]=1
			luks+=("$d")
		done < <(tpm_luks_under "$mm")
	done
	tg[tpm:n]=0 tg[tpm:luks]=${#luks[@]} tg[tpm:note]= tg[tpm:log]= tg[tpm:view]= tg[tpm_text]=
	[ ${#luks[@]} -gt 0 ] || return 0
	if ! command -v "$TPM_CRYPTSETUP" >/dev/null 2>&1; then
		tg[tpm:note]="cryptsetup is not installed: the LUKS2 tokens of ${luks[*]} are not read"
		tg[tpm_text]="TPM2:         ${tg[tpm:note]}"
		return 0
	fi
	for d in "${luks[@]}"; do
		if ! l=$(tpm_tokens "$d"); then
			lines+="TPM2:         $d: cannot read its LUKS2 header (cryptsetup luksDump; as root?)"$'\n'
			continue
		fi
		while read -r id j; do
			[ -n "$id" ] || continue
			tg[tpm:$k:dev]=$d tg[tpm:$k:token]=$id
			ks=$(tpm_json_get "$j" keyslots) ks=${ks%% *}
			pcrs=$(tpm_json_get "$j" tpm2-pcrs) bank=$(tpm_json_get "$j" tpm2-pcr-bank) || bank=sha256
			pin=$(tpm_json_get "$j" tpm2-pin) || pin=false
			hash=$(tpm_json_get "$j" tpm2-policy-hash)
			tg[tpm:$k:keyslot]=$ks tg[tpm:$k:pcrs]=$pcrs tg[tpm:$k:bank]=${bank,,} tg[tpm:$k:pin]=$pin
			tg[tpm:$k:hash]=${hash,,} tg[tpm:$k:efiresume]=unknown tg[tpm:$k:initramfs]=unknown why=
			if tpm_json_get "$j" tpm2_pubkey >/dev/null || [ "$(tpm_json_get "$j" tpm2_pcrlock)" = true ]; then
				why="a signed PCR policy (--tpm2-public-key) or systemd-pcrlock: efiresume does not unseal such tokens"
				tg[tpm:$k:efiresume]=no
			elif ! tpm_bank_alg "${bank:-x}" >/dev/null || [[ ! ${hash,,} =~ ^[0-9a-f]{64}$ ]]; then
				why="its bank ($bank) or policy hash cannot be checked"
			else
				tpm_judge tg "$k"
				why=${TPM_WHY}
			fi
			tg[tpm:$k:why]=$why
			lines+="TPM2:         keyslot $ks of $d (token $id; PCRs ${pcrs:-none}${pcrs:+ $bank}$([ "$pin" = true ] && echo ", PIN")): $why"$'\n'
			k=$((k + 1))
		done <<<"$l"
	done
	tg[tpm:n]=$k
	[ "$k" -gt 0 ] || lines+="TPM2:         no systemd-tpm2 token on ${luks[*]} (efiresume asks for the passphrase)"$'\n'
	tg[tpm_text]=${lines%$'\n'}
	return 0
}

# tpm_load BANK: the event log loaded for BANK once (TPM_LOADED: the bank; TPM_EIDX: efiresume's
# event or ""); status 1 with TPM_EVLOG_ERR
TPM_LOADED= TPM_EIDX=
tpm_load() {
	[ "$TPM_LOADED" = "$1" ] && return 0
	TPM_LOADED= TPM_EIDX=
	tpm_evlog_load "$TPM_EVLOG" "$1" || return 1
	TPM_LOADED=$1
	TPM_EIDX=$(tpm_efiresume_event) || TPM_EIDX=
	return 0
}

# tpm_judge ARRAY K: can token K (its :pcrs :bank :pin :hash) be unsealed at efiresume's start,
# and in the initramfs? Sets :efiresume, :initramfs (yes|no|unknown) and TPM_WHY (the verdict)
TPM_WHY=
tpm_judge() {
	local -n tj=$1
	local k=$2 bank=${tj[tpm:$2:bank]} pcrs=${tj[tpm:$2:pcrs]} pin=${tj[tpm:$2:pin]} hash=${tj[tpm:$2:hash]}
	local p now=() efi=() v s diff= pol
	TPM_WHY=
	if [ -z "${pcrs// /}" ]; then
		pol=$(tpm_token_policy "$bank" "" "" "$pin")
		if [ "$pol" = "$hash" ]; then
			tj[tpm:$k:efiresume]=yes tj[tpm:$k:initramfs]=yes
			TPM_WHY="can be unsealed by efiresume (bound to no PCR$([ "$pin" = true ] && echo "; efiresume asks for the PIN"))"
		else
			TPM_WHY="not checked: no PCRs, but its policy hash is not the empty policy's"
		fi
		return 0
	fi
	if ! tpm_load "$bank"; then
		TPM_WHY="not checked: $TPM_EVLOG_ERR"
		return 0
	fi
	tj[tpm:log]=$TPM_EVLOG
	for p in $pcrs; do
		v=$(tpm_replay "$bank" "$p")
		s=$(cat "$SYSFS/class/tpm/tpm0/pcr-$bank/$p" 2>/dev/null)
		if [ -n "$s" ] && [ "${s,,}" != "$v" ]; then
			TPM_WHY="not checked: the event log does not replay to the TPM's PCR $p ($bank)"
			return 0
		fi
		now+=("$v")
	done
	pol=$(tpm_token_policy "$bank" "$pcrs" "${now[*]}" "$pin")
	if [ "$pol" = "$hash" ]; then tj[tpm:$k:initramfs]=yes; else tj[tpm:$k:initramfs]=no; fi
	if [ -z "$TPM_EIDX" ]; then
		tj[tpm:view]=absent
		tpm_predict_why "$k" "$bank" "$pcrs" "$pin" "$hash" "${tj[tpm:$k:initramfs]}"
		tj[tpm:$k:efiresume]=$TPM_VERDICT
		[ "$TPM_VERDICT" = unknown ] || tj[tpm:view]=predicted
		return 0
	fi
	tj[tpm:view]=measured
	for p in $pcrs; do efi+=("$(tpm_replay "$bank" "$p" $((TPM_EIDX + 1)))"); done
	pol=$(tpm_token_policy "$bank" "$pcrs" "${efi[*]}" "$pin")
	local i=0
	for p in $pcrs; do
		[ "${efi[i]}" = "${now[i]}" ] || diff+="${diff:+, }$p"
		i=$((i + 1))
	done
	if [ "$pol" = "$hash" ]; then
		tj[tpm:$k:efiresume]=yes
		TPM_WHY="can be unsealed by efiresume (its policy matches the PCR values at efiresume's start in this boot's event log$([ "$pin" = true ] && echo "; efiresume asks for the PIN"))"
		[ "${tj[tpm:$k:initramfs]}" = yes ] || TPM_WHY+="; the initramfs of this boot cannot unseal it (PCR ${diff:-?} changed after efiresume)"
		return 0
	fi
	tj[tpm:$k:efiresume]=no
	if [ "${tj[tpm:$k:initramfs]}" = yes ] && [ -n "$diff" ]; then
		TPM_WHY="cannot be unsealed by efiresume: PCR $diff at efiresume differs from the initramfs's"
		if [[ ", $diff," == *", 7,"* ]]; then
			s=$(tpm_own_authority "$TPM_EIDX")
			if [ -n "$s" ]; then s="efiresume's signer is $s"; else s="no authority event came with efiresume's own load"; fi
			TPM_WHY+=" ($s, where the initramfs saw also $(tpm_authorities $((TPM_EIDX + 1)) "$EV_N"))"
		fi
		TPM_WHY+="; $(tpm_advice "$pcrs" "$diff" "$bank")"
	else
		TPM_WHY="cannot be unsealed by efiresume, nor in this boot's initramfs: sealed against other PCR values (another boot chain, or a firmware, db, dbx or shim update since it was enrolled); $(tpm_advice "$pcrs" "${diff:-7}" "$bank")"
	fi
	return 0
}

# tpm_own_authority EVENT: the certificate authority events measured into PCR 7 for the image of
# EVENT (between the previous image's PCR 4 event and EVENT), in words
tpm_own_authority() {
	local i from=0 o= name guid data
	for ((i = $1 - 1; i >= 0; i--)); do
		if [ "${EV_PCR[i]}" = 4 ] && [ "${EV_TYPE[i]}" = 80000003 ]; then from=$((i + 1)); break; fi
	done
	for ((i = from; i < $1; i++)); do
		[ "${EV_PCR[i]}" = 7 ] && [ "${EV_TYPE[i]}" = 800000e0 ] || continue
		read -r name guid data <<<"$(tpm_var_event "$i")"
		[ "${data:32:4}" = 3082 ] || continue
		o+="${o:+; }$(tpm_authority_text "$i")"
	done
	printf '%s' "$o"
}

# tpm_advice: what to enrol instead (measured: docs/tpm-pcr7.md, "What follows")
tpm_advice() {
	local t="enrol a keyslot that holds at efiresume's start too: bound to no PCR, with a PIN (systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs= --tpm2-with-pin=yes)"
	case $(state_get secure-boot) in
	db) t+=", or keep --tpm2-pcrs=7 with a fallback signed by efiresume's own db certificate (the firmware measures that authority once, so PCR 7 does not change after efiresume; docs/tpm-pcr7.md)" ;;
	shim) t+=", or keep --tpm2-pcrs=7 with efiresume starting the kernel signed by efiresume's own MOK (shim measures that authority once, so PCR 7 does not change after efiresume; through Debian's shim and GRUB it does: docs/tpm-pcr7.md)" ;;
	*) t+=" (docs/tpm-pcr7.md)" ;;
	esac
	printf '%s' "$t"
}

# tpm_predict_why K BANK PCRS PIN HASH INITRAMFS: this boot did not go through efiresume:
# the prediction (tpm_predict) when it can be made; sets TPM_VERDICT (yes|no|unknown), TPM_WHY
TPM_VERDICT=
tpm_predict_why() {
	local pol
	TPM_VERDICT=unknown
	if tpm_predict "$2" "$3"; then
		pol=$(tpm_token_policy "$2" "$3" "$TPM_PRED_VALS" "$4")
		if [ "$pol" = "$5" ]; then
			TPM_VERDICT=yes
			TPM_WHY="can be unsealed by efiresume (predicted: this boot did not go through efiresume; its pre-boot events and efiresume's db authority give the token's policy$([ "$4" = true ] && echo "; efiresume asks for the PIN"))"
		else
			TPM_VERDICT=no
			TPM_WHY="cannot be unsealed by efiresume (predicted: this boot did not go through efiresume; its pre-boot events$([[ " $3 " == *" 7 "* ]] && [ "$(state_get secure-boot)" = db ] && echo " and efiresume's db authority (for $(state_get cert))") do not give the token's policy)"
			[ "$6" = yes ] && TPM_WHY+="; booted through efiresume, PCR 7 in the initramfs will hold efiresume's authority too, so this keyslot stops unsealing there as well"
			TPM_WHY+="; $(tpm_advice)"
		fi
		return 0
	fi
	TPM_WHY="not checked: this boot did not go through efiresume (no \\EFI\\efiresume\\ image in the event log) and the PCR values at its start cannot be predicted: $TPM_PRED_NO; boot through efiresume once and run status again"
	[ "$6" = yes ] && TPM_WHY+=" (the initramfs of this boot can unseal it)"
	return 0
}

# tpm_json ARRAY pretty|short: status --json's "tpm2" member: null when no swap is in LUKS2,
# else {"eventLog", "view", "note", "keyslots": [{"device", "token", "keyslot", "pcrs", "bank",
# "pin", "policyHash", "efiresume", "initramfs", "why"}]} (efiresume/initramfs: true, false or
# null when not known)
tpm_json() {
	local -n tq=$1
	local nl=$'\n' i2='    ' i3='      ' i4='        ' sp=' ' o k p first yn
	[ "${tq[tpm:luks]:-0}" -gt 0 ] || { printf null; return 0; }
	if [ "$2" = short ]; then nl= i2= i3= i4= sp=; fi
	_tpm_yn() { case $1 in yes) printf true ;; no) printf false ;; *) printf null ;; esac; }
	o="{$nl$i2\"eventLog\":$sp$(json_sn "${tq[tpm:log]:-}"),$nl"
	o+="$i2\"view\":$sp$(json_sn "${tq[tpm:view]:-}"),$nl"
	o+="$i2\"note\":$sp$(json_sn "${tq[tpm:note]:-}"),$nl"
	o+="$i2\"keyslots\":${sp}["
	for ((k = 0; k < ${tq[tpm:n]:-0}; k++)); do
		[ "$k" = 0 ] || o+=","
		yn="["
		first=1
		for p in ${tq[tpm:$k:pcrs]}; do
			[ -n "$first" ] || yn+=",$sp"
			first=
			yn+=$(json_n "$p")
		done
		yn+="]"
		o+="$nl$i3{$nl$i4\"device\":$sp$(json_s "${tq[tpm:$k:dev]}"),$nl$i4\"token\":$sp$(json_n "${tq[tpm:$k:token]}"),$nl"
		o+="$i4\"keyslot\":$sp$(json_n "${tq[tpm:$k:keyslot]}"),$nl$i4\"pcrs\":$sp$yn,$nl"
		o+="$i4\"bank\":$sp$(json_sn "${tq[tpm:$k:bank]}"),$nl$i4\"pin\":$sp$([ "${tq[tpm:$k:pin]}" = true ] && echo true || echo false),$nl"
		o+="$i4\"policyHash\":$sp$(json_sn "${tq[tpm:$k:hash]}"),$nl"
		o+="$i4\"efiresume\":$sp$(_tpm_yn "${tq[tpm:$k:efiresume]}"),$nl$i4\"initramfs\":$sp$(_tpm_yn "${tq[tpm:$k:initramfs]}"),$nl"
		o+="$i4\"why\":$sp$(json_s "${tq[tpm:$k:why]}")$nl$i3}"
	done
	[ "${tq[tpm:n]:-0}" = 0 ] || o+="$nl$i2"
	o+="]$nl  }"
	[ "$2" = short ] && o=${o%  \}}"}"
	printf '%s' "$o"
}

# ------------------------------------------------------------------ the prediction (no efiresume in this boot)
# tpm_file_der FILE: a certificate file (PEM or DER) as DER hex
tpm_file_der() {
	if grep -q -- '-----BEGIN CERTIFICATE' "$1" 2>/dev/null; then
		sed -n '/-----BEGIN CERTIFICATE/,/-----END CERTIFICATE/p' "$1" | sed '1d;$d' | base64 -d 2>/dev/null | od -An -v -tx1 | tr -d ' \n'
	else
		od -An -v -tx1 "$1" 2>/dev/null | tr -d ' \n'
	fi
}

# tpm_esl_x509 ESLHEX: the X.509 entries of EFI_SIGNATURE_LISTs, "SIGDATAHEX" a line (owner
# GUID, then the DER certificate: what EV_EFI_VARIABLE_AUTHORITY measures)
tpm_esl_x509() {
	local h=$1 k=0 ls hs ss e
	while [ $((k + 56)) -le ${#h} ]; do
		ls=$((16#${h:k+38:2}${h:k+36:2}${h:k+34:2}${h:k+32:2}))
		hs=$((16#${h:k+46:2}${h:k+44:2}${h:k+42:2}${h:k+40:2}))
		ss=$((16#${h:k+54:2}${h:k+52:2}${h:k+50:2}${h:k+48:2}))
		[ "$ls" -ge 28 ] && [ "$ss" -gt 16 ] && [ $((k + ls * 2)) -le ${#h} ] || return 0
		if [ "${h:k:32}" = a159c0a5e494a74a87b5ab155c2bf072 ]; then
			for ((e = k + 56 + hs * 2; e + ss * 2 <= k + ls * 2; e += ss * 2)); do
				printf '%s\n' "${h:e:ss*2}"
			done
		fi
		k=$((k + ls * 2))
	done
}

# tpm_cert_authority EVENT: status 0 when EVENT is an EV_EFI_VARIABLE_AUTHORITY in PCR 7 whose
# data is a certificate (an EFI_SIGNATURE_DATA: owner GUID, then DER), not SbatLevel and the like
tpm_cert_authority() {
	local name guid data
	[ "${EV_PCR[$1]}" = 7 ] && [ "${EV_TYPE[$1]}" = 800000e0 ] || return 1
	read -r name guid data <<<"$(tpm_var_event "$1")"
	[ "${data:32:4}" = 3082 ]
}

# tpm_match_sigdata CERT: from the signature data (hex, a line each) on stdin, the one that is
# CERT itself, else (openssl) the one that issued it
tpm_match_sigdata() {
	local der sd ca= all
	der=$(tpm_file_der "$1")
	[ -n "$der" ] || return 1
	all=$(cat)
	sd=$(grep -m1 -- "^.\{32\}$der\$" <<<"$all")
	[ -n "$sd" ] && { echo "$sd"; return 0; }
	command -v openssl >/dev/null 2>&1 || return 1
	while read -r sd; do
		[ -n "$sd" ] || continue
		# shellcheck disable=SC2059
		printf "$(printf '%s' "${sd:32}" | sed 's/../\\x&/g')" | openssl x509 -inform DER -out "$WORKDIR/tpm-ca.pem" 2>/dev/null || continue
		openssl verify -no_check_time -purpose any -partial_chain -CAfile "$WORKDIR/tpm-ca.pem" "$1" >/dev/null 2>&1 && { ca=$sd; break; }
	done <<<"$all"
	[ -n "$ca" ] && echo "$ca"
}

# tpm_var_event_data GUIDHEX(16 bytes, as stored) NAMEHEX(UCS-2) NAMELEN SIGDATA: a
# UEFI_VARIABLE_DATA (hex)
tpm_var_event_data() {
	printf '%s%s%s%s%s' "$1" "$(printf '%016x' "$3" | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/')" \
		"$(printf '%016x' $((${#4} / 2)) | sed 's/\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)\(..\)/\8\7\6\5\4\3\2\1/')" "$2" "$4"
}

# tpm_mok_authority CERT: the EV_EFI_VARIABLE_AUTHORITY event data (hex) shim measures when a
# MOK verifies an image signed with CERT: variable "MokListRT" (shim's GUID), its entry
tpm_mok_authority() {
	local f sd
	f=$EFIVARS/MokListRT-605dab50-e046-4300-abb6-3dd810dd8b23
	[ -r "$f" ] || return 1
	sd=$(tpm_esl_x509 "$(tail -c +5 "$f" | od -An -v -tx1 | tr -d ' \n')" | tpm_match_sigdata "$1") || return 1
	[ -n "$sd" ] || return 1
	tpm_var_event_data 50ab5d6046e00043abb63dd810dd8b23 4d006f006b004c0069007300740052005400 9 "$sd"
}

# tpm_db_authority CERT: the EV_EFI_VARIABLE_AUTHORITY event data (hex) the firmware measures
# when db verifies an image signed with CERT: the db entry that is CERT itself, else (openssl)
# the one that issued it; from the db the firmware measured at this boot (the log's db event)
tpm_db_authority() {
	local i name guid data= sd
	for ((i = 0; i < EV_N; i++)); do
		[ "${EV_PCR[i]}" = 7 ] && [ "${EV_TYPE[i]}" = 80000001 ] || continue
		read -r name guid data <<<"$(tpm_var_event "$i")"
		[ "$name" = db ] && [ "$guid" = d719b2cb-3d3a-4596-a3bc-dad00e67656f ] && break
		data=
	done
	[ -n "$data" ] || return 1
	sd=$(tpm_esl_x509 "$data" | tpm_match_sigdata "$1") || return 1
	[ -n "$sd" ] || return 1
	# db's GUID, name length 2, "db", the signature data
	tpm_var_event_data cbb219d73a3d9645a3bcdad00e67656f 64006200 2 "$sd"
}

# tpm_predict BANK "PCR...": the PCR values efiresume would see at its start, predicted from a
# boot without it: the events before the first boot application's own ones (the pre-boot part:
# PCRs 0-3 and 7 are complete there), then, for PCR 7:
#   --secure-boot=db: the firmware's authority event for efiresume's certificate (its db entry;
#     not measured again when an identical one is in the pre-boot part: edk2 measures each
#     authority once);
#   --secure-boot=shim, when this boot started a shim first: that shim's own events (the
#     firmware's authority for it, shim's SbatLevel: every PCR 7 event before shim's first
#     certificate authority, the one for its second stage), then shim's MokListRT authority for
#     efiresume's certificate (its entry in the MokListRT variable);
#   unsigned: nothing more.
# (docs/tpm-pcr7.md: measured, and checked against measured boots by tests/host/test-tpm-status.sh)
# Sets TPM_PRED_VALS (the values, in the PCRs' order); status 1 (TPM_PRED_NO says why) when it
# cannot. (Call it in this shell, not in $(...).)
TPM_PRED_NO= TPM_PRED_VALS=
tpm_predict() {
	local bank=$1 p i fa=-1 pre v ev dg m out=()
	TPM_PRED_NO= TPM_PRED_VALS=
	m=$(state_get secure-boot)
	for p in $2; do
		case $p in 0 | 1 | 2 | 3 | 7) ;; *) TPM_PRED_NO="PCR $p is measured again by efiresume's own load (only PCRs 0-3 and 7 are predicted)"; return 1 ;; esac
	done
	for ((i = 0; i < EV_N; i++)); do
		[ "${EV_PCR[i]}" = 4 ] && [ "${EV_TYPE[i]}" = 80000003 ] && { fa=$i; break; }
	done
	[ "$fa" -ge 0 ] || { TPM_PRED_NO="no boot application in the log"; return 1; }
	pre=$fa
	for ((i = fa - 1; i >= 0; i--)); do
		[ "${EV_PCR[i]}" = 4 ] && { pre=$((i + 1)); break; }
	done
	local p7=$pre
	if [ "$m" = db ] && [[ " $2 " == *" 7 "* ]]; then
		ev=$(tpm_db_authority "$(state_get cert)") || { TPM_PRED_NO="efiresume's certificate $(state_get cert) is not in the db this boot measured"; return 1; }
		dg=$(tpm_hash "$bank" "$ev")
	elif [ "$m" = shim ] && [[ " $2 " == *" 7 "* ]]; then
		local fp
		fp=$(tpm_image_path "$fa")
		case ${fp,,} in
		*'\shim'"${ARCH:-x64}"'.efi' | *'\boot'"${ARCH:-x64}"'.efi') ;;
		*) TPM_PRED_NO="this boot did not start a shim first (${fp:-an image without a file path}): shim's own events cannot be taken from it"; return 1 ;;
		esac
		p7=
		for ((i = fa + 1; i < EV_N; i++)); do
			[ "${EV_PCR[i]}" = 4 ] && [ "${EV_TYPE[i]}" = 80000003 ] && break
			[ "${EV_PCR[i]}" = 7 ] && [ "${EV_TYPE[i]}" = 800000e0 ] || continue
			tpm_cert_authority "$i" || continue
			p7=$i
			break
		done
		[ -n "$p7" ] || { TPM_PRED_NO="the shim this boot started measured no authority for its second stage"; return 1; }
		ev=$(tpm_mok_authority "$(state_get cert)") || { TPM_PRED_NO="efiresume's certificate $(state_get cert) is not in MokListRT (not enrolled as a MOK?)"; return 1; }
		dg=$(tpm_hash "$bank" "$ev")
	fi
	for p in $2; do
		if [ "$p" = 7 ]; then v=$(tpm_replay "$bank" 7 "$p7"); else v=$(tpm_replay "$bank" "$p" "$pre"); fi
		if [ "$p" = 7 ] && [ -n "${dg:-}" ]; then
			# (edk2 measures each authority once a boot; under shim the MOK is efiresume's
			# shim's first certificate authority)
			if [ "$m" = db ]; then
				for ((i = 0; i < p7; i++)); do
					[ "${EV_PCR[i]}" = 7 ] && [ "${EV_DIG[i]}" = "$dg" ] && { dg=; break; }
				done
			fi
			[ -z "$dg" ] || v=$(tpm_hash "$bank" "$v$dg")
		fi
		out+=("$v")
	done
	TPM_PRED_VALS=${out[*]}
}
