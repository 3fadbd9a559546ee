-- Targets (SPEC §11): the table of systems a job is emitted for.
local kfjob = require "kfjob"

describe("kfjob.targets", function()
  it("lists the targets of SPEC §11 and §18 in the table's order", function()
    local names = {}
    for i, t in ipairs(kfjob.targets()) do names[i] = t.name end
    assert.are.same({"flyte", "flyte2", "operator", "mpi-operator",
                     "trainer-2.2", "trainer-2.3", "trainer-2.4", "flyte2-clustered"}, names)
  end)

  it("says which kinds each target runs and what it emits", function()
    local by = {}
    for _, t in ipairs(kfjob.targets()) do by[t.name] = t end
    assert.are.same({"MPIJob", "HorovodJob"}, by["mpi-operator"].kinds)
    assert.are.same({"manifest", "environment"}, by["mpi-operator"].emits)
    assert.are.same({"encode", "custom", "to_json", "task_template", "task_spec",
                     "manifest", "environment"}, by.flyte.emits)
    for _, k in ipairs(by.flyte.kinds) do
      assert.is_truthy(({TFJob=1, PyTorchJob=1, Elastic=1, MPIJob=1, HorovodJob=1})[k])
    end
    assert.is_string(by["trainer-2.3"].runs)
  end)

  it("returns fresh tables each call", function()
    local a = kfjob.targets()
    a[1].name = "changed"
    assert.are.equal("flyte", kfjob.targets()[1].name)
  end)
end)

describe("opts.target", function()
  local job = kfjob.PyTorchJob{ master = {}, worker = { replicas = 2, image = "img:1" } }

  it("defaults to operator for manifest, byte for byte", function()
    assert.are.equal(job:manifest{ name = "t", format = "json", image = "img:1" },
                     job:manifest{ name = "t", format = "json", image = "img:1", target = "operator" })
  end)

  it("names an unknown target with a did-you-mean", function()
    local ok, err = pcall(job.manifest, job, { name = "t", target = "operatr" })
    assert.is_false(ok)
    assert.matches("kfjob.manifest: opts.target: unknown target 'operatr' (did you mean 'operator'?)",
                   err, 1, true)
    ok, err = pcall(job.manifest, job, { name = "t", target = "k8s" })
    assert.is_false(ok)
    assert.matches("unknown target 'k8s' (expected flyte, flyte2, operator", err, 1, true)
  end)

  it("refuses a kind the target does not run, naming both", function()
    local ok, err = pcall(job.manifest, job, { name = "t", target = "mpi-operator" })
    assert.is_false(ok)
    assert.matches("target 'mpi-operator' does not run a PyTorchJob", err, 1, true)
  end)
end)

describe("task_spec and targets", function()
  local id = { project = "p", domain = "d", name = "n", version = "v" }
  local job = kfjob.PyTorchJob{ master = {}, worker = { replicas = 2 } }

  it("is refused for a target without payloads, naming method and target", function()
    local ok, err = pcall(job.task_spec, job, { id = id, container = { image = "i:1" },
                                                target = "mpi-operator" })
    assert.is_false(ok)
    assert.matches("kfjob.task_spec: target 'mpi-operator' has no task_spec", err, 1, true)
  end)

  it("applies the target's rules (R1: a master-only PyTorchJob on flyte2)", function()
    local solo = kfjob.PyTorchJob{ master = {} }
    local o = { id = id, container = { image = "i:1" } }
    assert.is_string(solo:task_spec(o))             -- flyte: accepted (a warning)
    o.target = "flyte2"
    local ok, err = pcall(solo.task_spec, solo, o)
    assert.is_false(ok)
    assert.matches("^kfjob%.PyTorchJob: worker%.replicas: .*%(target flyte2%)$", err)
  end)
end)

describe("check and lint defaults", function()
  it("a kind Flyte does not carry is checked for operator by default", function()
    local jax = kfjob.JAXJob{ worker = { replicas = 2 } }
    assert.is_true(jax:check())
    local ok, problems = jax:check{ target = "flyte" }
    assert.is_nil(ok)
    assert.are.equal("R24", problems[1].rule)
    assert.are.equal("kind", problems[1].path)
    assert.matches("a JAXJob cannot be expressed: flyte runs only", problems[1].message, 1, true)
  end)

  it("check sees opts.env (R16 is an error on Trainer)", function()
    local job = kfjob.PyTorchJob{ master = {}, worker = { replicas = 1 } }
    assert.is_true(job:check{ target = "trainer-2.3" })
    local ok, problems = job:check{ target = "trainer-2.3", env = { PET_NNODES = "9" } }
    assert.is_nil(ok)
    assert.are.equal("R16", problems[1].rule)
    assert.are.equal("opts.env.PET_NNODES", problems[1].path)
    ok = pcall(job.check, job, { target = "trainer-2.3", env = { ["1bad"] = "x" } })
    assert.is_false(ok)
  end)
end)
