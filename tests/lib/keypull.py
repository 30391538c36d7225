#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The memory side of tests/e2e/secboot-keypull.sh.

  keypull.py watch SERIAL-SOCK QMP-SOCK LOG ERE=OUT [ERE=OUT...]
                                the guest's serial console on QEMU's socket chardev SERIAL-SOCK
                                (server, wait=on: QEMU starts the guest once this connects) is
                                copied into LOG; when it first matches an ERE (in order, each
                                after the previous one), the guest is stopped at once over QMP
                                (QMP-SOCK) and all of its RAM dumped (dump-guest-memory, paging
                                off: every RAM block, above 4 GiB too, as an ELF core whose
                                PT_LOAD segments carry the guest-physical addresses) into OUT;
                                then the guest goes on, or after the last one QEMU quits. Exit 0
                                when every dump was made, 2 when the console closed first
  keypull.py search DUMP VARS [SERIAL-LOG]
                                every value EfiresumeHibernationKey (vendor 338ebdff-...) holds
                                or held in the VARS file after the run: the live record (K) and
                                the deleted ones still in the store (earlier keys: another run of
                                efiresume in the same boot, a key rotated). Each key's 32 bytes
                                searched in the dump, each place with its guest-physical address
                                and what lies around it:
                                  table   16 bytes after a key table's "EFRK" header (the table
                                          efiresume hands over, contract v1 or v2)
                                  commbuf in the firmware's SMM variable communication buffer
                                          (gEfiSmmVariableProtocolGuid at most 160 bytes before:
                                          what a GetVariable/SetVariable carried, left there;
                                          EfiRuntimeServicesData, which the OS keeps and maps)
                                  varrec  right after the UTF-16 name EfiresumeHibernationKey:
                                          the data of a variable record, i.e. a copy of the
                                          firmware's variable store (its runtime cache)
                                  other   anywhere else (a buffer, a stack, a pool)
                                and every key table header ("EFRK", version 1 or 2, size 64),
                                whatever key it holds. With SERIAL-LOG (a kernel booted with
                                efi=debug), the EFI memory type of each address from the map the
                                kernel printed. Last lines:
                                  KEY live|deleted HEX8 found=N
                                  RESULT keys=N k=N table=N commbuf=N varrec=N other=N old=N
                                         oldvarrec=N efrk=N efrk_with_k=N
                                (k, table, commbuf, varrec, other: the live key K; old: places of deleted
                                keys, oldvarrec: those in variable records; efrk_with_k: headers
                                whose key field holds any of them)
"""
import importlib.util, json, os, re, socket, struct, sys, time, uuid

sys.dont_write_bytecode = True   # secboot-vars.py is loaded from the tree: no __pycache__ there

# the key variables: contract v2's, and v1's (an older efiresume: the controls)
KEY_VARS = ("EfiresumeHibernationKeyV2", "EfiresumeHibernationKey")
NAMES = [(n + "\0").encode("utf-16-le") for n in KEY_VARS]
VENDOR = uuid.UUID("338ebdff-5bf8-4971-8760-45caada2d435")
# gEfiSmmVariableProtocolGuid: the SMM_COMMUNICATE_HEADER of edk2's variable calls
# (VariableSmmRuntimeDxe: GetVariable/SetVariable copy the name and the data into one buffer of
# EfiRuntimeServicesData, which the OS keeps, and pass it to SMM)
SMM_VARIABLE_GUID = uuid.UUID("ed32d533-99e6-4209-9cc0-2d72cdd998a7").bytes_le


def store_keys(vars_path):
    """[(state, key)]: every 32-byte EfiresumeHibernationKey record of the store in its order,
    "live" (VAR_ADDED, 0x3F) or "deleted" (any other state), each value once."""
    spec = importlib.util.spec_from_file_location(
        "secboot_vars", os.path.join(os.path.dirname(os.path.abspath(__file__)), "secboot-vars.py"))
    sv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sv)
    blob = open(vars_path, "rb").read()
    keys, seen = [], set()
    for state, _, name, guid, size, off in sv.records(blob):
        if name not in KEY_VARS or guid != VENDOR or size != 32:
            continue
        k = bytes(blob[off:off + 32])
        keys.append(("live" if state == 0x3F else "deleted", k))
    # a value both deleted and live counts as live; each value once
    live = {k for st, k in keys if st == "live"}
    out = []
    for st, k in keys:
        if k in seen:
            continue
        seen.add(k)
        out.append(("live" if k in live else "deleted", k))
    return out


class Qmp:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(300)
        self.s.connect(path)
        self.f = self.s.makefile("rwb")
        json.loads(self.f.readline())     # the greeting
        self.cmd("qmp_capabilities")

    def cmd(self, execute, **args):
        msg = {"execute": execute}
        if args:
            msg["arguments"] = args
        self.f.write(json.dumps(msg).encode() + b"\n")
        self.f.flush()
        while True:
            line = self.f.readline()
            if not line:
                if execute == "quit":
                    return None
                raise SystemExit("keypull: QMP closed during %s" % execute)
            r = json.loads(line)
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise SystemExit("keypull: QMP %s: %s" % (execute, r["error"]))
            # events (STOP, RESUME, ...) are skipped


def connect(path, what, tries=300):
    for _ in range(tries):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            time.sleep(0.1)
    raise SystemExit("keypull: cannot connect to %s (%s)" % (what, path))


def watch(ser_path, qmp_path, log, pairs):
    ser = connect(ser_path, "the serial console")
    qmp = None
    todo = [(re.compile(e.encode()), out) for e, out in (p.rsplit("=", 1) for p in pairs)]
    buf = b""
    t0 = time.monotonic()
    with open(log, "wb") as lf:
        while todo:
            chunk = ser.recv(65536)
            if not chunk:
                return 2
            lf.write(chunk)
            lf.flush()
            buf += chunk
            m = todo[0][0].search(buf)
            if not m:
                buf = buf[-4096:]
                continue
            if qmp is None:
                qmp = Qmp(qmp_path)
            qmp.cmd("stop")
            t = time.monotonic() - t0
            out = todo[0][1]
            qmp.cmd("dump-guest-memory", paging=False, protocol="file:" + out)
            print("  /%s/ seen %.1f s after the start: guest stopped, RAM dumped into %s (%.1f s)" % (
                todo[0][0].pattern.decode(), t, os.path.basename(out), time.monotonic() - t0 - t), flush=True)
            buf = buf[m.end():]
            todo.pop(0)
            if todo:
                qmp.cmd("cont")
        try:
            qmp.cmd("quit")
        except (OSError, ValueError):
            pass
        # what QEMU still had for the console
        ser.settimeout(2)
        try:
            while True:
                chunk = ser.recv(65536)
                if not chunk:
                    break
                lf.write(chunk)
        except OSError:
            pass
    return 0


def segments(blob):
    """(file offset, guest-physical address, size) of each PT_LOAD of an ELF64 core."""
    if blob[:4] != b"\x7fELF" or blob[4] != 2:
        raise SystemExit("keypull: not an ELF64 core")
    phoff, = struct.unpack_from("<Q", blob, 32)
    phentsize, phnum = struct.unpack_from("<HH", blob, 54)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, _, p_paddr, p_filesz = struct.unpack_from("<IIQQQQ", blob, phoff + i * phentsize)
        if p_type == 1 and p_filesz:
            segs.append((p_offset, p_paddr, p_filesz))
    return segs


def efi_map(log):
    """[(start, end, type)] from a kernel's efi=debug lines "efi: memNN: [Type|...] range=[a-b]"."""
    m = []
    text = open(log, "rb").read().decode("latin-1")
    for t, a, b in re.findall(r"efi: mem\d+: \[([^|\]]+)\|[^\]]*\] range=\[0x([0-9a-f]+)-0x([0-9a-f]+)\]", text):
        m.append((int(a, 16), int(b, 16), t.strip()))
    return m


