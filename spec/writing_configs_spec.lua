-- Writing configs (issue 30): every schema row carries a one-line
-- description, and the generators (kfjob.meta, kfjob.schema, kfjob
-- explain) are made from the rows alone.
local kfjob = require "kfjob"
local util = require "util"
-- the CLI the specs run: $KFJOB_CLI (the sanitizer builds' too), else build/kfjob
local CLI = util.quote(util.KFJOB)

-- every row of a kind's field tree, as (dotted path, row)
local function each_row(rows, prefix, out)
  out = out or {}
  for key, row in pairs(rows) do
    local path = prefix and (prefix .. "." .. key) or key
    out[#out + 1] = { path = path, row = row }
    if row.fields then each_row(row.fields, path, out) end
  end
  return out
end

describe("schema rows", function()
  it("each have a one-line description (kfjob.fields().description)", function()
    local n = 0
    for _, kind in ipairs(kfjob.kinds) do
      for _, e in ipairs(each_row((kfjob.fields(kind)))) do
        local d = e.row.description
        assert.is_string(d, kind .. "." .. e.path .. " has no description")
        assert.is_true(#d >= 20, kind .. "." .. e.path .. ": too short")
        assert.is_nil(d:find("\n"), kind .. "." .. e.path .. ": not one line")
        n = n + 1
      end
    end
    assert.is_true(n > 200)
  end)

  it("say what the field becomes (FACTS §1, SPEC §13 by hand)", function()
    local pt = kfjob.fields("PyTorchJob")
    assert.matches("kueue.x-k8s.io/queue-name", pt.scheduling.fields.queue.description, 1, true)
    assert.matches("spec.runPolicy.backoffLimit",
                   pt.run_policy.fields.backoff_limit.description, 1, true)
    local el = kfjob.fields("Elastic")
    assert.matches("elastic_config", el.nnodes.description, 1, true)
    assert.are.equal("elastic_config.min_replicas", el.nnodes.proto)
    assert.are.equal("nProcPerNode", el.nproc_per_node.manifest)
    assert.are.equal("slotsPerWorker", kfjob.fields("MPIJob").slots.manifest)
    assert.matches("write worker.replicas", kfjob.fields("TFJob").num_workers.description, 1, true)
  end)
end)

-- ---- library/kfjob.lua (kfjob meta) ------------------------------------

local read = util.slurp   -- a file's contents, nil when it cannot be opened

-- The ---@ annotations of a LuaCATS file: classes (name -> {exact=,
-- fields = {key -> type}}), aliases (name -> list of values or a type),
-- functions (qualified name -> {params = {name -> type}, returns = {...}}).
local function parse_luacats(text)
  local classes, aliases, funcs = {}, {}, {}
  local cur, alias, pending = nil, nil, { params = {}, order = {}, returns = {} }
  for line in text:gmatch("([^\n]*)\n") do
    local exact, cname = line:match("^%-%-%-@class%s+(%(exact%)%s+)(%S+)")
    if not cname then cname = line:match("^%-%-%-@class%s+(%S+)") end
    local fkey, fopt, ftype = line:match("^%-%-%-@field%s+([%w_%[%]]+)(%??)%s+(%S+)")
    local aname, atype = line:match("^%-%-%-@alias%s+(%S+)%s*(%S*)")
    local aval = line:match("^%-%-%-|%s+(.+)$")
    local pname, ptype = line:match("^%-%-%-@param%s+(%S+)%s+(.+)$")
    local rtype = line:match("^%-%-%-@return%s+(.+)$")
    local fname = line:match("^function%s+([%w_%.]+)%(")
    if cname then
      cur, alias = { exact = exact ~= nil, fields = {}, optional = {}, lines = {} }, nil
      classes[cname] = cur
    elseif fkey and cur then
      cur.fields[fkey] = ftype
      cur.lines[fkey] = line
      cur.optional[fkey] = fopt == "?"
    elseif aname then
      alias, cur = {}, nil
      aliases[aname] = alias
      if atype ~= "" then for t in atype:gmatch("[^|]+") do alias[#alias + 1] = t end end
    elseif aval and alias then
      alias[#alias + 1] = aval
    elseif pname then
      pending.params[pname] = ptype
      pending.order[#pending.order + 1] = pname
    elseif rtype then
      pending.returns[#pending.returns + 1] = rtype
    elseif fname then
      funcs[fname] = pending
      pending = { params = {}, order = {}, returns = {} }
    elseif not line:match("^%-%-%-") then
      cur, alias = nil, nil
    end
  end
  return classes, aliases, funcs
end

-- The members of a type expression: a|b|c, each alias expanded.
local function members(ty, aliases, out)
  out = out or {}
  for part in ty:gmatch("[^|]+") do
    if aliases[part] then
      for _, v in ipairs(aliases[part]) do members(v, aliases, out) end
    else
      out[part] = true
    end
  end
  return out
end

-- What LuaCATS type a row's type must allow (FACTS/SPEC §15 by hand).
local expect = {
  integer = { "integer" }, string = { "string" }, boolean = { "boolean" },
  quantity = { "string", "number" }, size = { "boolean", "string", "number" },
  strings = { "string[]" }, nnodes = { "integer", "string" },
}

local function check_rows(rows, cname, classes, aliases, where)
  local cls = classes[cname]
  assert.is_table(cls, where .. ": no class " .. tostring(cname))
  assert.is_true(cls.exact, cname .. " is not (exact)")
  local n = 0
  for key, row in pairs(rows) do
    n = n + 1
    local ty = cls.fields[key]
    local path = where .. "." .. key
    assert.is_string(ty, path .. ": missing from " .. cname)
    assert.is_true(cls.optional[key], path .. ": not optional")
    local m = members(ty, aliases)
    for _, want in ipairs(expect[row.type] or {}) do
      assert.is_true(m[want], path .. ": type " .. ty .. " lacks " .. want)
    end
    if row.values then
      for _, v in ipairs(row.spellings or row.values) do
        assert.is_true(m['"' .. v .. '"'], path .. ": enum value " .. v .. " missing")
      end
      if row.type == "integer" then assert.is_true(m.integer) end
    end
    if row.fields then
      local sub
      for t in pairs(m) do if classes[t] then sub = t end end
      assert.is_string(sub, path .. ": no class for the nested table")
      check_rows(row.fields, sub, classes, aliases, path)
    end
  end
  local declared = 0
  for _ in pairs(cls.fields) do declared = declared + 1 end
  if where:find("%.") == nil then
    assert.are.equal(n, declared, cname .. ": fields beyond the rows")
  end
end

describe("library/kfjob.lua (kfjob meta)", function()
  local text = kfjob.meta()

  it("is checked in exactly as a fresh generation", function()
    local file = read("library/kfjob.lua")
    if not file then return pending("no library/kfjob.lua here") end
    assert.is_true(file == text, "library/kfjob.lua differs from kfjob.meta(): "
                   .. "regenerate it with `kfjob meta > library/kfjob.lua`")
  end)

  it("starts with ---@meta kfjob and has every field, type and enum value", function()
    assert.are.equal("---@meta kfjob\n", text:sub(1, 15))
    local classes, aliases = parse_luacats(text)
    for _, kind in ipairs(kfjob.kinds) do
      check_rows((kfjob.fields(kind)), "kfjob." .. kind .. "Opts", classes, aliases, kind)
    end
    assert.is_truthy(members("kfjob.Quantity", aliases).number)
  end)

  it("annotates every constructor, job method, module and template function", function()
    local classes, _, funcs = parse_luacats(text)
    for name, v in pairs(kfjob) do
      if type(v) == "function" then
        assert.is_table(funcs["kfjob." .. name], "kfjob." .. name .. " not annotated")
      end
    end
    for name, v in pairs(kfjob.template) do
      if type(v) == "function" then
        assert.is_table(funcs["kfjob.template." .. name], "kfjob.template." .. name)
      end
    end
    for _, kind in ipairs(kfjob.kinds) do
      assert.are.equal("kfjob." .. kind .. "Opts", funcs["kfjob." .. kind].params["t?"])
    end
    -- every method a job has, with its option class where it takes options
    local job = kfjob.MPIJob{ worker = { replicas = 1 } }
    for _, m in ipairs({ "spec", "with", "encode", "custom", "to_json", "task_template",
                         "task_spec", "versions", "manifest", "lint", "launcher_command",
                         "environment", "check" }) do
      assert.is_function(job[m])
      assert.is_string(classes["kfjob.Job"].fields[m], "job:" .. m)
    end
    assert.matches("kfjob.ManifestOpts", classes["kfjob.Job"].lines.manifest, 1, true)
    assert.is_true(classes["kfjob.ManifestOpts"].exact)
  end)

  it("is what `kfjob meta` prints", function()
    local p = io.popen(CLI .. " meta 2>&1")
    if not p then return pending("no popen") end
    local out = p:read("*a")
    p:close()
    if out:find("not found") then return pending("no " .. CLI) end
    assert.is_true(out == text)
  end)
end)

describe("kfjob explain", function()
  local function run(args)
    local p = io.popen(CLI .. " explain " .. args .. " 2>&1; echo rc=$?")
    local out = p:read("*a")
    p:close()
    return out
  end
  it("gives type, default, range, description, where it goes and rules", function()
    local out = run("Elastic.nnodes")
    if out:find("not found") then return pending("no " .. CLI) end
    assert.matches("FIELD:    nnodes <integer or \"MIN:MAX\">", out, 1, true)
    assert.matches("DEFAULT:  1", out, 1, true)
    assert.matches("RANGE:    >= 1", out, 1, true)
    assert.matches("JSON key elasticConfig.minReplicas", out, 1, true)   -- FACTS §1.2
    assert.matches("R9", out, 1, true)
    assert.matches("rc=0", out, 1, true)
    out = run("PyTorchJob.worker.restart_policy")
    assert.matches("VALUES:   never, on_failure, always", out, 1, true)
    assert.matches("spec.pytorchReplicaSpecs.Worker.restartPolicy", out, 1, true)
    out = run("TFJob.worker.limits.mem")
    assert.matches("ALIASES:  memory", out, 1, true)
    assert.matches("resources.limits.memory", out, 1, true)
    out = run("MPIJob.run_policy --recursive")
    assert.matches("backoff_limit <integer>", out, 1, true)
  end)
  it("answers a misspelt path with did-you-mean, exit 1", function()
    local out = run("PyTorchJob.worker.replcas")
    if out:find("not found") then return pending("no " .. CLI) end
    assert.matches("PyTorchJob.worker: unknown field 'replcas' (did you mean 'replicas'?)", out, 1, true)
    assert.matches("rc=1", out, 1, true)
    assert.matches("rc=1", run("PyTorchJb"), 1, true)
    assert.matches("does not run a JAXJob", run("JAXJob --target flyte"), 1, true)
  end)
end)

describe("kfjob.schema with a target", function()
  local function enum_of(text, kind)
    -- the first restart_policy enum of the kind's document
    local doc = text:match('"' .. kind .. '": {(.*)')
    return doc:match('"restart_policy": {.-"enum": (%b[])')
  end
  it("leaves out the restart policies R13 refuses (mpi-operator validateReplicaSpec; TrainJob has none)", function()
    assert.equal('["never", "Never", "RESTART_POLICY_NEVER", "on_failure", "OnFailure", '
                 .. '"RESTART_POLICY_ON_FAILURE", 0, 1]',
                 enum_of(kfjob.schema("MPIJob", { target = "mpi-operator" }), "MPIJob"))
    assert.equal('["never", "Never", "RESTART_POLICY_NEVER", 0]',
                 enum_of(kfjob.schema("PyTorchJob", { target = "trainer-2.3" }), "PyTorchJob"))
    assert.equal('["never", "Never", "RESTART_POLICY_NEVER", "on_failure", "OnFailure", '
                 .. '"RESTART_POLICY_ON_FAILURE", "always", "Always", "RESTART_POLICY_ALWAYS", "exit_code", '
                 .. '"ExitCode", "RESTART_POLICY_EXIT_CODE", 0, 1, 2, 3]',
                 enum_of(kfjob.schema("PyTorchJob", { target = "operator" }), "PyTorchJob"))
    assert.equal('["never", "Never", "RESTART_POLICY_NEVER", "on_failure", "OnFailure", '
                 .. '"RESTART_POLICY_ON_FAILURE", "always", "Always", "RESTART_POLICY_ALWAYS", 0, 1, 2]',
                 enum_of(kfjob.schema("PyTorchJob", { target = "flyte" }), "PyTorchJob"))
  end)
  it("an unknown --target is a usage error (exit 2) with a did-you-mean", function()
    local p = io.popen(CLI .. " schema --target trainer-2.5 2>&1; echo rc=$?")
    local out = p:read("*a")
    p:close()
    if out:find("not found") then return pending("no " .. CLI) end
    assert.matches("unknown target 'trainer-2.5' (did you mean 'trainer-2.2'?)", out, 1, true)
    assert.matches("rc=2", out, 1, true)
  end)
end)
