local util = require "util"
if not util.cli_ok then describe("issue 41 acceptance", function() pending(util.CLI_ONLY) end) return end
local KF = util.KFJOB

-- Acceptance tests for issue 41 (SPEC §16 "The whole job in one config"), written from the
-- issue, SPEC/FACTS and the user documentation only.  Expected values come from SPEC §14/§16,
-- FACTS §2.5/§4.1/§8.3.1/§11 and Kubernetes semantics; manifests are compared as data after
-- the defaults the API server and the operators apply (applied here, from FACTS, to both sides).

local has_module, kfjob = pcall(require, "kfjob")

---------------------------------------------------------------------------------------------
-- helpers
---------------------------------------------------------------------------------------------

-- a shell word; text written to a path (the path returned); a file's contents (nil when it
-- cannot be opened); a shell command's stdout, stderr and exit code (spec/util.lua)
local q, write, read, run = util.quote, util.write, util.slurp, util.run_sh

local D = util.tmpdir()
local function kf(args) return run(KF .. " " .. args) end

local TOLUA = write(D .. "/tolua.py", [==[
import sys, yaml, json
def s(x):
    out = []
    for c in x.encode('utf-8'):
        if c in (34, 92): out.append('\\' + chr(c))
        elif 32 <= c < 127: out.append(chr(c))
        else: out.append('\\%03d' % c)
    return '"' + ''.join(out) + '"'
def lua(v):
    if v is None: return 'NULL'
    if v is True: return 'true'
    if v is False: return 'false'
    if isinstance(v, int): return str(v)
    if isinstance(v, float): return repr(v)
    if isinstance(v, str): return s(v)
    if isinstance(v, list): return '{' + ','.join(lua(x) for x in v) + '}'
    if isinstance(v, dict): return '{' + ','.join('[%s]=%s' % (s(str(k)), lua(x)) for k, x in v.items()) + '}'
    return s(str(v))
txt = open(sys.argv[1], encoding='utf-8').read()
try:
    docs = [d for d in yaml.safe_load_all(txt) if d is not None]
except Exception:
    docs = [json.loads(l) for l in txt.splitlines() if l.strip()]
print('local NULL = {} return {' + ','.join(lua(d) for d in docs) + '}')
]==])

-- every document of a YAML stream, a JSON document or JSON lines, as Lua tables
local function docs_of(path)
  local out, err, rc = run("python3 " .. q(TOLUA) .. " " .. q(path))
  assert(rc == 0, "cannot parse " .. path .. ": " .. err)
  return assert(load(out))()
end
local function docs_of_text(text) return docs_of(write(os.tmpname(), text)) end

-- compares two manifests as data after the defaults (FACTS §4.1, §8.3.1, §10, §11.1-§11.3,
-- the API server's "a limit without a request requests the limit", quantities by value)
local NORM = write(D .. "/norm.py", [==[
import sys, json, yaml, re
from decimal import Decimal
SUF = {'Ki': 2**10, 'Mi': 2**20, 'Gi': 2**30, 'Ti': 2**40, 'Pi': 2**50, 'Ei': 2**60,
       'n': Decimal('1e-9'), 'u': Decimal('1e-6'), 'm': Decimal('1e-3'), '': 1,
       'k': 10**3, 'M': 10**6, 'G': 10**9, 'T': 10**12, 'P': 10**15, 'E': 10**18}
def qty(v):
    s = str(v)
    m = re.fullmatch(r'([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|)', s)
    if not m: return s
    return 'Q' + str((Decimal(m.group(1)) * Decimal(SUF[m.group(2)])).normalize())
def load(path):
    txt = open(path, encoding='utf-8').read()
    try:
        return [d for d in yaml.safe_load_all(txt) if d is not None]
    except Exception:
        return [json.loads(l) for l in txt.splitlines() if l.strip()]
# kind: replica key, main container, replica restartPolicy default (FACTS §11.3.1), default port
KINDS = {
  'TFJob': ('tfReplicaSpecs', 'tensorflow', 'Never', 'tfjob-port', 2222),
  'PyTorchJob': ('pytorchReplicaSpecs', 'pytorch', 'OnFailure', 'pytorchjob-port', 23456),
  'XGBoostJob': ('xgbReplicaSpecs', 'xgboost', 'Never', 'xgboostjob-port', 9999),
  'JAXJob': ('jaxReplicaSpecs', 'jax', 'Never', 'jaxjob-port', 6666),
  'PaddleJob': ('paddleReplicaSpecs', 'paddle', 'OnFailure', 'master', 36543),
  'MPIJob': ('mpiReplicaSpecs', None, 'Never', None, None),
}
def resources(r):
    lim = {k: qty(v) for k, v in (r.get('limits') or {}).items()}
    req = {k: qty(v) for k, v in (r.get('requests') or {}).items()}
    for k, v in lim.items(): req.setdefault(k, v)
    out = {}
    if lim: out['limits'] = lim
    if req: out['requests'] = req
    return out
def container_defaults(c):
    if isinstance(c.get('resources'), dict): c['resources'] = resources(c['resources'])
    for p in c.get('ports') or []: p.setdefault('protocol', 'TCP')
    for e in c.get('env') or []:
        rf = (e.get('valueFrom') or {}).get('resourceFieldRef')
        if isinstance(rf, dict) and 'divisor' in rf: rf['divisor'] = qty(rf['divisor'])
def pod_defaults(tpl):
    spec = tpl.setdefault('spec', {})
    for c in (spec.get('containers') or []) + (spec.get('initContainers') or []): container_defaults(c)
    md = tpl.get('metadata')
    if isinstance(md, dict): md.pop('creationTimestamp', None)
    return spec
def v1(doc):
    kind = doc['kind']
    key, main, rdef, pname, port = KINDS[kind]
    spec = doc.setdefault('spec', {})
    rp = spec.setdefault('runPolicy', {})
    if kind == 'MPIJob':
        if 'cleanPodPolicy' in spec and 'cleanPodPolicy' not in rp: rp['cleanPodPolicy'] = spec['cleanPodPolicy']
        spec.pop('cleanPodPolicy', None)
    rp.setdefault('cleanPodPolicy', 'None')
    if kind == 'PyTorchJob':
        spec.setdefault('nprocPerNode', 'auto')
        ep = spec.get('elasticPolicy')
        if isinstance(ep, dict):
            n = ((spec.get(key) or {}).get('Worker') or {}).get('replicas', 1)
            ep.setdefault('minReplicas', n); ep.setdefault('maxReplicas', n)
    for rt, rs in (spec.get(key) or {}).items():
        rs.setdefault('replicas', 1)
        rs.setdefault('restartPolicy', rdef)
        podspec = pod_defaults(rs.setdefault('template', {}))
        podspec['restartPolicy'] = 'Never' if rs['restartPolicy'] == 'ExitCode' else rs['restartPolicy']
        if main:
            for c in podspec.get('containers') or []:
                if c.get('name') == main:
                    ports = c.setdefault('ports', [])
                    if not any(p.get('name') == pname for p in ports):
                        ports.append({'name': pname, 'containerPort': port, 'protocol': 'TCP'})
def v2beta1(doc):
    spec = doc.setdefault('spec', {})
    spec.setdefault('slotsPerWorker', 1); spec.setdefault('runLauncherAsWorker', False)
    spec.setdefault('sshAuthMountPath', '/root/.ssh'); spec.setdefault('launcherCreationPolicy', 'AtStartup')
    spec.setdefault('mpiImplementation', 'OpenMPI')
    spec.setdefault('runPolicy', {}).setdefault('cleanPodPolicy', 'None')
    for rt, rs in (spec.get('mpiReplicaSpecs') or {}).items():
        rs.setdefault('replicas', 1 if rt == 'Launcher' else 0)
        rs.setdefault('restartPolicy', 'OnFailure' if rt == 'Launcher' else 'Never')
        pod_defaults(rs.setdefault('template', {}))['restartPolicy'] = rs['restartPolicy']
def trainjob(doc):
    spec = doc.setdefault('spec', {})
    rr = spec.setdefault('runtimeRef', {})
    rr.setdefault('apiGroup', 'trainer.kubeflow.org'); rr.setdefault('kind', 'ClusterTrainingRuntime')
    spec.setdefault('managedBy', 'trainer.kubeflow.org/trainjob-controller'); spec.setdefault('suspend', False)
    t = spec.get('trainer')
    if isinstance(t, dict):
        if isinstance(t.get('resourcesPerNode'), dict): t['resourcesPerNode'] = resources(t['resourcesPerNode'])
        for e in t.get('env') or []: container_defaults({'env': [e]})
    for p in spec.get('runtimePatches') or []: p.pop('time', None)
def prune(x):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            v = prune(v)
            if v is None or v == {} or v == []: continue
            out[k] = v
        return out
    if isinstance(x, list): return [prune(v) for v in x]
    return x
def norm(doc):
    doc = json.loads(json.dumps(doc))
    doc.pop('status', None)
    md = doc.get('metadata') or {}
    for k in ('creationTimestamp', 'uid', 'resourceVersion', 'generation', 'managedFields'): md.pop(k, None)
    av = doc.get('apiVersion') or ''
    if av == 'kubeflow.org/v1' and doc.get('kind') in KINDS: v1(doc)
    elif av == 'kubeflow.org/v2beta1': v2beta1(doc)
    elif av.startswith('trainer.kubeflow.org/'): trainjob(doc)
    return prune(doc)
def diff(a, b, path, out):
    if type(a) != type(b):
        out.append('%s: input %s, output %s' % (path, json.dumps(a)[:300], json.dumps(b)[:300])); return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b: out.append('%s.%s: missing in the output (input %s)' % (path, k, json.dumps(a[k])[:300]))
            elif k not in a: out.append('%s.%s: not in the input (output %s)' % (path, k, json.dumps(b[k])[:300]))
            else: diff(a[k], b[k], path + '.' + k, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append('%s: %d items in the input, %d in the output: %s vs %s' % (path, len(a), len(b), json.dumps(a)[:400], json.dumps(b)[:400])); return
        for i, (x, y) in enumerate(zip(a, b)): diff(x, y, '%s[%d]' % (path, i), out)
    elif a != b:
        out.append('%s: input %s, output %s' % (path, json.dumps(a), json.dumps(b)))
key = lambda d: (str(d.get('kind')), str((d.get('metadata') or {}).get('name')))
A = sorted(load(sys.argv[1]), key=key); B = sorted(load(sys.argv[2]), key=key)
out = []
if len(A) != len(B): out.append('documents: %d in the input, %d in the output' % (len(A), len(B)))
else:
    for a, b in zip(A, B): diff(norm(a), norm(b), '%s/%s' % key(a), out)
print('\n'.join(out)); sys.exit(1 if out else 0)
]==])

local SCHEMA_CHECK = write(D .. "/schema_check.py", [==[
import sys, json, yaml, jsonschema
s = json.load(open(sys.argv[1])); d = yaml.safe_load(open(sys.argv[2], encoding='utf-8'))
errs = sorted(jsonschema.Draft202012Validator(s).iter_errors(d), key=lambda e: list(e.absolute_path))
for e in errs: print('/'.join(str(p) for p in e.absolute_path) + ': ' + e.message[:300])
sys.exit(1 if errs else 0)
]==])

-- a fresh file name in D; its stem is a DNS-1035 label (a config's single job is named by it)
local counter = 0
local function tmp(name)
  counter = counter + 1
  local base, ext = name:match("^([^.]*)(.*)$")
  return D .. "/" .. base:lower():gsub("[^a-z0-9]", "-") .. "-" .. counter .. ext
end

-- string search with a useful failure message
local function has(pat, s, msg)
  assert.is_truthy(tostring(s):find(pat), (msg and (msg .. "\n") or "") .. "pattern " .. pat .. " not found in:\n" .. tostring(s):sub(1, 3000))
end
local function has_plain(str, s, msg)
  assert.is_truthy(tostring(s):find(str, 1, true), (msg and (msg .. "\n") or "") .. "'" .. str .. "' not found in:\n" .. tostring(s):sub(1, 3000))
end

-- the manifest of a config (Lua or data), rendered with no flag but --target
local function render_manifest(cfg, target, extra)
  local out, err, rc = kf("render " .. q(cfg) .. " -f manifest --target " .. target .. " " .. (extra or ""))
  assert.are.equal(0, rc, "kfjob render " .. cfg .. " -f manifest --target " .. target .. ": " .. err)
  return out
end
local function manifest_of_lua(src, target, extra)
  return docs_of_text(render_manifest(write(tmp("cfg.lua"), src), target, extra))[1]
end
local function main_containers(doc)
  local res = {}
  for _, key in ipairs { "tfReplicaSpecs", "pytorchReplicaSpecs", "mpiReplicaSpecs", "jaxReplicaSpecs",
                         "xgbReplicaSpecs", "paddleReplicaSpecs" } do
    for rt, rs in pairs((doc.spec or {})[key] or {}) do res[rt] = rs.template.spec.containers[1] end
  end
  return res
end
local function envnames(env)
  local n = {}
  for i, e in ipairs(env or {}) do n[i] = e.name end
  return table.concat(n, ",")
end

local FMT_EXT = { lua = "lua", config = "json", ["config-yaml"] = "yaml" }

-- Law 3 for manifests: convert M -f FMT, render --target T with no other flag, equal as data
local function law3_manifest(input, target, fmt, convert_flags)
  local cfg = tmp("law3." .. FMT_EXT[fmt])
  local _, err, rc = kf("convert " .. q(input) .. " -f " .. fmt .. " " .. (convert_flags or "") .. " > " .. q(cfg))
  assert.are.equal(0, rc, "kfjob convert " .. input .. " -f " .. fmt .. " exit " .. tostring(rc) .. ": " .. err)
  local out = tmp("law3.manifest.yaml")
  _, err, rc = kf("render " .. q(cfg) .. " -f manifest --target " .. target .. " > " .. q(out))
  assert.are.equal(0, rc, "kfjob render CONFIG -f manifest --target " .. target .. ": " .. err)
  local d, _, rc2 = run("python3 " .. q(NORM) .. " " .. q(input) .. " " .. q(out))
  assert.are.equal(0, rc2, "not equal to the input as data after the defaults:\n" .. d)
end

-- Law 3 for TaskTemplates/TaskSpecs: convert T -f lua, render -f FMT with no other flag, same bytes
local function law3_bytes(input, fmt)
  local cfg = tmp("law3b.lua")
  local _, err, rc = kf("convert " .. q(input) .. " -f lua > " .. q(cfg))
  assert.are.equal(0, rc, "kfjob convert " .. input .. " -f lua: " .. err)
  local out = tmp("law3b.pb")
  _, err, rc = kf("render " .. q(cfg) .. " -f " .. fmt .. " > " .. q(out))
  assert.are.equal(0, rc, "kfjob render CONFIG -f " .. fmt .. ": " .. err)
  local a, b = read(input), read(out)
  assert.is_true(#a > 0, "empty input " .. input)
  assert.is_true(a == b, ("different bytes (%d vs %d) for %s; config:\n%s"):format(#a, #b, input, read(cfg)))
end

---------------------------------------------------------------------------------------------
-- hand-written manifests (as teams write them)
---------------------------------------------------------------------------------------------

local PT_ENV = [[
            env:
            - name: DATA_DIR
              value: /data/wiki
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef:
                  name: hf-secret
                  key: token
            - name: CACHE
              value: $(DATA_DIR)/cache
]]
local function pt_group(name, replicas, podmeta)
  return ([[
    %s:
      replicas: %d
      restartPolicy: OnFailure
      template:
%s        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/bert:1.4
            command: [torchrun]
            args: [--nnodes=$(PET_NNODES), --nproc-per-node=1, train.py, --data, $(DATA_DIR), --epochs, "3"]
]]):format(name, replicas, podmeta or "") .. PT_ENV .. [[
            resources:
              limits:
                nvidia.com/gpu: "1"
                memory: 16Gi
            volumeMounts:
            - name: data
              mountPath: /data
          - name: log-shipper
            image: fluent/fluent-bit:2.2
            volumeMounts:
            - name: data
              mountPath: /data
              readOnly: true
          volumes:
          - name: data
            persistentVolumeClaim:
              claimName: wiki-pvc
]]
end

-- the issue's case: labels/annotations on the resource only (as most hand-written manifests)
local PT_HAND = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert-ft
  namespace: ml-team
  labels:
    team: nlp
    kueue.x-k8s.io/queue-name: team-a
    app.kubernetes.io/part-of: bert
  annotations:
    acme.io/owner: alice@example.com
    description: "fine-tune bert on wiki"
spec:
  runPolicy:
    cleanPodPolicy: Running
    backoffLimit: 3
  pytorchReplicaSpecs:
]] .. pt_group("Master", 1) .. pt_group("Worker", 3)

-- the same with the pod templates repeating the resource's labels and annotations
local PT_POD_META = [[
        metadata:
          labels:
            team: nlp
            app.kubernetes.io/part-of: bert
          annotations:
            acme.io/owner: alice@example.com
            description: "fine-tune bert on wiki"
]]
local PT_COPIED = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert-ft2
  namespace: ml-team
  labels:
    team: nlp
    app.kubernetes.io/part-of: bert
  annotations:
    acme.io/owner: alice@example.com
    description: "fine-tune bert on wiki"
spec:
  runPolicy:
    cleanPodPolicy: Running
    backoffLimit: 3
  pytorchReplicaSpecs:
]] .. pt_group("Master", 1, PT_POD_META) .. pt_group("Worker", 3, PT_POD_META)

-- pods with labels/annotations of their own (Istio opt-out, an app label), the resource others
local PT_OWN_POD_META = [[
        metadata:
          labels:
            app: bert
          annotations:
            sidecar.istio.io/inject: "false"
]]
local PT_PODMETA = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert-ft3
  namespace: ml-team
  labels:
    team: nlp
  annotations:
    acme.io/owner: alice@example.com
spec:
  pytorchReplicaSpecs:
]] .. pt_group("Master", 1, PT_OWN_POD_META) .. pt_group("Worker", 2, PT_OWN_POD_META)

