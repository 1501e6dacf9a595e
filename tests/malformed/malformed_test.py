#!/usr/bin/env python3
"""Never crash, never lie: every command on every malformed file.

Builds real binaries (a shared library, a plugin, an executable, an object,
an archive, a thin archive) with cc and ar in a temporary directory, mutates
them (elfmut.py), and runs every command of aoti-audit and aoti-run on each
result. A malformed file is bad input, so a run passes when it
  - exits 2 and says on stderr what is wrong with the file (names it), or
  - for `link` with the file on the line: exits 1 with an AOTI210
    link-input-problem finding that names it (the real link stops there), or
  - exits 0 or 1 on a file that is valid for that command (VALID, below):
    the lie sits where the command's real counterpart never looks (ld.so
    reads no section headers and no .symtab), and that counterpart, asked
    in this run, takes the file: it loads, or the same line links. So a row
    cannot wave through a file that is broken after all. A "warns" row also
    wants a warning on stderr that names the file.
Everything else fails: a crash (a signal, exit status >= 128, a sanitizer
report), a hang (--timeout seconds), another exit status, an exit 2 that
says nothing on stderr, and an exit 0 or 1 that reads a malformed file as if
it were sound. Files under --regressions (the fuzzers' minimized crash
inputs) are replayed the same way; nothing declares them valid.

Prints a line per failure and ends with "N passed, N failed".
"""
import collections
import concurrent.futures
import fnmatch
import os
import random
import re
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import elfmut  # noqa: E402
import harness  # noqa: E402

LIB_C = r"""
int good_value = 42;
int good_function(int x) { return x + good_value; }
int good_old(void) { return 1; }
__asm__(".symver good_old, good_old@VERS_0");
"""
LIB_MAP = "VERS_0 { global: good_old; }; VERS_1 { global: good_function; good_value; local: *; } VERS_0;\n"
PLUGIN_C = r"""
#include <string.h>
extern int aoti_torch_get_device(void *, int *);
extern int good_function(int);
int AOTInductorModelContainerCreateWithDevice(void **c, unsigned n, const char *d, const char *b) {
  int dev; char buf[8]; memcpy(buf, d, 1);
  return aoti_torch_get_device(*c, &dev) + good_function(n) + buf[0] + (b != 0);
}
"""
HOST_C = r"""
#include <dlfcn.h>
#include <stdlib.h>
int aoti_torch_get_device(void *t, int *d) { (void)t; *d = 0; return 0; }
extern int good_function(int);
/* argv[1]: a library to open, argv[2..]: names it must let dlsym() find.
   Exit 0 only when every lookup succeeds: the loader oracle of VALID. */
int main(int argc, char **argv) {
  int mode = getenv("AOTI_ORACLE_LAZY") ? RTLD_LAZY : RTLD_NOW;
  void *h = argc > 1 ? dlopen(argv[1], mode) : 0;
  if (argc > 1 && !h) return 1;
  for (int i = 2; i < argc; ++i)
    if (!dlsym(h, argv[i])) return 1;
  return good_function(0) - 42;
}
"""
# A host that defines and links nothing the plugins need: `check --archive`
# must then look into the archive for good_function.
BARE_HOST_C = r"""
#include <dlfcn.h>
int main(int argc, char **argv) { return argc > 1 && !dlopen(argv[1], RTLD_NOW) ? 1 : 0; }
"""
NEEDS_GOOD_C = "extern int good_function(int);\nint model_run(void) { return good_function(1); }\n"
# What `link-input` links the file with: a reference the file may define.
USE_GOOD_C = "extern int good_function(int);\nint use_good(void) { return good_function(1); }\n"
FOREIGN_C = r"""
extern int aoti_torch_get_device(void *, int *);
int AOTInductorModelContainerCreateWithDevice(void **c) { int d; return aoti_torch_get_device(*c, &d); }
"""
OBJ2_C = "int aoti_torch_other(void) { return 2; }\nstatic int local_fn(void) { return 3; }\nint use(void) { return local_fn(); }\n"


