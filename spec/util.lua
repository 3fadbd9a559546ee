-- Helpers shared by the specs.
local M = {}

-- The Lua running the specs: "5.1", "5.2", "5.3", "5.4" or "luajit".
M.lua = type(jit) == "table" and "luajit" or _VERSION:match("%d+%.%d+")
-- Lua 5.3+ tell integers from floats (2 and 2.0); 5.1, 5.2 and LuaJIT
-- have only doubles, so 2.0 is 2 there.
M.int_subtype = math.type ~= nil

-- table.pack (5.2+)
function M.pack(...) return { n = select("#", ...), ... } end

-- loadfile of a text chunk with the environment env (setfenv on 5.1 and
-- LuaJIT, whose loadfile takes no mode or environment).
function M.loadfile_env(path, env)
  local f, err = loadfile(path, "t", env)
  if f and setfenv then setfenv(f, env) end
  return f, err
end

-- Whether the shell command succeeds (quietly).  os.execute returns true
-- on 5.2+ and LuaJIT with 5.2 extensions, the status 0 on 5.1.
function M.sh_ok(cmd)
  local r = os.execute(cmd .. " >/dev/null 2>&1")
  return r == true or r == 0
end

-- The reason a test is pending on this version:
--   if not util.int_subtype then return pending(util.why("...")) end
function M.why(what)
  return ("Lua %s: %s"):format(M.lua, what)
end

-- An object whose finalizer runs fn: a table on 5.2+, a userdata from
-- newproxy on 5.1 and LuaJIT (their tables take no __gc).
function M.on_gc(fn)
  if newproxy then   -- 5.1 and LuaJIT
    local p = newproxy(true)
    getmetatable(p).__gc = fn
    return p
  end
  return setmetatable({}, { __gc = fn })
end

-- Make the collector run a step at every allocation (true) or restore the
-- defaults (false), in each version's terms.
function M.gc_stress(on)
  if M.lua == "5.4" then
    collectgarbage("incremental", on and 0 or 200, 100)
  else
    collectgarbage("setpause", on and 0 or 200)
    collectgarbage("setstepmul", on and 100 or 200)
  end
end

-- The message of the error f(...) raises, without luaL_where's "file:line: ".
function M.error_of(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return (tostring(e):gsub("^[^\n]-:%d+: ", "", 1))
end

-- A deep copy of a plain value (tables copied all the way down).
function M.copy(t)
  if type(t) ~= "table" then return t end
  local r = {}
  for k, v in pairs(t) do r[k] = M.copy(v) end
  return r
end

-- {key = {key = ...}}: n tables in all.
function M.nest(n, key)
  local root = {}
  local t = root
  for _ = 2, n do
    t[key] = {}
    t = t[key]
  end
  return root
end

-- ---- the kfjob CLI, run as a separate process ----------------------------

-- The binary the CLI specs run: $KFJOB_CLI, else the build tree's.
M.KFJOB = os.getenv("KFJOB_CLI") or "./build/kfjob"

-- s as one single-quoted word of a POSIX shell command.
function M.quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- The contents of the file path, or nil when it cannot be opened.
function M.slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

-- Runs kfjob with the arguments, stdin the text `input` (through a
-- temporary file) or /dev/null when it is nil; returns exit code, stdout,
-- stderr.  The code is p:close()'s third result (5.2+; the CLI specs run
-- on 5.4 only).
function M.run_cli(input, ...)
  local args, parts = { ... }, { M.KFJOB }
  for i = 1, #args do parts[#parts + 1] = M.quote(args[i]) end
  local errf, inf = os.tmpname(), nil
  if input then
    inf = os.tmpname()
    local f = assert(io.open(inf, "wb"))
    f:write(input)
    f:close()
  end
  local p = io.popen(table.concat(parts, " ") .. " 2>" .. errf .. " <" .. (inf or "/dev/null"), "r")
  local out = p:read("*a")
  local _, _, code = p:close()
  local err = M.slurp(errf)
  os.remove(errf)
  if inf then os.remove(inf) end
  return code, out, err
end

-- Runs kfjob with the arguments and stdin from /dev/null (see run_cli).
function M.kfjob(...) return M.run_cli(nil, ...) end

-- Runs kfjob with the arguments (output discarded, stdin /dev/null);
-- returns the CPU seconds it used (user + system) and its exit code.  CPU
-- time is the work a run costs, which a busy machine does not lengthen as
-- it does its wall-clock time: a spec bounds this, never the wall-clock
-- time (docs/RELIABILITY.md, "Time in tests").  From bash's `times` (the
-- shell's line, then its children's).
function M.cli_cpu(...)
  local args, parts = { ... }, { M.KFJOB }
  for i = 1, #args do parts[#parts + 1] = M.quote(args[i]) end
  local p = io.popen("LC_ALL=C bash -c " .. M.quote(table.concat(parts, " ") ..
                     " >/dev/null 2>&1 </dev/null; c=$?; times; echo $c"))
  local out = p:read("*a")
  p:close()
  local um, us, sm, ss, code = out:match("\n(%d+)m([%d.]+)s (%d+)m([%d.]+)s\n(%d+)")
  assert(code, out)
  return tonumber(um) * 60 + tonumber(us) + tonumber(sm) * 60 + tonumber(ss), tonumber(code)
end

-- The CLI is a Lua 5.4 program (build/kfjob links liblua5.4): its specs run
-- in the Lua 5.4 suite, other versions report them pending.
M.cli_ok = M.lua == "5.4"
M.CLI_ONLY = "the kfjob CLI is built for Lua 5.4 only (tested by the Lua 5.4 suite)"

-- Why a spec file of CLI cases only is pending on this version; `what` is
-- the reason (default: the CLI is built for 5.4 only).  describe and
-- pending exist in the spec file's environment only, so the file does
--   if not util.cli_ok then describe(NAME, function() pending(util.cli_why()) end) return end
function M.cli_why(what)
  return M.why(what and what .. " (tested by the Lua 5.4 suite)" or M.CLI_ONLY)
end

-- The manifest validators, as {name = ..., cmd = ...} (cmd ready for
-- io.popen, arguments to append): tools/validate-manifest, the project's
-- own (python3 with yaml and jsonschema; schemas in schema/crds), then
-- ../shared/tools/validate-manifest where the checkout has one beside it,
-- as an extra check.  Both without the ASan preload (python3 is no part
-- of what is checked).  The list is empty when none can run; the second
-- value then says why.
local root = (debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or ".") .. "/.."
function M.validators()
  local out, why = {}, nil
  local py = "env -u LD_PRELOAD /usr/bin/python3"
  if M.sh_ok(py .. " -c 'import yaml, jsonschema'") then
    out[1] = { name = "tools/validate-manifest", cmd = py .. " " .. M.quote(root .. "/tools/validate-manifest") }
  else
    why = "python3 cannot import yaml and jsonschema: manifest validation skipped "
      .. "(apt-get install python3-yaml python3-jsonschema, or run scripts/setup.sh)"
  end
  local shared = root .. "/../shared/tools/validate-manifest"
  if M.sh_ok("test -x " .. M.quote(shared)) then
    out[#out + 1] = { name = "../shared/tools/validate-manifest", cmd = "env -u LD_PRELOAD " .. M.quote(shared) }
  end
  return out, why
end

return M
