-- The project's manifest validator, tools/validate-manifest, on manifests
-- written here by hand.  Each expected verdict comes from the CRD schema
-- (schema/crds, upstream files named in schema/README.md) or the operator
-- rule named beside the case, never from the validator's own output.
-- Where ../shared/tools/validate-manifest exists, both must also agree on
-- its fixtures (the same objects and field paths refused).
local util = require "util"
local q = util.quote

local validators, why = util.validators()
local mine = validators[1] and validators[1].name == "tools/validate-manifest" and validators[1] or nil
local shared = validators[#validators] and validators[#validators].name:find("^%.%./shared") and validators[#validators]

-- exit status and output of validator vd on the text (a file named .yaml)
local function run(vd, text, args)
  local f = os.tmpname()
  local h = assert(io.open(f, "wb"))
  h:write(text)
  h:close()
  local p = assert(io.popen(vd.cmd .. " " .. (args or "") .. " " .. q(f) .. " 2>&1; echo \"EXIT=$?\""))
  local out = p:read("*a")
  p:close()
  os.remove(f)
  return tonumber(out:match("EXIT=(%d+)%s*$")), out
end

local function pytorch(extra_spec, name)
  return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: %s
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
%s]]):format(name or "pt", extra_spec or "")
end

-- name, target, manifest, expected exit status, expected piece of output
-- (nil: "1 objects, 0 invalid")
local cases = {
  -- training-operator v1.9 (kubeflow.org/v1)
  { "a PyTorchJob with a Master", "operator", pytorch(), 0 },
  { "a null for a non-nullable field is dropped", "operator",
    pytorch("  runPolicy:\n    backoffLimit: null\n"), 0 },
  { "replicas as a string (CRD: integer)", "operator",
    pytorch():gsub("replicas: 1", 'replicas: "1"'), 1, "$.spec.pytorchReplicaSpecs.Master.replicas: [schema]" },
  { "replicas beyond int32 (CRD: format int32)", "operator",
    pytorch("    Worker:\n      replicas: 3000000000\n      template:\n        spec:\n          containers:\n"
            .. "          - name: pytorch\n            image: img:1\n"), 1,
    "$.spec.pytorchReplicaSpecs.Worker.replicas: [schema]" },
  { "a field the CRD does not declare", "operator", pytorch("  workers: 2\n"), 1, "$.spec.workers: [unknown]" },
  { "an ObjectMeta field the pod template's metadata does not declare", "operator",
    pytorch():gsub("        spec:\n", "        metadata:\n          uid: x\n        spec:\n", 1), 1,
    "$.spec.pytorchReplicaSpecs.Master.template.metadata.uid: [unknown]" },
  { "a quantity that is no quantity (CRD pattern)", "operator",
    pytorch():gsub("image: img:1\n", "image: img:1\n            resources:\n              limits:\n"
                   .. "                cpu: 2 cores\n"), 1,
    "$.spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits.cpu: [schema]" },
  { "an uppercase name (DNS-1123 subdomain)", "operator", pytorch(nil, "Train"), 1,
    "$.metadata.name: [metadata] invalid name" },
  { "a name with a dot (pytorchjob_webhook.go: DNS-1035 label)", "operator", pytorch(nil, "a.b"), 1,
    "$.metadata.name: [webhook] invalid name" },
  { "two Masters (pytorchjob_webhook.go validatePyTorchReplicaSpecs)", "operator",
    pytorch():gsub("replicas: 1", "replicas: 2"), 1, "$.spec.pytorchReplicaSpecs.Master.replicas: [webhook] must be 1" },
  { "no container named pytorch (pytorchjob_webhook.go)", "operator",
    pytorch():gsub("name: pytorch", "name: main"), 1,
    '$.spec.pytorchReplicaSpecs.Master.template.spec.containers: [webhook] must have at least one container with name "pytorch"' },
  { "a restartPolicy outside the operator's values", "operator",
    pytorch():gsub("replicas: 1\n", "replicas: 1\n      restartPolicy: Sometimes\n"), 1,
    "$.spec.pytorchReplicaSpecs.Master.restartPolicy: [enum]" },
  { "a TrainJob is no kind of the operator's set", "operator",
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: t\n", 1, "$: [kind]" },
  -- mpi-operator v0.8 (kubeflow.org/v2beta1)
  { "an MPIJob with a Launcher and 2 Workers", "mpi-operator", [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: mpi:1
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: worker
            image: mpi:1
]], 0 },
  { "Worker restartPolicy Always (validation.go validRestartPolicies)", "mpi-operator", [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
          - name: launcher
            image: mpi:1
    Worker:
      replicas: 1
      restartPolicy: Always
      template:
        spec:
          containers:
          - name: worker
            image: mpi:1
]], 1, '$.spec.mpiReplicaSpecs.Worker.restartPolicy: [controller] unsupported value "Always"' },
  { "no Worker count (defaults to 0; validation.go)", "mpi-operator", [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
          - name: launcher
            image: mpi:1
    Worker:
      template:
        spec:
          containers:
          - name: worker
            image: mpi:1
]], 1, "$.spec.mpiReplicaSpecs.Worker.replicas: [controller] must be greater than or equal to 1" },
  { "mpiImplementation outside the CRD enum", "mpi-operator", [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  mpiImplementation: LAM
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
          - name: launcher
            image: mpi:1
]], 1, "$.spec.mpiImplementation: [schema] unsupported value" },
}

