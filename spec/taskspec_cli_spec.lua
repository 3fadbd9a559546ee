-- `kfjob render -f taskspec` (SPEC §3.4): files `flytectl register files`
-- reads, named as `pyflyte package` names them, the registration flags, a
-- config's per-job opts, and decode/diff/check of TaskSpecs.  Every file is
-- checked with the reference runtime (spec/conformance/check_taskspec.py:
-- a complete flyteidl.admin.TaskSpec, and not a WorkflowSpec, flytectl's
-- first attempt); without protoc/python3-protobuf those checks are pending.
local util = require "util"
if not util.cli_ok then
  describe("kfjob render -f taskspec", function() pending(util.cli_why("the kfjob CLI and host API are built for Lua 5.4 only")) end)
  return
end
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local PY = os.getenv("KFJOB_CONFORMANCE_PYTHON") or "/usr/bin/python3"
local sh_ok = util.sh_ok

local quote, slurp, kfjob = util.quote, util.slurp, util.kfjob
local function spit(p, s) local f = assert(io.open(p, "wb")); f:write(s); f:close() end
local function listdir(dir)
  local t, p = {}, io.popen("ls " .. quote(dir))
  for l in p:lines() do t[#t + 1] = l end
  p:close(); table.sort(t); return t
end

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP)))
local function path(n) return TMP .. "/" .. n end

local FLAGS = { "--project", "ml", "--domain", "development", "--version", "v7",
  "--image", "registry.example/train:v1" }
