-- test/structure.lua: the rooms of src/ and the directions between them.
--
--   lua5.4 test/structure.lua [BUILD_DIR]      (run from the project root)
--
-- Reads every #include line of src/ and include/, resolves each to its file
-- (a project header is named by its file name alone: every room is on the
-- include path) and fails on
--   * an include from a room it may not include (the layer rules below);
--   * an include cycle between rooms, or between files;
--   * a call circle between C files: the objects of BUILD_DIR (default
--     build/), when they exist, give for each file the global symbols it
--     defines and those it uses (nm), hence which file calls which;
--   * a C function in src/ over 80 lines (a brace-matching scan below).
-- Every failure names the file, the line and the rule.  Exit status 1 on any.

local MAX_FUNC_LINES = 80

-- A room is a folder: src/core/<room>, src/core itself, src/lua (the binding),
-- src/host (the embedding API), src/cli (the command), include (public API).
local function room_of(path)
  local sub = path:match("^src/core/([^/]+)/")
  if sub then return "core/" .. sub end
  if path:match("^src/core/[^/]+$") then return "core" end
  return path:match("^src/([^/]+)/") or path:match("^(include)/") or "?"
end
local function layer_of(room) return room:match("^core") and "core" or room end

local LUA_HEADERS = { ["lua.h"] = true, ["lauxlib.h"] = true, ["lualib.h"] = true,
                      ["luaconf.h"] = true, ["lua.hpp"] = true }

-- The layer rules: from a layer, what an include may not name.  Returns the
-- rule broken (a sentence) or nil.  `to` is a project path, or nil with
-- `name` for a header outside the project.
local function layer_rule(from_layer, to, name)
  local to_layer = to and layer_of(room_of(to))
  if from_layer == "core" then
    if LUA_HEADERS[name] then return "the core never includes the Lua headers" end
    if to == "include/kfjob.h" then return "the core includes no public header" end
    if to_layer == "lua" or to_layer == "host" or to_layer == "cli" then
      return "the core never includes src/" .. to_layer
    end
  elseif from_layer == "lua" then
    if to_layer == "host" or to_layer == "cli" then
      return "the binding never includes src/" .. to_layer
    end
  elseif from_layer == "host" then
    if to_layer == "cli" then return "the host never includes src/cli" end
  elseif from_layer == "cli" then
    if LUA_HEADERS[name] then return "the CLI includes only include/kfjob.h and its own files" end
    if to and to ~= "include/kfjob.h" and to_layer ~= "cli" then
      return "the CLI includes only include/kfjob.h and its own files"
    end
  elseif from_layer == "include" then
    if to and to_layer ~= "include" then return "a public header includes no file of src/" end
  end
  return nil
end

-- What is known and not yet fixed: a call between two files of one circle
-- ("a.c -> b.c"); long functions are never excused.  The list only
-- shrinks: an entry that no longer fails is itself a failure.
local KNOWN = {
}

