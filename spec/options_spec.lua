-- The job methods' options are rows (core kf_options.c): the binding's
-- checks, kfjob.options(), `kfjob meta` and docs/OPTIONS.md read them.
local kfjob = require "kfjob"
local util = require "spec.util"

local function names_of(method)
  local out = {}
  for _, o in ipairs(kfjob.options()) do
    for _, m in ipairs(o.methods) do if m == method then out[#out + 1] = o.name end end
  end
  return out
end

describe("option rows", function()
  it("list each method's options (README/API: the options every method documents)", function()
    assert.are.same({ "version", "replica_encoding", "target" }, names_of("encode"))
    assert.are.same({ "version", "replica_encoding", "indent", "target" }, names_of("to_json"))
    assert.are.same({ "version", "replica_encoding", "format", "indent", "id", "container", "config",
                      "wrap_launcher", "target" }, names_of("task_template"))
    assert.are.same({ "version", "replica_encoding", "format", "indent", "id", "container", "config",
                      "wrap_launcher", "interface", "metadata", "target" }, names_of("task_spec"))
    local kube = { "name", "namespace", "image", "command", "args", "env", "labels", "annotations",
                   "copy_to_pods", "service_account", "target" }
    local function plus(t, ...) local o = { (table.unpack or unpack)(t) }
                                for _, x in ipairs { ... } do o[#o + 1] = x end
                                return o end
    assert.are.same(plus(kube, "format", "indent"), names_of("manifest"))
    assert.are.same(plus(kube, "job"), names_of("manifests_entry"))
    assert.are.same(plus(kube, "version"), names_of("lint"))
    assert.are.same({ "name", "namespace", "env", "target" }, names_of("environment"))
    assert.are.same({ "target", "name", "env" }, names_of("check"))
  end)

  it("drive the binding's checks", function()
    local job = kfjob.PyTorchJob { worker = { replicas = 1 } }
    local cases = {
      { "encode", "kfjob.encode" }, { "custom", "kfjob.custom" }, { "to_json", "kfjob.to_json" },
      { "task_template", "kfjob.task_template" }, { "task_spec", "kfjob.task_spec" },
      { "manifest", "kfjob.manifest" }, { "lint", "kfjob.lint" },
      { "environment", "kfjob.environment" }, { "check", "kfjob.check" } }
    for _, c in ipairs(cases) do
      assert.has_error(function() job[c[1]](job, { targte = "flyte" }) end,
                       c[2] .. ": opts.targte: unknown option (did you mean 'target'?)")
    end
    assert.has_error(function() job:manifest { name = "a", wrap_launcher = true } end,
                     "kfjob.manifest: opts.wrap_launcher: unknown option")
  end)

  it("docs/OPTIONS.md holds the table `kfjob meta --options` generates", function()
    local f = assert(io.open("docs/OPTIONS.md"))
    local doc = f:read("*a")
    f:close()
    local committed = doc:match("<!%-%- generated: kfjob meta %-%-options %-%->\n(.-)<!%-%- end generated %-%->")
    assert.is_string(committed)
    assert.equal(kfjob.meta("options"), committed)
    if util.cli_ok then
      local code, out = util.kfjob("meta", "--options")
      assert.equal(0, code)
      assert.equal(committed, out)
    end
  end)

  it("kfjob meta's option classes come from the rows", function()
    local m = kfjob.meta()
    assert.truthy(m:find("---@class (exact) kfjob.CheckOpts\n---@field target? kfjob.Target the system to check for", 1, true))
  end)

  it("give a host run's entries their options (the run's format and indent left out)", function()
    if not util.cli_ok then return end
    local cfg = os.tmpname() .. ".lua"
    local f = assert(io.open(cfg, "w"))
    f:write('local kfjob = require "kfjob"\n'
            .. 'return { job = kfjob.PyTorchJob { worker = { replicas = 1 }, container = { image = "i:1" } }, '
            .. 'opts = { bogus = 1 } }\n')
    f:close()
    local tt = "version, replica_encoding, target, id, container, config, wrap_launcher"
    local kube = "name, namespace, image, command, args, env, labels, annotations, "
                 .. "copy_to_pods, service_account"
    local want = {
      json = "version, replica_encoding, target", template = tt,
      taskspec = tt .. ", interface, metadata", manifest = kube .. ", target" }
    for format, known in pairs(want) do
      local code, _, err = util.kfjob("render", cfg, "-f", format)
      assert.equal(1, code)
      assert.truthy(err:find("opts.bogus: unknown option for -f " .. format .. " (known: "
                             .. known .. ")", 1, true), err)
    end
    local code, out = util.kfjob("check", cfg)
    assert.equal(1, code)
    assert.truthy(out:find("unknown option for any output (known: " .. tt
                           .. ", interface, metadata, " .. kube .. ")", 1, true), out)
    os.remove(cfg)
  end)
end)
