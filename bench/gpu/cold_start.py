"""Cold start: wall time from spawning a command to its first line on stdout.

    python3 cold_start.py REPEATS CMD ARG...

prints one JSON object: the command, each repeat's seconds, and the median.
The first line is what a caller waits for: the first model output is ready.
"""
import json
import statistics
import subprocess
import sys
import time


def once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    t1 = time.perf_counter()
    rest, err = p.communicate()
    if p.returncode != 0 or not line:
        raise SystemExit(f"{cmd[0]} failed (rc {p.returncode}): {err[-2000:]}")
    return t1 - t0


def main():
    n = int(sys.argv[1])
    cmd = sys.argv[2:]
    times = [once(cmd) for _ in range(n)]
    print(json.dumps({"cmd": cmd, "seconds": [round(t, 4) for t in times],
                      "median_s": round(statistics.median(times), 4)}))


if __name__ == "__main__":
    main()
