# SPDX-License-Identifier: GPL-2.0-or-later
# The one QEMU command line of the e2e tests (sourced by harness.sh). Every boot of every
# script is built here from named options, so a new case says only what differs.
#
#   qemu_argv OPTION... [-- QEMU-ARG...]    sets the array QEMU_ARGV (the binary first)
#   qemu_run LOG TIMEOUT OPTION... [-- QEMU-ARG...]
#                     one boot: QEMU_ARGV under `timeout --foreground -k 5 TIMEOUT`, stdin
#                     /dev/null, LOG emptied first; returns QEMU's status (124: timeout).
#                     QEMU_STOP_AT=ERE: the run ends 3 s after LOG first matches ERE.
#   qemu_run_typed LOG TIMEOUT TYPIST OPTION... [-- QEMU-ARG...]
#                     the same with the serial console on a pipe pair (LOG.ser.in/.out):
#                     what the guest prints is logged in LOG as it comes, and TYPIST (a
#                     command, "" for none) runs in the background as `TYPIST LOG` with its
#                     standard output typed into the console (fd 7 is the console too);
#                     it is stopped when QEMU has exited.
#   ovmf_code ARCH [plain|secboot]   the firmware code file
#
# OPTIONs (NAME=VALUE; the defaults in brackets):
#   arch=x64|ia32     qemu-system-x86_64 or qemu-system-i386 [x64]
#   fw=plain|secboot  OVMF build [x64: plain, ia32: secboot (the only OVMF32 build)]; secboot
#                     adds SMM and the secure pflash (-machine q35,smm=on -global ...)
#   code=FILE         another firmware code file (replaces fw's)
#   vars=FILE         the variable store (a private copy; written by the firmware)
#   mem=MIB [512]  smp=N [1]  accel=A [QEMU_ACCEL or tcg: e.g. tcg,thread=single]
#   cpu=MODEL         [x64: QEMU_CPU_X64 or qemu64,-cx16 (QEMU 7.2's TCG corrupts RFLAGS after
#                     cmpxchg16b; 6.12 kernels crash early); ia32: none]; cpu= none; no -cpu
#                     from here when the QEMU-ARGs have one
#   disk=FILE         a raw virtio disk (again for more); QEMU_DRIVE (words) replaces them all,
#                     e.g. a blkdebug drive that injects I/O errors, or a second disk
#   serial=file|pipe:PATH|stdio|none [file: -serial file:LOG, LOG given by log=]; QEMU_SERIAL
#                     (words) replaces it, e.g. a socket chardev another program drives
#   log=FILE          the serial log of serial=file (qemu_run gives its LOG)
#   debug_exit=1      isa-debug-exit at 0xf4 (the test guests' exit code)
#   rng=1             virtio-rng-pci (EFI_RNG_PROTOCOL)
#   fwcfg=NAME=FILE   fw_cfg file opt/efiresume/NAME (again for more)
#   qmp=SOCKET        a QMP server on a unix socket (no wait)
#   tpm=SOCKET        a TPM 2.0: swtpm's control socket (tests/lib/swtpm.sh starts one), on
#                     the TIS interface (tpm-tis); QEMU_TPM=SOCKET in the environment is the
#                     default, so the helpers that build their own options get one too
# The order of the command line: binary, -machine, -global, -accel, -cpu, -m, -smp, the
# firmware, the disks, -nic none, the serial port, -display none -monitor none -no-reboot,
# isa-debug-exit, virtio-rng-pci, the TPM, fw_cfg, -qmp, then the QEMU-ARGs.
#
# EFIRESUME_QEMU_ECHO=1: every boot prints its command line (one line, shell-quoted, on
# stderr, "qemu-argv: ..."); EFIRESUME_QEMU_ECHO=only: prints it and does not run QEMU
# (status 0), to compare command lines without booting.

