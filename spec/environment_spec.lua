-- job:environment (SPEC §11): every pod's variables and files per target.
-- Every expected value below is written by hand from FACTS §8.2 (the
-- worked examples and tables cited on each test), never taken from kfjob;
-- TF_CONFIG is compared as parsed JSON (dkjson).
local kfjob = require "kfjob"
local util = require "util"
local json = require "dkjson"

-- "NAME=value", or "NAME<-fieldPath" for a fieldRef valueFrom.
local function lines(pod)
  local out = {}
  for i, v in ipairs(pod.env) do
    if v.valueFrom then
      out[i] = v.name .. "<-" .. v.valueFrom.fieldRef.fieldPath
    else
      out[i] = v.name .. "=" .. v.value
    end
  end
  return out
end

local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

-- The list `base` with `over` entries replaced by name.
local function with(base, over)
  local out = {}
  for i, s in ipairs(base) do
    local name = s:match("^([^=<]+)")
    out[i] = over[name] and (name .. "=" .. over[name]) or s
  end
  return out
end

local function concat(...)
  local out = {}
  for _, l in ipairs({ ... }) do
    for _, s in ipairs(l) do out[#out + 1] = s end
  end
  return out
end

describe("job:environment, training-operator PyTorchJob (FACTS §8.2.1)", function()
  -- worked example 1: Master 1 + Worker 3, nprocPerNode auto, port 23456
  local master = {
    "PYTHONUNBUFFERED=1", "MASTER_PORT=23456", "PET_MASTER_PORT=23456",
    "MASTER_ADDR=j-master-0", "PET_MASTER_ADDR=j-master-0", "WORLD_SIZE=4",
    "RANK=0", "PET_NODE_RANK=0", "PET_NPROC_PER_NODE=auto", "PET_NNODES=4",
  }
  local job = kfjob.PyTorchJob{ worker = { replicas = 3 } }

  it("gives worked example 1, pod by pod", function()
    local env = job:environment{ name = "j" }
    assert.are.same({ "master-0", "worker-0", "worker-1", "worker-2" }, keys(env))
    assert.are.same(master, lines(env["master-0"]))
    assert.are.same(with(master, { RANK = "1", PET_NODE_RANK = "1" }), lines(env["worker-0"]))
    assert.are.same(with(master, { RANK = "2", PET_NODE_RANK = "2" }), lines(env["worker-1"]))
    assert.are.same(with(master, { RANK = "3", PET_NODE_RANK = "3" }), lines(env["worker-2"]))
    assert.are.same({}, env["worker-2"].files)
  end)

  it("defaults to the operator target", function()
    assert.are.same(job:environment{ name = "j" },
                    job:environment{ name = "j", target = "operator" })
  end)

  it("lists the user's variables first, opts.env sorted, then the pod template's", function()
    local j2 = kfjob.PyTorchJob{
      worker = { replicas = 3 },
      pod_template = { spec = { containers = { {
        name = "primary",
        env = { { name = "POD_IP", valueFrom = { fieldRef = { fieldPath = "status.podIP" } } },
                { name = "Z", value = "last" } },
        ports = { { name = "pytorchjob-port", containerPort = 30000 } },
      } } } },
    }
    local env = j2:environment{ name = "j", env = { B = "2", A = "1" } }
    -- the Master's pytorchjob-port feeds MASTER_PORT (FACTS §8.2.1 row 2)
    assert.are.same(concat({ "A=1", "B=2", "POD_IP<-status.podIP", "Z=last" },
                           with(master, { MASTER_PORT = "30000", PET_MASTER_PORT = "30000" })),
                    lines(env["master-0"]))
  end)

  it("keeps a user's WORLD_SIZE before the operator's (the later entry wins)", function()
    local env = job:environment{ name = "j", env = { WORLD_SIZE = "99" } }
    assert.are.same(concat({ "WORLD_SIZE=99" }, master), lines(env["master-0"]))
  end)
end)

describe("job:environment, elastic PyTorchJob (FACTS §8.2.1 worked example 2)", function()
  local job = kfjob.Elastic{ nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 }
  local worker = {
    "PYTHONUNBUFFERED=1", "PET_RDZV_ENDPOINT=j-worker-0:23456", "PET_RDZV_BACKEND=c10d",
    "PET_NNODES=2:4", "PET_MAX_RESTARTS=3", "PET_NPROC_PER_NODE=8",
  }

  it("gives every worker the rendezvous variables and no master variables", function()
    local env = job:environment{ name = "j", target = "flyte2" }
    assert.are.same({ "worker-0", "worker-1", "worker-2", "worker-3" }, keys(env))
    for i = 0, 3 do assert.are.same(concat({ "_F_PN<-metadata.name" }, worker), lines(env["worker-" .. i])) end
  end)

  it("on the operator, kfjob's spec.nprocPerNode gives PET_NPROC_PER_NODE first (FACTS §11.4, §8.2.1 row 9)", function()
    local env = job:environment{ name = "j" }
    assert.are.same({ "worker-0", "worker-1", "worker-2", "worker-3" }, keys(env))
    for i = 0, 3 do
      assert.are.same({ "PYTHONUNBUFFERED=1", "PET_NPROC_PER_NODE=8", "PET_RDZV_ENDPOINT=j-worker-0:23456",
                        "PET_RDZV_BACKEND=c10d", "PET_NNODES=2:4", "PET_MAX_RESTARTS=3" },
                      lines(env["worker-" .. i]))
    end
  end)

  it("adds Flyte 1.x's _F_WN before the operator's variables (FACTS §8.2.7)", function()
    local env = job:environment{ name = "j", target = "flyte", env = { A = "1" } }
    for i = 0, 3 do
      assert.are.same(concat({ "A=1", "_F_WN<-metadata.name" }, worker),
                      lines(env["worker-" .. i]))
    end
  end)

  it("adds Flyte 2's _F_PN instead (no _F_WN on main)", function()
    local env = job:environment{ name = "j", target = "flyte2" }
    assert.are.same(concat({ "_F_PN<-metadata.name" }, worker), lines(env["worker-0"]))
  end)

  it("PET_MAX_RESTARTS=0 where maxRestarts is written: always on Flyte, when given on the operator", function()
    local base = { "PYTHONUNBUFFERED=1", "PET_NPROC_PER_NODE=1", "PET_RDZV_ENDPOINT=e-worker-0:23456",
                   "PET_RDZV_BACKEND=c10d", "PET_NNODES=2:2" }
    local unset = kfjob.Elastic{ nnodes = 2, nproc_per_node = 1 }
    assert.are.same(base, lines(unset:environment{ name = "e" }["worker-1"]))
    local zero = kfjob.Elastic{ nnodes = 2, nproc_per_node = 1, max_restarts = 0 }
    assert.are.same(concat(base, { "PET_MAX_RESTARTS=0" }), lines(zero:environment{ name = "e" }["worker-1"]))
    local fl = unset:environment{ name = "e", target = "flyte" }["worker-1"]
    assert.is_truthy(table.concat(lines(fl), "\n"):find("PET_MAX_RESTARTS=0", 1, true))
  end)

  it("nnodes = 1: one worker on the operator, a plain python-task (an error) on Flyte", function()
    local one = kfjob.Elastic{ nnodes = 1 }
    assert.are.same({ "worker-0" }, keys(one:environment{ name = "e" }))
    assert.matches("python%-task", util.error_of(one.environment, one, { name = "e", target = "flyte" }))
  end)
end)

describe("job:environment, Flyte on a PyTorchJob (FACTS §8.2.7)", function()
  it("puts _F_WN on workers only on flyte, _F_PN on every pod on flyte2", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
    local base = {
      "PYTHONUNBUFFERED=1", "MASTER_PORT=23456", "PET_MASTER_PORT=23456",
      "MASTER_ADDR=j-master-0", "PET_MASTER_ADDR=j-master-0", "WORLD_SIZE=2",
    }
    local m = concat(base, { "RANK=0", "PET_NODE_RANK=0", "PET_NPROC_PER_NODE=auto", "PET_NNODES=2" })
    local w = concat(base, { "RANK=1", "PET_NODE_RANK=1", "PET_NPROC_PER_NODE=auto", "PET_NNODES=2" })
    local f1 = job:environment{ name = "j", target = "flyte" }
    assert.are.same(m, lines(f1["master-0"]))
    assert.are.same(concat({ "_F_WN<-metadata.name" }, w), lines(f1["worker-0"]))
    local f2 = job:environment{ name = "j", target = "flyte2" }
    assert.are.same(concat({ "_F_PN<-metadata.name" }, m), lines(f2["master-0"]))
    assert.are.same(concat({ "_F_PN<-metadata.name" }, w), lines(f2["worker-0"]))
  end)
end)

describe("job:environment, TFJob TF_CONFIG (FACTS §8.2.2)", function()
  local job = kfjob.TFJob{ chief = { replicas = 1 }, ps = { replicas = 1 }, worker = { replicas = 2 } }
  local cluster = {
    chief = { "j-chief-0.ns.svc:2222" },
    ps = { "j-ps-0.ns.svc:2222" },
    worker = { "j-worker-0.ns.svc:2222", "j-worker-1.ns.svc:2222" },
  }

  local function tf_config(pod)
    assert.are.equal(1, #pod.env)   -- TF pods get no PYTHONUNBUFFERED
    assert.are.equal("TF_CONFIG", pod.env[1].name)
    return pod.env[1].value, json.decode(pod.env[1].value)
  end

  it("gives each pod the cluster and its own task", function()
    local env = job:environment{ name = "j", namespace = "ns" }
    assert.are.same({ "chief-0", "ps-0", "worker-0", "worker-1" }, keys(env))
    local raw, v = tf_config(env["worker-1"])
    assert.are.same({ cluster = cluster, task = { type = "worker", index = 1 }, environment = "cloud" }, v)
    -- Go's json.Marshal: keys cluster, task, environment; no spaces
    assert.is_truthy(raw:find('^{"cluster":{"chief":%[.-%]},"task":{"type":"worker","index":1},"environment":"cloud"}$'))
    assert.is_nil(raw:find(" ", 1, true))
    local _, c = tf_config(env["chief-0"])
    assert.are.same({ type = "chief", index = 0 }, c.task)
    local _, p = tf_config(env["ps-0"])
    assert.are.same({ type = "ps", index = 0 }, p.task)
  end)

  it("lists an evaluator in the cluster; the namespace defaults to default", function()
    local env = kfjob.TFJob{ worker = { replicas = 1 }, evaluator = { replicas = 1 } }:environment{ name = "t" }
    local _, v = tf_config(env["evaluator-0"])
    assert.are.same({
      cluster = { evaluator = { "t-evaluator-0.default.svc:2222" }, worker = { "t-worker-0.default.svc:2222" } },
      task = { type = "evaluator", index = 0 }, environment = "cloud",
    }, v)
  end)

  it("takes the tfjob-port of the template's primary container", function()
    local env = kfjob.TFJob{
      worker = { replicas = 2 },
      pod_template = { spec = { containers = { { name = "primary",
        ports = { { name = "tfjob-port", containerPort = 3333 } } } } } },
    }:environment{ name = "t", namespace = "ns" }
    local _, v = tf_config(env["worker-0"])
    assert.are.same({ "t-worker-0.ns.svc:3333", "t-worker-1.ns.svc:3333" }, v.cluster.worker)
  end)

  it("gives a single-pod TFJob no TF_CONFIG", function()
    local env = kfjob.TFJob{ worker = { replicas = 1 } }:environment{ name = "t" }
    assert.are.same({ "worker-0" }, keys(env))
    assert.are.same({}, env["worker-0"].env)
  end)

  it("adds _F_PN on flyte2, nothing on flyte", function()
    local f1 = job:environment{ name = "j", namespace = "ns", target = "flyte" }
    assert.are.equal(1, #f1["worker-0"].env)
    local f2 = job:environment{ name = "j", namespace = "ns", target = "flyte2" }
    assert.are.same({ "_F_PN", "TF_CONFIG" }, { f2["ps-0"].env[1].name, f2["ps-0"].env[2].name })
  end)
end)

local KUBEXEC = '#!/bin/sh\nset -x\nPOD_NAME=$1\nshift\n/opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c "$*"'

describe("job:environment, MPIJob kubeflow.org/v1 (FACTS §8.2.3)", function()
  local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 }
  local launcher = {
    "OMPI_MCA_plm_rsh_agent=/etc/mpi/kubexec.sh", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
    "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
    "I_MPI_HYDRA_BOOTSTRAP=rsh", "I_MPI_HYDRA_BOOTSTRAP_EXEC=/etc/mpi/kubexec.sh",
  }

  it("gives the launcher its env and the ConfigMap files, the workers only kubexec.sh", function()
    local env = job:environment{ name = "mpi-example" }
    assert.are.same({ "launcher-0", "worker-0", "worker-1" }, keys(env))
    assert.are.same(launcher, lines(env["launcher-0"]))
    assert.are.same({
      ["/etc/mpi/kubexec.sh"] = KUBEXEC,
      ["/etc/mpi/hostfile"] = "mpi-example-worker-0 slots=2\nmpi-example-worker-1 slots=2\n",
      ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho mpi-example-worker-0:2\necho mpi-example-worker-1:2",
    }, env["launcher-0"].files)
    for i = 0, 1 do
      assert.are.same({}, env["worker-" .. i].env)
      assert.are.same({ ["/etc/mpi/kubexec.sh"] = KUBEXEC }, env["worker-" .. i].files)
    end
  end)

  it("lists a GPU launcher in the hostfile and keeps its GPUs visible", function()
    local env = kfjob.MPIJob{ worker = { replicas = 1 }, launcher = { limits = { gpu = 1 } } }
      :environment{ name = "m" }
    assert.are.same({
      "OMPI_MCA_plm_rsh_agent=/etc/mpi/kubexec.sh", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
      "I_MPI_HYDRA_BOOTSTRAP=rsh", "I_MPI_HYDRA_BOOTSTRAP_EXEC=/etc/mpi/kubexec.sh",
    }, lines(env["launcher-0"]))
    assert.are.equal("m-launcher slots=1\nm-worker-0 slots=1\n", env["launcher-0"].files["/etc/mpi/hostfile"])
    assert.are.equal("#!/bin/sh\necho m-launcher:1\necho m-worker-0:1",
                     env["launcher-0"].files["/etc/mpi/discover_hosts.sh"])
  end)

  it("sorts discover_hosts.sh by pod name (worker-10 before worker-2)", function()
    local env = kfjob.MPIJob{ worker = { replicas = 11 } }:environment{ name = "m" }
    local want = { "#!/bin/sh" }
    for _, i in ipairs({ 0, 1, 10, 2, 3, 4, 5, 6, 7, 8, 9 }) do want[#want + 1] = "echo m-worker-" .. i .. ":1" end
    assert.are.equal(table.concat(want, "\n"), env["launcher-0"].files["/etc/mpi/discover_hosts.sh"])
    local hosts = {}
    for i = 0, 10 do hosts[#hosts + 1] = "m-worker-" .. i .. " slots=1\n" end
    assert.are.equal(table.concat(hosts), env["launcher-0"].files["/etc/mpi/hostfile"])
  end)

  it("keeps the user's I_MPI_HYDRA_BOOTSTRAP and adds none (hasIntelMPIBootstrapValues)", function()
    local env = job:environment{ name = "m", env = { I_MPI_HYDRA_BOOTSTRAP = "ssh" } }
    assert.are.same({
      "I_MPI_HYDRA_BOOTSTRAP=ssh",
      "OMPI_MCA_plm_rsh_agent=/etc/mpi/kubexec.sh", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
      "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
      "I_MPI_HYDRA_BOOTSTRAP_EXEC=/etc/mpi/kubexec.sh",
    }, lines(env["launcher-0"]))
  end)

  it("on Flyte the hostfile says slots=1 whatever the job's slots (mpi.go never reads v1 slots)", function()
    for _, t in ipairs({ "flyte", "flyte2" }) do
      local env = job:environment{ name = "m", target = t }
      assert.are.equal("m-worker-0 slots=1\nm-worker-1 slots=1\n", env["launcher-0"].files["/etc/mpi/hostfile"])
      assert.are.equal("#!/bin/sh\necho m-worker-0:1\necho m-worker-1:1",
                       env["launcher-0"].files["/etc/mpi/discover_hosts.sh"])
    end
    local f2 = job:environment{ name = "m", target = "flyte2" }
    assert.are.same(concat({ "_F_PN<-metadata.name" }, launcher), lines(f2["launcher-0"]))
    assert.are.same({ "_F_PN<-metadata.name" }, lines(f2["worker-1"]))
    local f1 = job:environment{ name = "m", target = "flyte" }
    assert.are.same({}, f1["worker-1"].env)   -- _F_WN is PyTorch only
  end)

  it("gives a HorovodJob the same (it is an MPIJob)", function()
    local h = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2 }
    assert.are.same(job:environment{ name = "mpi-example" }, h:environment{ name = "mpi-example" })
  end)
end)

describe("job:environment, mpi-operator MPIJob v2beta1 (FACTS §8.2.4, §8.3.3)", function()
  local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 }

  it("gives the launcher K_MPI_JOB_ROLE, the OpenMPI variables and FQDN files", function()
    local env = job:environment{ name = "mpi-example", target = "mpi-operator" }
    assert.are.same({ "launcher-0", "worker-0", "worker-1" }, keys(env))
    assert.are.same({
      "K_MPI_JOB_ROLE=launcher", "OMPI_MCA_orte_keep_fqdn_hostnames=true",
      "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile", "OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10",
      "OMPI_MCA_orte_set_default_slots=2", "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
    }, lines(env["launcher-0"]))
    -- the §8.3.3 example's hostfile
    assert.are.same({
      ["/etc/mpi/hostfile"] = "mpi-example-worker-0.mpi-example.default.svc slots=2\n" ..
                              "mpi-example-worker-1.mpi-example.default.svc slots=2\n",
      ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho mpi-example-worker-0.mpi-example.default.svc\n" ..
                                       "echo mpi-example-worker-1.mpi-example.default.svc\n",
    }, env["launcher-0"].files)
    for i = 0, 1 do
      assert.are.same({ "K_MPI_JOB_ROLE=worker" }, lines(env["worker-" .. i]))
      assert.are.same({}, env["worker-" .. i].files)
    end
  end)

  it("uses the namespace in host names and appends after the user's variables", function()
    local env = kfjob.HorovodJob{ worker = { replicas = 1 } }
      :environment{ name = "h", namespace = "team", target = "mpi-operator", env = { K_MPI_JOB_ROLE = "x" } }
    assert.are.same({ "K_MPI_JOB_ROLE=x", "K_MPI_JOB_ROLE=worker" }, lines(env["worker-0"]))
    assert.are.equal("h-worker-0.h.team.svc slots=1\n", env["launcher-0"].files["/etc/mpi/hostfile"])
  end)

  -- FACTS §8.2.4 table: launcher env and hostfile by spec.mpiImplementation
  it("gives an Intel MPI launcher the I_MPI_* variables and <host>:<s> hostfile lines", function()
    local env = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2, mpi_implementation = "Intel" }
      :environment{ name = "im", namespace = "hpc", target = "mpi-operator" }
    assert.are.same({
      "K_MPI_JOB_ROLE=launcher", "I_MPI_HYDRA_HOST_FILE=/etc/mpi/hostfile",
      "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS=-o ConnectionAttempts=10", "I_MPI_PERHOST=2",
      "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
    }, lines(env["launcher-0"]))
    assert.are.same({
      ["/etc/mpi/hostfile"] = "im-worker-0.im.hpc.svc:2\nim-worker-1.im.hpc.svc:2\n",
      ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho im-worker-0.im.hpc.svc\necho im-worker-1.im.hpc.svc\n",
    }, env["launcher-0"].files)
    assert.are.same({ "K_MPI_JOB_ROLE=worker" }, lines(env["worker-1"]))
  end)

  it("gives an MPICH launcher the HYDRA_* variables (no slot variable) and <host>:<s> lines", function()
    local env = kfjob.MPIJob{ worker = { replicas = 1 }, slots = 3, mpi_implementation = "MPICH" }
      :environment{ name = "mc", target = "mpi-operator" }
    assert.are.same({
      "K_MPI_JOB_ROLE=launcher", "HYDRA_HOST_FILE=/etc/mpi/hostfile",
      "HYDRA_LAUNCH_EXTRA_ARGS=-o ConnectionAttempts=10",
      "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
    }, lines(env["launcher-0"]))
    assert.are.equal("mc-worker-0.mc.default.svc:3\n", env["launcher-0"].files["/etc/mpi/hostfile"])
  end)

  it("gives an explicit OpenMPI the same as the default", function()
    local o = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2, mpi_implementation = "OpenMPI" }
    assert.are.same(job:environment{ name = "mpi-example", target = "mpi-operator" },
                    o:environment{ name = "mpi-example", target = "mpi-operator" })
  end)

  -- FACTS §8.2.4 table: runLauncherAsWorker puts the launcher first in
  -- both files and keeps its GPUs (no NVIDIA_* blanking)
  it("lists the launcher as a host and keeps its GPUs with run_launcher_as_worker", function()
    local env = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 2, run_launcher_as_worker = true }
      :environment{ name = "hv", namespace = "team", target = "mpi-operator" }
    assert.are.same({ "launcher-0", "worker-0", "worker-1" }, keys(env))
    assert.are.same({
      "K_MPI_JOB_ROLE=launcher", "OMPI_MCA_orte_keep_fqdn_hostnames=true",
      "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile", "OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10",
      "OMPI_MCA_orte_set_default_slots=2",
    }, lines(env["launcher-0"]))
    assert.are.same({
      ["/etc/mpi/hostfile"] = "hv-launcher.hv.team.svc slots=2\nhv-worker-0.hv.team.svc slots=2\n" ..
                              "hv-worker-1.hv.team.svc slots=2\n",
      ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho hv-launcher.hv.team.svc\n" ..
                                       "echo hv-worker-0.hv.team.svc\necho hv-worker-1.hv.team.svc\n",
    }, env["launcher-0"].files)
    assert.are.same({ "K_MPI_JOB_ROLE=worker" }, lines(env["worker-0"]))
  end)

  it("combines run_launcher_as_worker with MPICH: <host>:<s> launcher line, no NVIDIA_*", function()
    local env = kfjob.MPIJob{ worker = { replicas = 1 }, run_launcher_as_worker = true, mpi_implementation = "MPICH" }
      :environment{ name = "lw", namespace = "mpi", target = "mpi-operator" }
    assert.are.same({
      "K_MPI_JOB_ROLE=launcher", "HYDRA_HOST_FILE=/etc/mpi/hostfile",
      "HYDRA_LAUNCH_EXTRA_ARGS=-o ConnectionAttempts=10",
    }, lines(env["launcher-0"]))
    assert.are.same({
      ["/etc/mpi/hostfile"] = "lw-launcher.lw.mpi.svc:1\nlw-worker-0.lw.mpi.svc:1\n",
      ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho lw-launcher.lw.mpi.svc\necho lw-worker-0.lw.mpi.svc\n",
    }, env["launcher-0"].files)
  end)
