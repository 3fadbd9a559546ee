-- Import (SPEC §14), Law 1: kfjob's own manifest, for every job, target and
-- name `J:manifest{target=T, name=N}` accepts, reads back (kfjob.from_manifest)
-- into a job equal to J, with info.name == N, and emitting that job again
-- with the options `info` carries gives the same bytes.  The corpus is the
-- jobs of manifest_targets_spec, scheduling_spec and operator_kinds_spec
-- (kinds x targets x pod settings x scheduling), written here again.  Where
-- a target's manifest cannot carry a field the job holds (listed in the
-- docs/IMPORT.md), `lost` names the case: the job read back
-- is then a fixed point (reading its own manifest gives it again) and the
-- bytes still agree.
local kfjob = require "kfjob"

local ARGS = { "pyflyte-execute", "--inputs", "s3://bucket/in/inputs.pb", "--output-prefix", "s3://bucket/out" }
local IMAGE = "registry.example/train:v1"
local SSHD = { "/usr/sbin/sshd", "-De" }
local R1 = { cpu = 1, mem = "1Gi" }
local GPU2 = { cpu = 1, mem = "1Gi", gpu = 2 }
local POD = {
  metadata = { labels = { team = "ml" }, annotations = { ["example.com/owner"] = "ml" } },
  spec = {
    containers = { { name = "primary", volumeMounts = { { name = "data", mountPath = "/data" } },
                     securityContext = { runAsNonRoot = true } } },
    volumes = { { name = "data", emptyDir = {} } },
    nodeSelector = { pool = "gpu" },
    tolerations = { { key = "pool", operator = "Exists", effect = "NoSchedule" } },
    securityContext = { fsGroup = 1000 },
    imagePullSecrets = { { name = "regcred" } },
  },
}
local SIDECAR = { spec = { containers = { { name = "log", image = "busybox:1", args = { "tail", "-f", "/x" } },
                                          { name = "primary", workingDir = "/w" } } } }
local SPOT = { spec = { nodeSelector = { ["cloud.google.com/gke-spot"] = "true" },
                        tolerations = { { key = "spot", operator = "Exists", effect = "NoSchedule" } } } }
local SCHED = { queue = "team-a", priority_class = "high", max_exec_time = 7200,
                gang = { min_available = 4, queue = "training", min_resources = { cpu = 8, gpu = 4 } } }

local MPI_FACTS = kfjob.MPIJob{
  worker = { replicas = 2, command = SSHD, restart_policy = "never" },
  launcher = { requests = { cpu = 1 }, restart_policy = "never" },
  slots = 2, run_policy = { backoff_limit = 3 } }
local PT_FACTS = kfjob.PyTorchJob{
  master = { requests = GPU2, limits = GPU2 }, worker = { replicas = 3, requests = GPU2, limits = GPU2 },
  accelerator = "nvidia-tesla-a100", shared_memory = true, run_policy = { active_deadline_seconds = 3600 } }

