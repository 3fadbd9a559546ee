-- A long env (20 000 entries on each container) in a manifest of about
-- 1.5 MB, the largest object etcd stores (its --max-request-bytes default):
-- the API server takes it, so kfjob reads, lints and converts it under its
-- default limits.  R16/R55 looked every variable up in every pod pairwise
-- (seconds of lint), and `kfjob convert` ran out of its default memory
-- limit (48 bytes a byte of input) on it.  Expected warnings follow
-- Kubernetes' expansion rule (kubelet makeEnvironmentVariables: a
-- reference expands only to a variable defined before it) and the
-- operator's env (training-operator v1.9 pytorch/envvar.go: RANK, set
-- after the user's entries).
local kfjob = require "kfjob"
local util = require "util"

local N = 20000

local function manifest()
  local env = {}
  for i = 0, N - 1 do
    local value = "x" .. i
    if i == 5 then value = "$(V3)/a" end          -- defined before: expands
    if i == 7 then value = "$(RANK)/b" end        -- the operator's, after: stays
    if i == 9 then value = "$(NOWHERE)/c" end     -- defined by nothing: stays
    env[#env + 1] = string.format('{"name":"V%d","value":"%s"}', i, value)
  end
  env[#env + 1] = '{"name":"MASTER_PORT","value":"1"}'   -- the operator's wins
  local c = '[{"name":"pytorch","image":"img:1","env":[' .. table.concat(env, ",") .. ']}]'
  return '{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"big"},'
      .. '"spec":{"pytorchReplicaSpecs":{'
      .. '"Master":{"replicas":1,"restartPolicy":"OnFailure","template":{"spec":{"containers":' .. c .. '}}},'
      .. '"Worker":{"replicas":2,"restartPolicy":"OnFailure","template":{"spec":{"containers":' .. c .. '}}}}}}'
end

describe("a 20 000-entry env (a 1.5 MB manifest)", function()
  local text = manifest()

  it("is about the size etcd takes", function()
    assert.is_true(#text > 1000000 and #text < 1572864)
  end)

  it("reads, and lint gives R55 for the late and the undefined reference and R16 once", function()
    local job = assert(kfjob.from_manifest(text))
    local by = {}
    for _, w in ipairs(job:lint{ target = "operator" }) do
      if w.rule == "R55" or w.rule == "R16" then
        by[#by + 1] = w.rule .. " " .. w.path .. " " .. (w.message:match("^%$%([%u_]+%)") or w.message:match("^[%u_]+"))
      end
    end
    table.sort(by)
    -- a list's entries are named by their place (1-based): V7 is the 8th
    assert.are.same({ "R16 container.env[20001] MASTER_PORT",
                      "R55 container.env[10] $(NOWHERE)",
                      "R55 container.env[8] $(RANK)" }, by)
  end)

  it("kfjob convert -f lua converts it under the default memory limit", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(text, "-f", "lua")
    assert.are.equal(0, code, err)
    assert.matches('name = "V19999"', out, 1, true)
  end)
end)
