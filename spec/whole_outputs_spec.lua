-- The whole job in every output: a job's `container` (image, command,
-- args, env), `namespace`, `labels`, `annotations` and a group's
-- `container` reach the manifests of every target, the TaskTemplate and
-- TaskSpec container and each pod's environment wherever the call does
-- not set the same option; the plugin message never changes.
--
-- Expected values are written from the upstream types, not from kfjob:
--   * k8s.io/api core/v1 Container {name, image, command, args, env} and
--     EnvVar {name, value, valueFrom} (env is a list: kept in its order),
--     ObjectMeta {namespace, labels, annotations};
--   * training-operator v1: spec.tfReplicaSpecs.<PS|Worker>.template, the
--     containers named "tensorflow" / "pytorch" (the webhooks' defaults),
--     TF_CONFIG's cluster addresses <name>-<type>-<i>.<namespace>.svc:2222
--     (tensorflow.go genClusterSpec);
--   * flyteplugins pytorch.go: the worker's first container env ends with
--     _F_WN (fieldRef metadata.name), after the task's env;
--   * mpi-operator v2beta1: the launcher runs the mpirun line, a worker
--     without a command of its own gets none (the operator starts sshd);
--   * Trainer v1alpha1 TrainJob: spec.trainer {image, command, args, env};
--   * flyteidl core.Container: env is a list of KeyValuePair {key, value}.
local kfjob = require "kfjob"
local util = require "util"
local json = require "dkjson"

local IMAGE = "registry.example/train:v1"
local ENV = {   -- not sorted, with a valueFrom: kept as given
  { name = "ZETA", value = "z" },
  { name = "ALPHA", value = "a" },
  { name = "POD_NAME", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } },
}
local PLAIN_ENV = { { name = "ZETA", value = "z" }, { name = "ALPHA", value = "a" } }
local LABELS = { team = "ml", ["example.com/tier"] = "gold" }
local ANNOTATIONS = { ["example.com/owner"] = "ml-platform" }
local MPIRUN = { "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
                 "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
                 "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np" }

