#!/usr/bin/env python3
"""Never crash, never lie: every command on every malformed file.

Builds real binaries (a shared library, a plugin, an executable, an object,
an archive, a thin archive) with cc and ar in a temporary directory, mutates
them (elfmut.py), and runs every command of aoti-audit and aoti-run on each
result. A run passes when it
  - exits 2 and names the file, or
  - exits 0 or 1 and names the file (a finding, or a note that it was read),
and fails when it crashes (a signal, exit status >= 128, a sanitizer report),
hangs (--timeout seconds), exits otherwise, or never says which file it
could not read. Files under --regressions (the fuzzers' minimized crash
inputs) are replayed the same way.

Prints a line per failure and ends with "N passed, N failed".
"""
import concurrent.futures
import fnmatch
import os
import random
import shutil
import subprocess
import sys

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
int aoti_torch_get_device(void *t, int *d) { (void)t; *d = 0; return 0; }
extern int good_function(int);
int main(int argc, char **argv) { return argc > 1 && !dlopen(argv[1], RTLD_NOW) ? 1 : good_function(0) - 42; }
"""
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
                       ("foreign.c", FOREIGN_C)):
        w.write(name, text)
    w.run(cc, "-shared", "-fPIC", "-o", "libgood.so", "lib.c", "-Wl,--version-script=lib.map",
          "-Wl,-soname,libgood.so")
    w.run(cc, "-shared", "-fPIC", "-o", "plugin.so", "plugin.c", "-L.", "-lgood")
    w.run(cc, "-o", "host", "host.c", "-rdynamic", "-L.", "-lgood", "-Wl,-rpath,$ORIGIN")
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


class Runner:
    def __init__(self, args, src):
        self.args = args
        self.src = src
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
            ("check-archive", [a, "check", "--host", host, "--archive", path, plugin]),
            ("dups", [a, "dups", path]),
            # --no-driver-query last: after a file option's value, `--` does
            # not yet end aoti-audit's own options (CLI11), see robustness.md.
            ("link-plugin", [a, "link", "--plugin", path, "--no-driver-query", "--",
                             "cc", "-o", "out", os.path.join(s, "good.o")]),
            ("link-input", [a, "link", "--require-from", os.path.join(s, "libgood.a"),
                            "--prefix", "", "--no-driver-query", "--",
                            "cc", "-o", "out", path]),
        ]
        if self.args.run:
            out.append(("aoti-run", [self.args.run, path, "--device", "cpu"]))
        return [(label, argv, (base,)) for label, argv in out]

    def run_one(self, label, argv, names, cwd, env=None):
        try:
            r = subprocess.run(argv, cwd=cwd, env=env or self.env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return f"hang (> {self.args.timeout} s)"
        text = r.stdout.decode(errors="replace")
        if r.returncode < 0 or r.returncode >= 128:
            return f"crash (exit {r.returncode})\n" + tail(text)
        for report in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer",
                       "terminate called", "Assertion `", "LLVM ERROR", "Stack dump:"):
            if report in text:
                return f"sanitizer/abort report ({report!r}), exit {r.returncode}\n" + tail(text)
        if r.returncode not in (0, 1, 2):
            return f"exit {r.returncode}\n" + tail(text)
        if not any(n in text for n in names):
            if r.returncode == 0 and not self.args.strict:
                # Read without complaint: the lie did not touch what this
                # command reads (an e_machine dups does not look at, an
                # archive check never needed). Counted, not failed.
                return "silent"
            return f"exit {r.returncode} without naming {names[0]}\n" + tail(text)
        return None


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
    return [(label, argv, ("libloop.so",), env) for label, argv in cases]


def load_known_issues(path):
    """(command label, file-name pattern) pairs: failures someone owns."""
    out = []
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                out.append((line[0], line[1]))
    return out


def is_known(known, label, name):
    return any(fnmatch.fnmatch(label, l) and fnmatch.fnmatch(name, n) for l, n in known)


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
    p.add_argument("--strict", action="store_true",
                   help="an exit 0 that does not name the file fails too")
    p.add_argument("--verbose", action="store_true")
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
        runner = Runner(args, src)
        cwd = os.path.join(work, "cwd")
        os.makedirs(cwd)
        jobs = [(path, label, argv, names, None)
                for path, kind in files for label, argv, names in runner.commands(path, kind)]
        if not args.only:
            jobs += [(plugin_path, label, argv, names, env)
                     for label, argv, names, env in loop_cases(runner, work, src)
                     for plugin_path in [argv[-1]]]
        print(f"{len(files)} malformed files, {len(jobs)} runs", flush=True)
        known = load_known_issues(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "known_issues.txt"))
        expect = harness.Checks()
        silent = xfail = 0
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = {pool.submit(runner.run_one, label, argv, names, cwd, env): (path, label, argv)
                    for path, label, argv, names, env in jobs}
            for fut in concurrent.futures.as_completed(futs):
                path, label, argv = futs[fut]
                why = fut.result()
                name = os.path.basename(path)
                if why == "silent":
                    silent += 1
                    if args.verbose:
                        print(f"silent {label} {name}")
                if why not in (None, "silent") and is_known(known, label, name):
                    xfail += 1
                    print(f"XFAIL {label} {name}: {why.splitlines()[0]}", flush=True)
                    continue
                expect(f"{label} {name}", why in (None, "silent"), (why or "").rstrip())
        print(f"({silent} of the passes exit 0 without naming the file; "
              f"{xfail} known issues, not counted: known_issues.txt)")
        return expect.finish()


if __name__ == "__main__":
    sys.exit(main())
