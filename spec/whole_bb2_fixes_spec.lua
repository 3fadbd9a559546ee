-- The whole job (SPEC §16) and MPI command reading (SPEC §17): faults a
-- second round of black-box testing found.  Expected values are
-- Kubernetes' and the operators' meaning of what is written (FACTS §11,
-- the SPEC's decisions), never kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

local function ctr(pod_spec) return pod_spec.template.spec.containers[1] end

local function env_names(env)
  local t = {}
  for i, e in ipairs(env or {}) do t[i] = e.name end
  return t
end

-- The config script to_lua wrote, run: its one job.
local function run_lua(src)
  local env = setmetatable({ require = require }, { __index = _G })
  local chunk = assert((rawget(_G, "loadstring") or load)(src, "=to_lua", "t", env))
  if setfenv then setfenv(chunk, env) end
  local _, j = next(chunk())
  return j
end

local EXT = { lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" }

-- `kfjob convert - -f FORMAT` of text, then `kfjob render CONFIG ARGS...`:
-- the rendered output.
local function through(text, format, ...)
  local code, out, err = util.conv(text, "-f", format)
  assert.are.equal(0, code, err)
  local cf = util.tmp(out, EXT[format])
  local c2, o2, e2 = util.kfjob("render", cf, ...)
  os.remove(cf)
  assert.are.equal(0, c2, e2)
  return o2
end

describe("env order (SPEC §16 decision: a table emits sorted by name, a list in its order)", function()
  -- Kubernetes expands $(NAME) only for a variable defined earlier in the
  -- list (FACTS §11.8), so reordering a manifest's env changes what runs.
  local ENVREF = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: envref
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            env:
            - {name: A_URL, value: "http://$(B_HOST):80"}
            - {name: B_HOST, value: "db"}
]]

  it("a name = value table is emitted sorted by name, a reference to a later name notwithstanding", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 },
                                container = { image = "i", env = { A_URL = "http://$(B_HOST)", B_HOST = "db" } } }
    local m = j:manifest{ name = "r" }
    assert.are.same({ "A_URL", "B_HOST" }, env_names(ctr(m.spec.pytorchReplicaSpecs.Master).env))
    assert.are.same({ A_URL = "http://$(B_HOST)", B_HOST = "db" }, j:spec().container.env)
    local t = kfjob.PyTorchJob{ master = { image = "x" },
                                container = { env = { A = "$(Z)/a", Z = "z", M = "$$(Z) literal" } } }
    assert.are.same({ "A", "M", "Z" },
                    env_names(ctr(t:manifest{ name = "r" }.spec.pytorchReplicaSpecs.Master).env))
  end)

  it("opts.env, a table, is emitted sorted by name too", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i" } }
    local m = j:manifest{ name = "r", env = { A_URL = "http://$(B_HOST)", B_HOST = "db" } }
    assert.are.same({ "A_URL", "B_HOST" }, env_names(ctr(m.spec.pytorchReplicaSpecs.Master).env))
  end)

  it("a manifest's sorted env with a reference to a later entry reads back in its order", function()
    local job = assert(kfjob.from_manifest(ENVREF))
    local m = job:manifest{ name = "envref", target = "operator" }
    assert.are.same({ "A_URL", "B_HOST" }, env_names(ctr(m.spec.pytorchReplicaSpecs.Master).env))
    local back = run_lua(kfjob.to_lua(job))
    assert.is_true(back == job)
    m = back:manifest{ name = "envref", target = "operator" }
    assert.are.same({ "A_URL", "B_HOST" }, env_names(ctr(m.spec.pytorchReplicaSpecs.Master).env))
  end)

  it("kfjob convert -f lua|config|config-yaml, then render, keeps the order (Law 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, f in ipairs{ "lua", "config", "config-yaml" } do
      local d = util.doc1(through(ENVREF, f, "-f", "manifest", "--target", "operator"))
      assert.are.same({ "A_URL", "B_HOST" }, env_names(ctr(d.spec.pytorchReplicaSpecs.Master).env), f)
    end
  end)

  it("a TaskTemplate's env [A_URL=$(B_HOST), B_HOST] converts to Lua and renders the same bytes (Law 3)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local dir = util.tmpdir()
    local put = util.writer(dir)
    put("a.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "img:1", command = { "python" },
  args = { "t.py" }, env = { { name = "A_URL", value = "http://$(B_HOST)" }, { name = "B_HOST", value = "db" } } } }
]])
    local code, _, err = util.kfjob("render", dir .. "/a.lua", "-f", "template", "-o", dir .. "/o1")
    assert.are.equal(0, code, err)
    local c2, lua_src, e2 = util.kfjob("convert", dir .. "/o1/a.template.pb", "-f", "lua")
    assert.are.equal(0, c2, e2)
    local back = put("back.lua", lua_src)
    local c3, _, e3 = util.kfjob("render", back, "-f", "template", "-o", dir .. "/o2")
    assert.are.equal(0, c3, e3)
    local one, two = util.slurp(dir .. "/o1/a.template.pb"), util.slurp(dir .. "/o2/a.template.pb")
    os.execute("rm -rf " .. util.quote(dir))
    assert.is_truthy(one)
    assert.are.equal(one, two)
  end)
