-- Specs for `kfjob convert` (SPEC §14 CLI, Migration, Decisions): manifests
-- read back through the host API (kfjob_host_import_manifests) and written for a
-- target.  Expected values are written by hand from the upstream shapes:
-- the training-operator's PyTorchJob/MPIJob (kubeflow.org/v1), the
-- mpi-operator's MPIJob (kubeflow.org/v2beta1, pkg/apis/kubeflow/v2beta1
-- types.go), Trainer's TrainJob (trainer.kubeflow.org/v1alpha1 on the
-- ClusterTrainingRuntime torch-distributed, pkg/apis/trainer/v1alpha1
-- trainjob_types.go).  Output YAML is read back with lyaml.
local util = require "util"
if not util.cli_ok then
  describe("kfjob convert", function() pending(util.cli_why()) end)
  return
end

local lyaml = require "lyaml"
local kfjob_lib = require "kfjob"
local run, quote = util.run_cli, util.quote

local TMP = util.tmpdir()
local put, listdir = util.writer(TMP), util.listdir   -- a file in TMP; a directory's names

-- A hand-written PyTorchJob: one master and three workers.
local function pytorch(restart)
  return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: bert
  namespace: ml
spec:
  runPolicy:
    activeDeadlineSeconds: 3600
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: RP
      template:
        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/bert:1
            command: [python, train.py]
    Worker:
      replicas: 3
      restartPolicy: RP
      template:
        spec:
          containers:
          - name: pytorch
            image: ghcr.io/acme/bert:1
            command: [python, train.py]
]]):gsub("RP", restart or "Never")
end

local MPI_V1 = [[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 2
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: mpi
            image: mpioperator/mpi-pi:openmpi
            args: [mpirun, -n, "4", /home/mpiuser/pi]
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: mpi
            image: mpioperator/mpi-pi:openmpi
            args: [/usr/sbin/sshd, -De]
]]

local TF = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: mnist
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: tensorflow
            image: tf:2
]]

