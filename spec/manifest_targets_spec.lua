-- Manifests per target (SPEC §11, FACTS §3-§4, §8.1.4, §8.3, §8.4):
-- job:manifest{target=} for flyte, flyte2, mpi-operator, trainer-2.2 and
-- trainer-2.3.  Every manifest goes through tools/validate-manifest
-- --target <name> (one run per target; ../shared/tools/validate-manifest
-- too where it exists); expected shapes are written by hand from FACTS,
-- never taken from kfjob; what a target cannot express is an error with its
-- rule.  Without python3-yaml/jsonschema the validation specs are pending
-- with the reason.
local kfjob = require "kfjob"

local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local sh_ok = require("util").sh_ok
local validators, no_validator = require("util").validators()
local error_of = require("util").error_of
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local ARGS = { "pyflyte-execute", "--inputs", "s3://bucket/in/inputs.pb", "--output-prefix", "s3://bucket/out" }
local IMAGE = "registry.example/train:v1"
local SSHD = { "/usr/sbin/sshd", "-De" }
local R1 = { cpu = 1, mem = "1Gi" }
local GPU2 = { cpu = 1, mem = "1Gi", gpu = 2 }

local POD = {   -- fields a TrainJob's runtime patch can carry
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

---------------------------------------------------------------------------
-- Configurations per target, all meant to be valid there.
---------------------------------------------------------------------------
local MPI_FACTS = kfjob.MPIJob{   -- FACTS §4.6 / §8.3.3
  worker = { replicas = 2, command = SSHD, restart_policy = "never" },
  launcher = { requests = { cpu = 1 }, restart_policy = "never" },
  slots = 2, run_policy = { backoff_limit = 3 } }
local PT_FACTS = kfjob.PyTorchJob{   -- FACTS §8.4.5
  master = { requests = GPU2, limits = GPU2 }, worker = { replicas = 3, requests = GPU2, limits = GPU2 },
  accelerator = "nvidia-tesla-a100", shared_memory = true, run_policy = { active_deadline_seconds = 3600 } }

local cases = {
  ["mpi-operator"] = {
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
  },
  trainer = {
    { "pt-facts", PT_FACTS:with{ scheduling = { queue = "team-a" } },
      { namespace = "default", args = ARGS, env = { NCCL_DEBUG = "INFO" } } },
    { "pt-plain", kfjob.PyTorchJob{ worker = { replicas = 2 }, run_policy = { clean_pod_policy = "all" } }, {} },
    { "pt-command", kfjob.PyTorchJob{ master = { image = "pt:1", requests = R1 },
                                      worker = { replicas = 1, image = "pt:1", requests = R1 } },
      { image = false, command = { "python", "-m", "train" }, args = { "--epochs", "3" },
        service_account = "trainer", annotations = { a = "b" } } },
    { "pt-pod", kfjob.PyTorchJob{ master = { limits = { gpu = 1 } }, worker = { replicas = 1, limits = { gpu = 1 } },
                                  pod_template = POD,
                                  accelerator = "nvidia-h100" }, { args = ARGS } },
    { "elastic-fixed", kfjob.Elastic{ nnodes = 4, nproc_per_node = 8, requests = R1 }, { args = ARGS } },
  },
  flyte = {
    { "tf-all", kfjob.TFJob{ chief = { replicas = 1 }, ps = { replicas = 1 }, evaluator = { replicas = 1 },
                             worker = { replicas = 2, image = "tf:2", requests = { cpu = 2, mem = "4Gi", gpu = 1 },
                                        restart_policy = "on_failure" },
                             run_policy = { clean_pod_policy = "running", active_deadline_seconds = 3600 } },
      { args = ARGS, labels = { team = "ml" } } },
    { "pt-facts", kfjob.PyTorchJob{ worker = { replicas = 4, limits = { gpu = 2 } },
                                    master = { restart_policy = "always" } }, { args = ARGS, env = { A = "1" } } },
    { "pt-pod", kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = POD, shared_memory = true },
      { args = ARGS, annotations = { ["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "true" } } },
    { "elastic", kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 }, { args = ARGS } },
    { "mpi-facts", MPI_FACTS, { args = ARGS } },
    { "horovod", kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 4 }, { args = ARGS } },
    { "tf-pod-gpu", kfjob.TFJob{ worker = { replicas = 2, limits = { gpu = 1 } }, chief = { replicas = 1 },
                                 pod_template = POD, accelerator = "nvidia-tesla-a100" },
      { args = ARGS, service_account = "tf" } },
    { "elastic-pod", kfjob.Elastic{ nnodes = "1:3", pod_template = POD, shared_memory = "1Gi",
                                    run_policy = { ttl_seconds_after_finished = 60 } },
      { args = ARGS, env = { X = "1" } } },
    { "horovod-pod", kfjob.HorovodJob{ worker = { replicas = 3, command = { "sleep", "inf" } }, slots = 1,
                                       shared_memory = true, run_policy = { clean_pod_policy = "all" } },
      { args = ARGS, labels = { a = "b" } } },
  },
}

local function opts_of(c, target, fmt)
  local o = { name = c[1], target = target, format = fmt, image = IMAGE }
  for k, v in pairs(c[3]) do if v == false then o[k] = nil else o[k] = v end end
  return o
end

-- target -> list of { case, target } to render and validate
local runs = {
  { "mpi-operator", cases["mpi-operator"] },
  { "trainer-2.2", cases.trainer }, { "trainer-2.3", cases.trainer }, { "trainer-2.4", cases.trainer },
  { "flyte", cases.flyte }, { "flyte2", cases.flyte },
}

local batch
local tmpfiles = {}
local function tmp(s)
  local p = os.tmpname()
  local f = assert(io.open(p, "wb")); f:write(s); f:close()
  tmpfiles[#tmpfiles + 1] = p
  return p
end

local function run_batch()
  if batch then return batch end
  -- out[validator][target]: the output; lines[file]: problems of every validator
  batch = { out = {}, lines = {}, files = {} }
  if #validators == 0 then batch.skip = no_validator end
  for _, r in ipairs(runs) do
    local target, list = r[1], r[2]
    local files = {}
    for _, c in ipairs(list) do
      for _, fmt in ipairs{ "json", "yaml" } do
        local key = target .. " " .. c[1] .. " " .. fmt
        local ok, m = pcall(c[2].manifest, c[2], opts_of(c, target, fmt))
        if ok then
          batch.files[key] = tmp(m)
          files[#files + 1] = q(batch.files[key])
        else
          batch.files[key] = { err = m }
        end
      end
    end
    for _, vd in ipairs(#files > 0 and not batch.skip and validators or {}) do
      -- a validator without v2.4 checks it against v2.3's CRD (what v2.4 writes)
      local vt = (target == "trainer-2.4" and vd.name ~= "tools/validate-manifest") and "trainer-2.3" or target
      local p = assert(io.popen(vd.cmd .. " --strict --target " .. vt .. " " ..
                                table.concat(files, " ") .. " 2>&1"))
      batch.out[vd.name] = batch.out[vd.name] or {}
      batch.out[vd.name][target] = p:read("*a")
      p:close()
      for line in batch.out[vd.name][target]:gmatch("[^\n]+") do
        local file = line:match("^(.-):#%d+ ") or line:match("^(.-): error: ")
        if file and not line:find(": warning: ", 1, true) then
          batch.lines[file] = batch.lines[file] or {}
          table.insert(batch.lines[file], vd.name .. ": " .. line)
        end
      end
    end
  end
  return batch
end

describe("job:manifest{target=}", function()
  teardown(function() for _, p in ipairs(tmpfiles) do os.remove(p) end end)

  describe("validate-manifest --target accepts every configuration", function()
    for _, r in ipairs(runs) do
      for _, c in ipairs(r[2]) do
        for _, fmt in ipairs{ "json", "yaml" } do
          local key = r[1] .. " " .. c[1] .. " " .. fmt
          it(key, function()
            local b = run_batch()
            local f = b.files[key]
            assert(type(f) == "string", type(f) == "table" and f.err)
            if b.skip then return pending(b.skip) end
            assert.same({}, b.lines[f] or {})
          end)
        end
      end
      it(r[1] .. ": the validator saw every object", function()
        local b = run_batch()
        if b.skip then return pending(b.skip) end
        for _, vd in ipairs(validators) do
          local n, bad = b.out[vd.name][r[1]]:match("(%d+) objects, (%d+) invalid")
          assert.equal(2 * #r[2], tonumber(n), vd.name)
          assert.equal(0, tonumber(bad), vd.name)
        end
      end)
    end
  end)

  it("the validator bites: an edited mpi-operator manifest is refused", function()
    local b = run_batch()
    if b.skip then return pending(b.skip) end
    local m = MPI_FACTS:manifest{ name = "bad", image = IMAGE, target = "mpi-operator" }
    m.spec.mpiReplicaSpecs.Worker.restartPolicy = "Always"
    local json = dofile(here .. "/conformance/json.lua")(m)
    for _, vd in ipairs(validators) do
      local p = assert(io.popen(vd.cmd .. " --target mpi-operator " .. q(tmp(json)) .. " 2>&1"))
      local out = p:read("*a")
      p:close()
      assert.matches('Worker.restartPolicy: [controller] unsupported value "Always"', out, 1, true)
    end
  end)
end)

---------------------------------------------------------------------------
-- Shapes, written from FACTS.
---------------------------------------------------------------------------
describe("mpi-operator (FACTS §8.3)", function()
  it("builds the §8.3.3 example: slotsPerWorker = slots, OpenMPI, restart policies written", function()
    local m = MPI_FACTS:manifest{ name = "mpi-example", namespace = "default", image = IMAGE,
                                  args = ARGS, target = "mpi-operator" }
    local np = { "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
                 "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
                 "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np", "4" }
    for _, a in ipairs(ARGS) do np[#np + 1] = a end
    assert.same({
      apiVersion = "kubeflow.org/v2beta1", kind = "MPIJob",
      metadata = { name = "mpi-example", namespace = "default" },
      spec = {
        slotsPerWorker = 2,
        runPolicy = { cleanPodPolicy = "None", backoffLimit = 3 },
        mpiImplementation = "OpenMPI",
        mpiReplicaSpecs = {
          Launcher = { replicas = 1, restartPolicy = "Never", template = { spec = {
            containers = { { name = "mpi", image = IMAGE, args = np,
                             resources = { requests = { cpu = "1" } } } },
            restartPolicy = "Never" } } },
          Worker = { replicas = 2, restartPolicy = "Never", template = { spec = {
            containers = { { name = "mpi", image = IMAGE, args = SSHD, resources = {} } },
            restartPolicy = "Never" } } },
        },
      },
    }, m)
  end)

  it("gives a worker without a command neither command nor args (the operator starts sshd)", function()
    local job = kfjob.MPIJob{ worker = { replicas = 2 } }
    local m = job:manifest{ name = "m", image = IMAGE, command = { "bash" }, args = ARGS,
                            target = "mpi-operator" }
    local w = m.spec.mpiReplicaSpecs.Worker.template.spec.containers[1]
    assert.is_nil(w.command)
    assert.is_nil(w.args)
    local l = m.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1]
    assert.same({ "bash" }, l.command)
    assert.equal("mpirun", l.args[1])
    -- unset restart policies are written as Never (the operator's launcher default is OnFailure)
    assert.equal("Never", m.spec.mpiReplicaSpecs.Launcher.restartPolicy)
    assert.is_nil(m.spec.runPolicy)   -- no run policy given: the CRD's defaults
  end)

  it("runs a HorovodJob's horovodrun on the launcher", function()
    local m = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }:manifest{
      name = "h", image = IMAGE, args = ARGS, target = "mpi-operator" }
    local l = m.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1]
    assert.same({ "horovodrun", "-np", "4" }, { l.args[1], l.args[2], l.args[3] })
    assert.equal(2, m.spec.slotsPerWorker)
  end)
end)

describe("trainer-2.2 / trainer-2.3 (FACTS §8.4)", function()
  for _, t in ipairs{ "trainer-2.2", "trainer-2.3" } do
    it(t .. ": builds the §8.4.5 example", function()
      -- the example's Kueue label is scheduling's (a call's labels cannot hold it)
      local m = PT_FACTS:with{ scheduling = { queue = "team-a" } }:manifest{
        name = "pt-example", namespace = "default", image = IMAGE, args = ARGS,
        env = { NCCL_DEBUG = "INFO" }, target = t }
      local res = { cpu = "1", memory = "1Gi", ["nvidia.com/gpu"] = "2" }
      assert.same({
        apiVersion = "trainer.kubeflow.org/v1alpha1", kind = "TrainJob",
        metadata = { name = "pt-example", namespace = "default",
                     labels = { ["kueue.x-k8s.io/queue-name"] = "team-a" } },
        spec = {
          runtimeRef = { apiGroup = "trainer.kubeflow.org", kind = "ClusterTrainingRuntime",
                         name = "torch-distributed" },
          activeDeadlineSeconds = 3600,
          trainer = { image = IMAGE, command = { "torchrun", "--no-python" }, args = ARGS,
                      env = { { name = "NCCL_DEBUG", value = "INFO" } },
                      numNodes = 4, numProcPerNode = 1,
                      resourcesPerNode = { requests = res, limits = res } },
          runtimePatches = { { manager = "kfjob/manifest", trainingRuntimeSpec = { template = { spec = {
            replicatedJobs = { { name = "node", template = { spec = { template = { spec = {
              affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = {
                nodeSelectorTerms = { { matchExpressions = { {
                  key = "k8s.amazonaws.com/accelerator", operator = "In",
                  values = { "nvidia-tesla-a100" } } } } } } } },
              tolerations = { { key = "k8s.amazonaws.com/accelerator", operator = "Equal",
                                value = "nvidia-tesla-a100", effect = "NoSchedule" } },
              volumes = { { name = "flyte-shared-memory", emptyDir = { medium = "Memory" } } },
              containers = { { name = "node", volumeMounts = {
                { name = "flyte-shared-memory", mountPath = "/dev/shm" } } } },
            } } } } } } } } } } },
        },
      }, m)
    end)
  end

  it("numNodes: master + workers (a master-only job has one node), elastic its fixed count", function()
    local m = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1 } }:manifest{
      name = "p", image = IMAGE, target = "trainer-2.3" }
    assert.equal(2, m.spec.trainer.numNodes)
    assert.is_nil(m.spec.trainer.command)   -- nothing to run given: the runtime's
    assert.is_nil(m.spec.runtimePatches)
    -- a master-only PyTorchJob (R1: ok on Trainer) once construction takes it
    local ok, job = pcall(kfjob.PyTorchJob, { master = {}, worker = { replicas = 0 } })
    if ok then
      assert.equal(1, job:manifest{ name = "p", image = IMAGE, target = "trainer-2.3" }.spec.trainer.numNodes)
    end
    m = kfjob.Elastic{ nnodes = "3:3", nproc_per_node = 4 }:manifest{
      name = "e", image = IMAGE, args = ARGS, target = "trainer-2.2" }
    assert.equal(3, m.spec.trainer.numNodes)
    assert.equal(4, m.spec.trainer.numProcPerNode)
  end)

  it("wraps the task command in torchrun and drops what has no field", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 1 },
                                  run_policy = { clean_pod_policy = "all", backoff_limit = 2 } }
    local m = job:manifest{ name = "p", image = IMAGE, command = { "python", "-m", "train" },
                            args = { "--lr", "1" }, target = "trainer-2.3" }
    assert.same({ "torchrun", "--no-python", "python", "-m", "train" }, m.spec.trainer.command)
    assert.same({ "--lr", "1" }, m.spec.trainer.args)
    assert.is_nil(m.spec.activeDeadlineSeconds)
    assert.is_nil(m.spec.runPolicy)
  end)

  it("patches the pod template's fields into the node job; terminationGracePeriodSeconds only on 2.3", function()
    local pod = { metadata = { labels = { team = "ml" } },
                  spec = { terminationGracePeriodSeconds = 60, nodeSelector = { pool = "a" } } }
    local job = kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = pod }
    local m = job:manifest{ name = "p", image = IMAGE, service_account = "sa", target = "trainer-2.3" }
    local tmpl = m.spec.runtimePatches[1].trainingRuntimeSpec.template.spec.replicatedJobs[1]
                  .template.spec.template
    assert.same({ labels = { team = "ml" } }, tmpl.metadata)
    assert.same({ serviceAccountName = "sa", nodeSelector = { pool = "a" },
                  terminationGracePeriodSeconds = 60 }, tmpl.spec)
    assert.equal("kfjob.PyTorchJob: pod_template.spec.terminationGracePeriodSeconds: cannot be "
                 .. "expressed: a TrainJob's runtime patch (PodSpecPatch) has no such field "
                 .. "before Trainer v2.3 (target trainer-2.2)",
                 error_of(job.manifest, job, { name = "p", image = IMAGE, target = "trainer-2.2" }))
  end)
