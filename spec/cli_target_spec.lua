-- `kfjob render --target` and `kfjob check --target` (SPEC §7, §11): the
-- target's rules on the CLI, its did-you-mean and exit status 2 for an
-- unknown name.  Run as a separate process (build/kfjob, or $KFJOB_CLI).
local util = require "util"
if not util.cli_ok then
  describe("kfjob CLI --target", function() pending(util.cli_why("the kfjob CLI and host API are built for Lua 5.4 only")) end)
  return
end

local json = require "dkjson"
local kfjob = util.kfjob

local CONFIG = os.tmpname() .. ".lua"
local SOLO = os.tmpname() .. ".lua"

setup(function()
  local f = assert(io.open(CONFIG, "wb"))
  f:write([[
local kfjob = require "kfjob"
return {
  solo = kfjob.PyTorchJob { master = { image = "img:1" }, shared_memory = true },
  tf = kfjob.TFJob { ps = { replicas = 1, image = "img:1" }, chief = { replicas = 2, image = "img:1" } },
  el = kfjob.Elastic { nnodes = 2, nproc_per_node = "auto", worker = { image = "e:1" }, shared_memory = true },
}
]])
  f:close()
  f = assert(io.open(SOLO, "wb"))
  f:write('local kfjob = require "kfjob"\nreturn kfjob.PyTorchJob { master = { image = "img:1" }, shared_memory = true }\n')
  f:close()
end)
teardown(function() os.remove(CONFIG); os.remove(SOLO) end)

describe("kfjob check --target", function()
  it("defaults to flyte: errors make jobs invalid, warnings are listed", function()
    local code, out = kfjob("check", CONFIG)
    assert.are.equal(1, code)
    assert.matches("Elastic el is invalid: kfjob.Elastic: nproc_per_node: 'auto' cannot be expressed", out, 1, true)
    assert.matches("(target flyte; rule R10: ", out, 1, true)
    -- each refusal names its rule and the rule's upstream source (flyteplugins)
    assert.matches("TFJob tf is invalid: kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte; "
                   .. "rule R3: flyteplugins tensorflow.go BuildResource: number of workers must be greater "
                   .. "than 0)", out, 1, true)
    assert.matches("PyTorchJob solo: warning: worker.replicas: 0: a master-only PyTorchJob", out, 1, true)
    assert.matches("Summary: 3 jobs found, 1 valid, 2 invalid, 1 warning\n", out, 1, true)
  end)

  it("flyte2 refuses the master-only PyTorchJob (R1)", function()
    local code, out = kfjob("check", "--target", "flyte2", CONFIG)
    assert.are.equal(1, code)
    assert.matches("PyTorchJob solo is invalid: kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) "
                   .. "(target flyte2; rule R1: flyteplugins pytorch.go BuildResource (flyte main): number of "
                   .. "workers must be greater than 0)", out, 1, true)
    assert.matches("Summary: 3 jobs found, 0 valid, 3 invalid", out, 1, true)
  end)

  it("operator checks the manifests and adds the operator's warnings", function()
    local code, out = kfjob("check", "--target", "operator", CONFIG)
    assert.are.equal(0, code)
    assert.matches("TFJob tf: warning: chief.replicas: 2: TensorFlow runs at most one chief task", out, 1, true)
    assert.matches("Summary: 3 jobs found, 3 valid, 0 invalid, 1 warning\n", out, 1, true)
    code = kfjob("check", "--target", "operator", "--strict", CONFIG)
    assert.are.equal(1, code)
  end)

  it("names a misspelt target with a did-you-mean and exits 2", function()
    local code, out, err = kfjob("check", "--target", "trainer2.3", CONFIG)
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.matches("kfjob: --target: unknown target 'trainer2.3' (did you mean 'trainer-2.3'?)", err, 1, true)
    local _
    code, _, err = kfjob("render", "--target=k8s", CONFIG)
    assert.are.equal(2, code)
    assert.matches("unknown target 'k8s' (expected flyte, flyte2, operator, mpi-operator, trainer-2.2, "
                   .. "trainer-2.3, trainer-2.4 or flyte2-clustered)", err, 1, true)
  end)

  it("does not apply to decode and diff", function()
    local code, _, err = kfjob("decode", "--target", "flyte", CONFIG)
    assert.are.equal(2, code)
    assert.matches("option '--target' does not apply to this command", err, 1, true)
  end)
end)