end)

describe("Trainer: a kind without a master gives its worker's container to spec.trainer", function()
  -- Elastic and JAXJob have one group (the workers), so nothing differs
  -- from a master: R35/R21 compare a master's and workers' containers only
  -- where both exist (Trainer trainjob_types.go: one trainer container).
  it("Elastic with worker.container renders with the worker's args", function()
    local j = kfjob.Elastic{ nnodes = 2, container = { image = "e:1" }, worker = { container = { args = { "w" } } } }
    local m = j:manifest{ name = "e", target = "trainer-2.3" }
    assert.are.same({ "w" }, m.spec.trainer.args)
    assert.are.equal("e:1", m.spec.trainer.image)
  end)

  it("JAXJob with worker.container (and a worker image) renders with the worker's", function()
    local j = kfjob.JAXJob{ container = { image = "e:1" }, worker = { replicas = 2, container = { args = { "w" } } } }
    local m = j:manifest{ name = "e", target = "trainer-2.3" }
    assert.are.same({ "w" }, m.spec.trainer.args)
    assert.are.equal(2, m.spec.trainer.numNodes)
    j = kfjob.JAXJob{ container = { image = "e:1" }, worker = { replicas = 2, image = "w:2" } }
    assert.are.equal("w:2", j:manifest{ name = "e", target = "trainer-2.3" }.spec.trainer.image)
  end)

  it("a PyTorchJob whose master and workers differ is still refused", function()
    local j = kfjob.PyTorchJob{ container = { image = "e:1" }, worker = { replicas = 2, container = { args = { "w" } } } }
    local ok, err = pcall(j.manifest, j, { name = "p", target = "trainer-2.3" })
    assert.is_false(ok)
    assert.matches("worker.container.args", tostring(err), 1, true)
  end)
end)

