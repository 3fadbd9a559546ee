-- Specs for the `kfjob` CLI in daily use (issue 15): honest check counts
-- and --keep-going over sweeps, FILE:LINE in every sweep error,
-- did-you-mean for commands, options, formats and enum values, a config
-- on stdin, per-command help, names on template-json lines, the resource
-- table with exact sums, and the progress bar seen in a pseudo-terminal.
local util = require "util"
if not util.cli_ok then
  describe("kfjob CLI in daily use", function() pending(util.cli_why()) end)
  return
end

local json = require "dkjson"

local KFJOB, quote, slurp, kfjob = util.KFJOB, util.quote, util.slurp, util.kfjob
-- Runs kfjob with stdin the text `input`; returns exit code, stdout, stderr.
local run = util.run_cli

local function spit(p, s)
  local f = assert(io.open(p, "wb"))
  f:write(s)
  f:close()
end

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP)))
local function path(name) return TMP .. "/" .. name end

local function lines(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

local CONFIGS = {
  -- the 2nd of 3 variants is invalid; `return template.variants(...)` is a
  -- tail call, the line is that of the call (2)
  ["sweep3.lua"] = [[
local template = require "kfjob.template"
return template.variants({ worker = { replicas = "${r}", image = "x:1" } },
  { r = { 1, "x", 2 } }, { kind = "TFJob", name = "j-${r}" })
]],
  -- not a tail call: the line of the call is 3
  ["sweep3b.lua"] = [[
local template = require "kfjob.template"
local n = 0
local it = template.variants({ worker = { replicas = "${r}" } }, { r = { "x", 1 } },
  { kind = "TFJob" })
return it
]],
  -- two variants with one name: the duplicate is the failed one
  ["dup.lua"] = [[
local template = require "kfjob.template"
return template.variants({ worker = { replicas = "${r}" } }, { r = { 1, 2, 3 } },
  { kind = "TFJob", name = "same" })
]],
  -- `bad` is made by job:with on line 3; version 0 cannot express its image
  ["v0.lua"] = [[
local kfjob = require "kfjob"
local base = kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = true }
return { ok = base, bad = base:with{ worker = { image = "x" } } }
]],
  ["early.lua"] = [[
local kfjob = require "kfjob"
return kfjob.TFJob{ worker = { replicas = 2, restart_policy = "onfailure" } }
]],
  ["images.lua"] = [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = 2, image = "img:1" },
                         master = { image = "img:1" } }
]],
  -- quantities whose sums are worked out by hand in "the resource table"
  ["res.lua"] = [[
local kfjob = require "kfjob"
return {
  a = kfjob.TFJob{
    worker = { replicas = 3, requests = { cpu = "500m", mem = "1G" },
               limits = { cpu = "1.5", mem = "1Gi" } },
    ps = { replicas = 2, requests = { cpu = 0.25, mem = "512Mi" } } },
  b = kfjob.PyTorchJob{
    master = { requests = { cpu = 2, mem = "4Gi" } },
    worker = { replicas = 2, requests = { gpu = 1 },
               limits = { cpu = 4, mem = "8Gi", gpu = 1 } },
    shared_memory = true },
}
]],
  -- 12 000 variants: more rows than the text table keeps
  ["huge.lua"] = [[
local template = require "kfjob.template"
local r, s = {}, {}
for i = 1, 120 do r[i] = i end
for i = 1, 100 do s[i] = i end
return template.variants({ worker = { replicas = "${r}", image = "x:1", requests = { cpu = "250m" } } },
  { r = r, s = s }, { kind = "TFJob", name = "b-${r}-${s}", unique = false })
]],
  ["big.lua"] = [[
local template = require "kfjob.template"
return template.variants({ worker = { replicas = "${r}", image = "x:1" } },
  { r = { 1, 2, 3, 4, 5, 6, 7, 8 }, s = { 1, 2, 3, 4, 5 } },
  { kind = "TFJob", name = "b-${r}-${s}" })
]],
}
for name, src in pairs(CONFIGS) do spit(path(name), src) end

