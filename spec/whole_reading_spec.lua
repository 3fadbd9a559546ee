-- Reading fills the whole job (SPEC §16): from_manifest(s) puts the main
-- container's command, args and env (in order, valueFrom too) in the job's
-- container, or a group's where the groups differ, and the resource's
-- namespace, labels and annotations in the job (Kueue's labels still read
-- as scheduling); decode_task_template / decode_task_spec put the
-- TaskTemplate's container, image included, in the job's container.  Law
-- 3: the config kfjob convert writes reproduces its input.  Expected
-- values are written by hand from the Kubernetes shapes (k8s.io/api
-- core/v1 Container, EnvVar; training-operator v1.9.3 *ReplicaSpecs;
-- flyteidl core.Container, KeyValuePair), not from kfjob's output.
local kfjob = require "kfjob"
local util = require "util"

local HERE = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local ROOT = HERE .. "/.."

local function read(doc, opts)
  local j, info = kfjob.from_manifest(doc, opts)
  assert(j, info)
  return j, info
end

-- A PyTorchJob as people write it: a sidecar, a volume, env with valueFrom
-- and a $(VAR) reference in args, labels and annotations on the resource
-- and its pods.
local SIDECAR = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: side
  namespace: team-a
  labels:
    app: side
  annotations:
    example.com/owner: ml
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata:
          labels: {app: side}
          annotations: {example.com/owner: ml}
        spec:
          containers:
          - name: pytorch
            image: pt:1
            command: [python, train.py]
            args: ["--data", "$(DATA_DIR)"]
            env:
            - {name: DATA_DIR, value: /data}
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            - {name: A_LAST, value: x}
            volumeMounts: [{name: data, mountPath: /data}]
          - name: logger
            image: busybox:1
            args: [tail, -f, /data/log]
          volumes: [{name: data, emptyDir: {}}]
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        metadata:
          labels: {app: side}
          annotations: {example.com/owner: ml}
        spec:
          containers:
          - name: pytorch
            image: pt:1
            command: [python, train.py]
            args: ["--data", "$(DATA_DIR)"]
            env:
            - {name: DATA_DIR, value: /data}
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            - {name: A_LAST, value: x}
            volumeMounts: [{name: data, mountPath: /data}]
          - name: logger
            image: busybox:1
            args: [tail, -f, /data/log]
          volumes: [{name: data, emptyDir: {}}]
]]
local SIDECAR_ENV = {
  { name = "DATA_DIR", value = "/data" },
  { name = "POD_NAME", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } },
  { name = "A_LAST", value = "x" },
}

-- A TFJob whose PS runs arguments of its own while the workers run the
-- image's default; a Kueue queue label beside one of the user's.
local TF_PS = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tf-ps
  labels:
    kueue.x-k8s.io/queue-name: team-queue
    team: ml
spec:
  tfReplicaSpecs:
    PS:
      replicas: 1
      template:
        metadata:
          labels: {team: ml}
        spec:
          containers:
          - name: tensorflow
            image: tf:2
            args: ["--role=ps", "--port=2222"]
            env: [{name: ROLE, value: ps}]
    Worker:
      replicas: 2
      template:
        metadata:
          labels: {team: ml}
        spec:
          containers:
          - name: tensorflow
            image: tf:2
            env: [{name: ROLE, value: worker}]
]]

-- Labels on the resource alone, others on each group's pods (a
-- PodTemplateSpec's metadata is its pods', not the resource's).
local POD_LABELS = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pl
  labels: {app: pl}
  annotations: {example.com/owner: ml}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        metadata:
          labels: {app: pl, role: master}
        spec:
          containers: [{name: pytorch, image: pt:1}]
    Worker:
      replicas: 2
      template:
        metadata:
          labels: {app: pl, role: worker}
          annotations: {example.com/owner: ml}
        spec:
          containers: [{name: pytorch, image: pt:1}]
]]

