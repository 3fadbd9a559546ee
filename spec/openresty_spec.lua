-- examples/openresty.lua, the OpenResty content handler of docs/LUA_VERSIONS.md: run
-- with a recording `ngx` as content_by_lua_file would run it, and as plain
-- Lua with its own stand-in.  The LuaJIT suite (busted --lua=luajit) runs
-- it on the interpreter OpenResty embeds.
local kfjob = require "kfjob"
local util = require "util"

local EXAMPLE = "examples/openresty.lua"

-- One request: the query table in, status, headers and body out.
local function serve(query)
  local out = { header = {}, body = "" }
  local ngx = { HTTP_OK = 200, HTTP_BAD_REQUEST = 400, status = 200, header = out.header }
  ngx.req = { get_uri_args = function() return query end }
  function ngx.say(s) out.body = out.body .. s .. "\n" end
  function ngx.exit(code) out.exit = code end
  local chunk = assert(util.loadfile_env(EXAMPLE, setmetatable({ ngx = ngx }, { __index = _G })))
  chunk()
  out.status = ngx.status
  return out
end

describe("examples/openresty.lua on Lua " .. util.lua, function()
  it("answers with the job's JSON", function()
    local r = serve({ workers = "4", gpus = "2", image = "ghcr.io/acme/bert:1.4" })
    assert.equal(200, r.status)
    assert.equal(200, r.exit)
    assert.equal("application/json", r.header["Content-Type"])
    local want = kfjob.PyTorchJob {
      master = { requests = { cpu = 2, mem = "8Gi" } },
      worker = { replicas = 4, image = "ghcr.io/acme/bert:1.4",
                 requests = { cpu = 8, mem = "32Gi", gpu = 2 }, limits = { gpu = 2 },
                 restart_policy = "on_failure" },
      run_policy = { clean_pod_policy = "running", backoff_limit = 3 } }
    assert.equal(want:to_json() .. "\n", r.body)
    assert.equal(want, kfjob.from_json("pytorch", r.body))
  end)

  it("answers 400 with kfjob's message for a bad query", function()
    -- (0 workers is a master-only job since SPEC §11: a warning for flyte)
    local r = serve({ workers = "-1" })
    assert.equal(400, r.status)
    assert.equal('{"error":"kfjob.PyTorchJob: worker.replicas: must be >= 0 (got -1)"}\n', r.body)
    r = serve({ workers = "many" })
    assert.equal(400, r.status)
    assert.equal('{"error":"kfjob.PyTorchJob: worker.replicas: expected an integer, got string"}\n', r.body)
  end)

  it("runs as plain Lua with its own ngx stand-in", function()
    local written = {}
    local env = setmetatable({ io = { write = function(...)
      for i = 1, select("#", ...) do written[#written + 1] = tostring((select(i, ...))) end
    end } }, { __index = _G })
    local chunk = assert(util.loadfile_env(EXAMPLE, env))
    chunk("workers=3")
    local out = table.concat(written)
    assert.equal("200 " .. kfjob.from_json("pytorch", out:sub(5)):to_json() .. "\n", out)
    assert.equal(3, kfjob.from_json("pytorch", out:sub(5)).worker.replicas)
  end)
end)