-- { name, job, opts [, lost = { target = true }] }
local corpus = {
  { "mpi-facts", MPI_FACTS, { namespace = "default", args = ARGS } },
  { "mpi-no-worker-command", kfjob.MPIJob{ worker = { replicas = 4 }, slots = 8 }, { args = ARGS } },
  { "mpi-policies", kfjob.MPIJob{
      worker = { replicas = 3, restart_policy = "on_failure", image = "mpi:w", limits = { cpu = 4, gpu = 1 } },
      launcher = { restart_policy = "on_failure", image = "mpi:l" },
      run_policy = { clean_pod_policy = "running", ttl_seconds_after_finished = 60,
                     active_deadline_seconds = 3600, backoff_limit = 2 } },
    { image = false, command = { "bash", "-c" }, labels = { team = "a" },
      annotations = { note = "x" }, env = { OMP_NUM_THREADS = "1" }, service_account = "mpi" } },
  { "mpi-pod", kfjob.MPIJob{ worker = { replicas = 2, limits = { gpu = 1 } }, pod_template = POD,
                             shared_memory = "2Gi", accelerator = "nvidia-tesla-t4" }, { args = ARGS } },
  { "horovod", kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2, verbose = true }, { args = ARGS } },
  { "horovod-pod", kfjob.HorovodJob{ worker = { replicas = 3, command = { "sleep", "inf" } }, slots = 1,
                                     shared_memory = true, run_policy = { clean_pod_policy = "all" },
                                     log_level = "DEBUG", elastic_timeout = 60 },
    { args = ARGS, labels = { a = "b" } } },
  { "pt-facts", PT_FACTS, { namespace = "default", args = ARGS, env = { NCCL_DEBUG = "INFO" },
                            labels = { team = "a" } } },
  { "pt-plain", kfjob.PyTorchJob{ worker = { replicas = 2 }, run_policy = { clean_pod_policy = "all" } }, {},
    lost = { ["trainer-2.2"] = true, ["trainer-2.3"] = true } },
  { "pt-command", kfjob.PyTorchJob{ master = { image = "pt:1", requests = R1 },
                                    worker = { replicas = 1, image = "pt:1", requests = R1 } },
    { image = false, command = { "python", "-m", "train" }, args = { "--epochs", "3" },
      service_account = "trainer", annotations = { a = "b" } } },
  { "pt-pod", kfjob.PyTorchJob{ master = { limits = { gpu = 1 } }, worker = { replicas = 1, limits = { gpu = 1 } },
                                pod_template = POD, accelerator = "nvidia-h100" }, { args = ARGS } },
  { "pt-sidecar", kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = SIDECAR, shared_memory = "1Gi" },
    { args = ARGS } },
  { "pt-partition", kfjob.PyTorchJob{ worker = { replicas = 1, limits = { gpu = 1 } },
                                      accelerator = { device = "nvidia-a100", partition_size = "1g.5gb" } },
    { args = ARGS } },
  { "elastic-fixed", kfjob.Elastic{ nnodes = 4, nproc_per_node = 8, requests = R1 }, { args = ARGS } },
  { "elastic", kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 }, { args = ARGS } },
  { "elastic-word", kfjob.Elastic{ nnodes = "1:2", nproc_per_node = "auto", rdzv_backend = "etcd" }, { args = ARGS } },
  { "elastic-pod", kfjob.Elastic{ nnodes = "1:3", pod_template = POD, shared_memory = "1Gi",
                                  run_policy = { ttl_seconds_after_finished = 60 } },
    { args = ARGS, env = { X = "1" } } },
  { "tf-all", kfjob.TFJob{ chief = { replicas = 1 }, ps = { replicas = 1 }, evaluator = { replicas = 1 },
                           worker = { replicas = 2, image = "tf:2", requests = { cpu = 2, mem = "4Gi", gpu = 1 },
                                      restart_policy = "on_failure" },
                           run_policy = { clean_pod_policy = "running", active_deadline_seconds = 3600 } },
    { args = ARGS, labels = { team = "ml" } } },
  { "tf-pod-gpu", kfjob.TFJob{ worker = { replicas = 2, limits = { gpu = 1 } }, chief = { replicas = 1 },
                               pod_template = POD, accelerator = "nvidia-tesla-a100" },
    { args = ARGS, service_account = "tf" } },
  { "pt-master-always", kfjob.PyTorchJob{ worker = { replicas = 4, limits = { gpu = 2 } },
                                          master = { restart_policy = "always" } }, { args = ARGS, env = { A = "1" } } },
  { "jax", kfjob.JAXJob{ worker = { replicas = 4, image = "jax:1", limits = { gpu = 1 } } }, { image = false } },
  { "xgboost", kfjob.XGBoostJob{ worker = { replicas = 3 }, master = { image = "m:1" } }, { args = ARGS } },
  { "paddle", kfjob.PaddleJob{ worker = { replicas = 2 }, master = { replicas = 0 } }, { args = ARGS } },
  -- scheduling (SPEC §13)
  { "sched-pt", kfjob.PyTorchJob{ master = {}, worker = { replicas = 3, pod_template = SPOT }, scheduling = SCHED },
    {} },
  { "sched-mpi", kfjob.MPIJob{ worker = { replicas = 3, pod_template = SPOT }, scheduling = SCHED }, { args = ARGS } },
  { "sched-flags", kfjob.PyTorchJob{ worker = { replicas = 2 },
      scheduling = { queue = "team-a", suspend = true, multikueue = true } }, {} },
  { "sched-topology", kfjob.TFJob{ worker = { replicas = 2, topology = { preferred = "rack" } },
      scheduling = { topology = { required = "zone", slice_required = "host", slice_size = 2 } } }, {} },
  -- groups with templates of their own: the job's topology and each group's
  { "sched-group-topology", kfjob.PyTorchJob{
      master = { pod_template = { spec = { nodeSelector = { pool = "cpu" } } }, topology = { required = "host" } },
      worker = { replicas = 2, pod_template = SPOT, topology = { preferred = "rack" } } }, {} },
  -- a job template under per-group ones: the shared keys are the job's
  { "job-and-group-templates", kfjob.PyTorchJob{
      master = { pod_template = { spec = { nodeSelector = { pool = "a" } } } },
      worker = { replicas = 1, pod_template = { spec = { nodeSelector = { pool = "b" } } } },
      pod_template = { metadata = { labels = { team = "ml" } },
                       spec = { tolerations = { { key = "k", operator = "Exists" } } } } }, {} },
  { "sched-group-topology-job", kfjob.TFJob{ worker = { replicas = 2, pod_template = SPOT },
      chief = { replicas = 1, pod_template = { spec = { nodeSelector = { pool = "cpu" } } } },
      scheduling = { topology = { required = "zone", slice_required = "host", slice_size = 2 } } }, {} },
  { "sched-volcano", kfjob.TFJob{ worker = { replicas = 1 },
      scheduling = { gang = { scheduler = "volcano", queue = "q", priority_class = "p",
                              schedule_timeout_seconds = 30 } } }, {} },
}

-- The image is a job field (SPEC §14: Law 1 emits with no image option, and
-- info carries back no image): every group a case's manifest shows gets
-- IMAGE unless it has its own, instead of the option opts.image.
local GROUPS = { TFJob = { "worker", "ps", "chief", "evaluator" }, PyTorchJob = { "worker", "master" },
                 Elastic = { "worker" }, MPIJob = { "worker", "launcher" }, HorovodJob = { "worker", "launcher" },
                 JAXJob = { "worker" }, XGBoostJob = { "worker", "master" }, PaddleJob = { "worker", "master" } }
