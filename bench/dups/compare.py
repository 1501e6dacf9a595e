#!/usr/bin/env python3
"""Do `aoti-audit dups --all --cxx` and `nm -A -g -P | sort | uniq -d` find the
same names? Every difference must be explained by one of the rules below, or
this exits 1.

Rules (each one a documented behaviour of `dups`, docs/dups.md):
  same-file   nm counts a file reached through two paths (libcurses.a is a
              symlink to libncurses.a) twice; dups reads each file once
              (device and inode), so such a name is no duplicate to it.
  c++         with --no-cxx (the report came from `dups --all` without
              --cxx): a mangled C++ name (_Z...), which dups looks at only
              with --cxx.

Usage: compare.py [--no-cxx] PIPELINE_NAMES NM_RAW DUPS_JSON
"""
import collections
import json
import os
import re
import sys

argv = sys.argv[1:]
no_cxx = argv[:1] == ["--no-cxx"]
if no_cxx:
    argv = argv[1:]
if len(argv) != 3:
    sys.exit(__doc__)
names_file, raw_file, dups_file = argv
pipeline = set(open(names_file).read().split())
report = json.load(open(dups_file))
dups = {d["name"] for d in report["duplicates"]}

# name -> [(file, member)] from `nm -A -P`: "lib.a[member.o]: name T 0 10"
defs = collections.defaultdict(list)
line_re = re.compile(r"^(.*?)(?:\[(.*)\])?: (\S+) ")
for line in open(raw_file):
    m = line_re.match(line)
    if m:
        defs[m.group(3)].append((m.group(1), m.group(2) or ""))

identity = {}
def same_file_id(path):
    if path not in identity:
        st = os.stat(path)
        identity[path] = (st.st_dev, st.st_ino)
    return identity[path]

explained = collections.Counter()
unexplained = []
for name in sorted(pipeline - dups):
    places = {(same_file_id(f), m) for f, m in defs[name]}
    if no_cxx and name.startswith("_Z"):
        explained["c++"] += 1
    elif len(places) < 2:
        explained["same-file"] += 1
    else:
        unexplained.append(("pipeline only", name))
for name in sorted(dups - pipeline):
    unexplained.append(("dups only", name))

kinds = collections.Counter(d["kind"] for d in report["duplicates"])
print("names: pipeline %d, dups %d, both %d" % (len(pipeline), len(dups), len(pipeline & dups)))
print("dups by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
for rule, n in sorted(explained.items()):
    print("explained (%s): %d names the pipeline alone reports" % (rule, n))
if unexplained:
    print("UNEXPLAINED: %d differences, e.g. %s" % (len(unexplained), unexplained[:10]))
    sys.exit(1)
print("agreement: every difference explained")
