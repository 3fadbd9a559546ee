-- Issue 33: promises of the last round that did not hold, each pinned here
-- with values from upstream (FACTS §8.5, the Kubernetes label-key syntax),
-- not from kfjob's own output.

local kfjob = require "kfjob"

describe("with: dotted keys are paths at the top level only", function()
  local base = kfjob.PyTorchJob{ worker = { replicas = 2 } }
  it("keeps a dotted key inside a nested table as one key", function()
    local j = base:with{ pod_template = { spec = { nodeSelector = {
      ["cloud.google.com/gke-nodepool"] = "b", ["kubernetes.io/arch"] = "amd64" } } } }
    local sel = j:spec().pod_template.spec.nodeSelector
    assert.are.equal("b", sel["cloud.google.com/gke-nodepool"])
    assert.are.equal("amd64", sel["kubernetes.io/arch"])
    assert.is_nil(sel.cloud)
  end)
  it("resource and label keys with dots, nested", function()
    local j = base:with{ pod_template = { metadata = { labels = { ["app.kubernetes.io/name"] = "x" } } } }
    assert.are.equal("x", j:spec().pod_template.metadata.labels["app.kubernetes.io/name"])
  end)
  it("still walks a dotted key at the top level", function()
    assert.are.equal(8, base:with{ ["worker.replicas"] = 8 }:spec().worker.replicas)
  end)
  it("the templating layer's sweeps too (node pools as values of an axis)", function()
    local t = require "kfjob.template"
    local function pool(p)
      return { spec = { nodeSelector = { ["cloud.google.com/gke-nodepool"] = p } } }
    end
    local seen = {}
    for _, job in t.variants(base, { pod_template = { pool("a"), pool("b") } }) do
      seen[#seen + 1] = job:spec().pod_template.spec.nodeSelector["cloud.google.com/gke-nodepool"]
    end
    assert.same({ "a", "b" }, seen)
  end)
end)

describe("R10 on flyte: an integer nproc_per_node goes to the deprecated field", function()
  local function r10(list)
    for _, w in ipairs(list) do if w.rule == "R10" then return w end end
  end
  for _, t in ipairs { "flyte", "flyte2", "operator" } do
    it("warns on " .. t, function()
      local w = r10(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:lint{ target = t })
      assert.is_table(w)
      assert.are.equal("nproc_per_node", w.path)
      assert.is_truthy(w.message:find("elasticPolicy.nProcPerNode", 1, true))
      assert.is_true(#w.source > 0)
      assert.is_true(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:check{ target = t })
    end)
  end
  it("not on trainer-2.3 (numProcPerNode is an int32 there)", function()
    assert.is_nil(r10(kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:lint{ target = "trainer-2.3" }))
  end)
end)
