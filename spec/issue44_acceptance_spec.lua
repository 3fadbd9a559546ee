local util = require "util"
if not util.cli_ok then describe("issue 44 acceptance", function() pending(util.cli_why()) end) return end

-- Acceptance tests for issue 44 ("reading never changes what runs"), written black-box by an
-- independent tester: new attacks in the issue's six classes, different from its examples.
-- Expected values come from what kubectl (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1:
-- resolve.go), the API server (core/v1 types and defaults, CRD structural schemas) and the
-- operators (training-operator v1.9 SetDefaults_*, mpi-operator v0.8 SetDefaults_MPIJob,
-- Trainer v2.3 torch-distributed runtime; /work/shared/FACTS.md §11) do with the input,
-- never from kfjob's own output.  Each case: input -> the value read, or a refusal whose
-- stderr names the manifest path.

local kfjob = require "kfjob"

-- a temporary file of a text; kfjob convert - ARGS... with the text on stdin; every YAML/JSON
-- document of a text parsed by PyYAML (independent of kfjob) as Lua tables, and the first;
-- t.a.b[1].c with "a.b.1.c" (spec/util.lua)
local tmp, conv, docs, doc1, dig = util.tmp, util.conv, util.docs, util.doc1, util.dig

-- the files of a directory (convert -o DIR's), the directory then removed
local function written(dir)
  local files = util.listdir(dir)
  os.execute("rm -rf " .. util.quote(dir))
  return files
end

local function worker(m) return dig(m, "spec.pytorchReplicaSpecs.Worker") end
local function ctr(group, i) return dig(group, "template.spec.containers." .. (i or 1)) end

-- a PyTorchJob: o.meta (lines under metadata, indent 2), o.spec (under spec, indent 2),
-- o.pod (under each template.spec, indent 10), o.ctr (in each task container, indent 12),
-- o.wrep (the Worker's replicas line, default "replicas: 2"), o.rp (restartPolicy lines)
local function pt(o)
  o = o or {}
  local function grp(name, rep)
    return ("    %s:\n%s\n%s      template:\n%s        spec:\n%s          containers:\n"
      .. "          - name: pytorch\n            image: registry.example/mnist:1\n"
      .. "            command: [python, train.py]\n%s"):format(
      name, rep, o.rp == false and "" or "      restartPolicy: OnFailure\n",
      o.tmeta or "", o.pod or "", o.ctr or "")
  end
  return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: " .. (o.name or "mnist")
    .. "\n  namespace: " .. (o.ns or "ml") .. "\n" .. (o.meta or "")
    .. "spec:\n" .. (o.spec or "") .. "  pytorchReplicaSpecs:\n"
    .. grp("Master", "      replicas: 1")
    .. grp("Worker", "      " .. (o.wrep or "replicas: 2"))
end

-- the command's stderr names `pat` (a plain substring)
local function names(err, pat)
  assert(err:find(pat, 1, true), ("stderr does not name %q:\n%s"):format(
    #pat > 120 and pat:sub(1, 60) .. "..." or pat, #err > 600 and err:sub(1, 300) .. " ... " .. err:sub(-300) or err))
end

-- kfjob convert - ARGS... of the text succeeds: its first document, as PyYAML reads it
local function read_back(text, ...)
  local code, out, err = conv(text, ...)
  assert.are.equal(0, code, err)
  return doc1(out)
end

-- kfjob convert - of the text fails, its stderr naming `pat`
local function refused(text, pat)
  local code, _, err = conv(text)
  assert.are_not.equal(0, code)
  names(err, pat)
end

-- a refusal at a limit that says so truthfully: names a limit, does not claim the input holds no
-- job, and does not advise an option `kfjob convert` rejects (--memory-limit is not one of its options)
local function honest_limit(err)
  assert(err:find("limit", 1, true) or err:find("more than", 1, true), err:sub(1, 400))
  assert(not err:find("no job kfjob reads", 1, true), "a limit reported as 'no job kfjob reads':\n" .. err:sub(1, 400))
  assert(not err:find("--memory-limit", 1, true), "advises --memory-limit, which kfjob convert rejects:\n" .. err:sub(1, 400))
end

-- kfjob render CONFIG -f manifest --target operator, of a config text with extension ext
local function render(cfg, ext)
  local p = tmp(cfg, ext)
  local code, out, err = util.kfjob("render", p, "-f", "manifest", "--target", "operator")
  os.remove(p)
  assert.are.equal(0, code, err)
  return out
end

-- convert M -f FMT, then render it again: the manifest the config gives
local function through(fmt, text)
  local code, out, err = conv(text, "-f", fmt)
  assert.are.equal(0, code, err)
  local ext = ({ lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" })[fmt]
  return doc1(render(out, ext))
end

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: numbers and defaults read as kubectl and the API server do", function()

  it("activeDeadlineSeconds: 0x1C20 is 7200 (go-yaml v2 resolve: ParseInt(s, 0, 64))", function()
    local doc = read_back(pt{ spec = "  runPolicy:\n    activeDeadlineSeconds: 0x1C20\n" })
    assert.are.equal(7200, dig(doc, "spec.runPolicy.activeDeadlineSeconds"))
  end)

  it("ttlSecondsAfterFinished: 1_800 is 1800 (YAML 1.1 drops '_' in an int)", function()
    local doc = read_back(pt{ spec = "  runPolicy:\n    ttlSecondsAfterFinished: 1_800\n" })
    assert.are.equal(1800, dig(doc, "spec.runPolicy.ttlSecondsAfterFinished"))
  end)

  it("Worker replicas: 0b11 is 3 (YAML 1.1 binary int)", function()
    local doc = read_back(pt{ wrep = "replicas: 0b11" })
    assert.are.equal(3, worker(doc).replicas)
  end)

  it("Worker replicas: 1e1 is 10 (a YAML 1.1 float, sent by kubectl as JSON 10)", function()
    local doc = read_back(pt{ wrep = "replicas: 1e1" })
    assert.are.equal(10, worker(doc).replicas)
  end)

  it("JSON replicas: 3e0 is 3 (an integral number)", function()
    local js = ([[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"mnist"},
"spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}},
"Worker":{"replicas":3e0,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]])
    local doc = read_back(js, "-f", "manifest")
    assert.are.equal(3, worker(doc).replicas)
  end)

  it("a pod template's runAsUser: 01750 is 1000 (YAML 1.1 octal), kept in the pod", function()
    local doc = read_back(pt{ pod = "          securityContext:\n            runAsUser: 01750\n" })
    assert.are.equal(1000, dig(worker(doc), "template.spec.securityContext.runAsUser"))
  end)

  it("nvidia.com/gpu: 010 is 8 GPUs (YAML 1.1 octal int, a JSON number to the quantity)", function()
    local doc = read_back(pt{ ctr = "            resources:\n              limits:\n                nvidia.com/gpu: 010\n" })
    local lim = dig(ctr(worker(doc)), "resources.limits")
    assert.are.equal("8", tostring(lim["nvidia.com/gpu"]))
  end)

  it("runPolicy.suspend: on is true (YAML 1.1 boolean)", function()
    local doc = read_back(pt{ spec = "  runPolicy:\n    suspend: on\n" })
    assert.are.equal(true, dig(doc, "spec.runPolicy.suspend"))
  end)

  it("a plain env value 0123 (an int, 83, to kubectl) is refused naming the path, not read as a string", function()
    refused(pt{ ctr = "            env:\n            - name: ID\n              value: 0123\n" }, "env[0].value")
  end)

  it("a label value off (a boolean to kubectl; labels are strings) is refused naming the path", function()
    refused(pt{ meta = "  labels:\n    gpu: off\n" }, "metadata.labels")
  end)

  it("Worker replicas: \"2\" (a JSON string in an int32 field) is refused naming the path", function()
    refused(pt{ wrep = 'replicas: "2"' }, "Worker.replicas")
  end)

  it("Worker replicas: 2147483648 (over int32) is refused naming the path", function()
    refused(pt{ wrep = "replicas: 2147483648" }, "Worker.replicas")
  end)

  it("a PaddleJob without restartPolicy (default OnFailure, paddlepaddle_types.go) is not written Never", function()
    local m = ([[
apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata: {name: pd}
spec:
  paddleReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: paddle
            image: r/paddle:1
            command: [python, train.py]
]])
    local doc = read_back(m, "--to", "operator")
    local rp = dig(doc, "spec.paddleReplicaSpecs.Worker.restartPolicy")
    assert(rp == nil or rp == "OnFailure", "restartPolicy written " .. tostring(rp))
  end)

  it("a v1 MPIJob Launcher without restartPolicy (v1 default Never) to mpi-operator (Launcher default OnFailure) says Never", function()
    local m = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata: {name: pi}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi
            image: r/pi:1
            command: [mpirun]
            args: [-n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi
            image: r/pi:1
            command: [/usr/sbin/sshd]
            args: [-De]
]]
    local doc = read_back(m, "--to", "mpi-operator")
    assert.are.equal("Never", dig(doc, "spec.mpiReplicaSpecs.Launcher.restartPolicy"))
  end)

  it("a v2beta1 Launcher without restartPolicy (default OnFailure, mpi-operator default.go) to operator says OnFailure", function()
    local m = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: pi}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: r/pi:1
            command: [mpirun]
            args: [-n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi-worker
            image: r/pi:1
            command: [/usr/sbin/sshd]
            args: [-De]
]]
    local doc = read_back(m, "--to", "operator")
    assert.are.equal("OnFailure", dig(doc, "spec.mpiReplicaSpecs.Launcher.restartPolicy"))
  end)

  it("a PyTorchJob without restartPolicy (OnFailure) to trainer-2.3: exit 1 naming the restart policy (R13)", function()
    local code, _, err = conv(pt{ rp = false }, "--to", "trainer-2.3")
    assert.are.equal(1, code, err)
    names(err, "spec.pytorchReplicaSpecs.Worker.restartPolicy")   -- where the manifest would hold it
  end)

  it("a TrainJob without numNodes (the runtime's numNodes 1) is one pod on operator", function()
    local m = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: r/t:1
    command: [torchrun, train.py]
]]
    local doc = read_back(m, "--to", "operator")
    local total = 0
    for _, g in pairs(dig(doc, "spec.pytorchReplicaSpecs")) do total = total + (g.replicas or 1) end
    assert.are.equal(1, total)
  end)

  it("Worker replicas: +2 is 2 and 1.5e3 in activeDeadlineSeconds is 1500 (YAML 1.1 int and integral float)", function()
    local m = read_back(pt{ wrep = "replicas: +2", spec = "  runPolicy:\n    activeDeadlineSeconds: 1.5e3\n" })
    assert.are.equal(2, worker(m).replicas)
    assert.are.equal(1500, dig(m, "spec.runPolicy.activeDeadlineSeconds"))
  end)

  it("Worker replicas: 1:30 (a string to go-yaml v2, not sexagesimal 90) is refused naming the path", function()
    refused(pt{ wrep = "replicas: 1:30" }, "Worker.replicas")
  end)

  it("memory: 0x100 is 256 bytes (YAML 1.1 hex, a JSON integer to the quantity)", function()
    local doc = read_back(pt{ ctr = "            resources:\n              limits: {cpu: \"500m\", memory: 0x100}\n" })
    local lim = dig(ctr(worker(doc)), "resources.limits")
    assert.are.equal("500m", tostring(lim.cpu))
    assert.are.equal("256", tostring(lim.memory))
  end)

  -- the CRDs' resources are int-or-string: the API server's schema check
  -- refuses the JSON number 0.5 kubectl sends for `cpu: .5` ("must be of
  -- type integer,string"), as ../shared/tools/validate-manifest does
  it("cpu: .5 (a YAML 1.1 float that is not whole) is refused naming the path", function()
    refused(pt{ ctr = "            resources:\n              limits: {cpu: .5}\n" }, "resources.limits.cpu")
  end)

  it("an env value 2001-12-14 (a timestamp go-yaml v2 keeps as a string for interface{}) is that string", function()
    local doc = read_back(pt{ ctr = "            env:\n            - {name: DAY, value: 2001-12-14}\n" })
    assert.are.equal("2001-12-14", ctr(worker(doc)).env[1].value)
  end)

  it("a label key on: (the boolean true to go-yaml v2, the label 'true' to kubectl) is read as 'true' or refused naming the path", function()
    local code, out, err = conv(pt{ meta = "  labels:\n    on: x\n" })
    if code ~= 0 then names(err, "metadata.labels") return end
    assert.are.equal("x", doc1(out).metadata.labels["true"])
  end)
end)

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: kfjob's and Flyte's shapes only when whole", function()

  it("a flyte-shared-memory emptyDir on disk (no medium) at /dev/shm stays on disk", function()
    local doc = read_back(pt{
      pod = "          volumes:\n          - name: flyte-shared-memory\n            emptyDir: {sizeLimit: 1Gi}\n",
      ctr = "            volumeMounts:\n            - {name: flyte-shared-memory, mountPath: /dev/shm}\n" })
    local v = dig(worker(doc), "template.spec.volumes.1")
    assert.are.equal("flyte-shared-memory", v.name)
    assert.is_nil(v.emptyDir.medium)
  end)

  it("a flyte-shared-memory Memory volume mounted by a sidecar only: the task container gets no mount", function()
    local doc = read_back(pt{
      pod = "          volumes:\n          - name: flyte-shared-memory\n            emptyDir: {medium: Memory}\n"
,
      ctr = "          - name: side\n            image: r/side:1\n"
        .. "            volumeMounts:\n            - {name: flyte-shared-memory, mountPath: /dev/shm}\n" })
    local w = worker(doc)
    local task, side
    for _, c in ipairs(w.template.spec.containers) do
      if c.name == "pytorch" then task = c elseif c.name == "side" then side = c end
    end
    assert.is_nil(task.volumeMounts)
    assert.are.equal("/dev/shm", side.volumeMounts[1].mountPath)
  end)

  it("an accelerator toleration with effect NoExecute stays as written", function()
    local doc = read_back(pt{
      pod = "          tolerations:\n          - {key: k8s.amazonaws.com/accelerator, operator: Equal, value: nvidia-tesla-a100, effect: NoExecute}\n"
        .. "          affinity:\n            nodeAffinity:\n              requiredDuringSchedulingIgnoredDuringExecution:\n"
        .. "                nodeSelectorTerms:\n                - matchExpressions:\n"
        .. "                  - {key: k8s.amazonaws.com/accelerator, operator: In, values: [nvidia-tesla-a100]}\n",
      ctr = "            resources:\n              limits: {nvidia.com/gpu: 1}\n" })
    local spec = worker(doc).template.spec
    assert.are.equal("NoExecute", dig(spec, "tolerations.1.effect"))
    assert.are.equal("nvidia-tesla-a100",
      dig(spec, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.1.matchExpressions.1.values.1"))
  end)

  it("an accelerator asked for in preferred (not required) affinity stays preferred", function()
    local doc = read_back(pt{
      pod = "          tolerations:\n          - {key: k8s.amazonaws.com/accelerator, operator: Equal, value: nvidia-tesla-v100, effect: NoSchedule}\n"
        .. "          affinity:\n            nodeAffinity:\n              preferredDuringSchedulingIgnoredDuringExecution:\n"
        .. "              - weight: 50\n                preference:\n                  matchExpressions:\n"
        .. "                  - {key: k8s.amazonaws.com/accelerator, operator: In, values: [nvidia-tesla-v100]}\n",
      ctr = "            resources:\n              limits: {nvidia.com/gpu: 1}\n" }, "--to", "operator")
    local na = dig(worker(doc), "template.spec.affinity.nodeAffinity")
    assert.is_nil(na.requiredDuringSchedulingIgnoredDuringExecution)
    assert.are.equal(50, na.preferredDuringSchedulingIgnoredDuringExecution[1].weight)
  end)

  it("kfjob's mpirun line with -x NCCL_DEBUG=WARN instead of INFO runs as written", function()
    local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2,
      container = { image = "img:1", command = { "python", "t.py" } } }
    local m = job:manifest{ target = "operator", name = "m", format = "yaml" }
    m = m:gsub("NCCL_DEBUG=INFO", "NCCL_DEBUG=WARN")
    local code, out, err = conv(m, "--to", "operator")
    assert.are.equal(0, code, err)
    assert(out:find("NCCL_DEBUG=WARN", 1, true), "the launcher line lost NCCL_DEBUG=WARN:\n" .. out)
    assert.is_nil(out:find("NCCL_DEBUG=INFO", 1, true))
  end)

  it("kfjob's horovodrun line with one flag more (--gloo) runs as written", function()
    local job = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 1,
      container = { image = "img:1", command = { "python", "t.py" } } }
    local m = job:manifest{ target = "operator", name = "h", format = "yaml" }
    local given
    m, given = m:gsub("(%- horovodrun\n)", "%1            - --gloo\n")
    assert(m:find("--gloo", 1, true))
    local code, out, err = conv(m, "--to", "operator")
    assert.are.equal(0, code, err)
    local _, n = out:gsub("%-%-gloo", "")
    assert.are.equal(given, n, "--gloo lost:\n" .. out)
  end)

  it("a TFJob whose pods carry Flyte's annotation and policy but also a sidecar is the user's: --to operator keeps both", function()
    local m = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        metadata:
          annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: "false"}
        spec:
          containers:
          - name: tensorflow
            image: r/tf:1
            command: [python, train.py]
            terminationMessagePolicy: FallbackToLogsOnError
          - name: logger
            image: r/log:1
]]
    local doc = read_back(m, "--to", "operator")
    local w = dig(doc, "spec.tfReplicaSpecs.Worker.template")
    assert.are.equal("false", dig(w, "metadata.annotations")["cluster-autoscaler.kubernetes.io/safe-to-evict"])
    assert.are.equal("FallbackToLogsOnError", w.spec.containers[1].terminationMessagePolicy)
  end)

  it("schedulingPolicy's every field (minAvailable, queue, priorityClass, minResources, scheduleTimeoutSeconds) is kept", function()
    local code, out, err = conv(pt{ spec = "  runPolicy:\n    schedulingPolicy:\n      minAvailable: 3\n      queue: q1\n"
      .. "      priorityClass: high\n      minResources: {cpu: \"4\"}\n      scheduleTimeoutSeconds: 90\n" })
    if code ~= 0 then names(err, "schedulingPolicy") return end
    local sp = dig(doc1(out), "spec.runPolicy.schedulingPolicy")
    assert.are.equal(3, sp.minAvailable)
    assert.are.equal("q1", sp.queue)
    assert.are.equal("high", sp.priorityClass)
    assert.are.equal("4", tostring(sp.minResources.cpu))
    assert.are.equal(90, sp.scheduleTimeoutSeconds)
  end)

  it("Volcano's queue annotation on a PyTorchJob (not a TrainJob) stays the resource's annotation", function()
    local doc = read_back(pt{ meta = "  annotations:\n    scheduling.volcano.sh/queue-name: research\n" })
    assert.are.equal("research", dig(doc, "metadata.annotations")["scheduling.volcano.sh/queue-name"])
  end)

  it("a flyte-shared-memory mount with mountPropagation stays the user's mount", function()
    local doc = read_back(pt{
      pod = "          volumes:\n          - name: flyte-shared-memory\n            emptyDir: {medium: Memory}\n",
      ctr = "            volumeMounts:\n            - {name: flyte-shared-memory, mountPath: /dev/shm, mountPropagation: HostToContainer}\n" })
    assert.are.equal("HostToContainer", dig(ctr(worker(doc)), "volumeMounts.1.mountPropagation"))
  end)

  describe("kfjob's own accelerator shape, changed in one place, is the user's", function()
    local function base()
      local j = kfjob.PyTorchJob{ worker = { replicas = 1, limits = { gpu = 1 } }, master = { limits = { gpu = 1 } },
        accelerator = "nvidia-tesla-a100", container = { image = "img:1", command = { "python" } } }
      return j:manifest{ target = "operator", name = "a", format = "yaml" }
    end
    local function sched(out)
      local spec = worker(doc1(out)).template.spec
      return spec.tolerations, dig(spec, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms")
    end

    it("a toleration for v100 beside an affinity for a100: both kept as written", function()
      local m = base():gsub("            value: nvidia%-tesla%-a100\n", "            value: nvidia-tesla-v100\n")
      local code, out, err = conv(m, "--to", "operator")
      assert.are.equal(0, code, err)
      local tol, terms = sched(out)
      assert.are.equal("nvidia-tesla-v100", tol[1].value)
      assert.are.equal("nvidia-tesla-a100", terms[1].matchExpressions[1].values[1])
    end)

    it("the toleration NoExecute with tolerationSeconds: 300 (evicted after 5 minutes): kept with it", function()
      local m = base():gsub("            effect: NoSchedule\n", "            effect: NoExecute\n            tolerationSeconds: 300\n")
      local code, out, err = conv(m, "--to", "operator")
      assert.are.equal(0, code, err)
      local tol = sched(out)
      assert.are.equal("NoExecute", tol[1].effect)
      assert.are.equal(300, tol[1].tolerationSeconds)
    end)

    it("the GPU limit as amd.com/gpu (not kfjob's nvidia.com/gpu): affinity and toleration kept", function()
      local m = base():gsub("nvidia%.com/gpu", "amd.com/gpu")
      local code, out, err = conv(m, "--to", "operator")
      if code ~= 0 then names(err, "amd.com/gpu") return end
      local tol, terms = sched(out)
      assert.are.equal("nvidia-tesla-a100", tol and tol[1].value)
      assert.are.equal("nvidia-tesla-a100", terms and terms[1].matchExpressions[1].values[1])
    end)

    it("the toleration with effect \"\" (every effect; core validation checks only a non-empty effect): kept as written", function()
      local m = base():gsub("            effect: NoSchedule\n", "            effect: \"\"\n")
      local code, out, err = conv(m, "--to", "operator")
      assert.are.equal(0, code, err)
      local tol = sched(out)
      assert.are.equal("", tol[1].effect or "")
    end)
  end)
end)

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: values kept through to_lua / to_config / convert -f lua|config", function()

  it("an env value \"\" (set to empty, not unset) survives -f lua", function()
    local m = through("lua", pt{ ctr = "            env:\n            - {name: EMPTY, value: \"\"}\n            - {name: B, value: x}\n" })
    local env = ctr(worker(m)).env
    assert.are.equal("EMPTY", env[1].name)
    assert.are.equal("", env[1].value or "")
    assert.are.equal(2, #env)
  end)

  it("terminationGracePeriodSeconds: 0 (not the default 30) survives -f config-yaml", function()
    local m = through("config-yaml", pt{ pod = "          terminationGracePeriodSeconds: 0\n" })
    assert.are.equal(0, dig(worker(m), "template.spec.terminationGracePeriodSeconds"))
  end)

  it("elastic maxRestarts: 0 survives -f lua", function()
    local e = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: el}
spec:
  elasticPolicy: {minReplicas: 2, maxReplicas: 2, maxRestarts: 0}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - {name: pytorch, image: r/e:1, command: [python, e.py]}
]]
    local m = through("lua", e)
    assert.are.equal(0, dig(m, "spec.elasticPolicy.maxRestarts"))
  end)

  it("env valueFrom first, then a value referring to it, then a secret: the order survives -f config", function()
    local m = through("config", pt{ ctr = "            env:\n"
      .. "            - name: POD\n              valueFrom: {fieldRef: {fieldPath: metadata.name}}\n"
      .. "            - {name: ADDR, value: \"$(POD).svc\"}\n"
      .. "            - name: A_TOKEN\n              valueFrom: {secretKeyRef: {name: s, key: t}}\n" })
    local env = ctr(worker(m)).env
    assert.are.same({ "POD", "ADDR", "A_TOKEN" }, { env[1].name, env[2].name, env[3].name })
    assert.are.equal("$(POD).svc", env[2].value)
  end)

  it("labels with prefixes, dots, dashes and underscores and an annotation with quotes, newline and é survive -f lua", function()
    local m = through("lua", pt{ meta = "  labels:\n    example.com/a_b.c: v-1.0_x\n    app.kubernetes.io/name: mnist\n"
      .. "  annotations:\n    note: \"say \\\"hi\\\"\\nthen é ]]\"\n" })
    assert.are.equal("v-1.0_x", m.metadata.labels["example.com/a_b.c"])
    assert.are.equal("mnist", m.metadata.labels["app.kubernetes.io/name"])
    assert.are.equal('say "hi"\nthen é ]]', m.metadata.annotations.note)
  end)

  it("an annotation whose value is \"\" survives -f config-yaml", function()
    local m = through("config-yaml", pt{ meta = "  annotations:\n    empty-note: \"\"\n" })
    assert.are.equal("", m.metadata.annotations["empty-note"])
  end)

  it("activeDeadlineSeconds: 0 survives -f config (or is refused naming the path)", function()
    local text = pt{ spec = "  runPolicy:\n    activeDeadlineSeconds: 0\n" }
    local code, out, err = conv(text, "-f", "config")
    if code ~= 0 then names(err, "activeDeadlineSeconds") return end
    assert.are.equal(0, dig(doc1(render(out, ".json")), "spec.runPolicy.activeDeadlineSeconds"))
  end)

  it("two env entries of one name (the later wins in the kubelet) are not silently one", function()
    local code, out, err = conv(pt{ ctr = "            env:\n            - {name: X, value: \"1\"}\n            - {name: X, value: \"2\"}\n" })
    if code ~= 0 then names(err, "env[1]") return end
    local env = ctr(worker(doc1(out))).env
    assert.are.equal(2, #env)
    assert.are.equal("2", env[2].value)
  end)

  it("to_lua of a read job with CR LF, tab and ]] in values loads back to the same env", function()
    local job = assert(kfjob.from_manifest(pt{ ctr = "            env:\n            - {name: W, value: \"a\\r\\nb\\tc]]d\"}\n" }))
    local src = kfjob.to_lua{ j = job }
    local f = assert(load(src, "to_lua", "t", setmetatable({ require = require }, { __index = _G })))
    local again = f().j
    local m = doc1(again:manifest{ target = "operator", name = "j", format = "yaml" })
    assert.are.equal("a\r\nb\tc]]d", ctr(worker(m)).env[1].value)
  end)
end)

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: a stream converts document for document", function()

  local function kinds(out)
    local r = {}
    for _, d in ipairs(docs(out)) do r[#r + 1] = d.kind .. "/" .. d.metadata.name end
    return r
  end

  it("three documents each ended with '...' are three jobs", function()
    local s = pt{ name = "a" } .. "...\n---\n" .. pt{ name = "b" } .. "...\n---\n" .. pt{ name = "c" } .. "...\n"
    local code, out, err = conv(s)
    assert.are.equal(0, code, err)
    assert.are.same({ "PyTorchJob/a", "PyTorchJob/b", "PyTorchJob/c" }, kinds(out))
  end)

  it("a v1 List of a PyTorchJob, a ConfigMap and a TFJob: all three, in order", function()
    local function item(s)
      local first = true
      return (s:gsub("[^\n]+", function(l)
        if first then first = false return "- " .. l end
        return "  " .. l
      end))
    end
    local tf = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - {name: tensorflow, image: r/tf:1, command: [python]}
]]
    local s = "apiVersion: v1\nkind: List\nitems:\n" .. item(pt{ name = "p" })
      .. "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cm}\n  data: {k: v}\n" .. item(tf)
    local code, out, err = conv(s)
    assert.are.equal(0, code, err)
    assert.are.same({ "PyTorchJob/p", "ConfigMap/cm", "TFJob/t" }, kinds(out))
  end)

  it("a JSON List (kubectl get -o json) of two jobs is two jobs", function()
    local a = ([[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"%s"},
"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]])
    local s = '{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":['
      .. a:format("x") .. "," .. a:format("y") .. "]}"
    local code, out, err = conv(s, "-f", "manifest")
    assert.are.equal(0, code, err)
    assert.are.same({ "PyTorchJob/x", "PyTorchJob/y" }, kinds(out))
  end)

  it("two jobs of one name, namespace and kind under -o DIR: two files, or refused with nothing written", function()
    local dir = os.tmpname(); os.remove(dir)
    local s = pt{ name = "same", wrep = "replicas: 2" } .. "---\n" .. pt{ name = "same", wrep = "replicas: 5" }
    local code, _, err = conv(s, "-o", dir)
    local files = written(dir)
    if code ~= 0 then assert.are.equal(0, #files) names(err, "document 2") return end
    assert.are.equal(2, #files, "files: " .. table.concat(files, " ") .. "\n" .. err)
  end)

  it("a TFJob and a PyTorchJob of one name in one namespace: -f lua keeps both", function()
    local tf = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: mnist, namespace: ml}\nspec:\n  tfReplicaSpecs:\n"
      .. "    Worker:\n      replicas: 1\n      template:\n        spec:\n          containers:\n"
      .. "          - {name: tensorflow, image: r/tf:1, command: [python]}\n"
    local code, out, err = conv(pt() .. "---\n" .. tf, "-f", "lua")
    assert.are.equal(0, code, err)
    assert(out:find("kfjob.TFJob", 1, true), out)
    assert(out:find("kfjob.PyTorchJob", 1, true), out)
  end)

  it("kubeflow.org/v1beta2 TFJob (an old version) in a stream: exit 2 naming document 2", function()
    local s = pt() .. "---\napiVersion: kubeflow.org/v1beta2\nkind: TFJob\nmetadata: {name: old}\nspec: {}\n"
    local code, out, err = conv(s)
    assert.are.equal(2, code, err)
    assert.are.equal("", out)
    names(err, "document 2")
  end)

  it("kind: pytorchjob (all lower case) in a stream: exit 2 naming document 2", function()
    local s = pt{ name = "a" } .. "---\n" .. pt{ name = "b" }:gsub("kind: PyTorchJob", "kind: pytorchjob")
    local code, out, err = conv(s)
    assert.are.equal(2, code, err)
    assert.are.equal("", out)
    names(err, "document 2")
  end)

  it("empty and comment-only documents between two jobs: both jobs, exit 0", function()
    local s = "---\n---\n# nothing here\n---\n" .. pt{ name = "a" } .. "---\n\n---\n" .. pt{ name = "b" } .. "---\n"
    local code, out, err = conv(s)
    assert.are.equal(0, code, err)
    assert.are.same({ "PyTorchJob/a", "PyTorchJob/b" }, kinds(out))
  end)

  it("JSON Lines: three jobs, two of one name in two namespaces, -o DIR: three files", function()
    local a = [[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"%s","namespace":"%s"},"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]]
    local s = a:format("j", "n1") .. "\n" .. a:format("j", "n2") .. "\n" .. a:format("k", "n1") .. "\n"
    local dir = os.tmpname(); os.remove(dir)
    local code, _, err = conv(s, "-o", dir)
    local n = #written(dir)
    assert.are.equal(0, code, err)
    assert.are.equal(3, n)
  end)

  it("metadata.generateName: train- is kept (each create a new job), or the change is said on stderr naming the path", function()
    local code, out, err = conv((pt():gsub("  name: mnist\n", "  generateName: train-\n")))
    assert.are.equal(0, code, err)
    local md = doc1(out).metadata
    if md.generateName == "train-" and md.name == nil then return end
    names(err, "generateName")
  end)

  it("three jobs named bert (PyTorchJob and TFJob in a, PyTorchJob in b) under -o DIR: three files", function()
    local tf = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: bert, namespace: a}\nspec:\n  tfReplicaSpecs:\n"
      .. "    Worker:\n      replicas: 1\n      template:\n        spec:\n          containers:\n"
      .. "          - {name: tensorflow, image: r/tf:1, command: [python]}\n"
    local s = pt{ name = "bert", ns = "a" } .. "---\n" .. tf .. "---\n" .. pt{ name = "bert", ns = "b" }
    local dir = os.tmpname(); os.remove(dir)
    local code, _, err = conv(s, "-o", dir)
    local n = #written(dir)
    assert.are.equal(0, code, err)
    assert.are.equal(3, n)
  end)
end)

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: limits on reading", function()

  it("JSON nested 3000 levels deep in a pod field: a clean refusal, no crash", function()
    local s = pt():gsub("          containers:", "          x: " .. ("["):rep(3000) .. ("]"):rep(3000) .. "\n          containers:", 1)
    local code, out, err = conv(s)
    assert.is_true(code == 1 or code == 2, "exit " .. tostring(code) .. " " .. err)
    assert.are.equal("", out)
    assert(err:find("nested", 1, true) or err:find("deep", 1, true), err)
  end)

  it("5000 documents: all 5000 jobs, or refused naming the limit; never fewer with exit 0", function()
    local parts = {}
    for i = 1, 5000 do parts[i] = pt{ name = "j" .. i } end
    -- no time limit: 10 s here on a busy machine (more under ASan), and a
    -- limit's error would pass for the refusal
    local code, out, err = conv(table.concat(parts, "---\n"), "--time-limit", "0")
    if code ~= 0 then assert(err:find("limit", 1, true) or err:find("more than", 1, true), err) return end
    local _, n = out:gsub("\nkind: PyTorchJob", "")
    if out:sub(1, 16) == "kind: PyTorchJob" then n = n + 1 end
    assert.are.equal(5000, n)
  end)

  it("an env value of 2 MiB: refused naming the path and the limit, not cut", function()
    local big = ("x"):rep(2 * 1024 * 1024)
    local code, out, err = conv(pt{ ctr = "            env:\n            - {name: BIG, value: " .. big .. "}\n" },
                                "--time-limit", "0")
    if code == 0 then assert(out:find(big, 1, true), "the value was cut") return end
    names(err, "env[0].value")
  end)

  it("20 000 env entries (a 1.1 MB manifest) read, all kept, or refused naming the limit truthfully", function()
    local e = { "            env:\n" }
    for i = 1, 20000 do e[#e + 1] = ("            - {name: V%d, value: \"%d\"}\n"):format(i, i) end
    local code, out, err = conv(pt{ ctr = table.concat(e) }, "--time-limit", "0")
    if code ~= 0 then honest_limit(err) return end
    local _, n = out:gsub("name: V%d+\n", "")
    assert.are.equal(40000, n)   -- both groups
  end)

  it("a JSON manifest with an unknown key of 2 000 characters (valid JSON): its own line with the whole path, exit 1", function()
    -- JSON (kubectl decodes it as JSON; YAML's 1024-character limit on implicit keys does not apply)
    local key = ("k"):rep(2000)
    local js = ([[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"big"},"spec":{"%s":1,
"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]]):format(key)
    local code, _, err = conv(js, "-f", "manifest")
    assert.are.equal(1, code, err:sub(1, 300))
    names(err, "spec." .. key)
  end)

  local function stream(n)
    local one = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: j%d}\nspec:\n  pytorchReplicaSpecs:\n"
      .. "    Worker: {replicas: 1, restartPolicy: OnFailure, template: {spec: {containers: [{name: pytorch, image: r, command: [p]}]}}}\n"
    local parts = {}
    for i = 1, n do parts[i] = one:format(i) end
    return table.concat(parts, "---\n")
  end

  it("16 000 small documents (3.7 MB: under 16 384 documents and 16 MiB, docs/IMPORT.md) all convert", function()
    local code, out, err = conv(stream(16000), "--time-limit", "0")
    assert.are.equal(0, code, err:sub(1, 400))
    local _, n = out:gsub("kind: PyTorchJob", "")
    assert.are.equal(16000, n)
  end)

  it("17 000 documents (over from_manifests' 16 384): refused naming the limit truthfully, nothing written", function()
    local code, out, err = conv(stream(17000), "--time-limit", "0")
    if code == 0 then
      local _, n = out:gsub("kind: PyTorchJob", "")
      assert.are.equal(17000, n)
      return
    end
    assert.are.equal("", out)
    honest_limit(err)
  end)

  it("block mappings nested 100 deep in a pod template's unknown field: a refusal naming the depth, no crash, --lossy too", function()
    local lines, ind = {}, "          "
    for i = 1, 100 do lines[i] = ind .. "x:\n"; ind = ind .. "  " end
    local text = pt():gsub("          containers:", table.concat(lines) .. ind .. "y: 1\n          containers:", 1)
    for _, extra in ipairs{ {}, { "--lossy" } } do
      local code, out, err = conv(text, (table.unpack or unpack)(extra))
      assert.is_true(code == 1 or code == 2, "exit " .. tostring(code) .. "\n" .. err:sub(1, 300))
      assert.are.equal("", out)
      assert(err:find("nested", 1, true) or err:find("deep", 1, true), err:sub(1, 300))
    end
  end)
end)

---------------------------------------------------------------------------------------------
describe("issue 44 acceptance: valid input read as kubectl reads it", function()

  it("JSON with \\u escapes in a key (\\u006bind) and a value (caf\\u00e9)", function()
    local s = [[{"apiVersion":"kubeflow.org/v1","\u006bind":"PyTorchJob","metadata":{"name":"mnist"},
"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"],"env":[{"name":"C","value":"caf\u00e9 \u0041"}]}]}}}}}}]]
    local doc = read_back(s, "-f", "manifest")
    assert.are.equal("café A", ctr(worker(doc)).env[1].value)
  end)

  it("CRLF line endings read as LF (no \\r in any value)", function()
    local s = pt{ ctr = "            args: [--lr, \"0.1\"]\n" }:gsub("\n", "\r\n")
    local code, out, err = conv(s)
    assert.are.equal(0, code, err)
    assert.is_nil(out:find("\r", 1, true))
    assert.are.same({ "--lr", "0.1" }, ctr(worker(doc1(out))).args)
  end)

  it("tabs after values and before comments", function()
    local s = pt{ wrep = "replicas: 3\t# three workers", ctr = "            args: [a,\tb]\t\n" }
    local doc = read_back(s)
    local w = worker(doc)
    assert.are.equal(3, w.replicas)
    assert.are.same({ "a", "b" }, ctr(w).args)
  end)

  it("an anchor and a YAML 1.1 merge key (<<: *master) with replicas overridden", function()
    local s = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: mk}
