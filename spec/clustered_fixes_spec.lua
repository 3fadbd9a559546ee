-- flyte2-clustered: faults black-box testers found (SPEC §18, FACTS §12.1,
-- §12.3).  Expected values from the backend's JobSet (one replicated job
-- `workers`, one Kueue pod set) and Kueue's tas_validation.go.
local kfjob = require "kfjob"

local T = { target = "flyte2-clustered" }

local function problems(job, o)
  local out = {}
  local _, list = job:check(o or T)
  for _, p in ipairs(list or {}) do
    if p.rule then out[p.rule] = out[p.rule] or {}; table.insert(out[p.rule], p) end
  end
  return out
end

describe("flyte2-clustered: Kueue topology on the JobSet's one pod set (R40, R41)", function()
  local function E(t)
    return kfjob.Elastic{ nnodes = 4, rdzv_backend = "static", scheduling = { topology = t },
                          container = { image = "i" } }
  end

  it("a slice size above the 4 pods is refused (R40)", function()
    local e = problems(E{ required = "rack", slice_required = "block", slice_size = 5 }).R40
    assert.is_truthy(e)
    assert.are.equal("scheduling.topology.slice_size", e[1].path)
    assert.matches("5 is above the 4 pods", e[1].message, 1, true)
    assert.is_nil(problems(E{ required = "rack", slice_required = "block", slice_size = 4 }).R40)
  end)

  it("the widest of the slice constraints above the pods is refused (R40)", function()
    local e = problems(E{ required = "rack", slices = { { level = "block", size = 8 },
                                                        { level = "rack", size = 4 } } }).R40
    assert.is_truthy(e)
    assert.are.equal("scheduling.topology.slices[1].size", e[1].path)
  end)

  it("a pod set group needs two pod sets; the JobSet has one (R41)", function()
    local e = problems(E{ required = "rack", group = "g" }).R41
    assert.is_truthy(e)
    assert.are.equal("scheduling.topology.group", e[1].path)
    local p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 }, container = { image = "i" },
                                scheduling = { topology = { required = "rack", group = "g" } } }
    assert.is_truthy(problems(p).R41)
    -- a PyTorchJob's master and workers are one pod set here: 4 pods hold a slice of 4
    p = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 }, container = { image = "i" },
      scheduling = { topology = { required = "rack", slice_required = "block", slice_size = 4 } } }
    assert.is_nil(problems(p).R40)
  end)
end)

describe("flyte2-clustered: scheduling the backend does not carry, at its own path (R48)", function()
  it("names scheduling.queue, .suspend, .multikueue, .priority_class, .max_exec_time, .gang", function()
    local j = kfjob.Elastic{ nnodes = 2, worker = {}, container = { image = "i" },
      scheduling = { queue = "q", suspend = true, multikueue = true, priority_class = "p",
                     max_exec_time = 60, gang = { min_available = 2 } } }
    local paths = {}
    for _, p in ipairs(problems(j).R48 or {}) do paths[p.path] = true end
    for _, k in ipairs{ "queue", "suspend", "multikueue", "priority_class", "max_exec_time", "gang" } do
      assert.is_true(paths["scheduling." .. k], "scheduling." .. k)
    end
    assert.is_nil(paths.scheduling)
  end)
end)

describe("README: Trainer v2.4.0's breaking changes", function()
  it("lists all six of the release page, #4120 and #4122 included", function()
    local f = assert(io.open("README.md")); local r = f:read("*a"); f:close()
    for _, n in ipairs{ "#4394", "#4301", "#4120", "#4122", "#3386", "#4029" } do
      assert.truthy(r:find(n, 1, true), n)
    end
    assert.truthy(r:find("dataCache.lws.install", 1, true))
    assert.truthy(r:find("helm uninstall", 1, true))
  end)
end)

describe("flyte2-clustered: settings the clustered task cannot carry", function()
  local function E(t)
    t.nnodes, t.rdzv_backend, t.container = 2, "static", { image = "i" }
    return kfjob.Elastic(t)
  end
  local function lint_rules(j)
    local out = {}
    for _, w in ipairs(j:lint(T)) do if w.rule then out[w.rule .. " " .. w.path] = w end end
    return out
  end

  it("a group's restart policy other than never is refused: the pods run with Never (R13)", function()
    local e = problems(E{ worker = { restart_policy = "always" } }).R13
    assert.is_truthy(e)
    assert.are.equal("worker.restart_policy", e[1].path)
    assert.matches("restartPolicy Never", e[1].message, 1, true)
    local p = kfjob.PyTorchJob{ master = { restart_policy = "on_failure" }, worker = { replicas = 2 },
                                container = { image = "i" } }
    assert.are.equal("master.restart_policy", problems(p).R13[1].path)
    assert.is_nil(problems(E{ worker = { restart_policy = "never" } }).R13)
  end)

  it("active_deadline_seconds and clean_pod_policy are dropped with a warning (R20)", function()
    local w = lint_rules(E{ run_policy = { active_deadline_seconds = 100 } })
    assert.is_truthy(w["R20 run_policy.active_deadline_seconds"])
    w = lint_rules(E{ run_policy = { clean_pod_policy = "all" } })
    assert.is_truthy(w["R20 run_policy.clean_pod_policy"])
    -- backoff_limit and the TTL have their place (failure_policy, the TTL)
    w = lint_rules(E{ run_policy = { backoff_limit = 2, ttl_seconds_after_finished = 60 } })
    for k in pairs(w) do assert.is_nil(k:match("^R20")) end
  end)
end)

