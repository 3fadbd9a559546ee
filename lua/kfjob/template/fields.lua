--- kfjob.template.fields: the job fields per kind and the "did you mean"
-- suggestions of `kfjob.template`, in one place so that they can be
-- replaced together.  Internal: `require "kfjob.template"` is the public
-- module.

local type, pairs, ipairs, require = type, pairs, ipairs, require
local sbyte, sformat = string.byte, string.format
local tconcat = table.concat
local huge = math.huge

local sorted_keys = require("kfjob.template.util").sorted_keys

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none

---------------------------------------------------------------------------
-- Job fields, per kind (SPEC §2).  One data table: it decides whether a
-- matrix key of `variants` is a field override or a template variable, and
-- it feeds the "did you mean" suggestions.  `true` marks a leaf.
---------------------------------------------------------------------------

local RESOURCES = { cpu = true, mem = true, memory = true, gpu = true,
                    ephemeral_storage = true }
local GROUP = { replicas = true, image = true, requests = RESOURCES,
                limits = RESOURCES, restart_policy = true }
local MPI_GROUP = { replicas = true, image = true, requests = RESOURCES,
                    limits = RESOURCES, restart_policy = true, command = true }
local ELASTIC_WORKER = { image = true, requests = RESOURCES, limits = RESOURCES,
                         restart_policy = true }
local RUN_POLICY = { clean_pod_policy = true, ttl_seconds_after_finished = true,
                     active_deadline_seconds = true, backoff_limit = true }

local FIELDS = {
  TFJob = { worker = GROUP, ps = GROUP, chief = GROUP, evaluator = GROUP,
            run_policy = RUN_POLICY, num_workers = true, num_ps_replicas = true,
            num_chief_replicas = true, num_evaluator_replicas = true },
  PyTorchJob = { worker = GROUP, master = GROUP, run_policy = RUN_POLICY,
                 num_workers = true },
  Elastic = { nnodes = true, nproc_per_node = true, max_restarts = true,
              rdzv_backend = true, worker = ELASTIC_WORKER,
              run_policy = RUN_POLICY },
  MPIJob = { worker = MPI_GROUP, launcher = MPI_GROUP, run_policy = RUN_POLICY,
             slots = true, num_workers = true, num_launcher_replicas = true },
  HorovodJob = { worker = MPI_GROUP, launcher = MPI_GROUP,
                 run_policy = RUN_POLICY, slots = true, num_workers = true,
                 num_launcher_replicas = true, verbose = true, log_level = true,
                 discovery_script_path = true, elastic_timeout = true },
}

local KIND_NAMES = tconcat(sorted_keys(FIELDS), ", ")

-- Every dotted path of a kind ("worker", "worker.requests.gpu", ...).
local function field_paths(tree, prefix, out)
  for k, v in pairs(tree) do
    local p = prefix and prefix .. "." .. k or k
    out[#out + 1] = p
    if type(v) == "table" then field_paths(v, p, out) end
  end
  return out
end

-- Edit distance, for suggestions.
local function distance(a, b)
  local la, lb = #a, #b
  local prev, cur = {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    cur[0] = i
    local ca = sbyte(a, i)
    for j = 1, lb do
      local cost = (ca == sbyte(b, j)) and 0 or 1
      local d = prev[j] + 1
      if cur[j - 1] + 1 < d then d = cur[j - 1] + 1 end
      if prev[j - 1] + cost < d then d = prev[j - 1] + cost end
      cur[j] = d
    end
    prev, cur = cur, prev
  end
  return prev[lb]
end

local function suggest(word, candidates)
  local best, bestd = nil, huge
  for _, c in ipairs(candidates) do
    local d = distance(word, c)
    if d < bestd or (d == bestd and best and c < best) then best, bestd = c, d end
  end
  -- close enough, as the core judges it: a couple of typos, or a third of
  -- the word, and never the whole word
  local len = #word
  if best and (bestd <= 2 or bestd * 3 <= len) and bestd < len then
    return sformat(" (did you mean '%s'?)", best)
  end
  return ""
end

return { FIELDS = FIELDS, KIND_NAMES = KIND_NAMES, field_paths = field_paths,
         suggest = suggest }