end)

describe("flyte / flyte2 (what the backends submit, FACTS §3-§4, §8.1.4)", function()
  local function pods(m)
    local out = {}
    for k, rs in pairs(m.spec[next(m.spec, nil) and (m.spec.mpiReplicaSpecs and "mpiReplicaSpecs"
                        or m.spec.pytorchReplicaSpecs and "pytorchReplicaSpecs" or "tfReplicaSpecs")]) do
      out[k] = rs.template
    end
    return out
  end

  it("flyte: MPI slotsPerWorker 1 whatever the slots (the operator target keeps slots)", function()
    for _, t in ipairs{ "flyte", "flyte2" } do
      assert.equal(1, MPI_FACTS:manifest{ name = "m", image = IMAGE, target = t }.spec.slotsPerWorker)
    end
    assert.equal(2, MPI_FACTS:manifest{ name = "m", image = IMAGE }.spec.slotsPerWorker)
    assert.equal(2, MPI_FACTS:manifest{ name = "m", image = IMAGE, target = "operator" }.spec.slotsPerWorker)
  end)

  it("flyte: the default annotation on every pod, FallbackToLogsOnError, _F_WN on the PyTorch worker", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 2 } }
    local m = job:manifest{ name = "p", image = IMAGE, env = { A = "1" }, target = "flyte" }
    for _, tmpl in pairs(pods(m)) do
      assert.same({ annotations = { ["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "false" } },
                  tmpl.metadata)
      assert.equal("FallbackToLogsOnError", tmpl.spec.containers[1].terminationMessagePolicy)
      assert.is_nil(tmpl.spec.enableServiceLinks)
    end
    assert.same({ { name = "A", value = "1" } },
                m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].env)
    assert.same({ { name = "A", value = "1" },
                  { name = "_F_WN", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } },
                m.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].env)
    assert.is_nil(m.metadata.annotations)
  end)

  it("flyte2: enableServiceLinks false, no _F_WN, the pods' metadata on the PyTorchJob", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 2 }, pod_template = { metadata = { labels = { x = "y" } } } }
    local m = job:manifest{ name = "p", image = IMAGE, labels = { team = "ml" }, target = "flyte2" }
    for _, tmpl in pairs(pods(m)) do
      assert.is_false(tmpl.spec.enableServiceLinks)
      assert.is_nil(tmpl.spec.containers[1].env)
      -- a pod template is set: flytekit's k8s_pod path injects no terminationMessagePolicy
      assert.is_nil(tmpl.spec.containers[1].terminationMessagePolicy)
    end
    assert.same({ team = "ml", x = "y" }, m.metadata.labels)
    -- TFJob / MPIJob metadata stays the execution's only
    local tf = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { metadata = { labels = { x = "y" } } } }
    assert.is_nil(tf:manifest{ name = "t", image = IMAGE, target = "flyte2" }.metadata.labels)
  end)

  it("the execution's or template's own safe-to-evict wins", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 } }
    local m = job:manifest{ name = "t", image = IMAGE, target = "flyte",
                            annotations = { ["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "true", z = "1" } }
    assert.same({ ["cluster-autoscaler.kubernetes.io/safe-to-evict"] = "true", z = "1" },
                m.spec.tfReplicaSpecs.Worker.template.metadata.annotations)
  end)

  it("the deprecated elasticPolicy.nProcPerNode, as Flyte sends it", function()
    local m = kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8 }:manifest{
      name = "e", image = IMAGE, target = "flyte" }
    assert.equal(8, m.spec.elasticPolicy.nProcPerNode)
    assert.is_nil(m.spec.pytorchReplicaSpecs.Master)
  end)

  it("an Elastic job with nnodes = 1 is a python-task: no PyTorchJob to show", function()
    local job = kfjob.Elastic{ nnodes = 1 }
    assert.equal("kfjob.manifest: nnodes: 1 makes the task a python-task: Flyte 2 runs it as a "
                 .. "single pod, not a PyTorchJob (target flyte2)",
                 error_of(job.manifest, job, { name = "e", image = IMAGE, target = "flyte2" }))
    assert.equal("PyTorchJob", job:manifest{ name = "e", image = IMAGE }.kind)   -- operator: as before
  end)

  it("an accelerator without a GPU limit is dropped, as Flyte drops it", function()
    local m = kfjob.TFJob{ worker = { replicas = 1 }, accelerator = "nvidia-tesla-t4" }:manifest{
      name = "t", image = IMAGE, target = "flyte" }
    local spec = m.spec.tfReplicaSpecs.Worker.template.spec
    assert.is_nil(spec.affinity)
    assert.is_nil(spec.tolerations)
  end)
end)