describe("an empty command or args list in a manifest is as not given", function()
  -- The API server drops an empty slice (`omitempty` on corev1.Container's
  -- command and args, and on the TrainJob's trainer), as it does null.
  local EMPTY = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: el
  labels: {}
  annotations: {}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: img:1
            command: [python, t.py]
            args: []
            env: []
]]

  it("reads args: [] (and command: []) as absent", function()
    local job = assert(kfjob.from_manifest(EMPTY))
    local ct = job:spec().container
    assert.are.same({ "python", "t.py" }, ct.command)
    assert.is_nil(ct.args)
    local j2 = assert(kfjob.from_manifest((EMPTY:gsub("command: %[python, t.py%]", "command: []")
                                                  :gsub("args: %[%]", "args: [t.py]"))))
    assert.is_nil(j2:spec().container.command)
    assert.are.same({ "t.py" }, j2:spec().container.args)
    local c = ctr(j2:manifest{ name = "el" }.spec.pytorchReplicaSpecs.Master)
    assert.is_nil(c.command)
    assert.are.same({ "t.py" }, c.args)
  end)

  it("kfjob convert -f lua reads it and renders the manifest without the empty list", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local d = util.doc1(through(EMPTY, "lua", "-f", "manifest", "--target", "operator"))
    local c = ctr(d.spec.pytorchReplicaSpecs.Master)
    assert.are.same({ "python", "t.py" }, c.command)
    assert.is_nil(c.args)
    assert.is_nil(c.env)
  end)

  it("a TrainJob's trainer with command: [] and args: [] reads as neither given", function()
    local job = assert(kfjob.from_manifest([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {image: "i:1", command: [], args: [], numNodes: 2}
]]))
    local ct = job:spec().container or {}
    assert.is_nil(ct.command)
    assert.is_nil(ct.args)
  end)

  it("an MPIJob v2beta1 worker with command: [] and args: [] still runs the operator's sshd (no command)", function()
    local job = assert(kfjob.from_manifest([[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: m}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {name: launcher, image: "r/mpi:1", command: [mpirun, -n, "2", /app]}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: worker, image: "r/mpi:1", command: [], args: []}
]]))
    local m = job:manifest{ name = "m", target = "mpi-operator" }
    local w = ctr(m.spec.mpiReplicaSpecs.Worker)
    assert.is_nil(w.command)
    assert.is_nil(w.args)
  end)
end)

describe("a Trainer refusal of a pod template's env names the config's own field", function()
  -- messages say the fix in the user's words: the job's container.env (a
  -- field of the config) becomes spec.trainer.env, not a render option
  it("names container.env, not opts.env", function()
    local j = kfjob.PyTorchJob{ container = { image = "i" }, pod_template = { spec = { containers = {
      { name = "primary", env = { { name = "PT", value = "p" } } } } } } }
    local ok, err = pcall(j.manifest, j, { name = "p", target = "trainer-2.3" })
    assert.is_false(ok)
    err = tostring(err)
    assert.matches("pod_template.spec.containers[1].env", err, 1, true)
    assert.matches("container.env", err:gsub("containers%[1%]%.env", ""), 1, true)
    assert.is_nil(err:find("opts.env", 1, true))
  end)

  it("the CLI says the same of a config", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local dir = util.tmpdir()
    local cf = util.write(dir .. "/ptenv.lua", [[
local kfjob = require "kfjob"
return kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i" },
  pod_template = { spec = { containers = { { name = "primary", env = { { name = "PT", value = "p" } } } } } } }
]])
    local code, _, err = util.kfjob("render", cf, "-f", "manifest", "--target", "trainer-2.3")
    os.execute("rm -rf " .. util.quote(dir))
    assert.are_not.equal(0, code)
    assert.matches("job's container.env", err, 1, true)
    assert.is_nil(err:find("opts.env", 1, true))
  end)
end)