describe("flyte2-clustered: a TaskTemplate read as a PyTorchJob", function()
  local function tt(custom)
    return '{"type":"clustered-task","taskTypeVersion":1,"custom":' .. custom ..
      ',"container":{"image":"i:1","args":["python","t.py"]}}'
  end

  it("C10D rendezvous or torchrun restarts are an Elastic job's: refused, not dropped", function()
    local c10d = tt('{"replicas":4,"nprocPerNode":1,"runtime":{"torchrun":{"rdzvBackend":"C10D","maxRestarts":3}}}')
    local job, err = kfjob.decode_task_template(c10d, { kind = "PyTorchJob" })
    assert.is_nil(job)
    assert.matches("runtime.torchrun.rdzvBackend", err, 1, true)
    job, err = kfjob.decode_task_template(
      tt('{"replicas":4,"nprocPerNode":1,"runtime":{"torchrun":{"maxRestarts":3}}}'), { kind = "PyTorchJob" })
    assert.is_nil(job)
    assert.matches("runtime.torchrun.maxRestarts", err, 1, true)
    -- as Elastic both are kept
    local el = assert(kfjob.decode_task_template(c10d))
    assert.are.equal("c10d", el.rdzv_backend)   -- the default: spec() leaves it out
    assert.are.equal(3, el:spec().max_restarts)
    -- a PyTorchJob's own shape still reads
    local p = assert(kfjob.decode_task_template(
      tt('{"replicas":4,"nprocPerNode":1,"runtime":{"torchrun":{}}}'), { kind = "PyTorchJob" }))
    assert.are.equal(3, p:spec().worker.replicas)
  end)
end)

describe("kfjob convert --to flyte2-clustered of a kubeflow.org/v1 PyTorchJob", function()
  local cli = os.getenv("KFJOB_CLI")
  local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
  local function convert(yaml, args)
    local path = os.tmpname()
    local f = assert(io.open(path, "w")); f:write(yaml); f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " convert " .. q(path) .. " " .. args ..
                       " 2>&1; echo rc=$?")
    local out = p:read("*a"); p:close()
    os.remove(path)
    return out
  end
  local function pod(image, extra)
    return ([[
      template:
        spec:
          containers:
          - name: pytorch
            image: %s
            command: [python, t.py]
            resources:
              limits: {nvidia.com/gpu: "2"}
              requests: {nvidia.com/gpu: "2"}%s
          restartPolicy: Never
]]):format(image, extra or "")
  end
  local elastic = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: el}
spec:
  elasticPolicy: {minReplicas: 3, maxReplicas: 3, rdzvBackend: c10d, maxRestarts: 0}
  nprocPerNode: "2"
  pytorchReplicaSpecs:
    Worker:
      replicas: 3
      restartPolicy: Never
]] .. pod("img:2")

  it("an elastic PyTorchJob: the one container's image and resources are the task's", function()
    if not cli then return pending("KFJOB_CLI is not set") end
    local out = convert(elastic, "--to flyte2-clustered -f json")
    assert.matches("rc=0", out, 1, true)
    assert.matches('"custom":{"replicas":3,"nprocPerNode":2,"runtime":{"torchrun":{"rdzvBackend":"C10D"}}}',
                   out, 1, true)
    assert.matches('"type":"clustered-task"', out, 1, true)
    out = convert(elastic, "--to flyte2-clustered -f template-json")
    assert.matches('"image":"img:2"', out, 1, true)
    assert.matches('{"name":"GPU","value":"2"}', out, 1, true)
  end)

  it("master and workers of the same image: one pod; different images still refused (R48)", function()
    if not cli then return pending("KFJOB_CLI is not set") end
    local function pt(mi, wi)
      return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec:\n" ..
        "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      restartPolicy: Never\n" ..
        pod(mi) .. "    Worker:\n      replicas: 2\n      restartPolicy: Never\n" .. pod(wi)
    end
    local out = convert(pt("img:2", "img:2"), "--to flyte2-clustered -f json")
    assert.matches("rc=0", out, 1, true)
    assert.matches('"custom":{"replicas":3,"nprocPerNode":1,"runtime":{"torchrun":{}}}', out, 1, true)
    out = convert(pt("a:1", "b:1"), "--to flyte2-clustered -f json")
    assert.matches("rc=1", out, 1, true)
    assert.matches("image: cannot be expressed", out, 1, true)
  end)
