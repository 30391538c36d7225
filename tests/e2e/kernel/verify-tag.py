#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""verify-tag.py DISK SWAP_BYTE_OFFSET KEYHEX [--flip|--swap|--truncate] [--out FILE] [--keyid]

The independent oracle of contract v2 (kernel-patch/6.12/README, "The contract (v2)"),
written from the contract with python3-cryptography, not from the kernel's code: reads the
hibernation image on the swap area at byte SWAP_BYTE_OFFSET of DISK, checks the auth block,
derives K_enc and K_mac (HKDF-SHA256 with the auth block's salt), checks that the swap map
lists exactly n + ceil(n/256) pages, decrypts every stream page with AES-256-GCM
(IV = le64(i) || le32(0), no AAD; its tag T_i taken from the tag page of its group), and
recomputes the final HMAC over "efiresume-swsusp" || T_0..T_n-1 || auth[0..96) || image ||
flags || hw_sig || crc32. The decrypted swsusp_info page must have size = pages * 4096,
and for an uncompressed image pages = n. Prints one "ok:"/"WRONG:" line per check; exit status 1 on any WRONG.
--out FILE writes the decrypted stream there.

Controls (each must make it FAIL; they show the checks can fail):
  --flip      one ciphertext byte of the last stream page flipped (its GCM tag must refuse)
  --swap      stream pages 1 and 2 read in each other's place (the IV binds the position)
  --truncate  enc_pages read as n - 1 (the map length and the final HMAC must refuse)
--keyid prints only the key id (hex) of KEYHEX, for the test to grep the kernel log for it.
"""
import hashlib, hmac, struct, sys
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

args = [a for a in sys.argv[1:] if not a.startswith('--')]
opts = [a for a in sys.argv[1:] if a.startswith('--')]
out = None
if '--out' in sys.argv:
    out = sys.argv[sys.argv.index('--out') + 1]
    args.remove(out)
if '--keyid' in opts:
    key = bytes.fromhex(args[-1])
    print(hmac.new(key, b'efiresume key id', hashlib.sha256).digest()[:8].hex())
    sys.exit(0)
disk, off, key = args[0], int(args[1]), bytes.fromhex(args[2])
flip, swap, truncate = '--flip' in opts, '--swap' in opts, '--truncate' in opts
assert len(key) == 32
f = open(disk, 'rb')


def page(n):
    f.seek(off + n * 4096)
    d = f.read(4096)
    assert len(d) == 4096, 'page %d beyond the disk' % n
    return d


bad = 0


def check(cond, what):
    global bad
    print(('  ok: ' if cond else '  WRONG: ') + what)
    bad |= not cond
    return cond


hdr = page(0)
check(hdr[4086:4096].rstrip(b'\0') == b'S1SUSPEND', 'swap signature S1SUSPEND')
hw_sig, crc32, image, flags = struct.unpack_from('<IIQI', hdr, 4056)
auth = bytearray(hdr[512:640])
if truncate:
    n_real = struct.unpack_from('<Q', auth, 88)[0]
    struct.pack_into('<Q', auth, 88, n_real - 1)
    print('  control: enc_pages read as %d instead of %d' % (n_real - 1, n_real))
auth = bytes(auth)
if not check(auth[:8] == b'EFRHMAC1', 'auth block magic at offset 512'):
    sys.exit(1)
version, aflags, slot = struct.unpack_from('<IIQ', auth, 8)
key_id, uuid = auth[24:32], auth[32:48]
resume_offset = struct.unpack_from('<Q', auth, 48)[0]
salt = auth[56:88]
n = struct.unpack_from('<Q', auth, 88)[0]
check(version == 2, 'version 2 (%d)' % version)
check(aflags == 0, 'flags 0')
check(slot != 0 and slot % 4096 == 0, 'key_slot_phys 0x%x page aligned' % slot)
check(key_id == hmac.new(key, b'efiresume key id', hashlib.sha256).digest()[:8], 'key_id matches the key')
check(uuid == hdr[1036:1052], 'swap_uuid as in the swap header')
check(resume_offset == 0, 'resume_offset 0')
check(salt != bytes(32), 'salt not zero')
check(n > 0, 'enc_pages n = %d' % n)


def hkdf(info):
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=info).derive(key)


k_enc = hkdf(b'efiresume v2 aes-256-gcm')
k_mac = hkdf(b'efiresume v2 hmac-sha256')
# the same from RFC 5869's two steps, by hand (the contract's text)
prk = hmac.new(salt, key, hashlib.sha256).digest()
assert k_enc == hmac.new(prk, b'efiresume v2 aes-256-gcm\x01', hashlib.sha256).digest()
assert k_mac == hmac.new(prk, b'efiresume v2 hmac-sha256\x01', hashlib.sha256).digest()

# the swap map: 511 sector numbers and the next map page's
stored, m, maps = [], image, 0
while m:
    mp = page(m)
    e = struct.unpack_from('<512Q', mp)
    stored += [x for x in e[:511] if x]
    m = e[511]
    maps += 1
groups = (n + 255) // 256
check(len(stored) == n + groups,
      'the map lists %d pages = n + ceil(n/256) = %d + %d (%d map pages)' % (len(stored), n, groups, maps))
if len(stored) < n + groups:
    print('  (map too short: checking what it lists)')

def pos_page(i):
    return i + i // 256


def pos_tag(g):
    return 257 * g + min(256, n - 256 * g)


gcm = AESGCM(k_enc)
mac = hmac.new(k_mac, b'efiresume-swsusp', hashlib.sha256)
plain = open(out, 'wb') if out else None
gcm_bad, tail_bad, first = 0, 0, None
tagpages = {}
for i in range(n):
    g = i // 256
    if pos_tag(g) >= len(stored) or pos_page(i) >= len(stored):
        check(False, 'stream page %d or its tag page is not in the map' % i)
        break
    if g not in tagpages:
        tp = page(stored[pos_tag(g)])
        tagpages = {g: tp}
        used = min(256, n - 256 * g)
        if tp[used * 16:] != bytes(4096 - used * 16):
            tail_bad += 1
    t = tagpages[g][(i % 256) * 16:(i % 256) * 16 + 16]
    j = i
    if swap and i in (1, 2):
        j = 3 - i
    c = page(stored[pos_page(j)])
    if flip and i == n - 1:
        c = bytes([c[0] ^ 1]) + c[1:]
    try:
        p = gcm.decrypt(struct.pack('<QI', i, 0), c + t, None)
    except InvalidTag:
        if gcm_bad < 5:
            print('  WRONG: GCM tag of stream page %d (stored at %d)' % (i, pos_page(j)))
        gcm_bad += 1
        p = None
    if i == 0:
        first = p
    if plain and p is not None:
        plain.write(p)
    mac.update(t)
check(gcm_bad == 0, 'every GCM tag verifies (%d of %d refused)' % (gcm_bad, n))
check(tail_bad == 0, 'tag pages zero after their last tag')
mac.update(auth[:96])
mac.update(struct.pack('<QIII', image, flags, hw_sig, crc32))
check(hmac.compare_digest(mac.digest(), auth[96:128]), 'final HMAC (tag ' + auth[96:128].hex()[:16] + '...)')
if first is not None:
    # struct swsusp_info (its start is the arch header on x86): pages at 424, size at 432
    pages, size = struct.unpack_from('<QQ', first, 424)
    check(pages > 0 and size == pages * 4096, 'decrypted swsusp_info: size = pages * 4096 (%d pages)' % pages)
    if flags & 2:   # SF_NOCOMPRESS_MODE: n = swsusp_info.pages
        check(pages == n, 'uncompressed: swsusp_info.pages = %d = n' % pages)
sys.exit(1 if bad else 0)
