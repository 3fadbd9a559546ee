-- Specs for the `kfjob` command-line tool (SPEC §7): every subcommand and
-- exit code, run as a separate process (build/kfjob, or $KFJOB_CLI).
-- JSON is read back with dkjson, YAML with lyaml.
local unpack = table.unpack or unpack   -- 5.1 and LuaJIT: unpack

local util = require "util"
if not util.cli_ok then
  describe("kfjob CLI", function() pending(util.cli_why("the kfjob CLI and host API are built for Lua 5.4 only")) end)
  return
end

local json = require "dkjson"
local lyaml = require "lyaml"

local KFJOB, quote, slurp, kfjob = util.KFJOB, util.quote, util.slurp, util.kfjob

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

local function lines(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

local function json_lines(s)
  local t = {}
  for _, l in ipairs(lines(s)) do t[#t + 1] = assert(json.decode(l)) end
  return t
end

local function listdir(dir)
  local t = {}
  local p = io.popen("ls -A " .. quote(dir))
  for l in p:lines() do t[#t + 1] = l end
  p:close()
  table.sort(t)
  return t
end

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP)))

local function path(name) return TMP .. "/" .. name end

-- Config scripts used below, written to TMP.
local CONFIGS = {
  ["one.lua"] = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = 2 } }
]],
  ["images.lua"] = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = 2, image = "img:1" },
                         master = { image = "img:1" } }
]],
  ["list.lua"] = [[
local kfjob = require "kfjob"
return { kfjob.PyTorchJob{ worker = { replicas = 1 } },
         kfjob.PyTorchJob{ worker = { replicas = 2 } } }
]],
  ["named.lua"] = [[
local kfjob = require "kfjob"
return { tf = kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 1 } },
         mpi = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 } }
]],
  ["params.lua"] = [[
local kfjob = require "kfjob"
local jobs = {}
for i = 1, params.count or 3 do
  jobs["w" .. i] = kfjob.PyTorchJob{ worker = { replicas = params.replicas or i } }
end
return jobs
]],
  ["syntax.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ worker = \n",
  ["runtime.lua"] = "local x = 1\n\nerror('boom')\n",
  ["badjob.lua"] = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = -1 } }
]],
  ["loop.lua"] = "while true do end\n",
  ["memory.lua"] = "local t = {}\nfor i = 1, 1e9 do t[i] = i end\n",
  ["forbidden.lua"] = "os.execute('touch " .. TMP .. "/pwned')\n",
  ["ioopen.lua"] = "io.open('" .. TMP .. "/pwned', 'w')\n",
  ["print.lua"] = [[
local kfjob = require "kfjob"
print("hello from the config")
return kfjob.TFJob{ worker = { replicas = 1 } }
]],
  ["mixed.lua"] = [[
local kfjob = require "kfjob"
return { ok = kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = true },
         bad = kfjob.PyTorchJob{ worker = { replicas = 2, image = "x" } } }
]],
  ["nothing.lua"] = "local x = 1\n",
  ["badname.lua"] = [[
local kfjob = require "kfjob"
return { ["../escape"] = kfjob.TFJob{ worker = { replicas = 1 } } }
]],
}
for name, src in pairs(CONFIGS) do spit(path(name), src) end

local SWEEP = "examples/sweep.lua"

