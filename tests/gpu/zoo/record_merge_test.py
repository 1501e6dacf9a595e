"""CPU-side checks of record_merge.py, run by ctest.

An export resumes from the merge of every autotuning record of its package
(ci/gpu-test.sh's zoo_seed_record); a wrong merge would make it benchmark
shapes again or, worse, drop measured ones. Checked on the committed
EfficientNet-B0 record, a real one written by inductor on an H100: split in
two by shape, the halves merge back into exactly the original; a candidate
timed in both keeps the first input's time; pad_mm's scalar entries survive;
a record of another GPU (another file name) is kept apart; an input without
cache/ is reported and skipped; a file that is not a record exits 2.
"""
import copy
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MERGE = os.path.join(HERE, "record_merge.py")
RECORD = os.path.join(HERE, "autotune", "efficientnet_b0.executorch.float32.cuda.tar.gz")


def committed_record():
    with tarfile.open(RECORD) as t:
        member = next(m for m in t.getmembers() if m.isfile())
        return os.path.basename(member.name), json.load(t.extractfile(member))


def write(root, name, rec):
    os.makedirs(os.path.join(root, "cache"), exist_ok=True)
    with open(os.path.join(root, "cache", name), "w") as f:
        json.dump(rec, f)


def read(root, name):
    with open(os.path.join(root, "cache", name)) as f:
        return json.load(f)


def merge(*args):
    return subprocess.run([sys.executable, MERGE, *args], capture_output=True, text=True)


class RecordMergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.name, self.rec = committed_record()

    def tearDown(self):
        self.tmp.cleanup()

    def halves(self):
        """The record split by shape, alternately; scalar entries in both."""
        a = {"system": self.rec["system"], "cache": {}}
        b = copy.deepcopy(a)
        i = 0
        for op, by_input in self.rec["cache"].items():
            if not isinstance(by_input, dict):
                a["cache"][op] = b["cache"][op] = by_input
                continue
            for key, val in by_input.items():
                (a if i % 2 else b)["cache"].setdefault(op, {})[key] = val
                i += 1
        return a, b, i

    def test_halves_merge_back_into_the_original(self):
        a, b, shapes = self.halves()
        self.assertGreaterEqual(shapes, 38)
        write(f"{self.dir}/a", self.name, a)
        write(f"{self.dir}/b", self.name, b)
        r = merge(f"{self.dir}/out", f"{self.dir}/a", f"{self.dir}/b")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(read(f"{self.dir}/out", self.name), self.rec)
        self.assertIn(f"{shapes} autotunings", r.stdout.splitlines()[-1])

    def test_a_candidate_timed_twice_keeps_the_first_time(self):
        op = next(k for k, v in self.rec["cache"].items() if isinstance(v, dict))
        key = next(iter(self.rec["cache"][op]))
        prec = next(iter(self.rec["cache"][op][key]))
        cand = next(iter(self.rec["cache"][op][key][prec]))
        other = copy.deepcopy(self.rec)
        other["cache"][op][key][prec][cand] = 12345.0
        write(f"{self.dir}/first", self.name, other)
        write(f"{self.dir}/second", self.name, self.rec)
        self.assertEqual(merge(f"{self.dir}/out", f"{self.dir}/first", f"{self.dir}/second").returncode, 0)
        self.assertEqual(read(f"{self.dir}/out", self.name)["cache"][op][key][prec][cand], 12345.0)

    def test_the_output_may_be_an_input(self):
        a, b, _ = self.halves()
        write(f"{self.dir}/own", self.name, a)
        write(f"{self.dir}/carried", self.name, b)
        self.assertEqual(merge(f"{self.dir}/own", f"{self.dir}/own", f"{self.dir}/carried").returncode, 0)
        self.assertEqual(read(f"{self.dir}/own", self.name), self.rec)

    def test_another_gpus_record_is_kept_apart(self):
        other = {"system": {"device": {"name": "Another GPU"}}, "cache": {"mm": {"k": {"highest": {"c": 1.0}}}}}
        write(f"{self.dir}/a", self.name, self.rec)
        write(f"{self.dir}/b", "another-hash", other)
        self.assertEqual(merge(f"{self.dir}/out", f"{self.dir}/a", f"{self.dir}/b").returncode, 0)
        self.assertEqual(read(f"{self.dir}/out", self.name), self.rec)
        self.assertEqual(read(f"{self.dir}/out", "another-hash"), other)

    def test_an_input_without_a_record_is_skipped(self):
        write(f"{self.dir}/a", self.name, self.rec)
        os.makedirs(f"{self.dir}/empty")
        r = merge(f"{self.dir}/out", f"{self.dir}/empty", f"{self.dir}/a")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no record", r.stdout)
        self.assertEqual(read(f"{self.dir}/out", self.name), self.rec)

    def test_a_file_that_is_not_a_record_exits_2(self):
        for text in ("{}", "[1, 2]", "not json"):
            os.makedirs(f"{self.dir}/bad/cache", exist_ok=True)
            with open(f"{self.dir}/bad/cache/x", "w") as f:
                f.write(text)
            r = merge(f"{self.dir}/out", f"{self.dir}/bad")
            self.assertEqual(r.returncode, 2, text)
            self.assertIn("not an inductor autotuning record", r.stderr)

    def test_no_inputs_exits_2(self):
        self.assertEqual(merge(f"{self.dir}/out").returncode, 2)


if __name__ == "__main__":
    unittest.main()
