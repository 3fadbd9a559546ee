-- JAXJob and XGBoostJob as Trainer TrainJobs on the runtimes Trainer ships
-- for them (jax-distributed, xgboost-distributed): the expected values are
-- Trainer v2.3's plugins (pkg/runtime/framework/plugins/jax/jax.go and
-- xgboost/xgboost.go EnforceMLPolicy and Validate) and its runtimes.
local kfjob = require "kfjob"

local TARGETS = { "trainer-2.2", "trainer-2.3", "trainer-2.4" }
local INDEX = { fieldRef = { fieldPath = "metadata.annotations['batch.kubernetes.io/job-completion-index']" } }

local function jax(t)
  t = t or {}
  t.worker = t.worker or { replicas = 2 }
  t.container = t.container or { image = "jax:1", command = { "python3", "train.py" } }
  return kfjob.JAXJob(t)
end

local function xgb(t)
  t = t or {}
  t.master = t.master or {}
  t.worker = t.worker or { replicas = 2 }
  t.container = t.container or { image = "xgb:1", args = { "--rounds", "10" } }
  return kfjob.XGBoostJob(t)
end

-- name -> { value =, valueFrom = } of a pod's env list
local function vars(list)
  local out, order = {}, {}
  for i, v in ipairs(list) do out[v.name] = v; order[i] = v.name end
  return out, order
end

