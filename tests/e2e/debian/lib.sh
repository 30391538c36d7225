# SPDX-License-Identifier: GPL-2.0-or-later
# efiresume end-to-end tests: helpers for the scripts the host sends to the Debian
# guest (bash; this file + the scenario's commands arrive as fw_cfg opt/efiresume/script).
# Every line the host checks is "EFIRESUME-TEST: ..." on ttyS0 (the agent's stdout).
T=/run/efiresume-test
IN=$T/in
say() { printf 'EFIRESUME-TEST: %s\n' "$*"; }

# efi_show: the boot variables as efibootmgr -v shows them, plus BootNext raw
efi_show() {
	efibootmgr -v 2>&1 | sed 's/^/EFIRESUME-TEST: efibootmgr: /'
	say "bootnext=$(deb_bootnext)"
	if [ -e /sys/firmware/efi/efivars/BootNext-8be4df61-93ca-11d2-aa0d-00e098032b8c ] &&
	   ! cat /sys/firmware/efi/efivars/BootNext-8be4df61-93ca-11d2-aa0d-00e098032b8c > /dev/null 2>&1; then
		say "efivarfs-stale: BootNext is listed but cannot be read (deleted by the firmware since this kernel mounted efivarfs)"
	fi
	say "bootorder=$(efibootmgr | sed -n 's/^BootOrder: //p')"
	say "bootcurrent=$(efibootmgr | sed -n 's/^BootCurrent: //p')"
}

# counter_start: a process that counts in tmpfs, ten times a second
counter_start() {
	# written aside and renamed: a reader never sees a file being rewritten (empty)
	( i=0; while :; do i=$((i + 1)); echo $i > $T/counter.new; mv $T/counter.new $T/counter; sleep 0.1; done ) &
	sleep 1
}

# hibernate_wait [TIMEOUT]: a token in tmpfs, `systemctl hibernate`, then wait until the
# sleep is over (the test sleep hook's "post", and systemd-hibernate.service no longer
# running, so every post hook has run). Prints hibernate-returned=yes|timeout.
hibernate_wait() {
	local tmo=${1:-300} n i s
	[ -f $T/token ] || head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > $T/token
	say "token=$(cat $T/token)"
	say "boot-id=$(cat /proc/sys/kernel/random/boot_id)"
	say "counter-before=$(cat $T/counter 2>/dev/null)"
	say "swap-before: $(swapon --show=NAME,SIZE,USED --noheadings | tr -s ' ' | paste -sd';')"
	touch $T/post
	n=$(wc -l < $T/post)
	sync
	say "hibernating"
	systemctl hibernate || { say "systemctl hibernate failed: status $?"; say "hibernate-returned=error"; return 1; }
	for i in $(seq $((tmo * 5))); do
		[ "$(wc -l < $T/post 2>/dev/null || echo 0)" -gt "$n" ] && break
		sleep 0.2
	done
	if [ "$(wc -l < $T/post 2>/dev/null || echo 0)" -le "$n" ]; then
		say "hibernate-returned=timeout"; return 1
	fi
	for i in $(seq 150); do
		s=$(systemctl show -p ActiveState --value systemd-hibernate.service)
		[ "$s" = activating ] || break
		sleep 0.2
	done
	say "hibernate-returned=yes"
	say "hibernate-service=$(systemctl show -p Result --value systemd-hibernate.service)"
}

# checks_resumed: what a resumed system must show (the host compares the values)
checks_resumed() {
	local a b
	say "token-after=$(cat $T/token 2>/dev/null || echo none)"
	say "boot-id-after=$(cat /proc/sys/kernel/random/boot_id)"
	a=$(cat $T/counter 2>/dev/null); sleep 1; b=$(cat $T/counter 2>/dev/null)
	say "counter-after=$a"
	say "counter-later=$b"
	if swapoff -a && swapon -a && [ -n "$(swapon --show=NAME --noheadings)" ]; then
		say "swap-reusable=yes"
	else
		say "swap-reusable=no"
	fi
	say "swap-after: $(swapon --show=NAME,SIZE,USED --noheadings | tr -s ' ' | paste -sd';')"
	if od -An -tx1 /sys/firmware/efi/efivars/BootOrder-8be4df61-93ca-11d2-aa0d-00e098032b8c > /dev/null; then
		say "efivars-read=yes"
	else
		say "efivars-read=no"
	fi
	say "kernel-resume: $(journalctl -k -b --no-pager 2>/dev/null | grep -E 'PM: (hibernation|Image|resume)|Restarting tasks' | tail -3 | paste -sd'|')"
}

# boot_times: where this boot's time went (systemd-analyze)
boot_times() {
	systemd-analyze 2>&1 | head -1 | sed 's/^/EFIRESUME-TEST: analyze: /'
	systemd-analyze blame 2>&1 | head -6 | sed 's/^ */EFIRESUME-TEST: blame: /'
}

# run CMD...: its output prefixed "EFIRESUME-TEST: NAME: ", then "NAME-status=N"
# (NAME: the command's base name)
run() {
	local n=${1##*/} rc
	"$@" > $T/run.out 2>&1; rc=$?
	sed "s/^/EFIRESUME-TEST: $n: /; s/efiresume: /efiresume-tool: /g" $T/run.out
	say "$n-status=$rc"
	return 0
}

# the efiresume entry ("Resume hibernated Linux"), empty when there is none
er_entry() {
	efibootmgr | sed -n 's/^Boot\([0-9A-F]\{4\}\)\*\{0,1\} Resume hibernated Linux.*/\1/p' | head -1
}

# what the efiresume sleep hook told the journal (its "efiresume: " renamed, so that the
# host's search for the firmware program's lines finds none of these)
er_journal() {
	journalctl -b --no-pager -o cat -t efiresume 2>&1 | sed 's/^/EFIRESUME-TEST: journal: /; s/efiresume: /efiresume-hook: /g'
}

# esp_show: the ESP's files and what the removable path holds
esp_show() {
	find /boot/efi -type f | sort | sed 's/^/EFIRESUME-TEST: esp: /'
	if [ -e /boot/efi/EFI/BOOT/BOOTX64.EFI ]; then
		if cmp -s /boot/efi/EFI/BOOT/BOOTX64.EFI /usr/lib/efiresume/efiresume-x64.efi; then
			say "removable=efiresume"
		else
			say "removable=other"
		fi
	else
		say "removable=none"
	fi
}

# deb_bootnext: BootNext as 4 hex digits, or "none". A resumed 6.1 kernel's efivarfs
# still lists a BootNext that existed before the hibernation although the firmware
# deleted it since (reading it fails): that is "none" too (efi_show tells it apart).
deb_bootnext() {
	local v
	v=$(cat /sys/firmware/efi/efivars/BootNext-8be4df61-93ca-11d2-aa0d-00e098032b8c 2>/dev/null |
		od -An -tx1 -j4 -N2 | tr -d ' \n' | tr a-f A-F)
	if [ ${#v} = 4 ]; then echo "${v:2:2}${v:0:2}"; else echo none; fi
}