ovmf_code() {
	case $1/${2:-} in
	x64/|x64/plain) echo /usr/share/OVMF/OVMF_CODE_4M.fd ;;
	x64/secboot) echo /usr/share/OVMF/OVMF_CODE_4M.secboot.fd ;;
	ia32/*) echo /usr/share/OVMF/OVMF32_CODE_4M.secboot.fd ;;
	esac
}

qemu_argv() {
	local arch=x64 fw='' code='' vars='' mem=512 smp=1 accel=${QEMU_ACCEL:-tcg} cpu=auto serial=file log=''
	local debug_exit='' rng='' qmp='' tpm=${QEMU_TPM:-} o d
	local -a disks=() fwcfg=() extra=()
	while [ $# -gt 0 ]; do
		o=$1
		shift
		case $o in
		--) extra=("$@"); break ;;
		disk=*) disks+=("${o#disk=}") ;;
		fwcfg=*=*) fwcfg+=("${o#fwcfg=}") ;;
		arch=*|fw=*|code=*|vars=*|mem=*|smp=*|accel=*|cpu=*|serial=*|log=*|debug_exit=*|rng=*|qmp=*|tpm=*)
			printf -v "${o%%=*}" '%s' "${o#*=}" ;;
		*) echo "qemu_argv: unknown option '$o'" >&2; return 2 ;;
		esac
	done
	[ -n "$vars" ] || { echo "qemu_argv: no vars=" >&2; return 2; }
	case $arch in
	x64) QEMU_ARGV=(qemu-system-x86_64); fw=${fw:-plain} ;;
	ia32) QEMU_ARGV=(qemu-system-i386); fw=secboot ;;
	*) echo "qemu_argv: arch=$arch: x64 or ia32" >&2; return 2 ;;
	esac
	code=${code:-$(ovmf_code "$arch" "$fw")}
	case $fw in
	plain) QEMU_ARGV+=(-machine q35) ;;
	secboot) QEMU_ARGV+=(-machine 'q35,smm=on' -global 'driver=cfi.pflash01,property=secure,value=on') ;;
	*) echo "qemu_argv: fw=$fw: plain or secboot" >&2; return 2 ;;
	esac
	QEMU_ARGV+=(-accel "$accel")
	if [ "$cpu" = auto ]; then
		case $arch in x64) cpu=${QEMU_CPU_X64:-qemu64,-cx16} ;; *) cpu= ;; esac
	fi
	[[ " ${extra[*]} " == *" -cpu "* ]] && cpu=
	[ -z "$cpu" ] || QEMU_ARGV+=(-cpu "$cpu")
	QEMU_ARGV+=(-m "$mem" -smp "$smp"
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$code"
		-drive "if=pflash,format=raw,unit=1,file=$vars")
	if [ ${#disks[@]} -gt 0 ] && [ -n "${QEMU_DRIVE:-}" ]; then
		# shellcheck disable=SC2206  # QEMU_DRIVE is words
		QEMU_ARGV+=($QEMU_DRIVE)
	else
		for d in "${disks[@]}"; do QEMU_ARGV+=(-drive "file=$d,format=raw,if=virtio,cache=unsafe"); done
	fi
	QEMU_ARGV+=(-nic none)
	if [ -n "${QEMU_SERIAL:-}" ]; then
		# shellcheck disable=SC2206  # QEMU_SERIAL is words
		QEMU_ARGV+=($QEMU_SERIAL)
	else
		case $serial in
		file) [ -n "$log" ] || { echo "qemu_argv: serial=file without log=" >&2; return 2; }
		      QEMU_ARGV+=(-serial "file:$log") ;;
		pipe:*) QEMU_ARGV+=(-chardev "pipe,id=ser0,path=${serial#pipe:}" -serial chardev:ser0) ;;
		stdio) QEMU_ARGV+=(-serial stdio) ;;
		none) QEMU_ARGV+=(-serial none) ;;
		*) echo "qemu_argv: serial=$serial" >&2; return 2 ;;
		esac
	fi
	QEMU_ARGV+=(-display none -monitor none -no-reboot)
	[ -z "$debug_exit" ] || QEMU_ARGV+=(-device 'isa-debug-exit,iobase=0xf4,iosize=0x04')
	[ -z "$rng" ] || QEMU_ARGV+=(-device virtio-rng-pci)
	[ -z "$tpm" ] || QEMU_ARGV+=(-chardev "socket,id=chrtpm,path=$tpm" -tpmdev emulator,id=tpm0,chardev=chrtpm
		-device tpm-tis,tpmdev=tpm0)
	for o in "${fwcfg[@]}"; do QEMU_ARGV+=(-fw_cfg "name=opt/efiresume/${o%%=*},file=${o#*=}"); done
	[ -z "$qmp" ] || QEMU_ARGV+=(-qmp "unix:$qmp,server=on,wait=off")
	QEMU_ARGV+=("${extra[@]}")
}

qemu_run() {
	local log=$1 tmo=$2
	shift 2
	qemu_argv log="$log" "$@" || return
	: > "$log"
	if [ -n "${EFIRESUME_QEMU_ECHO:-}" ]; then
		{ printf 'qemu-argv:'; printf ' %q' "${QEMU_ARGV[@]}"; echo; } >&2
		[ "$EFIRESUME_QEMU_ECHO" != only ] || return 0
	fi
	qemu_stop_at_run "$log" timeout --foreground -k 5 "$tmo" "${QEMU_ARGV[@]}"
}

qemu_run_typed() {
	local log=$1 tmo=$2 typist=$3 rc=0 catpid tpid=
	shift 3
	rm -f "$log.ser.in" "$log.ser.out"
	mkfifo "$log.ser.in" "$log.ser.out"
	: > "$log"
	cat "$log.ser.out" > "$log" &
	catpid=$!
	exec 7<>"$log.ser.in"
	if [ -n "$typist" ]; then
		$typist "$log" >&7 &
		tpid=$!
	fi
	qemu_run "$log" "$tmo" serial="pipe:$log.ser" "$@" || rc=$?
	[ "${EFIRESUME_QEMU_ECHO:-}" != only ] || : > "$log.ser.out"   # no QEMU: end the cat
	[ -z "$tpid" ] || { kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null; } || true
	wait $catpid || true
	exec 7>&-
	rm -f "$log.ser.in" "$log.ser.out"
	return $rc
}

# qemu_stop_at_run LOG timeout ... qemu ...: runs the command (stdin /dev/null) and returns its
# status. With QEMU_STOP_AT=ERE the run ends 3 s after LOG first matches ERE (SIGTERM to QEMU,
# the child of timeout: status 0 or 143, never 124), for a case whose proof is a refusal after
# which the firmware only waits in its menu until the timeout.
qemu_stop_at_run() {
	local log=$1 rc=0 tpid wpid i
	shift
	# without QEMU_STOP_AT: in the foreground, as always
	[ -n "${QEMU_STOP_AT:-}" ] || { "$@" </dev/null; return; }
	"$@" </dev/null &
	tpid=$!
	(
		for ((i = 0; i < 1200; i++)); do
			sleep 1
			if grep -aqE -- "$QEMU_STOP_AT" "$log" 2>/dev/null; then
				sleep 3
				echo "  (stopped 3 s after /$QEMU_STOP_AT/)" >&2
				pkill -TERM -P "$tpid" || true
				exit 0
			fi
		done
	) &
	wpid=$!
	wait "$tpid" || rc=$?
	{ kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null; } || true
	return $rc
}
