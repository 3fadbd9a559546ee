-- Issue 18: what a hostile or careless config can still do through the Lua
-- API.  Each block names the mature library whose behaviour it follows.

local kfjob = require "kfjob"
local util = require "util"
local error_of = require("util").error_of

-- The CLI is a Lua 5.4 program: its cases run in the Lua 5.4 suite.
local ON_54, CLI_ONLY = util.cli_ok, util.CLI_ONLY

-- Runs the CLI on a config text (the arguments name its file CONFIG);
-- returns exit code, stdout, stderr.
local function cli(config, ...)
  local src = os.tmpname()
  local f = assert(io.open(src, "wb"))
  f:write(config)
  f:close()
  local args = { ... }
  for i = 1, #args do args[i] = (args[i]:gsub("CONFIG", src)) end
  local code, out, err = util.kfjob((table.unpack or unpack)(args))
  os.remove(src)
  return code, out, err
end

describe("kfjob hardening", function()
  -- A field set twice in one with{} is an error, as a duplicate key is in
  -- JSON (jansson's JSON_REJECT_DUPLICATES) and YAML 1.2: otherwise the
  -- winner would depend on pairs() order.
  describe("job:with: a dotted key and a nested table setting the same field", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 } }
    local TWICE = ": set twice in one with{} (a dotted key and a nested table name the same field)"

    it("is an error naming the field", function()
      assert.equal("kfjob.TFJob: worker.replicas" .. TWICE,
        error_of(job.with, job, { worker = { replicas = 2 }, ["worker.replicas"] = 3 }))
      assert.equal("kfjob.TFJob: worker.requests.cpu" .. TWICE,
        error_of(job.with, job, { ["worker.requests"] = { cpu = 1 }, ["worker.requests.cpu"] = 2 }))
      assert.equal("kfjob.TFJob: worker" .. TWICE,
        error_of(job.with, job, { worker = kfjob.Worker{ replicas = 2 }, ["worker.replicas"] = 3 }))
      assert.equal("kfjob.TFJob: worker.requests" .. TWICE,
        error_of(job.with, job, { ["worker.requests"] = "x", ["worker.requests.cpu"] = 2 }))
    end)

    it("still merges different fields of the same table", function()
      local j = job:with{ worker = { replicas = 2, requests = { cpu = 1 } }, ["worker.requests.mem"] = "1Gi",
                          ["worker.image"] = "img", worker_x = nil }
      assert.equal(2, j.worker.replicas)
      assert.equal("1", j.worker.requests.cpu)
      assert.equal("1Gi", j.worker.requests.mem)
      assert.equal("img", j.worker.image)
      assert.equal(3, job:with{ ["worker.replicas"] = 3, worker = {} }.worker.replicas)
    end)
  end)

  -- Memory and time linear (n log n) in the size of the input, as
  -- protobuf's own map and repeated-field builders are: one array sized
  -- for every config entry, env sorted with qsort.
  describe("task_template with many config and env entries", function()
    local CONFIG = [[
local kfjob = require "kfjob"
local cfg, env = {}, {}
for i = 1, params.n do cfg["k" .. i] = "v" end
for i = 1, params.e do env["E" .. i] = "v" end
local j = kfjob.PyTorchJob{ worker = { replicas = 1 } }
j:task_template{ config = cfg, container = { image = "x", env = env } }
return j
]]
    -- an hour's time limit: far above what the runs need even under ASan
    -- on a busy machine (docs/RELIABILITY.md, "Time in tests")
    it("40 000 config entries fit in 64 MiB (quadratic: 6 GB)", function()
      if not ON_54 then return pending(CLI_ONLY) end
      local code, _, err = cli(CONFIG, "render", "CONFIG", "--memory-limit", "64M",
                               "--set", "n=40000", "--set", "e=1", "--time-limit", "1h")
      assert.equal(0, code, err)
    end)

    -- the sort's cost in CPU seconds, which load does not lengthen: 0.3 s
    -- here, about 1 s under ASan; the insertion sort took minutes
    it("150 000 env entries (an insertion sort took minutes)", function()
      if not ON_54 then return pending(CLI_ONLY) end
      local code, _, err = cli(CONFIG, "render", "CONFIG", "--memory-limit", "256M",
                               "--set", "n=1", "--set", "e=150000", "--time-limit", "1h")
      assert.equal(0, code, err)
      local src = os.tmpname()
      local f = assert(io.open(src, "wb"))
      f:write(CONFIG)
      f:close()
      local s, c = util.cli_cpu("render", src, "--memory-limit", "256M", "--set", "n=1",
                                "--set", "e=150000", "--time-limit", "1h")
      os.remove(src)
      assert.equal(0, c)
      assert.is_true(s < 20, ("took %.1f s of CPU time"):format(s))
    end)
  end)

  -- A coroutine that dies by an error never closes its to-be-closed
  -- slots (Lua 5.4 leaves them to coroutine.close), so the call's context
  -- stayed busy and held its memory; later calls each made a temporary one
  -- the collector did not see.  Like lua-cjson's per-call strbuf, the
  -- scratch memory is now returned when the call ends (above 1 MiB) and a
  -- context left by a dead coroutine is taken back.
  describe("an error inside a coroutine", function()
    it("does not keep the call's memory (40 x 10 MB in 64 MiB)", function()
      if not ON_54 then return pending(CLI_ONLY) end
      local code, out, err = cli([[
local kfjob = require "kfjob"
local j = kfjob.PyTorchJob{ worker = { replicas = 1 } }
local cfg = {}
for i = 1, 100000 do cfg["k" .. i] = "v" end
cfg.zzz = 1
for i = 1, 40 do
  local co = coroutine.create(function() return j:task_template{ config = cfg } end)
  assert(not coroutine.resume(co))
end
return j
]], "render", "CONFIG", "--memory-limit", "64M",
              -- the budget's charges for the 40 failing calls depend on the
              -- order pairs() walks cfg (seeded per state): not this test's point
              "--instruction-limit", "20000000000", "--time-limit", "1h")
      assert.equal(0, code, err)
      assert.truthy(out:find('"kind":"PyTorchJob"', 1, true))
    end)

    it("leaves kfjob usable, and closing the dead coroutine later is harmless", function()
      local j = kfjob.PyTorchJob{ worker = { replicas = 1 } }
      local co = coroutine.create(function() return j:task_template{ config = { x = 1 } } end)
      local ok, m = coroutine.resume(co)
      assert.is_false(ok)
      assert.matches("opts.config.x: expected a string", m)
      local before = j:to_json()
      local co2 = coroutine.wrap(function() return j:to_json() end)
      assert.equal(before, co2())
      if not coroutine.close then return end   -- (Lua 5.4: to-be-closed slots)
      -- closing it runs its slot now: the context is someone else's
      setmetatable({}, { __gc = function() coroutine.close(co) end })  -- garbage at once
      for _ = 1, 50 do
        assert.equal(before, j:to_json())
        collectgarbage("step")
      end
      coroutine.close(co)
      assert.equal(before, j:to_json())
    end)
  end)

  -- A token (an image, a script path) the cluster splits or compares byte
  -- for byte: as Go's unicode.IsSpace and the Unicode White_Space and Cf
  -- properties (what Kubernetes and Docker reference parsing treat as
  -- separators or reject), one checker for every path in.
  describe("tokens with control, Unicode space or format characters", function()
    local BAD = {
      { "a\194\160b", "whitespace (U+00A0)" },
      { "img:\226\128\168", "whitespace (U+2028)" },
      { "img\226\128\169", "whitespace (U+2029)" },
      { "img\227\128\128", "whitespace (U+3000)" },
      { "img\194\133", "whitespace (U+0085)" },
      { "img\001", "a control character (U+0001)" },
      { "img\127", "a control character (U+007F)" },
      { "img\194\155", "a control character (U+009B)" },
      { "img\226\128\139", "an invisible format character (U+200B)" },
      { "img\226\128\174", "an invisible format character (U+202E)" },
      { "\239\187\191img", "an invisible format character (U+FEFF)" },
    }
    local job = kfjob.TFJob{ worker = { replicas = 1, image = "img" } }

    it("are refused by the constructors and with{}, naming the code point", function()
      for _, c in ipairs(BAD) do
        assert.equal("kfjob.TFJob: worker.image: must not contain " .. c[2],
          error_of(kfjob.TFJob, { worker = { replicas = 1, image = c[1] } }))
        assert.equal("kfjob.TFJob: worker.image: must not contain " .. c[2],
          error_of(job.with, job, { ["worker.image"] = c[1] }))
      end
      assert.equal("kfjob.HorovodJob: discovery_script_path: must not contain whitespace (U+2028)",
        error_of(kfjob.HorovodJob, { worker = { replicas = 1 }, discovery_script_path = "/a\226\128\168.sh" }))
      assert.equal("kfjob.TFJob: worker.image: must not contain whitespace",
        error_of(kfjob.TFJob, { worker = { replicas = 1, image = "a b" } }))
    end)

    it("are refused when decoding", function()
      for _, c in ipairs(BAD) do
        local j = job:to_json():gsub('"image":"img"', '"image":"img\\u' .. c[2]:match("U%+(%x+)") .. '"')
        local r, m = kfjob.from_json("tensorflow", j)
        assert.is_nil(r)
        assert.equal("kfjob.from_json: workerReplicas.image: must not contain " .. c[2], m)
      end
    end)

    it("are refused as a manifest's image", function()
      local j = kfjob.TFJob{ worker = { replicas = 1 } }
      assert.matches("opts.image: must not contain whitespace %(U%+00A0%)",
        error_of(j.manifest, j, { name = "t", image = "a\194\160b" }))
    end)

    it("other non-ASCII stays accepted", function()
      assert.equal("registry.example/naïve/模型:1",
        kfjob.TFJob{ worker = { replicas = 1, image = "registry.example/naïve/模型:1" } }.worker.image)
    end)
  end)

  -- One documented limit for every string kfjob takes, as protobuf's
  -- parsers apply one size limit to every input path: manifest options
  -- and launcher args too.
  describe("the 1 MiB string limit", function()
    local big = ("x"):rep(2 ^ 20 + 1)
    local LIMIT = ": string longer than the limit of 1 MiB"
    local mpi = kfjob.MPIJob{ worker = { replicas = 1 } }

    it("applies to manifest options", function()
      for _, c in ipairs{
        { { name = "t", image = big }, "opts.image" },
        { { name = big, image = "i" }, "opts.name" },
        { { name = "t", image = "i", args = { "a", big } }, "opts.args[2]" },
        { { name = "t", image = "i", command = { big } }, "opts.command[1]" },
        { { name = "t", image = "i", env = { A = big } }, "opts.env.A" },
      } do
        assert.equal("kfjob.manifest: " .. c[2] .. LIMIT, error_of(mpi.manifest, mpi, c[1]))
      end
    end)

    it("applies to launcher args, 1 MiB itself is fine", function()
      assert.equal("kfjob.launcher_command: args[2]" .. LIMIT,
        error_of(mpi.launcher_command, mpi, { "a", big }))
      local cmd = mpi:launcher_command{ big:sub(2) }
      assert.equal(2 ^ 20, #cmd[#cmd])
    end)
  end)

  -- lua-cjson's depth limit (decode_max_depth, 1000 by default): deep
  -- tables are an error naming where, never Lua's raw "stack overflow".
  describe("template.expand and template.merge of deep tables", function()
    local template = require "kfjob.template"
    local nest = require("util").nest
    local DEEP = "nesting deeper than 1000 levels "
    local AT = "at a.a.a.a.a.a.a.a.a.a.a.a..."

    it("are an error with the path past 1000 levels", function()
      local deep = nest(100000, "a")
      assert.equal("kfjob.template.expand: " .. DEEP .. AT, error_of(template.expand, deep))
      assert.equal("kfjob.template.expand: " .. DEEP .. "at x[1].a.a.a.a.a.a.a.a.a.a...",
        error_of(template.expand, { x = { deep } }))
      assert.equal("kfjob.template.merge: " .. DEEP .. "in argument #1 " .. AT,
        error_of(template.merge, deep, {}))
      assert.equal("kfjob.template.merge: " .. DEEP .. "in argument #2 " .. AT,
        error_of(template.merge, {}, deep))
      assert.equal("kfjob.template.merge: " .. DEEP .. "in argument #2 " .. AT,
        error_of(template.merge, nest(900, "a"), deep))
    end)

    it("1000 levels still work", function()
      local t = template.expand(nest(1000, "a"))
      local m = template.merge(nest(1000, "a"), nest(1000, "a"))
      for _ = 1, 999 do t, m = t.a, m.a end
      assert.same({}, t)
      assert.same({}, m)
    end)
  end)
end)
