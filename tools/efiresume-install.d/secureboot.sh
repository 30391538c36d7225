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
SBTMP=
sb_tmp() {
	work_dir
	SBTMP=$WORKDIR
}

# file names in \EFI\efiresume\ for mode $1 on $ARCH: SB_LOADER (what the entry starts),
# SB_BIN (efiresume itself), SB_MM (MokManager, shim only)
sb_names() {
	case ${1:-} in
	shim) SB_LOADER=shim$ARCH.efi SB_BIN=grub$ARCH.efi SB_MM=mm$ARCH.efi ;;
	*) SB_LOADER=efiresume.efi SB_BIN=efiresume.efi SB_MM= ;;
	esac
}

sb_need() { # COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "$1 is missing: Secure Boot needs it (apt install $2)"
}

subject_of() { openssl x509 -in "$1" -noout -subject 2>/dev/null | sed 's/^subject= *//'; }

# CERT (PEM or DER) -> $SBTMP/cert.pem, cert.der; status 1 when it is not a certificate
sb_cert_files() { # CERT
	{ openssl x509 -in "$1" -out "$SBTMP/cert.pem" 2>/dev/null ||
		openssl x509 -inform DER -in "$1" -out "$SBTMP/cert.pem" 2>/dev/null; } &&
		openssl x509 -in "$SBTMP/cert.pem" -outform DER -out "$SBTMP/cert.der" 2>/dev/null
}
sb_load_cert() { # CERT
	[ -r "$1" ] || die "cannot read the certificate $1"
	sb_cert_files "$1" || die "$1 is not an X.509 certificate (PEM or DER)"
}

# KEY: readable, a private key, the certificate's. An encrypted PEM key is not opened here
# (sbsign asks for its passphrase; sbverify --cert checks the signature afterwards); a PKCS#11
# URI (--engine=pkcs11) is left to sbsign. Sets SB_KEY_ASKS when sbsign will ask.
sb_check_key() { # KEY WHY-IT-MATTERS
	SB_KEY_ASKS=
	if [ -n "$SB_ENGINE" ]; then
		SB_KEY_ASKS="the token may ask for its PIN"
		return 0
	fi
	[ -r "$1" ] || die "cannot read the signing key $1$2"
	if ! openssl pkey -in "$1" -passin pass: -pubout -out "$SBTMP/key.pub" 2>/dev/null; then
		if grep -qs -e '^-----BEGIN ENCRYPTED PRIVATE KEY-----' -e '^Proc-Type: 4,ENCRYPTED' "$1"; then
			SB_KEY_ASKS="sbsign asks for its passphrase"
			return 0
		fi
		die "cannot use the signing key $1: not a private key$2"
	fi
	openssl x509 -in "$SBTMP/cert.pem" -noout -pubkey >"$SBTMP/cert.pub" 2>/dev/null
	cmp -s "$SBTMP/key.pub" "$SBTMP/cert.pub" || die "the key $1 does not belong to the certificate $SB_CERT$2"
}

# the command that signs and installs the package's binary when the key is not kept
sb_resign_command() {
	echo "efiresume-install update --key=KEY --cert=$SB_CERT"
}