-- Kubeflow Trainer (trainer.kubeflow.org/v1alpha1), both releases
local function trainjob(name, runtime, env)
  return ([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: %s
spec:
  runtimeRef:
    name: %s
  trainer:
    numNodes: 2
    env:
    - name: %s
      value: "1"
]]):format(name, runtime, env)
end
for _, t in ipairs{ "trainer-2.2", "trainer-2.3" } do
  cases[#cases + 1] = { "a TrainJob on torch-distributed", t, trainjob("tj", "torch-distributed", "MY_VAR"), 0 }
  cases[#cases + 1] = { "a name that is no DNS-1035 label (CEL on the TrainJob)", t,
    trainjob("9tj", "torch-distributed", "MY_VAR"), 1, "$: [cel]" }
  cases[#cases + 1] = { "a torch env the runtime sets (torch.go Validate)", t,
    trainjob("tj", "torch-distributed", "PET_NNODES"), 1, "$.spec.trainer.env: [webhook] must not have reserved envs" }
  cases[#cases + 1] = { "numNodes as a string (CRD: integer)", t,
    trainjob("tj", "torch-distributed", "X"):gsub("numNodes: 2", 'numNodes: "2"'), 1,
    "$.spec.trainer.numNodes: [schema]" }
end
-- the OpenMPI env names are reserved from v2.3.0 on (mpi.go Validate)
cases[#cases + 1] = { "an OpenMPI env on v2.2 (not reserved yet)", "trainer-2.2",
  trainjob("tj", "deepspeed-distributed", "OMPI_MCA_plm_rsh_args"), 0 }
cases[#cases + 1] = { "an OpenMPI env on v2.3 (reserved)", "trainer-2.3",
  trainjob("tj", "deepspeed-distributed", "OMPI_MCA_plm_rsh_args"), 1,
  "$.spec.trainer.env: [webhook] must not have reserved envs" }

describe("tools/validate-manifest", function()
  for _, c in ipairs(cases) do
    it(c[2] .. ": " .. c[1], function()
      if not mine then return pending(why or "tools/validate-manifest cannot run") end
      local code, out = run(mine, c[3], "--target " .. c[2])
      assert.equal(c[4], code, out)
      assert.truthy(out:find(c[5] or "1 objects, 0 invalid", 1, true), out)
      if c[4] == 1 then assert.truthy(out:find("1 objects, 1 invalid", 1, true), out) end
    end)
  end

  it("--no-strict lets undeclared fields through, types still checked", function()
    if not mine then return pending(why) end
    assert.equal(0, (run(mine, pytorch("  workers: 2\n"), "--no-strict")))
    assert.equal(1, (run(mine, pytorch():gsub("replicas: 1", 'replicas: "1"'), "--no-strict")))
  end)

  it("several documents and a List count object by object", function()
    if not mine then return pending(why) end
    local list = '{"apiVersion": "v1", "kind": "List", "items": [' ..
      '{"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "j"}, "spec": {"jaxReplicaSpecs":' ..
      ' {"Worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "jax", "image": "i"}]}}}}}}]}'
    local code, out = run(mine, pytorch() .. "---\n" .. pytorch(nil, "Bad"))
    assert.equal(1, code, out)
    assert.truthy(out:find("2 objects, 1 invalid", 1, true), out)
    assert.truthy(out:find(":#1 PyTorchJob/Bad: $.metadata.name: [metadata]", 1, true), out)
    code, out = run(mine, list)
    assert.equal(0, code, out)
    assert.truthy(out:find("1 objects, 0 invalid", 1, true), out)
  end)

  it("a file it cannot read is a usage error (exit 2), a repeated key too", function()
    if not mine then return pending(why) end
    local code, out = run(mine, "a: [1,\n")
    assert.equal(2, code, out)
    assert.truthy(out:find(": error: ", 1, true), out)
    code, out = run(mine, pytorch():gsub("kind: PyTorchJob\n", "kind: PyTorchJob\nkind: TFJob\n"))
    assert.equal(2, code, out)
    assert.truthy(out:find("duplicate key", 1, true), out)
    code = run(mine, pytorch(), "--target nowhere")
    assert.equal(2, code)
  end)
end)

-- ../shared/tools/fixtures: each file's target from its name, as its
-- selftest does; the verdicts must agree field path by field path.
describe("tools/validate-manifest agrees with ../shared/tools/validate-manifest", function()
  local dir = "../shared/tools/fixtures"
  local files = {}
  local p = io.popen("ls " .. dir .. "/valid/* " .. dir .. "/invalid/*.yaml " .. dir .. "/invalid/*.json "
                     .. dir .. "/parse-error/* 2>/dev/null")
  for f in p:read("*a"):gmatch("[^\n]+") do files[#files + 1] = f end
  p:close()
  if #files == 0 or not shared or not mine then
    it("on its fixtures", function() pending("../shared/tools (validator and fixtures) missing") end)
    return
  end
  -- object index, path and tag (or "warning") of each problem line
  local function verdicts(vd, f)
    local target = f:match("(mpi%-operator)") or f:match("(trainer%-2%.%d)") or "operator"
    local pp = io.popen(vd.cmd .. " --target " .. target .. " " .. q(f) .. " 2>/dev/null; echo \"EXIT=$?\"")
    local out = pp:read("*a")
    pp:close()
    local got = {}
    for line in out:gmatch("[^\n]+") do
      local idx, path, tag = line:match(":#(%d+) %S+: (%$%S*): (%S+)")
      if idx then got[#got + 1] = idx .. " " .. path .. " " .. (tag:match("^%[%a+%]") or tag) end
    end
    table.sort(got)
    got[#got + 1] = out:match("%d+ objects, %d+ invalid") or "(no summary)"
    got[#got + 1] = out:match("EXIT=%d+")
    return got
  end
  for _, f in ipairs(files) do
    it(f:sub(#dir + 2), function()
      assert.same(verdicts(shared, f), verdicts(mine, f))
    end)
  end
end)

describe("schema/crds", function()
  it("is what scripts/crdschema.py extracts from ../shared/crds today", function()
    if not util.sh_ok("test -d ../shared/crds") then
      return pending("../shared missing: schema/crds not compared (../shared/crds)")
    end
    if not util.sh_ok("/usr/bin/python3 -c 'import yaml'") then
      return pending("python3 cannot import yaml: schema/crds not compared")
    end
    -- the script writes OUT/*.json and reads OUT/../podtemplatespec.json
    local tmp = os.tmpname()
    os.remove(tmp)
    assert(util.sh_ok("mkdir -p " .. q(tmp .. "/crds") .. " && cp schema/podtemplatespec.json " .. q(tmp)))
    assert(util.sh_ok("env -u LD_PRELOAD /usr/bin/python3 scripts/crdschema.py extract ../shared/crds "
                      .. q(tmp .. "/crds")))
    local p = io.popen("diff -r schema/crds " .. q(tmp .. "/crds") .. " 2>&1 | grep -v '^Only in schema/crds: README' | head -5")
    local diff = p:read("*a")
    p:close()
    util.sh_ok("rm -rf " .. q(tmp))
    assert.equal("", diff)
  end)
end)