describe("from_manifest: the whole job", function()
  it("reads the main container's command, args and env (in order, valueFrom too), namespace, labels, annotations", function()
    local j, info = read(SIDECAR)
    local s = j:spec()
    assert.same({ "python", "train.py" }, s.container.command)
    assert.same({ "--data", "$(DATA_DIR)" }, s.container.args)   -- a reference stays as written
    assert.same(SIDECAR_ENV, s.container.env)
    assert.equal("team-a", s.namespace)
    assert.same({ app = "side" }, s.labels)
    assert.same({ ["example.com/owner"] = "ml" }, s.annotations)
    assert.is_nil(s.container.image)                 -- images stay the groups'
    assert.equal("pt:1", s.worker.image)
    -- the sidecar and the volume stay in the pod template, the primary has no env left
    local cs = s.pod_template.spec.containers
    assert.equal("logger", cs[2].name)
    assert.is_nil(cs[1].env)
    assert.same({ { name = "data", emptyDir = {} } }, s.pod_template.spec.volumes)
    -- the pods' labels and annotations are the pod template's own (every
    -- group has them: the job's template), not taken as copies of the resource's
    assert.same({ labels = { app = "side" }, annotations = { ["example.com/owner"] = "ml" } },
                s.pod_template.metadata)
    -- info keeps them; an env no name = value table holds is the job's alone
    assert.equal("team-a", info.namespace)
    assert.same({ app = "side" }, info.labels)
    assert.same({ "python", "train.py" }, info.container.command)
    assert.is_nil(info.container.env)
    assert.same({}, info.unmapped)
  end)

  it("the resource's labels and annotations are the job's, each group's pods' its pod template's", function()
    local j, info = read(POD_LABELS)
    -- no restartPolicy: the operator's default, OnFailure (pytorch_defaults.go)
    assert.is_true(j == kfjob.PyTorchJob{
      master = { image = "pt:1", restart_policy = "on_failure",
                 pod_template = { metadata = { labels = { app = "pl", role = "master" } } } },
      worker = { replicas = 2, image = "pt:1", restart_policy = "on_failure", pod_template = { metadata = {
        labels = { app = "pl", role = "worker" }, annotations = { ["example.com/owner"] = "ml" } } } },
      labels = { app = "pl" }, annotations = { ["example.com/owner"] = "ml" } })
    assert.same({ app = "pl" }, info.labels)
    assert.is_nil(info.copy_to_pods)
  end)

  it("on Flyte the pods' copies of the resource's labels are the backend's; pods without them are named", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, labels = { app = "pt" } }
    local m = j:manifest{ name = "pt", image = "i:1", target = "flyte" }
    local back = read(m)
    assert.same({ app = "pt" }, back:spec().labels)
    assert.is_nil(back:spec().pod_template)
    m.spec.pytorchReplicaSpecs.Worker.template.metadata.labels = nil
    local none, msg = kfjob.from_manifest(m)
    assert.is_nil(none)
    assert.matches("spec.pytorchReplicaSpecs.Worker.template.metadata.labels: lacks some of the resource's: "
      .. "Flyte's backend puts the resource's labels and annotations on every pod", msg, 1, true)
  end)

  it("a plain env in name order is a name = value table, in job and info", function()
    local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = "i:1" }
    for _, g in pairs(m.spec.pytorchReplicaSpecs) do
      g.template.spec.containers[1].env = { { name = "A", value = "1" }, { name = "B", value = "" } }
    end
    local j, info = read(m)
    assert.same({ A = "1", B = "" }, j:spec().container.env)
    assert.same({ A = "1", B = "" }, info.container.env)
    -- out of order: the list as written
    for _, g in pairs(m.spec.pytorchReplicaSpecs) do
      g.template.spec.containers[1].env = { { name = "B", value = "2" }, { name = "A", value = "1" } }
    end
    j = read(m)
    assert.same({ { name = "B", value = "2" }, { name = "A", value = "1" } }, j:spec().container.env)
  end)

  it("groups that differ keep their own container; Kueue's label is scheduling", function()
    local j, info = read(TF_PS)
    assert.is_true(j == kfjob.TFJob{
      ps = { replicas = 1, image = "tf:2", container = { args = { "--role=ps", "--port=2222" },
                                                         env = { ROLE = "ps" } } },
      worker = { replicas = 2, image = "tf:2", container = { env = { ROLE = "worker" } } },
      scheduling = { queue = "team-queue" }, labels = { team = "ml" },
      pod_template = { metadata = { labels = { team = "ml" } } } })   -- both groups' pods
    assert.same({ team = "ml" }, info.labels)
    assert.is_nil(info.container.args)   -- no group's alone
  end)

  it("on Flyte, whose pods all run the task's one container, groups that differ are named", function()
    local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = "i:1", target = "flyte",
                                                                      args = { "a" } }
    m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].args = { "b" }
    local j, msg = kfjob.from_manifest(m)
    assert.is_nil(j)
    assert.matches("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].args: the task's container "
      .. "differs from the first group's", msg, 1, true)
    local _, info = read(m, { lossy = true })
    assert.equal("spec.pytorchReplicaSpecs.Master.template.spec.containers[0].args", info.unmapped[1].path)
  end)

  it("an MPI launcher line is the job's args' wrapper; the mpi-operator's bare worker runs sshd", function()
    -- the command is the launcher's alone (the worker runs sshd,
    -- mpi_job_controller.go newWorker): it reads as the launcher's own, so
    -- no target gives it to the workers
    local h = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 }
    local m = h:manifest{ name = "pi", image = "m:1", target = "mpi-operator", args = { "python", "pi.py" },
                          command = { "bash", "-c" }, namespace = "hpc" }
    local j = read(m)
    assert.is_true(j == h:with{ worker = { image = "m:1" },
                                launcher = { image = "m:1", container = { command = { "bash", "-c" } } },
                                container = { args = { "python", "pi.py" } },
                                namespace = "hpc" })
  end)

  it("a TrainJob's trainer command (after torchrun --no-python), args and env", function()
    local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "tr", image = "t:1",
      target = "trainer-2.3", command = { "python", "t.py" }, args = { "--x" } }
    m.spec.trainer.env = { { name = "Z", value = "1" },
                           { name = "IP", valueFrom = { fieldRef = { fieldPath = "status.podIP" } } } }
    local s = read(m):spec()
    assert.same({ command = { "python", "t.py" }, args = { "--x" }, env = m.spec.trainer.env }, s.container)
  end)

  it("null command, args or env is none (the API server drops it)", function()
    local m = kfjob.TFJob{ worker = { replicas = 1 } }:manifest{ name = "tf", image = "i:1", format = "yaml" }
    m = m:gsub("(\n( *)image: i:1\n)", "%1%2command:\n%2args:\n")
    local s = read(m):spec()
    assert.is_nil(s.container)
  end)

  it("refuses what the API server refuses, at its manifest path", function()
    local function bad(edit)
      local m = kfjob.PyTorchJob{ worker = { replicas = 1 } }:manifest{ name = "pt", image = "i:1" }
      edit(m)
      return select(2, kfjob.from_manifest(m))
    end
    assert.equal("kfjob.from_manifest: spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].env[1].name: "
      .. "Invalid value: \"1X\": a valid environment variable name must consist of alphabetic characters, "
      .. "digits, '_', '-', or '.', and must not start with a digit", bad(function(m)
        m.spec.pytorchReplicaSpecs.Worker.template.spec.containers[1].env = {
          { name = "A", value = "1" }, { name = "1X", value = "2" } }
      end))
    assert.equal("kfjob.from_manifest: spec.pytorchReplicaSpecs.Master.template.spec.containers[0].command[1]: "
      .. "expected a string, got an integer", bad(function(m)
        m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].command = { "a", 2 }
      end))
    assert.matches("^kfjob.from_manifest: metadata.namespace: 'Team_A' is not a DNS%-1123 label",
                   bad(function(m) m.metadata.namespace = "Team_A" end))
    assert.matches("^kfjob.from_manifest: metadata.labels%[\"a b\"%]: invalid label key",
                   bad(function(m) m.metadata.labels = { ["a b"] = "x" } end))
    assert.matches("^kfjob.from_manifest: metadata.labels.a: invalid label value 'x y'",
                   bad(function(m) m.metadata.labels = { a = "x y" } end))
  end)

  it("emits the manifest read with no option but name and target (the writers use the job)", function()
    for _, text in ipairs{ SIDECAR, TF_PS } do
      local j, info = read(text)
      local again = j:manifest{ name = info.name, target = info.target }
      assert.is_true(read(again) == j)
    end
  end)