# the X.509 certificates in the EFI variable NAME-GUID (EFI_SIGNATURE_LISTs), as one PEM
# file OUT; status 1 when it holds none
esl_certs() { # NAME GUID OUT
	local f d c
	f=$(var_path "$1" "$2")
	: >"$3"
	[ -r "$f" ] || return 1
	d=$SBTMP/esl-$1
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

# Is the PE image FILE signed by a certificate chaining to one in TRUSTED.pem? Sets SIGNER
# (the subject of the first certificate in its signature). 0 yes, 1 signed by another,
# 2 no signature. (sbverify --cert accepts Microsoft's signature on shim with any
# certificate, so the chain is checked with openssl verify.)
image_trust() { # FILE TRUSTED
	local d=$SBTMP/img c rc=1
	rm -rf "$d" && mkdir -p "$d"
	SIGNER=
	sbattach --detach "$d/sig.p7" "$1" >/dev/null 2>&1 && [ -s "$d/sig.p7" ] || return 2
	openssl pkcs7 -inform DER -in "$d/sig.p7" -print_certs -out "$d/all.pem" 2>/dev/null || return 2
	awk -v d="$d" '/-----BEGIN/ { n++; on = 1 } on { print > (d "/c" n ".pem") } /-----END/ { on = 0; close(d "/c" n ".pem") }' "$d/all.pem"
	for c in "$d"/c*.pem; do
		[ -e "$c" ] || continue
		[ -n "$SIGNER" ] || SIGNER=$(subject_of "$c")
		chains_to "$c" "$2" "$d/all.pem" && rc=0
	done
	return $rc
}

# shim's built-in vendor certificate (Debian's CA in Debian's shim) as PEM OUT
shim_vendor_cert() { # SHIM OUT
	command -v objcopy >/dev/null 2>&1 || return 1
	objcopy -O binary --only-section=.vendor_cert "$1" "$SBTMP/vendor.bin" 2>/dev/null || return 1
	efi_rd_shim_vendor_cert <"$SBTMP/vendor.bin" >"$SBTMP/vendor.der" || return 1
	openssl x509 -inform DER -in "$SBTMP/vendor.der" -out "$2" 2>/dev/null
}

# MOK_STATE of the certificate DER: enrolled | pending | not | unknown; MOK_SAID: mokutil's line
mok_state() { # DER
	local out fp
	MOK_STATE=unknown MOK_SAID=
	if ! command -v "$MOKUTIL" >/dev/null 2>&1; then
		MOK_SAID="mokutil is not installed"
		return 0
	fi
	out=$("$MOKUTIL" --test-key "$1" 2>&1 </dev/null)
	MOK_SAID=$(printf '%s\n' "$out" | head -n 1)
	case $out in
	*"already in the enrollment request"*) MOK_STATE=pending ;;
	*"already enrolled"* | *"already in db"*) MOK_STATE=enrolled ;;
	*"is not enrolled"*) MOK_STATE=not ;;
	esac
	if [ "$MOK_STATE" = not ] || [ "$MOK_STATE" = unknown ]; then
		# a pending request is listed by --list-new with the certificate's SHA-1 fingerprint
		fp=$(openssl x509 -inform DER -in "$1" -noout -fingerprint -sha1 2>/dev/null | sed 's/^[^=]*=//' | tr A-F a-f)
		[ -n "$fp" ] && "$MOKUTIL" --list-new 2>/dev/null </dev/null | tr A-F a-f | grep -qF -- "$fp" && MOK_STATE=pending
	fi
	return 0
}

# Is the signed binary on the ESP already the package's BIN, signed with CERT (and shim and
# MokManager the packages')? Needs $SBTMP/cert.pem, not the key.
sb_current() { # BIN
	local dir=$ESP/EFI/efiresume
	[ "$(state_get secure-boot)" = "$SB_MODE" ] || return 1
	[ "$(state_get sha256)" = "$(sha256sum "$1" | cut -d' ' -f1)" ] || return 1
	[ -e "$dir/$SB_BIN" ] && [ "$(state_get signed-sha256)" = "$(sha256sum "$dir/$SB_BIN" | cut -d' ' -f1)" ] || return 1
	sbverify --cert "$SBTMP/cert.pem" "$dir/$SB_BIN" >/dev/null 2>&1 || return 1
	if [ "$SB_MODE" = shim ]; then
		cmp -s "$SHIM_DIR/shim$ARCH.efi.signed" "$dir/$SB_LOADER" || return 1
		cmp -s "$SHIM_DIR/mm$ARCH.efi.signed" "$dir/$SB_MM" || return 1
	fi
	return 0
}

# efi-updatevar's command line that adds CERT to db
db_command() {
	local c=$SB_CERT
	grep -q -- '-----BEGIN CERTIFICATE' "$SB_CERT" 2>/dev/null || c="CERT.pem (PEM: openssl x509 -inform DER -in $SB_CERT -out CERT.pem)"
	if [ "$(var_byte SetupMode)" = 1 ]; then
		echo "efi-updatevar -a -c $c db"
	else
		echo "efi-updatevar -a -c $c -k KEK.key db"
	fi
}

