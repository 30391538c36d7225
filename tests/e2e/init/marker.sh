# SPDX-License-Identifier: GPL-2.0-or-later
# Boot check: print the command line and the marker it carries, then power off.
say "booted $(uname -r) $(uname -m)"
say "marker=$(arg efiresume_marker)"
say "cmdline: $(cat /proc/cmdline)"
poweroff -f
