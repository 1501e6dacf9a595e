#!/usr/bin/env python3
""".aoti-audit.toml: discovery, precedence, severities, suppressions.

Real binaries built with gcc in a temporary tree:
  host_noexport  defines aoti_torch_a and my_shim_b, exports neither
  model.so       needs both
  a.o, b.o       both define aoti_torch_dup (a dups finding)
The real loader is the oracle that the configuration changes the verdict
and never the facts: the model still fails to load under a suppression,
and the report says so. SARIF logs with suppressions and configuration
notifications are validated against the SARIF 2.1.0 schema.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pylib"))
import harness  # noqa: E402

ap = harness.parser(__doc__, cases=False)
ap.add_argument("--schema", required=True)
args = ap.parse_args()
args.audit = os.path.abspath(args.audit)
expect = harness.Checks()


def sh(cwd, *cmd):
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)


def audit(cwd, *argv):
    return subprocess.run([args.audit, *argv], cwd=cwd, capture_output=True, text=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


with harness.scratch("aoti-config-") as top:
    src = os.path.join(top, "src")
    write(os.path.join(src, "host.c"),
          "#include <dlfcn.h>\n#include <stdio.h>\n"
          "int aoti_torch_a(void) { return 1; }\nint my_shim_b(void) { return 2; }\n"
          "int main(int c, char **v) { void *h = dlopen(v[1], RTLD_NOW);\n"
          "  if (!h) { puts(dlerror()); return 1; } return 0; }\n")
    write(os.path.join(src, "model.c"),
          "int aoti_torch_a(void); int my_shim_b(void);\n"
          "int run(void) { return aoti_torch_a() + my_shim_b(); }\n")
    write(os.path.join(src, "dup.c"), "int aoti_torch_dup(void) { return 0; }\n")
    sh(src, "gcc", "host.c", "-o", "host_noexport", "-ldl")
    sh(src, "gcc", "-shared", "-fPIC", "model.c", "-o", "model.so")
    sh(src, "gcc", "-c", "dup.c", "-o", "a.o")
    sh(src, "gcc", "-c", "dup.c", "-o", "b.o")
    host, model = os.path.join(src, "host_noexport"), os.path.join(src, "model.so")

    # The oracle: the model does not load, whatever any configuration says.
    real = subprocess.run([host, model], capture_output=True, text=True)
    expect("ld.so refuses the model", real.returncode == 1 and "undefined symbol" in real.stdout,
           real.stdout)

    proj = os.path.join(top, "proj")
    deep = os.path.join(proj, "sub", "deeper")
    os.makedirs(deep)
    check = ["check", "--host", host, model]

    # No configuration anywhere above: the defaults.
    r = audit(deep, *check, "--format", "json")
    rep = json.loads(r.stdout)
    expect("no config: exit 1", r.returncode == 1, r.stderr)
    expect("no config: no config key", "config" not in rep, rep.keys())
    expect("no config: only aoti_torch_a is required",
           {f["symbol"] for f in rep["findings"]} == {"aoti_torch_a"}, rep["findings"])

    # Found by walking up; its prefixes are the default --prefix.
    write(os.path.join(proj, ".aoti-audit.toml"), 'prefixes = ["aoti_torch_", "my_shim_"]\n')
    r = audit(deep, *check, "--format", "json")
    rep = json.loads(r.stdout)
    expect("found above the working directory", rep.get("config", {}).get("path") ==
           os.path.join(proj, ".aoti-audit.toml"), rep.get("config"))
    expect("config prefixes apply", {f["symbol"] for f in rep["findings"]} ==
           {"aoti_torch_a", "my_shim_b"}, rep["findings"])
    r = audit(deep, *check, "--prefix", "aoti_torch_", "--format", "json")
    expect("--prefix wins over the config",
           {f["symbol"] for f in json.loads(r.stdout)["findings"]} == {"aoti_torch_a"}, r.stdout[:400])
    r = audit(deep, *check, "--no-config", "--format", "json")
    expect("--no-config reads none", "config" not in json.loads(r.stdout), r.stdout[:300])

    # --config names another file, which wins over the one found.
    other = os.path.join(top, "other.toml")
    write(other, '[severity]\nsymbol-not-exported = "warning"\n')
    r = audit(deep, *check, "--config", other)
    expect("--config: a rule made a warning exits 0", r.returncode == 0, r.stdout)
    expect("--config: the verdict still says it fails to load", "fails to load" in r.stdout, r.stdout)
    expect("--config: warning printed", "warning[AOTI002]" in r.stdout, r.stdout)
    write(other, '[severity]\nAOTI002 = "off"\n')
    r = audit(deep, *check, "--config", other, "--format", "json")
    expect("off drops the findings", json.loads(r.stdout)["findings"] == [], r.stdout[:300])
    r = audit(deep, "rules", "--config", other)
    expect("rules shows the configured severity",
           "AOTI002  symbol-not-exported  [error -> off]" in r.stdout, r.stdout[:400])
    r = audit(deep, "rules", "--no-config")
    expect("rules without config: defaults", "AOTI002  symbol-not-exported  [error]" in r.stdout, r.stdout[:400])

    # Suppressions: rule + symbol glob + file glob + plugin glob, with reasons;
    # one that matches nothing is reported.
    write(other, """
prefixes = ["aoti_torch_", "my_shim_"]