# Everything for the Secure Boot mode, before anything changes. $1: the package's binary,
# $2: install|update. Sets SB_MODE (shim|db|""), SB_KEY, SB_CERT (absolute paths, as
# recorded; SB_KEY as given with --engine), SB_ENGINE, SB_KEEP (record the key: --keep-key, or
# kept before), the names (sb_names), SB_SIGNED (the signed binary; "" when the ESP is
# current), SB_STALE (update, no key: the ESP is not current and stays as it is), SB_SHIM,
# SB_MMSRC, SB_DB_ADD (efi-updatevar must add CERT), MOK_STATE.
sb_prepare() {
	local bin=$1 ctx=$2 m k c t why kept
	m=$(sb_mode_wanted)
	SB_MODE=$m SB_KEY= SB_CERT= SB_ENGINE= SB_KEEP= SB_SIGNED= SB_STALE= SB_SHIM= SB_MMSRC= SB_DB_ADD= MOK_STATE=
	sb_names "$m"
	[ -n "$m" ] || return 0       # (unsigned: check_secure_boot refused it already under Secure Boot)
	# the key kept with --keep-key (or by an efiresume-install from before --keep-key)
	kept=$(state_get key)
	if [ -n "$OPT_KEY" ]; then
		k=$OPT_KEY SB_ENGINE=$OPT_ENGINE SB_KEEP=$OPT_KEEP_KEY
	else
		k=$kept SB_ENGINE=$(state_get engine) SB_KEEP=${kept:+1}
	fi
	c=${OPT_CERT:-$(state_get cert)}
	# without a key: only an installation of this mode that is there already (its signed binary
	# is kept, or update leaves it as it is)
	[ -n "$c" ] && { [ -n "$k" ] || [ "$(state_get secure-boot)" = "$m" ]; } ||
		die "--secure-boot=$m needs --key=KEY and --cert=CERT: the private key efiresume is signed with, and its certificate"
	if [ -n "$k" ] && [ -n "$SB_ENGINE" ]; then
		SB_KEY=$k
	elif [ -n "$k" ]; then
		SB_KEY=$(readlink -f -- "$k")
	fi
	SB_CERT=$(readlink -f -- "$c")
	for t in sbsign:sbsigntool sbverify:sbsigntool sbattach:sbsigntool openssl:openssl; do
		sb_need "${t%%:*}" "${t#*:}"
	done
	sb_tmp
	sb_load_cert "$SB_CERT"
	if [ "$m" = shim ]; then
		SB_SHIM=$SHIM_DIR/shim$ARCH.efi.signed SB_MMSRC=$SHIM_DIR/mm$ARCH.efi.signed
		[ -r "$SB_SHIM" ] || die "$SB_SHIM is missing: --secure-boot=shim installs Debian's signed shim (apt install shim-signed)"
		[ -r "$SB_MMSRC" ] ||
			die "$SB_MMSRC is missing: shim needs its MokManager next to it to enrol the certificate (apt install shim-helpers-$([ "$ARCH" = x64 ] && echo amd64 || echo i386)-signed)"
	fi
	if [ "$ctx" = update ] && [ -z "$OPT_SB_SET$OPT_KEY$OPT_CERT" ] && sb_current "$bin"; then
		return 0
	fi
	if [ -z "$SB_KEY" ]; then
		if sb_current "$bin"; then
			:        # (install again) the signed binary on the ESP is the package's: kept
		elif [ "$ctx" = update ] && [ -z "$OPT_SB_SET$OPT_CERT" ]; then
			SB_STALE=1
			return 0
		else
			die "--secure-boot=$m needs --key=KEY and --cert=CERT: the signing key is not kept on this machine, and the signed efiresume on the ESP is not the package's $(pkg_version) signed with $SB_CERT"
		fi
	else
		why=
		[ "$ctx" = update ] && [ -z "$OPT_KEY" ] && why=" (recorded by efiresume-install install --keep-key; give --key=KEY); the signed efiresume on the ESP is left as it was, not updated to $(pkg_version)"
		sb_check_key "$SB_KEY" "$why"
		SB_SIGNED=$SBTMP/$SB_BIN
		[ -n "$SB_KEY_ASKS" ] && say "signing $bin with $SB_KEY${SB_ENGINE:+ (engine $SB_ENGINE)}: $SB_KEY_ASKS"
		# (no redirection of stdin: sbsign asks for a passphrase or PIN on the terminal)
		if ! sbsign ${SB_ENGINE:+--engine "$SB_ENGINE"} --key "$SB_KEY" --cert "$SBTMP/cert.pem" --output "$SB_SIGNED" "$bin" >"$SBTMP/sbsign.log" 2>&1; then
			t=$(grep -v -e '^warning: ' -e '^Signing Unsigned' "$SBTMP/sbsign.log" | head -n 1)
			if [ -n "$SB_ENGINE" ] && ! openssl engine -t "$SB_ENGINE" >/dev/null 2>&1; then
				t="$t (OpenSSL has no engine $SB_ENGINE: apt install libengine-pkcs11-openssl)"
			fi
			die "sbsign could not sign $bin with $SB_KEY: ${t:-$(tail -n 1 "$SBTMP/sbsign.log")}$why"
		fi
		sbverify --cert "$SBTMP/cert.pem" "$SB_SIGNED" >/dev/null 2>&1 ||
			die "sbverify --cert $SB_CERT does not accept the binary sbsign signed (is $SB_KEY the certificate's private key?)"
	fi
	if [ "$m" = shim ]; then
		mok_state "$SBTMP/cert.der"
		if [ "$ctx" = install ] && [ "$MOK_STATE" != enrolled ] && [ "$MOK_STATE" != pending ]; then
			command -v "$MOKUTIL" >/dev/null 2>&1 || die "mokutil is missing: it enrols $SB_CERT as a MOK (apt install mokutil)"
		fi
	else
		if esl_certs db "$DB_GUID" "$SBTMP/db.pem" && chains_to "$SBTMP/cert.pem" "$SBTMP/db.pem"; then
			return 0
		fi
		if [ -n "$OPT_KEK" ]; then
			command -v "$EFI_UPDATEVAR" >/dev/null 2>&1 || die "efi-updatevar is missing (apt install efitools): --kek adds $SB_CERT to db with it"
			[ -r "$OPT_KEK" ] || die "cannot read the KEK key $OPT_KEK"
			SB_DB_ADD=1
		elif [ "$(secure_boot_byte)" = 1 ]; then
			err "$SB_CERT is not in the firmware's db (nor issued by a certificate there): the firmware would refuse efiresume; nothing was changed"
			echo "Add it to db (with the private key of a KEK certificate), then run this again:" >&2
			echo "  $(db_command)" >&2
			echo "(or with sbkeysync from a keystore; or give --kek=KEK.key and efiresume-install runs efi-updatevar)" >&2
			exit 1
		else
			warn "$SB_CERT is not in the firmware's db: once Secure Boot is on the firmware refuses efiresume; add it: $(db_command)"
		fi
	fi
	return 0
}

