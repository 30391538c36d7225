# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC1007
# efiresume-install library, sourced by tools/efiresume-install: boot-clear: efiresume-clear.service deletes a stale EfiresumeLocation.

# boot-clear: efiresume-clear.service runs it early in every normal boot (not in a boot
# that resumes: a resumed kernel does not start userspace again). An EfiresumeLocation
# still there now was not used by efiresume (Esc at its passphrase prompt, a hibernation
# cut off before it wrote an image, a resume by another path that never ran the post hook):
# nothing can be resumed from it any more (the filesystems have moved on), and it would
# make efiresume ask for a passphrase on every boot. Like systemd-hibernate-clear.service
# for HibernateLocation. Quiet when there is none; status 1 only when it cannot be deleted.
cmd_boot_clear() {
	[ $# -eq 0 ] || { err "boot-clear takes no arguments"; usage >&2; exit 2; }
	local f loc
	f=$(var_path EfiresumeLocation "$ER_GUID")
	[ -e "$f" ] || return 0
	# efivarfs files cannot seek: read through a pipe; the first 4 bytes are the attributes
	loc=$(cat "$f" 2>/dev/null | tail -c +5 | tr -d '\0' | head -c 512 | tr -c '[:print:]' '?')
	var_delete EfiresumeLocation "$ER_GUID"
	[ -e "$f" ] && die "cannot delete the EFI variable EfiresumeLocation ($f)"
	say "deleted EfiresumeLocation (left over from a hibernation not resumed through efiresume)${loc:+: $loc}"
}