describe("Trainer: JAXJob on jax-distributed", function()
  for _, t in ipairs(TARGETS) do
    it(t .. ": one node job of numNodes = workers, the command as written", function()
      local m = jax():manifest{ name = "jx", target = t }
      assert.are.equal("TrainJob", m.kind)
      assert.are.equal("jax-distributed", m.spec.runtimeRef.name)
      assert.are.equal("ClusterTrainingRuntime", m.spec.runtimeRef.kind)
      assert.are.equal(2, m.spec.trainer.numNodes)
      assert.are.same({ "python3", "train.py" }, m.spec.trainer.command)
      assert.is_nil(m.spec.trainer.numProcPerNode)
      assert.are.equal("jax:1", m.spec.trainer.image)
    end)
  end

  it("its environment: JAX_* first, then the user's, whose value wins", function()
    local j = jax{ container = { image = "jax:1", env = { JAX_NUM_PROCESSES = "9", A = "1" } } }
    local env = j:environment{ name = "jx", target = "trainer-2.3" }
    local pods = {}
    for k in pairs(env) do pods[#pods + 1] = k end
    table.sort(pods)
    assert.are.same({ "node-0-0", "node-0-1" }, pods)
    local v, order = vars(env["node-0-1"].env)
    -- the TrainJob's env upserted after the plugin's (trainer apply.go
    -- upsert: an entry of the same name is replaced in place, others appended)
    assert.are.same({ "JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS", "A" }, order)
    assert.are.same(INDEX, v.JAX_PROCESS_ID.valueFrom)
    assert.are.equal("jx-node-0-0.jx:29500", v.JAX_COORDINATOR_ADDRESS.value)
    assert.are.equal("9", v.JAX_NUM_PROCESSES.value)
    -- the JAX plugin's Validate reserves no names
    assert.is_true(j:check{ target = "trainer-2.3", name = "jx" })
    local plain = jax():environment{ name = "jx", target = "trainer-2.3" }
    assert.are.equal("2", vars(plain["node-0-0"].env).JAX_NUM_PROCESSES.value)
  end)

  it("reads back from its TrainJob as a JAXJob that renders the same", function()
    for _, t in ipairs(TARGETS) do
      local j = jax{ shared_memory = true }
      local text = j:manifest{ name = "jx", target = t, format = "json" }
      local back = assert(kfjob.from_manifest(text))
      assert.are.equal("JAXJob", back.kind)
      assert.are.equal(2, back:spec().worker.replicas)
      assert.are.equal(text, back:manifest{ name = "jx", target = t, format = "json" })
    end
  end)

  it("a numProcPerNode is refused with its path, not dropped", function()
    local m = jax():manifest{ name = "jx", target = "trainer-2.3" }
    m.spec.trainer.numProcPerNode = 4
    local back, err = kfjob.from_manifest(m)
    assert.is_nil(back)
    assert.matches("spec.trainer.numProcPerNode", err, 1, true)
  end)
end)

describe("Trainer: XGBoostJob on xgboost-distributed", function()
  for _, t in ipairs(TARGETS) do
    it(t .. ": numNodes = master + workers, args as written", function()
      local m = xgb():manifest{ name = "xg", target = t }
      assert.are.equal("xgboost-distributed", m.spec.runtimeRef.name)
      assert.are.equal(3, m.spec.trainer.numNodes)
      assert.are.same({ "--rounds", "10" }, m.spec.trainer.args)
      assert.is_nil(m.spec.trainer.command)
      assert.is_nil(m.spec.trainer.numProcPerNode)
      assert.are.equal(1, xgb{ worker = { replicas = 0 } }:manifest{ name = "xg", target = t }.spec.trainer.numNodes)
    end)
  end

  it("its environment: DMLC_* with DMLC_NUM_WORKER = nodes x GPUs a node", function()
    local env = xgb{ limits = { gpu = 2 } }:environment{ name = "xg", target = "trainer-2.3" }
    local v, order = vars(env["node-0-2"].env)
    assert.are.same({ "DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER" }, order)
    assert.are.equal("xg-node-0-0.xg", v.DMLC_TRACKER_URI.value)
    assert.are.equal("29500", v.DMLC_TRACKER_PORT.value)
    assert.are.same(INDEX, v.DMLC_TASK_ID.valueFrom)
    assert.are.equal("6", v.DMLC_NUM_WORKER.value)
    local cpu = xgb():environment{ name = "xg", target = "trainer-2.3" }
    assert.are.equal("3", vars(cpu["node-0-0"].env).DMLC_NUM_WORKER.value)
  end)

  it("a user's DMLC_* variable is the webhook's error (R16)", function()
    local j = xgb{ container = { image = "xgb:1", env = { DMLC_TASK_ID = "0" } } }
    local ok, problems = j:check{ target = "trainer-2.3", name = "xg" }
    assert.is_nil(ok)
    assert.are.equal("R16", problems[1].rule)
    assert.are.equal("container.env.DMLC_TASK_ID", problems[1].path)
    assert.matches("is reserved for the XGBoost runtime", problems[1].message, 1, true)
  end)

  it("master and workers must agree (one node job, R21)", function()
    local j = xgb{ master = { image = "a:1" }, worker = { replicas = 1, image = "b:1" } }
    local ok, problems = j:check{ target = "trainer-2.3", name = "xg" }
    assert.is_nil(ok)
    assert.are.equal("R21", problems[1].rule)
  end)

  it("reads back from its TrainJob as an XGBoostJob that renders the same", function()
    for _, t in ipairs(TARGETS) do
      for _, j in ipairs{ xgb(), xgb{ worker = { replicas = 0 } },
                          xgb{ pod_template = { spec = { nodeSelector = { pool = "a" } } } } } do
        local text = j:manifest{ name = "xg", target = t, format = "json" }
        local back = assert(kfjob.from_manifest(text))
        assert.are.equal("XGBoostJob", back.kind)
        assert.are.equal(text, back:manifest{ name = "xg", target = t, format = "json" })
      end
    end
  end)

  it("another runtime's TrainJob is still a PyTorchJob naming it", function()
    local m = xgb():manifest{ name = "xg", target = "trainer-2.3" }
    m.spec.runtimeRef.name = "my-runtime"
    local back = assert(kfjob.from_manifest(m))
    assert.are.equal("PyTorchJob", back.kind)
    assert.are.equal("my-runtime", back:spec().runtime)
  end)
end)
