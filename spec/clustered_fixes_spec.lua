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
    local f = assert(io.open("README.md")); local r = f:read("a"); f:close()
    for _, n in ipairs{ "#4394", "#4301", "#4120", "#4122", "#3386", "#4029" } do
      assert.truthy(r:find(n, 1, true), n)
    end
    assert.truthy(r:find("dataCache.lws.install", 1, true))
    assert.truthy(r:find("helm uninstall", 1, true))
  end)
end)