---------------------------------------------------------------------------
-- What a target cannot express: the error names the path and the target;
-- the rule is in kf_target_rules_manifest.c (FACTS §8.5).
---------------------------------------------------------------------------
describe("target errors (catalogue)", function()
  local function m(job, target, extra)
    local o = { name = "j", image = IMAGE, target = target }
    for k, v in pairs(extra or {}) do o[k] = v end
    return error_of(job.manifest, job, o)
  end
  local rows = {
    { "R13 restart always on the mpi-operator",
      kfjob.MPIJob{ worker = { replicas = 1, restart_policy = "always" } }, "mpi-operator",
      "kfjob.MPIJob: worker.restart_policy: 'always' cannot be expressed: the mpi-operator "
      .. "accepts only Never and OnFailure (target mpi-operator)" },
    { "R13 launcher always on the mpi-operator",
      kfjob.HorovodJob{ worker = { replicas = 1 }, launcher = { restart_policy = "always" } }, "mpi-operator",
      "kfjob.HorovodJob: launcher.restart_policy: 'always' cannot be expressed: the mpi-operator "
      .. "accepts only Never and OnFailure (target mpi-operator)" },
    { "R13 on_failure on Trainer",
      kfjob.PyTorchJob{ worker = { replicas = 1, restart_policy = "on_failure" } }, "trainer-2.3",
      "kfjob.PyTorchJob: worker.restart_policy: 'on_failure' cannot be expressed: a TrainJob has no "
      .. "restart policy (the runtime's JobSet failurePolicy decides); leave it unset or never "
      .. "(target trainer-2.3)" },
    { "R21 images differ on Trainer",
      kfjob.PyTorchJob{ master = { image = "a:1" }, worker = { replicas = 1 } }, "trainer-2.2",
      "kfjob.PyTorchJob: worker.image: differs from master's (" .. IMAGE .. " vs a:1): master and "
      .. "workers are one `node` job of a TrainJob, with one image (target trainer-2.2)" },
    { "R21 resources differ on Trainer",
      kfjob.PyTorchJob{ master = { requests = { cpu = 1 } }, worker = { replicas = 1, requests = { cpu = 2 } } },
      "trainer-2.3",
      "kfjob.PyTorchJob: worker.requests.cpu: differs from master's (2 vs 1): a TrainJob has one "
      .. "resourcesPerNode for master and workers (target trainer-2.3)" },
    { "R9 elastic range on Trainer", kfjob.Elastic{ nnodes = "2:4" }, "trainer-2.3",
      "kfjob.Elastic: nnodes: the range 2:4 cannot be expressed: a TrainJob has a fixed numNodes "
      .. "(no elastic policy); give min == max (target trainer-2.3)" },
    { "R17 rdzv_backend etcd on Trainer", kfjob.Elastic{ nnodes = 2, rdzv_backend = "etcd" }, "trainer-2.2",
      "kfjob.Elastic: rdzv_backend: 'etcd' cannot be expressed: Trainer's torch runtime has no "
      .. "rendezvous setting (c10d only) (target trainer-2.2)" },
    { "R23 pod field outside PodSpecPatch",
      kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = { priorityClassName = "high" } } },
      "trainer-2.3",
      "kfjob.PyTorchJob: pod_template.spec.priorityClassName: cannot be expressed: a TrainJob's "
      .. "runtime patch (PodSpecPatch) has no such field (target trainer-2.3)" },
    { "R23 a sidecar on Trainer",
      kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = { containers = {
        { name = "primary" }, { name = "side", image = "s:1" } } } } }, "trainer-2.3",
      "kfjob.PyTorchJob: pod_template.spec.containers[2]: cannot be expressed: a runtime patch may "
      .. "only change containers the runtime already has (torch-distributed: node) (target trainer-2.3)" },
    { "R23 primary env on Trainer",
      kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = { containers = {
        { name = "primary", env = { { name = "A", value = "1" } } } } } } }, "trainer-2.2",
      "kfjob.PyTorchJob: pod_template.spec.containers[1].env: cannot be expressed: a runtime patch "
      .. "of the node container has only volumeMounts and securityContext (give it in the job's "
      .. "container.env, which becomes spec.trainer.env) (target trainer-2.2)" },
    { "R23 the mpi-operator's own volume name",
      kfjob.MPIJob{ worker = { replicas = 1 }, pod_template = { spec = { volumes = {
        { name = "ssh-auth", emptyDir = {} } } } } }, "mpi-operator",
      "kfjob.MPIJob: pod_template.spec.volumes[1].name: 'ssh-auth' is a volume the mpi-operator "
      .. "adds to every pod (two volumes of one name are invalid); rename it (target mpi-operator)" },
    { "a TFJob on Trainer", kfjob.TFJob{ worker = { replicas = 1 } }, "trainer-2.3",
      "kfjob.manifest: target 'trainer-2.3' does not run a TFJob (it runs Kubeflow Trainer v2.3 "
      .. "(TrainJob trainer.kubeflow.org/v1alpha1))" },
    { "an MPIJob on Trainer", MPI_FACTS, "trainer-2.2",
      "kfjob.manifest: target 'trainer-2.2' does not run a MPIJob (it runs Kubeflow Trainer v2.2 "
      .. "(TrainJob trainer.kubeflow.org/v1alpha1))" },
  }
  for _, r in ipairs(rows) do
    it(r[1], function() assert.equal(r[4], m(r[2], r[3])) end)
  end

  it("the same jobs are accepted where the target can express them", function()
    for _, r in ipairs(rows) do
      local job = r[2]
      local ok, err = pcall(job.manifest, job, { name = "j", image = IMAGE, target = "operator" })
      assert.is_true(ok, err)
    end
  end)
