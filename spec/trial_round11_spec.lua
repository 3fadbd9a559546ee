-- Faults two black-box trials (manifests people write; the newest
-- releases) found; each expected value comes from the upstream behaviour
-- cited, never from kfjob's output.
local kfjob = require "kfjob"
local util = require "util"

local function read(text, opts)
  return kfjob.from_manifest(text, opts)
end

-- A v2beta1 MPIJob of 2 workers; `launcher` is the Launcher's lines
-- after `replicas: 1` (its restart policy and template).
local function mpi_v2(name, launcher)
  return ([[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: %s}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
%s    Worker:
      replicas: 2
      template: {spec: {containers: [{image: "mpi:1", name: worker}]}}
]]):format(name, launcher)
end

-- mpi-operator v2beta1 default.go SetDefaults_MPIJob gives the Launcher no
-- command: its image's entrypoint runs.  kfjob's launcher runs its mpirun
-- line, so reading one without command or args would run another program:
-- an error, --lossy or not.
describe("an MPIJob launcher with neither command nor args", function()
  local doc = mpi_v2("mpi-nocmd",
    "      template: {spec: {containers: [{image: \"myorg/entrypoint-runs-mpirun:1\", name: launcher}]}}\n")
  it("is refused at its args, also with lossy", function()
    for _, lossy in ipairs{ false, true } do
      local j, err = read(doc, { lossy = lossy })
      assert.is_nil(j)
      assert.truthy(err:find("spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].args: absent",
                             1, true), err)
      assert.truthy(err:find("not left out under --lossy", 1, true), err)
    end
  end)
  it("names a misspelt command of the launcher's container", function()
    local j, err = read(mpi_v2("typo", "      template: {spec: {containers: [{image: \"mpi:1\", "
                                       .. "name: l, commnd: [mpirun, -np, \"2\", a.out]}]}}\n"),
                        { lossy = true })
    assert.is_nil(j)
    assert.truthy(err:find("its container has 'commnd': did you mean 'command'?", 1, true), err)
  end)
end)

-- training-operator tfjob_types.go TFJobReplicaTypeMaster ("similar to
-- chief, kept for backwards compatibility"); tensorflow.go genClusterSpec
-- names its TF_CONFIG task "master": not kfjob's Chief.
describe("a TFJob's Master", function()
  local only = [[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf-master}
spec:
  tfReplicaSpecs:
    Master:
      replicas: 1
      template: {spec: {containers: [{name: tensorflow, image: "tf:1"}]}}
]]
  local with_workers = only .. [[
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: tensorflow, image: "tf:1"}]}}
]]
  it("is refused with its reason, not as an unknown field", function()
    local j, err = read(with_workers)
    assert.is_nil(j)
    assert.truthy(err:find("spec.tfReplicaSpecs.Master: a TFJob's Master is not a group", 1, true), err)
    assert.truthy(err:find("TF_CONFIG task type 'master'", 1, true), err)
    assert.falsy(err:find("unknown field", 1, true), err)
  end)
  it("lossy leaves it out whole and lists it when other groups remain", function()
    local j, info = read(with_workers, { lossy = true })
    assert.truthy(j, info)
    assert.equal("spec.tfReplicaSpecs.Master", info.unmapped[1].path)
    assert.equal(2, j:spec().worker.replicas)
  end)
  it("lossy does not leave out the only group: the job would run no pod", function()
    local j, err = read(only, { lossy = true })
    assert.is_nil(j)
    assert.truthy(err:find("spec.tfReplicaSpecs.Master: a TFJob's Master", 1, true), err)
    assert.truthy(err:find("the job would run no pod", 1, true), err)
  end)
  it("nor every group of unknown names", function()
    local j, err = read(only:gsub("Master:", "worker:"), { lossy = true })
    assert.is_nil(j)
    assert.truthy(err:find("spec.tfReplicaSpecs.worker: unknown field (did you mean 'Worker'?)", 1, true), err)
    assert.truthy(err:find("the job would run no pod", 1, true), err)
  end)
end)

