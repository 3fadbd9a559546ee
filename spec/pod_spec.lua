-- Pod settings (SPEC §2.4): pod_template, shared_memory, accelerator and
-- task requests/limits as job fields, their error catalogue (exact message
-- and path per row), and their read-back through decode_task_template.
-- Bytes and JSON of the TaskTemplate are pinned by spec/conformance/cases.lua.
local kfjob = require "kfjob"
local util = require "util"

local function pt(spec, extra)
  local t = { worker = { replicas = 1 }, pod_template = { spec = spec } }
  for k, v in pairs(extra or {}) do t[k] = v end
  return t
end
local function job(t) return function() return kfjob.TFJob(t) end end
local W = "kfjob.TFJob: "
local P = W .. "pod_template."
local QTY = ' (expected e.g. "500m", "4Gi", "2")'
local PRIMARY = "not allowed on the primary container 'primary' (the replica groups and the task set it)"

local rows = {
  -- pod_template: shape, unknown keys, did-you-mean
  { "template not a table", job{ worker = { replicas = 1 }, pod_template = "x" },
    W .. "pod_template: expected a table with named fields, got a string" },
  { "template a list", job{ worker = { replicas = 1 }, pod_template = { 1 } },
    W .. "pod_template: expected a table with named fields, got a list" },
  { "unknown top key", job{ worker = { replicas = 1 }, pod_template = { spex = {} } },
    P .. "spex: unknown field (did you mean 'spec'?)" },
  { "unknown top key far", job{ worker = { replicas = 1 }, pod_template = { zzzzzzzz = 1 } },
    P .. "zzzzzzzz: unknown field" },
  { "metadata typo", job{ worker = { replicas = 1 }, pod_template = { metadata = { label = {} } } },
    P .. "metadata.label: unknown field (did you mean 'labels'?)" },
  { "label value number", job{ worker = { replicas = 1 }, pod_template = { metadata = { labels = { a = 1 } } } },
    P .. "metadata.labels.a: expected a string, got a number" },
  { "toleration typo", job(pt{ tolerations = { { efect = "NoSchedule" } } }),
    P .. "spec.tolerations[1].efect: unknown field (did you mean 'effect'?)" },
  { "toleration effect enum", job(pt{ tolerations = { { effect = "NoRun" } } }),
    P .. "spec.tolerations[1].effect: unknown value 'NoRun' (expected 'NoSchedule', 'PreferNoSchedule' or 'NoExecute')" },
  { "toleration operator enum", job(pt{ tolerations = { { operator = "In" } } }),
    P .. "spec.tolerations[1].operator: unknown value 'In' (expected 'Exists' or 'Equal')" },
  { "tolerations not a list", job(pt{ tolerations = { key = "a" } }),
    P .. "spec.tolerations: expected a list, got a table with named fields" },
  { "tolerationSeconds float", job(pt{ tolerations = { { tolerationSeconds = 1.5 } } }),
    P .. "spec.tolerations[1].tolerationSeconds: expected an integer, got 1.5" },
  { "nodeSelector value", job(pt{ nodeSelector = { pool = true } }),
    P .. "spec.nodeSelector.pool: expected a string, got a boolean" },
  { "dnsPolicy enum", job(pt{ dnsPolicy = "Cluster" }),
    P .. "spec.dnsPolicy: unknown value 'Cluster' (expected 'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None')" },
  { "restartPolicy enum", job(pt{ restartPolicy = "Sometimes" }),
    P .. "spec.restartPolicy: unknown value 'Sometimes' (expected 'Always', 'OnFailure' or 'Never')" },
  { "imagePullPolicy enum", job(pt{ containers = { { name = "side", imagePullPolicy = "Sometimes" } } }),
    P .. "spec.containers[1].imagePullPolicy: unknown value 'Sometimes' (expected 'Always', 'Never' or 'IfNotPresent')" },
  { "initContainer imagePullPolicy", job(pt{ initContainers = { { name = "i", imagePullPolicy = "x" } } }),
    P .. "spec.initContainers[1].imagePullPolicy: unknown value 'x' (expected 'Always', 'Never' or 'IfNotPresent')" },
  { "emptyDir medium", job(pt{ volumes = { { name = "v", emptyDir = { medium = "Disk" } } } }),
    P .. "spec.volumes[1].emptyDir.medium: unknown value 'Disk' (expected '', 'Memory', 'HugePages', 'HugePages-2Mi' or 'HugePages-1Gi')" },
  { "emptyDir sizeLimit quantity", job(pt{ volumes = { { name = "v", emptyDir = { sizeLimit = "lots" } } } }),
    P .. "spec.volumes[1].emptyDir.sizeLimit: invalid quantity 'lots'" .. QTY },
  { "volume name required", job(pt{ volumes = { { emptyDir = {} } } }),
    P .. "spec.volumes[1].name: required" },
  { "volume typo", job(pt{ volumes = { { name = "v", emptyDri = {} } } }),
    P .. "spec.volumes[1].emptyDri: unknown field (did you mean 'emptyDir'?)" },
  { "duplicate volume", job(pt{ volumes = { { name = "v", emptyDir = {} }, { name = "v", emptyDir = {} } } }),
    P .. "spec.volumes[2].name: duplicate (the same as item [1])" },
  { "container name required", job(pt{ containers = { { image = "x" } } }),
    P .. "spec.containers[1].name: required" },
  { "duplicate container", job(pt{ containers = { { name = "a" }, { name = "a" } } }),
    P .. "spec.containers[2].name: duplicate (the same as item [1])" },
  { "two primaries", job(pt{ containers = { { name = "primary" }, { name = "primary" } } }),
    P .. "spec.containers[2].name: duplicate (the same as item [1])" },
  { "primary image", job(pt{ containers = { { name = "primary", image = "x" } } }),
    P .. "spec.containers[1].image: " .. PRIMARY },
  { "primary command", job(pt{ containers = { { name = "side" }, { name = "primary", command = { "sh" } } } }),
    P .. "spec.containers[2].command: " .. PRIMARY },
  { "primary args", job(pt{ containers = { { name = "primary", args = { "a" } } } }),
    P .. "spec.containers[1].args: " .. PRIMARY },
  { "primary resources", job(pt{ containers = { { name = "primary", resources = { limits = { cpu = 1 } } } } }),
    P .. "spec.containers[1].resources: " .. PRIMARY },
  { "named primary image", job{ worker = { replicas = 1 }, pod_template = { primary_container_name = "main",
      spec = { containers = { { name = "main", image = "x" } } } } },
    P .. "spec.containers[1].image: not allowed on the primary container 'main' (the replica groups and the task set it)" },
  { "primary name type", job{ worker = { replicas = 1 }, pod_template = { primary_container_name = 1 } },
    P .. "primary_container_name: expected a string, got a number" },
  { "primary name invalid", job{ worker = { replicas = 1 }, pod_template = { primary_container_name = "Main_1" } },
    P .. "primary_container_name: invalid container name 'Main_1' (expected a DNS-1123 label: lowercase letters, digits and '-', at most 63)" },
  { "sidecar resource quantity", job(pt{ containers = { { name = "s", resources = { limits = { cpu = "1 core" } } } } }),
    P .. "spec.containers[1].resources.limits.cpu: invalid quantity '1 core'" .. QTY },
  { "sidecar resources float", job(pt{ containers = { { name = "s", resources = { limits = { cpu = 0.5 } } } } }),
    P .. "spec.containers[1].resources.limits.cpu: expected an integer, got 0.5" },
  { "env name required", job(pt{ containers = { { name = "s", env = { { value = "x" } } } } }),
    P .. "spec.containers[1].env[1].name: required" },
  { "env value type", job(pt{ containers = { { name = "s", env = { { name = "A", value = 1 } } } } }),
    P .. "spec.containers[1].env[1].value: expected a string, got a number" },
  { "port int32", job(pt{ containers = { { name = "s", ports = { { containerPort = 2 ^ 40 } } } } }),
    P .. "spec.containers[1].ports[1].containerPort: integer out of int32 range (1099511627776)" },
  -- (2^53 + 1 needs 64-bit integers: on Lua 5.1/5.2/LuaJIT numbers are
  -- doubles and cannot hold it; the row becomes a plain int check there)
  util.int_subtype and
  { "int64 beyond a Struct's doubles", job(pt{ securityContext = { fsGroup = tonumber("9007199254740993") } }),
    P .. "spec.securityContext.fsGroup: integer out of range (9007199254740993): the TaskTemplate "
      .. "carries the pod spec as a google.protobuf.Struct, exact to 2^53 only" } or
  { "fsGroup not an integer", job(pt{ securityContext = { fsGroup = 1.5 } }),
    P .. "spec.securityContext.fsGroup: expected an integer, got 1.5" },
  { "map key not UTF-8", job(pt{ nodeSelector = { ["\255"] = "x" } }),
    P .. "spec.nodeSelector: a key is not valid UTF-8" },
  { "hostNetwork type", job(pt{ hostNetwork = "yes" }),
    P .. "spec.hostNetwork: expected a boolean, got a string" },
  { "securityContext typo", job(pt{ securityContext = { runAsUsr = 1 } }),
    P .. "spec.securityContext.runAsUsr: unknown field (did you mean 'runAsUser'?)" },
  { "affinity deep typo", job(pt{ affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution =
      { nodeSelectorTerms = { { matchExpressions = { { key = "k", operator = "In", valuez = { "a" } } } } } } } } }),
    P .. "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[1].valuez: unknown field (did you mean 'values'?)" },
  { "string with NUL", job(pt{ schedulerName = "a\0b" }),
    P .. "spec.schedulerName: string contains a NUL byte" },
  -- shared_memory
  { "shared_memory bad quantity", job{ worker = { replicas = 1 }, shared_memory = "lots" },
    W .. "shared_memory: invalid quantity 'lots'" .. QTY },
  { "shared_memory table", job{ worker = { replicas = 1 }, shared_memory = {} },
    W .. "shared_memory: expected true or a quantity, got a table with named fields" },
  { "shared_memory negative", job{ worker = { replicas = 1 }, shared_memory = -1 },
    W .. "shared_memory: must not be negative" },
  { "shared_memory vs /dev/shm mount", job(pt({ volumes = { { name = "shm", emptyDir = {} } },
      containers = { { name = "primary",
      volumeMounts = { { name = "shm", mountPath = "/dev/shm" } } } } }, { shared_memory = true })),
    W .. "shared_memory: conflicts with pod_template.spec.containers[1].volumeMounts[1] (a mount at /dev/shm)" },
  { "shared_memory vs volume name", job(pt({ volumes = { { name = "flyte-shared-memory", emptyDir = {} } } },
      { shared_memory = "1Gi" })),
    W .. "shared_memory: conflicts with pod_template.spec.volumes[1] (a volume named flyte-shared-memory)" },
  -- accelerator
  { "accelerator number", job{ worker = { replicas = 1 }, accelerator = 1 },
    W .. "accelerator: expected a device name or a table, got number" },
  { "accelerator empty name", job{ worker = { replicas = 1 }, accelerator = "" },
    W .. "accelerator: must not be empty" },
  { "accelerator no device", job{ worker = { replicas = 1 }, accelerator = { partition_size = "1g.5gb" } },
    W .. "accelerator.device: required" },
  { "accelerator typo", job{ worker = { replicas = 1 }, accelerator = { device = "a", partition_sise = "1g" } },
    W .. "accelerator.partition_sise: unknown field (did you mean 'partition_size'?)" },
  { "accelerator both partitions", job{ worker = { replicas = 1 },
      accelerator = { device = "a", partition_size = "1g.5gb", unpartitioned = true } },
    W .. "accelerator: partition_size and unpartitioned = true cannot be combined" },
  { "accelerator unpartitioned type", job{ worker = { replicas = 1 }, accelerator = { device = "a", unpartitioned = 1 } },
    W .. "accelerator.unpartitioned: expected a boolean, got number" },
  -- task resources
  { "task requests quantity", job{ worker = { replicas = 1 }, requests = { cpu = "2 cores" } },
    W .. "requests.cpu: invalid quantity '2 cores'" .. QTY },
  { "task limits typo", job{ worker = { replicas = 1 }, limits = { gpus = 1 } },
    W .. "limits.gpus: unknown field (did you mean 'gpu'?)" },
  { "task requests alias twice", job{ worker = { replicas = 1 }, requests = { mem = "1Gi", memory = "1Gi" } },
    W .. "requests: both 'mem' and 'memory' given (they are aliases)" },
}

