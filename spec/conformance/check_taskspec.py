#!/usr/bin/python3
"""Reads files the way `flytectl register files` does, with the reference
protobuf runtime (python3-protobuf) on the project's protos: each file is
tried as a flyteidl.admin.WorkflowSpec first (flytectl's first attempt; a
TaskSpec must fail there), then as a flyteidl.admin.TaskSpec, which must be
complete as flyteadmin's task validator wants it: every id field, TASK,
metadata with a runtime version, an interface, a task type, a custom
(unless python-task) and a container (or k8s_pod) target whose container
has an image.

Usage: /usr/bin/python3 check_taskspec.py [--proto DIR] FILE...
Prints one line per file: `ok<TAB>file<TAB>type<TAB>id.name`, or
`bad<TAB>file<TAB>reason`; exits 1 when any file is bad.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(proto_dir, out):
    extra = os.path.join(HERE, "flytectl")
    files = []
    for root in (proto_dir, extra):
        files += [os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs if f.endswith(".proto")]
    subprocess.run(["protoc", "-I", proto_dir, "-I", extra, "-I", "/usr/include",
                    "--python_out=" + out] + sorted(files), check=True)
    sys.path.insert(0, out)
    from flyteidl.admin import task_pb2, workflow_pb2
    return task_pb2, workflow_pb2


def check(data, task_pb2, workflow_pb2):
    from google.protobuf.message import DecodeError
    try:
        workflow_pb2.WorkflowSpec().ParseFromString(data)
        return "parses as a WorkflowSpec (flytectl would register a workflow)"
    except DecodeError:
        pass
    ts = task_pb2.TaskSpec()
    try:
        ts.ParseFromString(data)
    except DecodeError as e:
        return "not a TaskSpec: %s" % e
    t = ts.template
    if not ts.HasField("template"):
        return "no template"
    for f in ("project", "domain", "name", "version"):
        if not getattr(t.id, f):
            return "id.%s empty" % f
    if t.id.resource_type != 1:
        return "id.resource_type is not TASK"
    if not t.HasField("metadata") or not t.metadata.runtime.version:
        return "no metadata.runtime.version"
    if not t.HasField("interface"):
        return "no interface"
    if not t.type:
        return "no type"
    if t.type != "python-task" and not t.HasField("custom"):
        return "no custom"
    # flyteadmin's validateContainer: a container target needs an image
    if t.HasField("container") and not t.container.image:
        return "container without an image"
    if not t.HasField("container") and not t.HasField("k8s_pod"):
        return "no container"
    return None


def main(argv):
    proto = os.path.join(HERE, "..", "..", "proto")
    if argv[:1] == ["--proto"]:
        proto, argv = argv[1], argv[2:]
    bad = 0
    with tempfile.TemporaryDirectory(prefix="kfjob-ts-") as out:
        task_pb2, workflow_pb2 = load(os.path.abspath(proto), out)
        for path in argv:
            with open(path, "rb") as f:
                data = f.read()
            why = check(data, task_pb2, workflow_pb2)
            if why:
                bad += 1
                print("bad\t%s\t%s" % (path, why))
            else:
                ts = task_pb2.TaskSpec.FromString(data)
                print("ok\t%s\t%s\t%s" % (path, ts.template.type, ts.template.id.name))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