local TF_PS = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: resnet
  namespace: vision
  labels:
    team: vision
  annotations:
    acme.io/cost-center: "4711"
spec:
  runPolicy:
    cleanPodPolicy: All
    ttlSecondsAfterFinished: 3600
  tfReplicaSpecs:
    PS:
      replicas: 2
      restartPolicy: Never
      template:
        metadata:
          labels:
            team: vision
          annotations:
            acme.io/cost-center: "4711"
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/acme/resnet:2.15
            command: [python, -m, resnet.train]
            args: [--job_name=ps, --log_dir=/logs]
            env:
            - name: TF_CPP_MIN_LOG_LEVEL
              value: "2"
            resources:
              requests:
                cpu: "4"
                memory: 8Gi
              limits:
                cpu: "4"
                memory: 8Gi
    Worker:
      replicas: 4
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            team: vision
          annotations:
            acme.io/cost-center: "4711"
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/acme/resnet:2.15
            command: [python, -m, resnet.train]
            args: [--job_name=worker, --epochs=90, --batch=256]
            env:
            - name: TF_CPP_MIN_LOG_LEVEL
              value: "2"
            resources:
              limits:
                cpu: "8"
                memory: 32Gi
                nvidia.com/gpu: "1"
]]

-- mpi-operator v2beta1, Intel/MPICH style (FACTS §11.7): mpirun in the launcher's args
local MPI_V2 = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: hvd-mnist
  namespace: hpc
  labels:
    team: hpc
spec:
  slotsPerWorker: 2
  runPolicy:
    cleanPodPolicy: Running
  sshAuthMountPath: /root/.ssh
  mpiImplementation: OpenMPI
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            team: hpc
        spec:
          containers:
          - name: mpi
            image: ghcr.io/acme/mnist-mpi:3
            args: [mpirun, --allow-run-as-root, -np, "4", -x, NCCL_DEBUG, python, /app/mnist.py, --epochs, "5"]
            env:
            - name: NCCL_DEBUG
              value: INFO
            resources:
              limits:
                cpu: "1"
                memory: 2Gi
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        metadata:
          labels:
            team: hpc
        spec:
          containers:
          - name: mpi
            image: ghcr.io/acme/mnist-mpi:3
            command: [/usr/sbin/sshd]
            args: [-De, -f, /home/mpiuser/.sshd_config]
            resources:
              limits:
                cpu: "4"
                memory: 8Gi
                nvidia.com/gpu: "2"
]]

local MPI_V1 = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: tf-bench
  namespace: hpc
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: mpi
            image: mpioperator/tensorflow-benchmarks:latest
            args: [mpirun, --allow-run-as-root, -np, "2", -bind-to, none, python, scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py, --model=resnet101]
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: mpi
            image: mpioperator/tensorflow-benchmarks:latest
            args: [sleep, 365d]
            resources:
              limits:
                nvidia.com/gpu: 1
]]

local TRAINJOB = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llama-ft
  namespace: llm
  labels:
    kueue.x-k8s.io/queue-name: gpu-queue
    project: llama
  annotations:
    acme.io/ticket: ML-1234
spec:
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: ClusterTrainingRuntime
    name: torch-distributed
  trainer:
    image: ghcr.io/acme/llama-ft:0.9
    command: [torchrun, --no-python, python, finetune.py]
    args: [--model, meta-llama/Llama-3.2-1B, --lr, "2e-5"]
    env:
    - name: WANDB_PROJECT
      value: llama-ft
    - name: HF_HOME
      value: /cache/hf
    - name: NODE_IP
      valueFrom:
        fieldRef:
          fieldPath: status.hostIP
    numNodes: 2
    numProcPerNode: 1
    resourcesPerNode:
      limits:
        nvidia.com/gpu: "4"
        memory: 64Gi
]]

local JAX = [[
apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: jax-mnist
  namespace: research
  labels:
    group: jax
spec:
  runPolicy:
    cleanPodPolicy: None
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            group: jax
        spec:
          containers:
          - name: jax
            image: ghcr.io/acme/jax-mnist:1
            command: [python3, -m, mnist]
            args: [--steps, "1000"]
            env:
            - name: XLA_FLAGS
              value: --xla_gpu_enable_latency_hiding_scheduler=true
            - name: JAX_PLATFORMS
              value: cpu
            resources:
              limits:
                cpu: "2"
                memory: 4Gi
]]

local XGB = [[
apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata:
  name: xgb-iris
  namespace: tabular
spec:
  runPolicy:
    cleanPodPolicy: None
  xgbReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: xgboost
            image: docker.io/kubeflow/xgboost-dist-iris:latest
            args: [--job_type=Train, "--xgboost_parameter=objective:multi:softprob,num_class:3", --n_estimators=10]
            ports:
            - containerPort: 9991
              name: xgboostjob-port
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: xgboost
            image: docker.io/kubeflow/xgboost-dist-iris:latest
            args: [--job_type=Train, "--xgboost_parameter=objective:multi:softprob,num_class:3", --n_estimators=10]
            ports:
            - containerPort: 9991
              name: xgboostjob-port
]]

