"""The dynamic symbols of an ELF64 little-endian file, read in plain Python.

The GPU machine has no guaranteed binutils, so the zoo reads .dynsym itself:
the section headers (e_shoff, e_shentsize, e_shnum in the ELF header) give the
SHT_DYNSYM section, whose sh_link is its string table; each Elf64_Sym is
(st_name u32, st_info u8, st_other u8, st_shndx u16, st_value u64, st_size u64)
and a symbol is undefined when st_shndx is SHN_UNDEF (0). Only what the zoo
needs: x86-64 and aarch64 shared objects and executables.

    python3 elfsyms.py FILE [--undefined|--defined] [--prefix P]
"""
import struct
import sys

SHT_DYNSYM = 11
STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 1, 2, 10


class ElfError(Exception):
    pass


def dynamic_symbols(data):
    """[(name, defined)] of the global, weak and GNU-unique symbols in .dynsym of `data` (bytes)."""
    if data[:4] != b"\x7fELF":
        raise ElfError("not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shoff == 0 or shentsize < 64 or shoff + shentsize * shnum > len(data):
        raise ElfError("no section headers")

    def section(i):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)

    out = []
    for i in range(shnum):
        sh = section(i)
        if sh[1] != SHT_DYNSYM:
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9] or 24
        if link >= shnum or offset + size > len(data):
            raise ElfError("truncated .dynsym")
        stroff, strsize = section(link)[4], section(link)[5]
        for off in range(offset + entsize, offset + size, entsize):  # entry 0 is the null symbol
            st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", data, off)
            if st_info >> 4 not in (STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE) or st_name >= strsize:
                continue
            end = data.index(b"\0", stroff + st_name)
            out.append((data[stroff + st_name:end].decode("utf-8", "replace"), st_shndx != 0))
    return out


def undefined(data, prefix=""):
    return sorted({n for n, d in dynamic_symbols(data) if not d and n.startswith(prefix)})


def defined(data, prefix=""):
    return sorted({n for n, d in dynamic_symbols(data) if d and n.startswith(prefix)})


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        sys.exit(2)
    prefix = args[args.index("--prefix") + 1] if "--prefix" in args else ""
    try:
        data = open(args[0], "rb").read()
        names = defined(data, prefix) if "--defined" in args else undefined(data, prefix)
    except (OSError, ElfError, struct.error) as e:
        print(f"elfsyms.py: error: {args[0]}: {e}", file=sys.stderr)
        sys.exit(2)
    print("\n".join(names))


if __name__ == "__main__":
    main()
