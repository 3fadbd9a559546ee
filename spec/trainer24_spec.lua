-- Target trainer-2.4 (SPEC §18, FACTS §12.2): Kubeflow Trainer v2.4.0's
-- TrainJob.  Its rules are v2.3's plus the CEL rules of trainer#3809
-- (Trainer.numProcPerNode self >= 1, Trainer.numNodes Minimum 0); the
-- project's validator checks v2.4 manifests against the v2.3 CRD plus those
-- rules until the v2.4 CRD is vendored.  Expected values come from the
-- release and the API, never from kfjob's output.
local kfjob = require "kfjob"
local util = require "util"
local validators, why = util.validators()

local function validate(text, target)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  local out = {}
  for _, vd in ipairs(validators) do
    -- the shared validator predates v2.4: its v2.3 set is the CRD v2.4 is checked against
    local t = (vd.name ~= "tools/validate-manifest" and target == "trainer-2.4") and "trainer-2.3" or target
    -- the exit status from the shell (a popen's close gives none on Lua 5.1)
    local p = io.popen(vd.cmd .. " --target " .. t .. " " .. path .. " 2>&1; echo rc=$?")
    local report = p:read("*a")
    p:close()
    out[#out + 1] = { ok = report:match("rc=0%s*$") ~= nil, report = report, name = vd.name }
  end
  os.remove(path)
  return out
end

local PT = kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 } }
local EL = kfjob.Elastic{ nnodes = 2, nproc_per_node = 4, worker = {} }

describe("target trainer-2.4", function()
  it("is listed by kfjob.targets() after trainer-2.3, for PyTorchJob, Elastic, JAXJob and XGBoostJob", function()
    local names, by = {}, {}
    for i, t in ipairs(kfjob.targets()) do names[i] = t.name; by[t.name] = t end
    local at
    for i, n in ipairs(names) do if n == "trainer-2.4" then at = i end end
    assert.is_truthy(at)
    assert.are.equal("trainer-2.3", names[at - 1])
    assert.are.same({ "PyTorchJob", "Elastic", "JAXJob", "XGBoostJob" }, by["trainer-2.4"].kinds)
    assert.are.same({ "manifest", "environment" }, by["trainer-2.4"].emits)
    assert.matches("Trainer v2.4", by["trainer-2.4"].runs, 1, true)
  end)

  it("writes the TrainJob v2.3 writes: numNodes = master + workers, numProcPerNode 1", function()
    local m = PT:manifest{ name = "job", image = "img:1", target = "trainer-2.4" }
    assert.are.equal("trainer.kubeflow.org/v1alpha1", m.apiVersion)
    assert.are.equal("TrainJob", m.kind)
    assert.are.equal(4, m.spec.trainer.numNodes)
    assert.are.equal(1, m.spec.trainer.numProcPerNode)
    assert.are.equal("torch-distributed", m.spec.runtimeRef.name)
    assert.are.same(PT:manifest{ name = "job", image = "img:1", target = "trainer-2.3" }, m)
  end)

  it("an Elastic job's fixed count and nproc_per_node", function()
    local m = EL:manifest{ name = "job", image = "img:1", target = "trainer-2.4" }
    assert.are.equal(2, m.spec.trainer.numNodes)
    assert.are.equal(4, m.spec.trainer.numProcPerNode)
  end)

  it("keeps the v2.3 rules: an elastic range, TFJob, restart policy always", function()
    local ok, errs = kfjob.Elastic{ nnodes = "2:4", worker = {} }:check{ target = "trainer-2.4" }
    assert.is_nil(ok)
    assert.are.equal("R9", errs[1].rule)
    assert.matches("trainer-2.4", errs[1].message .. " (target trainer-2.4)", 1, true)
    local _, e2 = kfjob.TFJob{ worker = { replicas = 2 } }:check{ target = "trainer-2.4" }
    assert.are.equal("R24", e2[1].rule)
    local _, e3 = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1, restart_policy = "always" } }
      :check{ target = "trainer-2.4" }
    local rules = {}
    for _, p in ipairs(e3) do rules[p.rule] = true end
    assert.is_true(rules.R13)
  end)

  it("names itself in its messages", function()
    local err = util.error_of(function()
      return kfjob.PyTorchJob{ master = {}, worker = { replicas = 1, restart_policy = "always" } }
        :manifest{ name = "j", image = "i", target = "trainer-2.4" }
    end)
    assert.matches("(target trainer-2.4)", err, 1, true)
  end)

  it("gives the pods the v2.3 environment (PET_*, port 29500)", function()
    local env = EL:environment{ name = "job", target = "trainer-2.4" }
    local e23 = EL:environment{ name = "job", target = "trainer-2.3" }
    assert.are.same(e23, env)
  end)

  it("an unknown name suggests it", function()
    local err = util.error_of(function() return PT:manifest{ name = "j", target = "trainer-24" } end)
    assert.matches("did you mean 'trainer-2.4'?", err, 1, true)
  end)

  it("kfjob check --target trainer-2.4 through the CLI", function()
    local cli = os.getenv("KFJOB_CLI")
    if not cli then return pending("KFJOB_CLI is not set") end
    local path = os.tmpname()
    local f = assert(io.open(path, "wb"))
    f:write('local kfjob = require "kfjob"\nreturn kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 } }\n')
    f:close()
    local p = io.popen("env -u LD_PRELOAD " .. cli .. " check --target trainer-2.4 --image img:1 --name j "
                       .. path .. " 2>&1; echo rc=$?")
    local out = p:read("*a")
    p:close()
    os.remove(path)
    assert.matches("rc=0%s*$", out)
  end)
end)

describe("validate-manifest --target trainer-2.4", function()
  local function trainjob(trainer)
    return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: j\nspec:\n"
      .. "  runtimeRef:\n    name: torch-distributed\n  trainer:\n" .. trainer
  end

  it("accepts kfjob's TrainJobs", function()
    if #validators == 0 then return pending(why) end
    for _, job in ipairs({ PT, EL }) do
      local text = job:manifest{ name = "job", image = "img:1", target = "trainer-2.4", format = "yaml" }
      for _, r in ipairs(validate(text, "trainer-2.4")) do assert.is_true(r.ok, r.name .. ": " .. r.report) end
    end
  end)

  it("refuses numProcPerNode 0 and numNodes -1 (trainer#3809), which v2.3's CRD takes", function()
    if #validators == 0 then return pending(why) end
    local text = trainjob("    numNodes: -1\n    numProcPerNode: 0\n")
    local r = validate(text, "trainer-2.4")[1]
    assert.is_false(r.ok, r.report)
    assert.matches("$.spec.trainer.numNodes: [cel]", r.report, 1, true)
    assert.matches("$.spec.trainer.numProcPerNode: [cel] numProcPerNode must be greater than or equal to 1",
                   r.report, 1, true)
    local r23 = validate(text, "trainer-2.3")[1]
    assert.is_nil(r23.report:find("numProcPerNode must be greater", 1, true), r23.report)
  end)

  it("takes numNodes 0 (Minimum 0: still valid)", function()
    if #validators == 0 then return pending(why) end
    local r = validate(trainjob("    numNodes: 0\n    numProcPerNode: 1\n"), "trainer-2.4")[1]
    assert.is_nil(r.report:find("[cel]", 1, true), r.report)
  end)
end)
