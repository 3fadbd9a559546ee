-- Hardening, round 5 (issue 44): reading never changes what runs.  Two
-- classes here: heuristics that rewrote the user's pods (a Flyte-made
-- look, kfjob's shared memory, accelerator, launcher line and a
-- TrainJob's runtime patches recognised from part of their shape) and
-- values lost in the config (run-policy zeros, env order).  Expected
-- values are Kubernetes' and the operators' meaning of what is written,
-- never kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function read(text, opts)
  local job, info = kfjob.from_manifest(text, opts)
  assert.is_truthy(job, info)
  return job, info
end

local function yaml_of(job, target)
  return job:manifest{ name = "x", target = target or "operator", format = "yaml" }
end

-- The config script to_lua wrote, run: its one job.
local function run_lua(src)
  local env = setmetatable({ require = require }, { __index = _G })
  local chunk = assert((rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(chunk, env) end
  local t = chunk()
  local _, j = next(t)
  return j
end

-- ---- class 3: values lost in the config --------------------------------

describe("run_policy values given as 0", function()
  -- training-operator v1 RunPolicy: backoffLimit 0 is no retries and
  -- ttlSecondsAfterFinished 0 deletes the job at once; unset is the
  -- operator's default (common_types.go), so 0 is not unset.
  local RP = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: rp
spec:
  runPolicy:
    backoffLimit: 0
    ttlSecondsAfterFinished: 0
    activeDeadlineSeconds: 0
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
]]
  local P = kfjob.PyTorchJob

  it("are not equal to unset under ==", function()
    local base = P{ master = { image = "x" }, run_policy = {} }
    for _, k in ipairs{ "backoff_limit", "ttl_seconds_after_finished", "active_deadline_seconds" } do
      local z = P{ master = { image = "x" }, run_policy = { [k] = 0 } }
      assert.is_false(z == base, k)
      assert.is_true(z == P{ master = { image = "x" }, run_policy = { [k] = 0 } }, k)
    end
    assert.is_false(P{ master = { image = "x" }, run_policy = { backoff_limit = 0 } } ==
                    P{ master = { image = "x" }, run_policy = { ttl_seconds_after_finished = 0 } })
  end)

  it("survive to_lua, to_config, spec() and with()", function()
    local job = read(RP)
    local rp = job:spec().run_policy
    assert.are.same({ 0, 0, 0 }, { rp.backoff_limit, rp.ttl_seconds_after_finished,
                                   rp.active_deadline_seconds })
    local src = kfjob.to_lua(job)
    for _, k in ipairs{ "backoff_limit = 0", "ttl_seconds_after_finished = 0",
                        "active_deadline_seconds = 0" } do
      assert.is_truthy(src:find(k, 1, true), k .. " in\n" .. src)
    end
    assert.is_true(run_lua(src) == job)
    local cfg = kfjob.to_config(job).jobs.job.run_policy
    assert.are.same({ backoff_limit = 0, ttl_seconds_after_finished = 0,
                      active_deadline_seconds = 0 }, cfg)
    local w = job:with{ master = { image = "y" } }
    assert.is_truthy(kfjob.to_lua(w):find("backoff_limit = 0", 1, true))
    assert.is_truthy(yaml_of(w):find("backoffLimit: 0", 1, true))
  end)

  it("render back to backoffLimit: 0 through kfjob convert -f lua|config", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, f in ipairs{ "lua", "config" } do
      local code, out, err = util.run_cli(RP, "convert", "-", "-f", f)
      assert.are.equal(0, code, err)
      for _, k in ipairs{ "backoff_limit", "ttl_seconds_after_finished", "active_deadline_seconds" } do
        assert.is_truthy(out:find(k, 1, true), f .. ": " .. k .. " in\n" .. out)
      end
      local cf = os.tmpname() .. (f == "lua" and ".lua" or ".json")
      local h = assert(io.open(cf, "w")); h:write(out); h:close()
      local c2, o2, e2 = util.kfjob("render", cf, "-f", "manifest", "--target", "operator")
      os.remove(cf)
      assert.are.equal(0, c2, e2)
      assert.is_truthy(o2:find("backoffLimit: 0", 1, true), o2)
      assert.is_truthy(o2:find("ttlSecondsAfterFinished: 0", 1, true), o2)
    end
  end)
end)

