#!/usr/bin/env python3
"""aoti-audit's command-line contract: exit status 0/1/2, JSON shape, usage
errors that say what is wrong, on the bundled example's real binaries."""
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402

ap = harness.parser(__doc__, cases=False)
ap.add_argument("--example-dir", required=True)
ap.add_argument("--archive", default="")
ap.add_argument("--man", default="", help="the generated aoti-audit.1")
args = ap.parse_args()
ex = args.example_dir
expect = harness.Checks()


def run(*argv):
    return subprocess.run([args.audit, *argv], capture_output=True, text=True)


have_example = os.path.exists(os.path.join(ex, "model.so"))
if have_example:
    model = os.path.join(ex, "model.so")
    ok = run("check", "--host", os.path.join(ex, "example_runner_ok"), model)
    expect("ok exits 0", ok.returncode == 0, ok.stdout + ok.stderr)
    bad = run("check", "--host", os.path.join(ex, "example_runner_noexport"), "--format", "json", model)
    expect("noexport exits 1", bad.returncode == 1, bad.stderr)
    rep = json.loads(bad.stdout)
    expect("schema_version", rep.get("schema_version") == 1)
    p = rep["plugins"][0]
    expect("plugin fields", set(p) >= {"path", "symbols", "loads", "ok"}, str(p.keys()))
    expect("does not load", p["loads"] is False)
    s = p["symbols"][0]
    expect("symbol fields", set(s) >= {"name", "status", "provider", "candidates"}, str(s.keys()))
    expect("all missing", all(x["status"] == "missing" for x in p["symbols"]))
    f = rep["findings"][0]
    expect("finding fields", set(f) >= {"rule", "severity", "symbol", "message", "fix"}, str(f.keys()))
    expect("AOTI002 with the flag", f["rule"] == "AOTI002" and "--export-dynamic" in f["fix"], str(f))
    if args.archive:
        plain = run("check", "--host", os.path.join(ex, "example_runner_plain"), "--archive", args.archive, model)
        expect("plain exits 1 with AOTI003", plain.returncode == 1 and "AOTI003" in plain.stdout
               and "--whole-archive" in plain.stdout, plain.stdout)

with tempfile.TemporaryDirectory() as d:
    text = os.path.join(d, "notes.txt")
    open(text, "w").write("not a binary\n")
    empty = os.path.join(d, "empty.so")
    open(empty, "w").close()
    host = args.audit  # any real ELF executable
    cases = [
        ("no arguments", [], "subcommand"),
        ("no plugin", ["check", "--host", host], "plugins"),
        ("missing file", ["check", "--host", host, os.path.join(d, "nope.so")], "nope.so"),
        ("text plugin", ["check", "--host", host, text], "not an ELF or Mach-O file"),
        ("empty plugin", ["check", "--host", host, empty], "is empty"),
        ("text host", ["check", "--host", text, host], "not an ELF or Mach-O file"),
        ("bad env", ["check", "--host", host, "--env", "JUSTANAME", host], "NAME=VALUE"),
        ("bad format", ["check", "--host", host, "--format", "xml", host], "format"),
        ("archive as plugin", ["check", "--host", host, args.archive], "archive") if args.archive else None,
        ("--all with --prefix", ["check", "--host", host, "--all", "--prefix", "x", host], "excludes"),
    ]
    for c in filter(None, cases):
        name, argv, says = c
        r = run(*argv)
        expect("%s exits 2" % name, r.returncode == 2, "rc=%d %s" % (r.returncode, r.stderr))
        expect("%s says why" % name, says in (r.stderr + r.stdout), r.stderr)