-- training-operator pytorchjob_types.go: RDZVBackend's constants are c10d,
-- etcd and etcd-v2, enforced by neither the CRD nor the webhook; a
-- clustered task's STATIC reads back as "static" and reaches torchrun
-- unchecked: a warning (R17) where elasticPolicy.rdzvBackend is written.
describe("R17: a rendezvous backend outside the operator's constants", function()
  local function r17(j, target)
    for _, w in ipairs(j:lint{ target = target }) do
      if w.rule == "R17" then return w end
    end
  end
  local static = kfjob.Elastic{ nnodes = 2, rdzv_backend = "static", container = { image = "i:1" } }
  it("warns on operator, flyte and flyte2", function()
    for _, t in ipairs{ "operator", "flyte", "flyte2" } do
      assert.is_true((static:check{ target = t }))
      local w = r17(static, t)
      assert.truthy(w, t)
      assert.equal("rdzv_backend", w.path)
      assert.truthy(w.message:find("c10d, etcd, etcd-v2", 1, true), w.message)
    end
  end)
  it("not for c10d, etcd or etcd-v2", function()
    for _, b in ipairs{ "c10d", "etcd", "etcd-v2" } do
      local j = kfjob.Elastic{ nnodes = 2, rdzv_backend = b, container = { image = "i:1" } }
      assert.is_nil(r17(j, "operator"), b)
    end
  end)
  it("stays an error on Trainer unless c10d", function()
    local ok, probs = static:check{ target = "trainer-2.3" }
    assert.is_nil(ok)
    assert.equal("R17", probs[1].rule)
  end)
end)

-- A clustered task's JobSet (flyte executor/pkg/plugin/clustered) is not
-- Flyte 1.x's PyTorchJob: what flyteplugins adds to every pod (the
-- safe-to-evict annotation, _F_WN) is not in it, so converting it says
-- nothing of those.
describe("kfjob convert of a clustered task's JobSet", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  it("says nothing of Flyte 1.x's pod additions", function()
    local cfg = util.tmp([[
local kf = require "kfjob"
return { ["acc-pt"] = { job = kf.PyTorchJob{ container = { image = "img:1", command = {"python","t.py"} },
  worker = { replicas = 3 } }, opts = { target = "flyte2-clustered" } } }
]], ".lua")
    local code, js, err = util.kfjob("render", cfg, "-f", "manifest")
    assert.equal(0, code, err)
    assert.truthy(js:find("kind: JobSet", 1, true))
    for _, args in ipairs{ { "-f", "lua" }, { "--to", "operator", "-f", "manifest" } } do
      local c2, out, e2 = util.conv(js, table.unpack(args))
      assert.equal(0, c2, e2)
      assert.truthy(out ~= "")
      assert.falsy(e2:find("safe-to-evict", 1, true), e2)
      assert.falsy(e2:find("read as Flyte's", 1, true), e2)
    end
  end)
end)

-- mpi-operator v0.8 validation.go takes only Never and OnFailure; lossy
-- leaves ExitCode out, and then the launcher's default applies
-- (default.go SetDefaults_MPIJob: OnFailure), not kfjob's Never.
describe("a v2beta1 launcher's ExitCode left out under lossy", function()
  local doc = mpi_v2("mpi-ec", "      restartPolicy: ExitCode\n"
    .. "      template: {spec: {containers: [{image: \"mpi:1\", name: launcher,"
    .. " command: [mpirun, -n, \"2\", /home/mpiuser/pi]}]}}\n")
  it("is listed with its rule and reads as the operator's default", function()
    local j, err = read(doc)
    assert.is_nil(j)
    assert.truthy(err:find("(rule R13 on mpi-operator)", 1, true), err)
    local info
    j, info = read(doc, { lossy = true })
    assert.truthy(j, info)
    assert.equal("spec.mpiReplicaSpecs.Launcher.restartPolicy", info.unmapped[1].path)
    assert.equal("on_failure", j:spec().launcher.restart_policy)
  end)
end)

-- The warnings convert prints carry the rule as its errors do.
describe("kfjob convert's rule warnings", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  it("name the rule and its source", function()
    local code, _, err = util.conv([[
apiVersion: kubeflow.org/v1
kind: MPIJob
metadata: {name: ec}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: ExitCode
      template:
        spec:
          containers:
          - {name: mpi, image: "mpi:1", command: [mpirun, -np, "2", python, t.py]}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: mpi, image: "mpi:1"}
]], "-f", "lua")
    assert.equal(0, code, err)
    assert.truthy(err:find("never acts on it", 1, true), err)
    assert.truthy(err:find("(target operator; rule R13: training-operator", 1, true), err)
  end)
end)

