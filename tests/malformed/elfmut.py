"""Byte-level mutations of real ELF files and ar archives.

Each mutation takes the bytes of a well-formed file and returns a copy with
one lie in it: a header pointing past the end, an index out of range, a
count that does not match, a chain that loops. Only 64-bit little-endian ELF
is parsed (what cc builds here); the other classes come from clang as-is.
"""
import struct

SHT_NAMES = (".dynsym", ".dynstr", ".symtab", ".strtab", ".dynamic",
             ".gnu.version", ".gnu.version_r", ".gnu.version_d", ".gnu.hash",
             ".hash", ".interp")

DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 15, 29
DT_VERNEEDNUM, DT_VERDEFNUM = 0x6FFFFFFF, 0x6FFFFFFD
PT_INTERP, PT_DYNAMIC = 3, 2
HUGE = 0x7FFFFFFF


class Elf64:
    """Offsets of the headers of a 64-bit little-endian ELF file."""

    def __init__(self, data):
        self.data = bytes(data)
        (self.e_type, self.e_machine, _, _, self.e_phoff, self.e_shoff, _,
         _, self.e_phentsize, self.e_phnum, self.e_shentsize, self.e_shnum,
         self.e_shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", data, 16)
        self.sections = {}
        for i in range(self.e_shnum):
            off = self.e_shoff + i * 64
            name, typ, flags, addr, offset, size, link, info, align, entsize = \
                struct.unpack_from("<IIQQQQIIQQ", data, off)
            self.sections[i] = dict(hdr=off, name_off=name, type=typ, offset=offset,
                                    size=size, link=link, info=info, entsize=entsize)
        strtab = self.sections[self.e_shstrndx]
        for s in self.sections.values():
            start = strtab["offset"] + s["name_off"]
            s["name"] = self.data[start:self.data.index(b"\0", start)].decode()
        self.by_name = {s["name"]: s for s in self.sections.values()}
        self.phdrs = []
        for i in range(self.e_phnum):
            off = self.e_phoff + i * self.e_phentsize
            typ, = struct.unpack_from("<I", data, off)
            self.phdrs.append(dict(hdr=off, type=typ))

    def has(self, name):
        return name in self.by_name


def put(data, off, fmt, *vals):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, *vals)
    return bytes(b)


# Section header field offsets within an Elf64_Shdr.
SH_LINK, SH_INFO, SH_OFFSET, SH_SIZE, SH_ENTSIZE = 40, 44, 24, 32, 56


def elf_mutations(data):
    """Yields (name, bytes) for every lie this file can carry."""
    e = Elf64(data)
    n = len(data)
    yield "shoff-past-end", put(data, 0x28, "<Q", n + 0x1000)
    yield "shoff-huge", put(data, 0x28, "<Q", 1 << 62)
    yield "shnum-huge", put(data, 0x3C, "<H", 0xFFFF)
    yield "shstrndx-out-of-range", put(data, 0x3E, "<H", 0xFFF0)
    yield "shentsize-zero", put(data, 0x3A, "<H", 0)
    yield "class-32-in-64", put(data, 4, "<B", 1)
    yield "data-big-endian", put(data, 5, "<B", 2)
    yield "machine-unknown", put(data, 0x12, "<H", 0xBEEF)
    yield "type-unknown", put(data, 0x10, "<H", 0x1234)
    if e.e_phnum:
        yield "phoff-past-end", put(data, 0x20, "<Q", n + 0x1000)
        yield "phnum-huge", put(data, 0x38, "<H", 0xFFFF)
        for p in e.phdrs:
            if p["type"] == PT_DYNAMIC:
                yield "pt-dynamic-past-end", put(data, p["hdr"] + 8, "<Q", n + 0x100)
                yield "pt-dynamic-size-huge", put(data, p["hdr"] + 32, "<Q", 1 << 40)
                yield "pt-dynamic-size-wraps", put(data, p["hdr"] + 32, "<Q", (1 << 64) - 0x10)
            if p["type"] == PT_INTERP:
                yield "pt-interp-past-end", put(data, p["hdr"] + 8, "<Q", n + 0x100)
                # offset + size wraps around to a small number
                yield "pt-interp-size-wraps", put(data, p["hdr"] + 32, "<Q", (1 << 64) - 0x10)
    for name in SHT_NAMES:
        if not e.has(name):
            continue
        s = e.by_name[name]
        tag = name.strip(".").replace(".", "-")
        yield f"{tag}-offset-past-end", put(data, s["hdr"] + SH_OFFSET, "<Q", n + 0x100)
        yield f"{tag}-size-huge", put(data, s["hdr"] + SH_SIZE, "<Q", 1 << 40)
        yield f"{tag}-size-odd", put(data, s["hdr"] + SH_SIZE, "<Q", max(1, s["size"] - 3))
        yield f"{tag}-link-out-of-range", put(data, s["hdr"] + SH_LINK, "<I", 0xFFF)
    yield from symtab_mutations(e, ".dynsym")
    yield from symtab_mutations(e, ".symtab")
    yield from verneed_mutations(e)
    yield from verdef_mutations(e)
    yield from versym_mutations(e)
    yield from gnu_hash_mutations(e)
    yield from dynamic_mutations(e)


