-- The whole job on each target (R35-R37) and `{ job =, opts = }` entries in
-- every format and command.
--
-- R35: Flyte builds every replica's pod from the task's one container
-- (flyteplugins common_operator.go ToReplicaSpecWithOverrides; a replica
-- spec, flyteidl plugins/common.proto CommonReplicaSpec, has replicas,
-- image, resources and restart policy, MPI's also a command), so a group's
-- own container cannot travel; a TrainJob's master and workers are one
-- `node` job with one trainer command, args and env (trainer
-- trainjob_types.go Trainer).
-- R36: the TaskTemplate container's env is repeated KeyValuePair (flyteidl
-- core/tasks.proto Container.env): no valueFrom; a pod template's
-- container is a Kubernetes container and keeps it.
-- R37: Flyte's plugin manager sets the resource's namespace, labels and
-- annotations from the execution (flytepropeller plugin_manager.go
-- addObjectMetadata): the job's are ignored there.
local kfjob = require "kfjob"
local util = require "util"

local TARGETS = { "flyte", "flyte2", "operator", "mpi-operator", "trainer-2.2", "trainer-2.3" }
local FROM = { name = "POD", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } }

local function find(list, rule, path)
  for _, p in ipairs(list or {}) do
    if p.rule == rule and (path == nil or p.path == path) then return p end
  end
end

