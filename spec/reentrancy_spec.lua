-- Lua code that runs in the middle of a kfjob call (finalizers, metamethods)
-- must not disturb it: options and kfjob's own metatables are read raw, and
-- a call made from a finalizer gets a context of its own.
local kfjob = require "kfjob"
local util = require "util"

local T = { worker = { replicas = 2, image = "img", command = { "a", "b" } },
            launcher = { requests = { cpu = 1 } }, slots = 2 }

describe("re-entrancy", function()
  it("survives finalizers that call kfjob during other calls", function()
    local job = kfjob.MPIJob(T)
    local want_spec, want_bytes = job:spec(), job:encode()
    local calls, active = 0, true
    local function bomb()
      util.on_gc(function()
        -- inactive once the test is over: LuaJIT also finalizes objects
        -- made during lua_close, after kfjob.so may be unloaded
        if not active then return end
        calls = calls + 1
        kfjob.TFJob { worker = { replicas = 3, image = ("x"):rep(100) } }:to_json()
        bomb()
      end)
    end
    bomb()
    util.gc_stress(true)  -- collect at every allocation step
    for _ = 1, 300 do
      assert.same(want_spec, job:spec())
      assert.equal(want_bytes, job:encode())
      assert.equal(job, kfjob.decode("mpi", want_bytes))
      assert.equal(job, kfjob.MPIJob(T))
    end
    util.gc_stress(false)
    collectgarbage()
    active = false
    assert.is_true(calls > 0)
  end)

  it("reads options raw: no __index metamethod runs", function()
    local job = kfjob.TFJob { worker = { replicas = 1 } }
    local opts = setmetatable({}, { __index = function() error("metamethod ran") end })
    assert.equal(job:encode(), job:encode(opts))
    assert.equal(job:to_json(), job:to_json(opts))
  end)

  it("keeps kfjob's metatables out of reach", function()
    local job = kfjob.TFJob { worker = { replicas = 1 } }
    assert.equal("kfjob.TFJob", getmetatable(job))
    assert.equal("kfjob.Worker", getmetatable(job.worker))
  end)

  it("rejects table keys with NUL bytes", function()
    assert.has_error(function() kfjob.TFJob { ["worker\0junk"] = { replicas = 1 } } end,
      "kfjob.TFJob: table keys must not contain NUL bytes")
  end)
end)
