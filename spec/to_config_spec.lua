-- kfjob.to_config (SPEC §14): the jobs to_lua writes, as a data config
-- table (SPEC §15's shape {jobs = {name = {kind = K, ...}}}): only fields
-- that differ from their defaults, each entry building the equal job.
local kfjob = require "kfjob"

describe("kfjob.to_config", function()
  local jobs = {
    bert = kfjob.PyTorchJob{ worker = { replicas = 4, restart_policy = "on_failure", image = "img:1" },
                             run_policy = { backoff_limit = 3 } },
    pi = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 },
  }

  it("is a data config of the jobs by name, defaults left out", function()
    assert.same({ jobs = {
      bert = { kind = "PyTorchJob", worker = { replicas = 4, restart_policy = "on_failure", image = "img:1" },
               run_policy = { backoff_limit = 3 } },
      pi = { kind = "MPIJob", worker = { replicas = 2 }, slots = 2 },
    } }, kfjob.to_config(jobs))
    -- slots = 1 is MPIJob's default (SPEC §2)
    assert.same({ jobs = { job = { kind = "MPIJob", worker = { replicas = 2 } } } },
                kfjob.to_config(kfjob.MPIJob{ worker = { replicas = 2 }, slots = 1 }))
  end)

  it("each entry without its kind builds the equal job", function()
    for name, e in pairs(kfjob.to_config(jobs).jobs) do
      local kind = e.kind
      e.kind = nil
      assert.is_true(kfjob[kind](e) == jobs[name], name)
    end
  end)

  it("refuses what is not a job by its name", function()
    assert.has_error(function() kfjob.to_config{ [1] = jobs.bert } end,
                     "kfjob.to_config: jobs[1]: expected a job by its name")
  end)
end)