local PADDLE = [[
apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata:
  name: paddle-resnet
  namespace: paddle
  annotations:
    acme.io/owner: bob
spec:
  runPolicy:
    cleanPodPolicy: None
  paddleReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        metadata:
          annotations:
            acme.io/owner: bob
        spec:
          containers:
          - name: paddle
            image: registry.baidubce.com/paddlepaddle/paddle:2.4.0rc0-cpu
            command: [python]
            args: [-m, paddle.distributed.launch, run_check]
            env:
            - name: POD_IP
              valueFrom:
                fieldRef:
                  fieldPath: status.podIP
            ports:
            - containerPort: 37777
              name: master
            volumeMounts:
            - mountPath: /dev/shm
              name: dshm
          volumes:
          - name: dshm
            emptyDir:
              medium: Memory
]]

local ELASTIC = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: elastic-imagenet
  namespace: ml
  labels: {team: ml}
spec:
  elasticPolicy:
    rdzvBackend: c10d
    minReplicas: 2
    maxReplicas: 4
    maxRestarts: 10
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      restartPolicy: OnFailure
      template:
        metadata:
          labels: {team: ml}
        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/imagenet:2
            command: [torchrun]
            args: [--nproc-per-node=1, /workspace/train.py, --arch, resnet50]
            env:
            - name: LOGLEVEL
              value: INFO
            - name: NCCL_DEBUG
              value: WARN
]]

-- a TFJob whose groups run different things, and one group the image's default
local TF_MIXED = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tf-mixed
spec:
  tfReplicaSpecs:
    Chief:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/acme/tf:2
            command: [python, train.py]
            args: [--role=chief]
            env:
            - {name: A, value: "1"}
            - {name: B, value: "2"}
    PS:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/acme/tf:2
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: ghcr.io/acme/tf:2
            command: [python, train.py]
            args: [--role=worker]
            env:
            - {name: B, value: "2"}
            - {name: A, value: "1"}
]]

-- strings YAML readers could take for other types, empty values, every valueFrom source
local EDGE = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: edge-case
  namespace: a-namespace-that-is-exactly-sixty-three-characters-long-abcdefg
  labels:
    example.com/empty: ""
    app.kubernetes.io/name: edge
  annotations:
    acme.io/json: '{"a": [1, 2], "b": "c"}'
    acme.io/multiline: |
      line one
      line two: "quoted"
    acme.io/looks-bool: "true"
    acme.io/unicode: "café ☕"
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels:
            example.com/empty: ""
            app.kubernetes.io/name: edge
          annotations:
            acme.io/json: '{"a": [1, 2], "b": "c"}'
            acme.io/multiline: |
              line one
              line two: "quoted"
            acme.io/looks-bool: "true"
            acme.io/unicode: "café ☕"
        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/edge@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
            command: [sh, -c, 'echo "$(MSG)" && exec python train.py "$@"', --]
            args: ["yes", "on", "08", "1e3", "0x1F", "~", "null", "true", "1:30", "", "café"]
            env:
            - name: DEBUG
            - name: EMPTY
              value: ""
            - name: MSG
              value: "hello $(POD_NAME) $$(literal)"
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  apiVersion: v1
                  fieldPath: metadata.name
            - name: MEM_LIMIT
              valueFrom:
                resourceFieldRef:
                  containerName: pytorch
                  resource: limits.memory
                  divisor: 1Mi
            - name: CFG
              valueFrom:
                configMapKeyRef:
                  name: train-config
                  key: config.yaml
                  optional: true
            - name: my.dotted-name_1
              value: x
            resources:
              limits:
                memory: 2Gi
                cpu: 500m
]]

local HAND = {
  { "PyTorchJob (sidecar, volumes, valueFrom, $(VAR), Kueue label, metadata on the resource only)", "pt_hand.yaml", PT_HAND, "operator" },
  { "PyTorchJob (the same, pod templates repeating the labels and annotations)", "pt_copied.yaml", PT_COPIED, "operator" },
  { "PyTorchJob (pods with labels/annotations of their own)", "pt_podmeta.yaml", PT_PODMETA, "operator" },
  { "TFJob whose PS runs other args", "tf_ps.yaml", TF_PS, "operator" },
  { "TFJob with a group running the image's default", "tf_mixed.yaml", TF_MIXED, "operator" },
  { "mpi-operator MPIJob, launcher running mpirun", "mpi_v2.yaml", MPI_V2, "mpi-operator" },
  { "v1 MPIJob, launcher running mpirun", "mpi_v1.yaml", MPI_V1, "operator" },
  { "TrainJob with env and valueFrom", "trainjob.yaml", TRAINJOB, "trainer-2.3" },
  { "JAXJob", "jax.yaml", JAX, "operator" },
  { "XGBoostJob with ports", "xgb.yaml", XGB, "operator" },
  { "PaddleJob with valueFrom and /dev/shm volume", "paddle.yaml", PADDLE, "operator" },
  { "elastic PyTorchJob", "elastic.yaml", ELASTIC, "operator" },
  { "PyTorchJob with edge-case strings, empty values and every valueFrom source", "edge.yaml", EDGE, "operator" },
}

---------------------------------------------------------------------------------------------
-- kfjob's own manifests on every target, of configs that say what they run
---------------------------------------------------------------------------------------------

local OWN_K8S = [[
local kfjob = require "kfjob"
local C = { image = "ghcr.io/acme/train:7", command = { "python", "-m", "train" },
  args = { "--epochs", "3", "--data=$(DATA)" },
  env = { { name = "DATA", value = "s3://acme/data" },
          { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } },
          { name = "CACHE", value = "$(DATA)/cache" } } }
local M = { namespace = "ml", labels = { team = "a", ["acme.io/tier"] = "gold" }, annotations = { ["acme.io/note"] = "x y" } }
local PT = { spec = { containers = { { name = "primary", volumeMounts = { { name = "data", mountPath = "/data" } } },
                                      { name = "sidecar", image = "fluent/fluent-bit:2.2" } },
                      volumes = { { name = "data", persistentVolumeClaim = { claimName = "pvc" } } } } }
local function J(ctor, t, nopod)
  for k, v in pairs(M) do t[k] = v end
  t.container = t.container or C
  if not nopod then t.pod_template = PT end
  return ctor(t)
end
return {
  tf = J(kfjob.TFJob, { worker = { replicas = 2, limits = { cpu = 2 } }, ps = { replicas = 1, container = { args = { "--role", "ps" } } }, chief = { replicas = 1 } }),
  pt = J(kfjob.PyTorchJob, { worker = { replicas = 2, container = { env = { WORKER = "1" } } }, shared_memory = true }),
  tr = J(kfjob.PyTorchJob, { worker = { replicas = 2 }, limits = { gpu = 1 }, shared_memory = true }, true),
  el = J(kfjob.Elastic, { nnodes = 2, nproc_per_node = 4, worker = { limits = { gpu = 4 } } }, true),
  elr = J(kfjob.Elastic, { nnodes = "2:4" }),
  mpi = J(kfjob.MPIJob, { worker = { replicas = 2 }, launcher = { container = { env = { { name = "OMPI_X", value = "1" } } } }, slots = 2,
                          container = { image = "ghcr.io/acme/mpi:1", args = { "python", "train.py" } } }),
  hvd = J(kfjob.HorovodJob, { worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } },
                              container = { image = "ghcr.io/acme/hvd:1", args = { "python", "train.py" }, env = { NCCL_DEBUG = "INFO" } } }),
  jax = J(kfjob.JAXJob, { worker = { replicas = 2 } }),
  xgb = J(kfjob.XGBoostJob, { worker = { replicas = 2, container = { args = { "--role=worker" } } } }),
  pd = J(kfjob.PaddleJob, { worker = { replicas = 2 } }),
}
]]

local OWN_FLYTE = [[
local kfjob = require "kfjob"
local C = { image = "ghcr.io/acme/train:7", command = { "python", "-m", "train" },
            args = { "--epochs", "3", "--data=$(DATA)" },
            env = { { name = "DATA", value = "s3://acme/data" }, { name = "A_LEVEL", value = "debug" } } }
local M = { namespace = "ml", labels = { team = "a", ["acme.io/tier"] = "gold" }, annotations = { ["acme.io/note"] = "x y" } }
local function J(ctor, t) for k, v in pairs(M) do t[k] = v end t.container = t.container or C return ctor(t) end
return {
  tf = J(kfjob.TFJob, { worker = { replicas = 2, limits = { cpu = 2 } }, ps = { replicas = 1 }, chief = { replicas = 1 } }),
  pt = J(kfjob.PyTorchJob, { worker = { replicas = 2, limits = { gpu = 1 } }, shared_memory = true }),
  el = J(kfjob.Elastic, { nnodes = "2:4", worker = { limits = { gpu = 1 } } }),
  mpi = J(kfjob.MPIJob, { worker = { replicas = 2 }, slots = 2, container = { image = "ghcr.io/acme/mpi:1", args = { "python", "train.py" }, env = { B = "2", A = "1" } } }),
  hvd = J(kfjob.HorovodJob, { worker = { replicas = 2 }, container = { image = "ghcr.io/acme/hvd:1", args = { "python", "train.py" } } }),
}
]]

local OWN = {
  { OWN_K8S, "tf", "operator" }, { OWN_K8S, "pt", "operator" }, { OWN_K8S, "tr", "operator" },
  { OWN_K8S, "tr", "trainer-2.2" }, { OWN_K8S, "tr", "trainer-2.3" }, { OWN_K8S, "el", "operator" },
  { OWN_K8S, "el", "trainer-2.2", "--kind Elastic" }, { OWN_K8S, "el", "trainer-2.3", "--kind Elastic" },
  { OWN_K8S, "elr", "operator" }, { OWN_K8S, "mpi", "operator" }, { OWN_K8S, "mpi", "mpi-operator" },
  { OWN_K8S, "hvd", "operator" }, { OWN_K8S, "hvd", "mpi-operator" }, { OWN_K8S, "jax", "operator" },
  { OWN_K8S, "xgb", "operator" }, { OWN_K8S, "pd", "operator" },
  { OWN_FLYTE, "tf", "flyte" }, { OWN_FLYTE, "tf", "flyte2" }, { OWN_FLYTE, "pt", "flyte" },
  { OWN_FLYTE, "pt", "flyte2" }, { OWN_FLYTE, "el", "flyte" }, { OWN_FLYTE, "el", "flyte2" },
  { OWN_FLYTE, "mpi", "flyte" }, { OWN_FLYTE, "mpi", "flyte2" }, { OWN_FLYTE, "hvd", "flyte" },
  { OWN_FLYTE, "hvd", "flyte2" },
}

local own_files = {}
local function own_manifest(src, name, target)
  local key = name .. "@" .. target .. "@" .. #src
  if not own_files[key] then
    local cfg = write(tmp("own.lua"), src)
    local path = tmp(name .. "_" .. target .. ".yaml")
    local _, err, rc = kf("render " .. q(cfg) .. " --name " .. name .. " -f manifest --target " .. target .. " > " .. q(path))
    assert.are.equal(0, rc, "rendering kfjob's own manifest " .. name .. " for " .. target .. ": " .. err)
    own_files[key] = path
  end
  return own_files[key]
end

---------------------------------------------------------------------------------------------
-- TaskTemplates and TaskSpecs made by kfjob's own render -f template|taskspec
---------------------------------------------------------------------------------------------

