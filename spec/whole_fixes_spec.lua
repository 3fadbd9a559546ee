-- Fixes to the whole job's fields (container.env, labels, annotations,
-- namespace, a group's container): explain asks each target about an env
-- and a string map as it does about a scalar, and says no value of its own
-- in the messages it shows; R16 reads every group's env; a duplicate's
-- "the same as item [N]" counts as the path it stands in.  Expected values
-- from the rules' meaning (docs/RULES.md) and the upstream types each case
-- names.  The CLI cases run on Lua 5.4 (build/kfjob, or $KFJOB_CLI).
local util = require "util"
if not util.cli_ok then
  describe("whole job fixes", function() pending(util.cli_why()) end)
  return
end

local json = require "dkjson"
local kfjob_cli, quote = util.kfjob, util.quote
local kfjob = require "kfjob"

local TMP = util.tmpdir()
local write = util.writer(TMP)   -- write(name, text): a file in TMP, its path
teardown(function() os.execute("rm -rf " .. quote(TMP)) end)

local function explain(...)
  local code, out, err = kfjob_cli("explain", ...)
  assert.are.equal(0, code, err)
  return out
end

-- The lines of target t's ON TARGET block of explain's output, nil: none.
local function block(out, t)
  local at = out:find("\nON TARGET " .. t .. " (", 1, true)
  if not at then return nil end
  local rest = out:sub(at + 1)
  local stop = rest:find("\n\n", 1, true) or #rest
  return rest:sub(1, stop)
end

local function line(blk, label)
  return blk and blk:match("\n  " .. label .. ":%s*([^\n]*)")
end

describe("explain asks each target about an env and a string map", function()
  local PT_ENV = "spec.pytorchReplicaSpecs.%s.template.spec.containers[0].env"

  it("container.env: every target that runs the kind has a block with the env's place", function()
    local out = explain("PyTorchJob.container.env")
    -- the targets that run a PyTorchJob (kfjob.targets())
    for _, t in ipairs { "flyte", "flyte2", "operator", "trainer-2.2", "trainer-2.3" } do
      assert.is_not_nil(block(out, t), t .. " has no ON TARGET block:\n" .. out)
    end
    assert.is_nil(block(out, "mpi-operator"))
    -- the job's env is every replica's main container env (kubeflow.org/v1 pods)
    for _, t in ipairs { "flyte", "flyte2", "operator" } do
      local m = line(block(out, t), "manifest")
      assert.matches(PT_ENV:format("Master"), m, 1, true)
      assert.matches(PT_ENV:format("Worker"), m, 1, true)
      -- the place, not the probe's entries in it
      assert.is_nil(m:find("env[0]", 1, true), m)
    end
    -- a TrainJob's one trainer container: trainjob_types.go Trainer.Env
    for _, t in ipairs { "trainer-2.2", "trainer-2.3" } do
      assert.are.equal("spec.trainer.env", line(block(out, t), "manifest"))
    end
  end)

  it("container.env --target flyte: valueFrom cannot be expressed (R36), a name/value entry is written", function()
    local out = explain("PyTorchJob.container.env", "--target", "flyte")
    assert.is_nil(block(out, "operator"))
    local b = block(out, "flyte")
    assert.matches(PT_ENV:format("Master"), line(b, "manifest"), 1, true)
    -- the TaskTemplate container's env is KeyValuePairs (flyteidl core/tasks.proto)
    assert.matches("^cannot be expressed %(R36: ", line(b, "valueFrom"))
    -- the operator's pods take an EnvVar's valueFrom as given
    b = block(explain("PyTorchJob.container.env", "--target", "operator"), "operator")
    assert.are.equal("taken", line(b, "valueFrom"))
    assert.is_nil(b:find("R36", 1, true))
    b = block(explain("TFJob.container.env", "--target", "flyte2"), "flyte2")
    assert.matches("R36: ", line(b, "valueFrom"), 1, true)
  end)

  it("a group's container.env: only the group's pods on the operator; R35 on Flyte", function()
    local out = explain("PyTorchJob.worker.container.env")
    local m = line(block(out, "operator"), "manifest")
    assert.are.equal(PT_ENV:format("Worker"), m)
    -- Flyte builds every replica from the task's one container
    for _, t in ipairs { "flyte", "flyte2" } do
      assert.matches("^cannot be expressed %(R35: ", line(block(out, t), "manifest"))
    end
  end)

  it("labels and annotations: metadata on every target, R37's warning on flyte and flyte2 only", function()
    for _, f in ipairs { "labels", "annotations" } do
      local out = explain("TFJob." .. f)
      for _, t in ipairs { "flyte", "flyte2" } do
        local b = block(out, t)
        assert.matches("^metadata%." .. f, line(b, "manifest"))
        assert.matches("warning:  [^\n]*%(R37: ", b)
      end
      local b = block(out, "operator")
      assert.are.equal("metadata." .. f, line(b, "manifest"))
      assert.is_nil(b:find("R37", 1, true))
    end
    local out = explain("TFJob.labels", "--target", "flyte")
    assert.matches("(R37: ", out, 1, true)
    assert.is_nil(block(out, "flyte2"))
  end)

  it("a pod template is still not asked", function()
    local out = explain("PyTorchJob.pod_template")
    assert.is_nil(out:find("ON TARGET", 1, true))
    out = explain("PyTorchJob.worker.pod_template", "--target", "operator")
    assert.is_nil(out:find("ON TARGET", 1, true))
  end)
end)

