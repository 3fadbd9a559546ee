--- kfjob in OpenResty: a content handler that builds a PyTorchJob from the
-- query string and answers with the job's proto3 JSON (what
-- `TaskTemplate.custom` holds), or with 400 and the validation message.
--
--   # nginx.conf (OpenResty runs LuaJIT: build kfjob with
--   # -DKFJOB_LUA=luajit, or `luarocks --lua-version 5.1 make`)
--   lua_package_cpath "/usr/local/lib/lua/5.1/?.so;;";
--   location = /kfjob/pytorch {
--     content_by_lua_file /etc/nginx/lua/openresty.lua;   # this file
--   }
--
--   curl 'localhost/kfjob/pytorch?workers=4&gpus=2&image=ghcr.io/acme/bert:1.4'
--   --> {"workerReplicas":{"replicas":4,"image":"ghcr.io/acme/bert:1.4",...}}
--
-- The same body works in a `content_by_lua_block { ... }`.  Run as plain Lua
-- (`luajit examples/openresty.lua workers=4 gpus=2`), it answers through a
-- tiny stand-in for `ngx` that prints the status and the body.

local kfjob = require "kfjob"

-- Plain Lua: query arguments from the command line (`key=value`), the
-- response on stdout.
local function ngx_stub(...)
  local query = {}
  for _, a in ipairs({ ... }) do
    local k, v = a:match("^([^=]+)=(.*)$")
    if k then query[k] = v end
  end
  local stub = { HTTP_OK = 200, HTTP_BAD_REQUEST = 400, status = 200, header = {} }
  stub.req = { get_uri_args = function() return query end }
  function stub.say(s) io.write(stub.status, " ", s, "\n") end
  function stub.exit() end
  return stub
end

local ngx = ngx or ngx_stub(...)

-- A JSON string (for the error message).
local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return c == '"' and '\\"' or c == "\\" and "\\\\" or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local args = ngx.req.get_uri_args()
local gpus = tonumber(args.gpus) or args.gpus or 1
local ok, job = pcall(kfjob.PyTorchJob, {
  master = { requests = { cpu = 2, mem = "8Gi" } },
  worker = {
    replicas = tonumber(args.workers) or args.workers or 2,  -- a bad value is kfjob's to report
    image = args.image or "ghcr.io/acme/trainer:1",
    requests = { cpu = 8, mem = "32Gi", gpu = gpus },
    limits = { gpu = gpus },
    restart_policy = "on_failure",
  },
  run_policy = { clean_pod_policy = "running", backoff_limit = 3 },
})
ngx.header["Content-Type"] = "application/json"
if not ok then
  ngx.status = ngx.HTTP_BAD_REQUEST
  ngx.say('{"error":' .. quote(tostring(job)) .. '}')
  return ngx.exit(ngx.HTTP_OK)   -- the response (status 400) is complete
end
ngx.say(job:to_json())
return ngx.exit(ngx.HTTP_OK)
