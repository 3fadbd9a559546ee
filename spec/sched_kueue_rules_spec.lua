-- Kueue's rules for a job's scheduling that hold on every target (SPEC §13,
-- R27), from Kueue's own validation: pkg/controller/jobframework/
-- tas_validation.go (levels are label names, ValidateLabelName; one topology
-- mode per pod set; slice-required-topology and slice-size need each other;
-- a pod set group asks for the same level) and pkg/controller/constants
-- (the labels scheduling writes).  Expected values are Kueue's and
-- Kubernetes', never kfjob's own output.
local kfjob = require "kfjob"

local REQ = "kueue.x-k8s.io/podset-required-topology"

local function build(t)
  local ok, err = pcall(kfjob.PyTorchJob, t)
  return ok, not ok and tostring(err) or nil
end

describe("topology levels are node label names (Kueue ValidateLabelName)", function()
  -- IsQualifiedName: [DNS-1123 subdomain '/'] name of at most 63
  -- [A-Za-z0-9][-A-Za-z0-9_.]*[A-Za-z0-9]
  local BAD = { "a/b/c", "/rack", "rack/", "UPPER.example.com/rack", "ex.com/-rack",
                string.rep("a", 64) }
  local GOOD = { "rack", "example.com/rack", "cloud.provider.com/topology-block",
                 "kubernetes.io/hostname", string.rep("a", 63) }
  for _, key in ipairs{ "required", "preferred", "slice_required" } do
    it(key .. " on the job and on a group", function()
      local function topo(v)
        local t = { [key] = v }
        if key == "slice_required" then t.required, t.slice_size = "zone", 1 end
        return t
      end
      for _, v in ipairs(BAD) do
        local ok, err = build{ master = {}, worker = { replicas = 1 }, scheduling = { topology = topo(v) } }
        assert.is_false(ok, v)
        assert.matches("scheduling.topology." .. key .. ": '" .. v:gsub("%p", "%%%0") .. "' is not a label key", err)
        ok, err = build{ master = {}, worker = { replicas = 1, topology = topo(v) } }
        assert.is_false(ok, v)
        assert.matches("worker.topology." .. key .. ": '", err, 1, true)
      end
      for _, v in ipairs(GOOD) do
        assert.is_true((build{ master = {}, worker = { replicas = 1 }, scheduling = { topology = topo(v) } }), v)
        assert.is_true((build{ master = {}, worker = { replicas = 1, topology = topo(v) } }), v)
      end
    end)
  end
  it("a manifest whose level is not a label name keeps the annotation in the template", function()
    local y = kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                                scheduling = { topology = { required = "rack" } } }
      :manifest{ name = "t", target = "operator", format = "yaml" }
    local bad = y:gsub("podset%-required%-topology: rack", "podset-required-topology: a/b/c")
    assert.are_not.equal(y, bad)
    local j = kfjob.from_manifest(bad)
    assert.is_nil(j:spec().scheduling)
    local m = j:manifest{ name = "t", target = "operator" }
    assert.equal("a/b/c", m.spec.pytorchReplicaSpecs.Worker.template.metadata.annotations[REQ])
  end)
end)
