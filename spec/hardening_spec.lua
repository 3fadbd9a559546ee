-- Issue 18: what a hostile or careless config can still do through the Lua
-- API.  Each block names the mature library whose behaviour it follows.

local kfjob = require "kfjob"
local error_of = require("util").error_of

describe("kfjob hardening", function()
  -- A field set twice in one with{} is an error, as a duplicate key is in
  -- JSON (jansson's JSON_REJECT_DUPLICATES) and YAML 1.2: otherwise the
  -- winner would depend on pairs() order.
  describe("job:with: a dotted key and a nested table setting the same field", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 } }
    local TWICE = ": set twice in one with{} (a dotted key and a nested table name the same field)"

    it("is an error naming the field", function()
      assert.equal("kfjob.TFJob: worker.replicas" .. TWICE,
        error_of(job.with, job, { worker = { replicas = 2 }, ["worker.replicas"] = 3 }))
      assert.equal("kfjob.TFJob: worker.requests.cpu" .. TWICE,
        error_of(job.with, job, { ["worker.requests"] = { cpu = 1 }, ["worker.requests.cpu"] = 2 }))
      assert.equal("kfjob.TFJob: worker" .. TWICE,
        error_of(job.with, job, { worker = kfjob.Worker{ replicas = 2 }, ["worker.replicas"] = 3 }))
      assert.equal("kfjob.TFJob: worker.requests" .. TWICE,
        error_of(job.with, job, { ["worker.requests"] = "x", ["worker.requests.cpu"] = 2 }))
    end)

    it("still merges different fields of the same table", function()
      local j = job:with{ worker = { replicas = 2, requests = { cpu = 1 } }, ["worker.requests.mem"] = "1Gi",
                          ["worker.image"] = "img", worker_x = nil }
      assert.equal(2, j.worker.replicas)
      assert.equal("1", j.worker.requests.cpu)
      assert.equal("1Gi", j.worker.requests.mem)
      assert.equal("img", j.worker.image)
      assert.equal(3, job:with{ ["worker.replicas"] = 3, worker = {} }.worker.replicas)
    end)
  end)
end)