local function concat(a, b)
  local out = {}
  for _, v in ipairs(a) do out[#out + 1] = v end
  for _, v in ipairs(b) do out[#out + 1] = v end
  return out
end

-- A TFJob whose parameter server runs other args and env than its workers.
local function tfjob(extra)
  local t = {
    worker = { replicas = 2 },
    ps = { replicas = 1, container = { args = { "--job_name=ps" }, env = { { name = "ROLE", value = "ps" } } } },
    container = { image = IMAGE, command = { "python", "train.py" }, args = { "--epochs=3" }, env = ENV },
    namespace = "team-a", labels = LABELS, annotations = ANNOTATIONS,
  }
  for k, v in pairs(extra or {}) do t[k] = v end
  return kfjob.TFJob(t)
end

local function ct(m, specs, role) return m.spec[specs][role].template.spec.containers[1] end

describe("whole job: manifests", function()
  it("operator: each group's container from its own container, else the job's", function()
    local m = tfjob():manifest{ name = "tf" }
    assert.same({ name = "tf", namespace = "team-a", labels = LABELS, annotations = ANNOTATIONS },
                m.metadata)
    local ps, w = ct(m, "tfReplicaSpecs", "PS"), ct(m, "tfReplicaSpecs", "Worker")
    assert.equal("tensorflow", ps.name)
    assert.equal(IMAGE, ps.image)
    assert.same({ "python", "train.py" }, ps.command)
    assert.same({ "--job_name=ps" }, ps.args)
    assert.same({ { name = "ROLE", value = "ps" } }, ps.env)   -- replaces the job's, not merged
    assert.equal(IMAGE, w.image)
    assert.same({ "python", "train.py" }, w.command)
    assert.same({ "--epochs=3" }, w.args)
    assert.same(ENV, w.env)
    -- the job's labels and annotations are the TFJob's ObjectMeta; its pods'
    -- are their templates' (PodTemplateSpec.metadata), none here
    for _, role in ipairs{ "PS", "Worker" } do
      assert.is_nil(m.spec.tfReplicaSpecs[role].template.metadata)
    end
  end)

  it("a label the pods need is the pod template's (the job's or a group's), under the call's", function()
    local m = tfjob{ pod_template = { metadata = { labels = { app = "tf" } } },
                     ps = { replicas = 1, pod_template = { metadata = { labels = { role = "ps" } } } } }
      :manifest{ name = "tf", labels = { env = "prod" } }
    assert.same({ env = "prod", team = "ml", ["example.com/tier"] = "gold" }, m.metadata.labels)
    assert.same({ labels = { app = "tf", env = "prod" } }, m.spec.tfReplicaSpecs.Worker.template.metadata)
    assert.same({ labels = { app = "tf", env = "prod", role = "ps" } }, m.spec.tfReplicaSpecs.PS.template.metadata)
  end)

  for _, target in ipairs{ "flyte", "flyte2" } do
    it(target .. ": the job's container in every replica (the one task container)", function()
      local j = kfjob.PyTorchJob{ worker = { replicas = 2 }, namespace = "team-a", labels = LABELS,
                                  container = { image = IMAGE, command = { "python" },
                                                args = { "train.py" }, env = PLAIN_ENV } }
      local m = j:manifest{ name = "pt", target = target }
      assert.equal("team-a", m.metadata.namespace)
      assert.equal("gold", m.metadata.labels["example.com/tier"])
      -- Flyte's backend puts the resource's labels on every pod
      -- (flyteplugins pod_helper.go): a Flyte manifest has them there too
      for _, role in ipairs{ "Master", "Worker" } do
        assert.same(LABELS, m.spec.pytorchReplicaSpecs[role].template.metadata.labels)
      end
      for _, role in ipairs{ "Master", "Worker" } do
        local c = ct(m, "pytorchReplicaSpecs", role)
        assert.equal("pytorch", c.name)
        assert.equal(IMAGE, c.image)
        assert.same({ "python" }, c.command)
        assert.same({ "train.py" }, c.args)
        assert.same(PLAIN_ENV[1], c.env[1])
        assert.same(PLAIN_ENV[2], c.env[2])
      end
      if target == "flyte" then   -- pytorch.go: _F_WN after the task's env
        assert.same(concat(PLAIN_ENV, { { name = "_F_WN", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } } }),
                    ct(m, "pytorchReplicaSpecs", "Worker").env)
      end
    end)
  end

  it("mpi-operator: the launcher runs mpirun around the job's args; workers run their own or nothing", function()
    local own = kfjob.MPIJob{ slots = 2, namespace = "team-a",
                              worker = { replicas = 2, container = { command = { "/usr/sbin/sshd" }, args = { "-De" } } },
                              container = { image = IMAGE, args = { "python", "train.py" }, env = PLAIN_ENV } }
    local m = own:manifest{ name = "mpi", target = "mpi-operator" }
    local l, w = ct(m, "mpiReplicaSpecs", "Launcher"), ct(m, "mpiReplicaSpecs", "Worker")
    assert.equal("team-a", m.metadata.namespace)
    assert.equal(IMAGE, l.image)
    assert.same(concat(MPIRUN, { "4", "python", "train.py" }), l.args)
    assert.same(PLAIN_ENV, l.env)
    assert.same({ "/usr/sbin/sshd" }, w.command)
    assert.same({ "-De" }, w.args)
    assert.same(PLAIN_ENV, w.env)
    local bare = kfjob.MPIJob{ slots = 2, worker = { replicas = 2 },
                               container = { image = IMAGE, command = { "bash", "-c" }, args = { "train.py" } } }
    w = ct(bare:manifest{ name = "mpi", target = "mpi-operator" }, "mpiReplicaSpecs", "Worker")
    assert.is_nil(w.command)
    assert.is_nil(w.args)
    l = ct(bare:manifest{ name = "mpi", target = "mpi-operator" }, "mpiReplicaSpecs", "Launcher")
    assert.same({ "bash", "-c" }, l.command)
  end)

  for _, target in ipairs{ "trainer-2.2", "trainer-2.3" } do
    it(target .. ": spec.trainer takes the job's container (command behind torchrun --no-python)", function()
      local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, namespace = "team-a", labels = LABELS,
                                  container = { image = IMAGE, command = { "python" }, args = { "train.py" }, env = ENV } }
      local m = j:manifest{ name = "pt", target = target }
      assert.same({ name = "pt", namespace = "team-a", labels = LABELS }, m.metadata)
      assert.equal(IMAGE, m.spec.trainer.image)
      assert.same({ "torchrun", "--no-python", "python" }, m.spec.trainer.command)
      assert.same({ "train.py" }, m.spec.trainer.args)
      assert.same(ENV, m.spec.trainer.env)
    end)
  end
end)