def build_seeds(work, cc, clang):
    """Compiles the well-formed files everything else is mutated from."""
    w = harness.Workdir(os.path.join(work, "src"))
    src = w.root
    for name, text in (("lib.c", LIB_C), ("lib.map", LIB_MAP), ("plugin.c", PLUGIN_C),
                       ("host.c", HOST_C), ("obj2.c", OBJ2_C),
                       ("foreign.c", FOREIGN_C), ("bare_host.c", BARE_HOST_C),
                       ("needs_good.c", NEEDS_GOOD_C), ("use_good.c", USE_GOOD_C)):
        w.write(name, text)
    w.run(cc, "-shared", "-fPIC", "-o", "libgood.so", "lib.c", "-Wl,--version-script=lib.map",
          "-Wl,-soname,libgood.so")
    w.run(cc, "-shared", "-fPIC", "-o", "plugin.so", "plugin.c", "-L.", "-lgood")
    w.run(cc, "-o", "host", "host.c", "-rdynamic", "-L.", "-lgood", "-Wl,-rpath,$ORIGIN")
    w.run(cc, "-o", "bare_host", "bare_host.c")
    w.run(cc, "-shared", "-fPIC", "-o", "needs_good.so", "needs_good.c")
    w.run(cc, "-c", "-fPIC", "-o", "use_good.o", "use_good.c")
    w.run(cc, "-c", "-fPIC", "-o", "good.o", "lib.c")
    w.run(cc, "-c", "-fPIC", "-o", "obj2.o", "obj2.c")
    w.run("ar", "rcs", "libgood.a", "good.o", "obj2.o")
    w.run("ar", "rcsT", "libthin.a", "good.o", "obj2.o")
    # A plugin that needs a library only found through a symlink loop.
    w.write("loop.c", "int loop_fn(void) { return 0; }\n")
    w.write("needsloop.c", "extern int loop_fn(void);\nint needs(void) { return loop_fn(); }\n")
    w.run(cc, "-shared", "-fPIC", "-o", "libloop.so", "loop.c")
    w.run(cc, "-shared", "-fPIC", "-o", "needsloop.so", "needsloop.c", "-L.", "-lloop")
    os.remove(w.path("libloop.so"))
    others = {}
    if clang:
        for tag, target in (("i386", "i386-linux-gnu"), ("aarch64", "aarch64-linux-gnu"),
                            ("ppc64be", "powerpc64-linux-gnu")):
            out = os.path.join(src, f"other-{tag}.so")
            r = w.run(clang, f"--target={target}", "-nostdlib", "-fuse-ld=lld",
                      "-shared", "-fPIC", "-o", out, "foreign.c", check=False)
            if r.returncode == 0:
                others[tag] = out
    return src, others


def truncations(data, count):
    """count offsets spread over the file, plus the header boundaries."""
    n = len(data)
    offs = {0, 1, 4, 16, 52, 63, 64, n - 1}
    offs.update(int(n * i / count) for i in range(1, count))
    return sorted(o for o in offs if 0 <= o < n)