end)

describe("job:environment, Trainer TrainJob torch (FACTS §8.2.5, §8.4.4)", function()
  local function node(tj, nodes, nproc)
    return {
      "PET_NNODES=" .. nodes, "PET_NPROC_PER_NODE=" .. nproc,
      "PET_NODE_RANK<-metadata.annotations['batch.kubernetes.io/job-completion-index']",
      "PET_MASTER_ADDR=" .. tj .. "-node-0-0." .. tj, "PET_MASTER_PORT=29500",
    }
  end

  for _, t in ipairs({ "trainer-2.2", "trainer-2.3" }) do
    it(t .. ": a PyTorchJob is 1 + workers nodes, one process each", function()
      local env = kfjob.PyTorchJob{ worker = { replicas = 3 } }:environment{ name = "tj", target = t }
      assert.are.same({ "node-0-0", "node-0-1", "node-0-2", "node-0-3" }, keys(env))
      for i = 0, 3 do assert.are.same(node("tj", 4, 1), lines(env["node-0-" .. i])) end
    end)

    it(t .. ": an Elastic job with a fixed nnodes maps; a range is an error", function()
      local env = kfjob.Elastic{ nnodes = 2, nproc_per_node = 4 }:environment{ name = "e", target = t }
      assert.are.same({ "node-0-0", "node-0-1" }, keys(env))
      assert.are.same(node("e", 2, 4), lines(env["node-0-1"]))
      local el = kfjob.Elastic{ nnodes = "2:4" }
      assert.matches("target " .. t:gsub("%p", "%%%0"), util.error_of(el.environment, el, { name = "e", target = t }))
    end)

    it(t .. ": a user PET_* variable is rejected (R16), MASTER_ADDR is not", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
      assert.are.equal("kfjob.PyTorchJob: opts.env.PET_NODE_RANK: PET_NODE_RANK is reserved by "
                       .. "Trainer's torch runtime: the TrainJob webhook rejects it (must not "
                       .. "have reserved envs) (target " .. t .. ")",
                       util.error_of(job.environment, job, { name = "tj", target = t, env = { PET_NODE_RANK = "0" } }))
      local env = job:environment{ name = "tj", target = t, env = { MASTER_ADDR = "x" } }
      assert.are.same(concat({ "MASTER_ADDR=x" }, node("tj", 2, 1)), lines(env["node-0-1"]))
    end)
  end
end)

