#!/usr/bin/python3
"""Python reference runtime baselines for kfjob's benchmark (bench/run.sh).

Builds workload W (bench/README.md) with python3-protobuf from the project's
proto/ files (protoc into a temporary directory, nothing is kept) the way
flytekit's TensorFlow plugin builds it (replica specs with the deprecated flat
fields 1-4, resources as ResourceEntry lists), and times:

  py.build_serialize   build + SerializeToString
  py.build_dict        build + MessageToDict (flytekit's get_custom)
  py.flytekit_template build + MessageToDict + json.dumps + json_format.Parse
                       into a Struct + TaskTemplate(type, custom, version)
                       serialized (flytekit's path to registration bytes)

Output (stdout), one per line:  `NAME ns_per_op` (median of the rounds) and
`hex NAME HEX` for the bytes bench.lua compares with kfjob's.

Usage: /usr/bin/python3 pyref.py --proto DIR [--rounds R] [--ms T]
       [--quick] [--cg CGCTL.so N]   (callgrind: N ops per benchmark, no timing)
       [--serve]   (interleaved: calibrate, print `ready`, then for each line
                    `round` on stdin run one round of every benchmark and
                    print `NAME ns_per_op` lines and `end`)
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

IMG = "ghcr.io/acme/trainer:2024.11-cuda12"


def load_pb(proto_dir, out):
    files = sorted(os.path.relpath(os.path.join(d, f), proto_dir)
                   for d, _, fs in os.walk(proto_dir) for f in fs if f.endswith(".proto"))
    subprocess.run(["protoc", "-I", proto_dir, "-I", "/usr/include", "--python_out=" + out] + files,
                   check=True)
    sys.path.insert(0, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ms", type=float, default=20.0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cg", nargs=2, metavar=("CGCTL", "N"))
    ap.add_argument("--serve", action="store_true")
    a = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="kfjob-bench-py-")
    load_pb(a.proto, tmp.name)
    from google.protobuf import json_format
    from google.protobuf.internal import api_implementation
    from google.protobuf.struct_pb2 import Struct
    from flyteidl.core import tasks_pb2 as core
    from flyteidl.plugins.kubeflow import tensorflow_pb2 as kf_tf
    from flyteidl.plugins.kubeflow import common_pb2 as kf_common

    R = core.Resources
    E = core.Resources.ResourceEntry
    CPU, MEM, GPU = R.CPU, R.MEMORY, R.GPU
    Spec = kf_tf.DistributedTensorflowTrainingReplicaSpec
    Task = kf_tf.DistributedTensorflowTrainingTask
    RunPolicy = kf_common.RunPolicy
    ON_FAILURE = 1
    ALL = kf_common.CLEANPOD_POLICY_ALL
    TaskTemplate = core.TaskTemplate
    MessageToDict, Parse, dumps = json_format.MessageToDict, json_format.Parse, json.dumps

    def build():
        # flytekit: _convert_replica_spec per group (a Resources message is
        # always set, even empty), then the task message with the run policy.
        worker = Spec(replicas=8, image=IMG, restart_policy=ON_FAILURE,
                      resources=R(requests=[E(name=CPU, value="8"), E(name=MEM, value="32Gi"),
                                            E(name=GPU, value="1")],
                                  limits=[E(name=CPU, value="16"), E(name=MEM, value="64Gi"),
                                          E(name=GPU, value="1")]))
        ps = Spec(replicas=2, image=IMG,
                  resources=R(requests=[E(name=CPU, value="4"), E(name=MEM, value="16Gi")], limits=[]))
        chief = Spec(replicas=1, resources=R(requests=[], limits=[]))
        evaluator = Spec(resources=R(requests=[], limits=[]))
        rp = RunPolicy(clean_pod_policy=ALL, ttl_seconds_after_finished=3600,
                       active_deadline_seconds=86400, backoff_limit=3)
        return Task(worker_replicas=worker, ps_replicas=ps, chief_replicas=chief,
                    evaluator_replicas=evaluator, run_policy=rp)

    def template(msg):
        custom = MessageToDict(msg)
        st = Struct()
        Parse(dumps(custom), st)
        tt = TaskTemplate(type="tensorflow", custom=st, task_type_version=1)
        return tt.SerializeToString(deterministic=True)

    def b_serialize(n):
        for _ in range(n):
            build().SerializeToString()

    def b_dict(n):
        for _ in range(n):
            MessageToDict(build())

    def b_template(n):
        for _ in range(n):
            template(build())

    benches = [("py.build_serialize", b_serialize), ("py.build_dict", b_dict),
               ("py.flytekit_template", b_template)]

    w = build()
    print("hex W.encode", w.SerializeToString(deterministic=True).hex())
    print("hex W.task_template", template(w).hex())
    print("info py.runtime python-protobuf-%s-%s" % (
        __import__("google.protobuf").protobuf.__version__, api_implementation.Type()))

    if a.cg:
        cg = ctypes.CDLL(a.cg[0])
        n = int(a.cg[1])
        for name, f in benches:
            f(max(1, n // 10))
            cg.kfbench_cg_start()
            f(n)
            cg.kfbench_cg_stop(name.encode())
            print("count", name, n)
        return

    clock = time.process_time_ns
    target = (0.2 if a.quick else a.ms) * 1e6
    rounds = 1 if a.quick else a.rounds
    iters = {}
    for name, f in benches:  # calibrate
        n = 1
        while True:
            t0 = clock(); f(n); t = clock() - t0
            if a.quick or t >= target / 4 or n >= 1 << 24:
                break
            n *= 2
        iters[name] = max(1, int(n * target / max(t, 1))) if not a.quick else n
    if a.serve:   # bench.lua asks for one round at a time, between its own rounds
        print("ready", flush=True)
        for line in sys.stdin:
            if line.strip() != "round":
                break
            for name, f in benches:
                n = iters[name]
                t0 = clock(); f(n); t = clock() - t0
                print(name, "%.1f" % (t / n))
            print("end", flush=True)
        return
    times = {name: [] for name, _ in benches}
    for _ in range(rounds):
        for name, f in benches:
            n = iters[name]
            t0 = clock(); f(n); t = clock() - t0
            times[name].append(t / n)
    for name, _ in benches:
        ts = sorted(times[name])
        print(name, "%.1f" % ts[len(ts) // 2])


if __name__ == "__main__":
    main()
