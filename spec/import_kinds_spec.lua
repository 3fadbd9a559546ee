-- Reading with opts.kind: every kind asked of every shape gives a job or
-- nil and a message naming a path, never a crash (issue 39: --kind Elastic
-- of a PyTorchJob without elasticPolicy dereferenced the absent policy).
local kfjob = require "kfjob"
local util = require "util"

local KINDS = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob", "JAXJob", "XGBoostJob", "PaddleJob" }

local WORKER_ONLY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: w}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/train:1
]]

local function files()
  local out = {}
  for _, dir in ipairs { "spec/data/import", "spec/data/import/upstream" } do
    local p = io.popen("ls " .. dir .. "/*.yaml " .. dir .. "/*.json 2>/dev/null")
    for f in p:lines() do out[#out + 1] = f end
    p:close()
  end
  return out
end

describe("from_manifest(s) with opts.kind", function()
  it("Elastic of a PyTorchJob without elasticPolicy names the missing policy", function()
    local want = "kfjob.from_manifest: spec.elasticPolicy: missing: an Elastic job is a PyTorchJob "
      .. "with an elasticPolicy (read this one as PyTorchJob)"
    assert.same({ nil, want }, { kfjob.from_manifest(WORKER_ONLY, { kind = "Elastic" }) })
    local jobs, msg = kfjob.from_manifests(WORKER_ONLY, { kind = "Elastic" })
    assert.is_nil(jobs)
    assert.truthy(msg:find("spec.elasticPolicy: missing", 1, true), msg)
    jobs, msg = kfjob.from_manifests(WORKER_ONLY, { kind = "Elastic", lossy = true })
    assert.truthy(jobs or msg)
  end)

  it("every kind asked of every example reads or fails with a message", function()
    local fs = files()
    assert.is_true(#fs >= 20, "the example corpus")
    for _, f in ipairs(fs) do
      local text = util.slurp(f)
      for _, k in ipairs(KINDS) do
        for _, lossy in ipairs { false, true } do
          local jobs, msg = kfjob.from_manifests(text, { kind = k, lossy = lossy })
          assert.is_true(jobs ~= nil or (type(msg) == "string" and msg:find("^kfjob.from_manifests: ") ~= nil),
            f .. " as " .. k .. ": " .. tostring(msg))
        end
      end
    end
  end)
end)

describe("kfjob convert --kind", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  it("Elastic of a worker-only PyTorchJob exits 1 naming the path", function()
    local code, out, err = util.run_cli(WORKER_ONLY, "convert", "-", "--kind", "Elastic")
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(err:find("spec.elasticPolicy: missing", 1, true), err)
  end)
end)
