--- Render the bundled sweep (examples/sweep.lua) to one JSON file per job.
--
--     lua5.4 examples/sweep_main.lua OUTDIR [key=value ...]
--
-- writes OUTDIR/<name>.json (the proto3 JSON of `TaskTemplate.custom`, as
-- `job:to_json` gives it) for each of the 12 variants and prints one line:
-- `12 jobs written to OUTDIR (N bytes)`.  `key=value` arguments play the
-- part of the CLI's `--set` (they become the script's `params`).  The
-- module is taken from this checkout (lua/ and build/) when it is there,
-- else from the installed rock.

local outdir = arg[1]
if not outdir or outdir:sub(1, 1) == "-" then
  io.stderr:write("usage: lua5.4 examples/sweep_main.lua OUTDIR [key=value ...]\n")
  os.exit(2)
end

local here = arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local root = here .. "/.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = root .. "/build/?.so;" .. package.cpath

-- the script's `params`, as the CLI would set them
local params = {}
for i = 2, #arg do
  local k, v = arg[i]:match("^([^=]+)=(.*)$")
  if not k then
    io.stderr:write("sweep_main: expected key=value, got '", arg[i], "'\n")
    os.exit(2)
  end
  params[k] = v
end

local env = setmetatable({ params = params }, { __index = _G })
local chunk, err = loadfile(here .. "/sweep.lua", "t", env)
if not chunk then
  io.stderr:write("sweep_main: ", err, "\n")
  os.exit(1)
end

local function mkdir(dir)
  local probe = io.open(dir .. "/.kfjob-probe", "w")
  if probe then
    probe:close()
    os.remove(dir .. "/.kfjob-probe")
    return true
  end
  local ok = os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
  return ok
end

local ok, result = pcall(function()
  if not mkdir(outdir) then error("cannot create directory " .. outdir, 0) end
  local n, bytes = 0, 0
  for name, job in chunk() do
    local text = job:to_json{ indent = 2 } .. "\n"
    local path = outdir .. "/" .. name .. ".json"
    local f, ferr = io.open(path, "wb")
    if not f then error(ferr, 0) end
    f:write(text)
    f:close()
    n, bytes = n + 1, bytes + #text
  end
  return ("%d jobs written to %s (%d bytes)"):format(n, outdir, bytes)
end)
if not ok then
  io.stderr:write("sweep_main: ", tostring(result), "\n")
  os.exit(1)
end
print(result)
