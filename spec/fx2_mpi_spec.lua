-- MPIJob and HorovodJob reading: faults a regression tester found (fx2_mpi).
-- Expected values are what the manifest as written runs (FACTS §11: the
-- mpi-operator starts sshd in a worker without command or args, the v1
-- training-operator `sleep 365d` in one without a command; SPEC §16-17
-- Law 3), never kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

-- flytekit's mpirun flags (the line kfjob writes), then -np and the program
local LINE = { "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
               "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
               "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np", "2", "t.py" }

local function flow(list)
  local t = {}
  for i, s in ipairs(list) do t[i] = string.format("%q", s) end
  return "[" .. table.concat(t, ", ") .. "]"
end

-- An MPIJob whose Launcher and Worker containers are given as YAML flow
-- mappings' inner text (after `image: img, name: mpi`).
local function mpijob(api, launcher, worker)
  return ([[
apiVersion: %s
kind: MPIJob
metadata:
  name: both
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - {image: img, name: mpi%s}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {image: img, name: mpi%s}
]]):format(api, launcher, worker)
end

local EXT = { lua = ".lua", config = ".json", ["config-yaml"] = ".yaml" }

-- kfjob convert -f FORMAT, then render for the target: the manifest read.
local function through(text, format, target)
  local code, out, err = util.conv(text, "-f", format)
  assert.are.equal(0, code, err)
  local cf = util.tmp(out, EXT[format])
  local c2, o2, e2 = util.kfjob("render", cf, "-f", "manifest", "--target", target)
  os.remove(cf)
  assert.are.equal(0, c2, e2)
  return util.doc1(o2)
end

local function ctr(doc, role)
  return util.dig(doc, "spec.mpiReplicaSpecs." .. role .. ".template.spec.containers.1")
end

describe("a worker written with the launcher's line keeps it (Law 3)", function()
  it("v2beta1: both groups' args the mpirun line, no command", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local m = mpijob("kubeflow.org/v2beta1", ", args: " .. flow(LINE), ", args: " .. flow(LINE))
    for _, f in ipairs({ "lua", "config", "config-yaml" }) do
      local d = through(m, f, "mpi-operator")
      assert.are.same(LINE, ctr(d, "Worker").args, f)
      assert.are.same(LINE, ctr(d, "Launcher").args, f)
      assert.is_nil(ctr(d, "Worker").command, f)
    end
    local job = assert(kfjob.from_manifest(m))
    local d = job:manifest{ target = "mpi-operator", name = "both" }
    assert.are.same(LINE, ctr(d, "Worker").args)
  end)

  it("v2beta1: the worker's line with a launcher running its own", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local m = mpijob("kubeflow.org/v2beta1", ", args: [mpirun, -np, '2', python, t.py]",
                     ", args: " .. flow(LINE))
    local d = through(m, "lua", "mpi-operator")
    assert.are.same(LINE, ctr(d, "Worker").args)
    assert.are.same({ "mpirun", "-np", "2", "python", "t.py" }, ctr(d, "Launcher").args)
  end)

  it("v1: a launcher with a command of its own, both with the line", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local m = mpijob("kubeflow.org/v1", ", command: [/bin/sh], args: " .. flow(LINE),
                     ", args: " .. flow(LINE))
    for _, f in ipairs({ "lua", "config" }) do
      local d = through(m, f, "operator")
      assert.are.same(LINE, ctr(d, "Worker").args, f)
      assert.is_nil(ctr(d, "Worker").command, f)
      assert.are.same({ "/bin/sh" }, ctr(d, "Launcher").command, f)
      assert.are.same(LINE, ctr(d, "Launcher").args, f)
    end
  end)

  it("v1 with no command: the line stays the job's (the operator gives it to every group)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local m = mpijob("kubeflow.org/v1", ", args: " .. flow(LINE), ", args: " .. flow(LINE))
    local job = assert(kfjob.from_manifest(m))
    assert.are.same({ "t.py" }, job.container.args)
    local d = through(m, "lua", "operator")
    assert.are.same(LINE, ctr(d, "Worker").args)
  end)

  it("Law 1: kfjob's own job-level args read back as the job's, the worker bare", function()
    local j = kfjob.MPIJob{ worker = { replicas = 2, image = "img" }, launcher = { image = "img" },
                            container = { args = { "t.py" } } }
    local h = kfjob.HorovodJob{ worker = { replicas = 2, image = "img" },
                                launcher = { image = "img" }, container = { args = { "t.py" } } }
    for _, job in ipairs({ j, h }) do
      for _, t in ipairs({ "mpi-operator", "operator" }) do
        local m = job:manifest{ target = t, name = "n" }
        local back = assert(kfjob.from_manifest(m))
        assert.is_true(back == job, t)
        assert.are.same(m, back:manifest{ target = t, name = "n" })
      end
    end
  end)
end)

describe("a launcher whose command is horovodrun is a HorovodJob (docs/IMPORT.md)", function()
  -- the mpi-operator's elastic Horovod example: horovodrun in the
  -- launcher's command, its flags in args
  local ELASTIC = [[
apiVersion: %s
kind: MPIJob
metadata:
  name: tensorflow-mnist-elastic
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: docker.io/kubeflow/mpi-horovod-mnist
            name: mpi-launcher
            command: [horovodrun]
            args: [-np, "2", --min-np, "1", --max-np, "3", --host-discovery-script,
                   /etc/mpi/discover_hosts.sh, python, /examples/elastic/tensorflow2_mnist_elastic.py]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: docker.io/kubeflow/mpi-horovod-mnist
            name: mpi-worker
]]
  local ARGS = { "-np", "2", "--min-np", "1", "--max-np", "3", "--host-discovery-script",
                 "/etc/mpi/discover_hosts.sh", "python", "/examples/elastic/tensorflow2_mnist_elastic.py" }
  for _, case in ipairs({ { "kubeflow.org/v1", "operator" }, { "kubeflow.org/v2beta1", "mpi-operator" } }) do
    it(case[1] .. ": the kind as the args-form line's, the command kept", function()
      if not util.cli_ok then return pending(util.CLI_ONLY) end
      local m = ELASTIC:format(case[1])
      local job = assert(kfjob.from_manifest(m))
      assert.are.equal("HorovodJob", job.kind)
      -- the same line written in args alone reads as HorovodJob too
      local inargs = m:gsub("command: %[horovodrun%]\n            args: %[", "args: [horovodrun, ")
      assert.are_not.equal(m, inargs)
      assert.are.equal("HorovodJob", assert(kfjob.from_manifest(inargs)).kind)
      for _, f in ipairs({ "lua", "config" }) do
        local d = through(m, f, case[2])
        assert.are.same({ "horovodrun" }, ctr(d, "Launcher").command, f)
        assert.are.same(ARGS, ctr(d, "Launcher").args, f)
        assert.is_nil(ctr(d, "Worker").args, f)
        assert.is_nil(ctr(d, "Worker").command, f)
      end
    end)
  end
end)