describe("kfjob CLI", function()
  setup(function()
    assert(exists(KFJOB), KFJOB .. " is missing: build first (cmake --build build)")
  end)

  teardown(function()
    os.execute("rm -rf " .. quote(TMP))
  end)

  describe("--help and --version", function()
    it("prints the usage and exits 0", function()
      local code, out = kfjob("--help")
      assert.equal(0, code)
      assert.truthy(out:find("usage: kfjob <command>", 1, true))
      for _, cmd in ipairs({ "render", "check", "decode", "diff" }) do
        assert.truthy(out:find("  " .. cmd .. " ", 1, true), cmd)
      end
      assert.equal(0, (kfjob("render", "--help")))
    end)

    it("prints the version and exits 0", function()
      local code, out = kfjob("--version")
      assert.equal(0, code)
      assert.equal("kfjob 0.1.0\n", out)
    end)
  end)

  describe("usage errors exit 2", function()
    local cases = {
      { {}, "usage: kfjob" },
      { { "frobnicate" }, "unknown command 'frobnicate'" },
      { { "render" }, "render needs one argument" },
      { { "diff", "a" }, "diff needs two arguments" },
      { { "render", "x.lua", "--bogus" }, "unknown option '--bogus'" },
      { { "render", "x.lua", "-f", "xml" }, "unknown format 'xml'" },
      { { "render", "x.lua", "-T", "2" }, "-T/--type-version expects 0 or 1, got '2'" },
      { { "render", "x.lua", "--set", "novalue" }, "--set expects KEY=VALUE, got 'novalue'" },
      { { "render", "x.lua", "-o" }, "option '-o' needs a value" },
      { { "check", "x.lua", "-o", "dir" }, "option '--output' does not apply to this command" },
      { { "render", "x.lua", "--memory-limit", "lots" }, "--memory-limit expects a size" },
      { { "render", "x.lua", "--dry-run=yes" }, "option '--dry-run' takes no value" },
    }
    for _, c in ipairs(cases) do
      it("kfjob " .. table.concat(c[1], " "), function()
        local code, out, err = kfjob(unpack(c[1]))
        assert.equal(2, code)
        assert.equal("", out)
        assert.truthy(err:find(c[2], 1, true), err)
      end)
    end

    it("a config that cannot be read", function()
      local code, _, err = kfjob("render", path("missing.lua"))
      assert.equal(2, code)
      assert.truthy(err:find("cannot open " .. path("missing.lua") .. ": No such file", 1, true))
    end)
  end)

  describe("render", function()
    it("writes JSON lines: name, kind, type, taskTypeVersion, custom", function()
      local code, out, err = kfjob("render", SWEEP)
      assert.equal(0, code, err)
      local docs = json_lines(out)
      assert.equal(12, #docs)
      for _, d in ipairs(docs) do
        assert.equal("PyTorchJob", d.kind)
        assert.equal("pytorch", d.type)
        assert.equal(1, d.taskTypeVersion)
        assert.truthy(d.name:match("^bert%-"))
        assert.equal("table", type(d.custom.workerReplicas))
      end
      assert.equal("bert-1-4-0-w2-g1", docs[1].name)
    end)

    it("writes a multi-document YAML stream with -f yaml", function()
      local code, out = kfjob("render", SWEEP, "-f", "yaml")
      assert.equal(0, code)
      local docs = lyaml.load(out, { all = true })
      assert.equal(12, #docs)
      local _, jout = kfjob("render", SWEEP)
      local jdocs = json_lines(jout)
      for i = 1, 12 do
        assert.equal(jdocs[i].name, docs[i].name)
        assert.equal(jdocs[i].taskTypeVersion, docs[i].taskTypeVersion)
        -- the same document, YAML strings like "8" stay strings
        assert.same(jdocs[i].custom, docs[i].custom)
      end
    end)

    it("writes kubectl-ready manifests with -f manifest", function()
      local code, out = kfjob("render", SWEEP, "-f", "manifest")
      assert.equal(0, code)
      local docs = lyaml.load(out, { all = true })
      assert.equal(12, #docs)
      for _, d in ipairs(docs) do
        assert.equal("kubeflow.org/v1", d.apiVersion)
        assert.equal("PyTorchJob", d.kind)
        assert.truthy(d.metadata.name:match("^bert%-"))
      end
      assert.equal(11, select(2, out:gsub("\n%-%-%-\n", "")))
    end)

    it("writes the bytes of a single job with -f pb and -f template", function()
      local code, out = kfjob("render", path("one.lua"), "-f", "pb")
      assert.equal(0, code)
      assert.truthy(#out > 0)
      spit(path("one.bin"), out)
      local _, jline = kfjob("render", path("one.lua"))
      local _, decoded = kfjob("decode", "--type", "pytorch", "--name", "one", path("one.bin"))
      assert.equal(jline, decoded)
      code, out = kfjob("render", path("one.lua"), "-f", "template")
      assert.equal(0, code)
      assert.truthy(out:find("pytorch", 1, true))
    end)

    it("refuses binary output of several jobs to stdout (exit 2)", function()
      local code, out, err = kfjob("render", path("list.lua"), "-f", "pb")
      assert.equal(2, code)
      assert.equal("", out)
      assert.truthy(err:find("writes a single job to stdout", 1, true))
    end)

    it("renders task_type_version 0 with -T 0", function()
      local code, out = kfjob("render", path("one.lua"), "-T", "0")
      assert.equal(0, code)
      local d = json_lines(out)[1]
      assert.equal(0, d.taskTypeVersion)
      assert.same({ workers = 2 }, d.custom)
    end)

    it("exits 1 when a job cannot be rendered (-T 0 with images)", function()
      local code, out, err = kfjob("render", path("images.lua"), "-T", "0")
      assert.equal(1, code)
      assert.equal("", out)
      -- the line of the constructor call that made the job
      assert.truthy(err:find(path("images.lua") .. ":2: job 'images': ", 1, true), err)
      assert.truthy(err:find("version 0 cannot express", 1, true))
    end)

    it("--keep-going renders the other jobs and still exits 1", function()
      local code, out, err = kfjob("render", path("mixed.lua"), "-T", "0", "--keep-going")
      assert.equal(1, code)
      local docs = json_lines(out)
      assert.equal(1, #docs)
      assert.equal("ok", docs[1].name)
      assert.truthy(err:find("job 'bad': ", 1, true))
    end)

    it("passes --set values to the script as params", function()
      local code, out = kfjob("render", path("params.lua"), "--set", "count=2",
                              "--set", "replicas=7")
      assert.equal(0, code)
      local docs = json_lines(out)
      assert.equal(2, #docs)
      assert.equal("w1", docs[1].name)
      assert.equal(7, docs[2].custom.workerReplicas.replicas)
      code, out = kfjob("render", SWEEP, "--set", "prefix=exp7", "--set", "registry=r.io/me")
      assert.equal(0, code)
      local d = json_lines(out)[1]
      assert.equal("exp7-1-4-0-w2-g1", d.name)
      assert.equal("r.io/me/bert-finetune:1.4.0", d.custom.workerReplicas.image)
    end)

    it("names jobs: the file name, --name, list items, named sets", function()
      local _, out = kfjob("render", path("one.lua"))
      assert.equal("one", json_lines(out)[1].name)
      _, out = kfjob("render", path("one.lua"), "--name", "bert")
      assert.equal("bert", json_lines(out)[1].name)
      _, out = kfjob("render", path("list.lua"))
      local docs = json_lines(out)
      assert.same({ "list-1", "list-2" }, { docs[1].name, docs[2].name })
      _, out = kfjob("render", path("list.lua"), "--name", "exp")
      docs = json_lines(out)
      assert.same({ "exp-1", "exp-2" }, { docs[1].name, docs[2].name })
      _, out = kfjob("render", path("named.lua"))
      docs = json_lines(out)
      assert.same({ "mpi", "tf" }, { docs[1].name, docs[2].name })
      assert.same({ "mpi", "tensorflow" }, { docs[1].type, docs[2].type })
    end)

    it("--name selects one job of a named set, exit 1 when there is none", function()
      local code, out = kfjob("render", SWEEP, "--name", "bert-1-5-0-rc1-w8-g2")
      assert.equal(0, code)
      local docs = json_lines(out)
      assert.equal(1, #docs)
      assert.equal(8, docs[1].custom.workerReplicas.replicas)
      local err
      code, out, err = kfjob("render", SWEEP, "--name", "nope")
      assert.equal(1, code)
      assert.equal("", out)
      assert.equal(SWEEP .. ": no job named 'nope'\n", err)
    end)

    it("sends print() of the script to stderr", function()
      local code, out, err = kfjob("render", path("print.lua"))
      assert.equal(0, code)
      assert.equal(1, #lines(out))
      assert.truthy(err:find("hello from the config", 1, true))
    end)

    it("shows a progress bar on stderr with --progress", function()
      local code, _, err = kfjob("render", path("list.lua"), "--progress")
      assert.equal(0, code)
      assert.truthy(err:find("] 2/2 100%% [%d.]+/s list%-2\n"), err)
      code, _, err = kfjob("render", SWEEP, "--progress")
      assert.equal(0, code)
      -- a sweep knows its size (kfjob.template.count): a bar with a total
      assert.truthy(err:find("] 12/12 100% ", 1, true), err)
      assert.truthy(err:find(" bert-1-5-0-rc1-w8-g2\n", 1, true), err)
      code, _, err = kfjob("render", SWEEP, "--no-progress")
      assert.equal(0, code)
      assert.equal("", err)
    end)

    describe("script errors: FILE:LINE: message, exit 1", function()
      local cases = {
        { "syntax.lua", ":3: unexpected symbol near <eof>" },
        { "runtime.lua", ":3: boom" },
        { "badjob.lua", ":2: kfjob.PyTorchJob: worker.replicas" },
        { "nothing.lua", ": the config returned nothing" },
        { "forbidden.lua", ":1: attempt to call a nil value (field 'execute')" },
        { "ioopen.lua", ":1: attempt to index a nil value (global 'io')" },
      }
      for _, c in ipairs(cases) do
        it(c[1], function()
          local code, out, err = kfjob("render", path(c[1]))
          assert.equal(1, code)
          assert.equal("", out)
          assert.equal(1, err:find(path(c[1]) .. c[2], 1, true), err)
        end)
      end

      it("the sandbox wrote nothing", function()
        assert.is_false(exists(path("pwned")))
      end)

      it("an instruction budget that the options can raise", function()
        local code, _, err = kfjob("render", path("loop.lua"), "--instruction-limit", "1M")
        assert.equal(1, code)
        assert.truthy(err:find(path("loop.lua") .. ":1: instruction budget exceeded "
                               .. "(1000000 instructions) (raise it with --instruction-limit)",
                               1, true), err)
        assert.equal(0, (kfjob("render", SWEEP, "--instruction-limit", "1G")))
      end)

      it("a memory limit that the options can raise", function()
        local code, _, err = kfjob("render", path("memory.lua"), "--memory-limit", "8M")
        assert.equal(1, code)
        assert.truthy(err:find("memory limit exceeded (8388608 bytes) "
                               .. "(raise it with --memory-limit)", 1, true), err)
        assert.equal(0, (kfjob("render", SWEEP, "--memory-limit", "16M")))
      end)

      -- redis and nginx cap a request's body before reading it: a config
      -- larger than the memory limit is refused before it is read whole
      -- redis's lua-time-limit: a wall-clock limit as the last resort for
      -- C work the budget does not model (comparing long strings)
      it("a time limit that the options can raise", function()
        spit(path("slow.lua"), "local s = ('a'):rep(1 << 20)\n"
                               .. "while true do local x = s < s .. 'b' end\n")
        local code, out, err = kfjob("render", path("slow.lua"), "--time-limit", "300ms")
        assert.equal(1, code)
        assert.equal("", out)
        assert.equal(path("slow.lua") .. ":2: time limit exceeded (300 ms) "
                     .. "(raise it with --time-limit)\n", err)
        assert.equal(0, (kfjob("render", SWEEP, "--time-limit", "1h")))
        code, _, err = kfjob("render", SWEEP, "--time-limit", "3x") -- luacheck: ignore 111
        assert.equal(2, code)
        assert.truthy(err:find("--time-limit expects a duration such as 30s, 500ms or 2m, "
                               .. "got '3x'", 1, true), err)
      end)

      it("a config larger than the memory limit is refused before it is read", function()
        local code, out, err = kfjob("render", "/dev/zero", "--memory-limit", "8M")
        assert.equal(1, code)
        assert.equal("", out)
        assert.equal("/dev/zero: memory limit exceeded (8388608 bytes): the script is larger "
                     .. "than the limit (raise it with --memory-limit)\n", err)
      end)
    end)

    describe("-o DIR", function()
      local dir = path("out")

      it("writes one file per job and the list of what it wrote", function()
        local code, out, err = kfjob("render", path("params.lua"), "-o", dir)
        assert.equal(0, code)
        assert.equal("", out)
        assert.equal("kfjob: 3 jobs written to " .. dir .. "\n", err)
        assert.same({ ".kfjob-outputs", "w1.json", "w2.json", "w3.json" }, listdir(dir))
        local d = json.decode(slurp(dir .. "/w2.json"))
        assert.equal(2, d.workerReplicas.replicas)
        assert.truthy(slurp(dir .. "/w2.json"):find('{\n  "workerReplicas"', 1, true))
        assert.truthy(slurp(dir .. "/.kfjob-outputs"):find("\nw1.json\tjson\tpytorch\t1\tPyTorchJob\tw1"
          .. "\t%d+\t%d+\t%x+\n"))
      end)

      -- A refused config writes no job: the directories the render made and
      -- the list are not left behind (an existing directory keeps what it had).
      it("a render that writes nothing leaves no directory and no list", function()
        local bad = path("refused.yaml")
        spit(bad, "jobs:\n  a: {kind: PyTorchJob, container: {image: 'i:1'}, worker: {replicas: 2}}\n"
          .. "  b: {kind: PyTorchJob, container: {image: 'i:1'},"
          .. " worker: {replicas: 2, restart_policy: exit_code}}\n")
        local d = path("refused-out")
        local code, out = kfjob("render", bad, "-f", "manifest", "--target", "trainer-2.3",
                                "-o", d .. "/a/b")
        assert.equal(1, code)
        assert.equal("", out)
        assert.is_false(exists(d))
        assert(os.execute("mkdir -p " .. quote(d)))
        code = kfjob("render", bad, "-f", "manifest", "--target", "trainer-2.3", "-o", d .. "/x")
        assert.equal(1, code)
        assert.same({}, listdir(d))
        code = kfjob("render", bad, "-f", "manifest", "--target", "trainer-2.3", "-o", d)
        assert.equal(1, code)
        assert.same({}, listdir(d))
      end)

      -- Like `install -C`: a file that already holds what its job renders is
      -- not rewritten (inode and mtime kept); the others are replaced.
      it("leaves a file that already holds the job's content untouched", function()
        local d = path("out-unchanged")
        spit(path("bump.lua"), "local kfjob = require 'kfjob'\nlocal jobs = {}\n"
          .. "for i = 1, 3 do jobs['w' .. i] = kfjob.PyTorchJob{ worker = { replicas = "
          .. "i == params.bump and 10 * i or i } } end\nreturn jobs\n")
        local function st(f)   -- inode and mtime (ns)
          local p = io.popen("stat -c '%i %y' " .. quote(d .. "/" .. f))
          local r = p:read("*l")
          p:close()
          return r
        end
        assert.equal(0, (kfjob("render", path("bump.lua"), "-o", d)))
        local before = { st("w1.json"), st("w2.json"), st("w3.json") }
        assert(os.execute("sleep 0.05"))
        local code, _, err = kfjob("render", path("bump.lua"), "-o", d, "--set", "bump=2")
        assert.equal(0, code)
        assert.equal("kfjob: 3 jobs written to " .. d .. "\n", err)
        assert.equal(before[1], st("w1.json"))
        assert.equal(before[3], st("w3.json"))
        assert.not_equal(before[2], st("w2.json"))
        assert.equal(20, json.decode(slurp(d .. "/w2.json")).workerReplicas.replicas)
        assert.same({ ".kfjob-outputs", "w1.json", "w2.json", "w3.json" }, listdir(d))
        -- an untouched file is still proved in the list: it goes when stale
        code, _, err = kfjob("render", path("params.lua"), "-o", d, "--set", "count=1")
        assert.equal(0, code)
        assert.equal("kfjob: 1 job written to " .. d .. ", 2 stale files removed\n", err)
        assert.equal(before[1], st("w1.json"))
        assert.same({ ".kfjob-outputs", "w1.json" }, listdir(d))
      end)

      -- The files are written by a second thread while the config renders;
      -- a failure still stops the render at that file, as written in order.
      it("stops at the first file it cannot write, listing only those written", function()
        local d = path("out-fails")
        spit(path("many.lua"), "local kfjob, template = require 'kfjob', require 'kfjob.template'\n"
          .. "local t = {} for i = 1, 600 do t[i] = i end\n"
          .. "return template.variants(kfjob.PyTorchJob{ worker = { image = 'img:1' } },\n"
          .. "  { ['worker.replicas'] = t }, { name = 'j-${worker.replicas}' })\n")
        assert(os.execute("mkdir -p " .. quote(d .. "/j-300.json")))
        local code, out, err = kfjob("render", path("many.lua"), "-o", d)
        assert.equal(2, code)
        assert.equal("", out)
        assert.equal("kfjob: cannot write " .. d .. "/j-300.json: Is a directory\n", err)
        local written, listed = {}, {}
        for i = 1, 299 do written[#written + 1] = "j-" .. i .. ".json" end
        table.sort(written)
        local files = { ".kfjob-outputs", "j-300.json", unpack(written) }
        table.sort(files)
        assert.same(files, listdir(d))
        for l in slurp(d .. "/.kfjob-outputs"):gmatch("[^\n]+") do
          if l:sub(1, 1) ~= "#" then listed[#listed + 1] = l:match("^[^\t]+") end
        end
        table.sort(listed)
        assert.same(written, listed)
      end)

      it("removes only the stale files it wrote itself", function()
        spit(dir .. "/notes.txt", "mine")
        spit(dir .. "/w9.json", "{}")            -- not written by kfjob
        local code, _, err = kfjob("render", path("params.lua"), "-o", dir, "--set", "count=1")
        assert.equal(0, code)
        assert.equal("kfjob: 1 job written to " .. dir .. ", 2 stale files removed\n", err)
        assert.same({ ".kfjob-outputs", "notes.txt", "w1.json", "w9.json" }, listdir(dir))
      end)

      it("keeps everything when the render fails", function()
        local code = kfjob("render", path("params.lua"), "-o", dir, "--set", "count=3")
        assert.equal(0, code)
        spit(path("fails.lua"), "local kfjob = require 'kfjob'\n"
             .. "return { w1 = kfjob.TFJob{ worker = { replicas = 1 } }, zz = 5 }\n")
        code = kfjob("render", path("fails.lua"), "-o", dir)
        assert.equal(1, code)
        assert.same({ ".kfjob-outputs", "notes.txt", "w1.json", "w2.json", "w3.json",
                      "w9.json" }, listdir(dir))
        -- still tracked: a later good render removes them
        code = kfjob("render", path("params.lua"), "-o", dir, "--set", "count=1")
        assert.equal(0, code)
        assert.same({ ".kfjob-outputs", "notes.txt", "w1.json", "w9.json" }, listdir(dir))
      end)

      it("ignores list entries that are not plain file names", function()
        local list = slurp(dir .. "/.kfjob-outputs")
        spit(path("victim.txt"), "keep me")
        spit(dir .. "/.kfjob-outputs", list .. "../victim.txt\tjson\tpytorch\t1\tPyTorchJob\tv\n")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", dir, "--set", "count=1")))
        assert.equal("keep me", slurp(path("victim.txt")))
      end)

      it("--dry-run lists what it would write and remove, and writes nothing", function()
        local before = slurp(dir .. "/.kfjob-outputs")
        local code, out = kfjob("render", path("list.lua"), "-o", dir, "--dry-run")
        assert.equal(0, code)
        assert.truthy(out:find("would write " .. dir .. "/list-1.json (", 1, true), out)
        assert.truthy(out:find("would remove " .. dir .. "/w1.json\n", 1, true), out)
        assert.same({ ".kfjob-outputs", "notes.txt", "w1.json", "w9.json" }, listdir(dir))
        assert.equal(before, slurp(dir .. "/.kfjob-outputs"))
      end)

      it("names files by format", function()
        local d2 = path("formats")
        for _, f in ipairs({ "json", "yaml", "pb", "template", "manifest" }) do
          local args = { "render", path("images.lua"), "-f", f, "-o", d2 .. "/" .. f }
          assert.equal(0, (kfjob(unpack(args))))
        end
        assert.same({ ".kfjob-outputs", "images.json" }, listdir(d2 .. "/json"))
        assert.same({ ".kfjob-outputs", "images.yaml" }, listdir(d2 .. "/yaml"))
        assert.same({ ".kfjob-outputs", "images.pb" }, listdir(d2 .. "/pb"))
        assert.same({ ".kfjob-outputs", "images.template.pb" }, listdir(d2 .. "/template"))
        assert.same({ ".kfjob-outputs", "images.manifest.yaml" }, listdir(d2 .. "/manifest"))
        local m = lyaml.load(slurp(d2 .. "/manifest/images.manifest.yaml"))
        assert.equal("images", m.metadata.name)
      end)

      it("refuses job names that are not file names (exit 1)", function()
        local code, _, err = kfjob("render", path("badname.lua"), "-o", path("bad"))
        assert.equal(1, code)
        assert.truthy(err:find("job '../escape': the name cannot be used as a file name", 1, true))
      end)

      it("reports a directory it cannot create (exit 2)", function()
        spit(path("afile"), "x")
        local code, _, err = kfjob("render", path("one.lua"), "-o", path("afile") .. "/sub")
        assert.equal(2, code)
        assert.truthy(err:find("cannot create", 1, true))
      end)
    end)
  end)

  describe("check", function()
    it("validates and lints, ending with a summary line", function()
      local code, out = kfjob("check", SWEEP)
      assert.equal(0, code)
      local l = lines(out)
      assert.equal(15, #l)   -- header, 12 jobs, totals, summary (the table: cli_daily_spec)
      assert.equal("Summary: 12 jobs found, 12 valid, 0 invalid, 0 warnings", l[15])
    end)

    it("reports warnings (exit 0, or 1 with --strict)", function()
      local code, out = kfjob("check", path("named.lua"))
      assert.equal(0, code)
      assert.truthy(out:find(path("named.lua") .. " - MPIJob mpi: warning: slots: ", 1, true), out)
      assert.truthy(out:find("Summary: 2 jobs found, 2 valid, 0 invalid, 1 warning\n", 1, true))
      assert.equal(1, (kfjob("check", path("named.lua"), "--strict")))
    end)

    it("reports invalid jobs (exit 1)", function()
      local code, out = kfjob("check", path("mixed.lua"), "-T", "0")
      assert.equal(1, code)
      assert.truthy(out:find(path("mixed.lua") .. ":3 - PyTorchJob bad is invalid: ", 1, true), out)
      assert.truthy(out:find("Summary: 2 jobs found, 1 valid, 1 invalid, 0 warnings\n", 1, true))
    end)

    it("reports script errors (exit 1)", function()
      local code, out, err = kfjob("check", path("runtime.lua"))
      assert.equal(1, code)
      assert.equal("Summary: the config failed before it gave any job\n", out)
      assert.equal(path("runtime.lua") .. ":3: boom\n", err)
    end)
  end)

  describe("decode", function()
    local pbdir, ttdir = path("dec-pb"), path("dec-tt")
    local lines_json

    setup(function()
      assert.equal(0, (kfjob("render", SWEEP, "-f", "pb", "-o", pbdir)))
      assert.equal(0, (kfjob("render", SWEEP, "-f", "template", "-o", ttdir)))
      local _, out = kfjob("render", SWEEP)
      lines_json = {}
      for _, l in ipairs(lines(out)) do
        lines_json[json.decode(l).name] = l .. "\n"
      end
    end)

    it("reads back every file of render -f pb (type and version from the list)", function()
      local n = 0
      for _, f in ipairs(listdir(pbdir)) do
        if f:match("%.pb$") then
          local code, out = kfjob("decode", pbdir .. "/" .. f)
          assert.equal(0, code)
          assert.equal(lines_json[f:sub(1, -4)], out)
          n = n + 1
        end
      end
      assert.equal(12, n)
    end)

    it("reads back every file of render -f template", function()
      local n = 0
      for _, f in ipairs(listdir(ttdir)) do
        if f:match("%.template%.pb$") then
          local code, out = kfjob("decode", ttdir .. "/" .. f)
          assert.equal(0, code)
          assert.equal(lines_json[f:sub(1, -13)], out)
          n = n + 1
        end
      end
      assert.equal(12, n)
    end)

    it("reads back a JSON file of render -o (custom JSON, type from the list)", function()
      local dir = path("dec-json")
      assert.equal(0, (kfjob("render", SWEEP, "-o", dir)))
      local code, out = kfjob("decode", dir .. "/bert-1-5-0-rc1-w4-g2.json")
      assert.equal(0, code)
      assert.equal(lines_json["bert-1-5-0-rc1-w4-g2"], out)
    end)

    it("decodes plugin bytes anywhere with --type and -V", function()
      local code, out = kfjob("render", path("one.lua"), "-f", "pb", "-T", "0")
      assert.equal(0, code)
      spit(path("v0.bin"), out)
      local err
      code, out, err = kfjob("decode", "--type", "pytorch", "-T", "0", path("v0.bin"))
      assert.equal(0, code, err)
      local d = json.decode(out)
      assert.equal("v0", d.name)
      assert.equal(0, d.taskTypeVersion)
      assert.same({ workers = 2 }, d.custom)
      code, out = kfjob("decode", "--type", "pytorch", "-T", "0", "-f", "yaml",
                        "--name", "x", path("v0.bin"))
      assert.equal(0, code)
      assert.equal('name: "x"\nkind: PyTorchJob\ntype: pytorch\ntaskTypeVersion: 0\n'
                   .. "custom:\n  workers: 2\n", out)
    end)

    it("decodes a TaskTemplate as JSON and as a manifest", function()
      local code, out = kfjob("render", path("images.lua"), "-f", "template-json")
      assert.equal(0, code)
      spit(path("tt.json"), out)
      code, out = kfjob("decode", path("tt.json"))
      assert.equal(0, code)
      local d = json.decode(out)
      assert.equal("images", d.name)           -- the line's name (the template has no id)
      assert.equal("PyTorchJob", d.kind)
      assert.equal("img:1", d.custom.workerReplicas.image)
      code, out = kfjob("decode", path("tt.json"), "-f", "manifest")
      assert.equal(0, code)
      assert.equal("kubeflow.org/v1", lyaml.load(out).apiVersion)
    end)

    it("exits 1 on bad data and 2 on a missing file", function()
      spit(path("junk.bin"), "\255\255\255\255 junk")
      local code, out, err = kfjob("decode", path("junk.bin"))
      assert.equal(1, code)
      assert.equal("", out)
      assert.truthy(err:find(path("junk.bin") .. ": ", 1, true))
      assert.equal(1, (kfjob("decode", "--type", "mpi", path("junk.bin"))))
      assert.equal(2, (kfjob("decode", path("nope.pb"))))
    end)
  end)

  describe("diff", function()
    local a, b = path("diff-a"), path("diff-b")

    setup(function()
      assert.equal(0, (kfjob("render", SWEEP, "-o", a)))
      assert.equal(0, (kfjob("render", SWEEP, "-f", "pb", "-o", b)))
      local _, out = kfjob("render", SWEEP)
      spit(path("sweep.jsonl"), out)
      _, out = kfjob("render", SWEEP, "-f", "yaml")
      spit(path("sweep.yaml"), out)
      spit(path("v1.lua"), CONFIGS["params.lua"])
      spit(path("v2.lua"), (CONFIGS["params.lua"]:gsub("params.replicas or i", "params.replicas or i * 2")
                                                   :gsub("params.count or 3", "params.count or 4")))
    end)

    it("exits 0 with no output when the renders mean the same", function()
      for _, pair in ipairs({ { a, b }, { a, path("sweep.jsonl") }, { path("sweep.yaml"), b },
                              { SWEEP, path("sweep.jsonl") }, { SWEEP, SWEEP } }) do
        local code, out, err = kfjob("diff", pair[1], pair[2])
        assert.equal(0, code, err)
        assert.equal("", out)
      end
    end)

    it("exits 1 and lists what differs, job by job", function()
      local code, out = kfjob("diff", path("v1.lua"), path("v2.lua"))
      assert.equal(1, code)
      assert.equal(table.concat({
        "~ w1:",
        "    custom.workerReplicas.replicas: 1 -> 2",
        "~ w2:",
        "    custom.workerReplicas.replicas: 2 -> 4",
        "~ w3:",
        "    custom.workerReplicas.replicas: 3 -> 6",
        "+ w4: only in " .. path("v2.lua"),
        "3 changed, 0 only in " .. path("v1.lua") .. ", 1 only in " .. path("v2.lua"),
      }, "\n") .. "\n", out)
    end)

    it("compares plain documents and manifests", function()
      spit(path("x.json"), '{"a": 1, "b": [1, 2], "c": {"d": "x"}}')
      spit(path("y.json"), '{"c": {"d": "y"}, "b": [1], "a": 1.0, "e": true}')
      local code, out = kfjob("diff", path("x.json"), path("y.json"))
      assert.equal(1, code)
      assert.equal(table.concat({
        "~ x:",
        "    b[1]: 2 -> (absent)",
        "    c.d: \"x\" -> \"y\"",
        "    e: (absent) -> true",
        "1 changed, 0 only in " .. path("x.json") .. ", 0 only in " .. path("y.json"),
      }, "\n") .. "\n", out:gsub("~ y:", "~ x:"))
      local _, m1 = kfjob("render", path("images.lua"), "-f", "manifest")
      spit(path("m1.yaml"), m1)
      spit(path("m2.yaml"), (m1:gsub("img:1", "img:2")))
      code, out = kfjob("diff", path("m1.yaml"), path("m2.yaml"))
      assert.equal(1, code)
      assert.truthy(out:find("~ images:\n    spec.pytorchReplicaSpecs.Master.template.spec"
                             .. ".containers[name=pytorch].image: \"img:1\" -> \"img:2\"", 1, true), out)
    end)

    it("exits 2 when a side cannot be read", function()
      local code, _, err = kfjob("diff", a, path("nope"))
      assert.equal(2, code)
      assert.truthy(err:find("cannot read " .. path("nope"), 1, true))
      spit(path("broken.json"), "{ not json: [")
      assert.equal(2, (kfjob("diff", a, path("broken.json"))))
      assert.equal(2, (kfjob("diff", path("runtime.lua"), a)))
    end)
  end)

  -- Issue 18: what a hostile file or config can still do to the command.
  describe("hardening", function()
    -- Files in -o DIR are made as with openat(2) + O_CREAT|O_EXCL|O_NOFOLLOW,
    -- under their own name when it is free, else under mkstemp(3)-style names
    -- and renamed; stale files are removed only when they are still what the
    -- list proves kfjob wrote.
    describe("-o DIR cannot be escaped or damaged", function()
      local dir = path("hostile")
      local victim = path("victim-file")
      local function ln(target, name) assert(os.execute("ln -sf " .. quote(target) .. " " .. quote(name))) end

      it("never follows links planted at the temporary or final names", function()
        assert(os.execute("mkdir -p " .. quote(dir)))
        spit(victim, "keep me")
        for _, n in ipairs({ ".w1.json.tmp", ".kfjob-outputs.tmp", "w2.json", ".kfjob-outputs" }) do
          ln(victim, dir .. "/" .. n)
        end
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", dir)))
        assert.equal("keep me", slurp(victim))
        assert.equal(2, json.decode(slurp(dir .. "/w2.json")).workerReplicas.replicas)
        -- the links at the final names were replaced, not written through
        for _, n in ipairs({ "w2.json", ".kfjob-outputs" }) do
          assert.truthy(os.execute("test ! -L " .. quote(dir .. "/" .. n)), n)
        end
        -- no temporary file is left behind
        assert.same({ ".kfjob-outputs", ".kfjob-outputs.tmp", ".w1.json.tmp", "w1.json", "w2.json",
                      "w3.json" }, listdir(dir))
      end)

      it("does not create a file through a dangling link at a new name", function()
        -- a job file whose name is free is written in place (O_CREAT|O_EXCL|
        -- O_NOFOLLOW): a link there, even to nothing, makes it take the rename
        local d, gone = path("hostile-dangling"), path("victim-not-there")
        assert(os.execute("mkdir -p " .. quote(d)))
        os.remove(gone)
        ln(gone, d .. "/w1.json")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", d)))
        assert.is_nil(io.open(gone, "r"))
        assert.truthy(os.execute("test ! -L " .. quote(d .. "/w1.json")))
        assert.equal(1, json.decode(slurp(d .. "/w1.json")).workerReplicas.replicas)
        assert.same({ ".kfjob-outputs", "w1.json", "w2.json", "w3.json" }, listdir(d))
      end)

      it("replaces a link at a job's name even to a file with the job's content", function()
        local d, target = path("hostile-same"), path("victim-same")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", path("hostile-ref"))))
        spit(target, slurp(path("hostile-ref") .. "/w1.json"))
        assert(os.execute("mkdir -p " .. quote(d)))
        ln(target, d .. "/w1.json")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", d)))
        assert.truthy(os.execute("test ! -L " .. quote(d .. "/w1.json")))
        assert.falsy(os.execute("test " .. quote(d .. "/w1.json") .. " -ef " .. quote(target)))
        assert.equal(slurp(target), slurp(d .. "/w1.json"))
        -- the same at a name the list has (looked at before a create is tried)
        assert(os.remove(d .. "/w1.json"))
        ln(target, d .. "/w1.json")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", d)))
        assert.truthy(os.execute("test ! -L " .. quote(d .. "/w1.json")))
        assert.equal(slurp(target), slurp(d .. "/w1.json"))
        -- and a name the list has but that is gone is created again
        assert(os.remove(d .. "/w2.json"))
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", d)))
        assert.equal(2, json.decode(slurp(d .. "/w2.json")).workerReplicas.replicas)
        assert.same({ ".kfjob-outputs", "w1.json", "w2.json", "w3.json" }, listdir(d))
      end)

      it("does not delete a file a planted list names", function()
        spit(dir .. "/notes.txt", "mine")
        local list = slurp(dir .. "/.kfjob-outputs")
        spit(dir .. "/.kfjob-outputs", list
          .. "notes.txt\tjson\tpytorch\t1\tPyTorchJob\tn\n"                        -- no proof
          .. "w9.json\tjson\tpytorch\t1\tPyTorchJob\tw9\t4\t1\t0123456789abcdef\n") -- wrong proof
        spit(dir .. "/w9.json", "{}\n")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", dir, "--set", "count=2")))
        assert.equal("mine", slurp(dir .. "/notes.txt"))
        assert.equal("{}\n", slurp(dir .. "/w9.json"))
        assert.equal(nil, slurp(dir .. "/w3.json"))   -- what it wrote itself still goes
      end)

      it("does not delete a file with the same content but not the one it wrote", function()
        local copy = path("hostile-copy")
        assert(os.execute("rm -rf " .. quote(copy) .. " && cp -r " .. quote(dir) .. " " .. quote(copy)))
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", copy, "--set", "count=1")))
        assert.truthy(slurp(copy .. "/w2.json"))   -- copied, not written there: kept
        -- a file kfjob wrote and the user edited stays too
        spit(dir .. "/w2.json", "edited\n")
        assert.equal(0, (kfjob("render", path("params.lua"), "-o", dir, "--set", "count=1")))
        assert.equal("edited\n", slurp(dir .. "/w2.json"))
      end)
    end)

    -- Names that would collide or break a JSON/YAML stream are refused, as
    -- Kubernetes' own name validation (apimachinery IsDNS1123Subdomain)
    -- refuses them before anything is written.
    it("refuses job names with NUL, invalid UTF-8, DEL or C1 characters", function()
      for _, bad in ipairs({ '"a\\0b"', '"a\\xffb"', '"a\\x7fb"', '"a\\u{85}b"', '"a\\nb"', '""' }) do
        spit(path("badnames.lua"), "local kfjob = require 'kfjob'\n"
          .. "local j = kfjob.TFJob{ worker = { replicas = 1 } }\n"
          .. "return { a = j, [" .. bad .. "] = kfjob.TFJob{ worker = { replicas = 5 } } }\n")
        local code, out, err = kfjob("render", path("badnames.lua"))
        assert.equal(1, code, bad)
        assert.equal("", out, bad)
        assert.truthy(err:find("job names must", 1, true), err)
      end
      -- a list's names come from --name: the same rule
      local code, _, err = kfjob("render", path("list.lua"), "--name", "x\1")
      assert.equal(1, code)
      assert.truthy(err:find("job 'x\\x01-1': job names must not contain control characters", 1, true), err)
    end)

    -- helm's --set / --set-string: a value is a number only when that number
    -- writes back as exactly what was typed
    it("--set keeps what was typed when a number would change it; --set-string", function()
      spit(path("echo.lua"), "local kfjob = require 'kfjob'\nlocal t = {}\n"
        .. "for k, v in pairs(params) do\n"
        .. "  t[#t + 1] = k .. '=' .. (math.type(v) or type(v)) .. ':' .. tostring(v)\nend\n"
        .. "table.sort(t)\nprint(table.concat(t, ' '))\n"
        .. "return kfjob.TFJob{ worker = { replicas = 1 } }\n")
      local code, _, err = kfjob("render", path("echo.lua"), "--dry-run",
        "--set", "a=1.10", "--set", "b=010", "--set", "c=1e3", "--set", "d=8", "--set", "e=0.5",
        "--set", "f=2.0", "--set", "g=-3", "--set", "h=true", "--set", "i=0x10",
        "--set-string", "j=10", "--set-string", "k=true")
      assert.equal(0, code)
      local want = "a=string:1.10 b=string:010 c=string:1e3 d=integer:8 e=float:0.5 f=float:2.0 "
        .. "g=integer:-3 h=boolean:true i=string:0x10 j=string:10 k=string:true"
      assert.truthy(err:find(want, 1, true), err)   -- print() goes to stderr
    end)

    -- protobuf's recursion limit (100 nested messages): a 34 KB TaskTemplate
    -- nesting list_value 5000 deep is an invalid input, not a crash
    it("decode and diff refuse bytes nested deeper than 100 messages", function()
      local w = require "wire"
      local v = w.int(4, 1)
      for _ = 1, 5000 do v = w.msg(6, w.msg(1, v)) end
      spit(path("deep.pb"), w.msg(2, "tensorflow") .. w.msg(5, w.msg(1, w.msg(1, "x"), w.msg(2, v))))
      local code, _, err = kfjob("decode", path("deep.pb"))
      assert.equal(1, code)
      assert.truthy(err:find("messages nested deeper than 100 levels", 1, true), err)
      code, _, err = kfjob("diff", path("deep.pb"), path("deep.pb"))
      assert.equal(2, code)
      assert.truthy(err:find("messages nested deeper than 100 levels", 1, true), err)
    end)
  end)

  describe("pod settings", function()
    local POD = [[
local kfjob = require "kfjob"
return { train = kfjob.PyTorchJob{ worker = { replicas = 2, limits = { gpu = 1 } },
  shared_memory = "SHM", accelerator = "nvidia-l4", requests = { cpu = 2 },
  pod_template = { metadata = { labels = { team = "TEAM" } }, spec = {
    tolerations = { { key = "k", operator = "Exists" } },
    containers = { { name = "primary", env = { { name = "E", value = "1" } } },
                   { name = "side", image = "busybox:1" } } } } } }
]]
    setup(function()
      spit(path("pod-a.lua"), (POD:gsub("SHM", "4Gi"):gsub("TEAM", "nlp")))
      spit(path("pod-b.lua"), (POD:gsub("SHM", "8Gi"):gsub("TEAM", "cv")))
    end)

    it("-f manifest merges them into every replica's pod", function()
      local code, out, err = kfjob("render", path("pod-a.lua"), "-f", "manifest", "--image", "img:1")
      assert.equal(0, code, err)
      local d = lyaml.load(out)
      local pod = d.spec.pytorchReplicaSpecs.Worker.template
      assert.same({ team = "nlp" }, pod.metadata.labels)
      assert.same({ "pytorch", "side" }, { pod.spec.containers[1].name, pod.spec.containers[2].name })
      assert.same({ name = "flyte-shared-memory", emptyDir = { medium = "Memory", sizeLimit = "4Gi" } },
                  pod.spec.volumes[1])
      assert.equal("nvidia-l4", pod.spec.tolerations[2].value)
      local validators, why = util.validators()
      if #validators == 0 then return pending(why) end
      spit(path("pod-a.yaml"), out)
      for _, vd in ipairs(validators) do
        local p = io.popen(vd.cmd .. " --strict " .. quote(path("pod-a.yaml")) .. " 2>&1")
        local v = p:read("a")
        p:close()
        assert.truthy(v:find("1 objects, 0 invalid", 1, true), vd.name .. ": " .. v)
      end
    end)

    it("check lints them", function()
      spit(path("pod-noshm.lua"), (POD:gsub('shared_memory = "SHM", ', ""):gsub("TEAM", "x")))
      local code, out = kfjob("check", path("pod-noshm.lua"))
      assert.equal(0, code)
      assert.truthy(out:find("PyTorchJob train: warning: shared_memory: unset", 1, true), out)
    end)

    it("diff lists them with -f manifest and -f template-json", function()
      local code, out = kfjob("diff", path("pod-a.lua"), path("pod-b.lua"), "-f", "manifest", "--image", "i")
      assert.equal(1, code)
      assert.truthy(out:find("    spec.pytorchReplicaSpecs.Worker.template.metadata.labels.team: \"nlp\" -> \"cv\"\n",
                             1, true), out)
      assert.truthy(out:find("    spec.pytorchReplicaSpecs.Worker.template.spec.volumes[name=flyte-shared-memory].emptyDir.sizeLimit: "
                             .. "\"4Gi\" -> \"8Gi\"\n", 1, true), out)
      code, out = kfjob("diff", path("pod-a.lua"), path("pod-b.lua"), "-f", "template-json")
      assert.equal(1, code)
      assert.truthy(out:find("sizeLimit", 1, true), out)
      assert.truthy(out:find("\"nlp\" -> \"cv\"", 1, true), out)
      -- the plugin message (the default -f json) carries none of them
      assert.equal(0, (kfjob("diff", path("pod-a.lua"), path("pod-b.lua"))))
    end)
  end)
end)
