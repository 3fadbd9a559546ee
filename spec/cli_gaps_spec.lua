-- Gaps of the CLI (issue 39): check and convert print every refusal of
-- the target with its rule, env prints the target's default gang, explain
-- shows each target's values, manifest path and what 0 writes, and decode
-- takes the -f taskspec-json its help lists.  Run as a separate process
-- (build/kfjob, or $KFJOB_CLI); expected values from the upstream facts
-- each case names.
local util = require "util"
if not util.cli_ok then
  describe("kfjob CLI gaps", function() pending(util.cli_why()) end)
  return
end

local json = require "dkjson"
local kfjob, quote = util.kfjob, util.quote

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP)))
local function path(name) return TMP .. "/" .. name end
local function write(name, text)
  local f = assert(io.open(path(name), "wb"))
  f:write(text)
  f:close()
  return path(name)
end
teardown(function() os.execute("rm -rf " .. quote(TMP)) end)

local function count(text, needle)
  local n, at = 0, 1
  while true do
    local s, e = text:find(needle, at, true)
    if not s then return n end
    n, at = n + 1, e + 1
  end
end

-- A PyTorchJob Trainer refuses three times: a TrainJob has no restart
-- policy (trainjob_types.go: R13, twice) and master and workers are one
-- `node` job with one image (torch-distributed runtime: R21).
local THREE = "local kfjob = require 'kfjob'\n"
  .. "return kfjob.PyTorchJob { master = { image = 'a:1', restart_policy = 'always' },\n"
  .. "  worker = { replicas = 2, image = 'b:1', restart_policy = 'on_failure' } }\n"

