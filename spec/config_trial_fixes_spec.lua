-- Faults a black-box trial of hand-written configs found; each expected
-- value comes from the upstream behaviour cited (and docs/RULES.md), never
-- from kfjob's output.
local kfjob = require "kfjob"
local util = require "util"

local function rules_of(list, id)
  local out = {}
  for _, p in ipairs(list or {}) do if p.rule == id then out[#out + 1] = p end end
  return out
end

-- A TrainJob has no backoff limit or TTL (trainjob_types.go): a value given
-- as 0 (no retries; delete at once) is dropped like any other (R20).
describe("R20 on Trainer: a run policy value given as 0 is dropped too", function()
  it("backoff_limit = 0 and ttl_seconds_after_finished = 0 warn", function()
    local j = kfjob.JAXJob{ container = { image = "img:1", command = { "python", "t.py" } },
                            worker = { replicas = 2 },
                            run_policy = { backoff_limit = 0, ttl_seconds_after_finished = 0 } }
    local paths = {}
    for _, w in ipairs(rules_of(j:lint{ target = "trainer-2.3" }, "R20")) do paths[w.path] = true end
    assert.is_true(paths["run_policy.backoff_limit"])
    assert.is_true(paths["run_policy.ttl_seconds_after_finished"])
  end)
  it("unset values do not", function()
    local j = kfjob.JAXJob{ container = { image = "img:1" }, worker = { replicas = 2 } }
    assert.same({}, rules_of(j:lint{ target = "trainer-2.3" }, "R20"))
  end)
end)

-- Trainer's JAX plugin reserves no names (jax.go Validate returns nil) and
-- builder.go upserts spec.trainer.env after the plugin's (apply.go upsert:
-- an entry of the same name is replaced in place): the user's value wins,
-- where the plugin's entry was.
describe("a JAXJob's env naming a JAX_* variable on Trainer", function()
  local j = kfjob.JAXJob{ container = { image = "img:1", env = { JAX_NUM_PROCESSES = "9", OTHER = "x" } },
                          worker = { replicas = 2 } }
  it("warns (R16), not an error", function()
    local ok = j:check{ target = "trainer-2.3" }
    assert.is_true(ok)
    local ws = rules_of(j:lint{ target = "trainer-2.3" }, "R16")
    assert.equal(1, #ws)
    assert.equal("container.env.JAX_NUM_PROCESSES", ws[1].path)
    assert.matches("your value replaces it", ws[1].message, 1, true)
  end)
  it("the environment has the user's value at the plugin's place", function()
    local env = j:environment{ name = "jx", target = "trainer-2.3" }
    for _, pod in ipairs{ "node-0-0", "node-0-1" } do
      local names = {}
      for _, v in ipairs(env[pod].env) do names[#names + 1] = v.name .. "=" .. tostring(v.value) end
      assert.equal("JAX_NUM_PROCESSES=9", names[1], table.concat(names, " "))
      assert.equal("OTHER=x", names[#names], table.concat(names, " "))
    end
  end)
end)

-- mpi-operator's Intel and MPICH examples give the launcher its own mpirun
-- line (examples/v2beta1/pi/pi-intel.yaml); kfjob's is flytekit's OpenMPI
-- one (flytekitplugins-kfmpi _get_mpi_launcher_command).
describe("R62: an MPIJob launcher running kfjob's OpenMPI line", function()
  local function mpi(t) t.worker = t.worker or { replicas = 2 } return kfjob.MPIJob(t) end
  it("warns for Intel and MPICH on mpi-operator", function()
    for _, impl in ipairs{ "Intel", "MPICH" } do
      local j = mpi{ container = { image = "img:1", args = { "python", "x.py" } }, mpi_implementation = impl }
      local ws = rules_of(j:lint{ target = "mpi-operator" }, "R62")
      assert.equal(1, #ws, impl)
      assert.equal("mpi_implementation", ws[1].path)
    end
  end)
  it("not for OpenMPI, nor when the launcher has its own line", function()
    local j = mpi{ container = { image = "img:1", args = { "python", "x.py" } }, mpi_implementation = "OpenMPI" }
    assert.same({}, rules_of(j:lint{ target = "mpi-operator" }, "R62"))
    j = mpi{ container = { image = "img:1" }, mpi_implementation = "Intel",
             launcher = { command = { "mpirun", "-n", "2", "/home/mpiuser/pi" } } }
    assert.same({}, rules_of(j:lint{ target = "mpi-operator" }, "R62"))
  end)
  it("task args that start mpirun themselves warn on every MPIJob target", function()
    local j = mpi{ container = { image = "img:1", args = { "mpirun", "-n", "2", "/pi" } } }
    for _, t in ipairs{ "flyte", "operator", "mpi-operator" } do
      local ws = rules_of(j:lint{ target = t }, "R62")
      assert.equal(1, #ws, t)
      assert.equal("container.args", ws[1].path)
    end
  end)
end)

describe("a data config renders all its jobs or none", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local CFG = [[
jobs:
  a-ok:
    kind: PyTorchJob
    container: {image: "img:1", command: [torchrun, t.py]}
    worker: {replicas: 2}
  b-bad:
    kind: Elastic
    container: {image: "img:1"}
    nnodes: "2:4"
]]
  it("a job the target refuses: nothing on stdout, exit 1", function()
    local f = util.tmp(CFG, ".yaml")
    local code, out, err = util.kfjob("render", f, "-f", "manifest", "--target", "trainer-2.3")
    os.remove(f)
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("job 'b-bad'", err, 1, true)
  end)
  it("--keep-going writes the others", function()
    local f = util.tmp(CFG, ".yaml")
    local code, out = util.kfjob("render", f, "-f", "manifest", "--target", "trainer-2.3", "--keep-going")
    os.remove(f)
    assert.equal(1, code)
    assert.matches("name: a-ok", out, 1, true)
  end)
end)
