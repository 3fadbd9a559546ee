#!/usr/bin/python3
"""Reference outputs for the kfjob conformance suite.

An independent re-implementation of flytekit's Kubeflow `get_custom` (FACTS.md
section 2) on top of the reference protobuf runtime: the project's .proto files
are compiled with protoc into a temporary directory and the messages are built
with the generated *_pb2 classes, exactly as flytekit builds them. Nothing here
uses kfjob's code.

Input: a JSON list of cases (file argument or stdin), as written by
spec/conformance_spec.lua from spec/conformance/cases.lua.
Output: one line per case, `name<TAB>hex<TAB>json`, where hex is the
deterministic serialization and json is MessageToDict (key order preserved):
of the plugin message for plain cases, of the flyteidl.core.TaskTemplate for
cases with a `template` table.

Cases with a `taskspec` table give a flyteidl.admin.TaskSpec (SPEC 3.4); its
runtime version is --runtime-version.

Usage: /usr/bin/python3 flytekit_ref.py [--proto DIR] [--runtime-version V] [cases.json]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

RESTART = {"never": 0, "on_failure": 1, "always": 2,
           "Never": 0, "OnFailure": 1, "Always": 2,
           "RESTART_POLICY_NEVER": 0, "RESTART_POLICY_ON_FAILURE": 1, "RESTART_POLICY_ALWAYS": 2}
CLEAN = {"none": 0, "running": 1, "all": 2,
         "None": 0, "Running": 1, "All": 2,
         "CLEANPOD_POLICY_NONE": 0, "CLEANPOD_POLICY_RUNNING": 1, "CLEANPOD_POLICY_ALL": 2}
TASK_TYPE = {"TFJob": "tensorflow", "PyTorchJob": "pytorch", "Elastic": "pytorch",
             "MPIJob": "mpi", "HorovodJob": "mpi"}
# Group name, deprecated count, message field; in flytekit's order of building.
GROUPS = {
    "TFJob": [("worker", "num_workers", "worker_replicas"), ("ps", "num_ps_replicas", "ps_replicas"),
              ("chief", "num_chief_replicas", "chief_replicas"),
              ("evaluator", "num_evaluator_replicas", "evaluator_replicas")],
    "PyTorchJob": [("worker", "num_workers", "worker_replicas"), ("master", None, "master_replicas")],
    "MPIJob": [("worker", "num_workers", "worker_replicas"),
               ("launcher", "num_launcher_replicas", "launcher_replicas")],
}
GROUPS["HorovodJob"] = GROUPS["MPIJob"]


def load_pb(proto_dir, out):
    """protoc the project's protos into `out` and import the generated modules."""
    files = sorted(os.path.relpath(os.path.join(d, f), proto_dir)
                   for d, _, fs in os.walk(proto_dir) for f in fs if f.endswith(".proto"))
    subprocess.run(["protoc", "-I", proto_dir, "-I", "/usr/include", "--python_out=" + out] + files,
                   check=True)
    sys.path.insert(0, out)
    global core, ids, v0_tf, v0_pt, v0_mpi, kf_tf, kf_pt, kf_mpi, json_format, Struct
    global admin, types
    from google.protobuf import json_format
    from google.protobuf.struct_pb2 import Struct
    from flyteidl.core import tasks_pb2 as core, identifier_pb2 as ids, types_pb2 as types
    from flyteidl.admin import task_pb2 as admin
    from flyteidl.plugins import tensorflow_pb2 as v0_tf, pytorch_pb2 as v0_pt, mpi_pb2 as v0_mpi
    from flyteidl.plugins.kubeflow import tensorflow_pb2 as kf_tf, pytorch_pb2 as kf_pt, mpi_pb2 as kf_mpi


def enum(v, names):
    return v if isinstance(v, int) else names[v]


def quantity(v):
    # flytekit uses str(); kfjob's rule: integers "8", other numbers shortest decimal.
    if isinstance(v, str):
        return v
    if isinstance(v, int) or float(v).is_integer():
        return str(int(v))
    return repr(float(v))