-- Trainer v2.4's TrainJob takes numNodes 0 (trainjob_types.go Minimum=0,
-- trainer#3809): no kfjob job runs no node, so reading one says why.
describe("a TrainJob of numNodes 0", function()
  it("is refused with the reason, not a bare range", function()
    local j, err = read([[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: zero}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {image: "img:1", numNodes: 0}
]])
    assert.is_nil(j)
    assert.truthy(err:find("spec.trainer.numNodes: 0: a TrainJob of no node runs no pod", 1, true), err)
  end)
end)

-- A TrainJob's runtime patch has no imagePullPolicy or ports for the node
-- container (trainjob_types.go ContainerPatch): R23.  The job runs without
-- them (core/v1 defaults.go SetDefaults_Container gives the pull policy;
-- types.go Container.Ports: a port declared opens nothing), so lossy
-- leaves them out and lists them, as Trainer's upstream examples need.
describe("migrating an upstream JAXJob to Trainer", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local doc = [[
apiVersion: "kubeflow.org/v1"
kind: JAXJob
metadata: {name: jaxjob-simple, namespace: kubeflow}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: jax
              image: docker.io/kubeflow/jaxjob-simple:latest
              command: ["python3", "train.py"]
              imagePullPolicy: Always
              ports: [{containerPort: 6666, name: jaxjob-port}]
]]
  local at = "spec.jaxReplicaSpecs.Worker.template.spec.containers[0]."
  it("refuses imagePullPolicy and ports without --lossy, at their paths", function()
    local code, out, err = util.conv(doc, "--to", "trainer-2.3")
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(err:find(at .. "imagePullPolicy: cannot be expressed", 1, true), err)
    assert.truthy(err:find(at .. "ports: cannot be expressed", 1, true), err)
  end)
  it("--lossy leaves both out, lists them, and the TrainJob has neither", function()
    local code, out, err = util.conv(doc, "--to", "trainer-2.3", "--lossy")
    assert.equal(0, code, err)
    assert.truthy(err:find(at .. "imagePullPolicy: cannot be expressed", 1, true), err)
    assert.truthy(err:find('(rule R23 on trainer-2.3) (value "Always") (left out: --lossy)', 1, true), err)
    assert.truthy(err:find(at .. "ports: cannot be expressed", 1, true), err)
    local m = util.doc1(out)
    assert.equal("TrainJob", m.kind)
    assert.equal("docker.io/kubeflow/jaxjob-simple:latest", m.spec.trainer.image)
    assert.equal(2, m.spec.trainer.numNodes)
    assert.falsy(out:find("imagePullPolicy", 1, true), out)
    assert.falsy(out:find("containerPort", 1, true), out)
  end)
  it("dnsPolicy, which changes what the pod resolves, stays an error under --lossy", function()
    local code, out, err = util.conv(doc .. "          dnsPolicy: None\n"
                                         .. "          dnsConfig: {nameservers: [1.1.1.1]}\n",
                                     "--to", "trainer-2.3", "--lossy")
    assert.equal(1, code)
    assert.equal("", out)
    assert.truthy(err:find("dnsPolicy", 1, true), err)
  end)
end)