spec:
  pytorchReplicaSpecs:
    Master: &master
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - {name: pytorch, image: r/m:1, command: [python, train.py]}
    Worker:
      <<: *master
      replicas: 4
]]
    local doc = read_back(s)
    local w = worker(doc)
    assert.are.equal(4, w.replicas)
    assert.are.equal("r/m:1", ctr(w).image)
  end)

  it("a literal block (|) in args and a folded block (>-) in an env value", function()
    local s = pt{ ctr = "            args:\n            - |\n              line one\n\n              line two\n"
      .. "            env:\n            - name: F\n              value: >-\n                folded\n                text\n" }
    local doc = read_back(s)
    local c = ctr(worker(doc))
    assert.are.equal("line one\n\nline two\n", c.args[1])
    assert.are.equal("folded text", c.env[1].value)
  end)

  it("comments everywhere: after ---, in flow sequences, between keys, last line without a newline", function()
    local s = "--- # the job\n# before apiVersion\napiVersion: kubeflow.org/v1 # v1\nkind: PyTorchJob\nmetadata:\n"
      .. "  # the name\n  name: c\nspec:\n  pytorchReplicaSpecs:\n    Worker: # workers\n      replicas: 2\n"
      .. "      restartPolicy: OnFailure\n      template:\n        spec:\n          containers:\n"
      .. "          - name: pytorch # the task\n            image: r/m:1\n"
      .. "            command: [python, # interpreter\n              train.py]\n# trailing comment"
    local doc = read_back(s)
    local w = worker(doc)
    assert.are.equal(2, w.replicas)
    assert.are.same({ "python", "train.py" }, ctr(w).command)
  end)

  it("explicit tags: replicas: !!int \"3\" is 3, value: !!str 0123 is \"0123\"", function()
    local s = pt{ wrep = 'replicas: !!int "3"', ctr = "            env:\n            - {name: ID, value: !!str 0123}\n" }
    local doc = read_back(s)
    local w = worker(doc)
    assert.are.equal(3, w.replicas)
    assert.are.equal("0123", ctr(w).env[1].value)
  end)

  it("an explicit key (? name : pytorch) reads as a plain one", function()
    local s = pt():gsub("%- name: pytorch\n", "- ? name\n            : pytorch\n")
    local doc = read_back(s)
    assert.are.equal("pytorch", ctr(worker(doc)).name)
  end)

  it("~ and null for optional fields are no value (nodeSelector: ~, args: null)", function()
    local s = pt{ pod = "          nodeSelector: ~\n", ctr = "            args: null\n" }
    local doc = read_back(s)
    local w = worker(doc)
    assert.is_nil(w.template.spec.nodeSelector)
    assert.is_nil(ctr(w).args)
  end)

  it("double-quoted escapes (\\t, \\u00e9, \\x41) and a single-quoted '' in env values", function()
    local s = pt{ ctr = "            env:\n            - {name: D, value: \"a\\tb\\u00e9\\x41\"}\n"
      .. "            - {name: S, value: 'it''s'}\n" }
    local doc = read_back(s)
    local env = ctr(worker(doc)).env
    assert.are.equal("a\tbéA", env[1].value)
    assert.are.equal("it's", env[2].value)
  end)
  it("an env entry with value: null is the variable set empty (EnvVar.value omitted), not refused", function()
    local doc = read_back(pt{ ctr = "            env:\n            - {name: EMPTY_VAR, value: null}\n            - {name: M, value: x}\n" })
    local env = ctr(worker(doc)).env
    assert.are.equal("EMPTY_VAR", env[1].name)
    assert.are.equal("", env[1].value or "")
    assert.are.equal("M", env[2].name)
  end)
  it("null metadata.labels and annotations (CRD: null of a non-nullable field is pruned, i.e. unset) read as none", function()
    local doc = read_back(pt{ meta = "  labels: ~\n  annotations: null\n" })
    assert.is_nil(doc.metadata.labels)
  end)

  it("runPolicy: null and template metadata: ~ (pruned by the API server) read as unset", function()
    local doc = read_back(pt{ spec = "  runPolicy: null\n", tmeta = "        metadata: ~\n" })
    assert.are.equal(2, worker(doc).replicas)
  end)

  it("tolerations: ~, volumes: null, affinity: ~ in a pod template (Helm's toYaml of an empty value) read as none", function()
    local doc = read_back(pt{ pod = "          tolerations: ~\n          volumes: null\n          affinity: ~\n" })
    local spec = worker(doc).template.spec
    assert.is_nil(spec.tolerations)
    assert.is_nil(spec.affinity)
  end)

  it("a container's resources: ~, securityContext: ~ and ports: ~ read as none", function()
    local doc = read_back(pt{ ctr = "            resources: ~\n            securityContext: ~\n            ports: ~\n" })
    local c = ctr(worker(doc))
    assert.is_nil(c.securityContext)
    assert.is_nil(c.ports)
  end)

  it("Worker replicas: ~ is unset, so the operator's default 1", function()
    local doc = read_back(pt{ wrep = "replicas: ~" })
    assert.are.equal(1, worker(doc).replicas or 1)
  end)

  it("every YAML 1.1 look-alike string, quoted in the input, comes back a string through convert, -f config-yaml and -f lua", function()
    local words = { "on", "0123", "1e3", "y", "null", "0x1F", "1_000", "0b1", "0o17", ".inf", "2001-12-14", "~",
      "+1", "-.5", "NO", "1.0", "Off", "", " lead", "trail ", "#x", "a: b", "- x", "*x", "&x", "!x", "%x", "@x",
      "|", ">", "'", "{", "[", "true", "False", "12:30:00", "0.", "1__0" }
    local items = {}
    for i, w in ipairs(words) do items[i] = '"' .. w .. '"' end
    local text = pt{ ctr = "            args: [" .. table.concat(items, ", ") .. "]\n" }
    local doc = read_back(text)
    assert.are.same(words, ctr(worker(doc)).args)
    assert.are.same(words, ctr(worker(through("config-yaml", text))).args)
    assert.are.same(words, ctr(worker(through("lua", text))).args)
  end)

  it("a data config with %YAML 1.1: replicas 0b11 is 3 and an env value \"\" kept before the variable that refers to it", function()
    local cfg = "%YAML 1.1\n---\njobs:\n  a:\n    kind: PyTorchJob\n    worker:\n      replicas: 0b11\n      image: r/m:1\n"
      .. "    container:\n      image: r/m:1\n      command: [python]\n      env:\n        - {name: E, value: \"\"}\n        - {name: F, value: \"$(E)x\"}\n"
    local m = doc1(render(cfg, ".yaml"))
    local w = worker(m)
    assert.are.equal(3, w.replicas)
    local env = ctr(w).env
    assert.are.same({ "E", "F" }, { env[1].name, env[2].name })
    assert.are.equal("", env[1].value or "")
  end)
  it("JSON \\uffff (a noncharacter, valid JSON and a valid Go string) in an annotation survives -f lua as it does -f manifest", function()
    local js = [[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"u","annotations":{"n":"a\uffffb"}},
"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]]
    local code, out, err = conv(js, "-f", "manifest")
    assert.are.equal(0, code, err)
    assert.are.equal("a\239\191\191b", doc1(out).metadata.annotations.n)
    code, out, err = conv(js, "-f", "lua")
    if code ~= 0 then names(err, "metadata.annotations") return end
    assert.are.equal("a\239\191\191b", doc1(render(out, ".lua")).metadata.annotations.n)
  end)

  it("JSON's lone surrogate \\ud800 (Go's encoding/json reads it as U+FFFD) is read so, or refused naming the path", function()
    local js = [[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"u","annotations":{"n":"a\ud800b"}},
"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":
{"containers":[{"name":"pytorch","image":"r/m:1","command":["python"]}]}}}}}}]]
    local code, out, err = conv(js, "-f", "manifest")
    if code ~= 0 then names(err, "metadata.annotations") return end
    assert.are.equal("a\239\191\189b", doc1(out).metadata.annotations.n)
  end)
end)
