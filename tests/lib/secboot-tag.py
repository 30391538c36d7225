#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Host-side reference of the kernel side of the Secure Boot contract v2
(kernel-patch/6.12/README, "The contract (v2)"), for uncompressed images: reads the key
from an OVMF VARS file (EfiresumeHibernationKey), walks the swap map of an image on a
disk, encrypts every stream page in place with AES-256-GCM (python3-cryptography, keys by
HKDF-SHA256), adds a tag page after every 256 pages (on free pages of the swap area, found
from the swap header's last_page), writes a new map chain listing them, and writes the
auth block v2 with the final HMAC at offset 512 of the swap header page.
  secboot-tag.py DISK SWAP_OFFSET VARS [KEY_SLOT_PHYS|auto]   prints the key id, the number of
  stream pages and the key page; auto: a page between 96 and 128 MiB that is not in the image
  (free in the hibernated kernel), for the key page of the contract"""
import hashlib, hmac, os, struct, sys
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes


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
    def hkdf(salt, info):
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(key)
    key_id = hmac.new(key, b"efiresume key id", hashlib.sha256).digest()[:8]
    salt = os.urandom(32)
    n = len(stream)
    aes = AESGCM(hkdf(salt, b"efiresume v2 aes-256-gcm"))
    k_mac = hkdf(salt, b"efiresume v2 hmac-sha256")
    # free pages of the swap area for the tag pages and the new map chain, from its end
    last_page, = struct.unpack_from("<I", hdr, 1028)
    old_maps = []
    m = first_map
    while m:
        old_maps.append(m)
        m = struct.unpack_from("<Q", page(m), 511 * 8)[0]
    used = set(stream) | set(old_maps) | {0}
    free = (p for p in range(last_page, 0, -1) if p not in used)
    groups = (n + 255) // 256
    stored = []
    tags = []
    for i, s_page in enumerate(stream):
        ct = aes.encrypt(struct.pack("<QI", i, 0), page(s_page), None)
        f.seek(off + s_page * PG)
        f.write(ct[:PG])
        tags.append(ct[PG:])
        stored.append(s_page)
        if (i + 1) % 256 == 0 or i + 1 == n:
            tp = next(free)
            blob = b"".join(tags[len(tags) - ((i % 256) + 1):])
            f.seek(off + tp * PG)
            f.write(blob + bytes(PG - len(blob)))
            stored.append(tp)
    assert len(stored) == n + groups
    nmaps = (len(stored) + 510) // 511
    maps = [next(free) for _ in range(nmaps)]
    for mi, mp in enumerate(maps):
        ents = stored[mi * 511:(mi + 1) * 511]
        data = struct.pack("<%dQ" % len(ents), *ents) + bytes(8 * (511 - len(ents)))
        data += struct.pack("<Q", maps[mi + 1] if mi + 1 < nmaps else 0)
        f.seek(off + mp * PG)
        f.write(data)
    struct.pack_into("<Q", hdr, 4064, maps[0])
    auth = bytearray(128)
    auth[0:8] = b"EFRHMAC1"
    struct.pack_into("<IIQ", auth, 8, 2, 0, slot)
    auth[24:32] = key_id
    auth[32:48] = hdr[1036:1052]
    struct.pack_into("<Q", auth, 48, 0)
    auth[56:88] = salt
    struct.pack_into("<Q", auth, 88, n)
    mac = hmac.new(k_mac, b"efiresume-swsusp", hashlib.sha256)
    for t in tags:
        mac.update(t)
    mac.update(bytes(auth[:96]))
    mac.update(bytes(hdr[4064:4072]) + bytes(hdr[4072:4076]) + bytes(hdr[4056:4060]) + bytes(hdr[4060:4064]))
    auth[96:128] = mac.digest()
    hdr[512:640] = auth
    f.seek(off)
    f.write(hdr)
    f.close()
    print("%s %d 0x%x" % (key_id.hex(), n, slot))

main()