# after signing: where the key is (not kept: store it offline; kept: who can sign)
sb_key_lines() {
	[ -n "$SB_SIGNED" ] || return 0
	if [ -n "$SB_KEEP" ]; then
		if [ -n "$SB_ENGINE" ]; then
			warn "the token key $SB_KEY is kept (--keep-key, engine $SB_ENGINE): update signs each new version with it unattended; whoever can use $SB_KEY can sign a program that reads the hibernation key from the firmware"
		else
			warn "the signing key $SB_KEY is kept (--keep-key): update signs each new version with it unattended; whoever can read $SB_KEY can sign a program that reads the hibernation key from the firmware (keep it readable by root alone, or store it offline and install again without --keep-key)"
		fi
	elif [ -n "$SB_ENGINE" ]; then
		say "the token key $SB_KEY is not recorded: package upgrades keep the signed efiresume as it is; to sign a new version: efiresume-install update --engine=$SB_ENGINE --key=$SB_KEY --cert=$SB_CERT"
	else
		say "the signing key $SB_KEY is not recorded and no copy kept: store it offline now (whoever can read it can sign a program that reads the hibernation key from the firmware). Package upgrades keep the signed efiresume as it is; to sign a new version, with the key at hand: $(sb_resign_command)"
	fi
}

# (db mode, --kek) add CERT to db with efi-updatevar; check that db holds it now
sb_add_db() {
	[ -n "$SB_DB_ADD" ] || return 0
	local f
	f=$(var_path db "$DB_GUID")
	say "adding $SB_CERT to db: $EFI_UPDATEVAR -a -c $SB_CERT -k $OPT_KEK db"
	chattr -i "$f" 2>/dev/null         # efivarfs makes db immutable
	"$EFI_UPDATEVAR" -a -c "$SBTMP/cert.pem" -k "$OPT_KEK" db ||
		die "efi-updatevar could not add $SB_CERT to db; nothing was installed"
	esl_certs db "$DB_GUID" "$SBTMP/db.pem" && chains_to "$SBTMP/cert.pem" "$SBTMP/db.pem" ||
		die "db does not hold $SB_CERT after efi-updatevar; nothing was installed"
	say "db holds $(subject_of "$SBTMP/cert.pem") now"
}