describe("MPI: the launcher's command and args are never given to the workers", function()
  -- v1 (training-operator mpijob_controller.go newWorker): a worker with a
  -- command runs it, one without runs `sleep 365d`; v2beta1 (mpi-operator
  -- mpi_job_controller.go newWorker): a worker without command and args
  -- runs sshd.  A group never takes another group's value (SPEC §17).
  local SPLIT = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: split
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: registry.example/mpi:6
            command: [mpirun]
            args: [-n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi-worker
            image: registry.example/mpi:6
            args: [/usr/sbin/sshd, -De, -f, /home/mpiuser/.sshd_config]
]]
  -- mpi-operator examples/v2beta1/tensorflow-benchmarks: the launcher's
  -- command is the whole mpirun line, the worker has none (sshd runs)
  local TFBENCH = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: tensorflow-benchmarks
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: mpioperator/tensorflow-benchmarks:latest
            name: tensorflow-benchmarks
            command: [mpirun, --allow-run-as-root, -np, "2", python, scripts/tf_cnn_benchmarks/tf_cnn_benchmarks.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: mpioperator/tensorflow-benchmarks:latest
            name: tensorflow-benchmarks
            resources:
              limits:
                nvidia.com/gpu: 1
]]
  local HVD = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: hvd
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: hvd
            image: horovod/horovod:0.28.1
            command: [horovodrun, -np, "2", python, /examples/tensorflow2_mnist.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: hvd
            image: horovod/horovod:0.28.1
]]
  local function group(doc, g) return ctr(doc.spec.mpiReplicaSpecs[g]) end

  it("a v2beta1 launcher's command: [mpirun] stays the launcher's when read back (the worker keeps its args alone)", function()
    local job = assert(kfjob.from_manifest(SPLIT))
    local m = job:manifest{ name = "split", target = "mpi-operator" }
    assert.same({ "mpirun" }, group(m, "Launcher").command)
    assert.same({ "-n", "2", "/home/mpiuser/pi" }, group(m, "Launcher").args)
    assert.is_nil(group(m, "Worker").command)
    assert.same({ "/usr/sbin/sshd", "-De", "-f", "/home/mpiuser/.sshd_config" }, group(m, "Worker").args)
    assert.is_nil((job:spec().container or {}).command)
  end)

  it("kfjob convert of it, and through -f lua, gives the worker no command", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(SPLIT)
    assert.are.equal(0, code, err)
    assert.is_nil(group(util.doc1(out), "Worker").command)
    local d = util.doc1(through(SPLIT, "lua", "-f", "manifest", "--target", "mpi-operator"))
    assert.is_nil(group(d, "Worker").command)
    assert.same({ "mpirun" }, group(d, "Launcher").command)
  end)

  it("--to operator gives the workers neither the launcher's mpirun nor horovodrun line", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, text in ipairs{ TFBENCH, HVD } do
      local code, out, err = util.conv(text, "--to", "operator")
      assert.are.equal(0, code, err)
      local d = util.doc1(out)
      assert.is_truthy(group(d, "Launcher").command)
      assert.is_nil(group(d, "Worker").command)
      assert.is_nil(group(d, "Worker").args)
    end
  end)

  it("--to flyte, whose backend gives every replica the task's one container, is refused naming the launcher", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(TFBENCH, "--to", "flyte")
    assert.are_not.equal(0, code)
    assert.is_nil(out:find("mpirun", 1, true))
    assert.matches("launcher", err, 1, true)
  end)

  it("a job's container.command is the launcher's on operator and mpi-operator alike", function()
    local j = kfjob.MPIJob{ worker = { replicas = 2 }, container = { image = "r/i:1", command = { "mpirun", "-np", "2", "app" } } }
    for _, t in ipairs{ "operator", "mpi-operator" } do
      local m = j:manifest{ name = "m", target = t }
      assert.same({ "mpirun", "-np", "2", "app" }, group(m, "Launcher").command, t)
      assert.is_nil(group(m, "Worker").command, t)
      assert.is_nil(group(m, "Worker").args, t)
    end
    -- a worker with args of its own runs them, not the launcher's command
    local w = kfjob.MPIJob{ worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } },
                            container = { image = "r/i:1", command = { "mpirun" }, args = { "-n", "2", "app" } } }
    for _, t in ipairs{ "operator", "mpi-operator" } do
      local m = w:manifest{ name = "m", target = t }
      assert.is_nil(group(m, "Worker").command, t)
      assert.same({ "/usr/sbin/sshd", "-De" }, group(m, "Worker").args, t)
    end
  end)

  it("a v1 MPIJob whose workers run a command of their own reads and writes back with it (Law 2)", function()
    local v1 = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: v1
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {name: mpi, image: "r/i:1", command: [/bin/sh, -c], args: ["mpirun -np 2 /app"]}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: mpi, image: "r/i:1", command: [/bin/sh, -c], args: ["/usr/sbin/sshd -D"]}
]]
    local job = assert(kfjob.from_manifest(v1))
    local m = job:manifest{ name = "v1", target = "operator" }
    assert.same({ "/bin/sh", "-c" }, group(m, "Launcher").command)
    assert.same({ "mpirun -np 2 /app" }, group(m, "Launcher").args)
    assert.same({ "/bin/sh", "-c" }, group(m, "Worker").command)
    assert.same({ "/usr/sbin/sshd -D" }, group(m, "Worker").args)
  end)
end)