describe("job:environment errors", function()
  local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }

  it("requires a valid opts.name", function()
    assert.are.equal("kfjob.environment: opts.name: required (the resource name, a DNS-1035 label)",
                     util.error_of(job.environment, job))
    assert.matches("^kfjob.environment: opts.name: 'Bad_Name' is not a DNS%-1035 label",
                   util.error_of(job.environment, job, { name = "Bad_Name" }))
    assert.matches("^kfjob.environment: opts.name: too long for this job",
                   util.error_of(job.environment, job, { name = ("a"):rep(60) }))
    -- a DNS-1035 label has at most 63 characters, on every target
    assert.matches("is not a DNS%-1035 label %(at most 63 characters%)$",
                   util.error_of(job.environment, job, { name = ("a"):rep(64), target = "flyte" }))
  end)

  it("names a misspelt target with a did-you-mean", function()
    assert.are.equal("kfjob.environment: opts.target: unknown target 'operater' (did you mean 'operator'?)",
                     util.error_of(job.environment, job, { name = "j", target = "operater" }))
  end)

  it("refuses a kind the target does not run", function()
    local tf = kfjob.TFJob{ worker = { replicas = 2 } }
    assert.matches("^kfjob.environment: target 'trainer%-2.3' does not run a TFJob",
                   util.error_of(tf.environment, tf, { name = "j", target = "trainer-2.3" }))
    assert.matches("^kfjob.environment: target 'mpi%-operator' does not run a PyTorchJob",
                   util.error_of(job.environment, job, { name = "j", target = "mpi-operator" }))
  end)

  it("has limits on the pods and on TF_CONFIG (docs/LIMITS.md)", function()
    local big = kfjob.PyTorchJob{ worker = { replicas = 100000 } }
    assert.are.equal("kfjob.environment: 100001 pods are more than the limit of 100000 whose environment kfjob lists",
                     util.error_of(big.environment, big, { name = "j" }))
    local tf = kfjob.TFJob{ worker = { replicas = 5000 } }
    assert.are.equal("kfjob.environment: the TF_CONFIG of 5000 pods would take more than the limit of 64 MiB",
                     util.error_of(tf.environment, tf, { name = "j" }))
    -- 100 workers: each TF_CONFIG holds the 100 addresses
    local env = kfjob.TFJob{ worker = { replicas = 100 } }:environment{ name = "j" }
    assert.are.equal(100, #json.decode(env["worker-99"].env[1].value).cluster.worker)
    assert.are.equal("j-worker-99.default.svc:2222", json.decode(env["worker-0"].env[1].value).cluster.worker[100])
  end)

  it("checks opts", function()
    assert.matches('opts.env%["1X"%]: invalid environment variable name',
                   util.error_of(job.environment, job, { name = "j", env = { ["1X"] = "v" } }))
    assert.matches("opts.namespace: 'Bad' is not a DNS%-1123 label",
                   util.error_of(job.environment, job, { name = "j", namespace = "Bad" }))
    assert.matches("opts.imag", util.error_of(job.environment, job, { name = "j", imag = "x" }))
    assert.matches("opts.env.A: expected a string, got number",
                   util.error_of(job.environment, job, { name = "j", env = { A = 1 } }))
  end)
end)