RES = [("cpu", "CPU"), ("mem", "MEMORY"), ("gpu", "GPU"), ("ephemeral_storage", "EPHEMERAL_STORAGE")]


def entries(res):
    res = dict(res or {})
    if "memory" in res:
        res["mem"] = res.pop("memory")
    # Fixed order CPU, MEMORY, GPU, EPHEMERAL_STORAGE (flytekit's _convert_resources_to_resource_entries).
    return [core.Resources.ResourceEntry(name=core.Resources.ResourceName.Value(n), value=quantity(res[k]))
            for k, n in RES if k in res]


def fill(target, g, replicas, with_resources):
    """Fields 1-4 of a replica spec (or of its CommonReplicaSpec); zero values stay unset."""
    if replicas:
        target.replicas = replicas
    if g.get("image"):
        target.image = g["image"]
    if with_resources:
        target.resources.SetInParent()  # flytekit always sets it, even empty
        target.resources.requests.extend(entries(g.get("requests")))
        target.resources.limits.extend(entries(g.get("limits")))
    rp = enum(g.get("restart_policy", 0), RESTART)
    if rp:
        target.restart_policy = rp


def replica(spec, g, replicas, encoding, with_resources=True):
    spec.SetInParent()
    if encoding == "common":  # same four fields, moved into CommonReplicaSpec
        spec.common.SetInParent()
        fill(spec.common, g, replicas, with_resources)
    else:
        fill(spec, g, replicas, with_resources)
    if g.get("command"):  # MPI field 5, outside `common` in both encodings
        spec.command.extend(g["command"])


def run_policy(msg, rp):
    if rp is None:
        return
    # PyTorch/MPI behaviour for every kind (flytekit's TF converter would raise AttributeError
    # on a RunPolicy without clean_pod_policy; kfjob does not copy that quirk).
    msg.run_policy.SetInParent()  # RunPolicy{} -> "runPolicy": {}
    c = enum(rp.get("clean_pod_policy", 0), CLEAN)
    if c:
        msg.run_policy.clean_pod_policy = c
    for f in ("ttl_seconds_after_finished", "active_deadline_seconds", "backoff_limit"):
        if rp.get(f):
            setattr(msg.run_policy, f, rp[f])


def nnodes(v):
    # torch's parse_min_max_nnodes(str(nnodes)): "N" -> (N, N), "A:B" -> (A, B)
    parts = str(v).split(":")
    if len(parts) == 1:
        parts = parts * 2
    if len(parts) != 2:
        raise ValueError("nnodes=%r is not in MIN:MAX format" % (v,))
    return int(parts[0]), int(parts[1])


def count(s, g, dep, default=0):
    # A truthy deprecated count overrides the group's replicas (flytekit get_custom).
    return (dep and s.get(dep)) or g.get("replicas") or default


def message_v1(kind, s, enc):
    if kind == "Elastic":
        lo, hi = nnodes(s["nnodes"])
        m = kf_pt.DistributedPyTorchTrainingTask()
        w = s.get("worker") or {}
        # Elastic worker: replicas = max nodes plus only what was given (no default resources).
        replica(m.worker_replicas, w, hi, enc, "requests" in w or "limits" in w)
        ec = m.elastic_config
        ec.rdzv_backend = s.get("rdzv_backend", "c10d")
        ec.min_replicas, ec.max_replicas = lo, hi
        ec.nproc_per_node = s.get("nproc_per_node", 1)
        ec.max_restarts = s.get("max_restarts", 0)
        run_policy(m, s.get("run_policy"))
        return m
    m = {"TFJob": kf_tf.DistributedTensorflowTrainingTask, "PyTorchJob": kf_pt.DistributedPyTorchTrainingTask,
         "MPIJob": kf_mpi.DistributedMPITrainingTask, "HorovodJob": kf_mpi.DistributedMPITrainingTask}[kind]()
    for name, dep, field in GROUPS[kind]:
        g = s.get(name) or {}
        n = 1 if name == "master" else count(s, g, dep, 1 if name == "launcher" else 0)
        replica(getattr(m, field), g, n, enc)
    run_policy(m, s.get("run_policy"))
    if kind in ("MPIJob", "HorovodJob"):
        m.slots = s.get("slots", 1)
    return m


