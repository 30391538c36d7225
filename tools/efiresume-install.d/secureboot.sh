# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: Secure Boot: signing (sbsign), checking (sbverify, openssl), shim, MOK and db.

# the Secure Boot mode asked for (--secure-boot, else the recorded one; "" for none)
sb_mode_wanted() {
	local m
	if [ -n "${OPT_SB_SET:-}" ]; then m=$OPT_SB; else m=$(state_get secure-boot); fi
	[ "$m" = none ] || echo "$m"
}

# $1: the Secure Boot mode that will be installed (shim, db, or empty: unsigned)
check_secure_boot() {
	[ -n "${1:-}" ] && return 0
	[ "$(secure_boot_byte)" = 1 ] || return 0
	err "Secure Boot is enabled: efiresume is not signed; the firmware would refuse to start it"
	cat >&2 <<EOF
Install it signed with a key of yours (see efiresume-install(8), SECURE BOOT):
  --secure-boot=shim --key=KEY --cert=CERT   through Debian's signed shim (shim-signed) with
        CERT enrolled as a MOK (mokutil --import): machines that keep Microsoft's keys
  --secure-boot=db --key=KEY --cert=CERT     CERT in the firmware's db: self-owned keys
EOF
	exit 1
}

# ------------------------------------------------------------------ Secure Boot (issue 17)
# install --secure-boot=shim|db --key=KEY --cert=CERT signs the package's binary with sbsign
# and checks it with sbverify before anything on the ESP changes.
#   shim: \EFI\efiresume\shimx64.efi is Debian's signed shim (shim-signed: Microsoft's UEFI CA
#         signed it), grubx64.efi next to it is efiresume signed with KEY (the second stage
#         shim starts), mmx64.efi shim's MokManager (Debian-signed: shim starts it when a MOK
#         request is pending, and fails without it); the entry starts shimx64.efi. CERT is
#         enrolled with mokutil --import and confirmed in MokManager at the next boot.
#   db:   \EFI\efiresume\efiresume.efi signed with KEY; CERT (or a CA that issued it) must be
#         in the firmware's db (self-owned keys), or is added with efi-updatevar and --kek.
# The mode and CERT are recorded in the state file, KEY is not (and no copy of it is kept):
# whoever can read a db or MOK private key can sign a program that reads the hibernation key
# from the firmware, so it belongs offline. update (the package's postinst) then keeps the
# signed binary on the ESP as it is and prints the command that signs the new one (update
# --key=KEY --cert=CERT). With --keep-key the path of KEY is recorded and update signs every new
# binary with it, refusing (the signed one stays) when KEY cannot be used. KEY may be an
# encrypted PEM file (sbsign asks for its passphrase on the terminal) or, with
# --engine=pkcs11, a PKCS#11 URI (sbsign --engine pkcs11; libengine-pkcs11-openssl).
# Under Secure Boot efiresume makes a new hibernation key at every boot and only a kernel it
# started gets one: --secure-boot implies --mode=always (on-hibernate is refused).
# The scratch files (the certificate as PEM and DER, signatures, lists) are in WORKDIR.

# sb_names MODE ARCH ARRAY: the file names in \EFI\efiresume\ for the Secure Boot mode MODE
# (shim, db or "") on ARCH (x64, ia32), into the associative array ARRAY: [loader] (what the
# entry starts), [bin] (efiresume itself), [mm] (MokManager, shim only; "" otherwise)
sb_names() {
	local -n sn=$3
	case ${1:-} in
	shim) sn[loader]=shim$2.efi sn[bin]=grub$2.efi sn[mm]=mm$2.efi ;;
	*) sn[loader]=efiresume.efi sn[bin]=efiresume.efi sn[mm]= ;;
	esac
}

sb_need() { # COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "$1 is missing: Secure Boot needs it (apt install $2)"
}

subject_of() { openssl x509 -in "$1" -noout -subject 2>/dev/null | sed 's/^subject= *//'; }

# CERT (PEM or DER) -> $WORKDIR/cert.pem, cert.der; status 1 when it is not a certificate
sb_cert_files() { # CERT
	{ openssl x509 -in "$1" -out "$WORKDIR/cert.pem" 2>/dev/null ||
		openssl x509 -inform DER -in "$1" -out "$WORKDIR/cert.pem" 2>/dev/null; } &&
		openssl x509 -in "$WORKDIR/cert.pem" -outform DER -out "$WORKDIR/cert.der" 2>/dev/null
}
sb_load_cert() { # CERT
	[ -r "$1" ] || die "cannot read the certificate $1"
	sb_cert_files "$1" || die "$1 is not an X.509 certificate (PEM or DER)"
}