describe("whole job: precedence, field by field", function()
  it("the call's command, args and env replace every group's and the job's", function()
    local m = tfjob():manifest{ name = "tf", command = { "bash" }, args = { "run.sh" }, env = { B = "2", A = "1" } }
    for _, role in ipairs{ "PS", "Worker" } do
      local c = ct(m, "tfReplicaSpecs", role)
      assert.same({ "bash" }, c.command)
      assert.same({ "run.sh" }, c.args)
      assert.same({ { name = "A", value = "1" }, { name = "B", value = "2" } }, c.env)
    end
  end)

  it("a group's command replaces the job's for that group alone", function()
    local j = tfjob():with{ ["ps.container.command"] = { "ps-server" } }
    local m = j:manifest{ name = "tf" }
    assert.same({ "ps-server" }, ct(m, "tfReplicaSpecs", "PS").command)
    assert.same({ "python", "train.py" }, ct(m, "tfReplicaSpecs", "Worker").command)
  end)

  it("images: a group's own, then opts.image, then container.image", function()
    local j = tfjob():with{ ["ps.image"] = "ps:1" }
    local m = j:manifest{ name = "tf" }
    assert.equal("ps:1", ct(m, "tfReplicaSpecs", "PS").image)
    assert.equal(IMAGE, ct(m, "tfReplicaSpecs", "Worker").image)
    m = j:manifest{ name = "tf", image = "opts:2" }
    assert.equal("ps:1", ct(m, "tfReplicaSpecs", "PS").image)
    assert.equal("opts:2", ct(m, "tfReplicaSpecs", "Worker").image)
  end)

  it("container.image is enough: no opts.image needed", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE } }
    assert.equal(IMAGE, ct(j:manifest{ name = "pt" }, "pytorchReplicaSpecs", "Worker").image)
    assert.has_error(function() kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt" } end,
                     "kfjob.manifest: opts.image: required: worker has no image of its own (set the job's container.image, or kfjob render --image; only a TrainJob may run its runtime's image)")
  end)

  it("opts.namespace over the job's", function()
    assert.equal("other", tfjob():manifest{ name = "tf", namespace = "other" }.metadata.namespace)
  end)

  it("labels and annotations merge by key, the call's winning", function()
    local m = tfjob():manifest{ name = "tf", labels = { team = "infra", env = "prod" },
                                annotations = { note = "x" } }
    local labels = { team = "infra", env = "prod", ["example.com/tier"] = "gold" }
    local annotations = { ["example.com/owner"] = "ml-platform", note = "x" }
    assert.same(labels, m.metadata.labels)
    assert.same(annotations, m.metadata.annotations)
    -- the pods get the call's alone
    assert.same({ labels = { team = "infra", env = "prod" }, annotations = { note = "x" } },
                m.spec.tfReplicaSpecs.Worker.template.metadata)
  end)

  it("copy_to_pods = false keeps the call's labels on the resource alone", function()
    local m = tfjob():manifest{ name = "tf", labels = { env = "prod" }, copy_to_pods = false }
    assert.same({ env = "prod", team = "ml", ["example.com/tier"] = "gold" }, m.metadata.labels)
    assert.is_nil(m.spec.tfReplicaSpecs.Worker.template.metadata)
  end)

  it("a job without the fields renders as before", function()
    local j = kfjob.TFJob{ worker = { replicas = 2 } }
    local m = j:manifest{ name = "tf", image = IMAGE, args = { "a" } }
    assert.is_nil(m.metadata.namespace)
    assert.is_nil(m.metadata.labels)
    local c = ct(m, "tfReplicaSpecs", "Worker")
    assert.same({ name = "tensorflow", image = IMAGE, args = { "a" }, resources = {} }, c)
  end)
end)

describe("whole job: env", function()
  it("a list keeps its order and its valueFrom entries", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = ENV } }
    assert.same(ENV, ct(j:manifest{ name = "pt" }, "pytorchReplicaSpecs", "Worker").env)
  end)

  it("a name = value table is written sorted by name", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = { Z = "1", A = "2", M = "3" } } }
    assert.same({ { name = "A", value = "2" }, { name = "M", value = "3" }, { name = "Z", value = "1" } },
                ct(j:manifest{ name = "pt" }, "pytorchReplicaSpecs", "Worker").env)
  end)

  it("the pod template's primary env comes after the job's", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = PLAIN_ENV },
                                pod_template = { spec = { containers = { { name = "primary",
                                  env = { { name = "T", value = "t" } } } } } } }
    assert.same(concat(PLAIN_ENV, { { name = "T", value = "t" } }),
                ct(j:manifest{ name = "pt" }, "pytorchReplicaSpecs", "Worker").env)
  end)