describe("explain says no probe value of its own", function()
  it("MPIJob.namespace on flyte: the warning names the rule, not the probe", function()
    local out = explain("MPIJob.namespace", "--target", "flyte")
    assert.is_nil(out:find("kfjob-probe", 1, true), out)
    assert.matches("warning:  <value> is ignored on Flyte: [^\n]*%(R37: ", out)
  end)

  it("no field of any kind shows a probe string on any target", function()
    local generate = require "kfjob.explain"
    local probes = { "kfjob-probe", "KFJOB_PROBE", "nvidia-tesla-t4", "kubernetes.io/hostname" }
    for _, kind in ipairs(kfjob.kinds) do
      local function walk(rows, pre)
        for k, r in pairs(rows) do
          local out = generate(kind .. "." .. pre .. k)
          for _, p in ipairs(probes) do
            assert.is_nil(out:find(p, 1, true), kind .. "." .. pre .. k .. " shows " .. p .. ":\n" .. out)
          end
          if r.fields then walk(r.fields, pre .. k .. ".") end
        end
      end
      walk(kfjob.fields(kind), "")
    end
  end)
end)

describe("R16 reads every group's container.env", function()
  -- training-operator: setPodEnv gives every PyTorchJob pod MASTER_ADDR,
  -- tensorflow.go every TFJob pod TF_CONFIG; the user's entry comes first
  -- and the operator's wins.
  local CFG = [[
local kfjob = require "kfjob"
return {
  master = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1 },
                             master = { container = { env = { MASTER_ADDR = "x" } } } },
  worker = kfjob.PyTorchJob{ container = { image = "i:1" },
                             worker = { replicas = 3, container = { env = { MASTER_ADDR = "x", OWN = "y" } } } },
  tfworker = kfjob.TFJob{ container = { image = "i:1" }, ps = { replicas = 1 },
                          worker = { replicas = 2, container = { env = { TF_CONFIG = "x" } } } },
  tfps = kfjob.TFJob{ container = { image = "i:1", env = { TF_CONFIG = "j" } }, ps = { replicas = 1 },
                      worker = { replicas = 2, container = { env = { TF_CONFIG = "x" } } } },
  plain = kfjob.PyTorchJob{ container = { image = "i:1" }, worker = { replicas = 1, container = { env = { OWN = "y" } } } },
}
]]

  local function r16_of(jobs)
    local by = {}
    for _, j in ipairs(jobs) do
      by[j.name] = {}
      for _, w in ipairs(j.warnings or {}) do
        if w.message:find("rule R16:", 1, true) then by[j.name][w.path] = w.message end
      end
    end
    return by
  end

  it("warns at the group's path, for the group's pods", function()
    local code, out, err = kfjob_cli("check", write("r16.lua", CFG), "--target", "operator", "-f", "json")
    assert.are.equal(0, code, err)
    local by = r16_of(json.decode(out).jobs)
    assert.is_not_nil(by.master["master.container.env.MASTER_ADDR"])
    local w = by.worker["worker.container.env.MASTER_ADDR"]
    assert.is_not_nil(w, json.encode(by.worker))
    -- the master's pod has no user MASTER_ADDR: not every pod's
    assert.is_nil(w:find("every pod", 1, true), w)
    assert.matches("worker-0", w, 1, true)
    assert.is_nil(by.worker["worker.container.env.OWN"])
    assert.is_not_nil(by.tfworker["worker.container.env.TF_CONFIG"])
    -- the job's env reaches the PS pod only (the workers have their own):
    -- both are warned, each once
    assert.is_not_nil(by.tfps["worker.container.env.TF_CONFIG"])
    assert.is_not_nil(by.tfps["container.env.TF_CONFIG"])
    assert.matches("ps-0", by.tfps["container.env.TF_CONFIG"], 1, true)
    assert.is_nil(next(by.plain))
  end)

  it("job:lint{target='operator'} gives the same R16 warning as check", function()
    local j = kfjob.PyTorchJob{ container = { image = "i:1" },
                                worker = { replicas = 1, container = { env = { RANK = "9" } } } }
    local hit
    for _, w in ipairs(j:lint{ target = "operator" }) do
      if w.rule == "R16" then hit = w end
    end
    assert.is_not_nil(hit)
    assert.are.equal("worker.container.env.RANK", hit.path)
    assert.matches("worker-0", hit.message, 1, true)
  end)