def make_corpus(work, src, others, extra_models):
    """Writes every malformed file; returns [(path, kind)]."""
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus)
    files = []

    def emit(name, data, kind):
        path = os.path.join(corpus, name)
        with open(path, "wb") as f:
            f.write(data)
        files.append((path, kind))

    seeds = [(os.path.join(src, n), n) for n in ("libgood.so", "plugin.so", "host", "good.o")]
    seeds += [(p, os.path.basename(p)) for p in extra_models]
    for path, name in seeds:
        data = open(path, "rb").read()
        # 40 cuts where the layout is richest, fewer elsewhere (test time).
        for off in truncations(data, 40 if name == "libgood.so" else 12):
            emit(f"{name}.trunc-{off}", data[:off], "elf")
        for mname, mdata in elfmut.elf_mutations(data):
            emit(f"{name}.{mname}", mdata, "elf")
    for name, thin in (("libgood.a", False), ("libthin.a", True)):
        data = open(os.path.join(src, name), "rb").read()
        for off in truncations(data, 40 if not thin else 12):
            emit(f"{name}.trunc-{off}", data[:off], "archive")
        for mname, mdata in elfmut.ar_mutations(data, thin):
            emit(f"{name}.{mname}", mdata, "archive")
    # An archive whose member is itself malformed.
    obj = open(os.path.join(src, "good.o"), "rb").read()
    for mname, mdata in list(elfmut.elf_mutations(obj))[:20]:
        d = os.path.join(work, "members", mname)
        os.makedirs(d)
        with open(os.path.join(d, "bad.o"), "wb") as f:
            f.write(mdata)
        harness.run(["ar", "rcS", os.path.join(corpus, f"member-{mname}.a"), "bad.o"], cwd=d)
        files.append((os.path.join(corpus, f"member-{mname}.a"), "archive"))
    # Thin archives whose members are missing or are directories.
    d = os.path.join(work, "thin")
    os.makedirs(d)
    shutil.copy(os.path.join(src, "good.o"), d)
    shutil.copy(os.path.join(src, "obj2.o"), d)
    harness.run(["ar", "rcsT", "thin-missing.a", "good.o", "obj2.o"], cwd=d)
    harness.run(["ar", "rcsT", "thin-dir.a", "good.o", "obj2.o"], cwd=d)
    os.remove(os.path.join(d, "obj2.o"))
    os.remove(os.path.join(d, "good.o"))
    os.makedirs(os.path.join(d, "good.o"))
    files += [(os.path.join(d, "thin-missing.a"), "archive"), (os.path.join(d, "thin-dir.a"), "archive")]
    # Files that are no binary at all.
    emit("empty", b"", "other")
    emit("elf-magic-only", b"\x7fELF", "other")
    emit("ar-magic-only", b"!<arch>\n", "other")
    emit("thin-magic-only", b"!<thin>\n", "other")
    emit("macho-magic-only", b"\xcf\xfa\xed\xfe", "other")
    emit("fat-magic-only", b"\xca\xfe\xba\xbe\x00\x00\x00\x7f", "other")
    rnd = random.Random(1)
    emit("random", bytes(rnd.randrange(256) for _ in range(4096)), "other")
    emit("text", b"this is not a binary\n" * 10, "other")
    os.makedirs(os.path.join(corpus, "a-directory"))
    files.append((os.path.join(corpus, "a-directory"), "other"))
    os.symlink("self-loop", os.path.join(corpus, "self-loop"))
    files.append((os.path.join(corpus, "self-loop"), "other"))
    # Another class, machine or byte order, whole and truncated.
    for tag, path in others.items():
        files.append((path, "foreign"))
        data = open(path, "rb").read()
        for off in truncations(data, 8):
            emit(f"{os.path.basename(path)}.trunc-{off}", data[:off], "foreign")
    return files


# --- Which malformed files are valid input, for which command -----------------
#
# A lie in a part of a file that a command's real counterpart never reads
# leaves the file valid for that command, and a report (exit 0 or 1) is the
# right answer there. Each row of VALID: the commands, the files (name
# globs), who decides, and why. Who decides:
#   "loader"  the real loader, in this run: the seed host dlopen()s the file
#             and dlsym()s what it defines (an executable: it runs, loads the
#             plugin and finds its entry point); valid when that works;
#   "ld"      GNU ld, which the `cc` of `link-input` runs: valid when it
#             links a reference to what the file defines against it;
#   "lld"     lld, the same: `dups` and `check --archive` stand for any link,
#             and lld reads no more of a file than a link needs;
#   "warns"   valid with a warning on stderr that names the file;
#   None      valid: a documented behaviour, nothing to ask.
# A file the decider refuses is bad input like any other: exit 2 (or AOTI210).
# The first row that matches a (command, file) decides.

