#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Common start of the test initramfs (busybox sh as /init).
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
say() { echo "EFIRESUME-TEST: $*" > /dev/console; }
arg() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
if [ -f /lib/modules/order ]; then
	for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko 2>/dev/null; done
fi
# wait for the virtio disk
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