local TT_CFG = [[
local kfjob = require "kfjob"
local C = { image = "ghcr.io/acme/train:7", command = { "python", "-m", "train" },
            args = { "--epochs", "3" },
            env = { { name = "ZETA", value = "1" }, { name = "ALPHA", value = "2" } } }
return {
  tf = kfjob.TFJob{ container = C, worker = { replicas = 2, limits = { cpu = 2 } }, ps = { replicas = 1 } },
  tf0 = kfjob.TFJob{ container = C, worker = { replicas = 2 }, ps = { replicas = 1 } },
  pt = kfjob.PyTorchJob{ container = C, worker = { replicas = 2, image = "ghcr.io/acme/worker:2", limits = { gpu = 1 } },
                         master = { image = "ghcr.io/acme/master:3" }, shared_memory = true },
  el = kfjob.Elastic{ container = C, nnodes = "2:4" },
  mpi = kfjob.MPIJob{ container = { image = "ghcr.io/acme/mpi:1", args = { "python", "train.py" }, env = { B = "2", A = "1" } },
                      worker = { replicas = 2 }, slots = 2 },
  hvd = kfjob.HorovodJob{ container = { image = "ghcr.io/acme/hvd:1", args = { "python", "train.py" } }, worker = { replicas = 2 } },
  podt = kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/pod:1", args = { "train" } }, worker = { replicas = 1 },
                           pod_template = { spec = { containers = { { name = "primary",
                             env = { { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } } } } } },
  regd = { job = kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/train:7", command = { "python", "train.py" },
                                                 args = { "--lr", "0.1" }, env = { { name = "Z", value = "1" }, { name = "A", value = "2" } } },
                                   worker = { replicas = 2, limits = { gpu = 1 } } },
           opts = { id = { project = "ml", domain = "development", name = "regd", version = "v7" },
                    interface = { inputs = { lr = "float", data = "directory" }, outputs = { model = "file" } },
                    metadata = { retries = 2, timeout = "1h30m", interruptible = true, tags = { owner = "ml" },
                                 description = "bert ft" } } },
}
]]

local tt_cfg_path
local function tt_file(name, fmt, flags)
  tt_cfg_path = tt_cfg_path or write(tmp("tt.lua"), TT_CFG)
  local path = tmp(name .. "." .. fmt .. ".pb")
  local reg = (fmt == "taskspec" and name ~= "regd") and " --project p --domain development --version v1" or ""
  local _, err, rc = kf("render " .. q(tt_cfg_path) .. " --name " .. name .. " -f " .. fmt .. reg .. " " .. (flags or "") .. " > " .. q(path))
  assert.are.equal(0, rc, "render -f " .. fmt .. " of " .. name .. ": " .. err)
  return path
end

---------------------------------------------------------------------------------------------
-- the tests
---------------------------------------------------------------------------------------------

local ALL_KINDS = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob", "JAXJob", "XGBoostJob", "PaddleJob" }
local GROUPS = {
  TFJob = { "worker", "ps", "chief", "evaluator" }, PyTorchJob = { "worker", "master" }, Elastic = { "worker" },
  MPIJob = { "worker", "launcher" }, HorovodJob = { "worker", "launcher" }, JAXJob = { "worker" },
  XGBoostJob = { "worker", "master" }, PaddleJob = { "worker", "master" },
}

