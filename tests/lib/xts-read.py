#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Plaintext of a dm-crypt aes-xts-plain64 data segment (LUKS2), for the host checks of
tests/e2e/volumes.sh. The oracle is OpenSSL's AES-XTS (python3-cryptography); the volume
key comes from `cryptsetup luksDump --dump-volume-key`.

    xts-read.py FILE SEGMENT_OFFSET SECTOR_SIZE KEY_HEX START LENGTH > plaintext

START and LENGTH are bytes of the decrypted device (multiples of SECTOR_SIZE). plain64:
the IV of an encryption sector is its number in SECTOR_SIZE units (LUKS2 sets
iv_large_sectors), little-endian, padded to 16 bytes.
"""
import sys
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def main():
    path, seg, ssz, key, start, length = sys.argv[1:7]
    seg, ssz, start, length = int(seg), int(ssz), int(start), int(length)
    key = bytes.fromhex(key)
    if start % ssz or length % ssz:
        sys.exit("xts-read: START and LENGTH must be multiples of the sector size")
    out = sys.stdout.buffer
    with open(path, "rb") as f:
        f.seek(seg + start)
        for n in range(start // ssz, (start + length) // ssz):
            data = f.read(ssz)
            if len(data) != ssz:
                sys.exit("xts-read: short read")
            iv = n.to_bytes(16, "little")
            d = Cipher(algorithms.AES(key), modes.XTS(iv)).decryptor()
            out.write(d.update(data) + d.finalize())


main()