end)

describe("decode_task_template / decode_task_spec: the TaskTemplate's container is the job's", function()
  local ID = { project = "p", domain = "d", name = "train.fit", version = "v1" }

  it("image, command, args and env (a table when sorted)", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 2 } }
    local c = { image = "pt:1", command = { "pyflyte-execute" }, args = { "--inputs", "s3://x" },
                env = { B = "2", A = "1" } }
    for _, fmt in ipairs{ "pb", "json" } do
      local back, info = kfjob.decode_task_template(j:task_template{ container = c, format = fmt ~= "pb" and fmt or nil })
      assert(back, info)
      assert.is_true(back == j:with{ container = c })
      assert.same(c, back:spec().container)
      assert.same(c, info.container)   -- info keeps them
    end
  end)

  it("env in the template's order when it is not sorted (flyteidl Container.env is a list)", function()
    local j = kfjob.TFJob{ worker = { replicas = 1 } }
    local json = j:task_template{ container = { image = "tf:1" }, format = "json" }
    json = json:gsub('"image":"tf:1"', '"image":"tf:1","env":[{"key":"Z","value":"1"},{"key":"A","value":"2"}]')
    local back = assert(kfjob.decode_task_template(json))
    assert.same({ { name = "Z", value = "1" }, { name = "A", value = "2" } }, back:spec().container.env)
  end)

  it("MPI and Horovod: the args after kfjob's launcher line, as info's", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }
    local back, info = kfjob.decode_task_spec(h:task_spec{ id = ID, container = { image = "hvd:1",
      args = { "python", "t.py" } } }, { kind = "HorovodJob" })
    assert(back, info)
    assert.is_true(back == h:with{ container = { image = "hvd:1", args = { "python", "t.py" } } })
    local m = kfjob.MPIJob{ worker = { replicas = 2 } }
    back, info = kfjob.decode_task_template(m:task_template{ wrap_launcher = false,
      container = { image = "m:1", args = { "mpirun", "x" } } })
    assert.same({ "mpirun", "x" }, back:spec().container.args)   -- not kfjob's line: all of them
    assert.is_false(info.wrap_launcher)
  end)

  it("a registrable TaskSpec's image is the worker's when no image was given (task_spec)", function()
    local j = kfjob.MPIJob{ worker = { replicas = 2, image = "w:1" }, launcher = { image = "l:1" } }
    local back = assert(kfjob.decode_task_spec(j:task_spec{ id = ID, container = { args = { "x" } } }))
    assert.equal("w:1", back:spec().container.image)
  end)

  it("info names the common replica encoding, the option that writes it again", function()
    local j = kfjob.TFJob{ worker = { replicas = 2, image = "tf:2" } }
    local _, info = kfjob.decode_task_template(j:task_template{ replica_encoding = "common" })
    assert.equal("common", info.replica_encoding)
    _, info = kfjob.decode_task_template(j:task_template{})
    assert.is_nil(info.replica_encoding)
  end)