-- Each operator reads the port from that group's own container: a PyTorch
-- Master's pytorchjob-port (pytorch envvar.go getPortFromPyTorchJob), an
-- elastic job's Worker's (elastic.go), each TF group's tfjob-port in
-- TF_CONFIG (tensorflow.go genClusterSpec), the JAX Worker's jaxjob-port
-- (jax/envvar.go), the XGBoost Master's and Workers' xgboostjob-port
-- (xgboost.go SetPodEnv).  A port given in a group's own pod_template is
-- that group's.
describe("each pod's environment takes a port from the group's own template", function()
  local function port_tmpl(name, port)
    return { spec = { containers = { { name = "primary", ports = { { name = name, containerPort = port } } } } } }
  end
  local function var(envs, pod, name)
    for _, v in ipairs(envs[pod].env) do if v.name == name then return v.value end end
  end
  it("PyTorchJob: the Master's", function()
    local e = kfjob.PyTorchJob{ master = { image = "i", pod_template = port_tmpl("pytorchjob-port", 3333) },
                                worker = { replicas = 1, image = "i" } }:environment{ name = "j" }
    assert.equal("3333", var(e, "worker-0", "MASTER_PORT"))
    assert.equal("3333", var(e, "master-0", "PET_MASTER_PORT"))
  end)
  it("Elastic: the Worker's, in the rendezvous endpoint", function()
    local e = kfjob.Elastic{ nnodes = 2, worker = { image = "i", pod_template = port_tmpl("pytorchjob-port", 3333) } }
              :environment{ name = "j" }
    assert.equal("j-worker-0:3333", var(e, "worker-1", "PET_RDZV_ENDPOINT"))
  end)
  it("TFJob: each group's own in TF_CONFIG", function()
    local e = kfjob.TFJob{ ps = { replicas = 1, image = "i" },
                           worker = { replicas = 2, image = "i", pod_template = port_tmpl("tfjob-port", 3333) } }
              :environment{ name = "j", namespace = "ns" }
    assert.equal('{"cluster":{"ps":["j-ps-0.ns.svc:2222"],"worker":["j-worker-0.ns.svc:3333",'
                 .. '"j-worker-1.ns.svc:3333"]},"task":{"type":"ps","index":0},"environment":"cloud"}',
                 var(e, "ps-0", "TF_CONFIG"))
  end)
  it("JAXJob: the Worker's; XGBoostJob: the Master's and the Workers'", function()
    local e = kfjob.JAXJob{ worker = { replicas = 2, image = "i", pod_template = port_tmpl("jaxjob-port", 3333) } }
              :environment{ name = "j" }
    assert.equal("3333", var(e, "worker-1", "COORDINATOR_PORT"))
    e = kfjob.XGBoostJob{ master = { image = "i", pod_template = port_tmpl("xgboostjob-port", 3333) },
                          worker = { replicas = 2, image = "i", pod_template = port_tmpl("xgboostjob-port", 4444) } }
        :environment{ name = "j" }
    assert.equal("3333", var(e, "worker-0", "MASTER_PORT"))
    assert.equal("4444", var(e, "master-0", "WORKER_PORT"))
  end)
end)

-- Kueue reads topology from each pod set's template (Kueue
-- podset-*-topology annotations).  Flyte 2's backend copies the pod
-- template's metadata onto the resource, and Flyte's pod template (a
-- TaskTemplate k8s_pod) makes its backend leave out terminationMessage-
-- Policy: both manifests read back with their topology.
describe("topology read back from Flyte's manifests", function()
  local function job()
    return kfjob.PyTorchJob{ container = { image = "img:1" }, master = {}, worker = { replicas = 3 },
                             scheduling = { queue = "team-a",
                                            topology = { preferred = "cloud.google.com/gce-topology-block" } } }
  end
  it("flyte2: scheduling.topology, not the resource's annotations", function()
    local m = job():manifest{ target = "flyte2", name = "f2", format = "yaml" }
    assert.truthy(m:find("metadata:\n  name: f2\n  labels:\n    kueue.x-k8s.io/queue-name: team-a\n"
                         .. "  annotations:\n    kueue.x-k8s.io/podset-preferred-topology", 1, true), m)
    local back, info = read(m)
    assert.truthy(back, info)
    assert.equal("flyte2", info.target)
    local s = back:spec()
    assert.same({ preferred = "cloud.google.com/gce-topology-block" }, s.scheduling.topology)
    assert.is_nil(s.annotations)
    assert.equal(m, back:manifest{ target = "flyte2", name = "f2", format = "yaml" })
    local op = back:manifest{ target = "operator", name = "f2", format = "yaml" }
    local _, n = op:gsub("podset%-preferred%-topology", "")
    assert.equal(2, n, op)   -- on the Master's and the Worker's pod templates
  end)
  it("flyte: a pod template of topology alone is still Flyte's shape", function()
    local j = kfjob.PyTorchJob{ container = { image = "img:1" }, master = {}, worker = { replicas = 2 },
                                scheduling = { topology = { required = "zone" } } }
    local m = j:manifest{ target = "flyte", name = "t", format = "yaml" }
    local back, info = read(m)
    assert.truthy(back, info)
    assert.equal("flyte", info.target)
    assert.same({ required = "zone" }, back:spec().scheduling.topology)
    assert.equal(m, back:manifest{ target = "flyte", name = "t", format = "yaml" })
    assert.is_true((back:check{ target = "trainer-2.3" }))
  end)
end)