ELF_SEEDS = ("libgood.so", "plugin.so", "host", "good.o")
EMPTY_ARCHIVES = ["libgood.a.magic-only", "libthin.a.magic-only", "ar-magic-only", "thin-magic-only"]
FOREIGN = ["other-i386.so", "other-aarch64.so", "other-ppc64be.so"]


def _mutants(*seeds):
    """Every mutation of these seeds, truncations included."""
    return ["%s.*" % seed for seed in seeds]


VALID = [
    # Another e_machine in a shared library or object: dups compares names,
    # and assumes its inputs are for one target (docs/dups.md, Limits).
    (("dups",), ["*.machine-unknown"], None, "dups does not read e_machine: its inputs are assumed to be "
     "for one target (docs/dups.md, Limits)"),
    # Shared libraries (and --model plugins) and the executable, as the
    # loader sees them: as a plugin, as a host, as what link --plugin reads.
    (("check-plugin", "check-host", "link-plugin"), _mutants("libgood.so", "plugin.so", "host", "MODEL"),
     "loader", "a lie ld.so never meets (section headers, .symtab, version counts): the file loads"),
    # As link inputs.
    (("link-input",), _mutants(*ELF_SEEDS, "MODEL") + EMPTY_ARCHIVES + ["member-*.a"], "ld",
     "a lie in what a link does not read: GNU ld links it"),
    (("dups", "check-archive"), _mutants("libgood.so", "plugin.so", "good.o", "MODEL") + EMPTY_ARCHIVES, "lld",
     "a lie in what a link does not read: lld links it"),
    (("dups",), ["a-directory"], None, "dups searches a directory for binaries (docs/dups.md); this one has none"),
    (("dups", "link-plugin"), FOREIGN, None,
     "a well-formed library of another machine: dups compares names (its inputs are assumed to be for one "
     "target), link --plugin reads the names it needs"),
    (("dups", "check-archive"), ["member-*.a"], "warns",
     "a member that cannot be read is a warning, not an error: a link that never extracts it never reads "
     "it (docs/dups.md, Inputs)"),
]


def valid_for(label, name, models=()):
    """(who decides, why) of the first VALID row for the command `label`
    and the file `name`, or None. MODEL in a row stands for each --model."""
    for labels, patterns, judge, reason in VALID:
        if label not in labels:
            continue
        for p in patterns:
            for q in ([p.replace("MODEL", m) for m in models] if "MODEL" in p else [p]):
                if fnmatch.fnmatch(name, q):
                    return judge, reason
    return None