describe("pod settings: error catalogue", function()
  for _, r in ipairs(rows) do
    it(r[1], function() assert.are.equal(r[3], util.error_of(r[2])) end)
  end
  it("has at least 40 rows", function() assert.is_true(#rows >= 40) end)
end)

describe("pod settings: values", function()
  local base = { worker = { replicas = 2 } }
  local function with(t) local c = {}; for k, v in pairs(base) do c[k] = v end; for k, v in pairs(t) do c[k] = v end; return c end

  it("read back resolved and canonical", function()
    local j = kfjob.PyTorchJob(with{ shared_memory = true, accelerator = "nvidia-l4", requests = { cpu = 2, memory = "1Gi" },
      pod_template = { spec = { securityContext = { runAsUser = 1000.0 }, volumes = { { name = "d", emptyDir = {} } } } } })
    assert.are.equal(true, j.shared_memory)
    assert.are.same({ device = "nvidia-l4", unpartitioned = false }, j.accelerator)
    assert.are.same({ cpu = "2", mem = "1Gi" }, j.requests)
    if util.int_subtype then   -- (Lua 5.3+: integral floats are stored as integers)
      assert.are.equal("integer", math.type(j.pod_template.spec.securityContext.runAsUser))
    end
    assert.are.same({}, j.pod_template.spec.volumes[1].emptyDir)
    assert.is_true(kfjob.PyTorchJob(j:spec()) == j)
  end)

  it("UTF-8 after whole words of ASCII is kept (the checker's ASCII fast path)", function()
    for _, v in ipairs{ "abcdefgh\195\169", "abcdefghijklmnop\226\130\172x", "abcdefg\240\157\132\158abcdefgh" } do
      local j = kfjob.PyTorchJob(with{ pod_template = { metadata = { annotations = { a = v } } } })
      assert.are.equal(v, j.pod_template.metadata.annotations.a)
    end
  end)

  it("shared_memory = false is unset", function()
    assert.is_true(kfjob.PyTorchJob(with{ shared_memory = false }) == kfjob.PyTorchJob(base))
    assert.is_nil(kfjob.PyTorchJob(with{ shared_memory = false }):spec().shared_memory)
  end)

  it("compares the template by content, not key order", function()
    local a = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { spec = { nodeSelector = { a = "1", b = "2" } } } }
    local b = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { spec = { nodeSelector = { b = "2", a = "1" } } } }
    local c = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { spec = { nodeSelector = { a = "1" } } } }
    assert.is_true(a == b)
    assert.is_false(a == c)
  end)

  it("with() merges into the template and leaves the original alone", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { metadata = { labels = { a = "1" } } } }
    local k = j:with{ ["pod_template.metadata.labels.b"] = "2" }
    local l = j:with{ pod_template = { metadata = { labels = { a = "3" } } } }
    assert.are.same({ a = "1", b = "2" }, k.pod_template.metadata.labels)
    assert.are.same({ a = "3" }, l.pod_template.metadata.labels)
    assert.are.same({ a = "1" }, j.pod_template.metadata.labels)
    assert.are.equal(P .. "spec.hostPID: expected a boolean, got a string",
                     util.error_of(j.with, j, { ["pod_template.spec.hostPID"] = "yes" }))
  end)

  it("plugin bytes do not change", function()
    local plain = kfjob.PyTorchJob(base)
    local full = kfjob.PyTorchJob(with{ shared_memory = "1Gi", accelerator = "a", requests = { cpu = 1 },
                                        pod_template = { metadata = { labels = { a = "b" } } } })
    assert.are.equal(plain:encode(), full:encode())
    assert.are.equal(plain:to_json(), full:to_json())
    assert.are.same(plain:versions(), full:versions())
  end)