-- The clustered backend runs the task's container as given (flyte
-- executor/pkg/plugin/clustered build.go), once a pod, with NNODES and
-- NPROC_PER_NODE but no RANK or WORLD_SIZE; flyte-sdk's tasks run its
-- `clustered` entrypoint (args[0], src/flyte/_bin/clustered.py), which
-- starts torchrun.  A command that starts no launcher: R63 warns.
describe("R63: a clustered task's command that starts no launcher", function()
  local function r63(ct)
    local j = kfjob.PyTorchJob{ container = ct, worker = { replicas = 3 } }
    for _, w in ipairs(j:lint{ target = "flyte2-clustered" }) do
      if w.rule == "R63" then return w end
    end
  end
  it("warns for a plain python command, at its path", function()
    local w = r63{ image = "i:1", command = { "python", "train.py" } }
    assert.truthy(w)
    assert.equal("container.command", w.path)
    assert.truthy(w.message:find("no RANK or WORLD_SIZE", 1, true), w.message)
  end)
  it("not for torchrun, python -m torch.distributed.run, the SDK's entrypoint or the image's", function()
    assert.is_nil(r63{ image = "i:1", command = { "torchrun", "--nnodes=3", "train.py" } })
    assert.is_nil(r63{ image = "i:1", command = { "/usr/bin/python3", "-m", "torch.distributed.run", "t.py" } })
    assert.is_nil(r63{ image = "i:1", args = { "clustered", "a0", "--inputs", "x" } })
    assert.is_nil(r63{ image = "i:1" })
  end)
  it("only on flyte2-clustered", function()
    local j = kfjob.PyTorchJob{ container = { image = "i:1", command = { "python", "t.py" } },
                                worker = { replicas = 3 } }
    for _, t in ipairs{ "operator", "flyte", "flyte2" } do
      for _, w in ipairs(j:lint{ target = t }) do assert.not_equal("R63", w.rule, t) end
    end
  end)
end)

-- A data config behaves as its Lua twin (README, Data configs): a job that
-- cannot be built is the config's error, as the twin's constructor raises,
-- --keep-going or not; --keep-going writes what the target takes when it
-- refuses another job.
describe("--keep-going on a data config", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local function cfg(b)
    return "jobs:\n  a:\n    kind: PyTorchJob\n    container: {image: \"a:1\"}\n"
           .. "    worker: {replicas: 2}\n  b:\n    kind: PyTorchJob\n    container: {image: \"a:1\"}\n"
           .. "    worker: " .. b .. "\n"
  end
  it("a job that cannot be built renders nothing, naming its line and path", function()
    local dir = util.tmpdir()
    local code, _, err = util.kfjob("render", util.tmp(cfg("{replicas: -1}"), ".yaml"), "-f", "manifest",
                                    "-o", dir .. "/out", "--keep-going")
    assert.equal(1, code)
    assert.same({}, util.listdir(dir))
    assert.truthy(err:find(":9: jobs.b.worker.replicas: must be >= 0 (got -1)", 1, true), err)
  end)
  it("a job the target refuses: the others are written", function()
    local dir = util.tmpdir()
    local code, _, err = util.kfjob("render", util.tmp(cfg("{replicas: 2, restart_policy: exit_code}"), ".yaml"),
                                    "-f", "manifest", "--target", "trainer-2.3", "-o", dir .. "/out",
                                    "--keep-going")
    assert.equal(1, code)
    assert.same({ ".kfjob-outputs", "a.manifest.yaml" }, util.listdir(dir .. "/out"))
    assert.truthy(err:find("job 'b'", 1, true), err)
  end)
end)

-- A HorovodJob's log level, discovery script, elastic timeout and
-- --verbose travel in the launcher's horovodrun line alone (flytekit
-- kfmpi task.py HorovodJob: _get_horovod_prefix): decoding a TaskTemplate
-- or TaskSpec reads them from it, so the job and its bytes come back.
describe("a HorovodJob's launcher settings decoded from its template", function()
  for _, extra in ipairs{ { log_level = "DEBUG" }, { elastic_timeout = 60 },
                          { discovery_script_path = "/opt/discover.sh" }, { verbose = true } } do
    local k = next(extra)
    it(k, function()
      local spec = { worker = { replicas = 2 }, launcher = { replicas = 1 }, slots = 2 }
      spec[k] = extra[k]
      local h = kfjob.HorovodJob(spec)
      local t = h:task_template{ container = { image = "i:1", args = { "python", "train.py" } } }
      local d = assert(kfjob.decode_task_template(t, { kind = "HorovodJob" }))
      assert.equal(extra[k], d[k])
      assert.same({ "python", "train.py" }, d.container.args)
      assert.is_true(d == h:with{ container = { image = "i:1", args = { "python", "train.py" } } })
      assert.equal(t, d:task_template())
      local ts = h:task_spec{ container = { image = "i:1", args = { "python", "train.py" } },
                              id = { project = "p", domain = "d", name = "wf.train", version = "v1" } }
      local d2 = assert(kfjob.decode_task_spec(ts, { kind = "HorovodJob" }))
      assert.equal(extra[k], d2[k])
    end)
  end
end)

