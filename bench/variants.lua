--- Benchmark: variants per second of kfjob.template.variants.
--
--     lua5.4 bench/variants.lua [N]        (default N = 100000)
--
-- Sweeps a PyTorchJob over N variants three ways (a job base with field
-- overrides, a constructor table with template variables, the same with
-- the duplicate-name set off) and prints one line per way with
-- variants/second, ns/variant and the memory the iterator holds after N
-- variants (Lua heap growth after a full collection, bytes per variant).
-- A benchmark, not a test: nothing is asserted.  KFJOB_BUILD names another
-- build directory than build/.

local here = arg and arg[0] and arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local root = here .. "/.."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = (os.getenv("KFJOB_BUILD") or root .. "/build") .. "/?.so;" .. package.cpath

local kfjob = require "kfjob"
local template = require "kfjob.template"

local N = tonumber(arg and arg[1]) or 100000

-- axes whose product is at least N: worker.replicas x a x b
local function axis(n)
  local t = {}
  for i = 1, n do t[i] = i end
  return t
end
local b = math.max(1, math.ceil(N / (50 * 40)))
local matrix = { ["worker.replicas"] = axis(50), a = axis(40), b = axis(b) }

local function run(label, base, opts)
  collectgarbage("collect")
  local kb0 = collectgarbage("count")
  local t0 = os.clock()
  local n, dt, kept = 0, 0, 0
  for _ in template.variants(base, matrix, opts) do
    n = n + 1
    if n == N then
      -- measured while the iterator (and its name set) is still alive
      dt = os.clock() - t0
      collectgarbage("collect")
      kept = (collectgarbage("count") - kb0) * 1024 / n
      break
    end
  end
  print(("variants %-28s %8d in %6.3f s  %9.0f variants/s  %7.0f ns/variant  %5.1f B/variant kept")
        :format(label, n, dt, n / dt, dt * 1e9 / n, kept))
end

local job = kfjob.PyTorchJob{ worker = { replicas = 1, image = "repo/bert:1.0" } }
local name = "bert-w${worker.replicas}-${a}-${b}"
run("job base, overrides", job, { name = name })
run("table base, templates", { worker = { image = "repo/bert:${a}", requests = { gpu = "${b}" } } },
    { kind = "PyTorchJob", name = name })
run("table base, unique=false", { worker = { image = "repo/bert:${a}", requests = { gpu = "${b}" } } },
    { kind = "PyTorchJob", name = name, unique = false })
