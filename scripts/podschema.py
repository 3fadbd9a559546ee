#!/usr/bin/env python3
"""podschema.py - the pod template's OpenAPI schema, as data and as C tables.

  podschema.py extract CRD.yaml > schema/podtemplatespec.json
      (by hand, needs python3-yaml) copies the PodTemplateSpec schema of a
      training-operator CRD (the `template` of its replica specs), without
      the `description` texts, which kfjob does not use.
  podschema.py gen schema/podtemplatespec.json OUT.c
      (at build time, python3 only) writes the tables kf_pod.c walks:
      one node per distinct sub-schema (the CRD repeats the container,
      probe and volume schemas; identical ones are shared), property names
      sorted per object, NULL-terminated string runs for required keys,
      enums and list-map keys.

Enums: the CRD leaves these as plain strings; the values are the ones
k8s.io/api/core/v1 (Kubernetes 1.31) fixes (SPEC 2.4, Decisions).  The
`containers` key of a pod spec is not required here: kfjob appends the
primary container when it is missing, as flytekit does.
"""
import json

import schemautil

ENUMS = {
    # (parent property, property): values
    ("tolerations[]", "effect"): ["NoSchedule", "PreferNoSchedule", "NoExecute"],
    ("tolerations[]", "operator"): ["Exists", "Equal"],
    ("containers[]", "imagePullPolicy"): ["Always", "Never", "IfNotPresent"],
    ("initContainers[]", "imagePullPolicy"): ["Always", "Never", "IfNotPresent"],
    ("ephemeralContainers[]", "imagePullPolicy"): ["Always", "Never", "IfNotPresent"],
    ("spec", "dnsPolicy"): ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
    ("spec", "restartPolicy"): ["Always", "OnFailure", "Never"],
    ("emptyDir", "medium"): ["", "Memory", "HugePages", "HugePages-2Mi", "HugePages-1Gi"],
}
NOT_REQUIRED = {("spec", "containers")}

T_OBJ, T_MAP, T_ARR, T_STR, T_INT, T_BOOL, T_INTSTR = range(7)
F_INT32, F_QTY = 1, 2


def extract(path):
    import yaml  # only here: the build needs python3 alone
    with open(path) as f:
        crd = yaml.safe_load(f)
    ver = crd["spec"]["versions"][0]
    spec = ver["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    key = [k for k in spec if k.endswith("ReplicaSpecs")][0]
    tmpl = spec[key]["additionalProperties"]["properties"]["template"]

    def strip(n):
        if isinstance(n, dict):
            return {k: strip(v) for k, v in n.items() if k != "description"}
        if isinstance(n, list):
            return [strip(x) for x in n]
        return n

    out = {
        "$source": "%s, spec.versions[0] (%s) .schema.openAPIV3Schema.properties.spec"
                   ".properties.%s.additionalProperties.properties.template; training-"
                   "operator v1.9.0 (k8s.io/api v0.31.3), descriptions removed"
                   % (path.split("/")[-1], ver["name"], key),
        "schema": strip(tmpl),
    }
    schemautil.dump_json(out)


def gen(src, dst):
    with open(src) as f:
        root = json.load(f)["schema"]
    nodes, index = [], {}
    strs = ["(none)", None]  # run 0 is "none"

    def run(values):
        if not values:
            return 0
        at = len(strs)
        strs.extend(values)
        strs.append(None)
        return at

    names, kids = [], []

    def node(n, parent, me):
        ty = n.get("type")
        flags = 0
        if n.get("x-kubernetes-int-or-string"):
            t = T_INTSTR
        elif ty == "object":
            t = T_MAP if "additionalProperties" in n else T_OBJ
        elif ty == "array":
            t = T_ARR
        elif ty == "string":
            t = T_STR
        elif ty == "integer":
            t = T_INT
        elif ty == "boolean":
            t = T_BOOL
        else:
            raise SystemExit("podschema: unknown type %r at %s" % (ty, me))
        if n.get("format") == "int32":
            flags |= F_INT32
        if "pattern" in n:
            flags |= F_QTY  # the only pattern in the schema: Kubernetes quantities
        props = []
        item = 0
        if t == T_OBJ:
            props = [(k, node(v, me, k)) for k, v in sorted(n.get("properties", {}).items())]
        elif t == T_MAP:
            item = node(n["additionalProperties"], me, me + "{}")
        elif t == T_ARR:
            item = node(n["items"], me, me + "[]")
        req = [k for k in n.get("required", []) if (me, k) not in NOT_REQUIRED]
        enum = ENUMS.get((parent, me), [])
        keys = n.get("x-kubernetes-list-map-keys", []) if n.get("x-kubernetes-list-type") == "map" else []
        sig = json.dumps([t, flags, props, item, req, enum, keys])
        if sig in index:
            return index[sig]
        at = len(names)
        for k, c in props:
            names.append(k)
            kids.append(c)
        names.append(None)
        kids.append(0)
        nodes.append((t, flags, at, len(props), item, run(req), run(enum), run(keys), me))
        index[sig] = len(nodes) - 1
        return len(nodes) - 1

    top = node(root, "", "template")

    def cstr(s):
        return "NULL" if s is None else json.dumps(s)

    with open(dst, "w") as f:
        f.write("/* Generated by scripts/podschema.py from schema/podtemplatespec.json:\n"
                "** do not edit. */\n#include \"kf_pod.h\"\n\n")
        f.write("const kf_pschema kf_pschema_nodes[] = {\n")
        for t, fl, at, n, item, req, enum, keys, me in nodes:
            f.write("  {%d, %d, %d, %d, %d, %d, %d, %d}, /* %s */\n"
                    % (t, fl, at, n, item, req, enum, keys, me))
        f.write("};\nconst unsigned kf_pschema_root = %d;\n" % top)
        f.write("const char *const kf_pschema_names[] = {\n")
        for i in range(0, len(names), 6):
            f.write("  " + ", ".join(cstr(s) for s in names[i:i + 6]) + ",\n")
        f.write("};\nconst uint16_t kf_pschema_kids[] = {\n")
        for i in range(0, len(kids), 16):
            f.write("  " + ", ".join(str(k) for k in kids[i:i + 16]) + ",\n")
        f.write("};\nconst char *const kf_pschema_strs[] = {\n")
        for i in range(0, len(strs), 6):
            f.write("  " + ", ".join(cstr(s) for s in strs[i:i + 6]) + ",\n")
        f.write("};\n")


if __name__ == "__main__":
    schemautil.main(__doc__, extract, gen)