-- R16 warnings reach lint{target=, env=} once lint reads the rule rows
-- (issue 19a); until then these are pending.
describe("R16 warnings in lint{target=, env=}", function()
  local job = kfjob.PyTorchJob{ worker = { replicas = 1 } }
  local function r16(list)
    for _, w in ipairs(list) do
      if w.rule == "R16" then return w end
    end
  end
  local ready = r16(job:lint{ target = "operator", env = { WORLD_SIZE = "1" } }) ~= nil

  it("warns that the operator's WORLD_SIZE wins", function()
    if not ready then return pending("lint does not read the rule rows yet (19a)") end
    for _, t in ipairs({ "flyte", "flyte2", "operator" }) do
      local w = r16(job:lint{ target = t, env = { WORLD_SIZE = "1" } })
      assert.are.equal("opts.env.WORLD_SIZE", w.path)
      assert.are.equal("WORLD_SIZE is also set by the operator on every pod: the "
                       .. "operator's value wins (its entry comes after yours)", w.message)
    end
  end)

  it("warns that Flyte's _F_WN wins on the workers, and that the user's I_MPI_HYDRA_BOOTSTRAP wins", function()
    if not ready then return pending("lint does not read the rule rows yet (19a)") end
    local w = r16(job:lint{ target = "flyte", env = { _F_WN = "x" } })
    assert.are.equal("_F_WN is also set by Flyte on worker-0: Flyte's value wins there "
                     .. "(its entry comes after yours)", w.message)
    local mpi = kfjob.MPIJob{ worker = { replicas = 1 } }
    w = r16(mpi:lint{ target = "operator", env = { I_MPI_HYDRA_BOOTSTRAP = "ssh" } })
    assert.matches("your value wins", w.message)
    assert.is_nil(r16(mpi:lint{ target = "operator", env = { UNRELATED = "1" } }))
  end)
end)