def message_v0(kind, s, allow_command=False):
    # v0 carries counts only; anything else is a bug in cases.lua, not a reference output.
    bad = ["run_policy"] if "run_policy" in s else []
    for name in ("worker", "ps", "chief", "evaluator", "master", "launcher"):
        extra = set(s.get(name) or {}) - {"replicas"} - ({"command"} if allow_command and name == "worker" else set())
        bad += ["%s.%s" % (name, k) for k in sorted(extra)]
    if bad:
        raise ValueError("not expressible in version 0: " + ", ".join(bad))
    if kind == "TFJob":
        m = v0_tf.DistributedTensorflowTrainingTask()
        for (name, dep, _), f in zip(GROUPS[kind], ("workers", "ps_replicas", "chief_replicas",
                                                    "evaluator_replicas")):
            setattr(m, f, count(s, s.get(name) or {}, dep))
    elif kind == "PyTorchJob":
        m = v0_pt.DistributedPyTorchTrainingTask(workers=count(s, s.get("worker") or {}, "num_workers"))
    elif kind == "Elastic":
        lo, hi = nnodes(s["nnodes"])
        m = v0_pt.DistributedPyTorchTrainingTask(workers=hi)
        m.elastic_config.CopyFrom(v0_pt.ElasticConfig(
            rdzv_backend=s.get("rdzv_backend", "c10d"), min_replicas=lo, max_replicas=hi,
            nproc_per_node=s.get("nproc_per_node", 1), max_restarts=s.get("max_restarts", 0)))
    else:
        m = v0_mpi.DistributedMPITrainingTask(
            num_workers=count(s, s.get("worker") or {}, "num_workers"),
            num_launcher_replicas=count(s, s.get("launcher") or {}, "num_launcher_replicas", 1),
            slots=s.get("slots", 1))
    return m


def message(kind, s, opts, allow_command=False):
    if opts.get("version", 1) == 0:
        return message_v0(kind, s, allow_command)
    return message_v1(kind, s, opts.get("replica_encoding", "flat"))


def to_dict(msg):
    return json_format.MessageToDict(msg)


def ints(x):
    """Struct numbers come back as doubles (2.0); kfjob writes integral ones as integers."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, dict):
        return {k: ints(v) for k, v in x.items()}
    if isinstance(x, list):
        return [ints(v) for v in x]
    return x


def sorted_json(x):
    """A Struct or a map has no order: kfjob emits keys sorted, as its bytes are."""
    return json.loads(json.dumps(ints(x), sort_keys=True))


# flytekit's container order of task resources (core/utils.py _get_container_definition)
CONTAINER_RES = [("ephemeral_storage", "EPHEMERAL_STORAGE"), ("cpu", "CPU"), ("gpu", "GPU"),
                 ("mem", "MEMORY")]


def container_entries(res):
    res = dict(res or {})
    if "memory" in res:
        res["mem"] = res.pop("memory")
    return [(core.Resources.ResourceName.Value(name), quantity(res[key]))
            for key, name in CONTAINER_RES if key in res]


def task_resources(container, s):
    """A Container's resources, as _get_container_definition fills them."""
    for field in ("requests", "limits"):
        for name, value in container_entries(s.get(field)):
            getattr(container.resources, field).add(name=name, value=value)
    if s.get("requests") or s.get("limits"):
        container.resources.SetInParent()


