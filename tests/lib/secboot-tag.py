#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host-side reference of the kernel side of the Secure Boot contract v1 (what the
patched kernel does when it writes an image), for uncompressed images only: reads the
key from an OVMF VARS file (EfiresumeHibernationKey), walks the swap map of an image on
a disk, writes the auth block at offset 512 of the swap header page with the tag
HMAC-SHA256(K, "efiresume-swsusp" || auth[0:96] || image u64 || flags u32 || hw_sig u32 ||
crc32 u32 || every stored page in stream order).
  secboot-tag.py DISK SWAP_OFFSET VARS [KEY_SLOT_PHYS|auto]   prints the key id, the number of
  stream pages and the key page; auto: a page between 64 and 128 MiB that is not in the image
  (free in the hibernated kernel), for the key page of the contract"""
import hashlib, hmac, struct, sys


PG = 4096

def read_key(vars_path):
    blob = open(vars_path, "rb").read()
    key = None
    i = blob.find(b"\xaa\x55")
    while 0 <= i < len(blob) - 60:
        if blob[i:i + 2] != b"\xaa\x55":
            i = blob.find(b"\xaa\x55", i + 1)
            continue
        state = blob[i + 2]
        name_size, data_size = struct.unpack_from("<II", blob, i + 36)
        if name_size > 1024 or data_size > 1 << 20 or name_size % 2:
            i = blob.find(b"\xaa\x55", i + 1)
            continue
        name = blob[i + 60:i + 60 + name_size].decode("utf-16-le", "replace").rstrip("\0")
        if name == "EfiresumeHibernationKey" and state == 0x3F:
            key = blob[i + 60 + name_size:i + 60 + name_size + data_size]
        i = (i + 60 + name_size + data_size + 3) & ~3
    if key is None or len(key) != 32:
        sys.exit("no 32-byte EfiresumeHibernationKey in " + vars_path)
    return key

def main():
    disk, off, vars_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    slot_arg = sys.argv[4] if len(sys.argv) > 4 else "0"
    key = read_key(vars_path)
    f = open(disk, "r+b")
    def page(n):
        f.seek(off + n * PG)
        return f.read(PG)
    hdr = bytearray(page(0))
    assert hdr[4086:4095] == b"S1SUSPEND", "no image signature"
    first_map, = struct.unpack_from("<Q", hdr, 4064)
    flags, = struct.unpack_from("<I", hdr, 4072)
    assert flags & 2, "only uncompressed images (hibernate=nocompress) are tagged here"
    # the stream: every entry of the map chain, in order (header page, PFN pages, data)
    stream = []
    m = first_map
    while m:
        mp = page(m)
        ents = struct.unpack_from("<512Q", mp)
        stream += [e for e in ents[:511] if e]
        m = ents[511]
    if slot_arg == "auto":
        # the PFN pages follow the header page: 512 PFNs each, ~0 after the last
        pfns = set()
        for s in stream[1:]:
            words = struct.unpack_from("<512Q", page(s))
            done = False
            for w in words:
                if w == (1 << 64) - 1:
                    done = True
                    break
                pfns.add(w & ~(1 << 63))
            if done:
                break
        slot = next(p for p in range(0x6000, 0x8000) if p not in pfns and p + 1 not in pfns and p - 1 not in pfns) * PG
    else:
        slot = int(slot_arg, 0)
    key_id = hmac.new(key, b"efiresume key id", hashlib.sha256).digest()[:8]
    auth = bytearray(128)
    auth[0:8] = b"EFRHMAC1"
    struct.pack_into("<IIQ", auth, 8, 1, 0, slot)
    auth[24:32] = key_id
    auth[32:48] = hdr[1036:1052]
    struct.pack_into("<Q", auth, 48, 0)
    mac = hmac.new(key, b"efiresume-swsusp", hashlib.sha256)
    mac.update(bytes(auth[:96]))
    mac.update(bytes(hdr[4064:4072]) + bytes(hdr[4072:4076]) + bytes(hdr[4056:4060]) + bytes(hdr[4060:4064]))
    for s in stream:
        mac.update(page(s))
    auth[96:128] = mac.digest()
    hdr[512:640] = auth
    f.seek(off)
    f.write(hdr)
    f.close()
    print("%s %d 0x%x" % (key_id.hex(), len(stream), slot))

main()
