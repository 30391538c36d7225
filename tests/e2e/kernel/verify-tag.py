#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Recomputes the tag of contract v1 over an uncompressed (hibernate=nocompress) image
# on a swap partition, independently of the kernel: verify-tag.py DISK SWAP_BYTE_OFFSET KEYHEX
# Prints one "ok:"/"WRONG:" line per check; exit status 1 on any WRONG.
# Control: with --flip it alters one byte of the last data page before hashing (must fail).
import hashlib, hmac, struct, sys

disk, off, key = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
flip = '--flip' in sys.argv
f = open(disk, 'rb')
def page(n):
    f.seek(off + n * 4096)
    return f.read(4096)
bad = 0
def check(cond, what):
    global bad
    print(('  ok: ' if cond else '  WRONG: ') + what)
    bad |= not cond

hdr = page(0)
check(hdr[4086:4096].rstrip(b'\0') == b'S1SUSPEND', 'swap signature S1SUSPEND')
hw_sig, crc32, image, flags = struct.unpack_from('<IIQI', hdr, 4056)
auth = hdr[512:640]
check(auth[:8] == b'EFRHMAC1', 'auth block magic at offset 512')
version, aflags, slot = struct.unpack_from('<IIQ', auth, 8)
key_id, uuid = auth[24:32], auth[32:48]
resume_offset = struct.unpack_from('<Q', auth, 48)[0]
check(version == 1 and aflags == 0, 'version 1, flags 0')
check(slot != 0 and slot % 4096 == 0, 'key_slot_phys 0x%x page aligned' % slot)
check(key_id == hmac.new(key, b'efiresume key id', hashlib.sha256).digest()[:8], 'key_id ' + key_id.hex())
check(uuid == hdr[1036:1052], 'swap_uuid as in the swap header')
check(resume_offset == 0, 'resume_offset 0')
check(auth[56:96] == bytes(40), 'reserved zero')
check(flags & 2 != 0, 'uncompressed image (flags 0x%x)' % flags)

pages, n = [], image
while n:
    mp = page(n)
    pages += [e for e in struct.unpack_from('<511Q', mp) if e]
    n = struct.unpack_from('<Q', mp, 4088)[0]
info = page(pages[0])
check(struct.unpack_from('<Q', info, 424)[0] == len(pages), '%d stream pages = swsusp_info.pages' % len(pages))
m = hmac.new(key, digestmod=hashlib.sha256)
m.update(b'efiresume-swsusp')
m.update(auth[:96])
m.update(struct.pack('<QIII', image, flags, hw_sig, crc32))
for i, p in enumerate(pages):
    d = page(p)
    if flip and i == len(pages) - 1:
        d = bytes([d[0] ^ 1]) + d[1:]
    m.update(d)
check(hmac.compare_digest(m.digest(), auth[96:128]), 'tag ' + auth[96:128].hex())
sys.exit(1 if bad else 0)