# put the signed efiresume (and shim, MokManager) on the ESP; status 1 when one copy failed
sb_copy() {
	if [ "$SB_MODE" = shim ]; then
		copy_binary "$SB_SIGNED" "$SB_BIN" && copy_binary "$SB_MMSRC" "$SB_MM" && copy_binary "$SB_SHIM" "$SB_LOADER"
	else
		copy_binary "$SB_SIGNED" "$SB_BIN"
	fi
}

# the files of the other layouts, once the entry starts this one's
sb_remove_stale() {
	local f dir=$ESP/EFI/efiresume
	for f in efiresume.efi shimx64.efi shimia32.efi grubx64.efi grubia32.efi mmx64.efi mmia32.efi; do
		case " $SB_LOADER $SB_BIN $SB_MM " in *" $f "*) continue ;; esac
		[ -e "$dir/$f" ] || continue
		rm -f "$dir/$f" && say "deleted $dir/$f (not used with --secure-boot=${SB_MODE:-none})"
	done
}

# (shim) enrol CERT as a MOK unless it is enrolled or waits for MokManager already
sb_mok_import() {
	[ "$SB_MODE" = shim ] || return 0
	local der=$STATE_DIR/mok.der
	cp "$SBTMP/cert.der" "$der" || die "cannot write $der"
	case $MOK_STATE in
	enrolled)
		say "$SB_CERT is enrolled already ($MOK_SAID): shim starts efiresume"
		return 0 ;;
	pending)
		say "$SB_CERT waits for enrolment already: at the next boot through shim, MokManager asks to confirm it"
		return 0 ;;
	esac
	say "enrolling $SB_CERT as a MOK: mokutil --import $der; mokutil asks for a one-time password now"
	if ! "$MOKUTIL" --import "$der"; then
		err "mokutil --import failed: efiresume is installed, but shim refuses it until $SB_CERT is enrolled; run: mokutil --import $der"
		exit 1
	fi
	say "at the next boot shim shows MokManager (a blue screen): choose \"Enroll MOK\", check that the key is $(subject_of "$SBTMP/cert.pem"), confirm, type the password just given to mokutil, and reboot. Until then shim refuses to start efiresume."
}

# warn when the fallback ($1, an ESP path) will not pass the firmware's (or shim's)
# verification: efiresume starts it with LoadImage, and a refused fallback means efiresume
# returns to the firmware
sb_check_fallback() {
	[ -n "$SB_MODE" ] && [ -n "${1:-}" ] || return 0
	local f=$ESP${1//\\//} tr=$SBTMP/trusted.pem who rc
	[ -e "$f" ] || return 0
	: >"$tr"
	esl_certs db "$DB_GUID" "$SBTMP/t-db.pem" && cat "$SBTMP/t-db.pem" >>"$tr"
	if [ "$SB_MODE" = shim ]; then
		cat "$SBTMP/cert.pem" >>"$tr"
		esl_certs MokListRT "$SHIM_GUID" "$SBTMP/t-mok.pem" && cat "$SBTMP/t-mok.pem" >>"$tr"
		shim_vendor_cert "$SHIM_DIR/shim$ARCH.efi.signed" "$SBTMP/t-vendor.pem" && cat "$SBTMP/t-vendor.pem" >>"$tr"
		who="db, the MOKs or shim's built-in certificate"
	else
		who="db"
	fi
	image_trust "$f" "$tr"
	rc=$?
	case $rc in
	0) say "fallback $1: signed by $SIGNER, which $who accepts" ;;
	1) warn "the fallback $1 is signed by $SIGNER, which does not lead to a certificate in $who: under Secure Boot it is refused, and efiresume returns to the firmware when there is nothing to resume (give another with --fallback)" ;;
	*) warn "the fallback $1 is not signed: under Secure Boot it is refused, and efiresume returns to the firmware when there is nothing to resume (give another with --fallback)" ;;
	esac
	return 0
}