def symtab_mutations(e, name):
    if not e.has(name):
        return
    s = e.by_name[name]
    data, tag = e.data, name.strip(".")
    count = s["size"] // 24
    strsz = e.sections[s["link"]]["size"] if s["link"] in e.sections else 0
    b = bytearray(data)
    for i in range(1, count):
        struct.pack_into("<I", b, s["offset"] + i * 24, 0xFFFFFFF0)
    yield f"{tag}-names-out-of-range", bytes(b)
    if count > 1:
        yield f"{tag}-name-at-strtab-end", put(data, s["offset"] + (count - 1) * 24, "<I", strsz)
        # st_shndx of the last symbol: a section that does not exist.
        yield f"{tag}-shndx-out-of-range", put(data, s["offset"] + (count - 1) * 24 + 6, "<H", 0xFF00)
    for es in (0, 1, 16, 48, 0xFFFFFFFF):
        yield f"{tag}-entsize-{es}", put(data, s["hdr"] + SH_ENTSIZE, "<Q", es)
    # The string table the symbols name is not a string table's worth long.
    if s["link"] in e.sections:
        yield f"{tag}-strtab-empty", put(data, e.sections[s["link"]]["hdr"] + SH_SIZE, "<Q", 0)


def verneed_mutations(e):
    if not e.has(".gnu.version_r"):
        return
    s = e.by_name[".gnu.version_r"]
    data, o, n = e.data, s["offset"], len(e.data)
    # Elf64_Verneed: vn_version(2) vn_cnt(2) vn_file(4) vn_aux(4) vn_next(4)
    # Elf64_Vernaux: vna_hash(4) vna_flags(2) vna_other(2) vna_name(4) vna_next(4)
    b = put(data, o + 12, "<I", 0)  # vn_next: 0, but the count says more follow
    yield "verneed-next-loop", put(b, s["hdr"] + SH_INFO, "<I", 0xFFFF)
    yield "verneed-next-past-end", put(data, o + 12, "<I", n + 0x100)
    yield "verneed-aux-past-end", put(data, o + 8, "<I", n + 0x100)
    yield "verneed-file-out-of-range", put(data, o + 4, "<I", 0xFFFFFFF0)
    yield "verneed-count-huge", put(data, s["hdr"] + SH_INFO, "<I", 0xFFFFFFF)
    aux = o + struct.unpack_from("<I", data, o + 8)[0]
    if aux + 16 <= n:
        b = put(data, aux + 12, "<I", 0)
        yield "vernaux-next-loop", put(b, o + 2, "<H", 0xFFFF)
        yield "vernaux-next-past-end", put(data, aux + 12, "<I", n + 0x100)
        yield "vernaux-name-out-of-range", put(data, aux + 8, "<I", 0xFFFFFFF0)
        yield "vernaux-cnt-huge", put(data, o + 2, "<H", 0xFFFF)