end)

describe("whole job: task_template and task_spec", function()
  local function container(j, o)
    o = o or {}
    o.format = "json"
    return json.decode(j:task_template(o)).container
  end
  local ID = { project = "p", domain = "d", name = "n", version = "v" }

  it("the container is the job's: image, command, args, env pairs in order", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 2 }, namespace = "team-a", labels = LABELS,
                                container = { image = IMAGE, command = { "python" }, args = { "train.py" }, env = PLAIN_ENV } }
    assert.same({ image = IMAGE, command = { "python" }, args = { "train.py" },
                  env = { { key = "ZETA", value = "z" }, { key = "ALPHA", value = "a" } } }, container(j))
    -- namespace, labels and annotations never reach the TaskTemplate
    local doc = j:task_template{ format = "json" }
    assert.is_nil(doc:find("team-a", 1, true))
    assert.is_nil(doc:find("gold", 1, true))
  end)

  it("a table env is sorted by name", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = { Z = "1", A = "2" } } }
    assert.same({ { key = "A", value = "2" }, { key = "Z", value = "1" } }, container(j).env)
  end)

  it("opts.container's fields win one by one", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 },
                                container = { image = IMAGE, command = { "python" }, args = { "train.py" }, env = PLAIN_ENV } }
    assert.same({ image = IMAGE, command = { "python" }, args = { "other.py" }, env = { { key = "Q", value = "1" } } },
                container(j, { container = { args = { "other.py" }, env = { Q = "1" } } }))
    assert.equal("x:1", container(j, { container = { image = "x:1" } }).image)
  end)

  it("MPI and Horovod: the job's args wrapped in the launcher line", function()
    local j = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2, container = { image = IMAGE, args = { "train.py" } } }
    assert.same(concat(MPIRUN, { "4", "train.py" }), container(j).args)
    local h = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 1, container = { image = IMAGE, args = { "train.py" } } }
    local args = container(h).args
    assert.equal("horovodrun", args[1])
    assert.equal("train.py", args[#args])
  end)

  it("task_spec registers with the job's image", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, args = { "a" } } }
    local ts = json.decode(j:task_spec{ id = ID, format = "json" })
    assert.equal(IMAGE, ts.template.container.image)
    assert.same({ "a" }, ts.template.container.args)
  end)

  it("a valueFrom cannot be a TaskTemplate env pair: an error at its path", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = ENV } }
    local ok, err = pcall(j.task_template, j)
    assert.is_false(ok)
    assert.matches("container.env[3].valueFrom", err, 1, true)
  end)

  it("a job without a container has no container, as before", function()
    assert.is_nil(container(kfjob.PyTorchJob{ worker = { replicas = 1 } }))
  end)
end)

describe("whole job: the plugin message is unchanged", function()
  local W = { container = { image = IMAGE, command = { "python" }, args = { "a" }, env = PLAIN_ENV },
              namespace = "team-a", labels = LABELS, annotations = ANNOTATIONS }
  local kinds = {
    { "PyTorchJob", { worker = { replicas = 2 } } },
    { "TFJob", { worker = { replicas = 2 }, ps = { replicas = 1 } } },
    { "MPIJob", { worker = { replicas = 2 }, slots = 2 } },
    { "HorovodJob", { worker = { replicas = 2 } } },
    { "Elastic", { nnodes = "2:4" } },
  }
  for _, k in ipairs(kinds) do
    it(k[1] .. ": encode and to_json give the same bytes with and without the fields", function()
      local bare = kfjob[k[1]](k[2])
      local t = {}
      for key, v in pairs(k[2]) do t[key] = v end
      for key, v in pairs(W) do t[key] = v end
      local whole = kfjob[k[1]](t)
      assert.equal(bare:encode(), whole:encode())
      assert.equal(bare:to_json(), whole:to_json())
      assert.equal(bare:encode{ version = 0 }, whole:encode{ version = 0 })
      assert.equal(bare:to_json{ version = 0 }, whole:to_json{ version = 0 })
    end)
  end
end)