local failures, known_seen = {}, {}
local function fail(where, rule, key)
  if key and KNOWN[key] then known_seen[key] = true; return end
  failures[#failures + 1] = where .. ": " .. rule
end

local function lines_of(cmd)
  local out, p = {}, assert(io.popen(cmd))
  for l in p:lines() do out[#out + 1] = l end
  p:close()
  return out
end
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local files = lines_of("find src include -type f -name '*.[ch]' | LC_ALL=C sort")
assert(#files > 0, "run from the project root")

-- A header is found by its file name alone, so a name must be unique.
local by_name = {}
for _, p in ipairs(files) do
  local base = p:match("[^/]+$")
  if p:match("%.h$") then
    if by_name[base] then fail(p .. ":1", "two headers named " .. base .. " (also " .. by_name[base] .. ")") end
    by_name[base] = p
  end
end

-- The rooms of the core, bottom to top, and what each may include and
-- call (its own files aside).  Beside each other, flyte/, kube/ and import/
-- never meet: the outputs of Flyte and of Kubernetes, and the reader of
-- manifests, share only what sits below them.  rules/ reads what kube/'s
-- writers know (pod names, quantities); the top, emit/ (kf_emit, kf_render,
-- kf_resources), checks the rules, then calls a writer.
local CORE_ROOMS = {
  ["core/base"]   = {},
  ["core/schema"] = { "core/base" },
  ["core/codec"]  = { "core/base", "core/schema" },
  ["core/flyte"]  = { "core/base", "core/schema", "core/codec" },
  ["core/kube"]   = { "core/base", "core/schema", "core/codec" },
  ["core/import"] = { "core/base", "core/schema", "core/codec" },
  ["core/rules"]  = { "core/base", "core/schema", "core/codec", "core/kube" },
  ["core/emit"]   = { "core/base", "core/schema", "core/codec", "core/flyte",
                      "core/kube", "core/import", "core/rules" },
}
local MAY = {}
for room, list in pairs(CORE_ROOMS) do
  MAY[room] = {}
  for _, r in ipairs(list) do MAY[room][r] = true end
end
-- nil, or the rule a use of `to_room` from `from_room` breaks
local function room_use_rule(from_room, to_room)
  if from_room == to_room or not MAY[from_room] or not MAY[to_room] then return nil end
  if MAY[from_room][to_room] then return nil end
  local list = CORE_ROOMS[from_room]
  return from_room .. " uses only " .. (#list > 0 and table.concat(list, ", ") or "itself") ..
         " (not " .. to_room .. ")"
end
local function room_rule(from, to)
  if not to then return nil end
  local rule = room_use_rule(room_of(from), room_of(to))
  if rule then return rule end
  -- a room's private header (*_int.h) is its own
  if to:match("_int%.h$") and room_of(from) ~= room_of(to) then
    return to .. " is private to " .. room_of(to)
  end
end
for _, p in ipairs(files) do
  local r = room_of(p)
  if r:match("^core") and not CORE_ROOMS[r] then
    fail(p .. ":1", "a room of src/core not in test/structure.lua's CORE_ROOMS: " .. r)
  end
  if r == "core" then fail(p .. ":1", "a file loose in src/core: every core file is in a room") end
end

-- ---- includes: the file graph and the room graph -------------------------
local includes = {}   -- path -> list of {to=, name=, line=}
for _, p in ipairs(files) do
  local list, n = {}, 0
  for l in (read(p) .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local open, name = l:match('^%s*#%s*include%s*([<"])([^>"]+)[>"]')
    if name then
      local to = by_name[name:match("[^/]+$")]
      -- every room is on the include path, so <name.h> finds a project
      -- header as "name.h" does: both are the project's file
      if open == "<" and to and name:find("/") then to = nil end
      list[#list + 1] = { to = to, name = name, line = n }
      local rule = layer_rule(layer_of(room_of(p)), to, name) or room_rule(p, to)
      if rule then fail(p .. ":" .. n, rule .. " (" .. l:match("#.*") .. ")") end
    end
  end
  includes[p] = list
end

-- Strongly connected components (Tarjan): every component of more than one
-- node is a cycle.  `succ(v)` lists v's successors.
local function cycles(nodes, succ)
  local index, low, onstack, stack, out, i = {}, {}, {}, {}, {}, 0
  local function visit(v)
    i = i + 1; index[v], low[v] = i, i
    stack[#stack + 1] = v; onstack[v] = true
    for _, w in ipairs(succ(v)) do
      if not index[w] then visit(w); low[v] = math.min(low[v], low[w])
      elseif onstack[w] then low[v] = math.min(low[v], index[w]) end
    end
    if low[v] == index[v] then
      local comp = {}
      repeat
        local w = table.remove(stack); onstack[w] = nil; comp[#comp + 1] = w
      until w == v
      if #comp > 1 then table.sort(comp); out[#out + 1] = comp end
    end
  end
  for _, v in ipairs(nodes) do if not index[v] then visit(v) end end
  return out
end

-- The edges of a graph as {from -> {to -> first witness}}.
local function graph() return setmetatable({}, { __index = function(t, k) t[k] = {}; return t[k] end }) end
local function keys_sorted(t) local k = {}; for x in pairs(t) do k[#k + 1] = x end; table.sort(k); return k end

local fgraph, rgraph = graph(), graph()
for _, p in ipairs(files) do
  for _, inc in ipairs(includes[p]) do
    if inc.to and inc.to ~= p then
      local where = p .. ":" .. inc.line .. " (#include \"" .. inc.name .. "\")"
      fgraph[p][inc.to] = fgraph[p][inc.to] or where
      local a, b = room_of(p), room_of(inc.to)
      if a ~= b then rgraph[a][b] = rgraph[a][b] or where end
    end
  end
end

local function report_cycles(g, what)
  local nodes = {}
  for _, p in ipairs(files) do nodes[#nodes + 1] = p end
  local seen = {}
  for _, p in ipairs(files) do local r = room_of(p); if not seen[r] then seen[r] = true; nodes[#nodes + 1] = r end end
  for _, comp in ipairs(cycles(nodes, function(v) return keys_sorted(g[v]) end)) do
    local inside = {}
    for _, v in ipairs(comp) do inside[v] = true end
    for _, v in ipairs(comp) do
      for _, w in ipairs(keys_sorted(g[v])) do
        if inside[w] then fail(g[v][w], what .. " (" .. table.concat(comp, ", ") .. "): " .. v .. " -> " .. w) end
      end
    end
  end
end
report_cycles(rgraph, "no include cycle between rooms")
report_cycles(fgraph, "no include cycle between files")

-- Blanks comments, strings, character literals and preprocessor lines
-- (keeping every newline), so that braces and parentheses are code.
local function code_only(s)
  local out, i, n = {}, 1, #s
  local function blank(t) return (t:gsub("[^\n]", " ")) end
  while i <= n do
    local j = s:find("[\"'/]", i) or n + 1
    out[#out + 1] = s:sub(i, j - 1)
    i = j
    if i > n then break end
    local c, c2 = s:sub(i, i), s:sub(i + 1, i + 1)
    if c == "/" and c2 == "*" then
      local e = s:find("*/", i + 2, true) or n - 1
      out[#out + 1] = blank(s:sub(i, e + 1)); i = e + 2
    elseif c == "/" and c2 == "/" then
      local e = s:find("\n", i, true) or n + 1
      out[#out + 1] = blank(s:sub(i, e - 1)); i = e
    elseif c == "/" then
      out[#out + 1] = c; i = i + 1
    else -- a string or character literal
      local k = i + 1
      while k <= n and s:sub(k, k) ~= c do
        if s:sub(k, k) == "\\" then k = k + 1 end
        k = k + 1
      end
      out[#out + 1] = c .. blank(s:sub(i + 1, k - 1)) .. c; i = k + 1
    end
  end
  s = table.concat(out)
  -- preprocessor lines, with their continuations
  local lines, in_pp = {}, false
  for l in (s .. "\n"):gmatch("([^\n]*)\n") do
    if in_pp or l:match("^[ \t]*#") then
      in_pp = l:match("\\%s*$") ~= nil
      l = ""
    end
    lines[#lines + 1] = l
  end
  return table.concat(lines, "\n")
end

-- ---- declarations: a function is declared in its own room's headers ----
-- A header of a lower room declaring a higher room's function would let
-- the lower room call up unseen by the include rules.  Every identifier
-- declared at file scope of a core header (a name before '(' or '[' or ';',
-- over any line breaks, outside braces, comments and the preprocessor) that
-- an object of another core room defines is a failure.
local function declarations(defs)
  for _, h in ipairs(files) do
    local hroom = room_of(h)
    if h:match("%.h$") and hroom:match("^core") then
      local code, depth, flat = code_only(read(h)), 0, {}
      for i = 1, #code do   -- file scope only: blank what braces hold
        local c = code:sub(i, i)
        if c == "{" then depth = depth + 1 end
        flat[i] = (depth > 0 and c ~= "\n") and " " or c
        if c == "}" then depth = depth - 1 end
      end
      flat = table.concat(flat)
      for at, id in flat:gmatch("()([%a_][%w_]*)%s*[%(%[;]") do
        local src = defs[id]
        if src and room_of(src) ~= hroom and room_of(src):match("^core") then
          local _, nl = flat:sub(1, at):gsub("\n", "")
          fail(h .. ":" .. (nl + 1), "a function is declared in the headers of its own room: " ..
               id .. " is defined in " .. src .. " (" .. room_of(src) .. ")")
        end
      end
    end
  end
end

-- ---- calls: global symbols defined and used by each object (nm) ----------
local build = arg[1] or "build"
local objects = {}
for _, target in ipairs({ "kfjob_core", "kfjob_bind", "kfjob_cli" }) do
  for _, o in ipairs(lines_of("find '" .. build .. "/CMakeFiles/" .. target .. ".dir/src' -name '*.c.o' 2>/dev/null | LC_ALL=C sort")) do
    local src = o:match("%.dir/(src/.*)%.o$")
    -- an object whose source is gone (a moved file) is stale: left out
    if src and io.open(src, "rb") then objects[#objects + 1] = { obj = o, src = src } end
  end
end
local public_api = {}
for name in read("include/kfjob.h"):gmatch("KFJOB_API[^;(]-([%w_]+)%s*%(") do public_api[name] = true end

if #objects == 0 then
  print("structure: no objects under " .. build .. "/CMakeFiles: call circles not checked")
else
  -- kinds: the symbol type; only a function (T) makes a call edge: a row
  -- table read by other files (kf_kinds) is data, and the rows naming their
  -- rule functions is the schema driving the code, not a call back
  local defs, uses, kinds = {}, {}, {}
  for _, o in ipairs(objects) do
    uses[o.src] = {}
    for _, l in ipairs(lines_of("nm -g '" .. o.obj .. "'")) do
      local t, sym = l:match("^%x*%s+(%a)%s+(%S+)$")
      if t == "U" then uses[o.src][#uses[o.src] + 1] = sym
      elseif t then defs[sym], kinds[sym] = o.src, t end
    end
  end
  -- "file:line" of the first line of `src` naming `sym`
  local function first_use(src, sym)
    local n = 0
    for l in (read(src) .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      if l:find("%f[%w_]" .. sym .. "%f[^%w_]") then return src .. ":" .. n end
    end
    return src
  end
  declarations(defs)
  local cgraph = graph()
  for _, o in ipairs(objects) do
    local from = layer_of(room_of(o.src))
    for _, sym in ipairs(uses[o.src]) do
      local to = defs[sym]
      if to and to ~= o.src then
        if kinds[sym] == "T" then
          cgraph[o.src][to] = cgraph[o.src][to] or (first_use(o.src, sym) .. ": calls " .. sym .. " (" .. to .. ")")
        end
        local to_layer = layer_of(room_of(to))
        local rrule = kinds[sym] == "T" and room_use_rule(room_of(o.src), room_of(to))
        if rrule then fail(first_use(o.src, sym) .. ": calls " .. sym .. " (" .. to .. ")", rrule) end
        if from == "core" and to_layer ~= "core" then
          fail(o.src .. ": calls " .. sym .. " (" .. to .. ")", "the core calls nothing outside src/core")
        elseif from == "lua" and (to_layer == "host" or to_layer == "cli") then
          fail(o.src .. ": calls " .. sym .. " (" .. to .. ")", "the binding never calls src/" .. to_layer)
        elseif from == "host" and to_layer == "cli" then
          fail(o.src .. ": calls " .. sym .. " (" .. to .. ")", "the host never calls src/cli")
        elseif from == "cli" and to_layer ~= "cli" and not public_api[sym] then
          fail(o.src .. ": calls " .. sym .. " (" .. to .. ")", "the CLI calls only the public API of include/kfjob.h")
        end
      elseif not to and from == "core" and sym:match("^luaL?_") then
        fail(o.src .. ": calls " .. sym, "the core calls no Lua API")
      end
    end
  end
  local nodes = {}
  for _, o in ipairs(objects) do nodes[#nodes + 1] = o.src end
  for _, comp in ipairs(cycles(nodes, function(v) return keys_sorted(cgraph[v]) end)) do
    local inside = {}
    for _, v in ipairs(comp) do inside[v] = true end
    for _, v in ipairs(comp) do
      for _, w in ipairs(keys_sorted(cgraph[v])) do
        if inside[w] then
          fail(cgraph[v][w], "no call circle between C files (" .. table.concat(comp, ", ") .. ")", v .. " -> " .. w)
        end
      end
    end
  end
end

-- ---- function length -----------------------------------------------------
-- Every function definition: a '{' at file scope right after ')' (possibly
-- after attributes).  Its length runs from the line of its name to the line
-- of its closing brace, both included.
local function functions(path)
  local s = code_only("\n" .. read(path))
  local out, depth, open_at = {}, 0, nil
  local line_at = {}
  do
    local l = 0
    for i = 1, #s do
      line_at[i] = l
      if s:byte(i) == 10 then l = l + 1 end
    end
  end
  for i = 1, #s do
    local c = s:byte(i)
    if c == 123 then -- {
      if depth == 0 then
        local before = s:sub(math.max(1, i - 400), i - 1)
        if before:match("%)%s*$") then
          -- the name: the identifier before the '(' that opens the parameters
          local k, d = i - 1, 0
          while k > 0 do
            local b = s:byte(k)
            if b == 41 then d = d + 1 elseif b == 40 then d = d - 1; if d == 0 then break end end
            k = k - 1
          end
          local head = s:sub(math.max(1, k - 80), k - 1)
          local name = head:match("([%a_][%w_]*)%s*$")
          local name_pos = k - 1
          while name_pos > 0 and s:sub(name_pos, name_pos):match("%s") do name_pos = name_pos - 1 end
          open_at = { name = name or "?", line = line_at[name_pos] }
        else
          open_at = nil
        end
      end
      depth = depth + 1
    elseif c == 125 then -- }
      depth = depth - 1
      if depth == 0 and open_at then
        open_at.last = line_at[i]
        out[#out + 1] = open_at
        open_at = nil
      end
    end
  end
  return out
end

local listing = os.getenv("KFJOB_STRUCTURE_LIST")
for _, p in ipairs(files) do
  if p:match("^src/") then
    for _, f in ipairs(functions(p)) do
      local len = f.last - f.line + 1
      if listing then print(string.format("%5d %s:%d %s", len, p, f.line, f.name)) end
      if len > MAX_FUNC_LINES then
        -- no key: KNOWN excuses no long function (the last ones were split)
        fail(p .. ":" .. f.line, "no C function over " .. MAX_FUNC_LINES .. " lines (" .. f.name .. ": " .. len .. ")")
      end
    end
  end
end

for key in pairs(KNOWN) do
  if not known_seen[key] and (#objects > 0 or not key:match(" %-> ")) then
    fail("test/structure.lua", "KNOWN lists " .. key .. ", which no longer fails: remove it")
  end
end

if #failures > 0 then
  for _, f in ipairs(failures) do print(f) end
  print(#failures .. " structure failure(s)")
  os.exit(1)
end
print("structure: ok (" .. #files .. " files, " .. #objects .. " objects)")
