#!/usr/bin/env python3
"""crdschema.py - the CRD schemas tools/validate-manifest checks against.

  crdschema.py extract CRD_DIR OUT_DIR
      (by hand, needs python3-yaml) reads the CRDs of ../shared/crds (the
      upstream files named in the table below) and writes OUT_DIR/<set>.json
      (one per CRD set: the openAPIV3Schema of each CRD version, without the
      `description` texts) plus one OUT_DIR/podtemplatespec-k8s<minor>.json
      per Kubernetes version: every PodTemplateSpec subtree (a replica's
      `template`) is replaced by {"$ref": FILE}, FILE holding the one copy.
      Copies are shared only when they are equal (checked here: a different
      one under the same Kubernetes version, such as a TrainJob's runtime
      patch, stays inline); the training-operator's is the project's
      schema/podtemplatespec.json.

The output is minified JSON with sorted keys, so that a re-run shows in git
only what upstream changed.
"""
import hashlib
import json
import os
import sys

# set -> (sub-directory of CRD_DIR, upstream repository, tag, commit,
#         path in the repository, Kubernetes API version of its PodSpec)
SETS = {
    "operator": (".", "https://github.com/kubeflow/training-operator "
                 "(now kubeflow/trainer, branch release-1.9)", "v1.9.3",
                 "c77ee3ff4d21aa8e5027580d83361c1a426ee789",
                 "manifests/base/crds/kubeflow.org_<plural>.yaml", "k8s.io/api v0.31.3"),
    "mpi-operator": ("mpi-operator", "https://github.com/kubeflow/mpi-operator", "v0.8.0",
                     "101db144e019e1de65aaded07745e9d805c2852a",
                     "manifests/base/kubeflow.org_mpijobs.yaml", "k8s.io/api v0.35.1"),
    "trainer-2.2": ("trainer-v2.2", "https://github.com/kubeflow/trainer", "v2.2.0",
                    "dc7656ad878916f526cd401f30a347574cd47877",
                    "manifests/base/crds/trainer.kubeflow.org_<plural>.yaml", "k8s.io/api v0.35.2"),
    "trainer-2.3": ("trainer-v2.3", "https://github.com/kubeflow/trainer", "v2.3.0",
                    "658725bdae5c7e3a0854d93ac6ff492e109a22ab",
                    "manifests/base/crds/trainer.kubeflow.org_<plural>.yaml", "k8s.io/api v0.36.2"),
}
# the training-operator's PodTemplateSpec, kept by the project already
# (scripts/podschema.py); used in place of a new file when equal
PROJECT_POD = ("../podtemplatespec.json", "k8s1.31")


def strip(n):
    if isinstance(n, dict):
        return {k: strip(v) for k, v in n.items() if k != "description"}
    if isinstance(n, list):
        return [strip(x) for x in n]
    return n


def is_pod_template(n):
    props = n.get("properties") if isinstance(n, dict) else None
    if not isinstance(props, dict) or "metadata" not in props:
        return False
    spec = props.get("spec")
    return isinstance(spec, dict) and "containers" in (spec.get("properties") or {})


def canon(n):
    return json.dumps(n, sort_keys=True, separators=(",", ":"))


class Pods:
    """The distinct PodTemplateSpec copies, by Kubernetes minor version."""

    def __init__(self, out_dir):
        self.files = {}  # file name -> (schema, sources)
        self.out_dir = out_dir
        with open(os.path.join(out_dir, PROJECT_POD[0])) as f:
            self.project = canon(json.load(f)["schema"])

    def ref(self, node, minor, where):
        text = canon(node)
        if text == self.project:
            return {"$ref": PROJECT_POD[0]}
        name = "podtemplatespec-%s.json" % minor
        if name in self.files and canon(self.files[name][0]) != text:
            # not the same schema (a TrainJob's runtime patch declares a
            # few pod fields only): stays where it is
            sys.stderr.write("crdschema: kept inline, differs from %s: %s\n" % (name, where))
            return node
        self.files.setdefault(name, (node, []))[1].append(where)
        return {"$ref": name}

    def write(self, dump):
        for name, (schema, where) in sorted(self.files.items()):
            dump(os.path.join(self.out_dir, name), {
                "$source": "the PodTemplateSpec schema (a replica's `template`), one copy "
                           "for these equal subtrees: " + "; ".join(sorted(set(where))),
                "schema": schema})


def replace_pods(n, pods, minor, where):
    if isinstance(n, dict):
        if is_pod_template(n):
            return pods.ref(n, minor, where)
        return {k: replace_pods(v, pods, minor, where) for k, v in n.items()}
    if isinstance(n, list):
        return [replace_pods(x, pods, minor, where) for x in n]
    return n


def minor_of(k8s):
    return "k8s1.%s" % k8s.split("v0.")[1].split(".")[0]


def extract_set(crd_dir, name, pods):
    import yaml  # only here, as in podschema.py
    sub, repo, tag, commit, upath, k8s = SETS[name]
    d = os.path.normpath(os.path.join(crd_dir, sub))
    crds = []
    for fname in sorted(os.listdir(d)):
        if not fname.endswith(".yaml"):
            continue
        with open(os.path.join(d, fname)) as f:
            crd = yaml.safe_load(f)
        spec = crd["spec"]
        plural = spec["names"]["plural"]
        for ver in spec["versions"]:
            where = "%s %s %s %s/%s" % (repo.split()[0], tag, upath.replace("<plural>", plural),
                                        spec["group"], ver["name"])
            schema = strip(ver["schema"]["openAPIV3Schema"])
            crds.append({
                "$source": {"repository": repo, "tag": tag, "commit": commit,
                            "path": upath.replace("<plural>", plural),
                            "version": ver["name"], "podSpec": k8s,
                            "note": "spec.versions[name=%s].schema.openAPIV3Schema, "
                                    "descriptions removed" % ver["name"]},
                "apiVersion": "%s/%s" % (spec["group"], ver["name"]),
                "kind": spec["names"]["kind"],
                "schema": replace_pods(schema, pods, minor_of(k8s), where),
            })
    return {"$source": "CRDs of %s %s (%s), see each entry" % (repo.split()[0], tag, k8s),
            "crds": crds}


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "extract":
        sys.exit(__doc__)
    crd_dir, out_dir = sys.argv[2], sys.argv[3]
    pods = Pods(out_dir)
    for name in SETS:
        dump(os.path.join(out_dir, name + ".json"), extract_set(crd_dir, name, pods))
    pods.write(dump)
    for fname in sorted(os.listdir(out_dir)):
        p = os.path.join(out_dir, fname)
        with open(p, "rb") as f:
            print("%-32s %8d bytes  sha256 %s" % (fname, os.path.getsize(p),
                                                  hashlib.sha256(f.read()).hexdigest()[:16]))


if __name__ == "__main__":
    main()