local function with_flags(...)
  local t = { ... }
  for _, f in ipairs(FLAGS) do t[#t + 1] = f end
  return table.unpack(t)
end
local PT = 'local kfjob = require "kfjob"\n'

-- The reference check of files, or pending() with the reason.
local function reference_check(files)
  if not sh_ok("command -v protoc") then pending("protoc not found") end
  if not sh_ok(PY .. " -c 'import google.protobuf'") then pending(PY .. " has no google.protobuf") end
  local parts = { PY, quote(here .. "/conformance/check_taskspec.py"), "--proto", quote(here .. "/../proto") }
  for _, f in ipairs(files) do parts[#parts + 1] = quote(f) end
  local p = io.popen(table.concat(parts, " ") .. " 2>&1")
  local out = p:read("*a")
  local ok = p:close()
  return ok, out
end

describe("kfjob render -f taskspec", function()
  teardown(function() os.execute("rm -rf " .. quote(TMP)) end)

  it("writes the bundled sweep as pyflyte-named files the reference reads as complete TaskSpecs", function()
    local code, _, err = kfjob(with_flags("render", here .. "/../examples/sweep.lua", "-f", "taskspec",
      "-o", path("sweep"), "--args", "python", "--args", "train.py", "--retries", "2", "--timeout", "1h30m"))
    assert.equal(0, code, err)
    local files = listdir(path("sweep"))
    assert.equal(12, #files)
    for i, f in ipairs(files) do
      assert.truthy(f:match("^" .. string.format("%02d", i - 1) .. "_bert%-[%w%-]+_1%.pb$"), f)
    end
    local full = {}
    for i, f in ipairs(files) do full[i] = path("sweep/" .. f) end
    local ok, out = reference_check(full)
    assert(ok, out)
    local n = 0
    for _ in out:gmatch("ok\t[^\t]+\tpytorch\tbert%-[^\n]+\n") do n = n + 1 end
    assert.equal(12, n, out)
  end)

  it("the reference check fails what flytectl would not register as a task", function()
    spit(path("empty.pb"), "")              -- parses as an empty WorkflowSpec
    local ok, out = reference_check({ path("empty.pb") })
    assert.is_false(not not ok)
    assert.truthy(out:find("parses as a WorkflowSpec", 1, true), out)
    local bytes = require("kfjob").PyTorchJob { worker = { replicas = 1 } }:task_template {
      id = { project = "p", domain = "d", name = "n", version = "v" }, container = { image = "i" } }
    spit(path("template.pb"), bytes)        -- a bare TaskTemplate
    ok = reference_check({ path("template.pb") })
    assert.is_false(not not ok)
  end)

  it("pads the index to ceil(log10(count)) digits, as pyflyte package does", function()
    for _, case in ipairs({ { 1, { "0_job-1_1.pb" } }, { 10, { "0_job-1_1.pb", "9_job-10_1.pb" } },
        { 11, { "00_job-1_1.pb", "10_job-11_1.pb" } } }) do
      local n, want = case[1], case[2]
      spit(path("n.lua"), PT .. "local t = {} for i = 1, " .. n ..
        " do t[i] = kfjob.PyTorchJob{ worker = { replicas = i } } end return t")
      local dir = path("n" .. n)
      local code, _, err = kfjob(with_flags("render", path("n.lua"), "-f", "taskspec", "-o", dir, "--name", "job"))
      assert.equal(0, code, err)
      local files = listdir(dir)
      assert.equal(n, #files)
      assert.equal(want[1], files[1])
      assert.truthy(slurp(dir .. "/" .. want[#want]), want[#want])
    end
  end)

  it("takes a config's per-job opts over the flags, and names files by the task name", function()
    spit(path("opts.lua"), PT .. [[
return {
  a = { job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 },
        opts = { id = { name = "mpi.train", version = "v8" }, container = { args = { "python", "t.py" } },
                 interface = { inputs = { lr = "float" } }, metadata = { retries = 4 } } },
  b = kfjob.TFJob{ worker = { replicas = 1 } },
}]])
    local code, _, err = kfjob(with_flags("render", path("opts.lua"), "-f", "taskspec-json", "-o", path("opts"),
      "--retries", "1"))
    assert.equal(0, code, err)
    assert.same({ "0_mpi.train_1.json", "1_b_1.json" }, listdir(path("opts")))
    local a = slurp(path("opts/0_mpi.train_1.json"))
    assert.truthy(a:find('"name": "mpi.train"', 1, true), a)
    assert.truthy(a:find('"version": "v8"', 1, true), a)
    assert.truthy(a:find('"project": "ml"', 1, true), a)
    assert.truthy(a:find('"retries": 4', 1, true), a)
    assert.truthy(a:find('"mpirun"', 1, true), a)
    local b = slurp(path("opts/1_b_1.json"))
    assert.truthy(b:find('"version": "v7"', 1, true), b)
    assert.truthy(b:find('"retries": 1', 1, true), b)
  end)

  it("reports missing registration flags per job", function()
    local code, _, err = kfjob("render", here .. "/../examples/sweep.lua", "-f", "taskspec", "-o", path("bad"))
    assert.equal(1, code)
    assert.truthy(err:find("missing registration fields: opts.id.project, opts.id.domain, opts.id.version", 1, true), err)
  end)

  it("decode and diff read TaskSpec files", function()
    local files = listdir(path("sweep"))
    local code, out, err = kfjob("decode", path("sweep/" .. files[1]))
    assert.equal(0, code, err)
    assert.truthy(out:find('"name":"bert-1-4-0-w2-g1"', 1, true), out)
    assert.truthy(out:find('"workerReplicas"', 1, true), out)
    code, out, err = kfjob("decode", path("opts/0_mpi.train_1.json"))
    assert.equal(0, code, err)
    assert.truthy(out:find('"kind":"MPIJob"', 1, true), out)
    code, out, err = kfjob("diff", path("sweep"), path("sweep"))
    assert.equal(0, code, err .. out)
    code = kfjob("diff", path("sweep"), path("n10"))
    assert.equal(1, code)
  end)

  it("kfjob check -f taskspec reports missing registration fields", function()
    local code, out = kfjob("check", here .. "/../examples/sweep.lua", "-f", "taskspec")
    assert.equal(1, code)
    assert.truthy(out:find("missing registration fields", 1, true), out)
    assert.truthy(out:find("12 invalid", 1, true), out)
    code, out = kfjob(with_flags("check", here .. "/../examples/sweep.lua", "-f", "taskspec"))
    assert.equal(0, code, out)
    assert.truthy(out:find("12 valid", 1, true), out)
    code = kfjob("check", here .. "/../examples/sweep.lua", "-f", "pb")
    assert.equal(2, code)
  end)

  it("--version is the registration version, -T the task_type_version", function()
    local code, out = kfjob("--version")
    assert.equal(0, code)
    assert.truthy(out:match("^kfjob %d"), out)
    local _, _, err = kfjob("render", "x.lua", "-V", "0")
    assert.truthy(err:find("unknown option '-V'", 1, true), err)
    _, _, err = kfjob("render", "x.lua", "--retries", "11")
    assert.truthy(err:find("--retries expects 0 to 10, got '11'", 1, true), err)
    _, _, err = kfjob("render", "x.lua", "--project", "")
    assert.truthy(err:find("--project must not be empty", 1, true), err)
    _, _, err = kfjob("decode", "x.pb", "--project", "p")
    assert.truthy(err:find("option '--project' does not apply to this command", 1, true), err)
    spit(path("v0.lua"), PT .. "return kfjob.PyTorchJob{ worker = { replicas = 2 } }")
    local code2, out2 = kfjob(with_flags("render", path("v0.lua"), "-f", "taskspec-json", "-T", "0"))
    assert.equal(0, code2)
    assert.truthy(out2:find('"taskTypeVersion":0', 1, true) == nil)   -- 0 is omitted
    assert.truthy(out2:find('"version":"v7"', 1, true), out2)
    assert.truthy(out2:find('"custom":{"workers":2}', 1, true), out2)
  end)
end)