describe("whole job: environment", function()
  local function names(pod)
    local out = {}
    for _, v in ipairs(pod.env) do out[#out + 1] = v.name end
    return out
  end

  it("each pod starts with its group's env, else the job's", function()
    local e = tfjob():environment{ name = "tf" }
    assert.same(ENV, { e["worker-0"].env[1], e["worker-0"].env[2], e["worker-0"].env[3] })
    assert.same({ name = "ROLE", value = "ps" }, e["ps-0"].env[1])
    assert.equal("TF_CONFIG", e["ps-0"].env[2].name)
  end)

  it("the job's namespace names the TF_CONFIG cluster addresses", function()
    local e = tfjob():environment{ name = "tf" }
    local cfg = json.decode(e["worker-1"].env[4].value)
    assert.same({ ps = { "tf-ps-0.team-a.svc:2222" },
                  worker = { "tf-worker-0.team-a.svc:2222", "tf-worker-1.team-a.svc:2222" } }, cfg.cluster)
    cfg = json.decode(tfjob():environment{ name = "tf", namespace = "b" }["worker-1"].env[4].value)
    assert.equal("tf-ps-0.b.svc:2222", cfg.cluster.ps[1])
  end)

  it("opts.env replaces the group's and the job's", function()
    local e = tfjob():environment{ name = "tf", env = { B = "2", A = "1" } }
    assert.same({ "A", "B", "TF_CONFIG" }, names(e["ps-0"]))
    assert.same({ "A", "B", "TF_CONFIG" }, names(e["worker-0"]))
  end)

  it("Trainer's nodes get the job's env", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = IMAGE, env = { X = "1" } } }
    local e = j:environment{ name = "pt", target = "trainer-2.3" }
    assert.same({ name = "X", value = "1" }, e["node-0-1"].env[1])
  end)

  if util.cli_ok then
    it("kfjob env prints the job's env first", function()
      local p = os.tmpname() .. ".lua"
      local f = assert(io.open(p, "wb"))
      f:write("local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ worker = { replicas = 1 },\n",
              "  container = { image = 'i', env = { { name = 'Z', value = '1' }, { name = 'A', value = '2' } } } }\n")
      f:close()
      local code, out, err = util.kfjob("env", p, "--name", "j", "--pod", "worker-0")
      os.remove(p)
      assert.equal(0, code, err)
      assert.matches("^# j worker%-0\nZ=1\nA=2\nPYTHONUNBUFFERED=1\n", (out:gsub("^# j: [^\n]*\n", "")))
    end)
  end
end)

describe("whole job: validate-manifest accepts every target's manifest", function()
  local validators, why = util.validators()
  local jobs = {
    operator = tfjob(),
    ["mpi-operator"] = kfjob.MPIJob{ slots = 2, namespace = "team-a", labels = LABELS,
                                     worker = { replicas = 2, container = { command = { "/usr/sbin/sshd" }, args = { "-De" } } },
                                     container = { image = IMAGE, args = { "train.py" }, env = ENV } },
    flyte = kfjob.PyTorchJob{ worker = { replicas = 2 }, namespace = "team-a", labels = LABELS, annotations = ANNOTATIONS,
                              container = { image = IMAGE, command = { "python" }, args = { "train.py" }, env = PLAIN_ENV } },
    ["trainer-2.2"] = kfjob.PyTorchJob{ worker = { replicas = 1 }, namespace = "team-a", labels = LABELS,
                                        container = { image = IMAGE, command = { "python" }, args = { "a" }, env = ENV } },
  }
  jobs.flyte2 = jobs.flyte
  jobs["trainer-2.3"] = jobs["trainer-2.2"]
  for _, target in ipairs{ "operator", "flyte", "flyte2", "mpi-operator", "trainer-2.2", "trainer-2.3" } do
    it(target, function()
      if #validators == 0 then return pending(why) end
      local p = os.tmpname()
      local f = assert(io.open(p, "wb"))
      f:write(jobs[target]:manifest{ name = "whole", target = target, format = "yaml" })
      f:close()
      local outs = {}
      for i, vd in ipairs(validators) do
        local h = assert(io.popen(vd.cmd .. " --strict --target " .. target .. " " .. util.quote(p) .. " 2>&1"))
        outs[i] = h:read("*a")
        h:close()
      end
      os.remove(p)
      for _, out in ipairs(outs) do assert.matches("1 objects, 0 invalid", out, 1, true) end
    end)
  end
end)