[[suppress]]
rule = "AOTI002"
symbol = "my_shim_*"
file = "host_noexport"
plugin = "*/model.so"
reason = "my_shim_ is bound by the launcher, BUILD-1"

[[suppress]]
rule = "AOTI002"
symbol = "aoti_torch_*"
file = "some_other_host"
reason = "never matches"
""")
    r = audit(deep, *check, "--config", other, "--format", "json")
    rep = json.loads(r.stdout)
    cfg = rep["config"]
    expect("suppression by globs", [f["symbol"] for f in cfg["suppressed"]] == ["my_shim_b"]
           and cfg["suppressed"][0]["reason"].startswith("my_shim_ is bound")
           and cfg["suppressed"][0]["suppression_line"] == 4, cfg)
    expect("the rest is kept", [f["symbol"] for f in rep["findings"]] == ["aoti_torch_a"], rep["findings"])
    expect("unused suppression listed", [u["line"] for u in cfg["unused_suppressions"]] == [11], cfg)
    r = audit(deep, *check, "--config", other)
    expect("text: suppressed count", "1 finding(s) suppressed (AOTI002 x1)" in r.stdout, r.stdout)
    expect("text: unused suppression warned with its line",
           "%s:11: suppression AOTI002 symbol aoti_torch_* file some_other_host matched no finding" % other
           in r.stdout, r.stdout)
    expect("text: still exit 1", r.returncode == 1, r.stdout)

    # SARIF: suppressed results carry a justification; an unused suppression
    # is a toolConfigurationNotification; the log is schema-valid.
    try:
        import jsonschema
        with open(args.schema) as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft4Validator)
        validator = cls(schema)
    except ImportError:
        validator = None
        print("config_test.py: no jsonschema; SARIF shape checked, not validated")
    r = audit(deep, *check, "--config", other, "--format", "sarif")
    log = json.loads(r.stdout)
    run = log["runs"][0]
    sup = [x for x in run["results"] if x.get("suppressions")]
    expect("sarif: one suppressed result", len(sup) == 1 and
           sup[0]["suppressions"][0]["justification"].startswith("my_shim_ is bound")
           and sup[0]["suppressions"][0]["kind"] == "external", sup)
    notes = run.get("invocations", [{}])[0].get("toolConfigurationNotifications", [])
    expect("sarif: unused suppression notified", len(notes) == 1 and
           notes[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 11, notes)
    if validator:
        errs = list(validator.iter_errors(log))
        expect("sarif: schema-valid", not errs, [e.message for e in errs[:5]])

    # dups: a file glob suppresses the pair found in a.o and b.o.
    write(other, '[[suppress]]\nrule = "AOTI101"\nfile = "a.o"\nreason = "vendored twice until 2.0"\n')
    r = audit(src, "dups", "a.o", "b.o")
    expect("dups: without config exit 1", r.returncode == 1, r.stdout)
    r = audit(src, "dups", "--config", other, "a.o", "b.o", "--format", "json")
    rep = json.loads(r.stdout)
    expect("dups: suppressed, exit 0", r.returncode == 0 and rep["duplicates"] == []
           and rep["config"]["suppressed"][0]["symbol"] == "aoti_torch_dup", r.stdout[:600])

    # link: a rule turned off.
    sh(src, "ar", "rc", "liba.a", "a.o")
    write(os.path.join(src, "main.c"), "int main(void) { return 0; }\n")
    sh(src, "gcc", "-c", "main.c", "-o", "host.o")
    line = ["--no-driver-query", "--", "gcc", "-o", "out", "host.o", "liba.a"]
    r = audit(src, "link", "--require-from", "liba.a", "--format", "json", *line)
    rules_fired = {f["rule"] for l in json.loads(r.stdout)["links"] for f in l["findings"]}
    expect("link: AOTI201 fires without config", r.returncode == 1 and "AOTI201" in rules_fired, r.stdout[:500])
    write(other, '[severity]\nAOTI201 = "off"\nAOTI202 = "off"\n')
    r = audit(src, "link", "--config", other, "--require-from", "liba.a", "--format", "json", *line)
    rep = json.loads(r.stdout)
    rules_fired = {f["rule"] for l in rep["links"] for f in l["findings"]}
    expect("link: off rules do not fire", "AOTI201" not in rules_fired and "config" in rep, r.stdout[:500])

    # Bad configurations: exit 2, the file and line named.
    for text, says in [('sevrity = 1\n', ":1: unknown key 'sevrity'"),
                       ('[severity]\nAOTI999 = "off"\n', ":2: no rule 'AOTI999'"),
                       ('[[suppress]]\nrule = "AOTI002"\n', ":1: a [[suppress]] needs reason"),
                       ('[[suppress]]\nrule = "AOTI002"\nreason = "r"\nfile = "[x"\n', ":4: file = \"[x\""),
                       ('[severity\n', ":1:")]:
        write(other, text)
        r = audit(deep, *check, "--config", other)
        expect("bad config %r exits 2" % text, r.returncode == 2, r.stdout + r.stderr)
        expect("bad config %r names the line" % text, other + says in r.stderr, r.stderr)
    write(os.path.join(proj, ".aoti-audit.toml"), "prefixes = [1]\n")
    r = audit(deep, *check)
    expect("a bad found config exits 2", r.returncode == 2 and ".aoti-audit.toml:1:" in r.stderr, r.stderr)

sys.exit(expect.finish())