# status: the Secure Boot mode, the signature, shim, the MOK or db
sb_status_lines() { # MODE BINARY
	local m=$1 f=$2 key cert subj engine
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
	sb_tmp
	if ! sb_cert_files "$cert"; then
		echo "Signature:    not checked: cannot read the certificate $cert"
		return 0
	fi
	subj=$(subject_of "$SBTMP/cert.pem")
	if sbverify --cert "$SBTMP/cert.pem" "$f" >/dev/null 2>&1; then
		echo "Signature:    ${f##*/} verifies against the certificate ($subj) (sbverify)"
	else
		echo "Signature:    ${f##*/} does NOT verify against the certificate ($subj): the firmware or shim will refuse it (run efiresume-install update)"
	fi
	if [ "$m" = shim ]; then
		local s=${f%/*}/$SB_LOADER src=$SHIM_DIR/shim$ARCH.efi.signed
		if [ ! -e "$s" ]; then
			echo "Shim:         $s is missing (run efiresume-install update)"
		elif cmp -s "$s" "$src"; then
			echo "Shim:         $SB_LOADER is $src; $SB_MM $([ -e "${f%/*}/$SB_MM" ] && echo "next to it" || echo "is MISSING (shim cannot start MokManager)")"
		else
			echo "Shim:         $SB_LOADER differs from $src (run efiresume-install update)"
		fi
		local der=$SBTMP/cert.der
		# (mokutil names the file in its answer: the recorded copy when it is the certificate)
		cmp -s "$STATE_DIR/mok.der" "$der" && der=$STATE_DIR/mok.der
		mok_state "$der"
		case $MOK_STATE in
		enrolled) echo "MOK:          enrolled (mokutil --test-key: $MOK_SAID)" ;;
		pending) echo "MOK:          pending: at the next boot through shim, MokManager asks to confirm it (mokutil --list-new)" ;;
		not) echo "MOK:          not enrolled: shim refuses efiresume (mokutil --import $STATE_DIR/mok.der, or efiresume-install install --secure-boot=shim)" ;;
		*) echo "MOK:          unknown: $MOK_SAID" ;;
		esac
	else
		if esl_certs db "$DB_GUID" "$SBTMP/db.pem" && chains_to "$SBTMP/cert.pem" "$SBTMP/db.pem"; then
			echo "db:           holds the certificate (or the one that issued it)"
		else
			echo "db:           does NOT hold the certificate: under Secure Boot the firmware refuses efiresume ($(db_command))"
		fi
	fi
	return 0
}

# state lines for the Secure Boot mode
sb_state() {
	[ -n "$SB_MODE" ] || return 0
	echo "secure-boot=$SB_MODE"
	if [ -n "$SB_KEEP" ] && [ -n "$SB_KEY" ]; then
		echo "key=$SB_KEY"
		[ -n "$SB_ENGINE" ] && echo "engine=$SB_ENGINE"
	fi
	echo "cert=$SB_CERT"
	echo "signed-sha256=$(sha256sum "$ESP/EFI/efiresume/$SB_BIN" | cut -d' ' -f1)"
}

# under Secure Boot efiresume makes a new hibernation key at every boot, and only a kernel it
# started gets one: it must start every boot
SB_MODE_WHY="under Secure Boot efiresume makes a new hibernation key at every boot and only a kernel it started gets one, so efiresume must start every boot"