class Oracle:
    """Asks the real loader or linker whether it takes a file; each answer
    once per file: None when it does, else what it said."""

    def __init__(self, args, src, work):
        self.args, self.src, self.work = args, src, work
        self.answers = {}
        self.locks = collections.defaultdict(threading.Lock)
        self.lock = threading.Lock()
        self.env = dict(os.environ, LD_LIBRARY_PATH=src)
        # A --model from a sanitizer build needs its runtime loaded first: the
        # seed host (not instrumented) preloads it, or ld.so's answer would be
        # ASan's refusal to start late rather than the file's.
        self.model_env = {}
        for m in args.model:
            needed = subprocess.run(["readelf", "-d", m], capture_output=True, text=True).stdout
            for lib in re.findall(r"\[(lib[a-z]san\.so[.0-9]*)\]", needed):
                path = subprocess.run([args.cc, "-print-file-name=" + lib],
                                      capture_output=True, text=True).stdout.strip()
                if os.path.isabs(path):
                    self.model_env = {"LD_PRELOAD": path, "ASAN_OPTIONS": "detect_leaks=0"}

    def __call__(self, kind, path):
        key = (kind, path)
        with self.lock:
            lock = self.locks[key]
        with lock:  # one question per file, however many commands ask it
            if key not in self.answers:
                self.answers[key] = getattr(self, kind)(path)
            return self.answers[key]

    def _run(self, argv, cwd, env=None):
        try:
            r = subprocess.run(argv, cwd=cwd, env=dict(self.env, **(env or {})), stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return "%s: hangs" % argv[0]
        except OSError as e:  # an executable the kernel will not run
            return "%s: %s" % (os.path.basename(argv[0]), e.strerror)
        if r.returncode == 0:
            return None
        return "%s exits %d: %s" % (os.path.basename(argv[0]), r.returncode,
                                    (r.stdout + r.stderr).decode(errors="replace").strip()[-300:])

    def _scratch(self, path, kind):
        d = os.path.join(self.work, "oracle", kind, os.path.basename(path))
        os.makedirs(d, exist_ok=True)
        return d

    def loader(self, path):
        name = os.path.basename(path)
        if name.startswith("host."):
            # An executable: it must start and load the plugin, whose
            # references it serves, and let dlsym() find the plugin's entry.
            exe = os.path.join(self._scratch(path, "loader"), "host")
            shutil.copy(path, exe)
            os.chmod(exe, 0o755)
            return self._run([exe, os.path.join(self.src, "plugin.so"),
                              "AOTInductorModelContainerCreateWithDevice"], self.src)
        if name.startswith("plugin.so"):
            syms, env = ["AOTInductorModelContainerCreateWithDevice"], None
        elif name.startswith("libgood.so"):
            syms, env = ["good_function", "good_value"], None
        else:
            # A --model: the seed host provides none of its shims, so it is
            # opened RTLD_LAZY: ld.so still reads all of it but the functions
            # it binds on first call.
            syms, env = (["AOTInductorModelContainerCreateWithDevice"],
                         dict(self.model_env, AOTI_ORACLE_LAZY="1"))
        return self._run([os.path.join(self.src, "host"), path] + syms, self.src, env)

    def _link(self, path, driver, kind):
        """`link-input`'s own line: a reference to good_function, then the file."""
        d = self._scratch(path, kind)
        return self._run(driver + ["-shared", "-o", os.path.join(d, "out.so"),
                                   os.path.join(self.src, "use_good.o"), path], d)

    def ld(self, path):
        return self._link(path, [self.args.cc, "-fuse-ld=bfd"], "ld")

    def lld(self, path):
        if not self.args.clang:
            return None  # no clang-19 here (CI has it): the row's reason stands unasked
        return self._link(path, [self.args.clang, "-fuse-ld=lld"], "lld")


class Runner:
    def __init__(self, args, src, work):
        self.args = args
        self.src = src
        self.oracle = Oracle(args, src, work)
        self.env = dict(os.environ)
        # Leaks on an error path are not crashes; a sanitizer report is.
        self.env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
        self.env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")

    def commands(self, path, kind):
        """(label, argv, names) per command: names are what may name the file."""
        a, s = self.args.audit, self.src
        host, plugin = os.path.join(s, "host"), os.path.join(s, "plugin.so")
        base = os.path.basename(path)
        out = [
            ("check-plugin", [a, "check", "--host", host, path]),
            ("check-host", [a, "check", "--host", path, plugin]),
            # The host defines nothing the plugin needs, so the archive is
            # read: is good_function in one of its members?
            ("check-archive", [a, "check", "--host", os.path.join(s, "bare_host"), "--prefix", "good_",
                               "--archive", path, os.path.join(s, "needs_good.so")]),
            ("dups", [a, "dups", path]),
            # --no-driver-query last: after a file option's value, `--` does
            # not yet end aoti-audit's own options (CLI11), see robustness.md.
            ("link-plugin", [a, "link", "--plugin", path, "--no-driver-query", "--",
                             "cc", "-o", "out", os.path.join(s, "good.o")]),
            # The line the "ld" decider of VALID links: use_good.o's
            # reference makes the link read the file (and extract a member).
            ("link-input", [a, "link", "--require-from", os.path.join(s, "libgood.a"),
                            "--prefix", "", "--no-driver-query", "--",
                            "cc", "-shared", "-o", "out.so", os.path.join(s, "use_good.o"), path]),
        ]
        if self.args.run:
            out.append(("aoti-run", [self.args.run, path, "--device", "cpu"]))
        return [(label, argv, (base,)) for label, argv in out]

    def run_one(self, label, argv, names, cwd, env=None, valid=None):
        """None when the run passes, else why it fails. `valid`: the
        (oracle, reason) that declares the file valid for this command."""
        try:
            r = subprocess.run(argv, cwd=cwd, env=env or self.env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return f"hang (> {self.args.timeout} s)"
        out, err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
        text = out + err
        if r.returncode < 0 or r.returncode >= 128:
            return f"crash (exit {r.returncode})\n" + tail(text)
        for report in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                       "terminate called", "Assertion `", "LLVM ERROR", "Stack dump:"):
            if report in text:
                return f"sanitizer/abort report ({report!r}), exit {r.returncode}\n" + tail(text)
        if r.returncode not in (0, 1, 2):
            return f"exit {r.returncode}\n" + tail(text)
        if r.returncode == 2:
            if not any(n in err for n in names):
                return f"exit 2 without saying on stderr what is wrong with {names[0]}\n" + tail(text)
            return None
        if label == "link-input" and r.returncode == 1 and any(
                any(n in block for n in names)
                for block in re.findall(r"error\[AOTI210\] link-input-problem: .*\n(?:    fix: .*)?", out)):
            return None  # the link stops on the file, and the finding (or its fix) names it
        if valid is None:
            return (f"exit {r.returncode}: a malformed file read as if it were sound (no message on "
                    f"stderr{' naming it' if err.strip() else ''}; if it is valid for {label}, say "
                    f"so in VALID)\n" + tail(text))
        oracle, reason = valid
        if oracle == "names":
            if not any(n in text for n in names):
                return f"exit {r.returncode} without naming {names[0]} ({reason})\n" + tail(text)
            return None
        if oracle == "warns":
            if not any(n in err for n in names):
                return f"exit {r.returncode} without the warning on stderr that VALID expects ({reason})\n" + tail(text)
            return None
        if oracle is not None:
            refused = self.oracle(oracle, argv_file(argv, names))
            if refused:
                who = {"loader": "ld.so", "ld": "GNU ld", "lld": "lld"}[oracle]
                return (f"exit {r.returncode}: a malformed file read as if it were sound, but {who} "
                        f"refuses it ({refused})\n" + tail(text))
        return None


def argv_file(argv, names):
    """The malformed file among a command's words."""
    return next(w for w in argv if os.path.basename(w) == names[0])


def tail(text, n=6):
    return "".join("    | " + line + "\n" for line in text.splitlines()[-n:])


def loop_cases(runner, work, src):
    """DT_NEEDED resolved through a search directory holding symlink loops."""
    d = os.path.join(work, "loopdir")
    os.makedirs(d)
    os.symlink("libloop.so", os.path.join(d, "libloop.so"))  # points at itself
    os.symlink("sub", os.path.join(d, "sub"))                 # a directory loop
    a, host = runner.args.audit, os.path.join(src, "host")
    plugin = os.path.join(src, "needsloop.so")
    cases = [
        ("loop-env", [a, "check", "--host", host, "--env", f"LD_LIBRARY_PATH={d}", plugin]),
        ("loop-libpath", [a, "check", "--host", host, "--lib-path", d, plugin]),
        ("loop-subdir", [a, "check", "--host", host, "--lib-path", os.path.join(d, "sub"), plugin]),
    ]
    env = dict(runner.env, LD_LIBRARY_PATH=d)
    # Not a malformed file: a library that cannot be found, which the
    # report (AOTI008, exit 1) must name.
    valid = ("names", "a DT_NEEDED found nowhere is a finding")
    return [(label, argv, ("libloop.so",), env, valid) for label, argv in cases]


def load_known_issues(path):
    """(command label, file-name pattern, line number): failures someone owns."""
    out = []
    if os.path.exists(path):
        for number, line in enumerate(open(path), 1):
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                out.append((line[0], line[1], number))
    return out


def is_known(known, label, name, used):
    """Whether a line of `known` matches; the lines that do go into `used`."""
    hits = [k for k in known if fnmatch.fnmatch(label, k[0]) and fnmatch.fnmatch(name, k[1])]
    used.update(hits)
    return bool(hits)


def main():
    p = harness.parser(__doc__, cases=False)
    p.add_argument("--run", help="aoti-run (optional)")
    p.add_argument("--model", action="append", default=[],
                   help="a model-like plugin to mutate as well (optional)")
    p.add_argument("--regressions", help="directory of inputs to replay")
    p.add_argument("--cc", default="cc")
    p.add_argument("--clang", default=shutil.which("clang-19") or "")
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--keep", help="write the corpus here and keep it")
    p.add_argument("--only", help="run only files whose name contains this")
    p.add_argument("--verbose", action="store_true",
                   help="list each pass on a file a VALID row declares valid, with the reason")
    args = p.parse_args()

    with harness.scratch("aoti-malformed-", at=args.keep) as work:
        src, others = build_seeds(work, args.cc, args.clang)
        files = make_corpus(work, src, others, args.model)
        if args.regressions and os.path.isdir(args.regressions):
            for name in sorted(os.listdir(args.regressions)):
                if not name.startswith(".") and not name.endswith(".md"):
                    files.append((os.path.join(args.regressions, name), "regression"))
        if args.only:
            files = [f for f in files if args.only in os.path.basename(f[0])]
        runner = Runner(args, src, work)
        cwd = os.path.join(work, "cwd")
        os.makedirs(cwd)
        models = [os.path.basename(m) for m in args.model]
        jobs = [(path, label, argv, names, None, valid_for(label, os.path.basename(path), models))
                for path, kind in files for label, argv, names in runner.commands(path, kind)]
        if not args.only:
            jobs += [(argv[-1], label, argv, names, env, valid)
                     for label, argv, names, env, valid in loop_cases(runner, work, src)]
        print(f"{len(files)} malformed files, {len(jobs)} runs", flush=True)
        known = load_known_issues(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "known_issues.txt"))
        expect = harness.Checks()
        valid_passes = xfail = 0
        used = set()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = {pool.submit(runner.run_one, label, argv, names, cwd, env, valid): (path, label, valid)
                    for path, label, argv, names, env, valid in jobs}
            for fut in concurrent.futures.as_completed(futs):
                path, label, valid = futs[fut]
                why = fut.result()
                name = os.path.basename(path)
                if why is not None and is_known(known, label, name, used):
                    xfail += 1
                    print(f"XFAIL {label} {name}: {why.splitlines()[0]}", flush=True)
                    continue
                if why is None and valid is not None:
                    valid_passes += 1
                    if args.verbose:
                        print(f"valid {label} {name}: {valid[1]}")
                expect(f"{label} {name}", why is None, (why or "").rstrip())
        for label, pattern, number in known:
            if (label, pattern, number) not in used and not args.only:
                print(f"note: known_issues.txt:{number}: {label} {pattern} matched no failure "
                      f"(fixed, or its command or file was not run here)")
        print(f"({valid_passes} of the passes read a file VALID declares valid for the command; "
              f"{xfail} known issues, not counted: known_issues.txt)")
        return expect.finish()


if __name__ == "__main__":
    sys.exit(main())