end)

describe("a duplicate names the item it repeats as its path counts", function()
  local ENV3 = { { name = "A", value = "1" }, { name = "B", value = "1" }, { name = "A", value = "2" } }

  it("a job's paths count from 1: the third entry repeats the first", function()
    local ok, err = pcall(kfjob.PyTorchJob, { container = { image = "i:1", env = ENV3 }, worker = { replicas = 1 } })
    assert.is_false(ok)
    assert.matches("container.env[3].name: duplicate (the same as item [1])", err, 1, true)
    ok, err = pcall(kfjob.PyTorchJob, { worker = { replicas = 1, container = { env = ENV3 } } })
    assert.is_false(ok)
    assert.matches("worker.container.env[3].name: duplicate (the same as item [1])", err, 1, true)
  end)

  -- a manifest's paths are Kubernetes' (from 0): the repeated item too
  local function read_bad(edit)
    local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = "i:1" }
    edit(m.spec.pytorchReplicaSpecs.Worker.template.spec)
    local j, err = kfjob.from_manifest(m)
    assert.is_nil(j)
    return err
  end

  it("reading a manifest counts both from 0", function()
    local W = "spec.pytorchReplicaSpecs.Worker.template.spec."
    assert.matches(W .. "containers[0].env[2].name: duplicate (the same as item [0])",
                   read_bad(function(s) s.containers[1].env = ENV3 end), 1, true)
    assert.matches(W .. "containers[1].env[2].name: duplicate (the same as item [0])",
                   read_bad(function(s) s.containers[2] = { name = "side", image = "s:1", env = ENV3 } end), 1, true)
    assert.matches(W .. "volumes[2].name: duplicate (the same as item [0])",
                   read_bad(function(s)
                     s.volumes = { { name = "v", emptyDir = {} }, { name = "w", emptyDir = {} }, { name = "v", emptyDir = {} } }
                   end), 1, true)
    assert.matches(W .. "containers[2].name: duplicate (the same as item [1])",
                   read_bad(function(s)
                     s.containers[2] = { name = "side", image = "s:1" }
                     s.containers[3] = { name = "side", image = "s:1" }
                   end), 1, true)
  end)

  it("kfjob convert of such a manifest says the same", function()
    local y = write("dup.yaml", [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: dup
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: i:1
            env:
            - {name: A, value: "1"}
            - {name: A, value: "2"}
]])
    local code, _, err = kfjob_cli("convert", y, "-f", "lua")
    assert.are_not.equal(0, code)
    assert.matches("Master.template.spec.containers[0].env[1].name: duplicate (the same as item [0])", err, 1, true)
  end)
end)

describe("the encoder's bound with the job's own string lists", function()
  -- the sanitizer builds prove that the packed message fits the bound made
  -- before packing; the job's container.command/args items were not
  -- counted, so `render -f pb -T 0` of such a job aborted there (the ASan
  -- stage runs this against the ASan CLI; Lua's encode bounds a packed job
  -- another way)
  it("render -f pb -T 0 of a job with container.command and args", function()
    local cfg = write("bound.lua", "local kfjob = require 'kfjob'\nreturn { j = kfjob.PyTorchJob{ "
      .. "container = { command = { 'torchrun' }, args = { 'train.py', '--epochs', '3' } }, "
      .. "worker = { replicas = 1 } } }\n")
    local code, out = kfjob_cli("render", cfg, "-f", "pb", "-T", "0")
    assert.equal(0, code)
    assert.equal(kfjob.PyTorchJob { worker = { replicas = 1 } }:encode{ version = 0 }, out)
  end)
end)