-- The problems of `rule` job:check{target = t} lists (nil when it passes).
local function errors(job, t, rule)
  local ok, problems = job:check { target = t, name = "job" }
  if ok then return {} end
  local out = {}
  for _, p in ipairs(problems) do
    if p.rule == rule then out[#out + 1] = p end
  end
  return out
end

describe("R35 a group's container", function()
  local tf = function()
    return kfjob.TFJob { ps = { replicas = 1, container = { command = { "python", "ps.py" } } },
                         worker = { replicas = 2 } }
  end

  it("is an error on flyte and flyte2, with its path, rule and source", function()
    for _, t in ipairs { "flyte", "flyte2" } do
      local p = errors(tf(), t, "R35")
      assert.are.equal(1, #p, t)
      assert.are.equal("ps.container", p[1].path)
      assert.truthy(p[1].message:find("one task container", 1, true), p[1].message)
      assert.truthy(p[1].source:find("ToReplicaSpecWithOverrides", 1, true), p[1].source)
    end
    -- emitting for Flyte raises it: the plugin message has no place for it
    local e = util.error_of(function() return tf():encode() end)
    assert.truthy(e:find("ps.container: cannot be expressed", 1, true), e)
    assert.truthy(e:find("(target flyte)", 1, true), e)
    e = util.error_of(function() return tf():task_template { target = "flyte2" } end)
    assert.truthy(e:find("ps.container", 1, true), e)
  end)

  it("is accepted by the operator and the mpi-operator, whose resources have a container per group", function()
    assert.is_true(tf():check { target = "operator", name = "job" })
    local m = kfjob.MPIJob { worker = { replicas = 2, container = { env = { A = "1" } } },
                             launcher = { container = { args = { "mpirun", "x" } } } }
    assert.is_true(m:check { target = "mpi-operator", name = "job" })
    assert.is_true(m:check { target = "operator", name = "job" })
    local p = errors(m, "flyte", "R35")
    assert.are.equal(2, #p)
    assert.truthy(find(p, "R35", "launcher.container"))
    assert.truthy(find(p, "R35", "worker.container"))
  end)

  it("leaves MPI's group command alone on Flyte (the replica spec's command)", function()
    local m = kfjob.MPIJob { worker = { replicas = 2, command = { "python", "train.py" } } }
    assert.are.same({}, errors(m, "flyte", "R35"))
    assert.is_string(m:encode())
  end)

  it("is an error on Trainer only when master's and workers' containers differ", function()
    local differ = kfjob.PyTorchJob { worker = { replicas = 2, container = { args = { "--worker" } } } }
    local same = kfjob.PyTorchJob { container = { args = { "--lr", "0.1" } },
                                    master = { container = { args = { "--lr", "0.1" } } },
                                    worker = { replicas = 2 } }
    local env = kfjob.PyTorchJob { master = { container = { env = { A = "1" } } },
                                   worker = { replicas = 2, container = { env = { A = "2" } } } }
    for _, t in ipairs { "trainer-2.2", "trainer-2.3" } do
      local p = errors(differ, t, "R35")
      assert.are.equal(1, #p, t)
      assert.are.equal("worker.container.args", p[1].path)
      assert.truthy(p[1].source:find("trainjob_types.go", 1, true), p[1].source)
      assert.are.same({}, errors(same, t, "R35"))
      assert.are.equal("worker.container.env", errors(env, t, "R35")[1].path)
    end
    -- a master alone is one node: nothing differs
    local solo = kfjob.PyTorchJob { master = { container = { args = { "x" } } }, worker = { replicas = 0 } }
    assert.are.same({}, errors(solo, "trainer-2.3", "R35"))
  end)
end)

describe("R36 valueFrom in a container's env", function()
  local job = function()
    return kfjob.PyTorchJob { worker = { replicas = 2 },
                              container = { env = { { name = "A", value = "1" }, FROM } } }
  end

  it("is an error on flyte and flyte2 at the entry's path", function()
    for _, t in ipairs { "flyte", "flyte2" } do
      local p = errors(job(), t, "R36")
      assert.are.equal(1, #p, t)
      assert.are.equal("container.env[2].valueFrom", p[1].path)
      assert.truthy(p[1].source:find("Container.env", 1, true), p[1].source)
    end
    local e = util.error_of(function() return job():task_template() end)
    assert.truthy(e:find("container.env[2].valueFrom", 1, true), e)
  end)

  it("is accepted on the Kubernetes targets, and as name = value on Flyte", function()
    for _, t in ipairs { "operator", "trainer-2.2", "trainer-2.3" } do
      assert.are.same({}, errors(job(), t, "R36"), t)
    end
    local plain = kfjob.PyTorchJob { worker = { replicas = 2 }, container = { env = { A = "1" } } }
    assert.is_true(plain:check { target = "flyte" })
  end)

  it("stays allowed in a pod template's container on Flyte", function()
    local pod = kfjob.PyTorchJob { worker = { replicas = 2 }, pod_template = { spec = { containers = {
      { name = "primary", env = { FROM } } } } } }
    assert.are.same({}, errors(pod, "flyte", "R36"))
  end)

  it("reads a group's env too", function()
    local g = kfjob.TFJob { worker = { replicas = 1, container = { env = { FROM } } } }
    assert.truthy(find(errors(g, "flyte", "R36"), "R36", "worker.container.env[1].valueFrom"))
    assert.are.same({}, errors(g, "operator", "R36"))
  end)
end)

describe("R37 namespace, labels and annotations on Flyte", function()
  local job = function()
    return kfjob.TFJob { worker = { replicas = 1 }, namespace = "ml", labels = { team = "nlp" },
                         annotations = { ["example.com/owner"] = "me" } }
  end

  it("are lint warnings on flyte (the default) and flyte2, with rule and source", function()
    for _, opts in ipairs { {}, { target = "flyte" }, { target = "flyte2" } } do
      local w = job():lint(opts)
      for _, path in ipairs { "namespace", "labels", "annotations" } do
        local p = find(w, "R37", path)
        assert.truthy(p, path)
        assert.truthy(p.message:find("from the execution", 1, true), p.message)
        assert.truthy(p.source:find("plugin_manager.go", 1, true), p.source)
      end
    end
  end)

  it("do not fail check, and are not warned about elsewhere", function()
    for _, t in ipairs(TARGETS) do
      if t ~= "trainer-2.2" and t ~= "trainer-2.3" and t ~= "mpi-operator" then
        assert.is_true(job():check { target = t, name = "job" }, t)
      end
      if t ~= "flyte" and t ~= "flyte2" then
        assert.is_nil(find(job():lint { target = t }, "R37"), t)
      end
    end
  end)
end)

if not util.cli_ok then
  describe("{ job =, opts = } entries on the CLI", function() pending(util.cli_why()) end)
  return
end

local json = require "dkjson"
local run = util.kfjob
local DIR = util.tmpdir()
-- a config script in DIR: the body after kfjob's require
local function write(name, body) return util.write(DIR .. "/" .. name, 'local kfjob = require "kfjob"\n' .. body) end
local function lines(out)
  local docs = {}
  for l in out:gmatch("[^\n]+") do docs[#docs + 1] = assert(json.decode(l)) end
  return docs
end

local PT = 'kfjob.PyTorchJob { worker = { replicas = 2 }, container = { image = "img:1" } }'
local MANIFEST = write("manifest.lua", "return { train = { job = " .. PT .. [[,
  opts = { namespace = "x", command = { "python", "train.py" }, args = { "--lr", "0.1" },
           env = { FOO = "bar" }, labels = { team = "nlp" } } } }
]])

describe("{ job =, opts = } entries on the CLI", function()
  teardown(function() os.execute("rm -rf " .. util.quote(DIR)) end)

  it("render -f manifest-json and manifest take the manifest's options", function()
    local code, out, err = run("render", MANIFEST, "-f", "manifest-json")
    assert.are.equal(0, code, err)
    local m = lines(out)[1]
    assert.are.equal("x", m.metadata.namespace)
    assert.are.equal("nlp", m.metadata.labels.team)
    local c = m.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]
    assert.are.same({ "python", "train.py" }, c.command)
    assert.are.same({ "--lr", "0.1" }, c.args)
    assert.are.same({ name = "FOO", value = "bar" }, c.env[#c.env])
    code, out, err = run("render", MANIFEST, "-f", "manifest")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("\n  namespace: x\n", 1, true), out)
  end)

  it("an entry's opts win over the flags, and its target chooses the resource", function()
    local code, out, err = run("render", MANIFEST, "-f", "manifest-json", "--namespace", "flag")
    assert.are.equal(0, code, err)
    assert.are.equal("x", lines(out)[1].metadata.namespace)
    local cfg = write("target.lua", 'return { job = kfjob.MPIJob { worker = { replicas = 2 }, '
      .. 'container = { image = "img:1" } }, opts = { target = "mpi-operator" } }\n')
    code, out, err = run("render", cfg, "-f", "manifest-json")
    assert.are.equal(0, code, err)
    assert.are.equal("kubeflow.org/v2beta1", lines(out)[1].apiVersion)
  end)

  it("kfjob env takes them (the environment of the manifest's pods)", function()
    local code, out, err = run("env", MANIFEST, "--pod", "worker-0")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("\nFOO=bar\n", 1, true), out)
  end)

  it("check takes them: the job is valid on the operator, lint sees them on Flyte", function()
    local code, out = run("check", MANIFEST, "--target", "operator")
    assert.are.equal(0, code, out)
    assert.truthy(out:find("1 valid, 0 invalid", 1, true), out)
    local cfg = write("where.lua", 'return { job = kfjob.TFJob { worker = { replicas = 1 }, namespace = "ml" }, '
      .. 'opts = { version = 1 } }\n')
    code, out = run("check", cfg)
    assert.are.equal(0, code, out)
    assert.truthy(out:find("warning: namespace: 'ml' is ignored on Flyte", 1, true), out)
    assert.truthy(out:find("(target flyte; rule R37: ", 1, true), out)
  end)

  it("check --target lists the new rules' refusals, each with its rule", function()
    local cfg = write("refused.lua", 'return { tf = kfjob.TFJob { ps = { replicas = 1, container = '
      .. '{ args = { "ps" } } }, worker = { replicas = 1 }, container = { image = "img:1", env = { { name = "P", '
      .. 'valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } } } } }\n')
    local code, out = run("check", cfg, "--target", "flyte2")
    assert.are.equal(1, code)
    assert.truthy(out:find("ps.container: cannot be expressed", 1, true), out)
    assert.truthy(out:find("(target flyte2; rule R35: ", 1, true), out)
    assert.truthy(out:find("container.env[1].valueFrom: cannot be expressed", 1, true), out)
    assert.truthy(out:find("(target flyte2; rule R36: ", 1, true), out)
    code, out = run("check", cfg, "--target", "operator")
    assert.are.equal(0, code, out)
    -- an entry's own target is the one checked
    cfg = write("refused2.lua", 'return { job = kfjob.TFJob { ps = { replicas = 1, container = '
      .. '{ args = { "ps" } } }, worker = { replicas = 1 } }, opts = { target = "flyte" } }\n')
    code, out = run("check", cfg)
    assert.are.equal(1, code)
    assert.truthy(out:find("(target flyte; rule R35: ", 1, true), out)
  end)

  it("diff compares what the opts made", function()
    local other = write("other.lua", "return { train = { job = " .. PT .. ', opts = { namespace = "y" } } }\n')
    local code, out = run("diff", MANIFEST, other, "-f", "manifest-json")
    assert.are.equal(1, code)
    assert.truthy(out:find('metadata.namespace: "x" -> "y"', 1, true), out)
    code = run("diff", MANIFEST, MANIFEST, "-f", "manifest-json")
    assert.are.equal(0, code)
  end)

  it("the payload formats take version and replica_encoding", function()
    local cfg = write("enc.lua", 'return { job = kfjob.PyTorchJob { worker = { replicas = 2 } }, '
      .. 'opts = { version = 0 } }\n')
    local code, out, err = run("render", cfg, "-f", "json")
    assert.are.equal(0, code, err)
    local d = lines(out)[1]
    assert.are.equal(0, d.taskTypeVersion)
    assert.are.same({ workers = 2 }, d.custom)   -- v0 DistributedPyTorchTrainingTask
    code, out, err = run("render", cfg, "-f", "pb")
    assert.are.equal(0, code, err)
    assert.are.equal(kfjob.PyTorchJob { worker = { replicas = 2 } }:encode { version = 0 }, out)
    cfg = write("common.lua", 'return { job = kfjob.PyTorchJob { worker = { replicas = 2 } }, '
      .. 'opts = { replica_encoding = "common" } }\n')
    code, out, err = run("render", cfg, "-f", "yaml")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("workerReplicas:\n    common:\n      replicas: 2", 1, true), out)
  end)

  it("-f template and taskspec take the TaskTemplate's options", function()
    local cfg = write("tt.lua", 'return { job = kfjob.PyTorchJob { worker = { replicas = 2 } }, opts = { '
      .. 'container = { image = "own:2", args = { "python", "t.py" } }, '
      .. 'id = { project = "p", domain = "d", version = "v1" }, metadata = { retries = 3 } } }\n')
    local code, out, err = run("render", cfg, "-f", "taskspec-json", "--image", "flag:1")
    assert.are.equal(0, code, err)
    local t = json.decode(out).template
    assert.are.same({ "python", "t.py" }, t.container.args)
    assert.are.equal("own:2", t.container.image)
    assert.are.equal("p", t.id.project)
    assert.are.equal(3, t.metadata.retries.retries)
    -- metadata is a TaskSpec's option, not a TaskTemplate's
    local _
    code, _, err = run("render", cfg, "-f", "template-json")
    assert.are.equal(1, code)
    assert.truthy(err:find("opts.metadata: unknown option for -f template-json", 1, true), err)
    cfg = write("tt2.lua", 'return { job = kfjob.PyTorchJob { worker = { replicas = 2 } }, opts = { '
      .. 'container = { args = { "python", "t.py" } } } }\n')
    code, out, err = run("render", cfg, "-f", "template-json")
    assert.are.equal(0, code, err)
    assert.are.same({ "python", "t.py" }, lines(out)[1].template.container.args)
  end)

  it("an unknown key is an error naming it and the format; nothing is rendered", function()
    local cfg = write("bogus.lua", "return { job = " .. PT .. ', opts = { namespace = "x", bogus = 1 } }\n')
    for _, f in ipairs { "manifest", "manifest-json", "json", "pb", "template", "taskspec" } do
      local code, out, err = run("render", cfg, "-f", f)
      assert.are.equal(1, code, f)
      assert.are.equal("", out, f)
      assert.truthy(err:find("opts.bogus: unknown option for -f " .. f .. " (", 1, true)
                    or err:find("opts.namespace: unknown option for -f " .. f .. " (", 1, true), err)
      assert.truthy(err:find("known: ", 1, true), err)
    end
    local _, code, out, err
    _, _, err = run("render", cfg, "-f", "manifest")
    assert.truthy(err:find("opts.bogus: unknown option for -f manifest (known: name, namespace", 1, true), err)
    code, _, err = run("env", cfg)
    assert.are.equal(1, code)
    assert.truthy(err:find("opts.bogus: unknown option", 1, true), err)
    code, out = run("check", cfg)
    assert.are.equal(1, code)
    assert.truthy(out:find("opts.bogus: unknown option", 1, true), out)
    -- a manifest's option is not a payload's
    code, _, err = run("render", MANIFEST, "-f", "json")
    assert.are.equal(1, code)
    assert.truthy(err:find("unknown option for -f json (known: version, replica_encoding, target)", 1, true), err)
  end)
end)