def search(dump, vars_path, log=None):
    keys = store_keys(vars_path)
    print("  the variable store holds %d value(s) of EfiresumeHibernationKey: %s" % (
        len(keys), ", ".join("%s %s" % (st, k.hex()[:8]) for st, k in keys) or "none"))
    blob = open(dump, "rb").read()
    segs = segments(blob)
    emap = efi_map(log) if log else []
    total = sum(s[2] for s in segs)
    print("  dump: %d MiB of guest RAM in %d segment(s): %s" % (total >> 20, len(segs), ", ".join(
        "[%#x-%#x)" % (p, p + n) for _, p, n in segs)))
    if log:
        print("  EFI memory map from the kernel's log: %d entries" % len(emap))

    def where(off):
        for o, p, n in segs:
            if o <= off < o + n:
                phys = p + off - o
                kind = next((t for a, b, t in emap if a <= phys <= b), None)
                return phys, kind
        return None, None

    def fmt(off):
        phys, kind = where(off)
        s = "file offset %#x" % off
        s += ", guest-physical %#x" % phys if phys is not None else ", outside every RAM segment (ELF headers)"
        if kind:
            s += " [%s]" % kind
        return s

    count = {"table": 0, "commbuf": 0, "varrec": 0, "other": 0}
    old = oldvarrec = 0
    found = []
    for st, key in keys:
        n = 0
        i = blob.find(key)
        while i >= 0:
            if blob[i - 16:i - 12] == b"EFRK":
                kind = "table"
            elif SMM_VARIABLE_GUID in blob[max(0, i - 160):i]:
                kind = "commbuf"
            elif any(blob[i - len(n):i] == n for n in NAMES):
                kind = "varrec"
            else:
                kind = "other"
            n += 1
            if st == "live":
                count[kind] += 1
            else:
                old += 1
                oldvarrec += kind == "varrec"
            print("  %s key %s at %s: %s" % (st, key.hex()[:8], fmt(i), kind))
            i = blob.find(key, i + 1)
        found.append("KEY %s %s found=%d" % (st, key.hex()[:8], n))

    efrk = efrk_k = 0
    for m in re.finditer(rb"EFRK", blob):
        i = m.start()
        version, size = struct.unpack_from("<II", blob, i + 4)
        if version not in (1, 2) or size != 64:
            continue
        efrk += 1
        body = bytes(blob[i + 16:i + 48])
        st = next((st + " key " + k.hex()[:8] for st, k in keys if k == body), None)
        if st:
            what = "holds the " + st
        elif body == bytes(32):
            what = "zeros"
        elif all(32 <= c < 127 for c in body):
            what = "text (%r...): a constant in a program's image, not a table" % body[:16].decode()
        else:
            what = "another key (not in the store)"
        efrk_k += st is not None
        print("  key table header \"EFRK\" version %d at %s: key field %s" % (version, fmt(i), what))

    names = sum(len(re.findall(re.escape(n), blob)) for n in NAMES)
    print("  the UTF-16 name EfiresumeHibernationKey: %d time(s)" % names)
    for line in found:
        print(line)
    print("RESULT keys=%d k=%d table=%d commbuf=%d varrec=%d other=%d old=%d oldvarrec=%d efrk=%d efrk_with_k=%d" % (
        len(keys), sum(count.values()), count["table"], count["commbuf"], count["varrec"], count["other"], old,
        oldvarrec, efrk, efrk_k))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "watch":
        sys.exit(watch(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "search":
        search(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