-- FACTS §8.2.6: JAXJob and XGBoostJob on the operator, appended to every
-- container; PaddleJob's from the training-operator source (below).
describe("job:environment, JAXJob / XGBoostJob / PaddleJob (FACTS §8.2.6)", function()
  it("JAXJob: the coordinator is worker 0, each pod its process id", function()
    local env = kfjob.JAXJob{ worker = { replicas = 3 } }:environment{ name = "jx" }
    assert.are.same({ "worker-0", "worker-1", "worker-2" }, keys(env))
    for i = 0, 2 do
      assert.are.same({ "PYTHONUNBUFFERED=1", "COORDINATOR_PORT=6666",
                        "COORDINATOR_ADDRESS=jx-worker-0", "NUM_PROCESSES=3",
                        "PROCESS_ID=" .. i }, lines(env["worker-" .. i]))
    end
  end)

  it("JAXJob: the jaxjob-port of the pod template's container wins", function()
    local job = kfjob.JAXJob{ worker = { replicas = 1 }, pod_template = { spec = { containers = {
      { name = "primary", ports = { { name = "jaxjob-port", containerPort = 7000 } } } } } } }
    assert.are.same({ "PYTHONUNBUFFERED=1", "COORDINATOR_PORT=7000",
                      "COORDINATOR_ADDRESS=j-worker-0", "NUM_PROCESSES=1", "PROCESS_ID=0" },
                    lines(job:environment{ name = "j" }["worker-0"]))
  end)

  it("XGBoostJob: ranks count the master first; worker addresses when distributed", function()
    local env = kfjob.XGBoostJob{ worker = { replicas = 2 } }:environment{ name = "xg" }
    assert.are.same({ "master-0", "worker-0", "worker-1" }, keys(env))
    local function want(rank)
      return { "MASTER_PORT=9999", "MASTER_ADDR=xg-master-0", "WORLD_SIZE=3", "RANK=" .. rank,
               "PYTHONUNBUFFERED=1", "WORKER_PORT=9999", "WORKER_ADDRS=xg-worker-0,xg-worker-1" }
    end
    assert.are.same(want(0), lines(env["master-0"]))
    assert.are.same(want(1), lines(env["worker-0"]))
    assert.are.same(want(2), lines(env["worker-1"]))
  end)

  it("XGBoostJob: a master alone gets no worker variables", function()
    local env = kfjob.XGBoostJob{}:environment{ name = "xg" }
    assert.are.same({ "MASTER_PORT=9999", "MASTER_ADDR=xg-master-0", "WORLD_SIZE=1", "RANK=0",
                      "PYTHONUNBUFFERED=1" }, lines(env["master-0"]))
  end)

  -- PaddleJob: expected values written from training-operator v1.9
  -- pkg/controller.v1/paddlepaddle/envvar.go setPodEnv (PYTHONUNBUFFERED,
  -- PADDLE_JOB_ID = the job name, PADDLE_NNODES = getTotalReplicas; with a
  -- Master "PS mode": master 0 gets POD_IP_DUMMY from status.podIP and
  -- PADDLE_MASTER=$(POD_IP_DUMMY):port, every other pod
  -- <name>-master-0:port (replicaName), masters PADDLE_SERVER_NUM=1,
  -- workers PADDLE_TRAINER_NUM=1; without a Master "collective mode",
  -- worker 0 the rendezvous pod and no *_NUM), the port from
  -- getPortFromPaddleJob (the "master" port, else PaddleJobDefaultPort
  -- 36543 in paddlepaddle_types.go).
  it("PaddleJob with a master (PS mode): master 0 is the rendezvous pod", function()
    local env = kfjob.PaddleJob{ worker = { replicas = 2 } }:environment{ name = "pd" }
    assert.are.same({ "master-0", "worker-0", "worker-1" }, keys(env))
    assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd", "PADDLE_NNODES=3",
                      "POD_IP_DUMMY<-status.podIP", "PADDLE_MASTER=$(POD_IP_DUMMY):36543",
                      "PADDLE_SERVER_NUM=1" }, lines(env["master-0"]))
    for i = 0, 1 do
      assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd", "PADDLE_NNODES=3",
                        "PADDLE_MASTER=pd-master-0:36543", "PADDLE_TRAINER_NUM=1" },
                      lines(env["worker-" .. i]))
      assert.are.same({}, env["worker-" .. i].files)
    end
  end)

  it("PaddleJob with two masters: only master 0 reads its own IP", function()
    local env = kfjob.PaddleJob{ master = { replicas = 2 }, worker = { replicas = 1 } }
      :environment{ name = "pd" }
    assert.are.same({ "master-0", "master-1", "worker-0" }, keys(env))
    assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd", "PADDLE_NNODES=3",
                      "PADDLE_MASTER=pd-master-0:36543", "PADDLE_SERVER_NUM=1" },
                    lines(env["master-1"]))
    assert.are.same("PADDLE_MASTER=$(POD_IP_DUMMY):36543", lines(env["master-0"])[5])
  end)

  it("PaddleJob without a master (collective mode): worker 0 is the rendezvous pod", function()
    local env = kfjob.PaddleJob{ master = { replicas = 0 }, worker = { replicas = 3 } }
      :environment{ name = "col" }
    assert.are.same({ "worker-0", "worker-1", "worker-2" }, keys(env))
    assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=col", "PADDLE_NNODES=3",
                      "POD_IP_DUMMY<-status.podIP", "PADDLE_MASTER=$(POD_IP_DUMMY):36543" },
                    lines(env["worker-0"]))
    for i = 1, 2 do
      assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=col", "PADDLE_NNODES=3",
                        "PADDLE_MASTER=col-worker-0:36543" }, lines(env["worker-" .. i]))
    end
  end)

  it("PaddleJob: a master alone is one server", function()
    local env = kfjob.PaddleJob{}:environment{ name = "solo" }
    assert.are.same({ "master-0" }, keys(env))
    assert.are.same({ "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=solo", "PADDLE_NNODES=1",
                      "POD_IP_DUMMY<-status.podIP", "PADDLE_MASTER=$(POD_IP_DUMMY):36543",
                      "PADDLE_SERVER_NUM=1" }, lines(env["master-0"]))
  end)

  it("PaddleJob: the template's 'master' port wins; the user's variables come first", function()
    local job = kfjob.PaddleJob{ worker = { replicas = 1 }, pod_template = { spec = { containers = {
      { name = "primary", ports = { { name = "master", containerPort = 37000 } },
        env = { { name = "GLOG_v", value = "3" } } } } } } }
    local env = job:environment{ name = "pd", env = { FLAGS_x = "1" } }
    assert.are.same({ "FLAGS_x=1", "GLOG_v=3", "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd",
                      "PADDLE_NNODES=2", "PADDLE_MASTER=pd-master-0:37000", "PADDLE_TRAINER_NUM=1" },
                    lines(env["worker-0"]))
    assert.are.same("PADDLE_MASTER=$(POD_IP_DUMMY):37000", lines(env["master-0"])[7])
  end)

  -- getPortFromPaddleJob reads the rendezvous group's template only
  -- (Master in PS mode, Worker without a master); kfjob's group template
  -- is merged over the job's, its `ports` list replacing the job's.
  it("PaddleJob: the port comes from the rendezvous group's own template", function()
    local function ports(p) return { spec = { containers = { { name = "primary", ports = p } } } } end
    local ps = kfjob.PaddleJob{ pod_template = ports{ { name = "master", containerPort = 37000 } },
      master = { replicas = 1, pod_template = ports{ { name = "master", containerPort = 7000 } } },
      worker = { replicas = 1, pod_template = ports{ { name = "master", containerPort = 9000 } } } }
    local env = ps:environment{ name = "pd" }
    assert.are.same("PADDLE_MASTER=$(POD_IP_DUMMY):7000", lines(env["master-0"])[5])
    assert.are.same("PADDLE_MASTER=pd-master-0:7000", lines(env["worker-0"])[4])
    -- the worker group's template is not the rendezvous group's: the job's port
    local w = kfjob.PaddleJob{ pod_template = ports{ { name = "master", containerPort = 37000 } },
      worker = { replicas = 1, pod_template = ports{ { name = "master", containerPort = 9000 } } } }
    assert.are.same("PADDLE_MASTER=pd-master-0:37000", lines(w:environment{ name = "pd" }["worker-0"])[4])
    -- collective: the worker group's; a group list without "master" replaces the job's
    local col = kfjob.PaddleJob{ master = { replicas = 0 },
      worker = { replicas = 2, pod_template = ports{ { name = "master", containerPort = 9000 } } } }
    assert.are.same("PADDLE_MASTER=col-worker-0:9000", lines(col:environment{ name = "col" }["worker-1"])[4])
    local other = kfjob.PaddleJob{ pod_template = ports{ { name = "master", containerPort = 37000 } },
      master = { replicas = 1, pod_template = ports{ { name = "http", containerPort = 80 } } } }
    assert.are.same("PADDLE_MASTER=$(POD_IP_DUMMY):36543", lines(other:environment{ name = "pd" }["master-0"])[5])
  end)

  it("PaddleJob: a user's PADDLE_MASTER is overridden by the operator's (R16 warning)", function()
    local job = kfjob.PaddleJob{ worker = { replicas = 1 } }
    local found
    for _, w in ipairs(job:lint{ target = "operator", env = { PADDLE_MASTER = "x:1" } }) do
      if w.rule == "R16" then found = w end
    end
    assert.is_truthy(found)
    assert.are.equal("opts.env.PADDLE_MASTER", found.path)
    assert.are.equal("PADDLE_MASTER is also set by the operator on every pod: the "
                     .. "operator's value wins (its entry comes after yours)", found.message)
  end)

  it("the Flyte targets do not run them", function()
    local job = kfjob.JAXJob{ worker = { replicas = 1 } }
    local ok, err = pcall(job.environment, job, { name = "j", target = "flyte" })
    assert.is_false(ok)
    assert.matches("target 'flyte' does not run a JAXJob", err, 1, true)
  end)
end)