end)

---------------------------------------------------------------------------
-- Warnings: through job:check / job:lint{target=} once they read the rows.
---------------------------------------------------------------------------
describe("target warnings (rule rows)", function()
  -- job:check and target-aware lint come with 19a's merge; until then pending
  local function check_of(job)
    local ok, f = pcall(function() return job.check end)
    return ok and f or nil
  end
  local function lint(job, target)
    local ok, ws = pcall(job.lint, job, { target = target })
    return ok and ws or nil
  end
  local function has(ws, path, rule)
    for _, w in ipairs(ws or {}) do
      if w.path == path and (w.rule == nil or rule == nil or w.rule == rule) then return true end
    end
    return false
  end

  it("R11 slots > 1: a warning for flyte and flyte2, none for mpi-operator", function()
    local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 4 }
    if not check_of(job) then return pending("job:check / lint{target=} arrive with 19a") end
    assert.is_true(has(lint(job, "flyte"), "slots", "R11"))
    assert.is_true(has(lint(job, "flyte2"), "slots", "R11"))
    assert.is_false(has(lint(job, "mpi-operator"), "slots", "R11"))
    assert.is_true(job:check{ target = "mpi-operator" })
  end)

  it("R19/R20 on Trainer: warnings, and check still accepts", function()
    local job = kfjob.Elastic{ nnodes = 2, max_restarts = 3, run_policy = { backoff_limit = 2 } }
    if not check_of(job) then return pending("job:check arrives with 19a") end
    assert.is_true(job:check{ target = "trainer-2.3" })
    local ws = lint(job, "trainer-2.3")
    assert.is_true(has(ws, "max_restarts", "R19"))
    assert.is_true(has(ws, "run_policy.backoff_limit", "R20"))
  end)

  it("R21, R13 on Trainer: errors in check with rule and source", function()
    local job = kfjob.PyTorchJob{ master = { image = "a" }, worker = { replicas = 1, restart_policy = "always" } }
    if not check_of(job) then return pending("job:check arrives with 19a") end
    local ok, ps = job:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    local rules = {}
    for _, p in ipairs(ps) do rules[p.rule] = p end
    assert.equal("worker.restart_policy", rules.R13.path)
    assert.is_truthy(rules.R13.source:find("trainjob_types.go", 1, true))
    assert.equal("worker.image", rules.R21.path)
  end)