end)

-- load a chunk with environment env (setfenv on 5.1 and LuaJIT)
local function load_env(src, env)
  local f = assert((setfenv and rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(f, env) end
  return f
end

describe("to_lua / to_config of { job =, opts = } entries", function()
  local job = kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "pt:1", args = { "a" } } }
  local opts = { id = { project = "p", domain = "d", name = "n", version = "1" },
                 metadata = { retries = 2 }, interface = { inputs = { x = "integer" } } }

  it("to_lua writes an entry that loads back as one", function()
    local src = kfjob.to_lua{ t = { job = job, opts = opts }, plain = job }
    local back = load_env(src, { require = require })()
    assert.is_true(back.t.job == job)
    assert.same(opts, back.t.opts)
    assert.is_true(back.plain == job)
    assert.matches('  t = {\n    job = kfjob.PyTorchJob{\n', src, 1, true)
    -- the container's keys in the rows' order: image first
    assert.matches('container = {\n        image = "pt:1",\n        args = {', src, 1, true)
  end)

  it("to_config gives the entry's job (a data config has no place for opts)", function()
    assert.same(kfjob.to_config{ t = job }, kfjob.to_config{ t = { job = job, opts = opts } })
    assert.has_error(function() kfjob.to_config{ t = { opts = opts } } end)
  end)
end)