def verdef_mutations(e):
    if not e.has(".gnu.version_d"):
        return
    s = e.by_name[".gnu.version_d"]
    data, o, n = e.data, s["offset"], len(e.data)
    # Elf64_Verdef: vd_version(2) vd_flags(2) vd_ndx(2) vd_cnt(2) vd_hash(4)
    #               vd_aux(4) vd_next(4)
    b = put(data, o + 16, "<I", 0)
    yield "verdef-next-loop", put(b, s["hdr"] + SH_INFO, "<I", 0xFFFF)
    yield "verdef-next-past-end", put(data, o + 16, "<I", n + 0x100)
    yield "verdef-aux-past-end", put(data, o + 12, "<I", n + 0x100)
    aux = o + struct.unpack_from("<I", data, o + 12)[0]
    if aux + 8 <= n:
        yield "verdaux-name-out-of-range", put(data, aux, "<I", 0xFFFFFFF0)


def versym_mutations(e):
    if not e.has(".gnu.version"):
        return
    s = e.by_name[".gnu.version"]
    data = e.data
    yield "versym-count-short", put(data, s["hdr"] + SH_SIZE, "<Q", 2)
    yield "versym-empty", put(data, s["hdr"] + SH_SIZE, "<Q", 0)
    b = bytearray(data)
    for i in range(1, s["size"] // 2):
        struct.pack_into("<H", b, s["offset"] + 2 * i, 0x7FF0)
    yield "versym-index-out-of-range", bytes(b)


def gnu_hash_mutations(e):
    if not e.has(".gnu.hash"):
        return
    s = e.by_name[".gnu.hash"]
    data, o = e.data, e.by_name[".gnu.hash"]["offset"]
    nbuckets, symoffset, bloom, shift = struct.unpack_from("<IIII", data, o)
    yield "gnu-hash-nbuckets-zero", put(data, o, "<I", 0)
    yield "gnu-hash-nbuckets-huge", put(data, o, "<I", 0xFFFFFFFF)
    yield "gnu-hash-symoffset-huge", put(data, o + 4, "<I", 0xFFFFFFFF)
    yield "gnu-hash-bloom-huge", put(data, o + 8, "<I", HUGE)
    yield "gnu-hash-bloom-zero", put(data, o + 8, "<I", 0)
    yield "gnu-hash-shift-huge", put(data, o + 12, "<I", 0xFF)
    buckets = o + 16 + bloom * 8
    b = bytearray(data)
    for i in range(nbuckets):
        struct.pack_into("<I", b, buckets + 4 * i, 0xFFFFFFF0)
    yield "gnu-hash-buckets-out-of-range", bytes(b)
    # Every chain value even: no chain ends, the walk must stop at the table.
    b = bytearray(data)
    for p in range(buckets + 4 * nbuckets, o + s["size"], 4):
        struct.pack_into("<I", b, p, struct.unpack_from("<I", b, p)[0] & ~1)
    yield "gnu-hash-chain-unterminated", bytes(b)
    # Full bloom filter: every lookup walks the chains.
    b = bytearray(data)
    b[o + 16:buckets] = b"\xff" * (bloom * 8)
    yield "gnu-hash-bloom-all-ones", bytes(b)
    b = bytearray(b)
    for p in range(buckets + 4 * nbuckets, o + s["size"], 4):
        struct.pack_into("<I", b, p, struct.unpack_from("<I", b, p)[0] & ~1)
    yield "gnu-hash-bloom-ones-chain-unterminated", bytes(b)


def dynamic_mutations(e):
    if not e.has(".dynamic"):
        return
    s = e.by_name[".dynamic"]
    data, o = e.data, s["offset"]
    entries = []
    for i in range(s["size"] // 16):
        tag, val = struct.unpack_from("<qQ", data, o + 16 * i)
        entries.append((o + 16 * i, tag, val))
    for off, tag, val in entries:
        if tag == DT_NEEDED:
            yield "dt-needed-out-of-range", put(data, off + 8, "<Q", 0xFFFFFFF0)
            break
    for off, tag, val in entries:
        if tag == DT_STRSZ:
            yield "dt-strsz-huge", put(data, off + 8, "<Q", 1 << 40)
            yield "dt-strsz-zero", put(data, off + 8, "<Q", 0)
        if tag == DT_STRTAB:
            yield "dt-strtab-unmapped", put(data, off + 8, "<Q", 0xDEAD0000)
        if tag in (DT_RPATH, DT_RUNPATH):
            yield "dt-runpath-out-of-range", put(data, off + 8, "<Q", 0xFFFFFFF0)
        if tag == DT_VERNEEDNUM:
            yield "dt-verneednum-huge", put(data, off + 8, "<Q", 0xFFFF)
        if tag == DT_VERDEFNUM:
            yield "dt-verdefnum-huge", put(data, off + 8, "<Q", 0xFFFF)
    # No DT_NULL: every entry a DT_NEEDED of the same string, to the end.
    b = bytearray(data)
    first_needed = next((v for _, t, v in entries if t == DT_NEEDED), 1)
    for off, _, _ in entries:
        struct.pack_into("<qQ", b, off, DT_NEEDED, first_needed)
    yield "dynamic-no-terminator", bytes(b)


# --- ar archives ------------------------------------------------------------

def ar_members(data):
    """(header offset, name field, size) of each member of a regular archive."""
    out, off = [], 8
    while off + 60 <= len(data):
        hdr = data[off:off + 60]
        size = int(hdr[48:58].decode().strip() or 0)
        out.append((off, hdr[0:16], size))
        off += 60 + size + (size & 1)
    return out


def ar_mutations(data, thin=False):
    members = ar_members(data) if not thin else []
    n = len(data)
    yield "magic-only", b"!<arch>\n"
    yield "header-cut", data[:8 + 30]
    if thin:
        return
    first = members[0][0]
    yield "size-not-a-number", data[:first + 48] + b"abcdefghij" + data[first + 58:]
    yield "size-huge", data[:first + 48] + b"9999999999" + data[first + 58:]
    yield "size-negative", data[:first + 48] + b"-100      " + data[first + 58:]
    yield "terminator-broken", data[:first + 58] + b"XX" + data[first + 60:]
    last = members[-1][0]
    yield "last-size-past-end", data[:last + 48] + b"%-10d" % (n * 2) + data[last + 58:]
    yield "last-terminator-broken", data[:last + 58] + b"\0\0" + data[last + 60:]
    # A member name "/NNN" into a long-name table that is not that long.
    for off, name, size in members:
        if not name.startswith(b"/ ") and not name.startswith(b"//"):
            yield "longname-out-of-range", data[:off] + b"/99999          " + data[off + 16:]
            yield "longname-not-a-number", data[:off] + b"/x9             " + data[off + 16:]
            break
    # The GNU symbol index: count (big-endian), offsets, names.
    if members and members[0][1].startswith(b"/ "):
        o = members[0][0] + 60
        count, = struct.unpack_from(">I", data, o)
        yield "symindex-count-huge", put(data, o, ">I", 0x0FFFFFFF)
        if count:
            yield "symindex-offset-to-no-member", put(data, o + 4, ">I", members[-1][0] + 7)
            yield "symindex-offset-past-end", put(data, o + 4, ">I", n + 0x1000)
            b = bytearray(data)
            for i in range(count):
                struct.pack_into(">I", b, o + 4 + 4 * i, 0xFFFFFFF0)
            yield "symindex-all-offsets-past-end", bytes(b)
            # Names running off the end of the index: no NUL terminators.
            names = o + 4 + 4 * count
            end = members[0][0] + 60 + members[0][2]
            b = bytearray(data)
            b[names:end] = b"A" * (end - names)
            yield "symindex-names-unterminated", bytes(b)