local PRESENT = { worker = true, master = true, launcher = true }   -- unless replicas = 0
local function imaged(job)
  local s, add = job:spec(), {}
  for _, g in ipairs(GROUPS[job.kind]) do
    local t = s[g]
    local n = t and t.replicas
    if ((n == nil and PRESENT[g]) or (n and n > 0)) and not (t and t.image) then add[g] = { image = IMAGE } end
  end
  return next(add) and job:with(add) or job
end
for _, c in ipairs(corpus) do
  if c[3].image ~= false then c[2] = imaged(c[2]); c[3].image = false end
end

-- Cases whose job the manifest cannot tell from a smaller one that gives
-- the same bytes (docs/IMPORT.md): requests equal to limits,
-- a lone GPU request (it becomes the limit), the task image given as the
-- groups' own or the reverse, task resources (every group gets them).
-- The job read back is then a fixed point and the bytes agree.
-- Scheduling: a job-level topology and a group's in one replica's
-- annotations cannot be told apart (they stay the template's), nor can the
-- operator's schedulingPolicy tell which gang scheduler (gang.scheduler is
-- the operator's own --gang-scheduler-name).  (A Kueue label is no
-- opts.labels: scheduling writes it, sched-* cases.)
local CANON = { ["pt-facts"] = true, ["pt-command"] = true, ["elastic-fixed"] = true,
                ["tf-all"] = true, jax = true, xgboost = true,
                ["sched-topology"] = true, ["sched-volcano"] = true,
                -- opts.service_account or the template's serviceAccountName: the
                -- template's (SPEC §14 carries no service account back)
                ["mpi-policies"] = true, ["tf-pod-gpu"] = true }
-- Every case reads back now (scheduling too, SPEC §13).
local NOT_YET = {}

