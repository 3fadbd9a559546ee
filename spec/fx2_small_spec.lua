-- Faults a regression tester found (fx2_small), one describe per fault; the
-- expected values come from the documented semantics and Kubernetes /
-- operator behaviour, never from kfjob's own output.
local kfjob = require "kfjob"

describe("a matrix variable used only in a field axis's value", function()
  local T = kfjob.template
  local base = { worker = { replicas = 1 }, container = { image = "i" } }

  it("counts as used (no 'neither a field nor a variable' error)", function()
    local got = {}
    for name, job in T.variants(base, { ["container.image"] = { "r:${tag}" }, tag = { "v1", "v2" } },
                                { kind = "PyTorchJob", name = "j-${worker.replicas}", unique = false }) do
      got[#got + 1] = name .. " " .. job:spec().container.image
    end
    assert.are.same({ "j-1 r:v1", "j-1 r:v2" }, got)
    -- an include entry's field value too
    got = {}
    for _, job in T.variants(base, { tag = { "v1" }, include = { { tag = "v1", ["container.image"] = "q:${tag}" } } },
                             { kind = "PyTorchJob", name = "k" }) do
      got[#got + 1] = job:spec().container.image
    end
    assert.are.same({ "q:v1" }, got)
  end)

  it("a variable used nowhere is still refused", function()
    local ok, e = pcall(T.variants, base, { ["container.image"] = { "r:${tag}" }, tag = { "v1" }, tga = { "x" } },
                        { kind = "PyTorchJob", name = "j" })
    assert.is_false(ok)
    assert.matches("matrix key 'tga' is neither a field", e, 1, true)
  end)

  it("the name template reads the axis's rendered value (docs/API.md: the variant's resolved fields)", function()
    local got = {}
    for name, job in T.variants(base, { ["container.image"] = { "r:${tag}" }, tag = { "v1" } },
                                { kind = "PyTorchJob", name = "j-${container.image}-${tag}" }) do
      got[#got + 1] = name .. " " .. job:spec().container.image
    end
    assert.are.same({ "j-r-v1-v1 r:v1" }, got)
    -- a job base too
    got = {}
    for name in T.variants(kfjob.PyTorchJob(base), { ["container.image"] = { "r:${tag}" }, tag = { "v2" } },
                           { name = "j-${container.image}" }) do
      got[#got + 1] = name
    end
    assert.are.same({ "j-r-v2" }, got)
  end)
end)