def pod_spec(pt, container):
    """_serialize_pod_spec: the template's spec with the primary container
    (appended when missing) given the task container's image, command, args,
    env (task env, then the template's) and resources."""
    pt = json.loads(json.dumps(pt))
    name = pt.get("primary_container_name", "primary")
    spec = pt.get("spec") or {}
    containers = spec.setdefault("containers", [])
    if not any(c.get("name") == name for c in containers):
        containers.append({"name": name})
    for c in containers:
        if c.get("name") != name:
            continue
        if "image" not in c and container.image:
            c["image"] = container.image
        c["command"] = list(container.command)
        c["args"] = list(container.args)
        limits = {core.Resources.ResourceName.Name(e.name).lower().replace("_", "-"): e.value
                  for e in container.resources.limits}
        requests = {core.Resources.ResourceName.Name(e.name).lower().replace("_", "-"): e.value
                    for e in container.resources.requests}
        if limits or requests:
            c["resources"] = {"limits": limits, "requests": requests}
        c["env"] = [{"name": e.key, "value": e.value} for e in container.env] + (c.get("env") or [])
    return name, spec


def extended_resources(tt, s):
    """construct_extended_resources and the accelerators' to_flyte_idl."""
    shm, acc = s.get("shared_memory"), s.get("accelerator")
    if shm is True or isinstance(shm, str):
        tt.extended_resources.shared_memory.mount_name = "flyte-shared-memory"
        tt.extended_resources.shared_memory.mount_path = "/dev/shm"
        if isinstance(shm, str):
            tt.extended_resources.shared_memory.size_limit = shm
    if acc is not None:
        g = tt.extended_resources.gpu_accelerator
        g.device = acc if isinstance(acc, str) else acc["device"]
        if isinstance(acc, dict) and acc.get("partition_size"):
            g.partition_size = acc["partition_size"]
        elif isinstance(acc, dict) and acc.get("unpartitioned"):
            g.unpartitioned = True


MPIRUN = ["mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot", "-x", "LD_LIBRARY_PATH",
          "-x", "PATH", "-x", "NCCL_DEBUG=INFO", "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np"]


def launcher(kind, s):
    """flytekit's MPIFunctionTask / HorovodFunctionTask get_command prefix (FACTS 2.5, 2.6);
    the user's args stand in for `python <entrypoint> pyflyte-execute ...`."""
    w = s.get("worker") or {}
    slots = s.get("slots", 1)
    if kind == "MPIJob":
        return MPIRUN + [str((s.get("num_workers") or w.get("replicas") or 0) * slots)]
    np = str((w.get("replicas") or s.get("num_workers") or 0) * slots)
    cmd = ["horovodrun", "-np", np, "--log-level", s.get("log_level", "INFO"), "--network-interface", "eth0",
           "--min-np", np, "--max-np", np, "--slots-per-host", str(slots), "--host-discovery-script",
           s.get("discovery_script_path", "/etc/mpi/discover_hosts.sh"), "--elastic-timeout",
           str(s.get("elastic_timeout", 1200))]
    return cmd + (["--verbose"] if s.get("verbose") else [])