-- ---- Law 3 through the CLI ------------------------------------------------

if not util.cli_ok then
  describe("Law 3", function() pending(util.cli_why()) end)
  return
end

local quote, run = util.quote, util.run_cli
local PY = "env -u LD_PRELOAD /usr/bin/python3"
local TMP = util.tmpdir()
local put = util.writer(TMP)   -- put(name, text): a file in TMP, its path

local lyaml = require "lyaml"

-- Each training job of a file after the API server's and operators'
-- defaults (tools/manifest-defaults), as sorted JSON by kind and name.
local function defaulted(path)
  local p = assert(io.popen(PY .. " " .. quote(ROOT .. "/tools/manifest-defaults") .. " " .. quote(path)
                            .. " 2>&1"))
  local out = {}
  for line in p:read("*a"):gmatch("[^\n]+") do
    local d = lyaml.load(line)
    if type(d) == "table" and d.metadata then out[d.kind .. "/" .. d.metadata.name] = line end
  end
  p:close()
  return out
end

local FORMATS = { lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" }

-- convert M -f fmt, then render the config for the target with no other
-- flag; "" when the manifests equal M's jobs as data (by kind and name),
-- else what differs.
local function law3(path, fmt, target)
  local code, out, err = run(nil, "convert", path, "-f", fmt)
  if code ~= 0 then return "convert -f " .. fmt .. ": exit " .. tostring(code) .. ": " .. err end
  local cfg = put("config" .. FORMATS[fmt], out)
  code, out, err = run(nil, "render", cfg, "-f", "manifest", "--target", target)
  if code ~= 0 then return "render: exit " .. tostring(code) .. ": " .. err end
  local want, got = defaulted(path), defaulted(put("out.yaml", out))
  local diffs = {}
  for k, v in pairs(want) do
    if kfjob.from_manifest(v) and got[k] ~= v then diffs[#diffs + 1] = k .. ":\n" .. v .. "\n" .. tostring(got[k]) end
  end
  return table.concat(diffs, "\n")
end

local function files()
  local dir = HERE .. "/data/import/"
  local p = io.popen("ls " .. quote(dir) .. " " .. quote(dir .. "upstream"))
  local out = {}
  for line in p:read("*a"):gmatch("[^\n]+") do
    if line:match("%.ya?ml$") or line:match("%.json$") then
      out[#out + 1] = (util.sh_ok("test -f " .. quote(dir .. line)) and dir or dir .. "upstream/") .. line
    end
  end
  p:close()
  return out
end

describe("Law 3: a config reproduces the manifest it was converted from", function()
  if not util.sh_ok(PY .. " -c 'import yaml'") then return pending("python3 cannot import yaml") end
  local strict = 0
  for _, f in ipairs(files()) do
    local text = util.slurp(f)
    local r = kfjob.from_manifests(text)
    local name = f:match("[^/]*$")
    if r and #r > 0 then
      strict = strict + 1
      local target = r[1].info.target
      for fmt in pairs(FORMATS) do
        it(name .. ": -f " .. fmt .. " renders it again (--target " .. target .. ")", function()
          assert.equal("", law3(f, fmt, target))
        end)
      end
    end
  end
  it("reads at least the 12 examples kfjob holds", function() assert.is_true(strict >= 12, strict) end)

  it("labels on the resource alone are the job's: a data config says them, -f lua writes the job alone",
     function()
    -- tfjob.yaml: metadata.labels app.kubernetes.io/name, no label on a pod;
    -- the Worker pods' annotation sidecar.istio.io/inject is their template's
    local f = HERE .. "/data/import/tfjob.yaml"
    local code, out, err = run(nil, "convert", f, "-f", "config")
    assert.equal(0, code, err)
    assert.equal("", err)
    local job = lyaml.load(out).jobs["mnist-tf"]
    assert.same({ ["app.kubernetes.io/name"] = "mnist-tf" }, job.labels)
    assert.is_nil(job.pod_template)
    assert.same({ annotations = { ["sidecar.istio.io/inject"] = "false" } }, job.worker.pod_template.metadata)
    code, out, err = run(nil, "convert", f, "-f", "lua")
    assert.equal(0, code, err)
    assert.not_matches("copy_to_pods", out, 1, true)
    assert.matches('  ["mnist-tf"] = kfjob.TFJob{\n', out, 1, true)
  end)

  -- hand-written shapes, and kfjob's own manifests for every target with
  -- what a call gives them (args, env, labels, namespace)
  local ARGS = { "pyflyte-execute", "--inputs", "s3://in" }
  local shapes = {
    { "sidecar, volume, valueFrom env, $(VAR) args", SIDECAR },
    { "a TFJob whose PS runs other args, a Kueue label", TF_PS },
    { "labels on the resource alone, others on each group's pods", POD_LABELS },
    { "flyte", kfjob.PyTorchJob{ worker = { replicas = 2 } }:manifest{ target = "flyte", name = "fpt",
      image = "pt:1", args = ARGS, env = { B = "1", A = "2" }, labels = { team = "ml" }, format = "yaml" } },
    { "flyte2 with a queue", kfjob.PyTorchJob{ worker = { replicas = 2 }, scheduling = { queue = "q" } }:manifest{
      target = "flyte2", name = "fpt2", image = "pt:1", args = ARGS, format = "yaml" } },
    { "flyte MPI with a worker command", kfjob.MPIJob{ worker = { replicas = 2, command = { "sleep", "inf" } },
      slots = 2 }:manifest{ target = "flyte", name = "fmpi", image = "m:1", args = ARGS, format = "yaml" } },
    { "mpi-operator", kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 }:manifest{ target = "mpi-operator",
      name = "mpi", image = "m:1", args = ARGS, namespace = "ns", format = "yaml" } },
    { "Horovod on the operator", kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }:manifest{
      target = "operator", name = "hvd", image = "h:1", args = ARGS, format = "yaml" } },
    { "trainer-2.3", kfjob.PyTorchJob{ worker = { replicas = 2 } }:manifest{ target = "trainer-2.3", name = "tr",
      image = "t:1", command = { "python", "t.py" }, args = { "--x" }, env = { Z = "1", A = "2" },
      labels = { a = "b" }, annotations = { c = "d" }, format = "yaml" } },
  }
  for i, c in ipairs(shapes) do
    local _, info = read(c[2])
    for fmt in pairs(FORMATS) do
      it(c[1] .. ": -f " .. fmt .. " renders it again (--target " .. info.target .. ")", function()
        assert.equal("", law3(put("shape" .. i .. ".yaml", c[2]), fmt, info.target))
      end)
    end
  end
end)

describe("Law 3: the Lua config of a TaskTemplate or TaskSpec renders its bytes", function()
  local cases = dofile(HERE .. "/conformance/cases.lua")
  local n = 0
  for _, c in ipairs(cases) do
    local o = c.taskspec or c.template
    local job = o and kfjob[c.kind](util.copy(c.spec))
    local bytes = job and job[c.taskspec and "task_spec" or "task_template"](job, util.copy(o))
    -- kfjob decode reads every kind's TaskTemplate but python-task's
    if bytes and kfjob.decode_task_template(bytes) or (bytes and kfjob.decode_task_spec(bytes)) then
      n = n + 1
      local fmt = c.taskspec and "taskspec" or "template"
      it(c.name .. ": convert -f lua, render -f " .. fmt, function()
        local code, out, err = run(nil, "convert", put(c.name .. ".pb", bytes), "-f", "lua")
        assert.equal(0, code, err)
        code, out, err = run(nil, "render", put(c.name .. ".lua", out), "-f", fmt)
        assert.equal(0, code, err)
        assert.equal(bytes, out)
      end)
    end
  end
  it("covers the conformance cases", function() assert.is_true(n >= 45, n) end)

  it("a TaskSpec's config is a { job =, opts = } entry: the image in the job, id, interface, metadata in opts",
     function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 2 } }
    local o = { id = { project = "p", domain = "d", name = "train.fit", version = "v1" },
                container = { image = "pt:1", args = { "--a" } }, interface = { inputs = { x = "integer" } },
                metadata = { retries = 3, description = "d" } }
    local code, out, err = run(nil, "convert", put("ts.pb", j:task_spec(o)), "-f", "lua")
    assert.equal(0, code, err)
    local t = load_env(out, { require = require })()
    local e = t["train.fit"]
    assert.is_true(e.job == j:with{ container = o.container })
    assert.same({ id = o.id, interface = o.interface, metadata = o.metadata }, e.opts)
    -- a data config cannot hold the registration values: named, --lossy leaves them out
    local code1, _, err1 = run(nil, "convert", put("ts.pb", j:task_spec(o)), "-f", "config")
    assert.equal(1, code1)
    assert.matches("opts.id, opts.interface, opts.metadata cannot be said in a data config", err1, 1, true)
    code, out, err = run(nil, "convert", put("ts.pb", j:task_spec(o)), "-f", "config", "--lossy")
    assert.equal(0, code, err)
    assert.same({ kind = "PyTorchJob", worker = { replicas = 2 }, container = o.container },
                lyaml.load(out).jobs["train.fit"])
  end)

  -- a template of a target of its own: the config says the target, so
  -- `render` with no flag makes the same bytes (a black-box tester found
  -- both rendered for flyte: a pytorch TaskTemplate, or R30's refusal)
  local own = {
    { "a clustered task (PyTorchJob)", "flyte2-clustered", function()
        return kfjob.PyTorchJob{ master = {}, worker = { replicas = 3 }, requests = { cpu = 4 },
                                 run_policy = { ttl_seconds_after_finished = 600 },
                                 container = { image = "bert:1", command = { "python" }, args = { "t.py" } } }
      end },
    { "a clustered task with interconnect and host maintenance", "flyte2-clustered", function()
        return kfjob.Elastic{ nnodes = 2, nproc_per_node = 4, interconnect = "infiniband",
                              restart_on_host_maintenance = true,
                              container = { image = "bert:1", args = { "t.py" } } }
      end },
    { "a Flyte 2 PyTorchJob with Kueue's labels", "flyte2", function()
        return kfjob.PyTorchJob{ master = {}, worker = { replicas = 2, limits = { gpu = 1 } },
                                 shared_memory = true,
                                 scheduling = { queue = "team-a", priority_class = "high",
                                                topology = { preferred = "cloud.google.com/gce-topology-block" } },
                                 container = { image = "bert:1", command = { "pyflyte-execute" } } }
      end },
  }
  for _, c in ipairs(own) do
    for _, fmt in ipairs({ "template", "taskspec" }) do
      it(c[1] .. ": -f " .. fmt .. " again from its Lua config (target " .. c[2] .. ")", function()
        local j = c[3]()
        local bytes = fmt == "template" and j:task_template{ target = c[2] }
          or j:task_spec{ target = c[2], id = { project = "p", domain = "d", name = "n", version = "v" } }
        local _, info = (fmt == "template" and kfjob.decode_task_template or kfjob.decode_task_spec)(bytes)
        assert.equal(c[2], info.target)
        local code, out, err = run(nil, "convert", put("own.pb", bytes), "-f", "lua")
        assert.equal(0, code, err)
        assert.matches('target = "' .. c[2] .. '"', out, 1, true)
        code, out, err = run(nil, "render", put("own.lua", out), "-f", fmt)
        assert.equal(0, code, err)
        assert.equal(bytes, out)
        code, out, err = run(nil, "decode", put("own.pb", bytes))   -- read as its target's
        assert.equal(0, code, err)
        assert.matches('"type":"' .. (c[2] == "flyte2" and "pytorch" or "clustered-task") .. '"', out, 1, true)
      end)
    end
  end

  it("a Horovod TaskSpec reads as a HorovodJob (its args start horovodrun)", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }
    local o = { id = { project = "p", domain = "d", name = "hvd", version = "1" },
                container = { image = "hvd:1", args = { "python", "t.py" } } }
    local bytes = h:task_spec(o)
    local code, out, err = run(nil, "convert", put("hvd.pb", bytes), "-f", "lua")
    assert.equal(0, code, err)
    assert.is_true(load_env(out, { require = require })().hvd.job == h:with{ container = o.container })
    code, out = run(nil, "render", put("hvd.lua", out), "-f", "taskspec")
    assert.equal(0, code)
    assert.equal(bytes, out)
  end)