# A host that is a script (a pyenv shim, a launcher): the kernel runs its #!
# interpreter, which is what loads models. The audit exits 2 naming it; for
# `#!/usr/bin/env NAME`, the NAME that PATH finds, as env would. The oracle
# is the kernel itself: the script really runs under that interpreter.
with tempfile.TemporaryDirectory() as d:
    bindir = os.path.join(d, "bin")
    os.makedirs(bindir)
    # An interpreter only this PATH has, so the test sees PATH used.
    interp = os.path.join(bindir, "myinterp")
    shutil.copy(shutil.which("sh"), interp)
    env_script = os.path.join(d, "via_env")
    open(env_script, "w").write("#!/usr/bin/env myinterp\necho ran by $0\n")
    direct = os.path.join(d, "direct")
    open(direct, "w").write("#!/bin/sh -e\necho hi\n")
    os.chmod(env_script, 0o755)
    os.chmod(direct, 0o755)
    penv = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    real = subprocess.run([env_script], env=penv, capture_output=True, text=True)
    expect("script: the kernel runs it through env and PATH", real.returncode == 0 and "ran by" in real.stdout,
           real.stderr)
    r = subprocess.run([args.audit, "check", "--host", env_script, args.audit], env=penv,
                       capture_output=True, text=True)
    expect("script host exits 2", r.returncode == 2, "rc=%d %s" % (r.returncode, r.stdout))
    expect("script host: says script and names the interpreter PATH finds",
           "is a script" in r.stderr and "--host " + interp in r.stderr, r.stderr)
    r = run("check", "--host", direct, args.audit)
    expect("#!/bin/sh host exits 2 naming /bin/sh", r.returncode == 2 and "--host /bin/sh" in r.stderr,
           r.stderr)
    missing = os.path.join(d, "missing")
    open(missing, "w").write("#!/usr/bin/env no-such-interpreter-x\n")
    r = run("check", "--host", missing, args.audit)
    expect("script with an interpreter PATH lacks", r.returncode == 2 and "no-such-interpreter-x" in r.stderr
           and "not found" in r.stderr, r.stderr)

# Another machine: the real linker and the real loader refuse it, and the
# audit says so, naming the file (exit 2), instead of replaying a link or a
# load that cannot happen.
clang = shutil.which("clang-19")
if clang:
    with tempfile.TemporaryDirectory() as d:
        def sh(*cmd):
            return subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        open(os.path.join(d, "m.c"), "w").write("int f(void);\nint main(void) { return f(); }\n")
        open(os.path.join(d, "f.c"), "w").write("int f(void) { return 0; }\n")
        sh("cc", "-c", "m.c", "-o", "main.o")
        sh(clang, "--target=aarch64-linux-gnu", "-c", "f.c", "-o", "arm.o")
        sh(clang, "--target=aarch64-linux-gnu", "-fuse-ld=lld", "-nostdlib", "-shared",
           "f.c", "-o", "libarm.so")
        ld = sh("cc", "main.o", "arm.o", "-o", "out")
        expect("the linker refuses arm.o", ld.returncode != 0, ld.stderr)
        r = run("link", "--no-driver-query", "--cwd", d, "--", "cc", "main.o", "arm.o", "-o", "out")
        expect("link: another machine exits 2", r.returncode == 2, "rc=%d %s" % (r.returncode, r.stdout))
        expect("link: names arm.o and main.o", "arm.o" in r.stderr and "main.o" in r.stderr
               and "aarch64" in r.stderr.lower(), r.stderr)
        try:
            ctypes.CDLL(os.path.join(d, "libarm.so"))
            loads = True
        except OSError:
            loads = False
        expect("ld.so refuses libarm.so", not loads)
        host = args.audit
        r = run("check", "--host", host, os.path.join(d, "libarm.so"))
        expect("check: another machine exits 2", r.returncode == 2, "rc=%d %s" % (r.returncode, r.stdout))
        expect("check: names the plugin and the host", "libarm.so" in r.stderr
               and os.path.basename(host) in r.stderr and "x86_64" in r.stderr, r.stderr)

