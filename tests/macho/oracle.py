"""LLVM's own dumpers as the oracle for the Mach-O reader.

Each function runs llvm-objdump-19 or llvm-nm-19 and parses what it prints;
crosscheck() compares that with what aoti-audit's reader made of the same
file (tests/macho/model_dump.cpp prints it as JSON) and returns how many
facts agreed, or raises Mismatch naming the first one that does not.
"""
import json
import os
import re
import subprocess

OBJDUMP, NM = "llvm-objdump-19", "llvm-nm-19"


class Mismatch(Exception):
    pass


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Mismatch(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def arch_args(arch):
    return [f"--arch={arch}"] if arch else []


def short_name(install_name):
    """The dylib name llvm-objdump prints in bind tables ("libSystem")."""
    leaf = os.path.basename(install_name)
    m = re.match(r"^(lib[^.]*)(\..*)?\.dylib$", leaf)
    if m:
        return m.group(1)
    m = re.match(r"^(.*)\.dylib$", leaf)
    return m.group(1) if m else leaf


def library_key(model, ordinal):
    if ordinal == 0xFE:
        return "flat-namespace"
    if ordinal == 0xFF:
        return "main-executable"
    if ordinal == 0:
        return "this-image"
    return short_name(model["dependencies"][ordinal - 1]["name"])


def exports(path, arch=None):
    """name -> {weak, tls, resolver, reexport: (import name, library)}."""
    out, on = {}, False
    for line in run([OBJDUMP, "--macho", "--exports-trie", *arch_args(arch), path]).splitlines():
        if line.startswith("Exports trie:"):
            on = True
            continue
        if not on or not line.strip():
            continue
        m = re.match(r"^\[re-export\] (\S+) \((?:(\S+) )?from (\S+)\)$", line)
        if m:
            out[m.group(1)] = {"weak": False, "tls": False, "resolver": False,
                               "reexport": (m.group(2) or "", m.group(3))}
            continue
        m = re.match(r"^0x[0-9A-Fa-f]+\s+(\S+)(.*)$", line)
        if not m:
            raise Mismatch(f"unparsed export line: {line!r}")
        flags = m.group(2)
        out[m.group(1)] = {"weak": "[weak_def]" in flags, "tls": "[per-thread]" in flags,
                           "resolver": "[resolver=" in flags, "reexport": None}
    return out


def binds(path, arch=None):
    """(name, library key, weak import) from the bind and lazy-bind tables,
    or from the chained-fixup imports; None when the file has neither."""
    text = run([OBJDUMP, "--macho", "--bind", "--lazy-bind", "--chained-fixups",
                *arch_args(arch), path])
    imports = re.findall(r"dyld chained import\[\d+\]\n\s+lib_ordinal = (-?\d+) \(([^)]*)\)\n"
                         r"\s+weak_import = (\d)\n\s+name_offset = \d+ \((\S+)\)", text)
    if imports:
        return {(name, lib, w == "1") for _, lib, w, name in imports if lib != "weak"}
    if "LC_DYLD_CHAINED_FIXUPS" in text:
        return set()
    out = set()
    table = None
    for line in text.splitlines():
        if line.startswith("Bind table:"):
            table = "bind"
        elif line.startswith("Lazy bind table:"):
            table = "lazy"
        elif line.startswith("segment") or not line.strip() or table is None:
            continue
        else:
            cols = line.split()
            weak = cols[-1] == "(weak_import)"
            if weak:
                cols = cols[:-1]
            # bind: seg sect addr type addend dylib sym; lazy: seg sect addr dylib sym
            out.add((cols[-1], cols[-2], weak))
    return out


def has_fixup_info(path, arch=None):
    text = run([OBJDUMP, "--macho", "--private-headers", *arch_args(arch), path])
    return any(c in text for c in ("LC_DYLD_INFO_ONLY", "LC_DYLD_INFO\n", "LC_DYLD_CHAINED_FIXUPS"))


NM_LINE = re.compile(
    r"^(?:[0-9a-f]{16}|\s{16}) \((?P<where>[^)]*)\)(?: \(alignment [^)]*\))?"
    r"(?: \[referenced dynamically\])?(?: \[no dead strip\])?"
    r" (?P<kind>non-external \(was a private external\)|non-external|private external|"
    r"weak private external|weak external|external)"
    r"(?: \[alt entry\])? (?P<name>\S+)(?: \((?P<from>[^)]*)\))?$")


def nlist(path, arch=None):
    """Sorted (name, defined, kind, library key or '') per llvm-nm -m line."""
    out = []
    for line in run([NM, "-m", "--no-sort", *arch_args(arch), path]).splitlines():
        if not line.strip() or line.endswith(":"):
            continue
        m = NM_LINE.match(line)
        if not m:
            raise Mismatch(f"unparsed llvm-nm -m line: {line!r}")
        defined = m.group("where") != "undefined"
        frm = m.group("from") or ""
        lib = {"dynamically looked up": "flat-namespace",
               "from executable": "main-executable"}.get(frm, frm[5:] if frm.startswith("from ") else "")
        out.append((m.group("name"), defined, m.group("kind"), lib))
    return sorted(out)


def load_commands(path, arch=None):
    """(install name, [(cmd, dylib name)], [rpath]) from the load commands."""
    text = run([OBJDUMP, "--macho", "--private-headers", *arch_args(arch), path])
    ident, deps, rpaths = "", [], []
    cmd = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("cmd "):
            cmd = s[4:]
        m = re.match(r"^(name|path) (.*) \(offset \d+\)$", s)
        if not m:
            continue
        if cmd == "LC_ID_DYLIB":
            ident = m.group(2)
        elif cmd in ("LC_LOAD_DYLIB", "LC_LOAD_WEAK_DYLIB", "LC_REEXPORT_DYLIB",
                     "LC_LOAD_UPWARD_DYLIB", "LC_LAZY_LOAD_DYLIB"):
            deps.append((cmd, m.group(2)))
        elif cmd == "LC_RPATH":
            rpaths.append(m.group(2))
    return ident, deps, rpaths


DEP_KIND = {"LC_LOAD_DYLIB": "needed", "LC_LAZY_LOAD_DYLIB": "needed",
            "LC_LOAD_WEAK_DYLIB": "weak", "LC_REEXPORT_DYLIB": "reexport",
            "LC_LOAD_UPWARD_DYLIB": "upward"}


def model_nm_kind(s, file_kind):
    hidden = s["visibility"] == "hidden"
    if s["binding"] == "local":
        return "non-external (was a private external)" if hidden else "non-external"
    if hidden:
        return "weak private external" if s["binding"] == "weak" else "private external"
    return "weak external" if s["binding"] == "weak" else "external"


def expect(cond, what):
    if not cond:
        raise Mismatch(what)


def crosscheck(dump, path, arch=None):
    """Compares the model of PATH with the dumpers; returns facts compared."""
    m = json.loads(run([dump, "--static", *(["--arch", arch] if arch else []), path]))
    facts = 0
    where = f"{os.path.basename(path)}{' [' + arch + ']' if arch else ''}"

    # Load commands.
    ident, deps, rpaths = load_commands(path, arch)
    expect(m["install_name"] == ident, f"{where}: install name {m['install_name']!r} != {ident!r}")
    got = [(d["kind"], d["name"]) for d in m["dependencies"]]
    want = [(DEP_KIND[c], n) for c, n in deps]
    expect(got == want, f"{where}: dylibs {got} != {want}")
    expect(m["rpath"] == rpaths, f"{where}: LC_RPATH {m['rpath']} != {rpaths}")
    facts += 1 + len(want) + len(rpaths)

    # The nlist table, every entry.
    model_nl = sorted(
        (s["name"], s["defined"] or False, model_nm_kind(s, m["kind"]),
         # llvm-nm names no library for ordinal 0 (this image)
         library_key(m, s["ordinal"]) if (not s["defined"] and s.get("ordinal", 0) > 0) else "")
        for s in m["static"])
    nm_nl = nlist(path, arch)
    expect(model_nl == nm_nl,
           f"{where}: nlist differs:\n  model  {sorted(set(model_nl) - set(nm_nl))}\n"
           f"  llvm-nm {sorted(set(nm_nl) - set(model_nl))}")
    facts += len(nm_nl)

    if m["kind"] == "relocatable object":
        expect(m["dynamic"] == [], f"{where}: an object has dynamic symbols")
        return facts

    # Exports: the trie, flag by flag.
    trie = exports(path, arch)
    defs = {s["name"]: s for s in m["dynamic"] if s["defined"]}
    if trie:
        expect(set(defs) == set(trie),
               f"{where}: exports differ: model-only {sorted(set(defs) - set(trie))}, "
               f"trie-only {sorted(set(trie) - set(defs))}")
        for name, t in trie.items():
            s = defs[name]
            expect((s["binding"] == "weak") == t["weak"], f"{where}: {name} weak_def")
            expect((s["type"] == "tls") == t["tls"], f"{where}: {name} per-thread")
            expect((s["type"] == "ifunc") == t["resolver"], f"{where}: {name} resolver")
            if t["reexport"]:
                imp, lib = t["reexport"]
                expect(s.get("reexport") and short_name(s["library"]) == lib
                       and s.get("import_name", "") == imp,
                       f"{where}: {name} re-export {s} != {t['reexport']}")
            else:
                expect(not s.get("reexport"), f"{where}: {name} is not a re-export")
            facts += 1
    else:
        # No trie: dyld (and the model) use the external nlist definitions.
        want = {n for n, d, k, _ in nm_nl if d and k in ("external", "weak external")}
        expect(set(defs) == want, f"{where}: nlist exports {sorted(defs)} != {sorted(want)}")
        facts += len(want)

    # Imports with their ordinals and weak-import flags.
    imports = {(s["name"], library_key(m, s["ordinal"]), s["binding"] == "weak")
               for s in m["dynamic"] if not s["defined"]}
    if has_fixup_info(path, arch):
        table = binds(path, arch)
        weak_refs = {n for n, d, k, _ in nm_nl if not d and k == "weak external"}
        table = {(n, lib, w or n in weak_refs) for n, lib, w in table}
    else:
        table = {(n, lib or "flat-namespace", k == "weak external")
                 for n, d, k, lib in nm_nl if not d and "external" in k}
    expect(imports == table,
           f"{where}: imports differ:\n  model {sorted(imports - table)}\n"
           f"  llvm-objdump {sorted(table - imports)}")
    facts += len(table)
    return facts


def crosscheck_archive(dump, path):
    """Every member of an archive, through the model's archive reader."""
    m = json.loads(run([dump, "--static", path]))
    names = run(["llvm-ar-19", "t", path]).split()
    expect([os.path.basename(x["path"]).split("(")[-1].rstrip(")") for x in m["members"]] == names,
           f"{path}: members differ")
    facts = len(names)
    nm_all = run([NM, "-m", path])
    for member in m["members"]:
        name = member["path"].split("(")[-1].rstrip(")")
        block = re.search(rf"^(?:.*\()?{re.escape(name)}\)?:\n(.*?)(?:\n\n|\Z)",
                          nm_all, re.S | re.M)
        lines = sorted(
            (mm.group("name"), mm.group("where") != "undefined", mm.group("kind"), "")
            for mm in (NM_LINE.match(line) for line in (block.group(1).splitlines() if block else []))
            if mm)
        model = sorted((s["name"], s["defined"], model_nm_kind(s, "relocatable object"), "")
                       for s in member["static"])
        expect(model == lines, f"{path}({name}): nlist differs: {model} != {lines}")
        facts += len(lines)
    return facts