describe("kfjob convert: migrations", function()
  it("a v1 PyTorchJob --to trainer-2.3 is a TrainJob: numNodes = master + workers, runtimeRef torch-distributed", function()
    local code, out, err = run(nil, "convert", put("pt.yaml", pytorch()), "--to", "trainer-2.3")
    assert.equal(0, code, err)
    assert.equal("", err)
    local m = lyaml.load(out)
    assert.equal("trainer.kubeflow.org/v1alpha1", m.apiVersion)
    assert.equal("TrainJob", m.kind)
    assert.same({ name = "bert", namespace = "ml" }, m.metadata)
    assert.same({ apiGroup = "trainer.kubeflow.org", kind = "ClusterTrainingRuntime",
                  name = "torch-distributed" }, m.spec.runtimeRef)
    assert.equal(4, m.spec.trainer.numNodes)
    assert.equal("ghcr.io/acme/bert:1", m.spec.trainer.image)
    assert.equal(3600, m.spec.activeDeadlineSeconds)
    -- torch-distributed runs the command under torchrun (Trainer's torch plugin)
    assert.same({ "torchrun", "--no-python", "python", "train.py" }, m.spec.trainer.command)
  end)

  it("a v1 MPIJob --to mpi-operator is a kubeflow.org/v2beta1 MPIJob", function()
    local code, out, err = run(nil, "convert", put("mpi.yaml", MPI_V1), "--to", "mpi-operator")
    assert.equal(0, code, err)
    local m = lyaml.load(out)
    assert.equal("kubeflow.org/v2beta1", m.apiVersion)
    assert.equal("MPIJob", m.kind)
    assert.equal(2, m.spec.slotsPerWorker)
    assert.equal(2, m.spec.mpiReplicaSpecs.Worker.replicas)
    assert.equal(1, m.spec.mpiReplicaSpecs.Launcher.replicas)
  end)

  -- The launcher then runs its image's entrypoint (no operator sets it a
  -- command: mpi-operator default.go SetDefaults_MPIJob); kfjob's launcher
  -- would run its mpirun line instead, so --lossy cannot leave it out.
  it("a v1 MPIJob whose containers have no args names the path, --lossy too", function()
    local bare = MPI_V1:gsub("\n *args: %[[^\n]*", "")
    for _, lossy in ipairs{ {}, { "--lossy" } } do
      local code, out, err = run(nil, "convert", put("bare.yaml", bare), "--to", "mpi-operator",
                                 table.unpack(lossy))
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].args: absent", err, 1, true)
      assert.matches("not left out under --lossy", err, 1, true)
    end
  end)

  it("a TFJob --to trainer-2.3 fails naming R24 and trainer#2699, and writes nothing", function()
    local code, out, err = run(nil, "convert", put("tf.yaml", TF), "--to", "trainer-2.3")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("tf.yaml: document 1: kfjob.TFJob: kind: a TFJob cannot be expressed", err, 1, true)
    assert.equal(1, select(2, err:gsub("cannot be expressed", "")))   -- once
    assert.matches("rule R24", err, 1, true)
    assert.matches("trainer#2699", err, 1, true)
  end)

  it("a v2beta1 launcher's restartPolicy Always is named by its manifest path (mpi-operator validation.go)", function()
    local doc = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: Always
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:openmpi
            name: mpi-launcher
            command: [mpirun, -n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: mpioperator/mpi-pi:openmpi
            name: mpi-worker
]]
    local code, out, err = run(nil, "convert", put("always.yaml", doc), "-f", "lua")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("always.yaml: document 1: spec.mpiReplicaSpecs.Launcher.restartPolicy: ", err, 1, true)
    assert.matches("accepts only Never and OnFailure", err, 1, true)
  end)

  it("restartPolicy OnFailure stops at R13 on Trainer; --lossy leaves it out and lists it (SPEC §17)", function()
    local code, out, err = run(nil, "convert", put("onf.yaml", pytorch("OnFailure")), "--to", "trainer-2.3")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("spec.pytorchReplicaSpecs.Worker.restartPolicy: 'on_failure' cannot be expressed", err, 1, true)
    assert.matches("rule R13", err, 1, true)
    assert.matches("do not carry over (--lossy leaves them out)", err, 1, true)
    code, out, err = run(nil, "convert", put("onf.yaml", pytorch("OnFailure")), "--to", "trainer-2.3", "--lossy")
    assert.equal(0, code, err)
    assert.matches("kind: TrainJob", out, 1, true)
    assert.is_nil(out:find("OnFailure", 1, true))
    assert.matches("spec.pytorchReplicaSpecs.Worker.restartPolicy: 'on_failure' cannot be expressed", err, 1, true)
    assert.matches("(left out: --lossy)", err, 1, true)
  end)
end)

describe("kfjob convert: own target, formats, outputs", function()
  it("to the input's own target prints kfjob's manifest back, document by document", function()
    local a = kfjob_lib.PyTorchJob{ worker = { replicas = 2, image = "img:1" }, master = { image = "img:1" } }
    local b = kfjob_lib.JAXJob{ worker = { replicas = 1, image = "img:1" } }
    local input = a:manifest{ name = "one", format = "yaml" } .. "---\n"
                  .. b:manifest{ name = "two", namespace = "ml", format = "yaml", args = { "python", "t.py" } }
    local code, out, err = run(input, "convert", "-")
    assert.equal(0, code, err)
    assert.equal(input, out)
  end)

  it("-f json --to flyte writes the plugin's JSON", function()
    local code, out, err = run(nil, "convert", put("pt.yaml", pytorch()), "--to", "flyte", "-f", "json")
    assert.equal(0, code, err)
    assert.equal('{"name":"bert","kind":"PyTorchJob","type":"pytorch","taskTypeVersion":1,"custom":'
      .. '{"workerReplicas":{"replicas":3,"image":"ghcr.io/acme/bert:1","resources":{}},"masterReplicas":'
      .. '{"replicas":1,"image":"ghcr.io/acme/bert:1","resources":{}},"runPolicy":{"activeDeadlineSeconds":3600}}}\n',
      out)
  end)

  it("-f lua writes a config whose job equals the one read", function()
    local code, out, err = run(nil, "convert", put("pt.yaml", pytorch()), "-f", "lua")
    assert.equal(0, code, err)
    local t = assert(load(out, "=convert", "t", { require = require }))()
    -- the whole job: its command and namespace too (SPEC §16)
    assert.is_true(t.bert == kfjob_lib.PyTorchJob{ worker = { replicas = 3, image = "ghcr.io/acme/bert:1" },
                                                   master = { replicas = 1, image = "ghcr.io/acme/bert:1" },
                                                   run_policy = { active_deadline_seconds = 3600 },
                                                   container = { command = { "python", "train.py" } },
                                                   namespace = "ml" })
  end)

  it("-f config writes a data config the CLI renders", function()
    local code, out, err = run(nil, "convert", put("pt.yaml", pytorch()), "-f", "config")
    assert.equal(0, code, err)
    local c = lyaml.load(out)
    assert.same({ kind = "PyTorchJob", worker = { replicas = 3, image = "ghcr.io/acme/bert:1" },
                  master = { image = "ghcr.io/acme/bert:1" },
                  run_policy = { active_deadline_seconds = 3600 },
                  container = { command = { "python", "train.py" } }, namespace = "ml" }, c.jobs.bert)
    local code2, _, err2 = run(nil, "check", put("bert.json", out))
    assert.equal(0, code2, err2)
  end)

  it("-o DIR writes one file per job, through a temporary name", function()
    local dir = TMP .. "/out"
    local code, out, err = run(nil, "convert", put("jobs.yaml", pytorch() .. "---\n" .. MPI_V1), "--to",
                               "operator", "-o", dir)
    assert.equal(0, code, err)
    assert.equal("", out)
    assert.same({ "bert.manifest.yaml", "pi.manifest.yaml" }, listdir(dir))
  end)

  it("a failing stream writes no file at all", function()
    local dir = TMP .. "/fail"
    local code = run(nil, "convert", put("bad.yaml", pytorch() .. "---\n" .. TF), "--to", "trainer-2.3",
                     "-o", dir)
    assert.equal(1, code)
    assert.same({}, listdir(dir))
  end)
end)