end)

describe("pod settings: decode_task_template", function()
  local opts = { container = { image = "img:1", args = { "train" }, env = { A = "1" } } }
  local jobs = {
    kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = true, accelerator = { device = "a100", partition_size = "1g.5gb" },
      requests = { cpu = 2, mem = "4Gi" }, limits = { gpu = 1 },
      pod_template = { primary_container_name = "main", metadata = { labels = { a = "b" }, annotations = { c = "d" } },
        spec = { containers = { { name = "main", volumeMounts = { { name = "d", mountPath = "/d" } } }, { name = "side", image = "x" } },
          volumes = { { name = "d", emptyDir = {} } }, securityContext = { runAsUser = 1000 } } } },
    kfjob.TFJob{ worker = { replicas = 1 }, requests = { cpu = 1, ephemeral_storage = "1Gi" }, shared_memory = "2Gi" },
    kfjob.MPIJob{ worker = { replicas = 2 }, accelerator = { device = "a100", unpartitioned = true }, pod_template = {} },
    kfjob.Elastic{ nnodes = "1:2", pod_template = { spec = { hostIPC = true } }, limits = { mem = "1Gi" } },
  }
  for i, j in ipairs(jobs) do
    it("reads back an equal job (" .. i .. ")", function()
      for _, fmt in ipairs({ "pb", "json" }) do
        local o = { container = opts.container, format = fmt == "json" and "json" or nil }
        local back, info = kfjob.decode_task_template(j:task_template(o), { kind = j.kind == "Elastic" and "PyTorchJob" or nil })
        assert(back, info)
        assert.is_true(back == j:with{ container = opts.container }, fmt)   -- the template's container
        assert.are.equal("img:1", info.container.image)
        assert.are.same({ A = "1" }, info.container.env)
        assert.are.same({ "train" }, info.container.args)
      end
    end)
  end

  it("gives a template's primary env to info.container.env", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 },
      pod_template = { spec = { containers = { { name = "primary", env = { { name = "B", value = "2" } } } } } } }
    local back, info = kfjob.decode_task_template(j:task_template(opts))
    assert.are.same({ A = "1", B = "2" }, info.container.env)
    assert.are.same({ A = "1", B = "2" }, back.container.env)   -- the job's too, every entry
    assert.is_nil(back.pod_template.spec)
  end)

  -- a valid template's JSON, edited, and the message decoding gives
  local bad = {
    { "needs config.primary_container_name for a k8s_pod target", {},
      '"config":{"primary_container_name":"primary"},', "",
      "config.primary_container_name: missing (a k8s_pod target needs it)" },
    { "checks the pod spec it reads", { hostIPC = true }, '"hostIPC":true', '"hostIPC":"yes"',
      "k8s_pod.spec.hostIPC: expected a boolean, got a string" },
  }
  it("checks the accelerator it reads as the constructor would", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 }, accelerator = { device = "a100", partition_size = "1g" } }
    local t = j:task_template{ format = "json" }
    local cases = {
      { '"device":"a100"', '"device":"a 100"', "device: must not contain whitespace" },
      { '"partitionSize":"1g"', '"partitionSize":""', "partitionSize: must not be empty" },
    }
    for _, c in ipairs(cases) do
      local edited = t:gsub(c[1], c[2])
      assert.are_not.equal(t, edited)
      local back, err = kfjob.decode_task_template(edited)
      assert.is_nil(back)
      assert.are.equal("kfjob.decode_task_template: extendedResources.gpuAccelerator." .. c[3], err)
    end
  end)

  for _, b in ipairs(bad) do
    it(b[1], function()
      local j = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = { spec = b[2] } }
      local t = j:task_template{ format = "json" }:gsub(b[3], b[4])
      local back, err = kfjob.decode_task_template(t)
      assert.is_nil(back)
      assert.are.equal("kfjob.decode_task_template: " .. b[5], err)
    end)
  end

  it("refuses a second primary_container_name in opts.config", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 }, pod_template = {} }
    assert.are.equal("kfjob.task_template: opts.config.primary_container_name: set by the job's pod_template; give only one",
      util.error_of(j.task_template, j, { config = { primary_container_name = "x" } }))
  end)
end)
