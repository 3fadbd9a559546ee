-- What differs between Lua versions (docs/LUA_VERSIONS.md), checked on the
-- version running the suite.
local kfjob = require "kfjob"
local util = require "util"

describe("Lua " .. util.lua, function()
  it("kfjob.hash64: an integer where Lua has 64-bit integers, 16 hex digits elsewhere", function()
    local hex = kfjob.hash64("abc", "hex")
    assert.equal("e71fa2190541574b", hex)             -- FNV-1a 64 of "abc"
    assert.equal(kfjob.hash64("", "hex"), "cbf29ce484222325")
    if util.int_subtype then
      assert.equal(math.type(kfjob.hash64("abc")), "integer")
      assert.equal(hex, ("%016x"):format(kfjob.hash64("abc")))
      assert.equal(kfjob.hash64("abc"), kfjob.hash64("abc", "integer"))
    else
      assert.equal(hex, kfjob.hash64("abc"))
      assert.has_error(function() kfjob.hash64("abc", "integer") end)
    end
  end)

  it("integral numbers are integers and 2.5 is not, whatever the number type", function()
    assert.equal(3, kfjob.TFJob { worker = { replicas = 3.0 } }.worker.replicas)
    assert.has_error(function() kfjob.TFJob { worker = { replicas = 2.5 } } end,
      "kfjob.TFJob: worker.replicas: expected an integer, got 2.5")
    assert.has_error(function() kfjob.TFJob { worker = { replicas = 2 ^ 31 } } end)
    assert.equal(1, kfjob.decode("tensorflow", kfjob.TFJob { worker = { replicas = 1 } }:encode(),
                                 { version = 1.0 }).worker.replicas)
  end)

  it("a kfjob call inside another one (a metamethod) gets its own context", function()
    local job = kfjob.TFJob { worker = { replicas = 2 } }
    local item = setmetatable({ name = "b" }, { __index = function(_, k)
      if k == "job" then
        -- runs inside kfjob.manifests, which holds the context
        assert.equal(job, kfjob.from_json("tensorflow", job:to_json()))
        return job
      end
    end })
    local out = kfjob.manifests({ { job = job, name = "a" }, item }, { format = "table", image = "i" })
    assert.equal(2, #out)
    assert.equal("b", out[2].metadata.name)
  end)

  it("the template layer's collision set works with this version's hash64", function()
    local template = require "kfjob.template"
    local n = 0
    for _ in template.variants(kfjob.TFJob { worker = { replicas = 1 } },
                               { ["worker.replicas"] = { 1, 2, 3 } }) do n = n + 1 end
    assert.equal(3, n)
    assert.has_error(function()
      for _ in template.variants(kfjob.TFJob { worker = { replicas = 1 } },
                                 { ["worker.replicas"] = { 1, 2 } }, { name = "same" }) do end
    end)
  end)
end)
