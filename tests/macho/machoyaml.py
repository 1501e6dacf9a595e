"""Exact Mach-O fixtures as yaml2obj documents.

A MachO describes one image in terms of what the audit reads -- dylib load
commands, LC_RPATHs, exports with their trie flags, imports with their
ordinals, nlist entries -- and yaml() turns it into a yaml2obj-19 document:
the header and load commands as YAML, the __LINKEDIT segment as raw bytes
laid out here (bind opcodes or chained fixups, the export trie, the symbol
and string tables), so every offset and ordinal is exactly what the case
says. Nothing here is checked against itself: the tests compare what
aoti-audit reads with what llvm-objdump and llvm-nm print.
"""
import struct

MH_OBJECT, MH_EXECUTE, MH_DYLIB, MH_BUNDLE = 0x1, 0x2, 0x6, 0x8
MH_NOUNDEFS, MH_DYLDLINK, MH_TWOLEVEL = 0x1, 0x4, 0x80

EXPORT_WEAK, EXPORT_REEXPORT, EXPORT_RESOLVER = 0x04, 0x08, 0x10
EXPORT_TLS, EXPORT_ABSOLUTE = 0x01, 0x02

N_UNDF, N_ABS, N_SECT = 0x0, 0x2, 0xE
N_EXT, N_PEXT = 0x01, 0x10
N_WEAK_REF, N_WEAK_DEF = 0x40, 0x80

SELF, FLAT, MAIN = 0, 0xFE, 0xFF   # nlist library ordinals

CPU = {"arm64": (0x0100000C, 0x0), "x86_64": (0x01000007, 0x3)}


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def align(n, a):
    return (n + a - 1) // a * a


def export_trie(exports):
    """A trie whose root has one edge per symbol (each edge the whole name)."""
    if not exports:
        return b""
    terminals = []
    for e in exports:
        t = uleb(e["flags"])
        if e["flags"] & EXPORT_REEXPORT:
            t += uleb(e["other"]) + e.get("import", "").encode() + b"\0"
        else:
            t += uleb(e["address"])
            if e["flags"] & EXPORT_RESOLVER:
                t += uleb(e["other"])
        terminals.append(uleb(len(t)) + t + b"\0")  # no children
    offsets = [0] * len(exports)
    while True:
        root = b"\0" + bytes([len(exports)])
        for e, off in zip(exports, offsets):
            root += e["name"].encode() + b"\0" + uleb(off)
        new, pos = [], len(root)
        for t in terminals:
            new.append(pos)
            pos += len(t)
        if new == offsets:
            return root + b"".join(terminals)
        offsets = new


def bind_opcodes(binds, data_seg, lazy):
    """binds: (name, ordinal in nlist encoding, weak import)."""
    out = bytearray()
    for i, (name, ordinal, weak) in enumerate(binds):
        slot = (0x70 | data_seg, uleb(8 * i + (0x80 if lazy else 0)))
        if ordinal in (FLAT, MAIN):
            dylib = bytes([0x30 | (0x0E if ordinal == FLAT else 0x0F)])
        elif ordinal == SELF:
            dylib = b"\x30"
        elif ordinal < 16:
            dylib = bytes([0x10 | ordinal])
        else:
            dylib = b"\x20" + uleb(ordinal)
        sym = bytes([0x40 | (1 if weak else 0)]) + name.encode() + b"\0"
        if lazy:
            out += bytes([slot[0]]) + slot[1] + dylib + sym + b"\x90\x00"
        else:
            out += sym + b"\x51" + dylib + bytes([slot[0]]) + slot[1] + b"\x90"
    if not lazy and binds:
        out += b"\x00"
    return bytes(out)


def chained_fixups(imports, seg_count):
    """LC_DYLD_CHAINED_FIXUPS payload: DYLD_CHAINED_IMPORT entries, no chains."""
    starts = struct.pack("<I", seg_count) + b"\0\0\0\0" * seg_count
    starts_off = 32
    imports_off = align(starts_off + len(starts), 4)
    pool, table = bytearray(), bytearray()
    for name, ordinal, weak in imports:
        table += struct.pack("<I", (ordinal & 0xFF) | (int(weak) << 8) | (len(pool) << 9))
        pool += name.encode() + b"\0"
    symbols_off = imports_off + len(table)
    header = struct.pack("<7I", 0, starts_off, imports_off, symbols_off,
                         len(imports), 1, 0)
    blob = header + b"\0" * (starts_off - len(header)) + starts
    blob += b"\0" * (imports_off - len(blob)) + table + pool
    return bytes(blob)


