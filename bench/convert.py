#!/usr/bin/python3
"""`kfjob convert FILE -f lua` against PyYAML's C loader (bench/run.sh).

Usage: convert.py KFJOB FILE ROUNDS

Times, interleaved for ROUNDS rounds, the CPU time (user + system) of one
`KFJOB convert FILE -f lua` child process (its output to /dev/null) and of
this process parsing FILE's documents with
`yaml.load_all(text, Loader=yaml.CSafeLoader)` (libyaml's parser, building
Python objects, no jobs); prints the medians as `convert.kfjob SECONDS` and
`convert.pyyaml SECONDS`, or `skip REASON` / `failed REASON`.
"""
import resource
import subprocess
import sys
import time


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    kfjob, path, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        import yaml
        loader = yaml.CSafeLoader
    except (ImportError, AttributeError):
        print("skip python3-yaml with libyaml (CSafeLoader) not found")
        return
    with open(path) as f:
        text = f.read()
    kf, py = [], []
    for _ in range(rounds):
        t0 = child_cpu()
        p = subprocess.run([kfjob, "convert", path, "-f", "lua"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, check=False)
        kf.append(child_cpu() - t0)
        if p.returncode != 0:
            err = p.stderr.decode(errors="replace").strip().splitlines()
            print("failed exit %d: %s" % (p.returncode, err[-1] if err else ""))
            return
        t0 = time.process_time()
        n = sum(1 for _ in yaml.load_all(text, Loader=loader))
        py.append(time.process_time() - t0)
    kf.sort()
    py.sort()
    print("docs %d" % n)
    print("convert.kfjob %.6f" % kf[len(kf) // 2])
    print("convert.pyyaml %.6f" % py[len(py) // 2])


if __name__ == "__main__":
    main()
