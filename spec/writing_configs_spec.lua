-- Writing configs (issue 30): every schema row carries a one-line
-- description, and the generators (kfjob.meta, kfjob.schema, kfjob
-- explain) are made from the rows alone.
local kfjob = require "kfjob"

-- every row of a kind's field tree, as (dotted path, row)
local function each_row(rows, prefix, out)
  out = out or {}
  for key, row in pairs(rows) do
    local path = prefix and (prefix .. "." .. key) or key
    out[#out + 1] = { path = path, row = row }
    if row.fields then each_row(row.fields, path, out) end
  end
  return out
end

describe("schema rows", function()
  it("each have a one-line description (kfjob.fields().description)", function()
    local n = 0
    for _, kind in ipairs(kfjob.kinds) do
      for _, e in ipairs(each_row(kfjob.fields(kind))) do
        local d = e.row.description
        assert.is_string(d, kind .. "." .. e.path .. " has no description")
        assert.is_true(#d >= 20, kind .. "." .. e.path .. ": too short")
        assert.is_nil(d:find("\n"), kind .. "." .. e.path .. ": not one line")
        n = n + 1
      end
    end
    assert.is_true(n > 200)
  end)

  it("say what the field becomes (FACTS §1, SPEC §13 by hand)", function()
    local pt = kfjob.fields("PyTorchJob")
    assert.matches("kueue.x-k8s.io/queue-name", pt.scheduling.fields.queue.description, 1, true)
    assert.matches("spec.runPolicy.backoffLimit",
                   pt.run_policy.fields.backoff_limit.description, 1, true)
    local el = kfjob.fields("Elastic")
    assert.matches("elastic_config", el.nnodes.description, 1, true)
    assert.are.equal("elastic_config.min_replicas", el.nnodes.proto)
    assert.are.equal("nProcPerNode", el.nproc_per_node.manifest)
    assert.are.equal("slotsPerWorker", kfjob.fields("MPIJob").slots.manifest)
    assert.matches("write worker.replicas", kfjob.fields("TFJob").num_workers.description, 1, true)
  end)
end)