# sb_check_key SB WHY-IT-MATTERS: the key SB[key] (SB: the Secure Boot array, sb_prepare) is
# readable, a private key, the certificate SB[cert]'s; dies otherwise, adding WHY-IT-MATTERS.
# An encrypted PEM key is not opened here (sbsign asks for its passphrase; sbverify --cert
# checks the signature afterwards); a PKCS#11 URI (SB[engine]) is left to sbsign. SB[key_asks]:
# what sbsign will ask for ("" when nothing).
sb_check_key() {
	local -n ck=$1
	local key=${ck[key]}
	ck[key_asks]=
	if [ -n "${ck[engine]}" ]; then
		ck[key_asks]="the token may ask for its PIN"
		return 0
	fi
	[ -r "$key" ] || die "cannot read the signing key $key$2"
	if ! openssl pkey -in "$key" -passin pass: -pubout -out "$WORKDIR/key.pub" 2>/dev/null; then
		if grep -qs -e '^-----BEGIN ENCRYPTED PRIVATE KEY-----' -e '^Proc-Type: 4,ENCRYPTED' "$key"; then
			ck[key_asks]="sbsign asks for its passphrase"
			return 0
		fi
		die "cannot use the signing key $key: not a private key$2"
	fi
	openssl x509 -in "$WORKDIR/cert.pem" -noout -pubkey >"$WORKDIR/cert.pub" 2>/dev/null
	cmp -s "$WORKDIR/key.pub" "$WORKDIR/cert.pub" || die "the key $key does not belong to the certificate ${ck[cert]}$2"
}

# sb_resign_command CERT: the command that signs and installs the package's binary when the
# key is not kept
sb_resign_command() {
	echo "efiresume-install update --key=KEY --cert=$1"
}