describe("issue 41 acceptance: the whole job in one config (SPEC §16)", function()

  teardown(function() os.execute("rm -rf " .. q(D)) end)

  -------------------------------------------------------------------------------------------
  describe("the issue's reproduction", function()
    it("convert -f lua of a hand-written PyTorchJob, rendered back with no flag, keeps command, args, env, namespace, labels, annotations", function()
      local m = write(tmp("job.yaml"), PT_HAND)
      local lua_cfg = tmp("job.lua")
      local _, err, rc = kf("convert " .. q(m) .. " -f lua > " .. q(lua_cfg))
      assert.are.equal(0, rc, err)
      local doc = docs_of_text(render_manifest(lua_cfg, "operator"))[1]
      assert.are.equal("ml-team", doc.metadata.namespace)
      assert.are.equal("nlp", doc.metadata.labels.team)
      assert.are.equal("alice@example.com", doc.metadata.annotations["acme.io/owner"])
      local c = doc.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]
      assert.are.same({ "torchrun" }, c.command)
      assert.are.same({ "--nnodes=$(PET_NNODES)", "--nproc-per-node=1", "train.py", "--data", "$(DATA_DIR)", "--epochs", "3" }, c.args)
      assert.are.equal("DATA_DIR,POD_NAME,HF_TOKEN,CACHE", envnames(c.env))
    end)

    it("a config returning { job =, opts = { namespace, command, bogus } } is an error naming opts.bogus and -f manifest", function()
      local cfg = write(tmp("jo.lua"), [[
local kfjob = require "kfjob"
local J = kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/t:1" }, worker = { replicas = 1 } }
return { train = { job = J, opts = { namespace = "x", command = { "python", "t.py" }, bogus = 1 } } }
]])
      local out, err, rc = kf("render " .. q(cfg) .. " -f manifest")
      assert.are.equal(1, rc, "exit code; stdout: " .. out)
      has("opts%.bogus", err)
      has("%-f manifest", err)
    end)

    it("the same opts without the bogus key are applied to the manifest", function()
      local doc = manifest_of_lua([[
local kfjob = require "kfjob"
local J = kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/t:1" }, worker = { replicas = 1 } }
return { train = { job = J, opts = { namespace = "x", command = { "python", "t.py" } } } }
]], "operator")
      assert.are.equal("x", doc.metadata.namespace)
      assert.are.same({ "python", "t.py" }, doc.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].command)
    end)

    it("a data config can say what to run", function()
      local cfg = write(tmp("bert.yaml"), [[
kind: PyTorchJob
container:
  image: ghcr.io/acme/bert:1.2
  command: [torchrun, --nproc-per-node=2]
  args: [train.py, --epochs, "3"]
  env: {LOG_LEVEL: info}
namespace: ml
labels: {team: nlp}
annotations: {acme.io/owner: alice}
worker: {replicas: 2}
]])
      local doc = docs_of_text(render_manifest(cfg, "operator"))[1]
      assert.are.equal("ml", doc.metadata.namespace)
      assert.are.equal("nlp", doc.metadata.labels.team)
      assert.are.equal("alice", doc.metadata.annotations["acme.io/owner"])
      local c = doc.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]
      assert.are.equal("ghcr.io/acme/bert:1.2", c.image)
      assert.are.same({ "torchrun", "--nproc-per-node=2" }, c.command)
      assert.are.same({ "train.py", "--epochs", "3" }, c.args)
      assert.are.same({ { name = "LOG_LEVEL", value = "info" } }, c.env)
    end)

    it("convert task.pb -f lua of a TaskSpec keeps the groups' images and the registration values", function()
      local ts = tt_file("regd", "taskspec")
      local out, err, rc = kf("convert " .. q(ts) .. " -f lua")
      assert.are.equal(0, rc, err)
      has_plain("ghcr.io/acme/train:7", out)
      has("interface%s*=", out)
      has("metadata%s*=", out)
      has("retries%s*=%s*2", out)
      has_plain('"v7"', out)
      local ts2 = tt_file("pt", "taskspec")
      out, err, rc = kf("convert " .. q(ts2) .. " -f lua")
      assert.are.equal(0, rc, err)
      has_plain("ghcr.io/acme/worker:2", out)
      has_plain("ghcr.io/acme/master:3", out)
      has_plain("ghcr.io/acme/train:7", out)
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("job fields on every kind, as schema rows", function()
    local schema
    local function get_schema()
      if not schema then
        schema = tmp("schema.json")
        local _, err, rc = kf("schema > " .. q(schema))
        assert.are.equal(0, rc, err)
      end
      return schema
    end

    for _, kind in ipairs(ALL_KINDS) do
      it("kfjob schema " .. kind .. " has container {image, command, args, env}, namespace, labels, annotations and each group's container {command, args, env}", function()
        local out, err, rc = kf("schema " .. kind)
        assert.are.equal(0, rc, err)
        local s = docs_of_text(out)[1]
        local def = assert(s["$defs"] and s["$defs"][kind], "no $defs." .. kind)
        local p = def.properties
        for _, k in ipairs { "container", "namespace", "labels", "annotations" } do
          assert.is_not_nil(p[k], kind .. "." .. k .. " missing from the schema")
        end
        for _, k in ipairs { "image", "command", "args", "env" } do
          assert.is_not_nil(p.container.properties[k], kind .. ".container." .. k .. " missing")
        end
        for _, g in ipairs(GROUPS[kind]) do
          local gc = assert(p[g] and p[g].properties and p[g].properties.container, kind .. "." .. g .. ".container missing")
          for _, k in ipairs { "command", "args", "env" } do
            assert.is_not_nil(gc.properties[k], kind .. "." .. g .. ".container." .. k .. " missing")
          end
        end
      end)
    end

    it("kfjob schema accepts container.env as a list of EnvVars (valueFrom included), the form check takes and convert -f config-yaml writes", function()
      local cfg = write(tmp("envlist.yaml"), [[
kind: PyTorchJob
container:
  image: ghcr.io/acme/x:1
  env:
  - {name: B, value: "1"}
  - name: POD
    valueFrom: {fieldRef: {fieldPath: metadata.name}}
worker: {replicas: 1}
shared_memory: true
]])
      local _, err, rc = kf("check " .. q(cfg) .. " --target operator")
      assert.are.equal(0, rc, "check refuses it: " .. err)
      local d, _, rc2 = run("python3 " .. q(SCHEMA_CHECK) .. " " .. q(get_schema()) .. " " .. q(cfg))
      assert.are.equal(0, rc2, "kfjob schema refuses a config kfjob check accepts:\n" .. d)
    end)

    it("every data config that convert -f config / -f config-yaml writes validates against kfjob schema", function()
      local bad = {}
      for _, h in ipairs(HAND) do
        local m = write(tmp(h[2]), h[3])
        for _, fmt in ipairs { "config", "config-yaml" } do
          local cfg = tmp("sch." .. FMT_EXT[fmt])
          local _, _, rc = kf("convert " .. q(m) .. " -f " .. fmt .. " > " .. q(cfg))
          if rc == 0 then
            local d, _, rc2 = run("python3 " .. q(SCHEMA_CHECK) .. " " .. q(get_schema()) .. " " .. q(cfg))
            -- only the fields of this issue (container, namespace, labels, annotations)
            for line in d:gmatch("[^\n]+") do
              local path = line:match("^([^:]*):") or ""
              if path:find("container") or path:find("namespace") or path:find("labels") or path:find("annotations") then
                bad[#bad + 1] = h[2] .. " -f " .. fmt .. ": " .. line
              end
            end
            assert(rc2 == 0 or #d > 0)
          end
        end
      end
      assert.are.equal("", table.concat(bad, "\n"))
    end)

    it("kfjob explain shows the new fields with their types", function()
      for _, path in ipairs { "PyTorchJob.container.args", "TFJob.ps.container.env", "MPIJob.namespace",
                              "JAXJob.labels", "PaddleJob.annotations", "XGBoostJob.container.image",
                              "HorovodJob.launcher.container.command", "Elastic.container.env" } do
        local out, err, rc = kf("explain " .. path)
        assert.are.equal(0, rc, path .. ": " .. err)
        has("FIELD:", out)
      end
      local out = kf("explain PyTorchJob.container.args")
      has("list of strings", out)
    end)

    it("kfjob explain does not call env, labels or annotations a PodTemplateSpec", function()
      for _, path in ipairs { "PyTorchJob.container.env", "TFJob.labels", "TFJob.annotations", "MPIJob.worker.container.env" } do
        local out = kf("explain " .. path)
        local field = out:match("FIELD:[^\n]*") or ""
        assert.is_nil(field:find("PodTemplateSpec", 1, true), path .. ": " .. field)
      end
    end)

    it("kfjob explain says where container.env goes on each target (as it does for container.args)", function()
      local out = kf("explain PyTorchJob.container.env")
      has("ON TARGET operator", out)
      has("containers%[0%]%.env", out)
    end)

    it("kfjob explain --target flyte names R35 for a group's container.args", function()
      has("R35", (kf("explain PyTorchJob.worker.container.args --target flyte")))
    end)
    it("kfjob explain --target flyte names R36 for container.env (valueFrom)", function()
      has("R36", (kf("explain PyTorchJob.container.env --target flyte")))
    end)
    it("kfjob explain --target flyte names R37 for labels and annotations (as it does for namespace)", function()
      has("R37", (kf("explain MPIJob.namespace --target flyte")))
      has("R37", (kf("explain TFJob.labels --target flyte")))
      has("R37", (kf("explain TFJob.annotations --target flyte")))
    end)

    it("kfjob explain does not leak a probe value into its warning text", function()
      local out = kf("explain MPIJob.namespace --target flyte")
      assert.is_nil(out:find("kfjob-probe", 1, true), out)
    end)

    it("kfjob meta declares container, namespace, labels, annotations on every kind's Opts class", function()
      local out, err, rc = kf("meta")
      assert.are.equal(0, rc, err)
      for _, kind in ipairs(ALL_KINDS) do
        local body = out:match("%-%-%-@class %(exact%) kfjob%." .. kind .. "Opts\n(.-)\n[^%-]")
        assert.is_not_nil(body, "no class kfjob." .. kind .. "Opts")
        for _, f in ipairs { "container", "namespace", "labels", "annotations" } do
          has("%-%-%-@field " .. f .. "%?", body, kind .. " lacks " .. f)
        end
      end
    end)

    it("kfjob meta types env, labels and annotations as what they hold, not as a pod template", function()
      local out = kf("meta")
      for _, f in ipairs { "env", "labels", "annotations" } do
        for line in out:gmatch("%-%-%-@field " .. f .. "%?[^\n]*") do
          assert.is_nil(line:match("^%-%-%-@field " .. f .. "%? kfjob%.PodTemplate"), line)
        end
      end
    end)

    if has_module then
      it("kfjob.fields lists container (image, command, args, env), namespace, labels, annotations, and the groups' container", function()
        for _, kind in ipairs(ALL_KINDS) do
          local f = kfjob.fields(kind)
          for _, k in ipairs { "container", "namespace", "labels", "annotations" } do
            assert.is_not_nil(f[k], kind .. "." .. k)
          end
          for _, k in ipairs { "image", "command", "args", "env" } do
            assert.is_not_nil(f.container.fields and f.container.fields[k], kind .. ".container." .. k)
          end
          for _, g in ipairs(GROUPS[kind]) do
            local gc = f[g] and f[g].fields and f[g].fields.container
            assert.is_not_nil(gc, kind .. "." .. g .. ".container")
            for _, k in ipairs { "command", "args", "env" } do
              assert.is_not_nil(gc.fields and gc.fields[k], kind .. "." .. g .. ".container." .. k)
            end
            assert.is_nil(gc.fields and gc.fields.image, kind .. "." .. g .. ".container.image should not exist")
          end
        end
      end)

      it("spec(), ==, with (dotted keys such as [\"container.args\"]) follow the new fields", function()
        local j = kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 1 },
          container = { image = "i:1", command = { "python" }, args = { "a" }, env = { B = "1", A = "2" } },
          namespace = "ml", labels = { x = "y" }, annotations = { n = "v" } }
        local s = j:spec()
        assert.are.equal("i:1", s.container.image)
        assert.are.same({ "a" }, s.container.args)
        assert.are.equal("ml", s.namespace)
        assert.are.equal("y", s.labels.x)
        assert.are.equal("v", s.annotations.n)
        assert.is_true(kfjob.TFJob(s) == j)
        local j2 = j:with{ ["container.args"] = { "b" } }
        assert.are.same({ "b" }, j2.container.args)
        assert.are.equal("i:1", j2.container.image)
        assert.is_false(j == j2)
        assert.is_false(j == j:with{ namespace = "other" })
        assert.is_false(j == j:with{ ["labels"] = { x = "z" } })
        assert.is_false(j == j:with{ ["container.env"] = { B = "1", A = "3" } })
        local j3 = j:with{ ["ps.container.args"] = { "--ps" } }
        assert.are.same({ "--ps" }, j3.ps.container.args)
        assert.is_false(j3 == j)
        -- a table's key order does not matter
        local k1 = kfjob.PyTorchJob{ labels = { a = "1", b = "2" }, container = { env = { X = "1", Y = "2" } } }
        local k2 = kfjob.PyTorchJob{ labels = { b = "2", a = "1" }, container = { env = { Y = "2", X = "1" } } }
        assert.is_true(k1 == k2)
        -- a list's order does
        local l1 = kfjob.PyTorchJob{ container = { env = { { name = "X", value = "1" }, { name = "Y", value = "2" } } } }
        local l2 = kfjob.PyTorchJob{ container = { env = { { name = "Y", value = "2" }, { name = "X", value = "1" } } } }
        assert.is_false(l1 == l2)
      end)

      it("to_lua and to_config write the new fields and give equal jobs back", function()
        local j = kfjob.MPIJob{ worker = { replicas = 2, container = { env = { W = "1" } } }, slots = 2,
          launcher = { container = { env = { { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } } },
          container = { image = "i:1", args = { "python", "t.py" }, env = { { name = "Z", value = "1" }, { name = "A", value = "2" } } },
          namespace = "hpc", labels = { team = "hpc" }, annotations = { ["acme.io/x"] = "y" } }
        local src = kfjob.to_lua{ mpi = j }
        local env = setmetatable({ require = require }, { __index = _G })
        local back = assert(load(src, "to_lua", "t", env))()
        assert.is_true(back.mpi == j, src)
        local cfg = kfjob.to_config{ mpi = j }
        local t = {}
        for k, v in pairs(cfg.jobs.mpi) do if k ~= "kind" then t[k] = v end end
        assert.are.equal("MPIJob", cfg.jobs.mpi.kind)
        assert.is_true(kfjob.MPIJob(t) == j)
      end)

      it("templating: matrix axes and ${...} strings reach container fields and namespace", function()
        local template = require "kfjob.template"
        local seen = {}
        for name, job in template.variants(
            { container = { image = "base:0", command = { "python", "train.py" }, args = { "--lr", "${lr}" } }, worker = { replicas = 1 } },
            { lr = { "0.1", "0.01" }, ["container.image"] = { "a:1", "b:2" }, namespace = { "ns-a", "ns-b" } },
            { kind = "PyTorchJob", name = "s-${lr}-${namespace}-${container.image}" }) do
          seen[#seen + 1] = name
          local m = job:manifest{ name = "x", target = "operator" }
          local c = m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1]
          assert.are.equal(job.container.image, c.image)
          assert.are.equal(job.namespace, m.metadata.namespace)
          assert.is_true(c.args[2] == "0.1" or c.args[2] == "0.01")
        end
        assert.are.equal(8, #seen)
      end)
    end

    it("validation with paths: env names, namespace, labels, annotations, lists of strings, valueFrom", function()
      local cases = {
        { "container = { env = { { name = '1BAD', value = 'x' } } }", "container%.env%[1%]%.name" },
        { "container = { env = { { name = 'A=B', value = 'x' } } }", "container%.env%[1%]%.name" },
        { "container = { env = { ['BAD NAME'] = 'x' } }", "container%.env" },
        { "container = { env = { { name = 'P', valueFrom = { bogus = {} } } } }", "container%.env%[1%]%.valueFrom" },
        { "container = { env = { { name = 'P', valueFrom = { fieldRef = {} } } } }", "container%.env%[1%]%.valueFrom%.fieldRef" },
        { "container = { command = { 'python', 3 } }", "container%.command%[2%]" },
        { "container = { args = 'python' }", "container%.args" },
        { "worker = { replicas = 1, container = { env = { { name = '9', value = '' } } } }", "worker%.container%.env%[1%]%.name" },
        { "worker = { replicas = 1, container = { image = 'x:1' } }", "worker%.container%.image" },
        { "namespace = 'ML_Team'", "namespace" },
        { "namespace = string.rep('a', 64)", "namespace" },
        { "labels = { ['bad key!'] = 'v' }", "labels" },
        { "labels = { k = 'bad value!' }", "labels%.k" },
        { "labels = { k = string.rep('v', 64) }", "labels%.k" },
        { "annotations = { ['bad key!'] = 'v' }", "annotations" },
      }
      for _, c in ipairs(cases) do
        local cfg = write(tmp("bad.lua"), "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ " .. c[1] .. " }\n")
        local _, err, rc = kf("render " .. q(cfg) .. " -f manifest --image i:1")
        assert.are.equal(1, rc, c[1] .. " was accepted")
        has(c[2], err, c[1] .. ": " .. err)
      end
      for _, ok in ipairs { "namespace = string.rep('a', 63)", "labels = { ['acme.io/team'] = '' }",
                            "container = { env = { { name = 'A.b-c_1', value = '' } } }",
                            "annotations = { ok = 'any value !@# \\n ok' }" } do
        local cfg = write(tmp("ok.lua"), "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ " .. ok .. " }\n")
        local _, err, rc = kf("render " .. q(cfg) .. " -f manifest --image i:1")
        assert.are.equal(0, rc, ok .. " refused: " .. err)
      end
    end)

    it("an MPI/Horovod group's command together with its container.args is an error naming the path", function()
      for _, kind in ipairs { "MPIJob", "HorovodJob" } do
        for _, g in ipairs { "worker", "launcher" } do
          local cfg = write(tmp("mpi_bad.lua"), ("local kfjob = require 'kfjob'\nreturn kfjob.%s{ worker = { replicas = 1 }, %s = { command = { 'sshd' }, container = { args = { '-De' } } } }\n"):format(kind, g))
          local _, err, rc = kf("render " .. q(cfg) .. " -f manifest --image i:1")
          assert.are.equal(1, rc, kind .. "." .. g .. " accepted")
          has(g .. "%.container%.args", err)
        end
      end
    end)

    it("a data config's error gives the file, line and path", function()
      local cfg = write(tmp("badenv.yaml"), "kind: PyTorchJob\ncontainer:\n  image: i:1\n  env:\n  - {name: 1BAD, value: x}\nnamespace: ml\n")
      local _, err, rc = kf("check " .. q(cfg) .. " --target operator")
      assert.are.equal(1, rc)
      has("badenv%-%d+%.yaml:%d+", err)
      has("container%.env%[1%]%.name", err)
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("every output uses them", function()
    local CFG = [[
local kfjob = require "kfjob"
return kfjob.TFJob{
  container = { image = "ghcr.io/acme/tf:1", command = { "python", "-m", "train" }, args = { "--epochs", "9" },
                env = { { name = "ZED", value = "1" }, { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } }, { name = "ALPHA", value = "2" } } },
  namespace = "vision", labels = { team = "vision", tier = "gold" }, annotations = { ["acme.io/note"] = "n" },
  worker = { replicas = 2, image = "ghcr.io/acme/worker:5" },
  ps = { replicas = 1, container = { args = { "--role", "ps" }, env = { PS_ONLY = "yes" } } },
}
]]
    it("operator manifest: container, namespace, labels and annotations from the job with no flag", function()
      local doc = manifest_of_lua(CFG, "operator")
      assert.are.equal("vision", doc.metadata.namespace)
      assert.are.same({ team = "vision", tier = "gold" }, doc.metadata.labels)
      assert.are.same({ ["acme.io/note"] = "n" }, doc.metadata.annotations)
      local cs = main_containers(doc)
      assert.are.equal("ghcr.io/acme/worker:5", cs.Worker.image)
      assert.are.equal("ghcr.io/acme/tf:1", cs.PS.image)
      assert.are.same({ "python", "-m", "train" }, cs.Worker.command)
      assert.are.same({ "python", "-m", "train" }, cs.PS.command)
      assert.are.same({ "--epochs", "9" }, cs.Worker.args)
      assert.are.same({ "--role", "ps" }, cs.PS.args)
      assert.are.equal("ZED,POD,ALPHA", envnames(cs.Worker.env))
      assert.are.same({ fieldRef = { fieldPath = "metadata.name" } }, cs.Worker.env[2].valueFrom)
      assert.are.same({ { name = "PS_ONLY", value = "yes" } }, cs.PS.env)
    end)

    it("a name = value env table is emitted sorted, a list in its order", function()
      local doc = manifest_of_lua([[
local kfjob = require "kfjob"
return { a = kfjob.PyTorchJob{ container = { image = "i:1", env = { ZETA = "1", ALPHA = "2", MID = "3" } }, worker = { replicas = 1 } } }
]], "operator")
      assert.are.equal("ALPHA,MID,ZETA", envnames(doc.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].env))
      doc = manifest_of_lua([[
local kfjob = require "kfjob"
return { a = kfjob.PyTorchJob{ container = { image = "i:1", env = { { name = "ZETA", value = "1" }, { name = "ALPHA", value = "2" }, { name = "MID", value = "3" } } }, worker = { replicas = 1 } } }
]], "operator")
      assert.are.equal("ZETA,ALPHA,MID", envnames(doc.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].env))
    end)

    it("flyte and flyte2 manifests carry the job's container", function()
      for _, t in ipairs { "flyte", "flyte2" } do
        local doc = docs_of(own_manifest(OWN_FLYTE, "tf", t))[1]
        for rt, c in pairs(main_containers(doc)) do
          assert.are.equal("ghcr.io/acme/train:7", c.image, t .. " " .. rt)
          assert.are.same({ "python", "-m", "train" }, c.command, t .. " " .. rt)
          assert.are.same({ "--epochs", "3", "--data=$(DATA)" }, c.args, t .. " " .. rt)
          assert.are.equal("DATA", c.env[1].name, t .. " " .. rt)
          assert.are.equal("A_LEVEL", c.env[2].name, t .. " " .. rt)
        end
      end
    end)

    it("mpi-operator manifest: launcher runs the launcher line around container.args; a worker without its own command gets none (sshd)", function()
      local doc = docs_of(own_manifest(OWN_K8S, "mpi", "mpi-operator"))[1]
      assert.are.equal("ml", doc.metadata.namespace)
      local cs = main_containers(doc)
      assert.are.equal("ghcr.io/acme/mpi:1", cs.Launcher.image)
      assert.are.equal("mpirun", cs.Launcher.args[1])
      assert.are.same({ "python", "train.py" }, { cs.Launcher.args[#cs.Launcher.args - 1], cs.Launcher.args[#cs.Launcher.args] })
      assert.are.same({ { name = "OMPI_X", value = "1" } }, cs.Launcher.env)
      assert.is_nil(cs.Worker.command)
      assert.is_nil(cs.Worker.args)
    end)

    it("trainer-2.2 and trainer-2.3: spec.trainer takes the job's image, command (torchrun-wrapped), args, env; metadata the namespace, labels, annotations", function()
      for _, t in ipairs { "trainer-2.2", "trainer-2.3" } do
        local doc = docs_of(own_manifest(OWN_K8S, "tr", t))[1]
        assert.are.equal("ml", doc.metadata.namespace, t)
        assert.are.equal("a", doc.metadata.labels.team, t)
        assert.are.equal("x y", doc.metadata.annotations["acme.io/note"], t)
        local tr = doc.spec.trainer
        assert.are.equal("ghcr.io/acme/train:7", tr.image, t)
        assert.are.same({ "torchrun", "--no-python", "python", "-m", "train" }, tr.command, t)
        assert.are.same({ "--epochs", "3", "--data=$(DATA)" }, tr.args, t)
        assert.are.equal("DATA,POD,CACHE", envnames(tr.env), t)
      end
    end)

    it("precedence: the call's option over the group's value over the job's; labels/annotations merge by key, the call winning", function()
      local doc = manifest_of_lua([[
local kfjob = require "kfjob"
local J = kfjob.TFJob{ container = { image = "job:1", command = { "job-cmd" }, args = { "job-arg" }, env = { JOB = "1" } },
  namespace = "job-ns", labels = { a = "job", b = "job" }, annotations = { x = "job", y = "job" },
  worker = { replicas = 1 }, ps = { replicas = 1, container = { args = { "ps-arg" }, env = { PS = "1" } } } }
return { t = { job = J, opts = { namespace = "call-ns", args = { "call-arg" }, labels = { b = "call", c = "call" },
                                  annotations = { y = "call" } } } }
]], "operator")
      assert.are.equal("call-ns", doc.metadata.namespace)
      assert.are.same({ a = "job", b = "call", c = "call" }, doc.metadata.labels)
      assert.are.same({ x = "job", y = "call" }, doc.metadata.annotations)
      local cs = main_containers(doc)
      assert.are.same({ "call-arg" }, cs.Worker.args)
      assert.are.same({ "call-arg" }, cs.PS.args)
      assert.are.same({ "job-cmd" }, cs.PS.command)
      assert.are.same({ { name = "PS", value = "1" } }, cs.PS.env)
      assert.are.same({ { name = "JOB", value = "1" } }, cs.Worker.env)
    end)

    it("precedence: --namespace flag over the job's namespace; { job =, opts = } over the flag", function()
      local cfg = write(tmp("ns.lua"), [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ container = { image = "i:1" }, namespace = "job-ns", worker = { replicas = 1 } }
]])
      local doc = docs_of_text(render_manifest(cfg, "operator", "--namespace flag-ns"))[1]
      assert.are.equal("flag-ns", doc.metadata.namespace)
      local cfg2 = write(tmp("ns2.lua"), [[
local kfjob = require "kfjob"
return { n = { job = kfjob.PyTorchJob{ container = { image = "i:1" }, namespace = "job-ns", worker = { replicas = 1 } },
               opts = { namespace = "opts-ns" } } }
]])
      doc = docs_of_text(render_manifest(cfg2, "operator", "--namespace flag-ns"))[1]
      assert.are.equal("opts-ns", doc.metadata.namespace)
    end)

    it("images: a group's own, then --image, then container.image (manifests)", function()
      local cfg = write(tmp("img.lua"), [[
local kfjob = require "kfjob"
return kfjob.TFJob{ container = { image = "job:1" }, worker = { replicas = 1, image = "grp:1" }, ps = { replicas = 1 } }
]])
      local cs = main_containers(docs_of_text(render_manifest(cfg, "operator"))[1])
      assert.are.equal("grp:1", cs.Worker.image)
      assert.are.equal("job:1", cs.PS.image)
      cs = main_containers(docs_of_text(render_manifest(cfg, "operator", "--image flag:1"))[1])
      assert.are.equal("grp:1", cs.Worker.image)
      assert.are.equal("flag:1", cs.PS.image)
    end)

    it("task_template: the job's container (image, command, args, env in order), no namespace/labels/annotations", function()
      local cfg = write(tmp("tt1.lua"), [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/t:1", command = { "python", "train.py" }, args = { "--lr", "0.1" },
  env = { { name = "ZED", value = "1" }, { name = "ALPHA", value = "2" } } },
  namespace = "nsmarker", labels = { lblmarker = "lblvalue" }, annotations = { annmarker = "annvalue" }, worker = { replicas = 1 } }
]])
      local out, err, rc = kf("render " .. q(cfg) .. " -f template-json")
      assert.are.equal(0, rc, err)
      local t = docs_of_text(out)[1].template
      assert.are.equal("ghcr.io/acme/t:1", t.container.image)
      assert.are.same({ "python", "train.py" }, t.container.command)
      assert.are.same({ "--lr", "0.1" }, t.container.args)
      assert.are.same({ { key = "ZED", value = "1" }, { key = "ALPHA", value = "2" } }, t.container.env)
      for _, marker in ipairs { "nsmarker", "lblmarker", "lblvalue", "annmarker", "annvalue" } do
        assert.is_nil(out:find(marker, 1, true), marker .. " reached the TaskTemplate")
      end
      local pb = tmp("tt1.pb")
      local _
      _, err, rc = kf("render " .. q(cfg) .. " -f template > " .. q(pb))
      assert.are.equal(0, rc, err)
      for _, marker in ipairs { "nsmarker", "lblmarker", "annmarker" } do
        assert.is_nil(read(pb):find(marker, 1, true), marker .. " reached the TaskTemplate bytes")
      end
    end)

    it("task_spec: the job's container, --image over container.image", function()
      local cfg = write(tmp("ts1.lua"), [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/t:1", command = { "python", "train.py" }, env = { B = "1", A = "2" } }, worker = { replicas = 1 } }
]])
      local out, err, rc = kf("render " .. q(cfg) .. " -f taskspec-json --project p --domain d --version v")
      assert.are.equal(0, rc, err)
      local t = docs_of_text(out)[1]
      local c = t.template and t.template.container
      assert.is_table(c, out)
      assert.are.equal("ghcr.io/acme/t:1", c.image)
      assert.are.same({ "python", "train.py" }, c.command)
      assert.are.same({ { key = "A", value = "2" }, { key = "B", value = "1" } }, c.env)
      out = kf("render " .. q(cfg) .. " -f taskspec-json --project p --domain d --version v --image flag:9")
      has('"flag:9"', out)
      assert.is_nil(out:find("ghcr.io/acme/t:1", 1, true))
    end)

    it("task_template of an MPIJob/HorovodJob wraps container.args in the launcher line", function()
      local out, err, rc = kf("render " .. q(write(tmp("tm.lua"), TT_CFG)) .. " --name mpi -f template-json")
      assert.are.equal(0, rc, err)
      local c = docs_of_text(out)[1].template.container
      assert.are.equal("mpirun", c.args[1])
      assert.are.same({ "-np", "4", "python", "train.py" }, { c.args[#c.args - 3], c.args[#c.args - 2], c.args[#c.args - 1], c.args[#c.args] })
      out = kf("render " .. q(write(tmp("th.lua"), TT_CFG)) .. " --name hvd -f template-json")
      c = docs_of_text(out)[1].template.container
      assert.are.equal("horovodrun", c.args[1])
      assert.are.same({ "python", "train.py" }, { c.args[#c.args - 1], c.args[#c.args] })
    end)

    -- Decided by the developers (docs/DECISIONS.md): "MPI/Horovod args
    -- wrapped as today" and "command and args as written" (SPEC §16, §17):
    -- a command stays the container's command, the launcher line wraps the
    -- args; a program to run under mpirun is given as args.  (The tester
    -- had expected the command folded into the launcher line.)
    it("an MPIJob whose container has a command keeps it as the command; the launcher line wraps the args", function()
      local cfg = write(tmp("mpic.lua"), [[
local kfjob = require "kfjob"
return kfjob.MPIJob{ container = { image = "mpi:1", command = { "python", "train.py" }, args = { "--epochs", "3" } }, worker = { replicas = 2 } }
]])
      for _, t in ipairs { "operator", "mpi-operator", "flyte" } do
        local c = main_containers(docs_of_text(render_manifest(cfg, t))[1]).Launcher
        assert.are.same({ "python", "train.py" }, c.command, t)
        assert.are.equal("mpirun", c.args[1], t)
        assert.are.equal("--epochs 3", table.concat(c.args, " ", #c.args - 1), t)
      end
      local out = kf("render " .. q(cfg) .. " -f template-json")
      local ct = docs_of_text(out)[1].template.container
      assert.are.same({ "python", "train.py" }, ct.command)
      assert.are.equal("mpirun", ct.args[1])
    end)

    it("environment / kfjob env: the job's env first, a group's own env for its pods, the job's namespace in TF_CONFIG", function()
      local cfg = write(tmp("env.lua"), CFG)
      local out, err, rc = kf("env " .. q(cfg) .. " --pod worker-0")
      assert.are.equal(0, rc, err)
      local lines = {}
      for l in out:gmatch("[^\n]+") do if not l:match("^# .*gang") then lines[#lines + 1] = l end end
      local body = table.concat(lines, "\n")
      has("^# [^\n]*worker%-0\nZED=1\n# POD from valueFrom [^\n]*\nALPHA=2\n", body)
      has("%.vision%.svc", out)
      out = kf("env " .. q(cfg) .. " --pod ps-0")
      has("PS_ONLY=yes", out)
      assert.is_nil(out:find("ZED=1", 1, true))
      out = kf("env " .. q(cfg) .. " --pod worker-0 --namespace other")
      has("%.other%.svc", out)
      assert.is_nil(out:find(".vision.svc", 1, true))
    end)

    if has_module then
      it("job:environment uses the job's container.env and namespace", function()
        local j = kfjob.TFJob{ namespace = "vision", worker = { replicas = 2 }, container = { env = { { name = "ZED", value = "1" } } } }
        local e = j:environment{ name = "t" }
        assert.are.equal("ZED", e["worker-0"].env[1].name)
        local tf
        for _, v in ipairs(e["worker-0"].env) do if v.name == "TF_CONFIG" then tf = v.value end end
        has("%.vision%.svc", tf)
      end)
    end

    it("plugin bytes and JSON do not change with the new fields (-f pb, -f json, -T 0 and 1)", function()
      local with = write(tmp("w.lua"), [[
local kfjob = require "kfjob"
return { j = kfjob.PyTorchJob{ worker = { replicas = 3, limits = { gpu = 1 } }, run_policy = { backoff_limit = 2 },
  container = { image = "i:1", command = { "c" }, args = { "a" }, env = { E = "1" } }, namespace = "n", labels = { l = "v" }, annotations = { a = "b" } } }
]])
      local without = write(tmp("wo.lua"), [[
local kfjob = require "kfjob"
return { j = kfjob.PyTorchJob{ worker = { replicas = 3, limits = { gpu = 1 } }, run_policy = { backoff_limit = 2 } } }
]])
      local with0 = write(tmp("w0.lua"), [[
local kfjob = require "kfjob"
return { j = kfjob.TFJob{ worker = { replicas = 3 }, ps = { replicas = 1 },
  container = { image = "i:1", command = { "c" }, args = { "a" }, env = { E = "1" } }, namespace = "n", labels = { l = "v" }, annotations = { a = "b" } } }
]])
      local without0 = write(tmp("wo0.lua"), [[
local kfjob = require "kfjob"
return { j = kfjob.TFJob{ worker = { replicas = 3 }, ps = { replicas = 1 } } }
]])
      for _, f in ipairs { "pb", "json", "yaml" } do
        for _, c in ipairs { { "1", with, without }, { "0", with0, without0 } } do
          local a, e1, r1 = kf("render " .. q(c[2]) .. " -f " .. f .. " -T " .. c[1])
          local b, e2, r2 = kf("render " .. q(c[3]) .. " -f " .. f .. " -T " .. c[1])
          assert.are.equal(0, r1, e1); assert.are.equal(0, r2, e2)
          assert.is_true(a == b, "-f " .. f .. " -T " .. c[1] .. " differs")
        end
      end
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("target rules, with sources", function()
    local RULES = [[
local kfjob = require "kfjob"
return {
  grp = kfjob.TFJob{ container = { image = "i:1" }, worker = { replicas = 2 }, ps = { replicas = 1, container = { args = { "--ps" } } } },
  vf = kfjob.PyTorchJob{ container = { image = "i:1", env = { { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } }, worker = { replicas = 1 }, shared_memory = true },
  vfpod = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1 }, shared_memory = true,
    pod_template = { spec = { containers = { { name = "primary", env = { { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } } } } } },
  meta = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1 }, namespace = "ns", labels = { a = "b" }, annotations = { c = "d" }, shared_memory = true },
  trsame = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1, container = { args = { "x" } } }, master = { container = { args = { "x" } } }, shared_memory = true },
  trdiff = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1, container = { args = { "x" } } }, shared_memory = true },
  plain = kfjob.PyTorchJob{ container = { image = "i:1", env = { A = "1" } }, worker = { replicas = 1 }, shared_memory = true },
}
]]
    local results = {}
    local function check(target)
      if not results[target] then
        local out = kf("check " .. q(write(tmp("rules.lua"), RULES)) .. " --target " .. target .. " -f json")
        local d = docs_of_text(out)[1]
        local by = {}
        for _, j in ipairs(d.jobs) do by[j.name] = j end
        results[target] = by
      end
      return results[target]
    end
    local function has_rule(job, rule, path)
      for _, p in ipairs(job.problems or {}) do
        if p.rule == rule and (not path or p.path == path) then
          assert.is_truthy(p.source and #p.source > 0, rule .. " without a source")
          return true
        end
      end
      return false
    end

    for _, t in ipairs { "flyte", "flyte2" } do
      it("a group container is an error on " .. t .. " (R35, with its source)", function()
        local r = check(t)
        assert.is_false(r.grp.valid)
        assert.is_true(has_rule(r.grp, "R35", "ps.container"))
        assert.is_false(r.trsame.valid)
      end)
      it("valueFrom env outside a pod template is an error on " .. t .. " (R36); inside a pod template it is not", function()
        local r = check(t)
        assert.is_false(r.vf.valid)
        assert.is_true(has_rule(r.vf, "R36"))
        assert.is_true(r.vfpod.valid, "pod template valueFrom refused")
        assert.is_true(r.plain.valid)
      end)
      it("namespace/labels/annotations are a warning on " .. t .. ", not an error", function()
        local r = check(t)
        assert.is_true(r.meta.valid)
        local paths = {}
        for _, w in ipairs(r.meta.warnings or {}) do
          local p = type(w) == "table" and w.path or tostring(w)
          local msg = type(w) == "table" and (w.message or "") or tostring(w)
          if msg:find("R37", 1, true) or (type(w) == "table" and w.rule == "R37") then paths[#paths + 1] = p end
        end
        table.sort(paths)
        assert.are.same({ "annotations", "labels", "namespace" }, paths)
      end)
    end

    it("on operator none of these is an error or a R37 warning", function()
      local r = check("operator")
      for _, n in ipairs { "grp", "vf", "vfpod", "meta", "trsame", "trdiff", "plain" } do
        assert.is_true(r[n].valid, n)
      end
      for _, w in ipairs(r.meta.warnings or {}) do
        assert.is_nil(tostring(type(w) == "table" and w.message or w):find("R37", 1, true))
      end
    end)

    for _, t in ipairs { "trainer-2.2", "trainer-2.3" } do
      it("on " .. t .. " group containers are an error only when the groups differ (R35)", function()
        local r = check(t)
        assert.is_false(r.trdiff.valid)
        assert.is_true(has_rule(r.trdiff, "R35"))
        assert.is_true(r.trsame.valid, "equal group containers refused")
        assert.is_true(r.vf.valid, "valueFrom refused on Trainer")
      end)
    end

    if has_module then
      it("lint{target='flyte'} warns R37 with a source; lint on operator does not", function()
        local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, namespace = "ns", labels = { a = "b" }, annotations = { c = "d" }, shared_memory = true }
        local got = {}
        for _, w in ipairs(j:lint{ target = "flyte" }) do
          if w.rule == "R37" then
            got[#got + 1] = w.path
            assert.is_truthy(w.source and #w.source > 0)
          end
        end
        table.sort(got)
        assert.are.same({ "annotations", "labels", "namespace" }, got)
        for _, w in ipairs(j:lint{ target = "operator" }) do assert.are_not.equal("R37", w.rule) end
      end)
    end

    it("R16: a group's container.env naming a variable the operator injects is warned for every group (worker included), as the job's is", function()
      local cfg = write(tmp("r16.lua"), [[
local kfjob = require "kfjob"
return {
  job = kfjob.PyTorchJob{ container = { image = "i:1", env = { MASTER_ADDR = "x" } }, worker = { replicas = 1 }, shared_memory = true },
  master = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1 }, master = { container = { env = { MASTER_ADDR = "x" } } }, shared_memory = true },
  worker = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1, container = { env = { MASTER_ADDR = "x" } } }, shared_memory = true },
  tfworker = kfjob.TFJob{ container = { image = "i:1" }, worker = { replicas = 2, container = { env = { TF_CONFIG = "x" } } }, ps = { replicas = 1 } },
}
]])
      local out = kf("check " .. q(cfg) .. " --target operator -f json")
      local d = docs_of_text(out)[1]
      local missing = {}
      for _, j in ipairs(d.jobs) do
        local found = false
        for _, w in ipairs(j.warnings or {}) do
          local msg = type(w) == "table" and (w.message or "") or tostring(w)
          if msg:find("R16", 1, true) then found = true end
        end
        if not found then missing[#missing + 1] = j.name end
      end
      assert.are.equal("", table.concat(missing, ", "), "jobs without an R16 warning for a user env the operator overrides (kfjob env lists both entries)")
    end)

    it("docs/RULES.md has rows R35, R36, R37 with sources", function()
      local rules = assert(read("docs/RULES.md"))
      for _, r in ipairs { "R35", "R36", "R37" } do
        local row = rules:match("\n(| " .. r .. " [^\n]*)")
        assert.is_not_nil(row, r .. " row missing")
        assert.is_truthy(row:find("%.go") or row:find("%.proto"), r .. " row without a source: " .. row)
      end
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("{ job =, opts = } for every format and command", function()
    local JOB = [[local kfjob = require "kfjob"
local J = kfjob.PyTorchJob{ container = { image = "ghcr.io/acme/t:1", args = { "train" } }, worker = { replicas = 1 }, shared_memory = true }
]]
    local VALID = {
      manifest = "namespace = 'opt-ns', command = { 'optcmd' }",
      ["manifest-json"] = "namespace = 'opt-ns', command = { 'optcmd' }",
      json = "version = 0",
      yaml = "version = 0",
      pb = "version = 0",
      template = "id = { project = 'p', domain = 'd', name = 'optid', version = 'v' }",
      ["template-json"] = "id = { project = 'p', domain = 'd', name = 'optid', version = 'v' }",
      taskspec = "id = { project = 'p', domain = 'd', name = 'optid', version = 'v' }, metadata = { retries = 3 }",
      ["taskspec-json"] = "id = { project = 'p', domain = 'd', name = 'optid', version = 'v' }, metadata = { retries = 3 }",
    }
    for fmt, opts in pairs(VALID) do
      it("render -f " .. fmt .. " applies the entry's opts", function()
        local cfg = write(tmp("jo.lua"), JOB .. "return { j = { job = J, opts = { " .. opts .. " } } }\n")
        local out, err, rc = kf("render " .. q(cfg) .. " -f " .. fmt .. " > " .. q(cfg .. ".out"))
        assert.are.equal(0, rc, err .. out)
        local got = read(cfg .. ".out")
        if fmt:match("^manifest") then
          has("opt%-ns", got); has("optcmd", got)
        elseif fmt == "json" then
          has('"taskTypeVersion":%s*0', got)
        elseif fmt == "yaml" then
          has("taskTypeVersion:%s*0", got)
        elseif fmt == "pb" then
          local one, e1 = kf("render " .. q(write(tmp("jv.lua"), JOB .. "return { j = J }\n")) .. " -f pb")
          assert.is_true(#got > 0 and got ~= one, "version 0 bytes equal version 1 bytes " .. e1)
        elseif fmt:match("^taskspec") then
          has("optid", got)
          if fmt == "taskspec-json" then has('"retries":%s*3', got) end
        else
          has("optid", got)
        end
      end)
      it("render -f " .. fmt .. ": an unknown key is an error naming it and the format", function()
        local cfg = write(tmp("jobad.lua"), JOB .. "return { j = { job = J, opts = { bogus_key = 1 } } }\n")
        local out, err, rc = kf("render " .. q(cfg) .. " -f " .. fmt)
        assert.are.equal(1, rc, "exit; stdout " .. #out .. " bytes")
        has("opts%.bogus_key", err)
        has("%-f " .. fmt:gsub("%-", "%%-") .. "[^%w%-]", err)
      end)
    end

    it("check applies the entry's opts (an image given only there) and refuses an unknown key naming it", function()
      local cfg = write(tmp("jc.lua"), [[local kfjob = require "kfjob"
local J = kfjob.PyTorchJob{ worker = { replicas = 1 }, shared_memory = true }
return { ok = { job = J, opts = { image = "ghcr.io/acme/t:1", namespace = "ns" } } }
]])
      local _, err, rc = kf("check " .. q(cfg) .. " --target operator")
      assert.are.equal(0, rc, err)
      local cfg2 = write(tmp("jc2.lua"), JOB .. "return { j = { job = J, opts = { bogus_key = 1 } } }\n")
      local out, err2, rc2 = kf("check " .. q(cfg2) .. " --target operator")
      assert.are.equal(1, rc2)
      has("opts%.bogus_key", out .. err2)
    end)

    it("env applies the entry's opts (namespace, env) and refuses an unknown key naming it", function()
      local cfg = write(tmp("je.lua"), [[local kfjob = require "kfjob"
local J = kfjob.TFJob{ worker = { replicas = 2 }, namespace = "job-ns", container = { env = { JOBENV = "1" } } }
return { t = { job = J, opts = { namespace = "opt-ns", env = { OPTENV = "1" } } } }
]])
      local out, err, rc = kf("env " .. q(cfg) .. " --pod worker-0")
      assert.are.equal(0, rc, err)
      has("OPTENV=1", out)
      assert.is_nil(out:find("JOBENV", 1, true))
      has("%.opt%-ns%.svc", out)
      local cfg2 = write(tmp("je2.lua"), JOB .. "return { j = { job = J, opts = { bogus_key = 1 } } }\n")
      local _, err2, rc2 = kf("env " .. q(cfg2))
      assert.are.equal(1, rc2)
      has("opts%.bogus_key", err2)
    end)

    it("diff compares what the entries' opts render", function()
      local a = write(tmp("da.lua"), JOB .. "return { j = { job = J, opts = { namespace = 'ns-a' } } }\n")
      local b = write(tmp("db.lua"), JOB .. "return { j = { job = J, opts = { namespace = 'ns-b' } } }\n")
      local out, err, rc = kf("diff " .. q(a) .. " " .. q(b) .. " -f manifest")
      assert.are.equal(1, rc, err)
      has("metadata%.namespace", out)
      local _
      _, err, rc = kf("diff " .. q(a) .. " " .. q(a) .. " -f manifest")
      assert.are.equal(0, rc, err)
      local c = write(tmp("dc.lua"), JOB .. "return { j = { job = J, opts = { bogus_key = 1 } } }\n")
      local _, err3, rc3 = kf("diff " .. q(a) .. " " .. q(c) .. " -f manifest")
      assert.are_not.equal(0, rc3)
      has("opts%.bogus_key", err3)
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("reading fills them", function()
    if has_module then
      it("from_manifest puts command, args, env (in order, valueFrom included) in container; namespace, labels, annotations in the job; Kueue's label in scheduling", function()
        local job, info = kfjob.from_manifest(PT_HAND)
        assert.is_not_nil(job, info)
        assert.are.same({ "torchrun" }, job.container.command)
        assert.are.same({ "--nnodes=$(PET_NNODES)", "--nproc-per-node=1", "train.py", "--data", "$(DATA_DIR)", "--epochs", "3" }, job.container.args)
        assert.are.equal("DATA_DIR,POD_NAME,HF_TOKEN,CACHE", envnames(job.container.env))
        assert.are.same({ secretKeyRef = { name = "hf-secret", key = "token" } }, job.container.env[3].valueFrom)
        assert.are.equal("ml-team", job.namespace)
        assert.are.same({ team = "nlp", ["app.kubernetes.io/part-of"] = "bert" }, job.labels)
        assert.are.same({ ["acme.io/owner"] = "alice@example.com", description = "fine-tune bert on wiki" }, job.annotations)
        assert.are.equal("team-a", job.scheduling.queue)
        -- info keeps carrying them
        assert.are.equal("ml-team", info.namespace)
        assert.are.same({ "torchrun" }, info.container.command)
        assert.is_not_nil(info.labels)
      end)

      it("a group that differs gets its own container (TFJob PS)", function()
        local job = assert(kfjob.from_manifest(TF_PS))
        assert.are.same({ "--job_name=ps", "--log_dir=/logs" }, job.ps.container.args)
        assert.are.same({ "--job_name=worker", "--epochs=90", "--batch=256" },
                        (job.worker.container and job.worker.container.args) or job.container.args)
        assert.are.same({ "python", "-m", "resnet.train" }, job.container.command)
      end)

      it("from_manifests reads a stream, each job with its namespace and container", function()
        local list = assert(kfjob.from_manifests(PT_COPIED .. "---\n" .. TF_PS))
        local ns = {}
        for _, e in ipairs(list) do ns[#ns + 1] = e.job.namespace end
        table.sort(ns)
        assert.are.same({ "ml-team", "vision" }, ns)
      end)

      it("decode_task_template / decode_task_spec put the TaskTemplate's container, image included, in container", function()
        local tt = read(tt_file("tf", "template"))
        local job = assert(kfjob.decode_task_template(tt))
        assert.are.equal("ghcr.io/acme/train:7", job.container.image)
        assert.are.same({ "python", "-m", "train" }, job.container.command)
        assert.are.same({ "--epochs", "3" }, job.container.args)
        assert.are.equal("ZETA,ALPHA", envnames(job.container.env))
        local ts = read(tt_file("mpi", "taskspec"))
        local j2 = assert(kfjob.decode_task_spec(ts))
        assert.are.equal("ghcr.io/acme/mpi:1", j2.container.image)
        assert.are.same({ "python", "train.py" }, j2.container.args)
      end)
    end

    it("to_lua of a job read from a TaskSpec writes { job =, opts = { id =, interface =, metadata = } }", function()
      local out, err, rc = kf("convert " .. q(tt_file("regd", "taskspec")) .. " -f lua")
      assert.are.equal(0, rc, err)
      has("job%s*=%s*kfjob%.PyTorchJob", out)
      has("opts%s*=%s*{", out)
      for _, k in ipairs { "id", "interface", "metadata" } do has("\n%s*" .. k .. "%s*=%s*{", out) end
    end)

    it("convert -f config-yaml writes a YAML data config; -f config stays JSON", function()
      local m = write(tmp("tfps.yaml"), TF_PS)
      local y, err, rc = kf("convert " .. q(m) .. " -f config-yaml")
      assert.are.equal(0, rc, err)
      assert.is_nil(y:match("^%s*{"), "config-yaml wrote JSON")
      local d = docs_of_text(y)[1]
      assert.are.equal("TFJob", d.jobs.resnet.kind)
      assert.are.equal("vision", d.jobs.resnet.namespace)
      local j, err2, rc2 = kf("convert " .. q(m) .. " -f config")
      assert.are.equal(0, rc2, err2)
      local _, perr, prc = run("python3 -c 'import json,sys; json.load(sys.stdin)' < " .. q(write(tmp("c.json"), j)))
      assert.are.equal(0, prc, "-f config is not JSON: " .. perr)
    end)
  end)

  -------------------------------------------------------------------------------------------
  describe("Law 3: a config reproduces its input", function()
    for _, h in ipairs(HAND) do
      for _, fmt in ipairs { "lua", "config", "config-yaml" } do
        it("hand-written " .. h[1] .. ": convert -f " .. fmt .. ", render --target " .. h[4], function()
          law3_manifest(write(tmp(h[2]), h[3]), h[4], fmt)
        end)
      end
    end

    for _, o in ipairs(OWN) do
      for _, fmt in ipairs { "lua", "config", "config-yaml" } do
        it("kfjob's own " .. o[2] .. " manifest for " .. o[3] .. ": convert " .. (o[4] and (o[4] .. " ") or "") .. "-f " .. fmt, function()
          law3_manifest(own_manifest(o[1], o[2], o[3]), o[3], fmt, o[4])
        end)
      end
    end

    it("a stream of two hand-written manifests converts to one Lua config that renders both", function()
      law3_manifest(write(tmp("stream.yaml"), PT_COPIED .. "---\n" .. TF_PS), "operator", "lua")
    end)

    local TT = {
      { "tf", "template" }, { "pt", "template" }, { "el", "template" }, { "mpi", "template" }, { "hvd", "template" },
      { "podt", "template" },
      { "tf", "taskspec" }, { "pt", "taskspec" }, { "el", "taskspec" }, { "mpi", "taskspec" }, { "hvd", "taskspec" },
      { "regd", "taskspec" },
      { "tf", "template", "--target flyte2" }, { "pt", "taskspec", "--target flyte2" }, { "mpi", "template", "--target flyte2" },
      { "tf0", "template", "-T 0" }, { "mpi", "template", "-T 0" }, { "pt", "template", "--replica-encoding common" },
      { "pt", "taskspec", "--image ghcr.io/acme/flag:1" },
    }
    for _, c in ipairs(TT) do
      it("TaskTemplate/TaskSpec " .. c[1] .. " -f " .. c[2] .. (c[3] and (" " .. c[3]) or "") .. ": convert -f lua renders the same bytes", function()
        law3_bytes(tt_file(c[1], c[2], c[3]), c[2])
      end)
    end
  end)

  -------------------------------------------------------------------------------------------
  describe("README", function()
    it("the Quick start shows a config that says what it runs", function()
      local readme = assert(read("README.md"))
      local qs = readme:match("\n## Quick start\n(.-)\n## ")
      assert.is_not_nil(qs)
      has("container%s*=%s*{%s*image%s*=", qs)
      has("command%s*=", qs)
      has("namespace%s*=", qs)
    end)
  end)
end)
