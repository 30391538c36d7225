#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""flip-compressed.py DISK SWAP_OFFSET lzo|lz4: in a compressed hibernation image (the swap area at
byte SWAP_OFFSET of DISK), one byte of the last page of a chunk is changed in the uncompressed
data, the chunk recompressed in place (liblzo2 / liblz4 through ctypes) and the header's CRC32
recomputed over the whole body, so that only the Secure Boot tag can tell (tests/e2e/kernel-cycle.sh).
The CRC over the body as found must equal the header's first (else the reading is wrong)."""
import ctypes, struct, sys, zlib
disk, off, comp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
f = open(disk, "r+b")
def rd(n): f.seek(off + n * 4096); return f.read(4096)
def wr(n, b): f.seek(off + n * 4096); f.write(b)
hdr = rd(0)
crc_old = struct.unpack_from("<I", hdr, 4060)[0]
m = struct.unpack_from("<Q", hdr, 4064)[0]
pages = []
while m:
    e = struct.unpack_from("<512Q", rd(m)); pages += [x for x in e[:511] if x]; m = e[511]
if comp == "lzo":
    lib = ctypes.CDLL("liblzo2.so.2")
    def dec(c):
        out = ctypes.create_string_buffer(131072); n = ctypes.c_size_t(131072)
        assert lib.lzo1x_decompress_safe(c, ctypes.c_size_t(len(c)), out, ctypes.byref(n), None) == 0
        return out.raw[:n.value]
    def enc(u):
        out = ctypes.create_string_buffer(len(u) + len(u) // 16 + 64 + 3); n = ctypes.c_size_t(0)
        wrk = ctypes.create_string_buffer(1 << 18)
        assert lib.lzo1x_1_compress(u, ctypes.c_size_t(len(u)), out, ctypes.byref(n), wrk) == 0
        return out.raw[:n.value]
else:
    lib = ctypes.CDLL("liblz4.so.1")
    def dec(c):
        out = ctypes.create_string_buffer(131072)
        n = lib.LZ4_decompress_safe(c, out, len(c), 131072); assert n > 0
        return out.raw[:n]
    def enc(u):
        out = ctypes.create_string_buffer(lib.LZ4_compressBound(len(u)))
        n = lib.LZ4_compress_default(u, out, len(u), len(out)); assert n > 0
        return out.raw[:n]
# the body: chunks from stream page 1 (page 0 of the stream is the swsusp_info page)
chunks = []   # (first stream index, stored pages, uncompressed)
s = 1
while s < len(pages):
    p = rd(pages[s]); cl = struct.unpack_from("<Q", p)[0]
    st = (8 + cl + 4095) // 4096
    raw = b"".join(rd(pages[s + i]) for i in range(st))
    chunks.append((s, st, dec(raw[8:8 + cl]))); s += st
def crc(chs):
    c = 0xFFFFFFFF
    for ch in chs: c = zlib.crc32(ch[2], c)
    return ~c & 0xFFFFFFFF
c0 = crc(chunks)
assert c0 == crc_old, "CRC over the decompressed body 0x%08x, header 0x%08x" % (c0, crc_old)
# flip one byte of the last page of a chunk whose new compressed form fits its pages
for k in range(len(chunks) - 1, -1, -1):
    s, st, u = chunks[k]
    at = len(u) - 4096 + 1000
    u2 = u[:at] + bytes([u[at] ^ 1]) + u[at + 1:]
    c2 = enc(u2)
    if (8 + len(c2) + 4095) // 4096 <= st and dec(c2) == u2:
        break
else:
    sys.exit("no chunk could be recompressed in place")
blob = struct.pack("<Q", len(c2)) + c2
blob += bytes(st * 4096 - len(blob))
for i in range(st):
    wr(pages[s + i], blob[i * 4096:(i + 1) * 4096])
chunks[k] = (s, st, u2)
c1 = crc(chunks)
h = bytearray(hdr); struct.pack_into("<I", h, 4060, c1); wr(0, bytes(h))
print("chunk %d of %d (stream page %d): byte %d of its uncompressed data flipped, %s recompressed (%d bytes), CRC32 0x%08x -> 0x%08x" %
      (k, len(chunks), s, at, comp, len(c2), c0, c1))
