# SPDX-License-Identifier: GPL-2.0-or-later
# The unpatched kernel of tests/e2e/secboot-keypull.sh: prints the marker, then waits (the
# host dumps the guest's memory while it does; the host ends the run).
say "booted $(uname -r) $(uname -m)"
say "marker=$(arg efiresume_marker)"
say "keypull: waiting for the memory dump"
while :; do sleep 3600; done
