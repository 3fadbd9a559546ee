--- kfjob.template.fields: the job fields per kind and the "did you mean"
-- suggestions of `kfjob.template`, both taken from the core (its schema
-- rows through `kfjob.fields`, its edit distance through `kfjob.suggest`)
-- so the templating layer keeps no copy of either.  Internal:
-- `require "kfjob.template"` is the public module.

local pairs, ipairs, require = pairs, ipairs, require
local sformat = string.format
local tconcat, tsort = table.concat, table.sort

local U = require "kfjob.template.util"
local sorted_keys, core, seal = U.sorted_keys, U.core, U.seal

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

-- Field trees by kind, built on first use: a table per object, `true` per
-- leaf.  They decide whether a matrix key of `variants` is a field
-- override or a template variable, and feed the suggestions.
local FIELDS, KIND_NAMES

local function tree(rows)
  local t = {}
  for k, row in pairs(rows) do t[k] = row.fields and tree(row.fields) or true end
  return t
end

local function load()
  if not FIELDS then
    local K, all = core(), {}
    for _, kind in ipairs(K.kinds) do all[kind] = tree(K.fields(kind)) end
    FIELDS, KIND_NAMES = all, tconcat(sorted_keys(all), ", ")
  end
  return FIELDS, KIND_NAMES
end

-- Every dotted path of a kind ("worker", "worker.requests.gpu", ...).
local function field_paths(t, prefix, out)
  for k, v in pairs(t) do
    local p = prefix and prefix .. "." .. k or k
    out[#out + 1] = p
    if v ~= true then field_paths(v, p, out) end
  end
  return out
end

-- " (did you mean 'x'?)" or "".  The core takes the first of equally close
-- candidates, so they go in sorted: the smallest wins, whatever the order
-- of the caller's table.
local function suggest(word, candidates)
  local c = {}
  for i, v in ipairs(candidates) do c[i] = v end
  tsort(c)
  local best = core().suggest(word, c)
  return best and sformat(" (did you mean '%s'?)", best) or ""
end

return { load = load, field_paths = field_paths, suggest = suggest }
