#!/usr/bin/python3
"""Reference ClusteredTaskSpec payloads for spec/clustered_spec.lua.

An independent re-implementation, on the reference protobuf runtime, of what
flyte-sdk's ClusteredTaskEnvironment writes with TorchRun
(src/flyte/clustered/_environment.py to_custom_dict: MessageToDict of a
flyteidl2.plugins.ClusteredTaskSpec), for the job each case describes, with
kfjob's documented mapping (SPEC 18): an Elastic job's nnodes -> replicas,
nproc_per_node, rdzv_backend (c10d -> C10D, else STATIC), max_restarts ->
runtime.torchrun; a PyTorchJob -> replicas = master + workers,
nproc_per_node 1; run_policy.backoff_limit -> failure_policy.max_restarts,
run_policy.ttl_seconds_after_finished -> the TTL; interconnect,
restart_on_host_maintenance.  The project's proto/ is compiled with protoc
into a temporary directory.  Nothing here uses kfjob's code.

Input: a JSON list of {name, kind, job, template} (file argument); with a
template {image, args, env, gpu} the output is the flyteidl.core.TaskTemplate
flyte-sdk's ClusteredTaskTemplate registers (type clustered-task, version 1,
custom the spec's dict as a Struct, the container).  Output: one line
per case, name<TAB>hex<TAB>json: the deterministic serialization and
json.dumps(MessageToDict(...), separators=(",", ":")).

Usage: /usr/bin/python3 clustered_ref.py --proto DIR cases.json
"""
import json
import os
import subprocess
import sys
import tempfile


def load(proto_dir, out):
    files = sorted(os.path.relpath(os.path.join(d, f), proto_dir)
                   for d, _, fs in os.walk(proto_dir) for f in fs if f.endswith(".proto"))
    subprocess.run(["protoc", "-I", proto_dir, "-I", "/usr/include", "--python_out=" + out] + files,
                   check=True)
    sys.path.insert(0, out)
    from flyteidl2.plugins import clustered_pb2
    return clustered_pb2


def template_of(spec, t):
    """flyte-sdk's ClusteredTaskTemplate: type clustered-task, version 1,
    custom = MessageToDict(spec) as a Struct, the task's container."""
    from google.protobuf import json_format
    from flyteidl.core import tasks_pb2
    tt = tasks_pb2.TaskTemplate(type="clustered-task", task_type_version=1)
    tt.custom.update(json_format.MessageToDict(spec))
    c = tt.container
    c.image = t["image"]
    c.args.extend(t.get("args", []))
    for k in sorted(t.get("env", {})):
        c.env.add(key=k, value=t["env"][k])
    if "gpu" in t:
        c.resources.limits.add(name=tasks_pb2.Resources.GPU, value=str(t["gpu"]))
    return tt


def spec_of(pb, kind, job):
    m = pb.ClusteredTaskSpec()
    torch = m.runtime.torchrun
    torch.SetInParent()            # TorchRun() is always written
    if kind == "Elastic":
        m.replicas = int(job["nnodes"])
        m.nproc_per_node = int(job.get("nproc_per_node", 1))
        backend = job.get("rdzv_backend", "c10d")
        torch.rdzv_backend = pb.C10D if backend == "c10d" else pb.STATIC
        torch.max_restarts = int(job.get("max_restarts", 0))
    else:
        master = int((job.get("master") or {}).get("replicas", 1))
        workers = int((job.get("worker") or {}).get("replicas", 0))
        m.replicas = master + workers
        m.nproc_per_node = 1
    m.interconnect = {"tcp": pb.TCP, "efa": pb.EFA, "infiniband": pb.INFINIBAND,
                      "roce": pb.ROCE}[job.get("interconnect", "tcp")]
    rp = job.get("run_policy") or {}
    restarts = int(rp.get("backoff_limit", 0))
    maint = bool(job.get("restart_on_host_maintenance", False))
    if restarts or maint:          # only when a field of it is set
        m.failure_policy.max_restarts = restarts
        m.failure_policy.restart_on_host_maintenance = maint
    if "ttl_seconds_after_finished" in rp:
        m.ttl_seconds_after_finished.value = int(rp["ttl_seconds_after_finished"])
    return m


def main(argv):
    proto = argv[argv.index("--proto") + 1]
    with open(argv[-1], encoding="utf-8") as f:
        cases = json.load(f)
    from google.protobuf import json_format
    with tempfile.TemporaryDirectory() as tmp:
        pb = load(proto, tmp)
        for c in cases:
            m = spec_of(pb, c["kind"], c["job"])
            if c.get("template"):
                m = template_of(m, c["template"])
            hexs = m.SerializeToString(deterministic=True).hex()
            js = json.dumps(json_format.MessageToDict(m), separators=(",", ":"), ensure_ascii=False)
            print("%s\t%s\t%s" % (c["name"], hexs, js))


if __name__ == "__main__":
    main(sys.argv[1:])