def task_template(kind, s, t, extra=None):
    """flyteidl.core.TaskTemplate as flytekit's models/task.py builds it."""
    v = t.get("version", 1)
    tt = core.TaskTemplate()
    custom = None
    if kind == "Elastic" and s.get("nnodes") == 1 and not isinstance(s.get("nnodes"), bool):
        tt.type = "python-task"  # flytekit: nnodes == 1 runs as a plain pod, no custom
    else:
        tt.type = TASK_TYPE[kind]
        custom = to_dict(message(kind, s, t, allow_command=True))
        # flytekit: json.dumps(dict) then json_format.Parse into a Struct.
        tt.custom.CopyFrom(json_format.Parse(json.dumps(custom), Struct()))
    tt.task_type_version = v
    if "id" in t:
        tt.id.SetInParent()
        tt.id.resource_type = ids.TASK
        for f in ("project", "domain", "name", "version"):
            if t["id"].get(f):
                setattr(tt.id, f, t["id"][f])
    container = core.Container()
    if "container" in t:
        c, tc = container, t["container"]
        if tc.get("image"):
            c.image = tc["image"]
        c.command.extend(tc.get("command") or [])
        if kind in ("MPIJob", "HorovodJob") and t.get("wrap_launcher", True):
            c.args.extend(launcher(kind, s))
        c.args.extend(tc.get("args") or [])
        for k in sorted(tc.get("env") or {}):  # env sorted by name
            c.env.add(key=k, value=tc["env"][k])
    task_resources(container, s)
    config = dict(t.get("config") or {})
    if "pod_template" in s:  # the k8s_pod target instead of the container
        name, spec = pod_spec(s["pod_template"], container)
        meta = s["pod_template"].get("metadata") or {}
        tt.k8s_pod.metadata.SetInParent()
        tt.k8s_pod.metadata.labels.update(meta.get("labels") or {})
        tt.k8s_pod.metadata.annotations.update(meta.get("annotations") or {})
        tt.k8s_pod.pod_spec.update(spec)
        config["primary_container_name"] = name
    elif "container" in t or container.HasField("resources"):
        tt.container.SetInParent()
        tt.container.MergeFrom(container)
    extended_resources(tt, s)
    cmd = (s.get("worker") or {}).get("command")
    if v == 0 and kind in ("MPIJob", "HorovodJob") and cmd:
        # The v0 backend splits worker_spec_command on single spaces.
        if any(" " in a for a in cmd):
            raise ValueError("worker command argument contains a space")
        config["worker_spec_command"] = " ".join(cmd)
    tt.config.update(config)
    if extra:
        extra(tt)
    d = to_dict(tt)
    if custom is not None:
        # A Struct is a map: the runtime's order is arbitrary, so after checking that it holds
        # exactly the custom (numbers made integral), emit it with keys sorted at every level,
        # the order of its deterministic bytes (kfjob's documented JSON order for Struct).
        assert ints(d["custom"]) == custom, (d["custom"], custom)
        d["custom"] = json.loads(json.dumps(custom, sort_keys=True))
    if "config" in d:
        d["config"] = dict(sorted(d["config"].items()))  # map: emitted sorted, like the bytes
    if "k8sPod" in d:
        pod = d["k8sPod"]
        # metadata is a message (labels, annotations in field order) of two maps
        pod["metadata"] = {k: dict(sorted(v.items())) for k, v in pod["metadata"].items()}
        pod["podSpec"] = sorted_json(pod["podSpec"])
    return tt, d


SIMPLE = {"integer": "INTEGER", "float": "FLOAT", "string": "STRING", "boolean": "BOOLEAN",
          "datetime": "DATETIME", "duration": "DURATION", "struct": "STRUCT"}


def literal_type(lt, t):
    """flytekit's TypeEngine.to_literal_type for int, float, str, bool, datetime, timedelta,
    dict, FlyteFile, FlyteDirectory, List[T] and Dict[str, T]."""
    if isinstance(t, str) and t in SIMPLE:
        lt.simple = types.SimpleType.Value(SIMPLE[t])
    elif t == "file":
        lt.blob.SetInParent()  # format "", SINGLE
    elif t == "directory":
        lt.blob.dimensionality = types.BlobType.MULTIPART
    elif isinstance(t, dict) and list(t) == ["list"]:
        literal_type(lt.collection_type, t["list"])
    elif isinstance(t, dict) and list(t) == ["map"]:
        literal_type(lt.map_value_type, t["map"])
    else:
        raise ValueError("bad interface type %r" % (t,))


def seconds(v):
    """Go-style "1h30m15s" or whole seconds."""
    if isinstance(v, int):
        return v
    m = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", v)
    if not m or not v:
        raise ValueError("bad timeout %r" % (v,))
    h, mi, se = (int(x or 0) for x in m.groups())
    return h * 3600 + mi * 60 + se


