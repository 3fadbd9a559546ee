-- A target rule row names what a job must set for its test to find
-- anything (its `needs`); the walk skips the row for a job that sets none
-- of it.  Each such row must still fire on a job that sets its part: the
-- rule and the path its test reports (SPEC §13 R31, R40, R41; FACTS §8.5
-- R13, R33, R35, R36, R51), on Flyte and on the targets whose branch of
-- the test differs.
local kfjob = require "kfjob"

local function found(job, target, rule, path)
  local _, list = job:check{ target = target }
  for _, p in ipairs(list or {}) do
    if p.rule == rule and p.path == path then return true end
  end
  return false
end

local VF = { { name = "A", valueFrom = { fieldRef = { fieldPath = "x" } } } }
local POD = { spec = { nodeSelector = { a = "b" } } }

local CASES = {
  { "R31", "worker.pod_template", "flyte", "TFJob", { worker = { replicas = 1, pod_template = POD } } },
  { "R31", "worker.topology", "flyte", "TFJob", { worker = { replicas = 1, topology = { required = "rack" } } } },
  { "R31", "master.pod_template", "trainer-2.4", "PyTorchJob",
    { worker = { replicas = 1, pod_template = POD }, master = {} } },
  { "R35", "worker.container", "flyte", "TFJob", { worker = { replicas = 1, container = { args = { "a" } } } } },
  { "R35", "worker.container.args", "trainer-2.4", "PyTorchJob",
    { worker = { replicas = 1, container = { args = { "a" } } }, master = {} } },
  { "R36", "container.env[1].valueFrom", "flyte", "TFJob", { worker = { replicas = 1 }, container = { env = VF } } },
  { "R36", "worker.container.env[1].valueFrom", "flyte", "TFJob",
    { worker = { replicas = 1, container = { env = VF } } } },
  { "R51", "container.name", "flyte", "TFJob", { worker = { replicas = 1 }, container = { name = "foo" } } },
  { "R51", "worker.container.name", "flyte", "TFJob", { worker = { replicas = 1, container = { name = "foo" } } } },
  { "R13", "worker.restart_policy", "flyte", "PyTorchJob", { worker = { replicas = 1, restart_policy = "exit_code" } } },
  { "R33", "requests.gpu", "flyte", "TFJob", { worker = { replicas = 1 }, requests = { gpu = "0.5" } } },
  { "R33", "requests.cpu", "flyte", "TFJob",
    { worker = { replicas = 1 }, requests = { cpu = "2" }, limits = { cpu = "1" } } },
  { "R40", "scheduling.topology.slice_size", "flyte", "TFJob",
    { worker = { replicas = 2 }, scheduling = { topology = { required = "rack", slice_required = "block",
                                                             slice_size = 5 } } } },
  { "R41", "scheduling.topology.group", "flyte", "TFJob",
    { worker = { replicas = 2 }, scheduling = { topology = { required = "rack", group = "g" } } } },
}

describe("target rules skipped for what a job does not set", function()
  for _, c in ipairs(CASES) do
    local rule, path, target, ctor, t = c[1], c[2], c[3], c[4], c[5]
    it(rule .. " still reports " .. path .. " (" .. ctor .. ", target " .. target .. ")", function()
      assert.is_true(found(kfjob[ctor](t), target, rule, path))
    end)
  end

  it("a job setting none of their parts reports none of them", function()
    local j = kfjob.TFJob{ worker = { replicas = 2, image = "x:1", requests = { cpu = 1 } } }
    local _, list = j:check{ target = "flyte" }
    for _, p in ipairs(list or {}) do
      assert.is_nil(({ R13 = 1, R31 = 1, R33 = 1, R35 = 1, R36 = 1, R40 = 1, R41 = 1, R51 = 1 })[p.rule])
    end
    assert.is_string(j:encode())
  end)
end)
