-- The documented limits (docs/LIMITS.md; KF_MAX_DEPTH, KF_MAX_STRING and
-- KF_MAX_ITEMS in src/kf_core.h): 64 levels of nesting, 1 MiB per string,
-- 4096 items per list.  Each one is accepted exactly at the limit and refused
-- one step beyond it, with the exact message, on every way in: constructors,
-- with(), the options of task_template/manifest/launcher_command, from_json
-- (text and tables), decode and decode_task_template.
--
-- Functions that are not available are detected and their cases reported
-- as pending.

local kfjob = require "kfjob"

local DEPTH, STRING, ITEMS = 64, 1048576, 4096

-- error message of f(...) without "file:line: "
local error_of = require("util").error_of

local nest = require("util").nest

local function list(n, v)
  local t = {}
  for i = 1, n do t[i] = v or "x" end
  return t
end

-- "a.a.a...a" with n components
local function dotted(n, key) return (key .. "."):rep(n - 1) .. key end

local function has_method(name)
  local ok, v = pcall(function() return kfjob.MPIJob{ worker = { replicas = 1 } }[name] end)
  return ok and type(v) == "function"
end

-- protobuf wire helpers for hand-made messages
local varint = require("wire").varint
local function field(num, payload) return varint(num * 8 + 2) .. varint(#payload) .. payload end
-- DistributedMPITrainingTask v1: worker_replicas (1) holding `inner`, slots = 1
local function mpi_v1(inner) return field(1, inner) .. "\32\1" end

local BIG = ("a"):rep(STRING)

describe("kfjob limits", function()
  local job = kfjob.TFJob{ worker = { replicas = 1 } }
  local mpi = kfjob.MPIJob{ worker = { replicas = 1 } }

  describe("nesting: 64 levels", function()
    it("converts 64 levels of tables (then validates them)", function()
      assert.has_error(function() kfjob.TFJob(nest(DEPTH, "a")) end,
        "kfjob.TFJob: a: unknown field")
    end)

    it("refuses 65 levels, naming the path", function()
      assert.equal("kfjob.TFJob: " .. dotted(DEPTH, "a")
        .. ": nesting deeper than 64 levels (a cyclic table?)",
        error_of(kfjob.TFJob, nest(DEPTH + 1, "a")))
    end)

    it("refuses 65 levels of lists", function()
      local t = { worker = { replicas = 1 }, x = nest(DEPTH, 1) }
      assert.equal("kfjob.TFJob: x" .. ("[1]"):rep(DEPTH - 1)
        .. ": nesting deeper than 64 levels (a cyclic table?)",
        error_of(kfjob.TFJob, t))
    end)

    it("refuses a cyclic table instead of looping", function()
      local t = { replicas = 1 }
      t.requests = t
      local e = error_of(kfjob.Worker, t)
      local tail = ": nesting deeper than 64 levels (a cyclic table?)"
      assert.equal("kfjob.Worker: requests.requests.", e:sub(1, 32))
      assert.equal(tail, e:sub(-#tail))
    end)

    it("applies to with() overrides", function()
      assert.equal("kfjob.TFJob: " .. dotted(DEPTH, "a")
        .. ": nesting deeper than 64 levels (a cyclic table?)",
        error_of(job.with, job, nest(DEPTH + 1, "a")))
    end)

    it("applies to task_template options", function()
      if not has_method("task_template") then return pending("job:task_template not available") end
      assert.equal("kfjob.task_template: opts.config." .. dotted(DEPTH - 1, "a")
        .. ": nesting deeper than 64 levels (a cyclic table?)",
        error_of(job.task_template, job, { config = nest(DEPTH, "a") }))
    end)

    it("applies to from_json given a table", function()
      if not kfjob.from_json then return pending("kfjob.from_json not available") end
      assert.equal("kfjob.from_json: " .. dotted(DEPTH, "a")
        .. ": nesting deeper than 64 levels (a cyclic table?)",
        error_of(kfjob.from_json, "tensorflow", nest(DEPTH + 1, "a")))
    end)

    it("JSON text: parses 64 levels, refuses 65 with nil, message", function()
      if not kfjob.from_json then return pending("kfjob.from_json not available") end
      local function arrays(n) return ("["):rep(n) .. ("]"):rep(n) end
      local function objects(n) return ('{"a":'):rep(n) .. "1" .. ("}"):rep(n) end
      assert.same({ nil, "kfjob.from_json: expected a JSON object, got array" },
        { kfjob.from_json("tensorflow", arrays(DEPTH)) })
      assert.same({ nil, "kfjob.from_json: JSON nested deeper than 64 levels" },
        { kfjob.from_json("tensorflow", arrays(DEPTH + 1)) })
      assert.same({ nil, "kfjob.from_json: JSON nested deeper than 64 levels" },
        { kfjob.from_json("tensorflow", objects(DEPTH + 1)) })
    end)

    it("JSON text: 100000 levels are refused without exhausting the C stack", function()
      if not kfjob.from_json then return pending("kfjob.from_json not available") end
      assert.same({ nil, "kfjob.from_json: JSON nested deeper than 64 levels" },
        { kfjob.from_json("tensorflow", ("["):rep(100000) .. ("]"):rep(100000)) })
    end)

    it("decode_task_template JSON: refuses 65 levels, naming the function", function()
      if not kfjob.decode_task_template then return pending("kfjob.decode_task_template not available") end
      local deep = '{"type":' .. ("["):rep(DEPTH + 1) .. ("]"):rep(DEPTH + 1) .. "}"
      local j, msg = kfjob.decode_task_template(deep)
      assert.is_nil(j)
      assert.equal("kfjob.decode_task_template: JSON nested deeper than 64 levels", msg)
    end)
  end)

  -- Protobuf bytes: at most 100 nested messages, protobuf's own default
  -- recursion limit (CodedInputStream::SetRecursionLimit).  protobuf-c's
  -- unpack recurses without one, so the bytes are walked first.
  describe("nesting in protobuf bytes: 100 messages", function()
    local w = require "wire"
    -- a TaskTemplate whose custom Struct holds {x = [[...[true]...]]}, n lists deep:
    -- TaskTemplate > Struct > entry > Value, then Value.list_value > ListValue.values
    local function template(n)
      local v = w.int(4, 1)
      for _ = 1, n do v = w.msg(6, w.msg(1, v)) end
      return w.msg(2, "tensorflow") .. w.msg(5, w.msg(1, w.msg(1, "x"), w.msg(2, v)))
    end
    local function msg_of(n) return select(2, kfjob.decode_task_template(template(n))) end

    it("accepts 100 levels (then reads the custom)", function()
      -- 4 levels down to the Value, 2 per list: 4 + 2 * 48 = 100
      assert.equal("kfjob.decode_task_template: custom: x: unknown field", msg_of(48))
    end)

    it("refuses 101 levels with nil, message before unpacking", function()
      local m = msg_of(49)
      assert.equal("kfjob.decode_task_template: custom.fields[1].value.listValue.values[1]",
        m:sub(1, 70))
      assert.equal(": messages nested deeper than 100 levels", m:sub(-40))
    end)

    it("5000 levels (34 KB) end in nil, message, not a crash", function()
      assert.matches("messages nested deeper than 100 levels$", msg_of(5000))
    end)

    it("a deep Struct is nil, message, never 'not enough memory'", function()
      for n = 30, 120, 10 do
        local j, m = kfjob.decode_task_template(template(n))
        assert.is_nil(j)
        assert.is_string(m)
        assert.not_matches("not enough memory", m)
      end
    end)

    it("decode walks the plugin bytes the same way", function()
      -- worker_replicas > resources: the plugin messages nest 3 levels at most,
      -- so depth never refuses them; truncated framing stays 'malformed'
      assert.same({ nil, "kfjob.decode: malformed flyteidl.plugins.kubeflow."
        .. "DistributedTensorflowTrainingTask message (truncated bytes, a bad tag "
        .. "or a wrong wire type)" }, { kfjob.decode("tensorflow", w.msg(1, w.msg(1, "x"))) })
    end)
  end)

  describe("strings: 1 MiB", function()
    it("accepts a string of exactly 1 MiB", function()
      assert.equal(STRING, #kfjob.TFJob{ worker = { replicas = 1, image = BIG } }.worker.image)
    end)

    it("refuses 1 MiB + 1 in every string field of the constructors", function()
      local long = BIG .. "a"
      assert.has_error(function() kfjob.TFJob{ worker = { replicas = 1, image = long } } end,
        "kfjob.TFJob: worker.image: string longer than the limit of 1 MiB")
      assert.has_error(function() kfjob.MPIJob{ worker = { replicas = 1 }, launcher = { image = long } } end,
        "kfjob.MPIJob: launcher.image: string longer than the limit of 1 MiB")
      assert.has_error(function() kfjob.MPIJob{ worker = { replicas = 1, command = { "python", long } } } end,
        "kfjob.MPIJob: worker.command[2]: string longer than the limit of 1 MiB")
      assert.has_error(function() kfjob.Elastic{ rdzv_backend = long } end,
        "kfjob.Elastic: rdzv_backend: string longer than the limit of 1 MiB")
      assert.has_error(function() kfjob.HorovodJob{ worker = { replicas = 1 }, log_level = long } end,
        "kfjob.HorovodJob: log_level: string longer than the limit of 1 MiB")
      assert.has_error(function()
        kfjob.HorovodJob{ worker = { replicas = 1 }, discovery_script_path = long }
      end, "kfjob.HorovodJob: discovery_script_path: string longer than the limit of 1 MiB")
      assert.has_error(function() kfjob.Worker{ image = long } end,
        "kfjob.Worker: image: string longer than the limit of 1 MiB")
      assert.has_error(function() job:with{ ["worker.image"] = long } end,
        "kfjob.TFJob: worker.image: string longer than the limit of 1 MiB")
    end)

    it("refuses a resource quantity longer than 1 MiB", function()
      local ok, e = pcall(kfjob.TFJob, { worker = { replicas = 1, requests = { cpu = ("1"):rep(STRING + 1) } } })
      assert.is_false(ok)
      assert.equal("kfjob.TFJob: worker.requests.cpu: string longer than the limit of 1 MiB",
        (tostring(e):gsub("^[^\n]-:%d+: ", "", 1)))
    end)

    it("from_json: accepts 1 MiB, refuses 1 MiB + 1", function()
      if not kfjob.from_json then return pending("kfjob.from_json not available") end
      local function tf(image) return '{"workerReplicas":{"replicas":1,"image":"' .. image .. '"}}' end
      assert.equal(STRING, #assert(kfjob.from_json("tensorflow", tf(BIG))).worker.image)
      assert.same({ nil, "kfjob.from_json: workerReplicas.image: string longer than the limit of 1 MiB" },
        { kfjob.from_json("tensorflow", tf(BIG .. "a")) })
      assert.same({ nil, "kfjob.from_json: workerReplicas.command[1]: string longer than the limit of 1 MiB" },
        { kfjob.from_json("mpi", '{"workerReplicas":{"replicas":1,"command":["' .. BIG .. 'a"]},"slots":1}') })
    end)

    it("decode_task_template JSON: refuses 1 MiB + 1 in custom", function()
      if not kfjob.decode_task_template then return pending("kfjob.decode_task_template not available") end
      assert.same({ nil, "kfjob.decode_task_template: custom.workerReplicas.image: string longer than "
        .. "the limit of 1 MiB" },
        { kfjob.decode_task_template('{"type":"tensorflow","custom":{"workerReplicas":'
          .. '{"replicas":1,"image":"' .. BIG .. 'a"}}}') })
    end)

    it("decode: accepts 1 MiB, refuses 1 MiB + 1 (image and command)", function()
      assert.equal(STRING, #assert(kfjob.decode("mpi", mpi_v1("\8\1" .. field(2, BIG)))).worker.image)
      local j, msg = kfjob.decode("mpi", mpi_v1("\8\1" .. field(2, BIG .. "a")))
      assert.is_nil(j)
      assert.equal("kfjob.decode: workerReplicas.image: string longer than the limit of 1 MiB", msg)
    end)

    it("task_template and manifest options: refuse 1 MiB + 1", function()
      if not has_method("task_template") then return pending("job:task_template not available") end
      assert.has_error(function() job:task_template{ container = { image = BIG .. "a" } } end,
        "kfjob.task_template: opts.container.image: string longer than the limit of 1 MiB")
    end)
  end)

  describe("list items: 4096", function()
    it("accepts 4096 command items and refuses 4097", function()
      assert.equal(ITEMS, #kfjob.MPIJob{ worker = { replicas = 1, command = list(ITEMS) } }.worker.command)
      assert.has_error(function() kfjob.MPIJob{ worker = { replicas = 1, command = list(ITEMS + 1) } } end,
        "kfjob.MPIJob: worker.command: list longer than the limit of 4096 items")
      assert.has_error(function() kfjob.Worker{ command = list(ITEMS + 1) } end,
        "kfjob.Worker: command: list longer than the limit of 4096 items")
      assert.has_error(function() mpi:with{ ["worker.command"] = list(ITEMS + 1) } end,
        "kfjob.MPIJob: worker.command: list longer than the limit of 4096 items")
    end)

    it("refuses any list longer than 4096 before looking at its place", function()
      assert.has_error(function() kfjob.TFJob{ worker = { replicas = 1 }, x = list(ITEMS + 1) } end,
        "kfjob.TFJob: x: list longer than the limit of 4096 items")
    end)

    it("options: task_template container lists, manifest and launcher_command args", function()
      if has_method("task_template") then
        assert.is_string(job:task_template{ container = { image = "i", args = list(ITEMS) } })
        assert.has_error(function() job:task_template{ container = { image = "i", args = list(ITEMS + 1) } } end,
          "kfjob.task_template: opts.container.args: list longer than the limit of 4096 items")
        assert.has_error(function() job:task_template{ container = { image = "i", command = list(ITEMS + 1) } } end,
          "kfjob.task_template: opts.container.command: list longer than the limit of 4096 items")
      end
      if has_method("manifest") then
        assert.is_table(job:manifest{ name = "x", image = "i", args = list(ITEMS) })
        assert.has_error(function() job:manifest{ name = "x", image = "i", args = list(ITEMS + 1) } end,
          "kfjob.manifest: args: list longer than the limit of 4096 items")
      end
      if has_method("launcher_command") then
        -- the args and the mpirun prefix together make one list
        assert.is_table(mpi:launcher_command(list(ITEMS - 100)))
        assert.has_error(function() mpi:launcher_command(list(ITEMS)) end,
          "kfjob.launcher_command: args: command longer than the limit of 4096 items")
        assert.has_error(function() mpi:launcher_command(list(ITEMS + 1)) end,
          "kfjob.launcher_command: list longer than the limit of 4096 items")
      end
      if not (has_method("task_template") or has_method("manifest") or has_method("launcher_command")) then
        return pending("task_template, manifest and launcher_command not available")
      end
    end)

    it("from_json: refuses 4097 command items", function()
      if not kfjob.from_json then return pending("kfjob.from_json not available") end
      local items = table.concat(list(ITEMS + 1, '"x"'), ",")
      assert.same({ nil, "kfjob.from_json: workerReplicas.command: list longer than the limit of 4096 items" },
        { kfjob.from_json("mpi", '{"workerReplicas":{"replicas":1,"command":[' .. items .. ']},"slots":1}') })
    end)

    it("decode: accepts 4096 command items, refuses 4097", function()
      local function cmd(n) return "\8\1" .. field(5, "x"):rep(n) end
      assert.equal(ITEMS, #assert(kfjob.decode("mpi", mpi_v1(cmd(ITEMS)))).worker.command)
      assert.same({ nil, "kfjob.decode: workerReplicas.command: list longer than the limit of 4096 items" },
        { kfjob.decode("mpi", mpi_v1(cmd(ITEMS + 1))) })
    end)
  end)
end)