def task_spec(kind, s, t, runtime_version):
    """flyteidl.admin.TaskSpec as flytekit's get_serializable_task builds it, with kfjob's runtime."""
    iface = t.get("interface") or {}
    meta = t.get("metadata") or {}

    def extra(tt):
        tt.metadata.runtime.version = runtime_version  # type OTHER (0)
        tt.metadata.runtime.flavor = "kfjob"
        tt.metadata.retries.SetInParent()  # flytekit always sends RetryStrategy
        if meta.get("retries"):
            tt.metadata.retries.retries = meta["retries"]
        if "timeout" in meta:
            tt.metadata.timeout.seconds = seconds(meta["timeout"])
            tt.metadata.timeout.SetInParent()
        if "interruptible" in meta:
            tt.metadata.interruptible = meta["interruptible"]
        cache = meta.get("cache")
        if cache:
            tt.metadata.discoverable = True
            tt.metadata.discovery_version = cache["version"]
            tt.metadata.cache_serializable = bool(cache.get("serializable"))
            tt.metadata.cache_ignore_input_vars.extend(cache.get("ignore_inputs") or [])
        tt.metadata.tags.update(meta.get("tags") or {})
        tt.interface.inputs.SetInParent()
        tt.interface.outputs.SetInParent()
        for side in ("inputs", "outputs"):
            for name, ty in (iface.get(side) or {}).items():
                literal_type(getattr(tt.interface, side).variables[name].type, ty)

    # flyteadmin requires an image on the task container: with every replica group carrying
    # its own, kfjob uses the worker's (the backend overrides it per group anyway).
    groups = [(s.get(name) or {}) for name, _, _ in GROUPS.get(kind, [("worker", None, None)])]
    groups = [g for g in groups if g.get("replicas", 1)]
    if not (t.get("container") or {}).get("image") and groups and all(g.get("image") for g in groups):
        t = dict(t, container=dict(t.get("container") or {}, image=(s.get("worker") or {})["image"]))
    t = dict(t, container=t.get("container") or {})  # a TaskSpec always has a container
    tt, td = task_template(kind, s, t, extra)
    ts = admin.TaskSpec()
    ts.template.CopyFrom(tt)
    if meta.get("description"):
        ts.description.short_description = meta["description"]
    d = to_dict(ts)
    # maps are emitted sorted, like the bytes
    for side in ("inputs", "outputs"):
        vm = td["interface"].get(side)
        if vm and "variables" in vm:
            vm["variables"] = dict(sorted(vm["variables"].items()))
    if "tags" in td["metadata"]:
        td["metadata"]["tags"] = dict(sorted(td["metadata"]["tags"].items()))
    d["template"] = td
    return ts, d


def run(cases, runtime_version):
    seen = set()
    out = []
    for c in cases:
        name, kind, s = c["name"], c["kind"], c.get("spec") or {}
        if name in seen or "\t" in name:
            raise ValueError("bad or duplicate case name %r" % name)
        seen.add(name)
        try:
            if "taskspec" in c:
                msg, d = task_spec(kind, s, c["taskspec"], runtime_version)
            elif "template" in c:
                msg, d = task_template(kind, s, c["template"])
            else:
                msg = message(kind, s, c.get("opts") or {})
                d = to_dict(msg)
        except Exception as e:
            raise SystemExit("flytekit_ref: case %s: %s: %s" % (name, type(e).__name__, e))
        out.append("%s\t%s\t%s" % (name, msg.SerializeToString(deterministic=True).hex(),
                                   json.dumps(d, separators=(",", ":"), ensure_ascii=False)))
    return out


def main(argv):
    proto = os.path.join(HERE, "..", "..", "proto")
    runtime_version = ""
    while argv[:1] in (["--proto"], ["--runtime-version"]):
        if argv[0] == "--proto":
            proto = argv[1]
        else:
            runtime_version = argv[1]
        argv = argv[2:]
    with open(argv[0], encoding="utf-8") if argv else sys.stdin as f:
        cases = json.load(f)
    with tempfile.TemporaryDirectory(prefix="kfjob-conf-") as out:
        load_pb(os.path.abspath(proto), out)
        lines = run(cases, runtime_version)
    sys.stdout.reconfigure(encoding="utf-8")
    sys.stdout.write("".join(l + "\n" for l in lines))


if __name__ == "__main__":
    main(sys.argv[1:])