describe("kfjob check --target: every problem, each with its rule", function()
  it("prints the three refusals job:check{target='trainer-2.3'} returns", function()
    local cfg = write("three.lua", THREE)
    local code, out = kfjob("check", "--target", "trainer-2.3", cfg)
    assert.are.equal(1, code)
    assert.are.equal(3, count(out, "PyTorchJob three is invalid: "))
    assert.matches("three.lua:2 - PyTorchJob three is invalid: kfjob.PyTorchJob: master.restart_policy: 'always' "
                   .. "cannot be expressed", out, 1, true)
    assert.matches("worker.restart_policy: 'on_failure' cannot be expressed", out, 1, true)
    assert.are.equal(2, count(out, "(target trainer-2.3; rule R13: trainer trainjob_types.go (no restart policy "
                                   .. "field))\n"))
    assert.matches("worker.image: differs from master's (b:1 vs a:1)", out, 1, true)
    assert.are.equal(1, count(out, "(target trainer-2.3; rule R21: "))
    -- still one invalid job
    assert.matches("Summary: 1 job found, 0 valid, 1 invalid, 0 warnings\n", out, 1, true)
  end)

  it("a kind the target does not run is a problem with its rule too (R24)", function()
    local cfg = write("tf.lua", "local kfjob = require 'kfjob'\nreturn kfjob.TFJob { worker = { replicas = 2 } }\n")
    local code, out = kfjob("check", "--target", "trainer-2.3", cfg)
    assert.are.equal(1, code)
    -- Trainer ships no TensorFlow runtime (manifests/base/runtimes)
    assert.matches("TFJob tf is invalid: kfjob.TFJob: kind: a TFJob cannot be expressed", out, 1, true)
    assert.matches("(target trainer-2.3; rule R24: trainer manifests/base/runtimes", out, 1, true)
  end)

  it("-f json lists the problems with path, message, rule, source and target", function()
    local cfg = write("three.lua", THREE)
    local code, out = kfjob("check", "-f", "json", "--target", "trainer-2.3", cfg)
    assert.are.equal(1, code)
    local doc = assert(json.decode(out))
    local ps = doc.jobs[1].problems
    assert.are.equal(3, #ps)
    local rules = {}
    for _, p in ipairs(ps) do
      rules[#rules + 1] = p.rule .. " " .. p.path
      assert.are.equal("trainer-2.3", p.target)
      assert.is_true(#p.source > 0)
    end
    table.sort(rules)
    assert.same({ "R13 master.restart_policy", "R13 worker.restart_policy", "R21 worker.image" }, rules)
  end)

  it("a job valid on the target prints no problem", function()
    local cfg = write("ok.lua", "local kfjob = require 'kfjob'\n"
                      .. "return kfjob.PyTorchJob { worker = { replicas = 2 } }\n")
    local code, out = kfjob("check", "--target", "trainer-2.3", "--image", "img:1", cfg)
    assert.are.equal(0, code)
    assert.is_nil(out:find("invalid:", 1, true))
  end)
end)

describe("kfjob convert --to: every refusal, each with its rule", function()
  it("a manifest: one stderr line per problem, nothing written", function()
    local code, yaml = kfjob("render", "-f", "manifest", "--name", "three", write("three.lua", THREE))
    assert.are.equal(0, code)
    local out, err
    code, out, err = kfjob("convert", write("three.yaml", yaml), "--to", "trainer-2.3")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(3, count(err, "three.yaml: document 1: kfjob.PyTorchJob: "))
    assert.are.equal(2, count(err, "(target trainer-2.3; rule R13: "))
    assert.are.equal(1, count(err, "(target trainer-2.3; rule R21: "))
  end)

  it("a Lua config: the same, named by its line and job", function()
    local code, out, err = kfjob("convert", write("three.lua", THREE), "--to", "trainer-2.3")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(3, count(err, "three.lua:2: job 'three': kfjob.PyTorchJob: "))
    assert.are.equal(2, count(err, "; rule R13: "))
  end)
end)

describe("kfjob env: the gang of a job that sets none", function()
  -- FACTS-cited defaults: training-operator job.go Σ replicas, mpi-operator
  -- calculateMinAvailable workers + 1, Trainer every pod of the job
  it("mpi-operator: workers + 1", function()
    local cfg = write("mpi.lua", "local kfjob = require 'kfjob'\n"
                      .. "return kfjob.MPIJob { worker = { replicas = 3 } }\n")
    local code, out, err = kfjob("env", cfg, "--name", "m", "--target", "mpi-operator")
    assert.are.equal(0, code, err)
    assert.are.equal(1, out:find("# m: gang 4 (default)\n# m launcher-0\n", 1, true))
  end)

  it("operator: Σ replicas; Trainer: every pod", function()
    local cfg = write("pt.lua", "local kfjob = require 'kfjob'\n"
                      .. "return kfjob.PyTorchJob { worker = { replicas = 2 } }\n")
    local code, out = kfjob("env", cfg, "--name", "p")
    assert.are.equal(0, code)
    assert.are.equal(1, out:find("# p: gang 3 (default)\n# p master-0\n", 1, true))
    code, out = kfjob("env", cfg, "--name", "p", "--target", "trainer-2.3")
    assert.are.equal(0, code)
    assert.are.equal(1, out:find("# p: gang 3 (default)\n", 1, true))
  end)

  it("a gang's min_available is printed as set", function()
    local cfg = write("g.lua", "local kfjob = require 'kfjob'\n"
                      .. "return kfjob.MPIJob { worker = { replicas = 3 }, "
                      .. "scheduling = { gang = { min_available = 2 } } }\n")
    local code, out = kfjob("env", cfg, "--name", "g", "--target", "mpi-operator")
    assert.are.equal(0, code)
    assert.are.equal(1, out:find("# g: gang 2\n", 1, true))
  end)
end)

describe("kfjob explain --target: each target's values, path and default", function()
  local function explain(...)
    local code, out, err = kfjob("explain", ...)
    assert.are.equal(0, code, err)
    return out
  end

  it("Trainer takes only never for restart_policy (a TrainJob has no restart policy)", function()
    local out = explain("PyTorchJob.worker.restart_policy", "--target", "trainer-2.3")
    assert.matches("VALUES:   never (of never, on_failure, always, exit_code)\n", out, 1, true)
    assert.is_nil(out:find("OnFailure", 1, true))
    assert.matches("on_failure, always, exit_code cannot be expressed (R13: trainer trainjob_types.go", out, 1, true)
    -- the mpi-operator takes Never and OnFailure (validation.go validateReplicaSpec)
    out = explain("MPIJob.worker.restart_policy", "--target", "mpi-operator")
    assert.matches("VALUES:   never, on_failure (of never, on_failure, always, exit_code)\n", out, 1, true)
    out = explain("PyTorchJob.worker.restart_policy", "--target", "operator")
    assert.matches("VALUES:   never, on_failure, always, exit_code (of", out, 1, true)
  end)

  it("MPIJob.slots on mpi-operator is spec.slotsPerWorker (v2beta1), not a v1 target's line", function()
    local out = explain("MPIJob.slots", "--target", "mpi-operator")
    local line = out:match("\nON TARGET mpi%-operator %(mpi%-operator v0%.8 %(MPIJob kubeflow%.org/v2beta1%)%):\n"
                           .. "  manifest: ([^\n]*)")
    assert.matches("spec.slotsPerWorker", line, 1, true)
    assert.is_nil(out:find("manifest (operator, flyte, flyte2)", 1, true))
    assert.matches("unset: [^\n]*spec%.slotsPerWorker: 1", out)
  end)

  it("backoff_limit 0: the operator writes backoffLimit: 0, Flyte's proto3 payload drops it", function()
    local out = explain("PyTorchJob.run_policy.backoff_limit", "--target", "operator")
    assert.matches("  0:        writes spec.runPolicy.backoffLimit: 0\n", out, 1, true)
    out = explain("PyTorchJob.run_policy.backoff_limit", "--target", "flyte")
    assert.matches("  0:        nothing written\n", out, 1, true)
    -- Trainer: no backoff limit (trainjob_types.go), dropped with R20's warning
    out = explain("PyTorchJob.run_policy.backoff_limit", "--target", "trainer-2.3")
    assert.matches("  manifest: nothing written\n", out, 1, true)
    assert.matches("(R20: ", out, 1, true)
  end)

  -- a black-box tester found the pytorch plugin's fields shown for a clustered
  -- task, "not carried" for its own fields and the NNODES entry by index
  it("flyte2-clustered: the ClusteredTaskSpec's place of each field, env entries by name, R43", function()
    local places = {
      interconnect = "interconnect", restart_on_host_maintenance = "failurePolicy.restartOnHostMaintenance",
      nnodes = "replicas", nproc_per_node = "nprocPerNode", rdzv_backend = "runtime.torchrun.rdzvBackend",
      max_restarts = "runtime.torchrun.maxRestarts", ["run_policy.backoff_limit"] = "failurePolicy.maxRestarts",
      ["run_policy.ttl_seconds_after_finished"] = "ttlSecondsAfterFinished",
    }
    for field, at in pairs(places) do
      local out = explain("Elastic." .. field, "--target", "flyte2-clustered")
      assert.matches("\n  payload:  " .. at .. "\n", out, 1, true)
      assert.is_nil(out:find("field elastic_config", 1, true), field)
      assert.matches("  plugin message: flyte2-clustered's own", out, 1, true)
    end
    local out = explain("Elastic.nnodes", "--target", "flyte2-clustered")
    assert.matches("containers[0].env[name=NNODES].value", out, 1, true)
    assert.matches("RULES:    R9, R43 ", out, 1, true)
    -- the pytorch plugin's place stays on flyte
    assert.matches("field elastic_config.min_replicas", explain("Elastic.nnodes", "--target", "flyte"), 1, true)
  end)

  it("Trainer puts a group's image and the node count in spec.trainer", function()
    local out = explain("PyTorchJob.worker.image", "--target", "trainer-2.3")
    assert.matches("  manifest: spec.trainer.image (the same value on every group)\n", out, 1, true)
    out = explain("PyTorchJob.worker.replicas", "--target", "trainer-2.2")
    assert.matches("  manifest: spec.trainer.numNodes\n", out, 1, true)
  end)

  it("differs by target, and without --target shows every target that runs the kind", function()
    local seen = {}
    for _, t in ipairs({ "flyte", "operator", "trainer-2.3" }) do
      local out = explain("PyTorchJob.run_policy.backoff_limit", "--target", t)
      assert.is_nil(seen[out], t)
      seen[out] = true
    end
    local all = explain("PyTorchJob.worker.restart_policy")
    for _, t in ipairs({ "flyte", "flyte2", "operator", "trainer-2.2", "trainer-2.3" }) do
      assert.matches("\nON TARGET " .. t .. " (", all, 1, true)
    end
    assert.is_nil(all:find("ON TARGET mpi-operator", 1, true))
  end)

  it("errors carry one kfjob: prefix", function()
    local code, out, err = kfjob("explain", "PyTorchJob.worker.replcas")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("kfjob: explain: PyTorchJob.worker: unknown field 'replcas' (did you mean 'replicas'?)\n", err)
    local _
    code, _, err = kfjob("explain", "JAXJob", "--target", "flyte")
    assert.are.equal(1, code)
    assert.are.equal("kfjob: explain: target 'flyte' does not run a JAXJob\n", err)
  end)
end)

describe("kfjob decode -f taskspec-json", function()
  local ARGS = { "--project", "p", "--domain", "d", "--version", "v1", "--image", "img:1" }
  local function render(fmt, cfg)
    return kfjob("render", "-f", fmt, cfg, table.unpack(ARGS))
  end

  it("writes a TaskSpec (bytes or JSON) back whole", function()
    local cfg = write("ts.lua", "local kfjob = require 'kfjob'\n"
                      .. "return kfjob.MPIJob { worker = { replicas = 2 }, slots = 2 }\n")
    local code, pb = render("taskspec", cfg)
    assert.are.equal(0, code)
    local code2, want = render("taskspec-json", cfg)
    assert.are.equal(0, code2)
    local code3, out, err = kfjob("decode", "-f", "taskspec-json", write("ts.pb", pb))
    assert.are.equal(0, code3, err)
    assert.are.equal(want, out)
    local code4, out2 = kfjob("decode", "-f", "taskspec-json", write("ts.json", want))
    assert.are.equal(0, code4)
    assert.are.equal(want, out2)
  end)

  it("refuses a TaskTemplate (it has no task id to write back), exit 1", function()
    local cfg = write("tt.lua", "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob { worker = { replicas = 1 } }\n")
    local code, tt = kfjob("render", "-f", "template", cfg)
    assert.are.equal(0, code)
    local code2, out, err = kfjob("decode", "-f", "taskspec-json", write("tt.pb", tt))
    assert.are.equal(1, code2)
    assert.are.equal("", out)
    assert.matches("tt.pb: -f taskspec-json writes a TaskSpec back and this is a TaskTemplate", err, 1, true)
  end)

  it("decode --help lists the formats decode prints", function()
    local code, out = kfjob("decode", "--help")
    assert.are.equal(0, code)
    local f = out:match("%-f, %-%-format FMT(.-)\n  %-T")
    assert.matches("taskspec-json", f, 1, true)
    assert.is_nil(f:find(" pb", 1, true))
    local code2, _, err = kfjob("decode", "-f", "pb", path("ts.pb"))
    assert.are.equal(2, code2)
    assert.matches("decode prints text: -f json, yaml, manifest, template-json, manifest-json or taskspec-json",
                   err, 1, true)
  end)
end)