end)

describe("kfjob convert -f config-yaml", function()
  it("writes the data config -f config writes, as YAML that render reads", function()
    local f = put("side.yaml", SIDECAR)
    local code, yaml, err = run(nil, "convert", f, "-f", "config-yaml")
    assert.equal(0, code, err)
    local code2, json = run(nil, "convert", f, "-f", "config")
    assert.equal(0, code2)
    assert.same(lyaml.load(json), lyaml.load(yaml))
    assert.matches("^jobs:\n  side:\n    kind: PyTorchJob\n", yaml)
    assert.matches('\n        %- "%-%-data"\n        %- "%$%(DATA_DIR%)"\n', yaml)   -- quoted where YAML would not read a plain string
  end)

  it("quotes strings a YAML reader would take for another type", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1, image = "i:1" }, master = { image = "i:1" },
                                labels = { a = "true", b = "1", c = "null", d = "ok" } }
    local code, out, err = run(nil, "convert", put("q.yaml", j:manifest{ name = "q", format = "yaml" }),
                               "-f", "config-yaml")
    assert.equal(0, code, err)
    assert.same({ a = "true", b = "1", c = "null", d = "ok" }, lyaml.load(out).jobs.q.labels)
  end)

  it("-o DIR writes NAME.yaml; a data config converts to one too", function()
    local dir = TMP .. "/o"
    local code, _, err = run(nil, "convert", put("tf.yaml", TF_PS), "-f", "config-yaml", "-o", dir)
    assert.equal(0, code, err)
    local text = util.slurp(dir .. "/tf-ps.yaml")
    assert.truthy(text)
    local code2, out, err2 = run(nil, "convert", put("tf-ps.yaml", text), "-f", "config-yaml")
    assert.equal(0, code2, err2)
    assert.equal(text, out)
  end)
end)
