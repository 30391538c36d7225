# SPDX-License-Identifier: GPL-2.0-or-later
# Secure Boot check (tests/e2e/secboot.sh): the kernel started by efiresume under Secure
# Boot reports lockdown, and whether efiresume's key variable is visible (it must not be:
# it has no RUNTIME_ACCESS), then powers off.
say "booted $(uname -r) $(uname -m)"
say "marker=$(arg efiresume_marker)"
ev=/sys/firmware/efi/efivars
grep -q ' efivarfs ' /proc/filesystems || insmod /lib/modules/efivarfs.ko 2>/dev/null
grep -q " $ev " /proc/mounts || mount -t efivarfs none $ev
# efivarfs files: 4 bytes of attributes, then the data (SecureBoot: one byte)
sb=$(tail -c 1 $ev/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c 2>/dev/null | od -An -tu1 | tr -d ' ')
mount -t securityfs none /sys/kernel/security 2>/dev/null
say "secureboot=$sb lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null || echo unknown)"
say "efivars readable: $(ls $ev | wc -l) variables"
# the key variables must not be visible; EfiresumeKeyStore (volatile, BS|RT) only says which holds
# the key ("V3": sealed to the TPM, "V2": plain, "none") and is shown on a line of its own
say "efiresume variables visible: [$(ls $ev | grep -i '338ebdff-5bf8-4971-8760-45caada2d435' | grep -v '^EfiresumeKeyStore-' | tr '\n' ' ')]"
say "efiresume key store: [$(tail -c +5 $ev/EfiresumeKeyStore-338ebdff-5bf8-4971-8760-45caada2d435 2>/dev/null)]"
# efiresume_try_hibernate=1: the baseline of an unpatched kernel (secboot.sh baseline*):
# what /sys/power offers, then a real attempt to hibernate to the swap partition
if [ "$(arg efiresume_try_hibernate)" = 1 ]; then
	say "power-disk=[$(cat /sys/power/disk)] power-state=[$(cat /sys/power/state)]"
	mkswap /dev/vda2 > /dev/null && swapon /dev/vda2 || say "swap: failed"
	cat /sys/class/block/vda2/dev > /sys/power/resume 2>/dev/null || say "resume device: write refused"
	echo shutdown > /sys/power/disk 2>/dev/null || say "disk mode: write refused"
	if err=$(echo disk 2>&1 > /sys/power/state); then
		say "hibernate: returned"
	else
		say "hibernate: refused (${err##*: })"
	fi
fi
poweroff -f
