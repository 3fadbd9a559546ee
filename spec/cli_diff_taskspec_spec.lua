-- `kfjob diff` of two TaskSpecs: the whole registrable task is compared
-- (interface, metadata, container or pod, config, the job, the id), the
-- parts that differ are named, and a TaskSpec reads the same as bytes and
-- as JSON; its JSON goes through the strict reader `decode` uses
-- (duplicate keys refused).  Exit codes as for every diff: 0 the same,
-- 1 different, 2 unreadable input.
local util = require "util"
if not util.cli_ok then
  describe("kfjob diff of TaskSpecs", function() pending(util.cli_why()) end)
  return
end

local quote, kfjob = util.quote, util.kfjob

local DIR = os.tmpname()
os.remove(DIR)
assert(os.execute("mkdir -p " .. quote(DIR)))
local function path(name) return DIR .. "/" .. name end
local function write(name, s)
  local f = assert(io.open(path(name), "wb"))
  f:write(s)
  f:close()
  return path(name)
end

-- A config of one job "train" whose TaskSpec opts are BASE with `extra`
-- (Lua source of more opts fields) and whose job is `job` (Lua source).
local BASE = 'id = { project = "p", domain = "d", version = "v1" }, '
local function config(name, extra, job)
  return write(name .. ".lua", "local kfjob = require 'kfjob'\nreturn { train = { job = "
    .. (job or "kfjob.PyTorchJob{ worker = { replicas = 2, image = 'img:1' } }")
    .. ", opts = { " .. BASE .. (extra or "") .. " } } }\n")
end

-- Renders config `name` as a TaskSpec file: "taskspec" (bytes) or
-- "taskspec-json".
local function spec(name, fmt, extra, job)
  local cfg = config(name, extra, job)
  -- --args: a task with inputs or outputs needs a command (validateContainerCommand)
  local code, out, err = kfjob("render", cfg, "-f", fmt, "--image", "img:1", "--args", "python")
  assert(code == 0, err)
  return write(name .. (fmt == "taskspec" and ".pb" or ".json"), out)
end

local base_pb, base_json
describe("kfjob diff of TaskSpecs", function()
  setup(function()
    base_pb = spec("base", "taskspec")
    base_json = spec("base", "taskspec-json")
  end)
  teardown(function() os.execute("rm -rf " .. quote(DIR)) end)

  it("reads the same TaskSpec as bytes and as JSON the same way (exit 0, no output)", function()
    local code, out, err = kfjob("diff", base_pb, base_json)
    assert.are.equal(0, code, err)
    assert.are.equal("", out)
    code, out = kfjob("diff", base_json, base_pb)
    assert.are.equal(0, code)
    assert.are.equal("", out)
  end)

  -- each case: the opts (or job) that change one part, and the part
  local cases = {
    { "interface", 'interface = { inputs = { lr = "float" } }' },
    { "metadata", "metadata = { retries = 2 }" },
    { "metadata", 'metadata = { cache = { version = "1" } }' },
    { "metadata", "metadata = { timeout = 60 }" },
    { "container", 'container = { args = { "python", "train.py" } }' },
    { "config", 'config = { mode = "fast" }' },
    { "job", nil, "kfjob.PyTorchJob{ worker = { replicas = 3, image = 'img:1' } }" },
    { "id", 'id = { project = "p", domain = "d", version = "v2" }' },
  }
  for i, c in ipairs(cases) do
    it("names the part that differs: " .. c[1] .. " (" .. (c[2] or c[3]) .. ")", function()
      local other = spec("c" .. i, i % 2 == 0 and "taskspec" or "taskspec-json", c[2], c[3])
      local code, out = kfjob("diff", base_pb, other)
      assert.are.equal(1, code)
      local lines = {}
      for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
      assert.are.equal("~ train:", lines[1])
      assert.are.equal("    TaskSpec parts that differ: " .. c[1], lines[2])
      assert.matches("^    template%.", lines[3])
      assert.matches("1 changed, 0 only in ", out, 1, true)
    end)
  end

  it("names every part that differs, in a fixed order", function()
    local other = spec("multi", "taskspec", 'metadata = { retries = 1 }, interface = { outputs = { o = "string" } }')
    local code, out = kfjob("diff", base_json, other)
    assert.are.equal(1, code)
    assert.matches("\n    TaskSpec parts that differ: interface, metadata\n", out, 1, true)
  end)

  it("a pod template moves the task from container to pod", function()
    local other = spec("pod", "taskspec", nil, "kfjob.PyTorchJob{ worker = { replicas = 2, image = 'img:1' }, "
      .. "pod_template = { spec = { containers = { { name = 'primary' } } } } }")
    local code, out = kfjob("diff", base_pb, other)
    assert.are.equal(1, code)
    assert.matches("TaskSpec parts that differ: [^\n]*pod", out)
  end)

  it("refuses a TaskSpec JSON with a duplicate key, as decode does (exit 2)", function()
    local src = util.slurp(base_json)
    local dup = write("dup.json", (src:gsub('^{"template":{', '{"template":{"type":"tensorflow",', 1)))
    local code, out, err = kfjob("diff", base_pb, dup)
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.matches("duplicate object key", err, 1, true)
    local _, _, derr = kfjob("decode", dup)
    assert.matches("duplicate object key", derr, 1, true)
  end)
end)
