# SPDX-License-Identifier: GPL-2.0-or-later
# A software TPM 2.0 (swtpm) for the e2e boots: one swtpm process per QEMU boot, its state
# (the TPM's NVRAM: seeds, persistent keys, NV indices, counters) in a directory that outlives
# the process. Like a real machine's TPM: each boot powers it on afresh (PCRs reset, the
# firmware measures again), and what was made persistent in one boot (systemd-cryptenroll's
# SRK at 0x81000001, the storage seed the sealed objects depend on) is there in the next.
# A fresh directory is another TPM (another storage seed: nothing sealed before unseals).
# Sourced (by tests/e2e/tpm.sh and any script that wants a TPM); the QEMU side is qemu.sh's
# tpm=SOCKET option (or QEMU_TPM=SOCKET in the environment).
#
#   swtpm_start DIR   starts `swtpm socket --tpm2` with its state in DIR (created; kept) and
#                     its control socket DIR/swtpm.sock; waits (up to 10 s) for the socket;
#                     sets SWTPM_SOCK (give it to QEMU as tpm=$SWTPM_SOCK) and SWTPM_PID.
#                     Its log: DIR/swtpm.log. swtpm exits by itself when QEMU disconnects
#                     (--terminate); swtpm_stop ends it otherwise.
#   swtpm_stop        stops the swtpm swtpm_start started (its pid only), waits for it
#   swtpm_boot DIR CMD [ARG...]   swtpm_start DIR; QEMU_TPM=$SWTPM_SOCK CMD ARG...; swtpm_stop;
#                     returns CMD's status (a boot of tests/lib's helpers with a TPM)

swtpm_start() {
	local dir=$1 i
	command -v swtpm >/dev/null || { echo "swtpm_start: swtpm missing (apt-get install swtpm; make deps)" >&2; return 1; }
	[ -z "${SWTPM_PID:-}" ] || swtpm_stop
	mkdir -p "$dir"
	SWTPM_SOCK=$dir/swtpm.sock
	rm -f "$SWTPM_SOCK" "$dir/swtpm.pid"
	swtpm socket --tpm2 --tpmstate "dir=$dir" --ctrl "type=unixio,path=$SWTPM_SOCK" \
		--terminate --log "file=$dir/swtpm.log,level=1" --pid "file=$dir/swtpm.pid" </dev/null &
	SWTPM_PID=$!
	for ((i = 0; i < 100; i++)); do
		[ -S "$SWTPM_SOCK" ] && return 0
		kill -0 "$SWTPM_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "swtpm_start: no socket $SWTPM_SOCK (swtpm log: $(tail -3 "$dir/swtpm.log" 2>/dev/null | paste -sd'|'))" >&2
	swtpm_stop
	return 1
}

swtpm_stop() {
	[ -n "${SWTPM_PID:-}" ] || return 0
	kill "$SWTPM_PID" 2>/dev/null || true
	wait "$SWTPM_PID" 2>/dev/null || true
	SWTPM_PID=
}

swtpm_boot() {
	local dir=$1 rc=0
	shift
	swtpm_start "$dir" || return 1
	QEMU_TPM=$SWTPM_SOCK "$@" || rc=$?
	swtpm_stop
	return $rc
}

# For the host tests that talk to a TPM directly (tpm2-tools, systemd-cryptenroll, our own
# drivers over TCTI "swtpm:host=127.0.0.1,port=PORT"), with no firmware in between:
#   swtpm_tcp_start DIR [PORT]   a swtpm on a free pair of 127.0.0.1 ports, or on PORT and
#                         PORT+1 when given (commands on PORT, control on PORT+1), powered on
#                         and started up (TPM2_Startup(CLEAR), which a firmware would otherwise
#                         send), its state in DIR (created), its log DIR.log; waits (up to 5 s)
#                         until it listens. Sets SWTPM_TCP_PORT and SWTPM_TCP_PID; returns 1
#                         when no pair is free (with PORT: PORT or PORT+1 is taken) or it does
#                         not start (DIR.log says why; a swtpm that started but does not listen
#                         is stopped, SWTPM_TCP_PID empty). The caller stops it (kill SWTPM_TCP_PID).
#   swtpm_tcp_up DIR WHAT for the host tests that count "ok:"/"FAIL:" lines (the caller defines
#                         ok, fail and finish): swtpm_tcp_start DIR, then ok "WHAT listens on
#                         127.0.0.1:PORT", or fail "WHAT did not start: (DIR.log)" and finish.
#   swtpm_tcp_tools DIR [PORT]   for a script's own throw-away TPM (tpm2-tools, systemd-cryptenroll):
#                         swtpm_tcp_start DIR [PORT] and TPM2TOOLS_TCTI exported
#                         (swtpm:host=127.0.0.1,port=PORT); else DIR.log on stderr, returns 1.
swtpm_tcp_start() {
	local dir=$1 want=${2:-} p try i
	SWTPM_TCP_PORT= SWTPM_TCP_PID=
	for try in $(seq 1 40); do
		p=${want:-$((20000 + RANDOM % 20000))}
		if ! (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null && ! (exec 3<>/dev/tcp/127.0.0.1/$((p + 1))) 2>/dev/null; then
			SWTPM_TCP_PORT=$p; break
		fi
		[ -z "$want" ] || break
	done
	[ -n "$SWTPM_TCP_PORT" ] || { echo "no free pair of ports${want:+ ($want, $((want + 1)))}" > "$dir.log"; return 1; }
	mkdir -p "$dir"
	swtpm socket --tpm2 --server type=tcp,port="$p",bindaddr=127.0.0.1 --ctrl type=tcp,port=$((p + 1)),bindaddr=127.0.0.1 \
		--flags not-need-init,startup-clear --tpmstate dir="$dir" >"$dir.log" 2>&1 </dev/null &
	SWTPM_TCP_PID=$!
	for i in $(seq 1 50); do
		(exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null && return 0
		sleep 0.1
	done
	{ kill "$SWTPM_TCP_PID" && wait "$SWTPM_TCP_PID"; } 2>/dev/null || true
	SWTPM_TCP_PID=
	return 1
}

swtpm_tcp_up() {
	if swtpm_tcp_start "$1"; then
		ok "$2 listens on 127.0.0.1:$SWTPM_TCP_PORT"
	else
		fail "$2 did not start: $(cat "$1.log")"; finish
	fi
}

swtpm_tcp_tools() {
	swtpm_tcp_start "$@" || { echo "swtpm did not start: $(cat "$1.log")" >&2; return 1; }
	export TPM2TOOLS_TCTI=swtpm:host=127.0.0.1,port=$SWTPM_TCP_PORT
}
