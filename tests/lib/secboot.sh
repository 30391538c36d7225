# SPDX-License-Identifier: GPL-2.0-or-later
# Secure Boot in QEMU (sourced after harness.sh): OVMF_CODE_4M.secboot.fd with SMM and
# secure pflash, a private copy of OVMF_VARS_4M.snakeoil.fd (Secure Boot on; its db holds
# the snakeoil certificate whose key ships in the ovmf package), and an EFI_RNG_PROTOCOL
# (virtio-rng-pci).
#   sb_key DIR                 -> DIR/snakeoil.key (unencrypted copy) and prints its path
#   sb_sign KEY IN OUT         sign a PE image with the snakeoil certificate (a signature
#                              already there, e.g. Debian's on a kernel, is removed first)
#   sb_new_vars OUT            fresh copy of the snakeoil variable store
#   sb_run_qemu DISK VARS LOG TIMEOUT [qemu args]   x64 only; run_qemu with fw=secboot and
#                              SB_CPU (qemu.sh; QEMU_DRIVE, QEMU_SERIAL, MEM, SMP as for run_qemu)
#   sb_var_attrs VARS NAME     "attrs=0x.. size=N" of the live variable NAME in the store, or "absent"
#   sb_var_hex VARS NAME       its data in hex, or "absent"
#   sb_new_vars_ia32 OUT       the same for 32-bit OVMF (OVMF32_CODE_4M.secboot.fd, run by run_qemu
#                              ia32): Debian ships no enrolled OVMF32 store, so OVMF32_VARS_4M.fd gets
#                              the snakeoil certificate as PK, KEK and db (the owner GUIDs of
#                              OVMF_VARS_4M.snakeoil.fd) and Secure Boot on, by virt-fw-vars
#                              (python3-virt-firmware, bookworm-backports); made once, kept in
#                              $CACHE/secboot/ under a hash of its inputs
SB_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem
SB_VARS=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd

sb_key() {
	openssl pkey -in /usr/share/ovmf/PkKek-1-snakeoil.key -passin pass:snakeoil -out "$1/snakeoil.key"
	echo "$1/snakeoil.key"
}

sb_sign() {
	local key=$1 in=$2 out=$3 tmp
	tmp=$(mktemp)
	cp "$in" "$tmp"
	# sbattach --remove fails on an image without a signature: that is fine
	sbattach --remove "$tmp" >/dev/null 2>&1 || true
	sbsign --key "$key" --cert "$SB_CERT" --output "$out" "$tmp" 2>/dev/null
	rm -f "$tmp"
	sbverify --cert "$SB_CERT" "$out" >/dev/null
}

sb_new_vars() { cp "$SB_VARS" "$1"; }

# The CPU of the Secure Boot guests: AES-NI, PCLMULQDQ and SSE4.1 as every x86_64 machine that
# runs this mode has them (the GCM of encrypted images takes its AES-NI path; the portable path
# under TCG is ~25x slower), without CX16 (QEMU 7.2's TCG, tests/lib/fixture.sh)
SB_CPU="qemu64,-cx16,+aes,+ssse3,+sse4.1,+sse4.2,+pclmulqdq"
sb_run_qemu() {
	local disk=$1 vars=$2 log=$3 tmo=$4
	shift 4
	qemu_run "$log" "$tmo" fw=secboot vars="$vars" disk="$disk" cpu="${QEMU_CPU_X64:-$SB_CPU}" \
		mem="${MEM:-512}" smp="${SMP:-1}" debug_exit=1 -- "$@"
}

# the plain (Secure Boot off) variable store, for a boot under the same firmware code
sb_plain_vars() { cp /usr/share/OVMF/OVMF_VARS_4M.fd "$1"; }

sb_var_attrs() { python3 "$TOP/tests/lib/secboot-vars.py" "$1" "$2"; }
# sb_var_hex VARS NAME: the live variable's data in hex, or "absent"
sb_var_hex() { python3 "$TOP/tests/lib/secboot-vars.py" "$1" "$2" --hex; }

# OVMF_VARS_4M.snakeoil.fd's owners: PK EFI_GLOBAL_VARIABLE, KEK and db a0baa8a3-...
SB_IA32_VARS_ARGS="--set-pk 8be4df61-93ca-11d2-aa0d-00e098032b8c $SB_CERT
	--add-kek a0baa8a3-041d-48a8-bc87-c36d121b5e3d $SB_CERT
	--add-db a0baa8a3-041d-48a8-bc87-c36d121b5e3d $SB_CERT --secure-boot"
sb_new_vars_ia32() {
	local out=$1 vfw hash f
	vfw=$(kernel_dir python3-virt-firmware backports)/usr/lib/python3/dist-packages
	hash=$( { echo "$SB_IA32_VARS_ARGS"; sha256sum /usr/share/OVMF/OVMF32_VARS_4M.fd "$SB_CERT"
		  find "$vfw/virt" -name '*.py' | sort | xargs cat; } | sha256sum | cut -c1-16)
	f=$CACHE/secboot/ovmf32-vars-snakeoil-$hash.fd
	if [ ! -s "$f" ]; then
		mkdir -p "$CACHE/secboot"
		# shellcheck disable=SC2086  # the arguments are words
		PYTHONPATH=$vfw python3 -m virt.firmware.vars -i /usr/share/OVMF/OVMF32_VARS_4M.fd \
			-o "$f.tmp.$$" $SB_IA32_VARS_ARGS > "$f.log" 2>&1 ||
			{ echo "sb_new_vars_ia32: virt-fw-vars failed (see $f.log)" >&2; rm -f "$f.tmp.$$"; return 1; }
		mv "$f.tmp.$$" "$f"
	fi
	cp "$f" "$out"
}

# sb_guest ARCH KDIR [EXTRA]: the secboot guest in $d: init (prelude + init/secboot.sh) and
# initrd.gz with KDIR's modules, a random $marker, and efiresume.conf starting \vmlinuz.efi
# with that initrd and the marker (EXTRA: more kernel arguments, each with its leading space)
sb_guest() {
	cat "$TOP"/tests/e2e/init/prelude.sh "$TOP"/tests/e2e/init/secboot.sh > "$d/init"
	make_initramfs "$1" "$2" "$d/init" "$d/initrd.gz"
	marker=m$RANDOM$RANDOM
	cat > "$d/efiresume.conf" <<CONF
timeout 0
fallback \\vmlinuz.efi
options initrd=\\initrd.gz console=ttyS0 panic=-1 efiresume_marker=$marker${3:-}
CONF
}
