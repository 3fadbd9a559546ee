-- bench/import.lua: manifests read back and configs written (SPEC §14).
--   lua5.4 bench/import.lua [N]   (run from the checkout, after the build)
-- 1. kfjob.from_manifests of a stream of N (default 10 000) of kfjob's own
--    manifests (a mix of kinds and targets), against Python's
--    yaml.load_all with CSafeLoader (the libyaml parser alone, building no
--    jobs) on the same stream, in the same run; CPU time of each.
-- 2. kfjob.to_lua of 10 N jobs (default 100 000), in jobs per second.
package.cpath = "./build/?.so;" .. package.cpath
package.path = "./lua/?.lua;" .. package.path
local kfjob = require "kfjob"
local N = tonumber(arg[1]) or 10000

local jobs = {
  { kfjob.PyTorchJob{ worker = { replicas = 3, limits = { gpu = 2 } }, accelerator = "nvidia-a100",
                      shared_memory = true }, "operator" },
  { kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2, run_policy = { backoff_limit = 3 } }, "mpi-operator" },
  { kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = { active_deadline_seconds = 60 } }, "trainer-2.3" },
  { kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 1 } }, "operator" },
}
local docs = {}
for i = 1, N do
  local j = jobs[(i - 1) % #jobs + 1]
  docs[i] = j[1]:manifest{ name = "job-" .. i, image = "img:1", target = j[2], format = "yaml",
                           args = { "python", "train.py" }, labels = { team = "ml" } }
end
local stream = table.concat(docs, "---\n")
local path = os.tmpname()
local f = assert(io.open(path, "wb")); f:write(stream); f:close()

local t0 = os.clock()
local r = assert(kfjob.from_manifests(stream))
local t_kf = os.clock() - t0
assert(#r == N)

local py = io.popen("python3 -c 'import sys, time, yaml\n"
  .. "s = open(sys.argv[1]).read()\nt = time.process_time()\n"
  .. "n = sum(1 for _ in yaml.load_all(s, Loader=yaml.CSafeLoader))\n"
  .. "print(time.process_time() - t, n)' " .. path)
local t_py, n_py = py:read("*a"):match("([%d.e-]+)%s+(%d+)")
py:close()
os.remove(path)
print(("from_manifests: %d documents (%d bytes) in %.3f s; python yaml CSafeLoader %s s (%s documents): "
  .. "ratio %.2f, target < 1: %s"):format(N, #stream, t_kf, t_py, n_py, t_kf / tonumber(t_py),
  t_kf < tonumber(t_py) and "met" or "MISSED"))

local M = 10 * N
local batch = {}
for i = 1, 100 do batch["job" .. i] = jobs[(i - 1) % #jobs + 1][1] end
t0 = os.clock()
for _ = 1, M / 100 do kfjob.to_lua(batch) end
local t_tl = os.clock() - t0
print(("to_lua: %d jobs in %.3f s: %.0f jobs/s, target >= 100000: %s"):format(M, t_tl, M / t_tl,
  M / t_tl >= 100000 and "met" or "MISSED"))