describe("env order and $(VAR) references", function()
  -- Kubernetes expands $(NAME) in a value only for a variable defined
  -- earlier in the container's env list (FACTS §11.8; kubernetes
  -- third_party/forked/golang/expansion, kubelet makeEnvironmentVariables)
  local function names(manifest)
    local t = {}
    for n in manifest:gmatch("%- name: ([A-Z_]+)\n%s+value:") do t[#t + 1] = n end
    return t
  end
  local ENV = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: envo
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            env:
            - name: ZROOT
              value: /data
            - name: CACHE
              value: $(ZROOT)/cache
            - name: B
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            - name: A
              value: $(B)-$(CACHE)
]]

  it("a manifest's env keeps its order through to_lua, to_config and render", function()
    local job = read(ENV)
    local want = { "ZROOT", "CACHE", "A" }   -- B has valueFrom (no value: line)
    assert.are.same(want, names(yaml_of(job)))
    local back = run_lua(kfjob.to_lua(job))
    assert.is_true(back == job)
    assert.are.same(want, names(yaml_of(back)))
    local env = kfjob.to_config(job).jobs.job.container.env
    assert.are.same({ "ZROOT", "CACHE", "B", "A" }, { env[1].name, env[2].name, env[3].name, env[4].name })
  end)

  it("kfjob convert -f lua|config|config-yaml renders the same order", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, f in ipairs{ "lua", "config", "config-yaml" } do
      local code, out, err = util.run_cli(ENV, "convert", "-", "-f", f)
      assert.are.equal(0, code, err)
      local cf = os.tmpname() .. ({ lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" })[f]
      local h = assert(io.open(cf, "w")); h:write(out); h:close()
      local c2, o2, e2 = util.kfjob("render", cf, "-f", "manifest", "--target", "operator")
      os.remove(cf)
      assert.are.equal(0, c2, e2)
      assert.are.same({ "ZROOT", "CACHE", "A" }, names(o2), f)
    end
  end)

  -- SPEC §16 decision: an env given as a table keyed by name (a Lua table,
  -- a data config's mapping) emits sorted by name, as opts.env; the order
  -- a reference needs is given as a list, which keeps its order.
  it("a data config's env mapping emits sorted by name; its list keeps the order given", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local head = "jobs:\n  j:\n    kind: PyTorchJob\n    master:\n      image: img:1\n    container:\n      env:\n"
    for _, c in ipairs{
      { "        ZROOT: /data\n        CACHE: $(ZROOT)/cache\n", { "CACHE", "ZROOT" } },
      { "        - {name: ZROOT, value: /data}\n        - {name: CACHE, value: $(ZROOT)/cache}\n",
        { "ZROOT", "CACHE" } },
    } do
      local cf = os.tmpname() .. ".yaml"
      local h = assert(io.open(cf, "w")); h:write(head .. c[1]); h:close()
      local code, out, err = util.kfjob("render", cf, "-f", "manifest", "--target", "operator")
      local c2, lua_src = util.kfjob("convert", cf, "-f", "lua")
      os.remove(cf)
      assert.are.equal(0, code, err)
      assert.are.same(c[2], names(out))
      assert.are.equal(0, c2)
      assert.are.same(c[2], names(yaml_of(run_lua(lua_src))))
    end
  end)

  it("a Lua table of name = value emits sorted by name; a list in its order", function()
    local job = kfjob.PyTorchJob{ master = { image = "x" },
                                  container = { env = { A = "$(Z)/a", Z = "z", M = "$$(Z) literal" } } }
    assert.are.same({ "A", "M", "Z" }, names(yaml_of(job)))
    assert.are.same({ A = "$(Z)/a", Z = "z", M = "$$(Z) literal" }, job:spec().container.env)
    local list = kfjob.PyTorchJob{ master = { image = "x" },
                                   container = { env = { { name = "Z", value = "z" }, { name = "A", value = "$(Z)/a" } } } }
    assert.are.same({ "Z", "A" }, names(yaml_of(list)))
  end)
end)

-- ---- class 2: heuristics that rewrote the user's pods --------------------

-- A kubeflow.org/v1 manifest of `kind` with replica groups {role, replicas,
-- container-yaml-lines, extra pod-spec lines, template metadata lines}.
local function manifest(kind, specs, groups, top)
  local out = { "apiVersion: kubeflow.org/v1", "kind: " .. kind, "metadata:", "  name: hw",
                "spec:" }
  if top then out[#out + 1] = top end
  out[#out + 1] = "  " .. specs .. ":"
  for _, g in ipairs(groups) do
    out[#out + 1] = "    " .. g[1] .. ":"
    out[#out + 1] = "      replicas: " .. g[2]
    out[#out + 1] = "      restartPolicy: Never"
    out[#out + 1] = "      template:"
    if g.meta then out[#out + 1] = "        metadata:\n" .. g.meta end
    out[#out + 1] = "        spec:"
    if g.pod then out[#out + 1] = g.pod end
    out[#out + 1] = "          containers:"
    out[#out + 1] = g.containers
  end
  return table.concat(out, "\n") .. "\n"
end

local EVICT = '          annotations:\n            cluster-autoscaler.kubernetes.io/safe-to-evict: "false"'

describe("a Flyte-made look needs Flyte's whole shape", function()
  -- Flyte's backend puts safe-to-evict "false" on every pod, gives the
  -- task's container terminationMessagePolicy FallbackToLogsOnError when
  -- the task has no pod template, Flyte 1 appends _F_WN (fieldRef
  -- metadata.name) to a PyTorch worker's first container, Flyte 2 sets
  -- enableServiceLinks: false (FACTS §3.2, §4; flyteplugins pod_helper.go,
  -- pytorch.go).  A user's pod with part of it is the user's.
  local PT_CT = [[
          - name: pytorch
            image: img:1
            terminationMessagePolicy: FallbackToLogsOnError
            env:
            - name: _F_WN
              value: worker-name
            - name: A
              value: "1"]]
  local hand_pt = manifest("PyTorchJob", "pytorchReplicaSpecs", {
    { "Master", 1, meta = EVICT, containers = PT_CT },
    { "Worker", 2, meta = EVICT, containers = PT_CT } })

  it("a PyTorchJob with the annotation, the policy and a _F_WN of its own is the user's", function()
    local job, info = read(hand_pt)
    assert.are.equal("operator", info.target)
    local y = yaml_of(job)
    local _, n1 = y:gsub("safe%-to%-evict: \"false\"", "")
    local _, n2 = y:gsub("terminationMessagePolicy: FallbackToLogsOnError", "")
    local _, n3 = y:gsub("name: _F_WN\n%s+value: worker%-name", "")
    assert.are.same({ 2, 2, 2 }, { n1, n2, n3 }, y)
  end)

  it("kfjob convert --to operator keeps all of it", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.run_cli(hand_pt, "convert", "-", "--to", "operator")
    assert.are.equal(0, code, err)
    assert.is_truthy(out:find("safe-to-evict", 1, true), out)
    assert.is_truthy(out:find("terminationMessagePolicy: FallbackToLogsOnError", 1, true), out)
    assert.is_truthy(out:find("name: _F_WN", 1, true), out)
  end)

  it("kfjob convert --to operator of Flyte's whole shape says what it leaves out", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local y = kfjob.PyTorchJob{ worker = { replicas = 2 } }:manifest{ name = "x", image = "img:1",
                                                                    target = "flyte", format = "yaml" }
    local code, out, err = util.run_cli(y, "convert", "-", "--to", "operator")
    assert.are.equal(0, code, err)
    assert.is_falsy(out:find("safe-to-evict", 1, true))
    assert.is_truthy(err:find("read as Flyte's (target flyte)", 1, true), err)
    assert.is_truthy(err:find("safe-to-evict", 1, true), err)
    local c2, _, e2 = util.run_cli(y, "convert", "-", "--to", "flyte2")
    assert.are.equal(0, c2, e2)
    assert.are.equal("", e2)
  end)

  it("a TFJob whose pods only carry the annotation is the user's", function()
    local ct = "          - name: tensorflow\n            image: img:1"
    local job, info = read(manifest("TFJob", "tfReplicaSpecs", {
      { "Worker", 2, meta = EVICT, containers = ct } }))
    assert.are.equal("operator", info.target)
    assert.is_truthy(yaml_of(job):find("safe-to-evict", 1, true))
  end)

  it("a PyTorchJob without Flyte 1's _F_WN, or with another policy, is the user's", function()
    local ct = "          - name: pytorch\n            image: img:1\n" ..
               "            terminationMessagePolicy: FallbackToLogsOnError"
    local _, info = read(manifest("PyTorchJob", "pytorchReplicaSpecs", {
      { "Master", 1, meta = EVICT, containers = ct }, { "Worker", 2, meta = EVICT, containers = ct } }))
    assert.are.equal("operator", info.target)
    local file = "          - name: tensorflow\n            image: img:1\n" ..
                 "            terminationMessagePolicy: File"
    local job2, info2 = read(manifest("TFJob", "tfReplicaSpecs", {
      { "Worker", 2, meta = EVICT, containers = file } }))
    assert.are.equal("operator", info2.target)
    assert.is_truthy(yaml_of(job2):find("terminationMessagePolicy: File", 1, true))
  end)

  it("a sidecar's terminationMessagePolicy stays on a Flyte-made pod", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 2 }, pod_template = { spec = { containers = {
      { name = "primary" },
      { name = "side", image = "busybox:1.36", terminationMessagePolicy = "FallbackToLogsOnError" } } } } }
    local y = job:manifest{ name = "x", image = "img:1", target = "flyte", format = "yaml" }
    local back, info = read(y)
    assert.are.equal("flyte", info.target)   -- kfjob's own Flyte shape reads as Flyte's
    assert.are.equal("FallbackToLogsOnError", back:spec().pod_template.spec.containers[2].terminationMessagePolicy)
    assert.are.equal(y, back:manifest{ name = "x", image = "img:1", target = "flyte", format = "yaml" })
  end)
end)

describe("a volume named flyte-shared-memory", function()
  -- kfjob's shared_memory is an emptyDir{medium: Memory} volume of that
  -- name mounted at /dev/shm by the task's container (kube/
  -- kf_pod_manifest.c); any other volume or mount of that name is the
  -- user's and mounts what it says (Kubernetes VolumeMount, Volume)
  local function pt(mount_path, volume, extra_mount)
    local ct = "          - name: pytorch\n            image: img:1\n            volumeMounts:\n" ..
               "            - name: flyte-shared-memory\n              mountPath: " .. mount_path ..
               (extra_mount or "")
    return manifest("PyTorchJob", "pytorchReplicaSpecs", {
      { "Master", 1, containers = ct,
        pod = "          volumes:\n          - name: flyte-shared-memory\n            " .. volume } })
  end
  local function mounts(job)
    local y = yaml_of(job)
    return y:match("volumeMounts:\n(.-)\n%s+restartPolicy") or y, y
  end

  it("a PVC of that name keeps its volume and its mount", function()
    local job = read(pt("/data", "persistentVolumeClaim: {claimName: data}"))
    assert.is_nil(job:spec().shared_memory)
    local m, y = mounts(job)
    assert.is_truthy(m:find("mountPath: /data", 1, true), y)
    assert.is_truthy(y:find("claimName: data", 1, true), y)
    assert.is_falsy(y:find("/dev/shm", 1, true), y)
  end)

  it("an emptyDir in memory mounted elsewhere stays mounted there", function()
    local job = read(pt("/scratch", "emptyDir: {medium: Memory}"))
    assert.is_nil(job:spec().shared_memory)
    local _, y = mounts(job)
    assert.is_truthy(y:find("mountPath: /scratch", 1, true), y)
    assert.is_falsy(y:find("/dev/shm", 1, true), y)
  end)

  it("a mount of it with more fields (readOnly) is the user's", function()
    local job = read(pt("/dev/shm", "emptyDir: {medium: Memory}", "\n              readOnly: true"))
    assert.is_nil(job:spec().shared_memory)
    assert.is_truthy(yaml_of(job):find("readOnly: true", 1, true))
  end)

  it("kfjob's own shape is shared_memory", function()
    local job = read(pt("/dev/shm", "emptyDir: {medium: Memory, sizeLimit: 1Gi}"))
    assert.are.equal("1Gi", job:spec().shared_memory)
    assert.is_nil(job:spec().pod_template)
  end)

  it("kfjob convert -f lua keeps a PVC's mount", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.run_cli(pt("/data", "persistentVolumeClaim: {claimName: data}"),
                                        "convert", "-", "-f", "lua")
    assert.are.equal(0, code, err)
    assert.is_truthy(out:find('mountPath = "/data"', 1, true), out)
    assert.is_falsy(out:find("shared_memory", 1, true), out)
  end)
end)

describe("accelerator node affinity and tolerations", function()
  -- nodeSelectorTerms are ORed, matchExpressions within a term ANDed,
  -- a toleration only lets a pod onto tainted nodes (Kubernetes
  -- NodeAffinity, Taints and Tolerations); kfjob's accelerator is the
  -- requirement it appends to every term and its NoSchedule toleration
  local ACC = "k8s.amazonaws.com/accelerator"
  local function pt(pod, gpu)
    local ct = "          - name: pytorch\n            image: img:1" ..
               (gpu == false and "" or "\n            resources:\n              limits:\n" ..
                                       "                nvidia.com/gpu: 1")
    return manifest("PyTorchJob", "pytorchReplicaSpecs", { { "Master", 1, containers = ct, pod = pod } })
  end
  local function terms(...)
    local out = { "          affinity:", "            nodeAffinity:",
                  "              requiredDuringSchedulingIgnoredDuringExecution:",
                  "                nodeSelectorTerms:" }
    for _, t in ipairs{ ... } do
      out[#out + 1] = "                - matchExpressions:"
      for _, r in ipairs(t) do
        out[#out + 1] = "                  - key: " .. r[1]
        out[#out + 1] = "                    operator: " .. r[2]
        if r[3] then out[#out + 1] = "                    values: [" .. r[3] .. "]" end
      end
    end
    return table.concat(out, "\n")
  end
  local function tol(key, op, value)
    return "          - key: " .. key .. "\n            operator: " .. op ..
           (value and "\n            value: " .. value or "") .. "\n            effect: NoSchedule"
  end
  local function affinity_of(job)
    return job:spec().pod_template and job:spec().pod_template.spec
  end

  it("a100 OR v100 in two terms stays two terms", function()
    local pod = terms({ { ACC, "In", "nvidia-tesla-a100" } }, { { ACC, "In", "nvidia-tesla-v100" } }) ..
                "\n          tolerations:\n" .. tol(ACC, "Equal", "nvidia-tesla-v100")
    local job = read(pt(pod))
    assert.is_nil(job:spec().accelerator)
    local s = affinity_of(job)
    local ts = s.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    assert.are.equal(2, #ts)
    assert.are.equal("nvidia-tesla-a100", ts[1].matchExpressions[1].values[1])
    assert.are.equal("nvidia-tesla-v100", ts[2].matchExpressions[1].values[1])
    assert.are.equal(1, #s.tolerations)
    local y = yaml_of(job)
    assert.is_truthy(y:find("nvidia-tesla-a100", 1, true), y)
  end)

  it("terms of their own with the device in only one are kept, not ANDed", function()
    local pod = terms({ { "zone", "In", "a" } }, { { "zone", "In", "b" }, { ACC, "In", "nvidia-tesla-a100" } }) ..
                "\n          tolerations:\n" .. tol(ACC, "Equal", "nvidia-tesla-a100")
    local job = read(pt(pod))
    assert.is_nil(job:spec().accelerator)
    local ts = affinity_of(job).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
                 .nodeSelectorTerms
    assert.are.equal(1, #ts[1].matchExpressions)
    assert.are.equal(2, #ts[2].matchExpressions)
  end)

  it("an Exists toleration of the label and a device without a GPU limit are the user's", function()
    local pod = terms({ { ACC, "In", "nvidia-tesla-a100" } }) ..
                "\n          tolerations:\n" .. tol(ACC, "Exists")
    local job = read(pt(pod))
    assert.is_nil(job:spec().accelerator)
    assert.are.equal("Exists", affinity_of(job).tolerations[1].operator)
    local pod2 = terms({ { ACC, "In", "nvidia-tesla-a100" } }) ..
                 "\n          tolerations:\n" .. tol(ACC, "Equal", "nvidia-tesla-a100")
    local job2 = read(pt(pod2, false))
    assert.is_nil(job2:spec().accelerator)
    assert.is_truthy(yaml_of(job2):find("nvidia-tesla-a100", 1, true))
  end)

  it("groups asking for different devices keep theirs", function()
    local function grp(dev)
      return terms({ { ACC, "In", dev } }) .. "\n          tolerations:\n" .. tol(ACC, "Equal", dev)
    end
    local ct = "          - name: pytorch\n            image: img:1\n            resources:\n" ..
               "              limits:\n                nvidia.com/gpu: 1"
    local job = read(manifest("PyTorchJob", "pytorchReplicaSpecs", {
      { "Master", 1, containers = ct, pod = grp("nvidia-tesla-a100") },
      { "Worker", 2, containers = ct, pod = grp("nvidia-tesla-v100") } }))
    assert.is_nil(job:spec().accelerator)
    local y = yaml_of(job)
    local _, na = y:gsub("nvidia%-tesla%-a100", "")
    local _, nv = y:gsub("nvidia%-tesla%-v100", "")
    assert.are.same({ 2, 2 }, { na, nv }, y)
  end)

  it("kfjob's own shape is the accelerator, its terms and tolerations kept", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 2, limits = { gpu = 1 } },
      accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" },
      pod_template = { spec = { tolerations = { { key = "team", operator = "Exists" } },
        affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = {
          nodeSelectorTerms = { { matchExpressions = { { key = "zone", operator = "In", values = { "a" } } } },
                                { matchExpressions = { { key = "zone", operator = "In", values = { "b" } } } } } } } },
        containers = { { name = "primary" } } } } }
    local y = job:manifest{ name = "x", image = "img:1", target = "operator", format = "yaml" }
    local back = read(y)
    local a = back:spec().accelerator
    assert.are.same({ "nvidia-tesla-a100", "1g.5gb" }, { a.device, a.partition_size })
    assert.are.equal(y, back:manifest{ name = "x", image = "img:1", target = "operator", format = "yaml" })
  end)
end)

describe("kfjob's shared memory in one group only", function()
  it("stays that group's: the other pods get no /dev/shm", function()
    local shm = "          - name: pytorch\n            image: img:1\n            volumeMounts:\n" ..
                "            - name: flyte-shared-memory\n              mountPath: /dev/shm"
    local vol = "          volumes:\n          - name: flyte-shared-memory\n            emptyDir: {medium: Memory}"
    local job = read(manifest("PyTorchJob", "pytorchReplicaSpecs", {
      { "Master", 1, containers = shm, pod = vol },
      { "Worker", 2, containers = "          - name: pytorch\n            image: img:1" } }))
    assert.is_nil(job:spec().shared_memory)
    local y = yaml_of(job)
    local _, n = y:gsub("mountPath: /dev/shm", "")
    assert.are.equal(1, n, y)
  end)
end)

describe("an MPI launcher line's numbers", function()
  -- mpirun -np is the number of processes the launcher starts; kfjob
  -- writes workers x slots (flytekitplugins-kfmpi's line); a line whose
  -- numbers differ is the user's command, run as written
  local MPIRUN = "mpirun, --allow-run-as-root, -bind-to, none, -map-by, slot, -x, LD_LIBRARY_PATH, " ..
                 "-x, PATH, -x, NCCL_DEBUG=INFO, -mca, pml, ob1, -mca, btl, ^openib, -np, "
  local function mpi(slots, line)
    local l = "          - name: mpi\n            image: img:1\n            args: [" .. line .. "]"
    local w = "          - name: mpi\n            image: img:1"
    return manifest("MPIJob", "mpiReplicaSpecs", { { "Launcher", 1, containers = l },
                                                   { "Worker", 2, containers = w } },
                    "  slotsPerWorker: " .. slots)
  end
  local function np_of(y)
    return y:match("Launcher:.-%- %-np\n%s+%- \"(%d+)\"")
  end

  it("mpirun -np 16 with 2 workers of 1 slot stays 16", function()
    local job = read(mpi(1, MPIRUN .. "'16', python, t.py"))
    assert.are.equal("16", np_of(yaml_of(job)))
    assert.is_truthy(yaml_of(job):find("t.py", 1, true))
  end)

  it("kfjob's own line (2 workers x 2 slots = 4) is the task's args", function()
    local job = read(mpi(2, MPIRUN .. "'4', python, t.py"))
    assert.are.same({ "python", "t.py" }, job:spec().container.args)
    assert.are.equal("4", np_of(yaml_of(job)))
  end)

  it("kfjob convert -f lua keeps -np 16", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.run_cli(mpi(1, MPIRUN .. "'16', python, t.py"), "convert", "-", "-f", "lua")
    assert.are.equal(0, code, err)
    assert.is_truthy(out:find('"-np",\n%s+"16"'), out)
  end)

  it("horovodrun's --max-np and --slots-per-host of the user's stay", function()
    local line = "horovodrun, -np, '16', --log-level, INFO, --network-interface, eth0, --min-np, '16', " ..
                 "--max-np, '16', --slots-per-host, '8', --host-discovery-script, " ..
                 "/etc/mpi/discover_hosts.sh, --elastic-timeout, '1200', python, t.py"
    local y = yaml_of((read(mpi(2, line))))
    assert.is_truthy(y:find('%- %-%-max%-np\n%s+%- "16"'), y)
    assert.is_truthy(y:find('%- %-%-slots%-per%-host\n%s+%- "8"'), y)
  end)
end)

describe("a TrainJob runtime patch's labels and annotations", function()
  -- Trainer applies a runtime patch's metadata to the JobSet, the Job and
  -- the pods it patches (trainer.kubeflow.org/v1alpha1 RuntimePatch,
  -- TrainingRuntimeSpecPatch); the job holds only the pods'
  local TJ = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: img:1
    numNodes: 2
  runtimePatches:
  - manager: kfjob/manifest
    trainingRuntimeSpec:
      template:
        metadata:
          labels:
            team: a
        spec:
          replicatedJobs:
          - name: node
            template:
              metadata:
                annotations:
                  example.com/owner: ml
              spec:
                template:
                  metadata:
                    labels:
                      pod: p
                  spec:
                    nodeSelector:
                      pool: gpu
]]
  local P = "spec.runtimePatches[0].trainingRuntimeSpec.template."

  it("on the JobSet or the Job are refused with their path", function()
    local job, err = kfjob.from_manifest(TJ)
    assert.is_nil(job)
    assert.is_truthy(err:find(P .. "metadata", 1, true), err)
  end)

  it("lossy lists both, and the pods' stay in the pod template", function()
    local job, info = read(TJ, { lossy = true })
    local paths = {}
    for _, u in ipairs(info.unmapped) do paths[#paths + 1] = u.path end
    assert.are.same({ P .. "metadata", P .. "spec.replicatedJobs[0].template.metadata" }, paths)
    assert.are.same({ pod = "p" }, job:spec().pod_template.metadata.labels)
  end)

  it("kfjob convert names the path and exits 1", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, _, err = util.run_cli(TJ, "convert", "-", "-f", "lua")
    assert.are.equal(1, code)
    assert.is_truthy(err:find(P .. "spec.replicatedJobs[0].template.metadata", 1, true), err)
  end)
end)