describe("kfjob CLI in daily use", function()
  setup(function()
    assert(io.open(KFJOB, "rb"), KFJOB .. " is missing: build first")
  end)
  teardown(function() os.execute("rm -rf " .. quote(TMP)) end)

  describe("sweeps with an invalid variant", function()
    it("check counts and reports it, with the line of the variants call", function()
      local code, out = kfjob("check", path("sweep3.lua"))
      assert.equal(1, code)
      assert.truthy(out:find(path("sweep3.lua") .. ":2 - TFJob j-x is invalid: "
        .. "kfjob.template.variants: variant 2 {r=\"x\"}: kfjob.TFJob: worker.replicas: "
        .. "expected an integer, got string\n", 1, true), out)
      assert.truthy(out:find("Summary: 3 jobs found, 2 valid, 1 invalid, 0 warnings\n", 1, true), out)
    end)

    it("render --keep-going goes on to the next variant (exit 1)", function()
      local code, out, err = kfjob("render", path("sweep3.lua"), "--keep-going")
      assert.equal(1, code)
      local l = lines(out)
      assert.equal(2, #l)
      assert.equal("j-1", json.decode(l[1]).name)
      assert.equal("j-2", json.decode(l[2]).name)
      assert.truthy(err:find(path("sweep3.lua") .. ":2: job 'j-x': kfjob.template.variants: "
                             .. "variant 2 {r=\"x\"}: ", 1, true), err)
      assert.truthy(err:find("1 of 3 jobs could not be rendered", 1, true), err)
    end)

    it("render without --keep-going stops there, naming FILE:LINE", function()
      local code, out, err = kfjob("render", path("sweep3.lua"))
      assert.equal(1, code)
      assert.equal(1, #lines(out))
      assert.equal(path("sweep3.lua") .. ":2: kfjob.template.variants: variant 2 {r=\"x\"}: "
                   .. "kfjob.TFJob: worker.replicas: expected an integer, got string\n", err)
    end)

    it("--name picks one variant, a failed one too", function()
      local code, out = kfjob("check", path("sweep3.lua"), "--name", "j-x")
      assert.equal(1, code)
      assert.truthy(out:find("Summary: 1 job found, 0 valid, 1 invalid", 1, true), out)
      code, out = kfjob("check", path("sweep3.lua"), "--name", "j-2")
      assert.equal(0, code)
      assert.truthy(out:find("Summary: 1 job found, 1 valid, 0 invalid", 1, true), out)
      local err
      code, out, err = kfjob("check", path("sweep3.lua"), "--name", "j-9")
      assert.equal(1, code)
      assert.equal("Summary: 0 jobs found, 0 valid, 0 invalid, 0 warnings\n", out)
      assert.equal(path("sweep3.lua") .. ": no job named 'j-9'\n", err)
    end)

    it("names the line of a call that is not a tail call", function()
      local code, out = kfjob("check", path("sweep3b.lua"))
      assert.equal(1, code)
      assert.truthy(out:find(path("sweep3b.lua") .. ":3 - TFJob tfjob-x is invalid: "
                             .. "kfjob.template.variants: variant 1 {r=\"x\"}: ", 1, true), out)
      assert.truthy(out:find("Summary: 2 jobs found, 1 valid, 1 invalid", 1, true), out)
    end)

    it("counts each duplicate name as an invalid variant", function()
      local code, out = kfjob("check", path("dup.lua"))
      assert.equal(1, code)
      assert.truthy(out:find(":2 - TFJob same is invalid: kfjob.template.variants: "
                             .. "duplicate name 'same' for variant 1 {r=1} and variant 2 {r=2}", 1, true), out)
      assert.truthy(out:find("Summary: 3 jobs found, 1 valid, 2 invalid", 1, true), out)
    end)

    it("a job that cannot be rendered is named with the line that made it", function()
      local code, out, err = kfjob("render", path("v0.lua"), "-T", "0")
      assert.equal(1, code)
      assert.equal("", out)
      assert.equal(path("v0.lua") .. ":3: job 'bad': kfjob.PyTorchJob: version 0 cannot "
                   .. "express worker.image (use version 1)\n", err)
      code, out = kfjob("check", path("v0.lua"), "-T", "0")
      assert.equal(1, code)
      assert.truthy(out:find(path("v0.lua") .. ":3 - PyTorchJob bad is invalid: ", 1, true), out)
    end)

    it("a config that fails before returning says so", function()
      local code, out, err = kfjob("check", path("early.lua"))
      assert.equal(1, code)
      assert.equal("Summary: the config failed before it gave any job\n", out)
      assert.truthy(err:find(path("early.lua") .. ":2: ", 1, true), err)
    end)
  end)

  describe("did you mean", function()
    local cases = {
      { { "rendr", "x.lua" }, "unknown command 'rendr' (did you mean 'render'?)" },
      { { "render", "x.lua", "--sett", "a=1" }, "unknown option '--sett' (did you mean '--set'?)" },
      { { "render", "x.lua", "--form", "json" }, "unknown option '--form' (did you mean '--format'?)" },
      { { "render", "x.lua", "--form=json" }, "unknown option '--form=json' (did you mean '--format'?)" },
      { { "check", "x.lua", "--strct" }, "unknown option '--strct' (did you mean '--strict'?)" },
      { { "render", "x.lua", "--hlep" }, "unknown option '--hlep' (did you mean '--help'?)" },
      { { "render", "x.lua", "-f", "jsn" }, "unknown format 'jsn' (json, yaml, pb, template, "
        .. "manifest, template-json, manifest-json, taskspec, taskspec-json) (did you mean 'json'?)" },
      { { "render", "x.lua", "--zzzzzz" }, "unknown option '--zzzzzz'\n" },
      { { "frobnicate" }, "unknown command 'frobnicate'\n" },
    }
    for _, c in ipairs(cases) do
      it("kfjob " .. table.concat(c[1], " "), function()
        local code, out, err = kfjob(table.unpack(c[1]))
        assert.equal(2, code)
        assert.equal("", out)
        assert.truthy(err:find(c[2], 1, true), err)
      end)
    end

    it("for enum values, from the core", function()
      local code, _, err = kfjob("render", path("early.lua"))
      assert.equal(1, code)
      assert.equal(path("early.lua") .. ":2: kfjob.TFJob: worker.restart_policy: unknown "
                   .. "restart policy 'onfailure' (expected never, on_failure, always or exit_code) "
                   .. "(did you mean 'on_failure'?)\n", err)
    end)
  end)

  describe("per-command help", function()
    it("render --help lists render's options only", function()
      local code, out = kfjob("render", "--help")
      assert.equal(0, code)
      assert.equal("usage: kfjob render CONFIG.lua|- [options]\n", out:match("^[^\n]*\n"))
      assert.truthy(out:find("--keep-going", 1, true))
      assert.truthy(out:find("-o, --output DIR", 1, true))
      assert.falsy(out:find("--strict", 1, true))
      assert.falsy(out:find("commands:", 1, true))
    end)

    it("check -h, decode --help and diff --help have their own", function()
      local code, out = kfjob("check", "-h")
      assert.equal(0, code)
      assert.truthy(out:find("^usage: kfjob check "))
      assert.truthy(out:find("--strict", 1, true))
      assert.falsy(out:find("--output", 1, true))
      code, out = kfjob("decode", "--help")
      assert.equal(0, code)
      assert.truthy(out:find("^usage: kfjob decode "))
      assert.truthy(out:find("--type T", 1, true))
      code, out = kfjob("diff", "--help")
      assert.equal(0, code)
      assert.truthy(out:find("^usage: kfjob diff A B"))
    end)

    it("kfjob --help still gives the whole usage", function()
      local code, out = kfjob("--help")
      assert.equal(0, code)
      assert.truthy(out:find("commands:", 1, true))
      assert.truthy(out:find("'kfjob COMMAND --help'", 1, true))
    end)
  end)

  describe("a config on stdin (-)", function()
    it("render - and check -", function()
      local code, out = run(CONFIGS["images.lua"], "render", "-")
      assert.equal(0, code)
      local d = json.decode(lines(out)[1])
      assert.equal("job", d.name)
      assert.equal("PyTorchJob", d.kind)
      code, out = run(CONFIGS["images.lua"], "check", "-")
      assert.equal(0, code)
      assert.truthy(out:find("Summary: 1 job found, 1 valid", 1, true), out)
    end)

    it("names stdin in messages", function()
      local code, out, err = run(CONFIGS["early.lua"], "render", "-")
      assert.equal(1, code)
      assert.equal("", out)
      assert.truthy(err:find("^stdin:2: kfjob.TFJob: worker.restart_policy: "), err)
      code, out, err = run(CONFIGS["sweep3.lua"], "render", "-", "--keep-going")
      assert.equal(1, code)
      assert.equal(2, #lines(out))
      assert.truthy(err:find("stdin:2: job 'j-x': ", 1, true), err)
    end)

    it("refuses a config larger than the memory limit", function()
      local code, _, err = run(string.rep("-- x\n", 300000), "render", "-",
                               "--memory-limit", "1M")
      assert.equal(1, code)
      assert.truthy(err:find("stdin: memory limit exceeded (1048576 bytes)", 1, true), err)
    end)
  end)

  it("template-json lines carry the job name, and decode reads one back", function()
    local code, out = kfjob("render", path("sweep3.lua"), "-f", "template-json", "--keep-going")
    assert.equal(1, code)
    local l = lines(out)
    assert.equal(2, #l)
    local d = json.decode(l[2])
    assert.equal("j-2", d.name)
    assert.equal("TFJob", d.kind)
    assert.equal("tensorflow", d.type)
    assert.equal(1, d.taskTypeVersion)
    assert.equal("tensorflow", d.template.type)
    spit(path("line.json"), l[2] .. "\n")
    code, out = kfjob("decode", path("line.json"))
    assert.equal(0, code)
    d = json.decode(out)
    assert.equal("j-2", d.name)
    assert.equal(2, d.custom.workerReplicas.replicas)
  end)

  describe("the resource table", function()
    -- By hand (manifest rules: a limit without a request gives the request;
    -- replica groups in the manifest's order, PS before Worker):
    --  a: PS 2 x (250m, 512Mi), Worker 3 x (req 500m/1G, lim 1.5/1Gi)
    --     cpu req 2*250m + 3*500m = 2000m = 2; cpu lim 3*1.5 = 4500m;
    --     mem req 2*512Mi + 3*1G = 1073741824 + 3000000000 = 4073741824
    --     (BinarySI, first term, but not whole Ki: printed plain);
    --     mem lim 3*1Gi = 3Gi; no GPU; 5 pods
    --  b: Master 1 x (2, 4Gi), Worker 2 x (4, 8Gi, 1 GPU as request and limit)
    --     cpu req 2 + 8 = 10; cpu lim 8; mem req 4Gi + 16Gi = 20Gi;
    --     mem lim 16Gi; GPU 2; 3 pods
    --  total: 8 pods, GPU 2, cpu req 12, cpu lim 4500m + 8 = 12500m,
    --     mem req 4073741824 + 21474836480 = 25548578304, mem lim 19Gi
    --  gang: no min_available, so the target's default, all pods (flyte
    --     runs them through the training-operator: the sum of replicas)
    local ROWS = {
      "NAME KIND PODS, GANG GPU CPU REQ CPU LIM MEM REQ MEM LIM",
      "a TFJob 5 (PS 2, Worker 3), gang 5 (default) 0 2 4500m 4073741824 3Gi",
      "b PyTorchJob 3 (Master 1, Worker 2), gang 3 (default) 2 10 8 20Gi 16Gi",
      "TOTAL (2 jobs) 8 2 12 12500m 25548578304 19Gi",
      "Summary: 2 jobs found, 2 valid, 0 invalid, 0 warnings",
    }

    it("check prints one row per job and a totals row, summed exactly", function()
      local code, out = kfjob("check", path("res.lua"))
      assert.equal(0, code)
      local l = lines(out)
      assert.equal(#ROWS, #l)
      for i, want in ipairs(ROWS) do
        assert.equal(want, (l[i]:gsub("%s+", " ")))
      end
    end)

    it("check -f json gives the same for machines", function()
      local code, out = kfjob("check", path("res.lua"), "-f", "json")
      assert.equal(0, code)
      local d = json.decode(out)
      assert.equal(2, #d.jobs)
      assert.same({ PS = 2, Worker = 3 }, d.jobs[1].groups)
      assert.equal("4073741824", d.jobs[1].memoryRequest)
      assert.equal("4500m", d.jobs[1].cpuLimit)
      assert.equal("2", d.jobs[2].gpu)
      assert.same({ jobs = 2, pods = 8, gpu = "2", cpuRequest = "12", cpuLimit = "12500m",
                    memoryRequest = "25548578304", memoryLimit = "19Gi" }, d.total)
      assert.equal(2, d.valid)
      assert.equal(false, d.configFailed)
    end)

    it("an invalid job is a row of its own, out of the totals", function()
      local code, out = kfjob("check", path("sweep3.lua"))
      assert.equal(1, code)
      assert.truthy(out:find("\nj%-x%s+TFJob%s+invalid%s+%-"), out)
      assert.truthy(out:find("\nTOTAL %(3 jobs%)%s+3%s"), out)
      assert.truthy(out:find("(the total leaves out 1 invalid job)", 1, true), out)
    end)

    it("keeps 10 000 rows of a longer sweep, totals all (memory stays bounded)", function()
      -- pods: 100 x (1 + ... + 120) = 100 x 7260 = 726000; cpu 250m x 726000 = 181500
      -- an hour's time limit, far above what it needs (docs/RELIABILITY.md)
      local code, out = kfjob("check", path("huge.lua"), "--time-limit", "1h")
      assert.equal(0, code)
      local l = lines(out)
      assert.equal(10004, #l)
      assert.equal("... 2000 more jobs (check -f json lists every one)", l[10002])
      assert.equal("TOTAL (12000 jobs) 726000 0 181500 0 0 0", (l[10003]:gsub("%s+", " ")))
      code, out = kfjob("check", path("huge.lua"), "-f", "json", "--time-limit", "1h")
      assert.equal(0, code)
      local d = json.decode(out)
      assert.equal(12000, #d.jobs)
      assert.equal("b-120-100", d.jobs[12000].name)
      assert.equal("181500", d.total.cpuRequest)
      assert.equal(12000, d.found)
    end)

    it("render --summary prints it on stderr, stdout keeps the jobs", function()
      local code, out, err = kfjob("render", path("res.lua"), "--summary")
      assert.equal(0, code)
      assert.equal(2, #lines(out))
      local l = lines(err)
      assert.equal(ROWS[4], (l[#l]:gsub("%s+", " ")))
    end)
  end)

  describe("the progress bar in a pseudo-terminal", function()
    local has_script = os.execute("command -v script >/dev/null 2>&1")
    it("shows the total, the rate and the time left", function()
      if not has_script then
        pending("script (util-linux) is missing")
        return
      end
      -- stderr is the terminal; stdout goes to a file
      local tty = path("tty.out")
      -- a sanitizer preloaded for kfjob (the ASan stage) is for kfjob, not
      -- for script(1): it goes to the command script runs
      local pre = os.getenv("LD_PRELOAD")
      pre = pre and ("LD_PRELOAD=" .. quote(pre) .. " ") or ""
      local cmd = string.format("env -u LD_PRELOAD script -q -e -c %s %s >/dev/null 2>&1",
        quote(pre .. KFJOB .. " render " .. quote(path("big.lua")) .. " --progress -o "
              .. quote(path("bigout"))), quote(tty))
      assert.truthy(os.execute(cmd))
      local s = slurp(tty)
      -- redrawn in place: carriage return, clear line, bar, count/total
      assert.truthy(s:find("\r\27%[K%[#*%.*%] 1/40 2%% [%d.]+/s [%dmhs]+ left b%-1%-1"), s)
      assert.truthy(s:find("%] 40/40 100%% [%d.]+/s b%-8%-5"), s)
      assert.truthy(s:find("kfjob: 40 jobs written to", 1, true), s)
    end)
  end)
end)