-- Data configs (SPEC §15: render, check, env and convert take them): read
-- as `kfjob render` reads them; -f lua and -f config write the same jobs
-- again from the config itself (a job-level field stays the job's), the
-- manifest formats render them for --to.
describe("kfjob convert: data configs", function()
  local BERT = [[
# a data config: one job
kind: PyTorchJob
master: {}
worker:
  replicas: 2
  image: ghcr.io/acme/bert:1
requests: {cpu: 2, mem: 4Gi}
run_policy: {backoff_limit: 3}
]]
  local JOBS = [[
{ "jobs": {
    "tf": { "kind": "TFJob", "worker": { "replicas": 2, "image": "tf:2" }, "chief": { "replicas": 1 } },
    "pi": { "kind": "MPIJob", "worker": { "replicas": 2 }, "launcher": {}, "slots": 2 } } }
]]

  it("a YAML data config -f lua: a script building the same job, job-level requests kept", function()
    local code, out, err = run(nil, "convert", put("bert.yaml", BERT), "-f", "lua")
    assert.equal(0, code, err)
    local t = assert(load(out, "=convert", "t", { require = require }))()
    assert.same({ "bert" }, (function() local n = {}; for k in pairs(t) do n[#n + 1] = k end; return n end)())
    assert.is_true(t.bert == kfjob_lib.PyTorchJob{ worker = { replicas = 2, image = "ghcr.io/acme/bert:1" },
                                                   requests = { cpu = 2, mem = "4Gi" },
                                                   run_policy = { backoff_limit = 3 } })
    assert.truthy(out:find("\n    requests = {\n", 1, true))   -- the job's, not each group's
  end)

  it("a JSON data config -f config: the data config of its jobs, defaults left out", function()
    local code, out, err = run(nil, "convert", put("jobs.json", JOBS), "-f", "config")
    assert.equal(0, code, err)
    assert.same({ jobs = {
      tf = { kind = "TFJob", worker = { replicas = 2, image = "tf:2" }, chief = { replicas = 1 } },
      pi = { kind = "MPIJob", worker = { replicas = 2 }, slots = 2 } } }, lyaml.load(out))
  end)

  it("-f manifest --to operator renders it as `kfjob render` does", function()
    local code, out, err = run(nil, "convert", put("bert.yaml", BERT), "-f", "manifest", "--to", "operator",
                               "--image", "m:1")
    assert.equal(0, code, err)
    local m = lyaml.load(out)
    assert.equal("kubeflow.org/v1", m.apiVersion)
    assert.equal("PyTorchJob", m.kind)
    assert.equal("bert", m.metadata.name)
    assert.equal(3, m.spec.runPolicy.backoffLimit)
    local w = m.spec.pytorchReplicaSpecs.Worker
    assert.equal(2, w.replicas)
    assert.equal("ghcr.io/acme/bert:1", w.template.spec.containers[1].image)
    assert.equal("m:1", m.spec.pytorchReplicaSpecs.Master.template.spec.containers[1].image)
    local code2, out2 = run(nil, "render", TMP .. "/bert.yaml", "-f", "manifest", "--target", "operator",
                            "--image", "m:1")
    assert.equal(0, code2)
    assert.equal(out2, out)
    -- a list on stdin; the groups without an image take --image
    code, out, err = run("- {kind: JAXJob, worker: {replicas: 2}}\n", "convert", "-", "--to", "operator",
                         "--image", "jax:1", "--name", "j")
    assert.equal(0, code, err)
    m = lyaml.load(out)
    assert.equal("j-1", m.metadata.name)
    assert.equal("jax:1", m.spec.jaxReplicaSpecs.Worker.template.spec.containers[1].image)
  end)

  it("-o DIR -f lua: one script per job", function()
    local dir = TMP .. "/cfg"
    local code, out, err = run(nil, "convert", put("jobs.json", JOBS), "-f", "lua", "-o", dir)
    assert.equal(0, code, err)
    assert.equal("", out)
    assert.same({ "pi.lua", "tf.lua" }, listdir(dir))
    local t = assert(loadfile(dir .. "/pi.lua", "t", { require = require }))()
    assert.is_nil(t.tf)
    assert.is_true(t.pi == kfjob_lib.MPIJob{ worker = { replicas = 2 }, slots = 2 })
  end)

  it("a bad data config exits 1 naming its line and path, and writes nothing", function()
    local bad = BERT:gsub("  replicas: 2", "  replcas: 2")
    for _, f in ipairs{ "lua", "config", "manifest" } do
      local code, out, err = run(nil, "convert", put("bad.yaml", bad), "-f", f, "--to", "operator")
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("bad.yaml:5: worker.replcas: unknown field (did you mean 'replicas'?)", err, 1, true)
    end
    local code, out, err = run(nil, "convert", put("bad.json", '{"jobs": {"x": {"kind": "PyTorchJb"}}}'),
                               "-f", "lua")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("jobs.x.kind: unknown kind 'PyTorchJb' (did you mean 'PyTorchJob'?)", err, 1, true)
  end)

  it("a .lua config renders for --to; -f lua and config of it are usage errors", function()
    local lua = put("s.lua", 'local kfjob = require "kfjob"\n'
                    .. 'return kfjob.PyTorchJob{ worker = { replicas = 2, image = "pt:1" }, master = { image = "pt:1" } }\n')
    local code, out, err = run(nil, "convert", lua, "--to", "trainer-2.3")
    assert.equal(0, code, err)
    local m = lyaml.load(out)
    assert.equal("TrainJob", m.kind)
    assert.equal(3, m.spec.trainer.numNodes)
    code, out, err = run(nil, "convert", lua, "-f", "config")
    assert.equal(2, code)
    assert.equal("", out)
    assert.matches("-f config: a Lua config's jobs stay in its sandbox", err, 1, true)
  end)
end)

describe("kfjob convert: unmapped paths and bad input", function()
  -- successPolicy: a v1 field kfjob's job does not hold; status: server-set
  local odd = pytorch():gsub("spec:\n  runPolicy:", "spec:\n  successPolicy: AllWorkers\n  runPolicy:", 1)
  odd = odd .. "status: {}\n"

  it("each path kfjob cannot hold is one stderr line; exit 1 and no output without --lossy", function()
    local code, out, err = run(nil, "convert", put("odd.yaml", odd))
    assert.equal(1, code)
    assert.equal("", out)
    local lines = {}
    for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal(2, #lines, err)
    assert.matches("^kfjob: .*/odd.yaml: document 1: spec.successPolicy: .*%(value \"AllWorkers\"%)$", lines[1])
    assert.matches("1 field(s) do not carry over", lines[2], 1, true)
  end)

  it("with --lossy the same line, exit 0 and the manifest without the field", function()
    local code, out, err = run(nil, "convert", put("odd.yaml", odd), "--lossy")
    assert.equal(0, code, err)
    assert.matches("spec.successPolicy", err, 1, true)
    assert.is_nil(out:find("successPolicy", 1, true))
    assert.is_nil(out:find("status", 1, true))
  end)

  it("JSON Lines in (render -f manifest-json of several jobs), the same JSON back", function()
    local a = kfjob_lib.PyTorchJob{ worker = { replicas = 2 } }:manifest{ name = "a", image = "i:1", format = "json" }
    local b = kfjob_lib.TFJob{ worker = { replicas = 2 } }:manifest{ name = "b", image = "i:1", format = "json" }
    local code, out, err = run(nil, "convert", put("jobs.json", a .. "\n" .. b .. "\n"))
    assert.equal(0, code, err)
    assert.equal(a .. "\n" .. b .. "\n", out)
    code, out = run(nil, "convert", put("jobs.json", a .. "\n" .. b .. "\n"), "--to", "operator")
    assert.equal(0, code)
    assert.matches("^apiVersion: kubeflow.org/v1\n", out)   -- -f manifest (YAML) when a target is named
  end)

  it("usage errors exit 2 with a did-you-mean", function()
    local code, _, err = run(nil, "convert", put("pt.yaml", pytorch()), "-f", "lau")
    assert.equal(2, code)
    assert.matches("unknown format 'lau' (did you mean 'lua'?)", err, 1, true)
    code, _, err = run(nil, "convert", put("pt.yaml", pytorch()), "--to", "operater")
    assert.equal(2, code)
    assert.matches("did you mean 'operator'?", err, 1, true)
    code, _, err = run(nil, "convert", TMP .. "/missing.yaml")
    assert.equal(2, code)
    assert.matches("cannot read " .. TMP .. "/missing.yaml", err, 1, true)
  end)

  it("another kind exits 1 naming the kinds kfjob reads", function()
    local code, out, err = run(nil, "convert", put("svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"))
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("apiVersion v1, kind Service: not a kind kfjob reads (supported: kubeflow.org/v1 TFJob",
                   err, 1, true)
  end)

  it("bad YAML exits 1 with its line", function()
    local code, out, err = run("apiVersion: kubeflow.org/v1\nkind: [\n", "convert", "-")
    assert.equal(1, code)
    assert.equal("", out)
    assert.matches("kfjob.from_manifests: ", err, 1, true)
  end)
end)

-- The issue's "done when": `kfjob convert` of every upstream example in the
-- test data (spec/data/import, its README names the sources) either
-- converts, its output equal to the input as data after the API server's
-- and operators' defaults (tools/manifest-defaults), or exits 1 naming the
-- manifest path that blocks it and writes nothing.
describe("kfjob convert of every upstream example", function()
  local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
  local dir = here .. "/data/import/"
  local p = io.popen("ls " .. quote(dir) .. " " .. quote(dir .. "upstream"))
  local files = {}
  for line in p:read("*a"):gmatch("[^\n]+") do
    if line:match("%.ya?ml$") or line:match("%.json$") then
      files[#files + 1] = (util.sh_ok("test -f " .. quote(dir .. line)) and dir or dir .. "upstream/") .. line
    end
  end
  p:close()
  it("the corpus is there", function() assert.is_true(#files >= 24, #files) end)
  for _, f in ipairs(files) do
    it(f:match("[^/]*/[^/]*$") .. " converts, equal after defaults, or names what blocks it", function()
      local code, out, err = run(nil, "convert", f)
      if code == 1 then
        assert.equal("", out)
        assert.matches("document %d+[^:]*: spec[%w.%[%]]*: ", err)
        return
      end
      assert.equal(0, code, err)
      local py = "env -u LD_PRELOAD /usr/bin/python3"
      if not util.sh_ok(py .. " -c 'import yaml'") then return pending("python3 cannot import yaml") end
      local got = os.tmpname()
      local fh = assert(io.open(got, "wb")); fh:write(out); fh:close()
      local pd = io.popen(py .. " " .. quote(here .. "/../tools/manifest-defaults") .. " --diff "
                          .. quote(f) .. " " .. quote(got) .. " 2>&1")
      local d = pd:read("*a"); pd:close()
      os.remove(got)
      assert.equal("", d)
    end)
  end
end)
