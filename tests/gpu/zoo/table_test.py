"""CPU-side checks of the zoo's table merge (table.py), run by ctest.

The zoo itself needs the GPU machine; the merge that turns its calls'
zoo.json files into the table of docs/aoti-run.md does not, and a wrong
merge would misreport what ran. Checked here on synthetic zoo.json files:
a later file's row replaces an earlier one of the same package, labels fill
the "run" column with the GPU or CPU the file names, --catalogue adds a
"not run" row for every package of the named sets that no file measured (and
counts it), and bad arguments exit 2.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo  # noqa: E402

TABLE = os.path.join(HERE, "table.py")


def row(model, options, dtype, device, status="ok", **kw):
    r = {"model": model, "options": options, "dtype": dtype, "device": device,
         "tag": zoo.tag(model, options, dtype, device), "status": status, "detail": ""}
    if status == "ok":
        r.update(max_abs_err=1e-6, err_over_scale=1e-6, aoti_p50_ms=1.0, eager_p50_ms=2.0, ratio=0.5)
    r.update(kw)
    return r


class TableTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, rows, machine=None):
        path = os.path.join(self.dir.name, name)
        doc = {"schema_version": 1, "rows": rows}
        if machine is not None:
            doc["machine"] = machine
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def table(self, *args):
        out = os.path.join(self.dir.name, "table.md")
        p = subprocess.run([sys.executable, TABLE, *args[:-1], out, *args[-1]],
                           capture_output=True, text=True)
        text = ""
        if p.returncode == 0:
            with open(out) as f:
                text = f.read()
        return p.returncode, text, p.stderr

    def body(self, text):
        return [ln for ln in text.splitlines()
                if ln.startswith("| ") and not ln.startswith(("| model ", "| --- "))]

    def test_later_file_wins_and_labels_fill_the_run_column(self):
        a = self.write("a.json", [row("bert", "default", "float32", "cuda", aoti_p50_ms=9.0, ratio=4.5),
                                  row("gpt2", "default", "float32", "cuda")])
        b = self.write("b.json", [row("bert", "default", "float32", "cuda", aoti_p50_ms=1.5, ratio=0.75)])
        rc, text, err = self.table([f"{a}=first", f"{b}=second"])
        self.assertEqual(rc, 0, err)
        lines = self.body(text)
        self.assertEqual(len(lines), 2)
        bert = next(ln for ln in lines if ln.startswith("| bert "))
        self.assertIn("| 1.5000 |", bert)
        self.assertTrue(bert.endswith("| second |"), bert)
        self.assertTrue(next(ln for ln in lines if ln.startswith("| gpt2 ")).endswith("| first |"))
        self.assertIn("2/2 packages ok;", text)

    def test_the_run_column_names_the_processor_that_ran_the_row(self):
        # The device tool lends an H100 or an H200: a merged table must say which.
        a = self.write("a.json", [row("bert", "default", "float32", "cuda"),
                                  row("bert", "simd", "float32", "cpu")],
                       machine={"gpu": "NVIDIA H100 80GB HBM3", "cpu": "Intel Xeon Platinum 8480+"})
        b = self.write("b.json", [row("gpt2", "default", "float32", "cuda")],
                       machine={"gpu": None, "cpu": None})
        rc, text, err = self.table([f"{a}=call 1", f"{b}=call 2"])
        self.assertEqual(rc, 0, err)
        lines = self.body(text)
        cuda = next(ln for ln in lines if ln.startswith("| bert | default "))
        cpu = next(ln for ln in lines if ln.startswith("| bert | simd "))
        self.assertTrue(cuda.endswith("| call 1, NVIDIA H100 80GB HBM3 |"), cuda)
        self.assertTrue(cpu.endswith("| call 1, Intel Xeon Platinum 8480+ |"), cpu)
        self.assertTrue(next(ln for ln in lines if ln.startswith("| gpt2 ")).endswith("| call 2 |"))

    def test_rows_follow_the_catalogue_order(self):
        a = self.write("a.json", [row("gpt2", "default", "float32", "cuda"),
                                  row("resnet18", "default", "float32", "cuda")])
        rc, text, err = self.table([a])
        self.assertEqual(rc, 0, err)
        models = [ln.split("|")[1].strip() for ln in self.body(text)]
        names = [m.name for m in zoo.MODELS]
        self.assertEqual(models, sorted(models, key=names.index))

    def test_catalogue_lists_every_package_and_counts_the_missing(self):
        measured = [row("bert", "default", "float32", "cuda"),
                    row("llama", "default", "bfloat16", "cuda", status="export-timeout",
                        detail="timed out after 470 s")]
        a = self.write("a.json", measured)
        rc, text, err = self.table("--catalogue", "default", [a])
        self.assertEqual(rc, 0, err)
        expected = len(zoo.packages("default"))
        lines = self.body(text)
        self.assertEqual(len(lines), expected)
        missing = expected - len(measured)
        self.assertEqual(sum("| not run |" in ln for ln in lines), missing)
        self.assertIn(f"1/{expected} packages ok (export-timeout 1, not run {missing});", text)

    def test_bad_arguments_exit_2(self):
        a = self.write("a.json", [row("bert", "default", "float32", "cuda")])
        self.assertEqual(self.table("--catalogue", "nope", [a])[0], 2)
        self.assertEqual(self.table([os.path.join(self.dir.name, "absent.json")])[0], 2)
        p = subprocess.run([sys.executable, TABLE, "--catalogue"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
