-- Pod settings in manifests (SPEC §2.4, FACTS §3.2-§3.4): the pod template
-- merged into every replica's pod, the primary container renamed and merged
-- with the group's, shared memory, the accelerator's node affinity and
-- toleration, task resources for groups without their own, conflicts.
-- Every manifest built here goes through tools/validate-manifest (and
-- ../shared's where it exists; strict, operator rules on) in one batch;
-- without python3-yaml/jsonschema that spec is pending with the reason.
local kfjob = require "kfjob"
local util = require "util"


local IMAGE = "registry.example/train:v1"
local ACCEL = "k8s.amazonaws.com/accelerator"
local PART = "k8s.amazonaws.com/gpu-partition-size"

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Every manifest the specs below build, for the batch at the end.
local built = {}
local function manifest(job, opts)
  local o = { name = "pod-" .. (#built + 1), image = IMAGE }
  for k, v in pairs(opts or {}) do o[k] = v end
  local m = job:manifest(o)
  o.format = "json"
  built[#built + 1] = job:manifest(o)
  o.format, o.name = "yaml", o.name .. "-y"
  built[#built + 1] = job:manifest(o)
  return m
end

local function specs(m)
  return m.spec.tfReplicaSpecs or m.spec.pytorchReplicaSpecs or m.spec.mpiReplicaSpecs
end
local function pod(m, group) return specs(m)[group].template.spec end

local A100 = {
  worker = { replicas = 4, limits = { gpu = 8 } },
  master = { limits = { gpu = 8 } },
  shared_memory = true,
  accelerator = "nvidia-tesla-a100",
  pod_template = {
    metadata = { labels = { team = "nlp" }, annotations = { ["example.com/owner"] = "ml" } },
    spec = {
      tolerations = { { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } },
      nodeSelector = { ["node.kubernetes.io/instance-type"] = "p4d.24xlarge" },
      volumes = { { name = "data", persistentVolumeClaim = { claimName = "imagenet", readOnly = true } } },
      securityContext = { runAsUser = 1000, fsGroup = 1000 },
      priorityClassName = "training",
      containers = {
        { name = "primary", env = { { name = "DATA", value = "/data" } },
          volumeMounts = { { name = "data", mountPath = "/data", readOnly = true } } },
        { name = "metrics", image = "prom/statsd-exporter:v0.26.0" },
      },
    },
  },
}

describe("manifest with pod settings", function()
  local m = manifest(kfjob.PyTorchJob(A100), { env = { B = "2" }, args = { "train.py" },
                                              labels = { team = "override", run = "r1" } })

  it("labels and annotations: the template's under the execution's (opts win)", function()
    for _, g in ipairs{ "Master", "Worker" } do
      assert.same({ labels = { team = "override", run = "r1" }, annotations = { ["example.com/owner"] = "ml" } },
                  specs(m)[g].template.metadata)
    end
    -- the resource's own metadata carries only the execution's
    assert.same({ name = m.metadata.name, labels = { team = "override", run = "r1" } }, m.metadata)
  end)

  it("primary container renamed, merged with the group's; sidecars kept as given", function()
    for _, g in ipairs{ "Master", "Worker" } do
      local p = pod(m, g)
      assert.equal(2, #p.containers)
      assert.same({ name = "pytorch", image = IMAGE, args = { "train.py" },
        env = { { name = "B", value = "2" }, { name = "DATA", value = "/data" } },
        resources = { limits = { ["nvidia.com/gpu"] = "8" }, requests = { ["nvidia.com/gpu"] = "8" } },
        volumeMounts = { { name = "data", mountPath = "/data", readOnly = true },
                         { name = "flyte-shared-memory", mountPath = "/dev/shm" } } }, p.containers[1])
      assert.same({ name = "metrics", image = "prom/statsd-exporter:v0.26.0" }, p.containers[2])
    end
  end)

  it("volumes: the template's, then flyte-shared-memory (no sizeLimit for true)", function()
    assert.same({ { name = "data", persistentVolumeClaim = { claimName = "imagenet", readOnly = true } },
                  { name = "flyte-shared-memory", emptyDir = { medium = "Memory" } } }, pod(m, "Worker").volumes)
  end)

  it("the rest of the pod spec is the template's", function()
    local p = pod(m, "Master")
    assert.same({ runAsUser = 1000, fsGroup = 1000 }, p.securityContext)
    assert.equal("training", p.priorityClassName)
    assert.same({ ["node.kubernetes.io/instance-type"] = "p4d.24xlarge" }, p.nodeSelector)
    assert.equal("Never", p.restartPolicy)
  end)

  it("accelerator: node affinity and toleration after the template's", function()
    local p = pod(m, "Worker")
    assert.same({ { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" },
                  { key = ACCEL, operator = "Equal", value = "nvidia-tesla-a100", effect = "NoSchedule" } },
                p.tolerations)
    assert.same({ nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = {
      { matchExpressions = { { key = ACCEL, operator = "In", values = { "nvidia-tesla-a100" } } } } } } } },
      p.affinity)
  end)

  it("the job's template is not changed by building manifests", function()
    local j = kfjob.PyTorchJob(A100)
    local before = j.pod_template
    manifest(j)
    manifest(j)
    assert.same(before, j.pod_template)
    assert.equal(1, #j.pod_template.spec.volumes)
    assert.equal(1, #j.pod_template.spec.tolerations)
  end)

  it("keys in Go struct order (volumes, containers, restartPolicy, ...)", function()
    local js = kfjob.PyTorchJob(A100):manifest{ name = "o", image = "i", format = "json" }
    local spec = js:match('"Worker":.-"spec":(%b{})')
    assert.matches('^{"volumes":', spec)
    assert.matches('"restartPolicy":"Never","nodeSelector":.-"securityContext":.-"affinity":.-"tolerations":', spec)
    assert.matches('"containers":%[{"name":"pytorch","image":"i","env":.-"resources":.-"volumeMounts":', spec)
  end)
end)

describe("manifest pod settings, one at a time", function()
  it("shared memory alone: volume with sizeLimit and mount on the default container", function()
    local m = manifest(kfjob.Elastic{ nnodes = 2, shared_memory = "16Gi" })
    local p = pod(m, "Worker")
    assert.same({ { name = "flyte-shared-memory", emptyDir = { medium = "Memory", sizeLimit = "16Gi" } } }, p.volumes)
    assert.same({ { name = "flyte-shared-memory", mountPath = "/dev/shm" } }, p.containers[1].volumeMounts)
  end)

  it("a template without containers: the primary is the default container", function()
    local m = manifest(kfjob.TFJob{ worker = { replicas = 2 },
      pod_template = { spec = { schedulerName = "volcano", serviceAccountName = "tmpl-sa" } } })
    local p = pod(m, "Worker")
    assert.same({ { name = "tensorflow", image = IMAGE, resources = {} } }, p.containers)
    assert.equal("volcano", p.schedulerName)
    assert.equal("tmpl-sa", p.serviceAccountName)
  end)

  it("opts.service_account wins over the template's", function()
    local m = manifest(kfjob.TFJob{ worker = { replicas = 1 },
      pod_template = { spec = { serviceAccountName = "tmpl-sa" } } }, { service_account = "exec-sa" })
    assert.equal("exec-sa", pod(m, "Worker").serviceAccountName)
  end)

  it("a named primary container keeps its place among the sidecars", function()
    local m = manifest(kfjob.MPIJob{ worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } },
      pod_template = { primary_container_name = "main", spec = { containers = {
        { name = "proxy", image = "envoy:1" }, { name = "main", workingDir = "/work" } } } } },
      { args = { "python", "train.py" } })
    for _, g in ipairs{ "Launcher", "Worker" } do
      local cs = pod(m, g).containers
      assert.equal("proxy", cs[1].name)
      assert.equal("mpi", cs[2].name)
      assert.equal("/work", cs[2].workingDir)
    end
    assert.same({ "/usr/sbin/sshd", "-De" }, pod(m, "Worker").containers[2].args)
    assert.equal("mpirun", pod(m, "Launcher").containers[2].args[1])
  end)

  it("accelerator only on pods whose containers limit GPUs", function()
    local m = manifest(kfjob.TFJob{ chief = { replicas = 1 }, worker = { replicas = 2, limits = { gpu = 1 } },
                                    accelerator = "nvidia-l4" })
    assert.is_nil(pod(m, "Chief").affinity)
    assert.is_nil(pod(m, "Chief").tolerations)
    assert.same({ { key = ACCEL, operator = "Equal", value = "nvidia-l4", effect = "NoSchedule" } },
                pod(m, "Worker").tolerations)
  end)

  it("a GPU request alone counts (its limit is set equal)", function()
    local m = manifest(kfjob.TFJob{ worker = { replicas = 1, requests = { gpu = 1 } }, accelerator = "nvidia-l4" })
    assert.is_not_nil(pod(m, "Worker").affinity)
  end)

  it("partition size: a second requirement and toleration", function()
    local m = manifest(kfjob.TFJob{ worker = { replicas = 1, limits = { gpu = 1 } },
                                    accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" } })
    local p = pod(m, "Worker")
    assert.same({ { key = ACCEL, operator = "In", values = { "nvidia-tesla-a100" } },
                  { key = PART, operator = "In", values = { "1g.5gb" } } },
                p.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions)
    assert.same({ key = PART, operator = "Equal", value = "1g.5gb", effect = "NoSchedule" }, p.tolerations[2])
  end)

  it("unpartitioned: DoesNotExist, no partition toleration", function()
    local m = manifest(kfjob.TFJob{ worker = { replicas = 1, limits = { gpu = 1 } },
                                    accelerator = { device = "nvidia-tesla-a100", unpartitioned = true } })
    local p = pod(m, "Worker")
    assert.same({ key = PART, operator = "DoesNotExist" },
                p.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[2])
    assert.equal(1, #p.tolerations)
  end)

  it("the template's node selector terms each get the requirement", function()
    local aff = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = {
      { matchExpressions = { { key = "zone", operator = "In", values = { "a" } } } },
      { matchFields = { { key = "metadata.name", operator = "In", values = { "n1" } } } } } } },
      podAntiAffinity = { preferredDuringSchedulingIgnoredDuringExecution = {} } }
    local m = manifest(kfjob.TFJob{ worker = { replicas = 1, limits = { gpu = 1 } }, accelerator = "nvidia-l4",
                                    pod_template = { spec = { affinity = aff } } })
    local terms = pod(m, "Worker").affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    local nsr = { key = ACCEL, operator = "In", values = { "nvidia-l4" } }
    assert.same({ { key = "zone", operator = "In", values = { "a" } }, nsr }, terms[1].matchExpressions)
    assert.same({ nsr }, terms[2].matchExpressions)
    assert.same({ { key = "metadata.name", operator = "In", values = { "n1" } } }, terms[2].matchFields)
  end)

  it("task resources: groups without their own take them; others keep cpu/memory their own", function()
    local m = manifest(kfjob.TFJob{
      chief = { replicas = 1 },
      worker = { replicas = 2, requests = { cpu = 4 } },
      requests = { cpu = 8, mem = "32Gi", ephemeral_storage = "50Gi" }, limits = { gpu = 2 } })
    assert.same({ limits = { ["nvidia.com/gpu"] = "2" },
                  requests = { cpu = "8", ["ephemeral-storage"] = "50Gi", memory = "32Gi", ["nvidia.com/gpu"] = "2" } },
                pod(m, "Chief").containers[1].resources)
    -- FACTS §3.4: cpu/memory only from the group; GPU and ephemeral storage kept from the task
    assert.same({ limits = { ["nvidia.com/gpu"] = "2" },
                  requests = { cpu = "4", ["ephemeral-storage"] = "50Gi", ["nvidia.com/gpu"] = "2" } },
                pod(m, "Worker").containers[1].resources)
  end)

  it("a group's own GPU wins over the task's", function()
    local m = manifest(kfjob.PyTorchJob{ worker = { replicas = 1, limits = { gpu = 4 } }, limits = { gpu = 1 } })
    assert.same({ ["nvidia.com/gpu"] = "4" }, pod(m, "Worker").containers[1].resources.limits)
    assert.same({ ["nvidia.com/gpu"] = "1" }, pod(m, "Master").containers[1].resources.limits)
  end)

  it("jobs without pod settings are unchanged (no volumes, affinity or tolerations)", function()
    local m = kfjob.TFJob{ worker = { replicas = 1 } }:manifest{ name = "p", image = "i" }
    assert.same({ containers = { { name = "tensorflow", image = "i", resources = {} } }, restartPolicy = "Never" },
                pod(m, "Worker"))
  end)
end)

describe("manifest pod-setting conflicts", function()
  local E = util.error_of
  it("a sidecar named like the default container", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 },
      pod_template = { spec = { containers = { { name = "primary" }, { name = "pytorch", image = "x" } } } } }
    assert.equal("kfjob.manifest: pod_template.spec.containers[2].name: 'pytorch' is the name the primary "
      .. "container 'primary' gets in a PyTorchJob (rename this container)",
      E(j.manifest, j, { name = "a", image = "i" }))
  end)
  it("shared memory and a /dev/shm mount on the primary (at construction)", function()
    assert.equal("kfjob.PyTorchJob: shared_memory: conflicts with pod_template.spec.containers[1]"
      .. ".volumeMounts[1] (a mount at /dev/shm)",
      E(kfjob.PyTorchJob, { worker = { replicas = 1 }, shared_memory = true, pod_template = { spec = {
        volumes = { { name = "shm", emptyDir = { medium = "Memory" } } },
        containers = { { name = "primary", volumeMounts = { { name = "shm", mountPath = "/dev/shm" } } } } } } }))
  end)
  it("shared memory and a volume named flyte-shared-memory (at construction)", function()
    assert.equal("kfjob.TFJob: shared_memory: conflicts with pod_template.spec.volumes[1] (a volume named "
      .. "flyte-shared-memory)",
      E(kfjob.TFJob, { worker = { replicas = 1 }, shared_memory = "1Gi", pod_template = { spec = {
        volumes = { { name = "flyte-shared-memory", emptyDir = {} } } } } }))
  end)
  it("a /dev/shm mount without shared_memory is the user's own", function()
    local m = manifest(kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = { spec = {
      volumes = { { name = "shm", emptyDir = { medium = "Memory" } } },
      containers = { { name = "primary", volumeMounts = { { name = "shm", mountPath = "/dev/shm" } } } } } } })
    assert.same({ { name = "shm", mountPath = "/dev/shm" } }, pod(m, "Worker").containers[1].volumeMounts)
  end)
  it("template labels are checked like opts.labels", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { metadata = { labels = { ["a b"] = "x" } } } }
    assert.matches("^kfjob.manifest: pod_template.metadata.labels%[\"a b\"%]: invalid label key",
      E(j.manifest, j, { name = "a", image = "i" }))
  end)
  it("task GPU requests that differ from the limits", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 }, requests = { gpu = 1 }, limits = { gpu = 2 } }
    assert.equal("kfjob.manifest: requests.gpu: 1 differs from limits.gpu 2 (Kubernetes needs GPU requests "
      .. "equal to limits)", E(j.manifest, j, { name = "a", image = "i" }))
  end)
