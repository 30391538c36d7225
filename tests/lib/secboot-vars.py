#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Reads one variable's attributes and size from an OVMF variable store (the VARS .fd file),
without the firmware: edk2's authenticated variable format (VARIABLE_HEADER with StartId
0x55AA, State VAR_ADDED = 0x3F for the live copy). Prints "attrs=0x%x size=%d" of the live
record named NAME, or "absent".  secboot-vars.py VARS NAME [GUID]
  secboot-vars.py VARS NAME --hex      the live record's data in hex (or "absent")
  secboot-vars.py VARS NAME --set1 V   overwrite the live record's one data byte with V (in
                                       place; e.g. SecureBootEnable 0: Secure Boot off with the
                                       same keys enrolled)
Importable (tests/lib/keypull.py uses records()): main() runs only as a program."""
import struct, sys, uuid

def records(blob):
    # the variable store follows the firmware volume header; records are 4-byte aligned
    i = blob.find(b"\xaa\x55")
    while 0 <= i < len(blob) - 60:
        if blob[i:i + 2] != b"\xaa\x55":
            i = blob.find(b"\xaa\x55", i + 1)
            continue
        state, attrs = blob[i + 2], struct.unpack_from("<I", blob, i + 4)[0]
        # authenticated header: StartId(2) State(1) Rsvd(1) Attr(4) MonoCount(8) Time(16) PubKeyIdx(4) NameSize(4) DataSize(4) Guid(16)
        name_size, data_size = struct.unpack_from("<II", blob, i + 36)
        guid = uuid.UUID(bytes_le=bytes(blob[i + 44:i + 60]))
        if name_size > 1024 or data_size > 1 << 20 or name_size % 2:
            i = blob.find(b"\xaa\x55", i + 1)
            continue
        name = blob[i + 60:i + 60 + name_size].decode("utf-16-le", "replace").rstrip("\0")
        yield state, attrs, name, guid, data_size, i + 60 + name_size
        i = (i + 60 + name_size + data_size + 3) & ~3

def main():
    blob = open(sys.argv[1], "rb").read()
    want = sys.argv[2]
    if len(sys.argv) > 4 and sys.argv[3] == "--set1":
        live = [r for r in records(blob) if r[2] == want and r[0] == 0x3F and r[4] == 1]
        if not live:
            sys.exit("no live one-byte %s" % want)
        with open(sys.argv[1], "r+b") as f:
            f.seek(live[-1][5])
            f.write(bytes([int(sys.argv[4], 0)]))
        return
    if len(sys.argv) > 3 and sys.argv[3] == "--hex":
        live = [r for r in records(blob) if r[2] == want and r[0] == 0x3F]
        print(blob[live[-1][5]:live[-1][5] + live[-1][4]].hex() if live else "absent")
        return
    guid = uuid.UUID(sys.argv[3]) if len(sys.argv) > 3 else None
    live = [r for r in records(blob) if r[2] == want and r[0] == 0x3F and (guid is None or r[3] == guid)]
    if not live:
        print("absent")
    else:
        print("attrs=0x%x size=%d" % (live[-1][1], live[-1][4]))

if __name__ == "__main__":
    main()