# the X.509 certificates in the EFI variable NAME-GUID (EFI_SIGNATURE_LISTs), as one PEM
# file OUT; status 1 when it holds none
esl_certs() { # NAME GUID OUT
	local f d c
	f=$(var_path "$1" "$2")
	: >"$3"
	[ -r "$f" ] || return 1
	d=$WORKDIR/esl-$1
	rm -rf "$d" && mkdir -p "$d" || return 1
	# efivarfs files cannot seek: through a pipe
	cat "$f" 2>/dev/null | efi_rd_esl_x509 "$d" || return 1
	for c in "$d"/*.der; do
		[ -e "$c" ] && openssl x509 -inform DER -in "$c" >>"$3" 2>/dev/null
	done
	[ -s "$3" ]
}

# does the certificate CERT.pem chain to one in TRUSTED.pem (one of them itself counts, as
# the firmware counts a db certificate); UNTRUSTED: intermediates
chains_to() { # CERT TRUSTED [UNTRUSTED]
	[ -s "$2" ] || return 1
	openssl verify -no_check_time -purpose any -partial_chain -CAfile "$2" ${3:+-untrusted "$3"} "$1" >/dev/null 2>&1
}

# image_trust FILE TRUSTED SIGNER-VAR: is the PE image FILE signed by a certificate chaining
# to one in TRUSTED.pem? SIGNER-VAR gets the subject of the first certificate in its
# signature ("" when none). 0 yes, 1 signed by another, 2 no signature. (sbverify --cert
# accepts Microsoft's signature on shim with any certificate, so the chain is checked with
# openssl verify.)
image_trust() {
	local -n it_signer=$3
	local d=$WORKDIR/img c rc=1
	it_signer=
	rm -rf "$d" && mkdir -p "$d" || return 2
	sbattach --detach "$d/sig.p7" "$1" >/dev/null 2>&1 && [ -s "$d/sig.p7" ] || return 2
	openssl pkcs7 -inform DER -in "$d/sig.p7" -print_certs -out "$d/all.pem" 2>/dev/null || return 2
	awk -v d="$d" '/-----BEGIN/ { n++; on = 1 } on { print > (d "/c" n ".pem") } /-----END/ { on = 0; close(d "/c" n ".pem") }' "$d/all.pem"
	for c in "$d"/c*.pem; do
		[ -e "$c" ] || continue
		[ -n "$it_signer" ] || it_signer=$(subject_of "$c")
		chains_to "$c" "$2" "$d/all.pem" && rc=0
	done
	return $rc
}

# shim's built-in vendor certificate (Debian's CA in Debian's shim) as PEM OUT
shim_vendor_cert() { # SHIM OUT
	command -v objcopy >/dev/null 2>&1 || return 1
	objcopy -O binary --only-section=.vendor_cert "$1" "$WORKDIR/vendor.bin" 2>/dev/null || return 1
	efi_rd_shim_vendor_cert <"$WORKDIR/vendor.bin" >"$WORKDIR/vendor.der" || return 1
	openssl x509 -inform DER -in "$WORKDIR/vendor.der" -out "$2" 2>/dev/null
}

# mok_state DER ARRAY: the MOK state of the certificate DER, into the associative array
# ARRAY: [mok] enrolled | pending | not | unknown, [mok_said] mokutil's line
mok_state() {
	local -n ms=$2
	local out fp
	ms[mok]=unknown ms[mok_said]=
	if ! command -v "$MOKUTIL" >/dev/null 2>&1; then
		ms[mok_said]="mokutil is not installed"
		return 0
	fi
	out=$("$MOKUTIL" --test-key "$1" 2>&1 </dev/null)
	ms[mok_said]=$(printf '%s\n' "$out" | head -n 1)
	case $out in
	*"already in the enrollment request"*) ms[mok]=pending ;;
	*"already enrolled"* | *"already in db"*) ms[mok]=enrolled ;;
	*"is not enrolled"*) ms[mok]=not ;;
	esac
	if [ "${ms[mok]}" = not ] || [ "${ms[mok]}" = unknown ]; then
		# a pending request is listed by --list-new with the certificate's SHA-1 fingerprint
		fp=$(openssl x509 -inform DER -in "$1" -noout -fingerprint -sha1 2>/dev/null | sed 's/^[^=]*=//' | tr A-F a-f)
		[ -n "$fp" ] && "$MOKUTIL" --list-new 2>/dev/null </dev/null | tr A-F a-f | grep -qF -- "$fp" && ms[mok]=pending
	fi
	return 0
}

# sb_current SB BIN: is the signed binary on the ESP already the package's BIN, signed with
# the certificate (and shim and MokManager the package's)? SB: the Secure Boot array
# (sb_prepare). Needs $WORKDIR/cert.pem, not the key.
sb_current() {
	local -n cu=$1
	local dir=$ESP/EFI/efiresume
	[ "$(state_get secure-boot)" = "${cu[mode]}" ] || return 1
	[ "$(state_get sha256)" = "$(sha256sum "$2" | cut -d' ' -f1)" ] || return 1
	[ -e "$dir/${cu[bin]}" ] && [ "$(state_get signed-sha256)" = "$(sha256sum "$dir/${cu[bin]}" | cut -d' ' -f1)" ] || return 1
	sbverify --cert "$WORKDIR/cert.pem" "$dir/${cu[bin]}" >/dev/null 2>&1 || return 1
	if [ "${cu[mode]}" = shim ]; then
		cmp -s "$SHIM_DIR/shim${cu[arch]}.efi.signed" "$dir/${cu[loader]}" || return 1
		cmp -s "$SHIM_DIR/mm${cu[arch]}.efi.signed" "$dir/${cu[mm]}" || return 1
	fi
	return 0
}

# db_command CERT: efi-updatevar's command line that adds CERT to db
db_command() {
	local c=$1
	grep -q -- '-----BEGIN CERTIFICATE' "$1" 2>/dev/null || c="CERT.pem (PEM: openssl x509 -inform DER -in $1 -out CERT.pem)"
	if [ "$(var_byte SetupMode)" = 1 ]; then
		echo "efi-updatevar -a -c $c db"
	else
		echo "efi-updatevar -a -c $c -k KEK.key db"
	fi
}

# sb_prepare SB BIN install|update ARCH: everything for the Secure Boot mode, before anything
# changes, into the associative array SB (the other sb_* functions of install and update
# take it by name). BIN: the package's binary; ARCH: the firmware's (x64, ia32). Keys:
# [arch] ARCH, [mode] (shim|db|""), [key], [cert] (absolute paths, as recorded; [key] as
# given with --engine), [engine], [keep] (record the key: --keep-key, or kept before), the
# names (sb_names: [loader], [bin], [mm]), [signed] (the signed binary; "" when the ESP is
# current), [stale] (update, no key: the ESP is not current and stays as it is), [shim],
# [mmsrc], [db_add] (efi-updatevar must add the certificate), [key_asks] (sb_check_key),
# [mok], [mok_said] (mok_state; "" when not asked).
sb_prepare() {
	local -n sp=$1
	local bin=$2 ctx=$3 m k c t why kept
	m=$(sb_mode_wanted)
	sp=([arch]=$4 [mode]=$m [key]="" [cert]="" [engine]="" [keep]="" [signed]="" [stale]="" [shim]="" [mmsrc]=""
		[db_add]="" [key_asks]="" [mok]="" [mok_said]="")
	sb_names "$m" "$4" "$1"
	[ -n "$m" ] || return 0       # (unsigned: check_secure_boot refused it already under Secure Boot)
	# the key kept with --keep-key (or by an efiresume-install from before --keep-key)
	kept=$(state_get key)
	if [ -n "$OPT_KEY" ]; then
		k=$OPT_KEY sp[engine]=$OPT_ENGINE sp[keep]=$OPT_KEEP_KEY
	else
		k=$kept sp[engine]=$(state_get engine) sp[keep]=${kept:+1}
	fi
	c=${OPT_CERT:-$(state_get cert)}
	# without a key: only an installation of this mode that is there already (its signed binary
	# is kept, or update leaves it as it is)
	[ -n "$c" ] && { [ -n "$k" ] || [ "$(state_get secure-boot)" = "$m" ]; } ||
		die "--secure-boot=$m needs --key=KEY and --cert=CERT: the private key efiresume is signed with, and its certificate"
	if [ -n "$k" ] && [ -n "${sp[engine]}" ]; then
		sp[key]=$k
	elif [ -n "$k" ]; then
		sp[key]=$(readlink -f -- "$k")
	fi
	sp[cert]=$(readlink -f -- "$c")
	for t in sbsign:sbsigntool sbverify:sbsigntool sbattach:sbsigntool openssl:openssl; do
		sb_need "${t%%:*}" "${t#*:}"
	done
	work_dir
	sb_load_cert "${sp[cert]}"
	if [ "$m" = shim ]; then
		sp[shim]=$SHIM_DIR/shim$4.efi.signed sp[mmsrc]=$SHIM_DIR/mm$4.efi.signed
		[ -r "${sp[shim]}" ] || die "${sp[shim]} is missing: --secure-boot=shim installs Debian's signed shim (apt install shim-signed)"
		[ -r "${sp[mmsrc]}" ] ||
			die "${sp[mmsrc]} is missing: shim needs its MokManager next to it to enrol the certificate (apt install shim-helpers-$([ "$4" = x64 ] && echo amd64 || echo i386)-signed)"
	fi
	if [ "$ctx" = update ] && [ -z "$OPT_SB_SET$OPT_KEY$OPT_CERT" ] && sb_current "$1" "$bin"; then
		return 0
	fi
	if [ -z "${sp[key]}" ]; then
		if sb_current "$1" "$bin"; then
			:        # (install again) the signed binary on the ESP is the package's: kept
		elif [ "$ctx" = update ] && [ -z "$OPT_SB_SET$OPT_CERT" ]; then
			sp[stale]=1
			return 0
		else
			die "--secure-boot=$m needs --key=KEY and --cert=CERT: the signing key is not kept on this machine, and the signed efiresume on the ESP is not the package's $(pkg_version) signed with ${sp[cert]}"
		fi
	else
		why=
		[ "$ctx" = update ] && [ -z "$OPT_KEY" ] && why=" (recorded by efiresume-install install --keep-key; give --key=KEY); the signed efiresume on the ESP is left as it was, not updated to $(pkg_version)"
		sb_check_key "$1" "$why"
		sp[signed]=$WORKDIR/${sp[bin]}
		[ -n "${sp[key_asks]}" ] && say "signing $bin with ${sp[key]}${sp[engine]:+ (engine ${sp[engine]})}: ${sp[key_asks]}"
		# (no redirection of stdin: sbsign asks for a passphrase or PIN on the terminal)
		if ! sbsign ${sp[engine]:+--engine "${sp[engine]}"} --key "${sp[key]}" --cert "$WORKDIR/cert.pem" --output "${sp[signed]}" "$bin" >"$WORKDIR/sbsign.log" 2>&1; then
			t=$(grep -v -e '^warning: ' -e '^Signing Unsigned' "$WORKDIR/sbsign.log" | head -n 1)
			if [ -n "${sp[engine]}" ] && ! openssl engine -t "${sp[engine]}" >/dev/null 2>&1; then
				t="$t (OpenSSL has no engine ${sp[engine]}: apt install libengine-pkcs11-openssl)"
			fi
			die "sbsign could not sign $bin with ${sp[key]}: ${t:-$(tail -n 1 "$WORKDIR/sbsign.log")}$why"
		fi
		sbverify --cert "$WORKDIR/cert.pem" "${sp[signed]}" >/dev/null 2>&1 ||
			die "sbverify --cert ${sp[cert]} does not accept the binary sbsign signed (is ${sp[key]} the certificate's private key?)"
	fi
	if [ "$m" = shim ]; then
		mok_state "$WORKDIR/cert.der" "$1"
		if [ "$ctx" = install ] && [ "${sp[mok]}" != enrolled ] && [ "${sp[mok]}" != pending ]; then
			command -v "$MOKUTIL" >/dev/null 2>&1 || die "mokutil is missing: it enrols ${sp[cert]} as a MOK (apt install mokutil)"
		fi
	else
		if esl_certs db "$DB_GUID" "$WORKDIR/db.pem" && chains_to "$WORKDIR/cert.pem" "$WORKDIR/db.pem"; then
			return 0
		fi
		if [ -n "$OPT_KEK" ]; then
			command -v "$EFI_UPDATEVAR" >/dev/null 2>&1 || die "efi-updatevar is missing (apt install efitools): --kek adds ${sp[cert]} to db with it"
			[ -r "$OPT_KEK" ] || die "cannot read the KEK key $OPT_KEK"
			sp[db_add]=1
		elif [ "$(secure_boot_byte)" = 1 ]; then
			err "${sp[cert]} is not in the firmware's db (nor issued by a certificate there): the firmware would refuse efiresume; nothing was changed"
			echo "Add it to db (with the private key of a KEK certificate), then run this again:" >&2
			echo "  $(db_command "${sp[cert]}")" >&2
			echo "(or with sbkeysync from a keystore; or give --kek=KEK.key and efiresume-install runs efi-updatevar)" >&2
			exit 1
		else
			warn "${sp[cert]} is not in the firmware's db: once Secure Boot is on the firmware refuses efiresume; add it: $(db_command "${sp[cert]}")"
		fi
	fi
	return 0
}

# sb_key_lines SB: after signing, where the key is (not kept: store it offline; kept: who can sign)
sb_key_lines() {
	local -n kl=$1
	[ -n "${kl[signed]}" ] || return 0
	if [ -n "${kl[keep]}" ]; then
		if [ -n "${kl[engine]}" ]; then
			warn "the token key ${kl[key]} is kept (--keep-key, engine ${kl[engine]}): update signs each new version with it unattended; whoever can use ${kl[key]} can sign a program that reads the hibernation key from the firmware"
		else
			warn "the signing key ${kl[key]} is kept (--keep-key): update signs each new version with it unattended; whoever can read ${kl[key]} can sign a program that reads the hibernation key from the firmware (keep it readable by root alone, or store it offline and install again without --keep-key)"
		fi
	elif [ -n "${kl[engine]}" ]; then
		say "the token key ${kl[key]} is not recorded: package upgrades keep the signed efiresume as it is; to sign a new version: efiresume-install update --engine=${kl[engine]} --key=${kl[key]} --cert=${kl[cert]}"
	else
		say "the signing key ${kl[key]} is not recorded and no copy kept: store it offline now (whoever can read it can sign a program that reads the hibernation key from the firmware). Package upgrades keep the signed efiresume as it is; to sign a new version, with the key at hand: $(sb_resign_command "${kl[cert]}")"
	fi
}

# sb_add_db SB: (db mode, --kek) add the certificate to db with efi-updatevar; check that db
# holds it now
sb_add_db() {
	local -n ad=$1
	[ -n "${ad[db_add]}" ] || return 0
	local f
	f=$(var_path db "$DB_GUID")
	say "adding ${ad[cert]} to db: $EFI_UPDATEVAR -a -c ${ad[cert]} -k $OPT_KEK db"
	chattr -i "$f" 2>/dev/null         # efivarfs makes db immutable
	"$EFI_UPDATEVAR" -a -c "$WORKDIR/cert.pem" -k "$OPT_KEK" db ||
		die "efi-updatevar could not add ${ad[cert]} to db; nothing was installed"
	esl_certs db "$DB_GUID" "$WORKDIR/db.pem" && chains_to "$WORKDIR/cert.pem" "$WORKDIR/db.pem" ||
		die "db does not hold ${ad[cert]} after efi-updatevar; nothing was installed"
	say "db holds $(subject_of "$WORKDIR/cert.pem") now"
}

# sb_copy SB: put the signed efiresume (and shim, MokManager) on the ESP; status 1 when one
# copy failed
sb_copy() {
	local -n co=$1
	if [ "${co[mode]}" = shim ]; then
		copy_binary "${co[signed]}" "${co[bin]}" && copy_binary "${co[mmsrc]}" "${co[mm]}" && copy_binary "${co[shim]}" "${co[loader]}"
	else
		copy_binary "${co[signed]}" "${co[bin]}"
	fi
}

# sb_remove_stale SB: the files of the other layouts, once the entry starts this one's
sb_remove_stale() {
	local -n rs=$1
	local f dir=$ESP/EFI/efiresume
	for f in efiresume.efi shimx64.efi shimia32.efi grubx64.efi grubia32.efi mmx64.efi mmia32.efi; do
		case " ${rs[loader]} ${rs[bin]} ${rs[mm]} " in *" $f "*) continue ;; esac
		[ -e "$dir/$f" ] || continue
		rm -f "$dir/$f" && say "deleted $dir/$f (not used with --secure-boot=${rs[mode]:-none})"
	done
}

# sb_mok_import SB: (shim) enrol the certificate as a MOK unless it is enrolled or waits for
# MokManager already
sb_mok_import() {
	local -n mi=$1
	[ "${mi[mode]}" = shim ] || return 0
	local der=$STATE_DIR/mok.der
	cp "$WORKDIR/cert.der" "$der" || die "cannot write $der"
	case ${mi[mok]} in
	enrolled)
		say "${mi[cert]} is enrolled already (${mi[mok_said]}): shim starts efiresume"
		return 0 ;;
	pending)
		say "${mi[cert]} waits for enrolment already: at the next boot through shim, MokManager asks to confirm it"
		return 0 ;;
	esac
	say "enrolling ${mi[cert]} as a MOK: mokutil --import $der; mokutil asks for a one-time password now"
	if ! "$MOKUTIL" --import "$der"; then
		err "mokutil --import failed: efiresume is installed, but shim refuses it until ${mi[cert]} is enrolled; run: mokutil --import $der"
		exit 1
	fi
	say "at the next boot shim shows MokManager (a blue screen): choose \"Enroll MOK\", check that the key is $(subject_of "$WORKDIR/cert.pem"), confirm, type the password just given to mokutil, and reboot. Until then shim refuses to start efiresume."
}

# sb_check_fallback SB FALLBACK: warn when the fallback (an ESP path) will not pass the
# firmware's (or shim's) verification: efiresume starts it with LoadImage, and a refused
# fallback means efiresume returns to the firmware
sb_check_fallback() {
	local -n cf=$1
	[ -n "${cf[mode]}" ] && [ -n "${2:-}" ] || return 0
	local f=$ESP${2//\\//} tr=$WORKDIR/trusted.pem who rc signer
	[ -e "$f" ] || return 0
	: >"$tr"
	esl_certs db "$DB_GUID" "$WORKDIR/t-db.pem" && cat "$WORKDIR/t-db.pem" >>"$tr"
	if [ "${cf[mode]}" = shim ]; then
		cat "$WORKDIR/cert.pem" >>"$tr"
		esl_certs MokListRT "$SHIM_GUID" "$WORKDIR/t-mok.pem" && cat "$WORKDIR/t-mok.pem" >>"$tr"
		shim_vendor_cert "$SHIM_DIR/shim${cf[arch]}.efi.signed" "$WORKDIR/t-vendor.pem" && cat "$WORKDIR/t-vendor.pem" >>"$tr"
		who="db, the MOKs or shim's built-in certificate"
	else
		who="db"
	fi
	image_trust "$f" "$tr" signer
	rc=$?
	case $rc in
	0) say "fallback $2: signed by $signer, which $who accepts" ;;
	1) warn "the fallback $2 is signed by $signer, which does not lead to a certificate in $who: under Secure Boot it is refused, and efiresume returns to the firmware when there is nothing to resume (give another with --fallback)" ;;
	*) warn "the fallback $2 is not signed: under Secure Boot it is refused, and efiresume returns to the firmware when there is nothing to resume (give another with --fallback)" ;;
	esac
	return 0
}

# sb_status_lines MODE BINARY ARCH: (status) the Secure Boot mode, the signature, shim, the
# MOK or db
sb_status_lines() {
	local m=$1 f=$2 key cert subj engine
	local -A nm mk
	key=$(state_get key) cert=$(state_get cert) engine=$(state_get engine)
	echo "Secure Boot:  --secure-boot=$m, certificate $cert"
	if [ -n "$key" ]; then
		echo "Signing key:  kept: $key${engine:+ (engine $engine)} (--keep-key: update signs new versions unattended; whoever can read it can sign a program that reads the hibernation key)"
	else
		echo "Signing key:  not kept on this machine (update leaves the signed efiresume as it is; to sign a new version: efiresume-install update --key=KEY --cert=$cert)"
	fi
	local t
	for t in sbverify openssl; do
		command -v "$t" >/dev/null 2>&1 || { echo "Signature:    not checked: $t is not installed"; return 0; }
	done
	work_dir
	if ! sb_cert_files "$cert"; then
		echo "Signature:    not checked: cannot read the certificate $cert"
		return 0
	fi
	subj=$(subject_of "$WORKDIR/cert.pem")
	if sbverify --cert "$WORKDIR/cert.pem" "$f" >/dev/null 2>&1; then
		echo "Signature:    ${f##*/} verifies against the certificate ($subj) (sbverify)"
	else
		echo "Signature:    ${f##*/} does NOT verify against the certificate ($subj): the firmware or shim will refuse it (run efiresume-install update)"
	fi
	if [ "$m" = shim ]; then
		sb_names "$m" "$3" nm
		local s=${f%/*}/${nm[loader]} src=$SHIM_DIR/shim$3.efi.signed
		if [ ! -e "$s" ]; then
			echo "Shim:         $s is missing (run efiresume-install update)"
		elif cmp -s "$s" "$src"; then
			echo "Shim:         ${nm[loader]} is $src; ${nm[mm]} $([ -e "${f%/*}/${nm[mm]}" ] && echo "next to it" || echo "is MISSING (shim cannot start MokManager)")"
		else
			echo "Shim:         ${nm[loader]} differs from $src (run efiresume-install update)"
		fi
		local der=$WORKDIR/cert.der
		# (mokutil names the file in its answer: the recorded copy when it is the certificate)
		cmp -s "$STATE_DIR/mok.der" "$der" && der=$STATE_DIR/mok.der
		mok_state "$der" mk
		case ${mk[mok]} in
		enrolled) echo "MOK:          enrolled (mokutil --test-key: ${mk[mok_said]})" ;;
		pending) echo "MOK:          pending: at the next boot through shim, MokManager asks to confirm it (mokutil --list-new)" ;;
		not) echo "MOK:          not enrolled: shim refuses efiresume (mokutil --import $STATE_DIR/mok.der, or efiresume-install install --secure-boot=shim)" ;;
		*) echo "MOK:          unknown: ${mk[mok_said]}" ;;
		esac
	else
		if esl_certs db "$DB_GUID" "$WORKDIR/db.pem" && chains_to "$WORKDIR/cert.pem" "$WORKDIR/db.pem"; then
			echo "db:           holds the certificate (or the one that issued it)"
		else
			echo "db:           does NOT hold the certificate: under Secure Boot the firmware refuses efiresume ($(db_command "$cert"))"
		fi
	fi
	return 0
}

# sb_state SB: state lines for the Secure Boot mode
sb_state() {
	local -n st=$1
	[ -n "${st[mode]}" ] || return 0
	echo "secure-boot=${st[mode]}"
	if [ -n "${st[keep]}" ] && [ -n "${st[key]}" ]; then
		echo "key=${st[key]}"
		[ -n "${st[engine]}" ] && echo "engine=${st[engine]}"
	fi
	echo "cert=${st[cert]}"
	echo "signed-sha256=$(sha256sum "$ESP/EFI/efiresume/${st[bin]}" | cut -d' ' -f1)"
}

# under Secure Boot efiresume makes a new hibernation key at every boot, and only a kernel it
# started gets one: it must start every boot
SB_MODE_WHY="under Secure Boot efiresume makes a new hibernation key at every boot and only a kernel it started gets one, so efiresume must start every boot"