describe("kfjob render --target", function()
  it("renders a master-only PyTorchJob for flyte, refuses it for flyte2", function()
    local code, out = kfjob("render", SOLO)
    assert.are.equal(0, code)
    local doc = json.decode(out)
    assert.are.equal("img:1", doc.custom.masterReplicas.image)
    assert.is_nil(doc.custom.workerReplicas.replicas)   -- proto3: 0 is left out
    local code2, out2 = kfjob("render", "--target", "flyte", SOLO)
    assert.are.equal(0, code2)
    assert.are.equal(out, out2)
    local code3, out3, err3 = kfjob("render", "--target", "flyte2", SOLO)
    assert.are.equal(1, code3)
    assert.are.equal("", out3)
    assert.matches("kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) (target flyte2)", err3, 1, true)
  end)

  it("refuses a format the target does not emit, naming both", function()
    local code, _, err = kfjob("render", "--target", "operator", SOLO)
    assert.are.equal(1, code)
    assert.matches("kfjob.to_json: target 'operator' has no to_json", err, 1, true)
    code, _, err = kfjob("render", "-f", "template", "--target", "mpi-operator", SOLO)
    assert.are.equal(1, code)
    assert.matches("kfjob.task_template: target 'mpi-operator' has no task_template", err, 1, true)
  end)

  it("passes the target to manifests", function()
    local code, out = kfjob("render", "-f", "manifest-json", "--target", "operator", "--name", "solo", SOLO)
    assert.are.equal(0, code)
    local m = json.decode(out)
    assert.are.equal("PyTorchJob", m.kind)
    assert.is_nil(m.spec.pytorchReplicaSpecs.Worker)
    local code2, _, err2 = kfjob("render", "-f", "manifest-json", "--target", "mpi-operator", "--name", "solo",
                                 SOLO)
    assert.are.equal(1, code2)
    assert.matches("target 'mpi-operator' does not run a PyTorchJob", err2, 1, true)
  end)
end)

describe("kfjob render --target, every manifest target", function()
  local validators, why = util.validators()
  local MPI = os.tmpname() .. ".lua"
  local PT = os.tmpname() .. ".lua"
  setup(function()
    local f = assert(io.open(MPI, "wb"))
    f:write('local kfjob = require "kfjob"\n'
            .. 'return { mpi = kfjob.MPIJob { worker = { replicas = 2 }, slots = 2 },\n'
            .. '  hvd = kfjob.HorovodJob { worker = { replicas = 3 } } }\n')
    f:close()
    f = assert(io.open(PT, "wb"))
    f:write('local kfjob = require "kfjob"\n'
            .. 'return kfjob.PyTorchJob { master = { requests = { cpu = 2 } },\n'
            .. '  worker = { replicas = 3, requests = { cpu = 2 } } }\n')
    f:close()
  end)
  teardown(function() os.remove(MPI); os.remove(PT) end)

  local cases = {
    { "mpi-operator", MPI, "kubeflow.org/v2beta1", "MPIJob" },
    { "trainer-2.2", PT, "trainer.kubeflow.org/v1alpha1", "TrainJob" },
    { "trainer-2.3", PT, "trainer.kubeflow.org/v1alpha1", "TrainJob" },
    { "flyte", MPI, "kubeflow.org/v1", "MPIJob" },
    { "flyte2", PT, "kubeflow.org/v1", "PyTorchJob" },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": the resource of that target, accepted by validate-manifest", function()
      -- a job returned alone is named after --name (the temp file's name is no label)
      local code, out, err
      if c[2] == PT then
        code, out, err = kfjob("render", "-f", "manifest", "--target", c[1], "--image", "img:1",
                               "--name", "job", c[2])
      else
        code, out, err = kfjob("render", "-f", "manifest", "--target", c[1], "--image", "img:1", c[2])
      end
      assert.are.equal(0, code, err)
      assert.matches("apiVersion: " .. c[3] .. "\nkind: " .. c[4] .. "\n", out, 1, true)
      if #validators == 0 then return pending(why) end
      local tmp = os.tmpname()
      local f = assert(io.open(tmp, "wb"))
      f:write(out)
      f:close()
      for _, vd in ipairs(validators) do
        local p = io.popen(vd.cmd .. " --target " .. c[1] .. " " .. tmp .. " 2>&1")
        local report = p:read("*a")
        local ok = p:close()
        assert.is_true(ok, vd.name .. ": " .. report)
      end
      os.remove(tmp)
    end)
  end
end)