-- load a chunk with environment env (setfenv on 5.1 and LuaJIT)
local function load_env(src, env)
  local f = assert((setfenv and rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(f, env) end
  return f
end

local TARGETS = { "operator", "mpi-operator", "trainer-2.2", "trainer-2.3" }

local function opts_of(c, target, fmt)
  local o = { name = c[1], target = target, format = fmt, image = IMAGE }
  for k, v in pairs(c[3]) do if v == false then o[k] = nil else o[k] = v end end
  return o
end

-- the options a re-emit takes from info (SPEC §14 Decisions); the
-- resource's labels and annotations are the job's (as options they would
-- go on every pod too)
local function reopts(info, target, fmt)
  local c = info.container or {}
  return { name = info.name, namespace = info.namespace, image = c.image, command = c.command,
           args = c.args, env = c.env, service_account = info.service_account,
           target = target, format = fmt }
end

-- The job read back holds what the call gave the manifest (SPEC §16):
-- namespace, labels, annotations and the main container's command, args
-- and env (a name = value table: the writer sorts it).  The call's labels
-- and annotations are on every pod too (but on Trainer, whose pods get
-- none): a pod's labels are its template's (core/v1 PodTemplateSpec
-- metadata), so they read back as the pod template's as well.
local function whole(c, target)
  local o, ct = c[3], {}
  for _, k in ipairs{ "command", "args", "env" } do ct[k] = o[k] end
  local add = { namespace = o.namespace, labels = o.labels, annotations = o.annotations,
                container = next(ct) and ct or nil }
  if (o.labels or o.annotations) and not target:match("^trainer") then
    local pt = c[2]:spec().pod_template or {}
    local meta = pt.metadata or {}
    for _, k in ipairs{ "labels", "annotations" } do
      for name, v in pairs(o[k] or {}) do
        meta[k] = meta[k] or {}
        meta[k][name] = v
      end
    end
    pt.metadata = meta
    add.pod_template = pt
  end
  return next(add) and c[2]:with(add) or c[2]
end

-- every (case, target) the target accepts
local runs = {}
for _, c in ipairs(corpus) do
  for _, t in ipairs(TARGETS) do
    local ok, y = pcall(c[2].manifest, c[2], opts_of(c, t, "yaml"))
    if ok then runs[#runs + 1] = { c = c, t = t, yaml = y } end
  end
end

describe("import: Law 1, kfjob's own manifests", function()
  it("the corpus covers every kind and every manifest target", function()
    local kinds, targets = {}, {}
    for _, r in ipairs(runs) do kinds[r.c[2].kind] = true; targets[r.t] = true end
    for _, k in ipairs{ "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob", "JAXJob",
                        "XGBoostJob", "PaddleJob" } do
      assert.is_true(kinds[k], k)
    end
    for _, t in ipairs(TARGETS) do assert.is_true(targets[t], t) end
    assert.is_true(#runs >= 40, "runs: " .. #runs)
  end)

  for _, r in ipairs(runs) do
    local c, t = r.c, r.t
    if not NOT_YET[c[1]] then it(c[1] .. " on " .. t .. ": reads back equal and re-emits the same bytes", function()
      local m = c[2]:manifest(opts_of(c, t, "table"))
      local ro = c[2].kind == "Elastic" and t:match("^trainer") and { kind = "Elastic" } or nil
      local j, info = kfjob.from_manifest(m, ro)
      assert.is_nil(type(info) == "string" and info or nil)
      assert.equal(c[1], info.name)
      assert.same({}, info.unmapped)
      assert.equal(r.yaml, j:manifest(reopts(info, t, "yaml")))
      if (c.lost and c.lost[t]) or CANON[c[1]] then
        local j2 = kfjob.from_manifest(j:manifest(reopts(info, t, "table")), ro)
        assert.is_true(j2 == j)
      else
        assert.same(whole(c, t):spec(), j:spec())
        assert.is_true(j == whole(c, t))
      end
    end) end
  end
end)

describe("import: what a manifest is", function()
  it("names the target and kind by apiVersion and shape", function()
    local function read(job, t, o)
      local j, info = kfjob.from_manifest(job:manifest{ name = "x", image = IMAGE, target = t }, o)
      return j.kind .. " " .. info.kind .. " " .. info.target .. " " .. info.api_version
    end
    -- the job's kind, then the manifest's kind and apiVersion
    assert.equal("MPIJob MPIJob mpi-operator kubeflow.org/v2beta1", read(MPI_FACTS, "mpi-operator"))
    assert.equal("MPIJob MPIJob operator kubeflow.org/v1", read(MPI_FACTS, "operator"))
    assert.equal("HorovodJob MPIJob operator kubeflow.org/v1",
                 read(kfjob.HorovodJob{ worker = { replicas = 1 } }, "operator"))
    assert.equal("Elastic PyTorchJob operator kubeflow.org/v1", read(kfjob.Elastic{ nnodes = 2 }, "operator"))
    -- a TrainJob valid for both versions reads as trainer-2.3; Elastic only when asked
    assert.equal("PyTorchJob TrainJob trainer-2.3 trainer.kubeflow.org/v1alpha1", read(PT_FACTS, "trainer-2.2"))
    assert.equal("Elastic TrainJob trainer-2.3 trainer.kubeflow.org/v1alpha1",
                 read(kfjob.Elastic{ nnodes = 2 }, "trainer-2.2", { kind = "Elastic" }))
  end)

  it("reads JSON text as well as tables", function()
    local text = PT_FACTS:manifest{ name = "pt", image = IMAGE, format = "json" }
    local j, info = kfjob.from_manifest(text)
    assert.is_true(j == kfjob.from_manifest(PT_FACTS:manifest{ name = "pt", image = IMAGE }))
    assert.is_nil(info.container.image)          -- a job field: the groups'
    assert.equal(IMAGE, j:spec().worker.image)
  end)
end)

describe("import: reading is as strict as writing", function()
  local function base()
    return kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = IMAGE }
  end

  it("refuses another kind or apiVersion, listing the supported ones", function()
    local j, msg = kfjob.from_manifest{ apiVersion = "batch/v1", kind = "Job", metadata = { name = "x" }, spec = {} }
    assert.is_nil(j)
    assert.equal("kfjob.from_manifest: apiVersion batch/v1, kind Job: not a kind kfjob reads (supported: "
      .. "kubeflow.org/v1 TFJob, PyTorchJob, MPIJob, JAXJob, XGBoostJob or PaddleJob; kubeflow.org/v2beta1 "
      .. "MPIJob; trainer.kubeflow.org/v1alpha1 TrainJob; "
      .. "jobset.x-k8s.io/v1alpha2 JobSet (a Flyte 2 clustered task))", msg)
  end)

  it("names an unknown field by its manifest path, with a did-you-mean", function()
    local m = base()
    m.spec.pytorchReplicaSpecs.Worker.replica = 2
    local j, msg = kfjob.from_manifest(m)
    assert.is_nil(j)
    assert.equal("kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.replica: unknown field "
      .. "(did you mean 'replicas'?) (opts.lossy lists it instead)", msg)
  end)

  it("lists what it cannot hold with opts.lossy, and ignores server-set fields", function()
    local m = base()
    m.spec.runPolicy.managedBy = "example.com/other"   -- valid for the CRD; kfjob writes only MultiKueue's
    m.metadata.uid = "0000"                     -- set by the API server
    m.status = { conditions = {} }
    assert.equal("kfjob.from_manifest: spec.runPolicy.managedBy: kfjob sets managedBy only for "
      .. "MultiKueue (kueue.x-k8s.io/multikueue) (opts.lossy lists it instead)", select(2, kfjob.from_manifest(m)))
    local j, info = kfjob.from_manifest(m, { lossy = true })
    assert.is_true(j == kfjob.PyTorchJob{ worker = { replicas = 1, image = IMAGE }, master = { image = IMAGE } })
    assert.same({ { path = "spec.runPolicy.managedBy", value = "example.com/other",
                    reason = "kfjob sets managedBy only for MultiKueue (kueue.x-k8s.io/multikueue)" } },
                info.unmapped)
    assert.same({ "status", "metadata.uid" }, info.ignored)
  end)

  it("reads a PyTorchJob without its Master as master.replicas = 0 (SPEC §17)", function()
    local m = base()
    m.spec.pytorchReplicaSpecs.Master = nil
    assert.equal(0, assert(kfjob.from_manifest(m)).master.replicas)
  end)

  it("reads a TrainJob on another runtime and a task not run by torchrun as written (SPEC §17)", function()
    local m = PT_FACTS:manifest{ name = "pt", image = IMAGE, target = "trainer-2.3", args = ARGS }
    m.spec.runtimeRef.name = "mpi-distributed"
    local j = assert(kfjob.from_manifest(m))
    assert.equal("mpi-distributed", j.runtime)
    m = PT_FACTS:manifest{ name = "pt", image = IMAGE, target = "trainer-2.3", args = ARGS }
    m.spec.trainer.command = { "python", "train.py" }
    j = assert(kfjob.from_manifest(m))
    assert.same({ "python", "train.py" }, j.container.command)
    assert.equal("torch-distributed", j.runtime)   -- named: written back as read
    assert.same({ "python", "train.py" }, j:manifest{ name = "pt", target = "trainer-2.3" }.spec.trainer.command)
  end)

  it("returns nil, msg for bad JSON text rather than raising", function()
    local j, msg = kfjob.from_manifest('{"apiVersion": "kubeflow.org/v1", "kind": ')
    assert.is_nil(j)
    assert.matches("^kfjob.from_manifest: ", msg)
  end)
end)

describe("kfjob.to_lua", function()
  it("writes a config that loads back into equal jobs, defaults left out", function()
    local jobs = {}
    for _, r in ipairs(runs) do jobs[r.c[1]] = r.c[2] end
    local src = kfjob.to_lua(jobs)
    local back = load_env(src, { require = require })()
    for name, j in pairs(jobs) do assert.is_true(back[name] == j, name) end
    assert.is_nil(src:find("restart_policy = \"never\"", 1, true))   -- the default
    assert.is_nil(src:find("slots = 1,", 1, true))
  end)

  it("writes what a person would: schema order, safe quoting", function()
    local src = kfjob.to_lua{ ["pt-1"] = kfjob.PyTorchJob{ worker = { replicas = 2, image = "a\"b" },
                                                          run_policy = { backoff_limit = 3 } } }
    assert.equal('local kfjob = require "kfjob"\n\nreturn {\n'
      .. '  ["pt-1"] = kfjob.PyTorchJob{\n'
      .. '    worker = {\n      replicas = 2,\n      image = "a\\"b",\n    },\n'
      .. '    run_policy = {\n      backoff_limit = 3,\n    },\n  },\n}\n', src)
  end)

  it("turns a manifest into a config (import, then to_lua)", function()
    local m = PT_FACTS:manifest{ name = "pt", image = IMAGE, target = "operator" }
    local j = kfjob.from_manifest(m)
    local back = load_env(kfjob.to_lua{ pt = j }, { require = require })()
    assert.is_true(back.pt == j)
  end)
end)

describe("import: YAML text and streams", function()
  it("reads JSON Lines (several JSON manifests, one a line) as a stream", function()
    local a = PT_FACTS:manifest{ name = "a", image = IMAGE, format = "json" }
    local b = MPI_FACTS:manifest{ name = "b", image = IMAGE, format = "json" }
    local r = assert(kfjob.from_manifests(a .. "\n" .. b .. "\n"))
    assert.equal(2, #r)
    assert.equal("a", r[1].info.name)
    assert.equal("b", r[2].info.name)
    assert.is_true(r[1].job == kfjob.from_manifest(a))
    assert.is_nil((kfjob.from_manifests(a .. b)))   -- a line each: not one line
    local j, msg = kfjob.from_manifest(a .. "\n" .. b)
    assert.is_nil(j)
    assert.matches("2 documents: this reads one", msg, 1, true)
    -- a bad second line is named by its line
    local _, err = kfjob.from_manifests(a .. "\n" .. b:gsub('"replicas":2', '"replicas":2,"replicas":3', 1))
    assert.matches("document 2, line 2: ", err, 1, true)
  end)

  it("reads YAML text: Law 1 holds through kfjob's own YAML", function()
    for _, r in ipairs(runs) do
      if not NOT_YET[r.c[1]] then
        local ro = r.c[2].kind == "Elastic" and r.t:match("^trainer") and { kind = "Elastic" } or nil
        local j, info = kfjob.from_manifest(r.yaml, ro)
        assert.is_table(info, r.c[1] .. " " .. r.t .. ": " .. tostring(info))
        assert.equal(r.yaml, j:manifest(reopts(info, r.t, "yaml")))
      end
    end
  end)

  it("from_manifests reads a stream, skipping the kinds it does not read", function()
    local a = PT_FACTS:manifest{ name = "a", image = IMAGE, format = "yaml" }
    local b = MPI_FACTS:manifest{ name = "b", image = IMAGE, format = "yaml", target = "mpi-operator" }
    local r = kfjob.from_manifests(a .. "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n---\n" .. b)
    assert.equal(2, #r)
    assert.equal("a", r[1].info.name)
    assert.equal("mpi-operator", r[2].info.target)
    assert.is_true(r[2].job == MPI_FACTS:with{ worker = { image = IMAGE }, launcher = { image = IMAGE } })
    assert.same({ { index = 2, api_version = "v1", kind = "Service" } }, r.skipped)
  end)

  it("names the document that fails in a stream", function()
    local a = PT_FACTS:manifest{ name = "a", image = IMAGE, format = "yaml" }
    local r, msg = kfjob.from_manifests(a .. "---\napiVersion: kubeflow.org/v1\nkind: TFJob\n"
      .. "metadata:\n  name: t\nspec:\n  tfReplicaSpec: {}\n")
    assert.is_nil(r)
    local line = select(2, a:gsub("\n", "")) + 2
    assert.equal("kfjob.from_manifests: document 2 (line " .. line .. "): spec.tfReplicaSpec: "
      .. "unknown field (did you mean 'tfReplicaSpecs'?) (opts.lossy lists it instead)", msg)
  end)

  it("refuses bad YAML with nil, msg: several documents, aliases, duplicate keys, tabs", function()
    local y = PT_FACTS:manifest{ name = "a", image = IMAGE, format = "yaml" }
    assert.equal("kfjob.from_manifest: 2 documents: this reads one (kfjob.from_manifests reads a stream)",
      select(2, kfjob.from_manifest(y .. "---\n" .. y)))
    assert.equal("kfjob.from_manifest: document 1, line 2: duplicate key 'a' (first given on line 1)",
      select(2, kfjob.from_manifest("a: 1\na: 2\n")))
    assert.equal("kfjob.from_manifest: document 1, line 2: a tab in the indentation (YAML indents with spaces)",
      select(2, kfjob.from_manifest("a:\n\tb: 1\n")))
    local bomb = { "a: &a [x, x, x, x, x, x, x, x, x]" }
    for i = 2, 12 do bomb[i] = ("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]"):format(
      string.char(96 + i), string.char(96 + i), string.rep(string.char(95 + i), 9):match("(.)"),
      string.char(95 + i), string.char(95 + i), string.char(95 + i), string.char(95 + i),
      string.char(95 + i), string.char(95 + i), string.char(95 + i), string.char(95 + i)) end
    -- refused by count, not time: the node limit is met on line 7 of 12,
    -- before the expansion goes on (a CPU-time bound is the machine's load)
    local j, msg = kfjob.from_manifest(table.concat(bomb, "\n") .. "\n")
    assert.is_nil(j)
    assert.equal("kfjob.from_manifest: document 1, line 7: g[2]: more than 2000000 nodes (aliases expanded)", msg)
    assert.is_nil((kfjob.from_manifest("kind: \255\n")))
  end)
end)

-- Law 2, hand-written manifests: one that passes validate-manifest reads,
-- or fails naming the path kfjob cannot represent; read and emitted again
-- for its own target, it equals the input as data after the defaults the
-- API server and the operator apply to both (tools/manifest-defaults,
-- written independently of kfjob in Python; each default's upstream file
-- is in its header).  The upstream examples are in spec/data/import and
-- spec/data/import/upstream (sources in its README and each file's header).
describe("import: Law 2, upstream manifests", function()
  local util = require "spec.util"
  local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
  local DIR = here .. "/data/import/"
  local ROOT = here .. "/.."
  local FILES = { "jaxjob.yaml", "mpi-operator-mpich-horovod.yaml", "mpi-operator-pi.yaml", "mpijob.yaml",
                  "pytorchjob.json", "tfjob.yaml", "trainer-2.2-upstream.yaml", "trainer-2.3-upstream.yaml",
                  "xgboost-paddle.yaml",
                  "upstream/mpiop-horovod-tensorflow-mnist.yaml", "upstream/mpiop-pi-pi-intel.yaml",
                  "upstream/mpiop-tensorflow-benchmarks-tensorflow-benchmarks.yaml",
                  "upstream/to-mpi-tensorflow-mnist.yaml", "upstream/to-paddlepaddle-simple-gpu.yaml",
                  "upstream/to-pytorch-cpu-demo-demo.yaml", "upstream/to-pytorch-deepspeed-demo-pytorch_deepspeed_demo.yaml",
                  "upstream/to-pytorch-elastic-echo-echo.yaml", "upstream/to-pytorch-mnist-v1-pytorch_job_mnist_gloo.yaml",
                  "upstream/to-pytorch-simple.yaml", "upstream/to-pytorch-smoke-dist-pytorch_job_sendrecv.yaml",
                  "upstream/to-tensorflow-dist-mnist-tf_job_mnist.yaml",
                  "upstream/to-tensorflow-distribution_strategy-multi_worker_tfjob.yaml",
                  "upstream/to-tensorflow-simple.yaml", "upstream/to-xgboost-smoke-dist-xgboostjob_v1_rabit_test.yaml" }
  -- what blocks each, by hand from the files (FACTS §8.3.1, §8.4, §10)
  local BLOCKED = {
    -- (tfjob.yaml's PS runs python /opt/train.py, the Worker its image's
    -- entrypoint: the PS's container.command, SPEC §16)
    -- 2 workers started between minReplicas 1 and maxReplicas 3: kfjob's
    -- Elastic job starts its upper bound
    ["pytorchjob.json"] = "spec.pytorchReplicaSpecs.Worker.replicas",
    -- 02-runtime-patches.yaml: a patch of another manager (the platform team's)
    ["trainer-2.3-upstream.yaml"] = "spec.runtimePatches[0].trainingRuntimeSpec.template.metadata",
  }
  local function target_of(text)
    if text:find("kubeflow.org/v2beta1", 1, true) then return "mpi-operator" end
    if text:find("trainer.kubeflow.org", 1, true) then
      return text:find("v2.2", 1, true) and "trainer-2.2" or "trainer-2.3"
    end
    return "operator"
  end
  local function reemit(r)
    local out = {}
    for _, x in ipairs(r) do
      local info, c = x.info, x.info.container or {}
      -- the resource's labels and annotations are the job's, the pods' their templates'
      out[#out + 1] = x.job:manifest{ name = info.name, namespace = info.namespace, image = c.image,
        command = c.command, args = c.args, env = c.env, target = info.target, format = "yaml" }
    end
    return table.concat(out, "---\n")
  end
  -- the differences after defaults, "" when none (nil, why: python3 cannot run it)
  local function differences(path, text)
    local py = "env -u LD_PRELOAD /usr/bin/python3"
    if not util.sh_ok(py .. " -c 'import yaml'") then return nil, "python3 cannot import yaml" end
    local tmp = os.tmpname()
    local fh = assert(io.open(tmp, "wb")); fh:write(text); fh:close()
    local p = assert(io.popen(py .. " " .. util.quote(ROOT .. "/tools/manifest-defaults") .. " --diff "
                              .. util.quote(path) .. " " .. util.quote(tmp) .. " 2>&1"))
    local d = p:read("*a"); p:close(); os.remove(tmp)
    return d
  end

  -- each validator once per target over all its files (python's start-up
  -- is most of a run); a file alone only when its target's batch fails
  local batch = {}
  local function validated(v, target, f)
    local key = v.name .. " " .. target
    if batch[key] == nil then
      local files = {}
      for _, g in ipairs(FILES) do
        local fh = assert(io.open(DIR .. g, "rb"))
        if target_of(fh:read("*a")) == target then files[#files + 1] = util.quote(DIR .. g) end
        fh:close()
      end
      batch[key] = util.sh_ok(v.cmd .. " --target " .. target .. " " .. table.concat(files, " "))
    end
    return batch[key] or util.sh_ok(v.cmd .. " --target " .. target .. " " .. util.quote(DIR .. f))
  end

  for _, f in ipairs(FILES) do
    it(f .. " passes validate-manifest, then reads (equal as data after defaults) or names the path", function()
      local fh = assert(io.open(DIR .. f, "rb"))
      local text = fh:read("*a"); fh:close()
      for _, v in ipairs(util.validators()) do
        assert.is_true(validated(v, target_of(text), f), v.name .. " refuses " .. f)
      end
      local r, msg = kfjob.from_manifests(text)
      if BLOCKED[f] then
        assert.is_nil(r)
        assert.matches(": " .. BLOCKED[f]:gsub("%p", "%%%0") .. ": ", msg)
        local lossy = kfjob.from_manifests(text, { lossy = true })
        if lossy then   -- listed rather than failed
          local paths = {}
          for _, x in ipairs(lossy) do for _, u in ipairs(x.info.unmapped) do paths[u.path] = true end end
          assert.is_true(next(paths) ~= nil)
        end
        return
      end
      assert.is_table(r, msg)
      assert.is_true(#r >= 1)
      for _, x in ipairs(r) do assert.same({}, x.info.unmapped) end
      local d, why = differences(DIR .. f, reemit(r))
      if d == nil then return pending(why) end
      assert.equal("", d)
    end)
  end

  it("the mpi-operator's container names and a TrainJob's other runtime read (SPEC §17)", function()
    local fh = assert(io.open(DIR .. "mpi-operator-pi.yaml", "rb"))
    local r = assert(kfjob.from_manifests(fh:read("*a"))); fh:close()
    local pi = r[1].job:spec()   -- mpi-operator examples/v2beta1/pi/pi.yaml
    assert.equal("mpi-launcher", pi.launcher.container.name)
    assert.equal("mpi-worker", pi.worker.container.name)
    assert.same({ "mpirun" }, pi.launcher.container.command)
    assert.equal("/home/mpiuser/.ssh", pi.ssh_auth_mount_path)
    fh = assert(io.open(DIR .. "trainer-2.2-upstream.yaml", "rb"))
    r = assert(kfjob.from_manifests(fh:read("*a"), { lossy = true })); fh:close()
    local flux = r[1].job:spec()   -- lammps-flux: its runtime, command and processes as written
    assert.equal("ghcr.io/converged-computing/metric-lammps:latest", flux.master.image)
    assert.equal(1, flux.worker.replicas)
    assert.equal("flux-runtime", flux.runtime)
    assert.equal(4, flux.nproc_per_node)
    assert.equal("lmp", flux.container.command[1])
    assert.same({}, r[1].info.unmapped)
  end)

  it("a v1 MPIJob's spec.cleanPodPolicy is its run policy's (the controller keeps them in step)", function()
    local m = table.concat({ "apiVersion: kubeflow.org/v1", "kind: MPIJob", "metadata: {name: mc}", "spec:",
      "  cleanPodPolicy: Running", "  mpiReplicaSpecs:", "    Launcher:", "      replicas: 1",
      "      template: {spec: {containers: [{name: mpi, image: 'i:1', args: [mpirun, -n, '2', /pi]}]}}",
      "    Worker:", "      replicas: 2",
      "      template: {spec: {containers: [{name: mpi, image: 'i:1', args: [/usr/sbin/sshd, -De]}]}}", "" }, "\n")
    local r = assert(kfjob.from_manifests(m))
    assert.equal("running", r[1].job:spec().run_policy.clean_pod_policy)
    local tmp = os.tmpname()
    local fh = assert(io.open(tmp, "wb")); fh:write(m); fh:close()
    local d, why = differences(tmp, reemit(r))
    os.remove(tmp)
    if d == nil then return pending(why) end
    assert.equal("", d)
  end)

  it("the resource's labels are the job's, the pods' their template's; equal after defaults", function()
    local m = table.concat({
      "apiVersion: kubeflow.org/v1", "kind: TFJob", "metadata:", "  name: mnist-tf",
      "  labels: {app: mnist, kueue.x-k8s.io/queue-name: team-a}", "  annotations: {owner: ml}", "spec:",
      "  tfReplicaSpecs:",
      "    Worker:", "      replicas: 2", "      template:",
      "        metadata: {labels: {tier: gpu}}",
      "        spec:", "          containers:", "          - name: tensorflow", "            image: tf:2", "" }, "\n")
    local r = assert(kfjob.from_manifests(m))
    local info, s = r[1].info, r[1].job:spec()
    assert.is_nil(info.copy_to_pods)
    assert.same({ app = "mnist" }, info.labels)
    assert.same({ app = "mnist" }, s.labels)
    assert.same({ owner = "ml" }, s.annotations)
    assert.equal("team-a", s.scheduling.queue)   -- Kueue reads the resource's (jobframework)
    assert.same({ labels = { tier = "gpu" } }, s.pod_template.metadata)
    local back = reemit(r)
    assert.matches("tier: gpu", back)
    assert.not_matches("app: mnist\n *tier", back)
    local tmp = os.tmpname()
    local fh = assert(io.open(tmp, "wb")); fh:write(m); fh:close()
    local d, why = differences(tmp, back)
    os.remove(tmp)
    if d == nil then return pending(why) end
    assert.equal("", d)
    -- the same pods whatever the resource has: a label on both stays on both
    m = m:gsub("{labels: {tier: gpu}}", "{labels: {app: mnist, tier: gpu}}")
    s = assert(kfjob.from_manifest(m)):spec()
    assert.same({ app = "mnist" }, s.labels)
    assert.same({ labels = { app = "mnist", tier = "gpu" } }, s.pod_template.metadata)
  end)
end)

-- Migration (SPEC §14, FACTS §10): a hand-written v1 PyTorchJob to Trainer
-- (numNodes = master + workers, runtimeRef torch-distributed), a v1 MPIJob
-- to the mpi-operator; what the target cannot express is the rule's error.
describe("import: migration between targets", function()
  local PT = table.concat({
    "apiVersion: kubeflow.org/v1", "kind: PyTorchJob", "metadata:", "  name: mnist", "spec:",
    "  pytorchReplicaSpecs:",
    "    Master:", "      replicas: 1", "      restartPolicy: Never", "      template:", "        spec:",
    "          nodeSelector: {pool: MASTERPOOL}",
    "          containers:", "          - name: pytorch", "            image: registry.example/mnist:1",
    "            command: [python, train.py]",
    "    Worker:", "      replicas: 3", "      restartPolicy: Never", "      template:", "        spec:",
    "          nodeSelector: {pool: gpu}",
    "          containers:", "          - name: pytorch", "            image: registry.example/mnist:1",
    "            command: [python, train.py]", "" }, "\n")
  local function to(text, target)
    local j, info = assert(kfjob.from_manifest(text))
    return j:manifest{ name = info.name, image = info.container.image, command = info.container.command,
                       target = target }
  end

  it("a v1 PyTorchJob becomes a TrainJob on torch-distributed, numNodes = 1 + 3", function()
    local m = to(PT:gsub("MASTERPOOL", "gpu"), "trainer-2.3")
    assert.equal("TrainJob", m.kind)
    assert.same({ apiGroup = "trainer.kubeflow.org", kind = "ClusterTrainingRuntime",
                  name = "torch-distributed" }, m.spec.runtimeRef)
    assert.equal(4, m.spec.trainer.numNodes)
    assert.same({ "torchrun", "--no-python", "python", "train.py" }, m.spec.trainer.command)
    assert.same({ pool = "gpu" }, m.spec.runtimePatches[1].trainingRuntimeSpec.template.spec
      .replicatedJobs[1].template.spec.template.spec.nodeSelector)
  end)

  it("per-group node selectors cannot move to Trainer: the rule's error names the group", function()
    local j = kfjob.from_manifest((PT:gsub("MASTERPOOL", "cpu")))
    local ok, err = pcall(j.manifest, j, { name = "mnist", image = "x", target = "trainer-2.3" })
    assert.is_false(ok)
    assert.matches("master.pod_template: differs from the other group's", err, 1, true)
  end)

  it("a v1 MPIJob becomes an mpi-operator v2beta1 MPIJob", function()
    local v1 = MPI_FACTS:manifest{ name = "pi", image = IMAGE, args = ARGS, target = "operator", format = "yaml" }
    local m = to(v1, "mpi-operator")
    assert.equal("kubeflow.org/v2beta1", m.apiVersion)
    assert.equal(2, m.spec.slotsPerWorker)
    assert.equal("OpenMPI", m.spec.mpiImplementation)
    assert.same(SSHD, m.spec.mpiReplicaSpecs.Worker.template.spec.containers[1].args)
  end)
end)
