"""Merge inductor autotuning records into one.

    python3 record_merge.py OUT_CACHE_ROOT CACHE_ROOT...

Inductor keeps the timings of every autotuning it benchmarked in
CACHE_ROOT/cache/<file>, one JSON file per GPU, torch and Triton (the name
is a hash of them; "system" inside says which): "cache" maps op name, then
the autotuning's input key, then the float32 matmul precision, then each
candidate's hash to its time in ms (and holds pad_mm's timings, one value
per string key). ci/gpu-test.sh's zoo_seed_record gives an export every
record of its package there is (its own, a carried one, the committed one):
this writes OUT_CACHE_ROOT/cache/<file> holding all of their autotunings.
A candidate timed in two records keeps the first record's time (either is a
measurement; the export's own comes first). Records of different files
(another GPU) are kept apart, as inductor keeps them. Prints, per file, how many autotunings each
input held and how many the merged record holds. Exit 2 when an input is
not such a record.
"""
import json
import os
import sys


def merge_into(dst, src):
    """Adds src's timings to dst (nested dicts), keeping dst's where both have one."""
    for key, val in src.items():
        if isinstance(val, dict):
            merge_into(dst.setdefault(key, {}), val)
        else:
            dst.setdefault(key, val)


def autotunings(record):
    """Autotunings: op name -> input key -> ... (the record also holds
    inductor's pad_mm timings, a number or flag per string key)."""
    return sum(len(by_input) for by_input in record.get("cache", {}).values()
               if isinstance(by_input, dict))


def main():
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, roots = sys.argv[1], sys.argv[2:]
    merged = {}
    for root in roots:
        folder = os.path.join(root, "cache")
        if not os.path.isdir(folder):
            print(f"{root}: no record (cache/ missing)")
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            try:
                with open(path) as f:
                    rec = json.load(f)
                if not isinstance(rec, dict) or not isinstance(rec.get("cache"), dict):
                    raise ValueError("no \"cache\" object")
            except (OSError, ValueError) as e:
                print(f"record_merge.py: error: {path}: not an inductor autotuning record: {e}",
                      file=sys.stderr)
                return 2
            print(f"{path}: {autotunings(rec)} autotunings")
            if name not in merged:
                merged[name] = {"system": rec.get("system", {}), "cache": {}}
            merge_into(merged[name]["cache"], rec["cache"])
    os.makedirs(os.path.join(out, "cache"), exist_ok=True)
    for name, rec in merged.items():
        path = os.path.join(out, "cache", name)
        with open(path + ".tmp", "w") as f:
            json.dump(rec, f, indent=2)
        os.replace(path + ".tmp", path)
        print(f"merged {path}: {autotunings(rec)} autotunings "
              f"({rec['system'].get('device', {}).get('name', 'GPU not named')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