class MachO:
    def __init__(self, filetype, arch="arm64", two_level=True, install_name=None):
        self.filetype, self.arch, self.two_level = filetype, arch, two_level
        self.install_name = install_name
        self.dylibs = []      # (load command, install name)
        self.rpaths = []
        self.exports = []     # dicts for export_trie()
        self.binds = []       # (name, ordinal, weak), non-lazy
        self.lazy_binds = []
        self.chained = None   # [(name, ordinal, weak)] -> chained fixups
        self.nlist = []       # (name, n_type, n_sect, n_desc, n_value)
        self.no_fixup_info = False

    # --- what the case says ---------------------------------------------
    def dylib(self, name, cmd="LC_LOAD_DYLIB"):
        self.dylibs.append((cmd, name))
        return len(self.dylibs)  # its ordinal

    def export(self, name, flags=0, address=0x1000, other=0, import_name="",
               section=1):
        self.exports.append({"name": name, "flags": flags, "address": address,
                             "other": other, "import": import_name})
        if not flags & EXPORT_REEXPORT:
            desc = N_WEAK_DEF if flags & EXPORT_WEAK else 0
            self.nlist.append((name, N_SECT | N_EXT, section, desc,
                               self.base() + address))

    def imports(self, name, ordinal, weak=False, lazy=False, nlist=True):
        (self.lazy_binds if lazy else self.binds).append((name, ordinal, weak))
        if nlist:
            self.undefined(name, ordinal, weak)

    def undefined(self, name, ordinal=0, weak=False):
        desc = ((ordinal if self.two_level else 0) << 8) | (N_WEAK_REF if weak else 0)
        self.nlist.append((name, N_UNDF | N_EXT, 0, desc, 0))

    def local(self, name, address=0x1000, private_extern=False):
        self.nlist.append((name, N_SECT | (N_PEXT if private_extern else 0), 1, 0,
                           self.base() + address))

    # --- layout ---------------------------------------------------------------
    def base(self):
        return 0x100000000 if self.filetype == MH_EXECUTE else 0

    def segments(self):
        segs = []
        if self.filetype == MH_EXECUTE:
            segs.append(("__PAGEZERO", 0, 0x100000000, 0, 0, []))
        b = self.base()
        segs.append(("__TEXT", b, 0x2000, 0, 0x2000,
                     [("__text", b + 0x1000, 0x100, 0x1000, 0x80000400)]))
        segs.append(("__DATA", b + 0x2000, 0x1000, 0x2000, 0x1000,
                     [("__data", b + 0x2000, 0x100, 0x2000, 0x0)]))
        return segs

    def yaml(self):
        segs = self.segments()
        data_seg = len(segs) - 1
        linkedit_off = 0x3000
        le = bytearray()

        def put(blob, a=8):
            nonlocal le
            le += b"\0" * (align(len(le), a) - len(le))
            off = linkedit_off + len(le)
            le += blob
            return off, len(blob)

        cmds = []
        if self.chained is not None:
            cf = put(chained_fixups(self.chained, len(segs) + 1))
            ex = put(export_trie(self.exports))
            cmds.append(f"  - cmd: LC_DYLD_CHAINED_FIXUPS\n    cmdsize: 16\n"
                        f"    dataoff: {cf[0]}\n    datasize: {cf[1]}\n")
            cmds.append(f"  - cmd: LC_DYLD_EXPORTS_TRIE\n    cmdsize: 16\n"
                        f"    dataoff: {ex[0]}\n    datasize: {ex[1]}\n")
        elif not self.no_fixup_info and self.filetype != MH_OBJECT:
            bind = put(bind_opcodes(self.binds, data_seg, False))
            lazy = put(bind_opcodes(self.lazy_binds, data_seg, True))
            ex = put(export_trie(self.exports))
            cmds.append("  - cmd: LC_DYLD_INFO_ONLY\n    cmdsize: 48\n"
                        "    rebase_off: 0\n    rebase_size: 0\n"
                        f"    bind_off: {bind[0] if bind[1] else 0}\n    bind_size: {bind[1]}\n"
                        "    weak_bind_off: 0\n    weak_bind_size: 0\n"
                        f"    lazy_bind_off: {lazy[0] if lazy[1] else 0}\n    lazy_bind_size: {lazy[1]}\n"
                        f"    export_off: {ex[0] if ex[1] else 0}\n    export_size: {ex[1]}\n")
        strtab = bytearray(b" \0")
        syms = bytearray()
        for name, typ, sect, desc, value in self.nlist:
            syms += struct.pack("<IBBHQ", len(strtab), typ, sect, desc, value)
            strtab += name.encode() + b"\0"
        sym = put(bytes(syms))
        strs = put(bytes(strtab + b"\0" * (align(len(strtab), 8) - len(strtab))))
        cmds.append(f"  - cmd: LC_SYMTAB\n    cmdsize: 24\n    symoff: {sym[0]}\n"
                    f"    nsyms: {len(self.nlist)}\n    stroff: {strs[0]}\n"
                    f"    strsize: {strs[1]}\n")

        def string_cmd(cmd, field_off, text, extra):
            size = align(field_off + len(text) + 1, 8)
            return (f"  - cmd: {cmd}\n    cmdsize: {size}\n{extra}"
                    f"    Content: '{text}'\n    ZeroPadBytes: {size - field_off - len(text)}\n")

        dylib_fields = ("    dylib:\n      name: 24\n      timestamp: 2\n"
                        "      current_version: 65536\n      compatibility_version: 65536\n")
        if self.install_name:
            cmds.append(string_cmd("LC_ID_DYLIB", 24, self.install_name, dylib_fields))
        for cmd, name in self.dylibs:
            cmds.append(string_cmd(cmd, 24, name, dylib_fields))
        for p in self.rpaths:
            cmds.append(string_cmd("LC_RPATH", 12, p, "    path: 12\n"))
        if self.filetype == MH_EXECUTE:
            cmds.append(string_cmd("LC_LOAD_DYLINKER", 12, "/usr/lib/dyld", "    name: 12\n"))
            cmds.append("  - cmd: LC_MAIN\n    cmdsize: 24\n    entryoff: 4096\n    stacksize: 0\n")

        seg_text = []
        le_size = align(len(le), 8)
        all_segs = segs + [("__LINKEDIT", self.base() + 0x3000, align(le_size, 0x1000),
                            linkedit_off, le_size, [])]
        for name, vmaddr, vmsize, fileoff, filesize, sects in all_segs:
            t = (f"  - cmd: LC_SEGMENT_64\n    cmdsize: {72 + 80 * len(sects)}\n"
                 f"    segname: {name}\n    vmaddr: {vmaddr}\n    vmsize: {vmsize}\n"
                 f"    fileoff: {fileoff}\n    filesize: {filesize}\n"
                 f"    maxprot: 7\n    initprot: {5 if name == '__TEXT' else 3}\n"
                 f"    nsects: {len(sects)}\n    flags: 0\n")
            if sects:
                t += "    Sections:\n"
                for sname, addr, size, off, flags in sects:
                    t += (f"      - sectname: {sname}\n        segname: {name}\n"
                          f"        addr: {addr:#x}\n        size: {size}\n"
                          f"        offset: {off:#x}\n        align: 2\n"
                          f"        reloff: 0x0\n        nreloc: 0\n        flags: {flags:#x}\n"
                          f"        reserved1: 0x0\n        reserved2: 0x0\n        reserved3: 0x0\n")
            seg_text.append(t)
        cmds = seg_text + cmds
        sizes = sum(int(c.split("cmdsize: ")[1].split("\n")[0]) for c in cmds)
        flags = (MH_DYLDLINK | MH_NOUNDEFS if self.filetype != MH_OBJECT else 0)
        if self.two_level and self.filetype != MH_OBJECT:
            flags |= MH_TWOLEVEL
        cpu, sub = CPU[self.arch]
        le += b"\0" * (le_size - len(le))
        return ("--- !mach-o\nFileHeader:\n  magic: 0xFEEDFACF\n"
                f"  cputype: {cpu:#x}\n  cpusubtype: {sub:#x}\n  filetype: {self.filetype:#x}\n"
                f"  ncmds: {len(cmds)}\n  sizeofcmds: {sizes}\n  flags: {flags:#x}\n"
                "  reserved: 0x0\nLoadCommands:\n" + "".join(cmds) +
                f"__LINKEDIT: {bytes(le).hex().upper()}\n...\n")