-- kfjob explain's ON TARGET block names the rule that refuses a value of
-- the field (docs/CLI.md): a group of workers the target needs (R1 on
-- flyte2 for a PyTorchJob, R3 on flyte for a TFJob, R4 on the
-- mpi-operator) refuses 0.
describe("kfjob explain names the rule refusing a worker count of 0", function()
  local explain = require "kfjob.explain"
  it("R3, R4, R1 on the targets that refuse it, not where 0 is taken", function()
    assert.truthy(explain("TFJob.worker.replicas", "flyte"):find(
      "values:   >= 1 (0 cannot be expressed: R3: ", 1, true))
    assert.truthy(explain("MPIJob.worker.replicas", "mpi-operator"):find(
      "values:   >= 1 (0 cannot be expressed: R4: ", 1, true))
    assert.truthy(explain("PyTorchJob.worker.replicas", "flyte2"):find(
      "values:   >= 1 (0 cannot be expressed: R1: ", 1, true))
    assert.falsy(explain("PyTorchJob.worker.replicas", "flyte"):find("values:", 1, true))
  end)
end)

-- kfjob's TaskTemplate gives shared memory as the container target's
-- extended_resources.shared_memory; Flyte's backend builds that target's
-- container with terminationMessagePolicy FallbackToLogsOnError and adds
-- the volume and mount (flyteplugins flytek8s pod_helper.go BuildRawPod,
-- ApplySharedMemory): the manifest has all three and reads back as Flyte's.
describe("shared memory on Flyte's targets", function()
  for _, t in ipairs{ "flyte", "flyte2" } do
    for _, shm in ipairs{ true, "2Gi" } do
      it(t .. ", shared_memory = " .. tostring(shm), function()
        local j = kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = shm, container = { image = "i:1" } }
        local tt = kfjob.decode_task_template(j:task_template())
        assert.is_nil(tt:spec().pod_template)   -- the container target
        local m = j:manifest{ target = t, name = "s", format = "yaml" }
        local _, n = m:gsub("terminationMessagePolicy: FallbackToLogsOnError", "")
        assert.equal(2, n, m)
        assert.truthy(m:find("mountPath: /dev/shm", 1, true))
        local back, info = read(m)
        assert.truthy(back, info)
        assert.equal(t, info.target)
        assert.equal(m, back:manifest{ target = t, name = "s", format = "yaml" })
      end)
    end
  end
  it("a pod template job keeps the k8s_pod path: no policy, read back the same", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 2 }, shared_memory = true, container = { image = "i:1" },
                                pod_template = { spec = { containers = { { name = "primary",
                                  env = { { name = "A", value = "1" } } } } } } }
    local m = j:manifest{ target = "flyte", name = "s", format = "yaml" }
    assert.falsy(m:find("terminationMessagePolicy", 1, true), m)
    local back, info = read(m)
    assert.equal("flyte", info.target)
    assert.equal(m, back:manifest{ target = "flyte", name = "s", format = "yaml" })
  end)
end)

-- An elastic range of no worker (nnodes "2:0") is R2's construction error,
-- as nnodes = 0 is (a range's minimum above its maximum stays R9's, a
-- target's matter); found by fuzzing from_manifest: such a job's manifest
-- did not read back.
describe("an elastic range whose maximum is 0", function()
  it("is refused at construction, the range above it is not", function()
    local ok, err = pcall(kfjob.Elastic, { nnodes = "2:0", container = { image = "i:1" } })
    assert.is_false(ok)
    assert.truthy(err:find("nnodes: needs 1 <= min <= max (got '2:0')", 1, true), err)
    assert.is_true((pcall(kfjob.Elastic, { nnodes = "3:2", container = { image = "i:1" } })))
  end)
end)