end)

describe("a Flyte 2 backend's JobSet whose task container is not named pytorch", function()
  local js = [[
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: ddp-run
  annotations: {flyte.org/task-type: clustered-task, flyte.org/primary-container: primary}
spec:
  network: {enableDNSHostnames: true}
  successPolicy: {operator: All}
  failurePolicy: {maxRestarts: 2}
  replicatedJobs:
  - name: workers
    replicas: 1
    template:
      spec:
        parallelism: 4
        completions: 4
        completionMode: Indexed
        backoffLimit: 0
        template:
          spec:
            subdomain: ddp-run
            restartPolicy: Never
            containers:
            - name: SIDECAR
            - name: primary
              image: ghcr.io/acme/train:1.0
              command: [python, train.py]
              env:
              - {name: LR, value: "0.1"}
              - {name: NNODES, value: "4"}
              - {name: NPROC_PER_NODE, value: "8"}
              - {name: RDZV_BACKEND, value: c10d}
              resources:
                limits: {nvidia.com/gpu: "8"}
]]
  local one = js:gsub("            %- name: SIDECAR\n", "")
  local sidecar = js:gsub("SIDECAR", "log-shipper\n              image: busybox:1")

  it("reads the container the flyte.org/primary-container annotation names as the task's", function()
    for _, doc in ipairs{ one, sidecar } do
      local job, info = kfjob.from_manifest(assert(kfjob.read_yaml(doc)))
      assert.is_truthy(job, info)
      local s = job:spec()
      assert.are.equal(4, s.nnodes)
      assert.are.equal(8, s.nproc_per_node)
      assert.are.equal("c10d", job.rdzv_backend)   -- the default: not in spec()
      assert.are.equal("ghcr.io/acme/train:1.0", s.container.image)
      assert.are.equal("0.1", (s.container.env.LR or s.container.env[1].value))
      assert.is_nil(s.container.name)   -- the backend names its container
    end
  end)

  it("an annotation naming no container is refused at its path", function()
    local bad = one:gsub("primary%-container: primary", "primary-container: main")
    local job, err = kfjob.from_manifest(assert(kfjob.read_yaml(bad)))
    assert.is_nil(job)
    assert.matches("metadata.annotations.flyte.org/primary-container: 'main' names no container", err, 1, true)
  end)
end)

describe("kfjob convert --to flyte2-clustered of a group's restart policy (R13)", function()
  it("is refused, and --lossy leaves it out naming the manifest path", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: of}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template: {spec: {containers: [{name: pytorch, image: "i:1"}]}}
]])
    f:close()
    local function run(extra)
      local p = io.popen("env -u LD_PRELOAD " .. cli .. " convert " .. path ..
                         " --to flyte2-clustered -f json " .. extra .. " 2>&1; echo rc=$?")
      local out = p:read("*a"); p:close()
      return out
    end
    local out = run("")
    assert.matches("rc=1", out, 1, true)
    assert.matches("spec.pytorchReplicaSpecs.Master.restartPolicy: 'on_failure' cannot be expressed", out, 1, true)
    out = run("--lossy")
    assert.matches("rc=0", out, 1, true)
    assert.matches('"custom":{"replicas":1,"nprocPerNode":1,"runtime":{"torchrun":{}}}', out, 1, true)
    os.remove(path)
  end)
end)

describe("kfjob convert of a clustered task's JobSet without --to", function()
  it("writes its own target's payload: the ClusteredTaskSpec, not Flyte 1's PyTorchJob", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local job = kfjob.Elastic { nnodes = 3, nproc_per_node = 2, rdzv_backend = "c10d",
                                container = { image = "img:2", command = { "python", "t.py" } } }
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(job:manifest { name = "el", target = "flyte2-clustered", format = "yaml" })
    f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " convert " .. path .. " -f json 2>&1; echo rc=$?")
    local out = p:read("*a"); p:close()
    os.remove(path)
    assert.matches("rc=0", out, 1, true)
    -- the clustered mapping (runtime.torchrun; c10d -> C10D), as render --target flyte2-clustered gives
    assert.matches('"type":"clustered-task"', out, 1, true)
    assert.matches('"custom":{"replicas":3,"nprocPerNode":2,"runtime":{"torchrun":{"rdzvBackend":"C10D"}}}', out, 1, true)
  end)
end)