end)

describe("schema/targets.json", function()
  it("is what scripts/targetschema.py extracts from ../shared/crds today", function()
    local crds = here .. "/../../shared/crds"
    if not sh_ok("test -d " .. q(crds)) then
      return pending("../shared missing: schema/targets.json not compared (" .. crds .. ")")
    end
    if not sh_ok("/usr/bin/python3 -c 'import yaml'") then
      return pending("python3 cannot import yaml: schema/targets.json not compared")
    end
    local p = assert(io.popen("/usr/bin/python3 " .. q(here .. "/../scripts/targetschema.py")
                              .. " extract " .. q(crds) .. " 2>&1"))
    local fresh = p:read("*a")
    p:close()
    local f = assert(io.open(here .. "/../schema/targets.json", "rb"))
    local kept = f:read("*a")
    f:close()
    assert.equal(kept, fresh)
  end)
end)

describe("names per target", function()
  local name = ("n"):rep(60)
  local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
  it("Trainer takes a name up to 63 characters (its pods are JobSet's, R15 is a warning)", function()
    assert.equal(name, job:manifest{ name = name, image = IMAGE, target = "trainer-2.3" }.metadata.name)
    assert.equal("kfjob.PyTorchJob: opts.name: too long: 64 characters (a TrainJob's name has at most 63)"
                 .. " (target trainer-2.2)",
                 error_of(job.manifest, job, { name = ("n"):rep(64), image = IMAGE, target = "trainer-2.2" }))
  end)
  it("the operator and the mpi-operator need room for <name>-worker-<i>", function()
    assert.matches("opts.name: too long for this job: pod name '" .. name .. "-master-0' has 69",
                   error_of(job.manifest, job, { name = name, image = IMAGE }), 1, true)
    local mpi = kfjob.MPIJob{ worker = { replicas = 1 } }
    assert.matches("opts.name: too long for this job",
                   error_of(mpi.manifest, mpi, { name = name, image = IMAGE, target = "mpi-operator" }), 1, true)
  end)
end)

