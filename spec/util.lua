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

-- `kfjob convert - ARGS...` with the text on stdin: code, stdout, stderr.
function M.conv(text, ...) return M.run_cli(text, "convert", "-", ...) end

-- Writes text to path (bytes as they are); returns the path.
function M.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- A new temporary file holding text, its name ending with ext when given;
-- returns its path.
function M.tmp(text, ext) return M.write(os.tmpname() .. (ext or ""), text) end

-- A new empty temporary directory; returns its path.
function M.tmpdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. M.quote(dir)))
  return dir
end

-- put(name, text): writes text to the file name in dir, returns its path.
function M.writer(dir)
  return function(name, text) return M.write(dir .. "/" .. name, text) end
end

-- The names in dir (ls -A), sorted; {} when it does not exist.
function M.listdir(dir)
  local t, p = {}, io.popen("ls -A " .. M.quote(dir) .. " 2>/dev/null")
  for l in p:lines() do t[#t + 1] = l end
  p:close()
  table.sort(t)
  return t
end

-- Runs a shell command: its stdout, stderr and exit status (128 + N when
-- a signal N ended it).
function M.run_sh(cmd)
  local errf = os.tmpname()
  local p = assert(io.popen("( " .. cmd .. " ) 2>" .. M.quote(errf) .. "; echo \"__RC=$?\""))
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("__RC=(%d+)%s*$"))
  out = out:gsub("__RC=%d+%s*$", "")
  local err = M.slurp(errf) or ""
  os.remove(errf)
  return out, err, rc
end

-- The output of a shell command, stdout and stderr together.
function M.sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("*a")
  p:close()
  return out
end

-- The system's python3, for the independent readings (PyYAML) of the
-- acceptance specs; without the ASan preload (python3 is no part of what
-- is checked).
M.PY = "env -u LD_PRELOAD /usr/bin/python3"

-- A python expression over the list `d` of the documents of the YAML file
-- at path (PyYAML's reading, independent of kfjob), as JSON text (sorted
-- keys); yqs: of a text.
function M.yq(path, expr)
  local prog = "import sys,yaml,json\n"
    .. "d=[x for x in yaml.safe_load_all(open(sys.argv[1])) if x is not None]\n"
    .. "print(json.dumps(" .. expr .. ", sort_keys=True))"
  return (M.sh(M.PY .. " -c " .. M.quote(prog) .. " " .. M.quote(path)):gsub("%s+$", ""))
end
function M.yqs(text, expr) return M.yq(M.tmp(text), expr) end

-- Every YAML/JSON document of a text as PyYAML reads it (independent of
-- kfjob), as Lua tables; doc1: the first.
function M.docs(text)
  local inp = M.tmp(text)
  local p = assert(io.popen(M.PY .. [[ -c 'import sys,yaml,json
print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")) if d is not None]))' ]]
    .. M.quote(inp) .. " 2>&1"))
  local js = p:read("*a"); p:close(); os.remove(inp)
  local t, err = require("kfjob").read_yaml(js)
  assert(t, "could not parse kfjob's output: " .. tostring(err) .. "\n" .. js:sub(1, 400))
  return t
end
function M.doc1(text) return M.docs(text)[1] end

-- t.a.b[1].c with "a.b.1.c" (numbers are Lua list indices, 1-based); nil
-- when a step is missing.
function M.dig(t, path)
  for k in path:gmatch("[^%.]+") do
    if type(t) ~= "table" then return nil end
    local n = tonumber(k)
    t = t[n or k]
  end
  return t
end

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
  local py = M.PY
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