# Symbol names are bytes; JSON and SARIF are UTF-8. A name that is not valid
# UTF-8 (GNU as takes any byte in a quoted name) comes out as U+FFFD in valid
# JSON, from every command, instead of tripping llvm::json's assertion.
with tempfile.TemporaryDirectory() as d:
    def sh(*argv):
        subprocess.run(argv, cwd=d, check=True, capture_output=True)
    # The byte itself in the source: an escape in a quoted name is read
    # differently by .globl and by a label.
    open(os.path.join(d, "def.s"), "wb").write(
        b'.text\n.globl "aoti_torch_\xffx"\n"aoti_torch_\xffx":\n  ret\n'
        b'.section .note.GNU-stack,"",@progbits\n')
    open(os.path.join(d, "use.s"), "wb").write(
        b'.text\n.globl f\nf:\n  jmp "aoti_torch_\xffx"@PLT\n.section .note.GNU-stack,"",@progbits\n')
    open(os.path.join(d, "main.c"), "w").write("int main(void) { return 0; }\n")
    sh("cc", "-c", "def.s", "-o", "a.o")
    sh("cc", "-c", "def.s", "-o", "b.o")
    sh("cc", "-shared", "use.s", "-o", "libuse.so")
    sh("cc", "-c", "main.c", "-o", "main.o")
    sh("cc", "main.o", "-o", "host")
    nm = subprocess.run(["nm", "-D", "--undefined-only", "libuse.so"], cwd=d, capture_output=True)
    expect("utf8: the plugin really imports a non-UTF-8 name", b"aoti_torch_\xffx" in nm.stdout, repr(nm.stdout))
    ld = subprocess.run(["cc", "main.o", "a.o", "b.o", "-o", "out"], cwd=d, capture_output=True)
    expect("utf8: ld reports the duplicate", ld.returncode != 0 and b"multiple definition" in ld.stderr,
           repr(ld.stderr))
    for argv, want in ((["check", "--host", "host", "libuse.so"], 1),
                       (["dups", "a.o", "b.o"], 1),
                       (["link", "--no-driver-query", "--", "cc", "main.o", "a.o", "b.o", "-o", "out"], 1)):
        for fmt in ("json", "sarif"):
            r = subprocess.run([args.audit, argv[0], "--format", fmt, *argv[1:]], cwd=d, capture_output=True)
            try:
                doc = json.loads(r.stdout.decode("utf-8"))
            except ValueError as e:
                doc = None
            expect("utf8: %s --format %s exits %d" % (argv[0], fmt, want), r.returncode == want,
                   "rc=%d %s" % (r.returncode, r.stderr.decode(errors="replace")[-400:]))
            expect("utf8: %s --format %s is valid JSON naming aoti_torch_\ufffdx" % (argv[0], fmt),
                   doc is not None and "aoti_torch_\ufffdx" in r.stdout.decode("utf-8"), r.stdout[:200])

r = run("--help")
expect("--help exits 0", r.returncode == 0)
r = run("check", "--help")
expect("check --help has examples", r.returncode == 0 and "Examples:" in r.stdout, r.stdout[-300:])
r = run("rules")
expect("rules lists AOTI001", r.returncode == 0 and "AOTI001" in r.stdout)
# The man page is generated from --help: every command's every option and
# example line is in it, and groff renders it without a warning.
if args.man:
    page = open(args.man).read()
    unesc = page.replace("\\-", "-").replace("\\e", "\\")
    for cmd in ("check", "dups", "link", "rules"):
        expect("man: command %s" % cmd, ".SS %s" % cmd in page)
        h = run(cmd, "--help").stdout
        for opt in set(re.findall(r"^  (?:-\w,)?(--[\w-]+)", h, re.M)):
            expect("man: %s %s" % (cmd, opt), opt in unesc, opt)
        ex = h.split("Examples:", 1)
        if len(ex) == 2:
            for line in ex[1].split("\n\n", 1)[0].strip("\n").splitlines():
                expect("man: %s example %r" % (cmd, line.strip()), line.strip() in unesc)
    expect("man: examples are verbatim", ".nf" in page)
    g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", args.man], capture_output=True, text=True)
    expect("man: groff renders it cleanly", g.returncode == 0 and not g.stderr, g.stderr)

sys.exit(expect.finish())
