--- kfjob.template.matrix: the combinations of a matrix (axes, `exclude`,
-- `include`) and the lazy odometer over them.  Internal: `require
-- "kfjob.template"` is the public module, and the functions of `api` are
-- re-exported there.

local type, pairs, ipairs, next, error, pcall, require, setmetatable =
      type, pairs, ipairs, next, error, pcall, require, setmetatable
local sformat = string.format
local tsort = table.sort

local U = require "kfjob.template.util"
local suggest = require("kfjob.template.fields").suggest
local sorted_keys, describe, throw, reraise = U.sorted_keys, U.describe,
  U.throw, U.reraise
local copy, deep_equal = U.copy, U.deep_equal
local seal, rawlen, is_int = U.seal, U.rawlen, U.is_int

-- No global access past this point; luacheck checks it with `std none`.
local _ENV = nil -- luacheck: ignore 211/_ENV
-- luacheck: std none
seal()

local X = { api = {} }
local api = X.api

---------------------------------------------------------------------------
-- matrix
---------------------------------------------------------------------------

-- Check a matrix description and snapshot it.  Throws (marker) on error.
local function normalize_matrix(m)
  local axes, values = {}, {}
  local exclude, include = {}, {}
  for k, v in pairs(m) do
    if k == "exclude" or k == "include" then
      if type(v) ~= "table" then
        throw(sformat("'%s' must be a list of tables, got %s", k, type(v)))
      end
    elseif type(k) ~= "string" or k == "" then
      throw(sformat("axis names must be non-empty strings, got %s", describe(k)))
    elseif type(v) ~= "table" then
      throw(sformat("axis '%s' must be a list of values, got %s", k, type(v)))
    else
      local n = rawlen(v)
      if n == 0 then
        if next(v) == nil then throw(sformat("axis '%s' is empty", k)) end
        throw(sformat("axis '%s' must be a list of values", k))
      end
      for i in next, v do
        if not is_int(i) or i < 1 or i > n then
          throw(sformat("axis '%s' must be a list of values (key %s)", k, describe(i)))
        end
      end
      for i = 1, n do
        if v[i] == nil then
          throw(sformat("axis '%s' must be a list of values (nil at %d)", k, i))
        end
      end
      axes[#axes + 1] = k
    end
  end
  tsort(axes)
  local is_axis = {}
  for i, k in ipairs(axes) do
    is_axis[k] = true
    local src, list = m[k], {}
    for j = 1, rawlen(src) do list[j] = copy(src[j]) end
    values[i] = list
  end
  local function entries(which, out)
    local list = m[which]
    if list == nil then return end
    local n = rawlen(list)
    for i in next, list do
      if not is_int(i) or i < 1 or i > n then
        throw(sformat("'%s' must be a list of tables", which))
      end
    end
    for i = 1, n do
      local e = list[i]
      if type(e) ~= "table" then
        throw(sformat("%s[%d] must be a table, got %s", which, i, type(e)))
      end
      if next(e) == nil then throw(sformat("%s[%d] is empty", which, i)) end
      for key in next, e do
        if type(key) ~= "string" then
          throw(sformat("%s[%d]: keys must be strings, got %s", which, i, describe(key)))
        end
        if which == "exclude" and not is_axis[key] then
          throw(sformat("exclude[%d]: '%s' is not an axis%s", i, key,
                        suggest(key, axes)))
        end
      end
      out[i] = copy(e)
    end
  end
  entries("exclude", exclude)
  entries("include", include)
  return { axes = axes, values = values, is_axis = is_axis,
           exclude = exclude, include = include }
end

-- All keys a combination can have: the axes and the include keys.
local function matrix_keys(norm)
  local set = {}
  for _, k in ipairs(norm.axes) do set[k] = true end
  for _, e in ipairs(norm.include) do
    for k in next, e do set[k] = true end
  end
  return sorted_keys(set)
end

-- The iterator over a normalized matrix.  State: one index per axis and one
-- flag per include entry; nothing grows with the number of combinations.
local function matrix_iter(norm)
  if norm.single then
    local done = false
    return function()
      if done then return nil end
      done = true
      return {}
    end
  end
  local axes, values = norm.axes, norm.values
  local exclude, include, is_axis = norm.exclude, norm.include, norm.is_axis
  local n = #axes
  local idx = {}
  for k = 1, n do idx[k] = 1 end
  local matched = {}
  local phase = n > 0 and 1 or 2
  local extra = 0

  local function excluded(combo)
    for _, e in ipairs(exclude) do
      local all = true
      for k, v in next, e do
        if not deep_equal(combo[k], v) then all = false; break end
      end
      if all then return true end
    end
    return false
  end

  local function apply_includes(combo)
    for j, e in ipairs(include) do
      local fits = true
      for k, v in next, e do
        if is_axis[k] and not deep_equal(combo[k], v) then fits = false; break end
      end
      if fits then
        matched[j] = true
        for k, v in next, e do
          if not is_axis[k] then combo[k] = copy(v) end
        end
      end
    end
  end

  return function()
    while phase == 1 do
      local combo = {}
      for k = 1, n do combo[axes[k]] = copy(values[k][idx[k]]) end
      -- advance the odometer: the last axis varies fastest
      local k = n
      while k >= 1 do
        if idx[k] < #values[k] then idx[k] = idx[k] + 1; break end
        idx[k] = 1
        k = k - 1
      end
      if k == 0 then phase = 2 end
      if not excluded(combo) then
        apply_includes(combo)
        return combo
      end
    end
    while phase == 2 do
      extra = extra + 1
      local e = include[extra]
      if e == nil then
        phase = 3
      elseif not matched[extra] then
        return copy(e)
      end
    end
    return nil
  end
end

-- How many combinations a normalized matrix has, without making them:
-- the product minus the excluded ones (inclusion-exclusion over the
-- `exclude` entries: a set of entries excludes, on each axis, the values
-- equal to what every entry of the set gives for it), plus the `include`
-- entries that fit no remaining combination.  With more than 16 exclude
-- entries the odometer counts them instead.
local function fits_count(norm, constraints)
  local n = 1
  for a, k in ipairs(norm.axes) do
    local c = 0
    for _, v in ipairs(norm.values[a]) do
      local ok = true
      for _, e in ipairs(constraints) do
        local want = e[k]
        if want ~= nil and not deep_equal(v, want) then ok = false; break end
      end
      if ok then c = c + 1 end
    end
    n = n * c
    if n == 0 then return 0 end
  end
  return n
end

-- Combinations matching every entry of `base` (constraints on axes) and
-- not excluded.
local function kept_count(norm, base)
  local ex = norm.exclude
  local m = #ex
  local total, masks = 0, 1
  for _ = 1, m do masks = masks * 2 end
  for mask = 0, masks - 1 do
    local set, bits, sign = {}, mask, 1
    for _, b in ipairs(base) do set[#set + 1] = b end
    for j = 1, m do
      if bits % 2 == 1 then set[#set + 1] = ex[j]; sign = -sign end
      bits = (bits - bits % 2) / 2
    end
    total = total + sign * fits_count(norm, set)
  end
  return total
end

local function count_norm(norm)
  if norm.single then return 1 end
  if #norm.exclude > 16 then
    local n = 0
    for _ in matrix_iter(norm) do n = n + 1 end
    return n
  end
  local kept = #norm.axes > 0 and kept_count(norm, {}) or 0
  local n = kept
  for _, e in ipairs(norm.include) do
    local axes_only = {}
    for k, v in next, e do
      if norm.is_axis[k] then axes_only[k] = v end
    end
    if kept == 0 or kept_count(norm, { axes_only }) == 0 then n = n + 1 end
  end
  return n
end

-- The iterators `matrix` made, and their normalized matrix (weak keys).
local made = setmetatable({}, { __mode = "k" })

--- Iterate over the combinations of a matrix.
-- Axes are the string keys other than `exclude` and `include`, each a
-- non-empty list.  The combinations come in a fixed order: axes sorted by
-- name, the first axis varying slowest, values in the order given.  As in
-- GitHub Actions:
--
--  * `exclude` is a list of partial combinations; a combination that
--    matches every key of an entry is dropped.  Keys must be axes.
--  * `include` is then applied, entry by entry, to every remaining
--    combination: an entry whose axis keys (if any) equal the combination's
--    values adds its other keys to it (a later entry may overwrite a value
--    added by an earlier one, never an axis value).  An entry that fits no
--    combination becomes a combination of its own, after the product, in
--    `include` order.  A matrix with only `include` yields its entries.
--
-- The iterator is lazy: it keeps one index per axis and one flag per
-- include entry.  Each call returns a new table.
-- @tparam table m the matrix
-- @treturn function iterator returning a table of parameters, then nil
-- @raise on an empty axis, a non-list axis, malformed `exclude`/`include`
-- @usage for p in template.matrix{gpu = {1, 2}, replicas = {2, 4}} do
--   print(p.gpu, p.replicas)   -- 1 2, 1 4, 2 2, 2 4
-- end
function api.matrix(m)
  if type(m) ~= "table" then
    error(sformat("bad argument #1 to 'kfjob.template.matrix' (table expected, got %s)",
                  type(m)), 2)
  end
  local ok, norm = pcall(normalize_matrix, m)
  if not ok then reraise("kfjob.template.matrix: ", norm) end
  local it = matrix_iter(norm)
  made[it] = norm
  return it
end

X.normalize_matrix, X.matrix_keys, X.matrix_iter = normalize_matrix,
  matrix_keys, matrix_iter
X.count_norm, X.made = count_norm, made

return X