-- Issue 32: a run-policy 0 is what the user set; on the targets whose
-- manifests go straight to the API server it is written (batch Job
-- semantics: backoffLimit 0 means no retry, left out the operator's
-- default applies), while Flyte's targets leave it out as Flyte's
-- ParseRunPolicy does (proto3 cannot carry a 0), and lint says so there only.
describe("run-policy zeros (issue 32)", function()
  local RP0 = { backoff_limit = 0, active_deadline_seconds = 0, ttl_seconds_after_finished = 0 }
  local function rp(kind, t, target)
    local j = kfjob[kind](t)
    return j:manifest{ target = target, name = "n", image = "i" }.spec.runPolicy, j
  end
  it("keeps the zeros on operator and mpi-operator", function()
    local want = { cleanPodPolicy = "None", backoffLimit = 0, activeDeadlineSeconds = 0, ttlSecondsAfterFinished = 0 }
    assert.are.same(want, (rp("PyTorchJob", { worker = { replicas = 1 }, run_policy = RP0 }, "operator")))
    assert.are.same(want, (rp("TFJob", { worker = { replicas = 1 }, run_policy = RP0 }, "operator")))
    assert.are.same(want, (rp("MPIJob", { worker = { replicas = 1 }, run_policy = RP0 }, "mpi-operator")))
  end)
  it("leaves them out on Flyte's targets, and lint warns there only", function()
    local got, j = rp("PyTorchJob", { worker = { replicas = 1 }, run_policy = RP0 }, "flyte")
    assert.are.same({ cleanPodPolicy = "None" }, got)
    local function paths(ws) local t = {} for _, w in ipairs(ws) do t[#t + 1] = w.path end return t end
    assert.is_true(#paths(j:lint{ target = "flyte" }) >= 3)
    for _, p in ipairs(paths(j:lint{ target = "operator" })) do
      assert.is_nil(p:match("^run_policy%."), p)
    end
  end)
end)