end)

describe("manifests with pod settings pass validate-manifest", function()
  it("every manifest built above (JSON and YAML)", function()
    manifest(kfjob.HorovodJob{ worker = { replicas = 2 }, shared_memory = "2Gi", accelerator = "nvidia-l4",
      limits = { gpu = 1 }, pod_template = { metadata = { labels = { app = "hvd" } },
        spec = { initContainers = { { name = "fetch", image = "busybox:1", command = { "true" } } } } } },
      { args = { "python", "train.py" } })
    -- kfjob.manifests: a YAML stream and a JSON List of two
    local items = { { job = kfjob.PyTorchJob(A100), name = "multi-a" },
                    { job = kfjob.Elastic{ nnodes = 2, shared_memory = true }, name = "multi-b" } }
    local stream = kfjob.manifests(items, { image = IMAGE })
    -- three pods (master, worker; elastic worker), each with the volume and its mount
    assert.equal(6, select(2, stream:gsub("name: flyte%-shared%-memory\n", "")))
    built[#built + 1] = stream
    built[#built + 1] = kfjob.manifests(items, { image = IMAGE, format = "json" })
    local objects = #built - 2 + 4
    local validators, why = util.validators()
    if #validators == 0 then return pending(why) end
    local files = {}
    for i, s in ipairs(built) do
      files[i] = os.tmpname()
      local f = assert(io.open(files[i], "wb")); f:write(s); f:close()
    end
    local names = {}
    for i, f in ipairs(files) do names[i] = q(f) end
    for _, vd in ipairs(validators) do
      local p = assert(io.popen(vd.cmd .. " --strict " .. table.concat(names, " ") .. " 2>&1"))
      local out = p:read("*a")
      p:close()
      local bad = {}
      for line in out:gmatch("[^\n]+") do
        if line:find(": error: ", 1, true) or (line:find(":#%d+ ") and not line:find(": warning: ", 1, true)) then
          bad[#bad + 1] = vd.name .. ": " .. line
        end
      end
      assert.same({}, bad)
      assert.matches(objects .. " objects, 0 invalid", out, 1, true)
    end
    for _, f in ipairs(files) do os.remove(f) end
  end)
end)
