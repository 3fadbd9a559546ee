-- Core module (issue 2; SPEC §2, §2.1, §2.2, §3, §3.1): constructors,
-- enums, resources, rules, reads, immutability, spec()/with()/==/tostring,
-- versions(), encode/decode. Exact messages of bad input live in
-- errors_spec.lua; wire bytes against the reference runtime in
-- conformance_spec.lua. Here expected bytes are spelled out with a tiny
-- protobuf writer so each test shows the message layout it pins down.
local kfjob = require "kfjob"
local pack = require("util").pack

-- ---- helpers ------------------------------------------------------------

local wire = require "wire"
local int, msg = wire.int, wire.msg
local NO_RESOURCES = msg(3)  -- `resources {}`: flytekit always sets it

local hex = wire.hex
local function assert_bytes(expected, actual) assert.are.equal(hex(expected), hex(actual)) end

-- Task type to decode with, per kind.
local TASK_TYPE = { TFJob = "tensorflow", PyTorchJob = "pytorch", Elastic = "pytorch",
  MPIJob = "mpi", HorovodJob = "mpi" }
local KINDS = { "TFJob", "PyTorchJob", "Elastic", "MPIJob", "HorovodJob" }
local GROUPS = { "Worker", "PS", "Chief", "Evaluator", "Master", "Launcher" }

-- Per kind: a job with every field set (v1 only) and one that version 0
-- can express (counts only).
local FULL = {
  TFJob = {
    worker = { replicas = 4, image = "tf:2", requests = { cpu = 0.5, mem = 1024, gpu = 8 },
      limits = { cpu = "500m", memory = "4Gi", ephemeral_storage = "10Gi" }, restart_policy = "OnFailure" },
    ps = { replicas = 2, image = "ps:1", restart_policy = "always" },
    chief = { replicas = 1, limits = { mem = "2Gi" } },
    evaluator = { replicas = 1, requests = { gpu = "1" } },
    run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 600,
      active_deadline_seconds = 36000, backoff_limit = 5 },
  },
  PyTorchJob = {
    worker = { replicas = 4, image = "pt:2", limits = { gpu = 2 }, restart_policy = 1 },
    master = { image = "pt:2", restart_policy = "RESTART_POLICY_ALWAYS" },
    run_policy = { clean_pod_policy = "CLEANPOD_POLICY_RUNNING", backoff_limit = 2 },
  },
  Elastic = {
    nnodes = "2:4", nproc_per_node = 8, max_restarts = 3, rdzv_backend = "etcd-v2",
    worker = { image = "pt:2", requests = { cpu = 4 }, restart_policy = "on_failure" },
    run_policy = { ttl_seconds_after_finished = 60 },
  },
  MPIJob = {
    worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" }, requests = { cpu = 2 } },
    launcher = { image = "mpi:1", command = { "mpirun", "python", "train.py" } },
    slots = 4, run_policy = { backoff_limit = 3 },
  },
  HorovodJob = {
    worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" } },
    launcher = { restart_policy = "Never", limits = { mem = "1Gi" } },
    slots = 2, run_policy = { clean_pod_policy = "none" },
  },
}
local COUNTS = {
  TFJob = { num_workers = 4, num_ps_replicas = 2, num_chief_replicas = 1, num_evaluator_replicas = 1 },
  PyTorchJob = { num_workers = 10 },
  Elastic = { nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 },
  MPIJob = { num_workers = 4, num_launcher_replicas = 1, slots = 2 },
  HorovodJob = { worker = { replicas = 3 }, slots = 2 },
}

-- ---- module --------------------------------------------------------------

describe("require 'kfjob'", function()
  it("exports the job and group constructors and RunPolicy", function()
    for _, name in ipairs(KINDS) do assert.is_function(kfjob[name], name) end
    for _, name in ipairs(GROUPS) do assert.is_function(kfjob[name], name) end
    assert.is_function(kfjob.RunPolicy)
    assert.is_function(kfjob.decode)
  end)

  it("exports the enum constants as their lowercase names", function()
    assert.same({ NEVER = "never", ON_FAILURE = "on_failure", ALWAYS = "always", EXIT_CODE = "exit_code" },
                kfjob.RestartPolicy)
    assert.same({ NONE = "none", RUNNING = "running", ALL = "all" }, kfjob.CleanPodPolicy)
  end)
end)

-- ---- enums -----------------------------------------------------------------

describe("enum spellings", function()
  local restart = {
    never = { "never", "Never", "RESTART_POLICY_NEVER", 0, kfjob.RestartPolicy.NEVER },
    on_failure = { "on_failure", "OnFailure", "RESTART_POLICY_ON_FAILURE", 1, 1.0,
      kfjob.RestartPolicy.ON_FAILURE },
    always = { "always", "Always", "RESTART_POLICY_ALWAYS", 2, kfjob.RestartPolicy.ALWAYS },
  }
  local clean = {
    none = { "none", "None", "CLEANPOD_POLICY_NONE", 0, kfjob.CleanPodPolicy.NONE },
    running = { "running", "Running", "CLEANPOD_POLICY_RUNNING", 1, kfjob.CleanPodPolicy.RUNNING },
    all = { "all", "All", "CLEANPOD_POLICY_ALL", 2, 2.0, kfjob.CleanPodPolicy.ALL },
  }

  for name, spellings in pairs(restart) do
    for _, s in ipairs(spellings) do
      it(("restart_policy = %q reads back as %q"):format(tostring(s), name), function()
        assert.equal(name, kfjob.Worker { restart_policy = s }.restart_policy)
        assert.equal(name, kfjob.TFJob { worker = { replicas = 1, restart_policy = s } }.worker.restart_policy)
      end)
    end
  end

  for name, spellings in pairs(clean) do
    for _, s in ipairs(spellings) do
      it(("clean_pod_policy = %q reads back as %q"):format(tostring(s), name), function()
        assert.equal(name, kfjob.RunPolicy { clean_pod_policy = s }.clean_pod_policy)
        assert.equal(name, kfjob.MPIJob { worker = { replicas = 1 },
          run_policy = { clean_pod_policy = s } }.run_policy.clean_pod_policy)
      end)
    end
  end

  it("defaults to never / none", function()
    assert.equal("never", kfjob.Worker {}.restart_policy)
    assert.equal("none", kfjob.RunPolicy {}.clean_pod_policy)
  end)
end)

-- ---- resources -------------------------------------------------------------

describe("resources", function()
  local function requests(r) return kfjob.Worker { requests = r }.requests end

  it("turns integers into their decimal string", function()
    assert.same({ cpu = "8", mem = "1024", gpu = "1", ephemeral_storage = "0" },
      requests { cpu = 8, mem = 1024, gpu = 1, ephemeral_storage = 0 })
  end)

  it("turns other numbers into their shortest decimal form", function()
    assert.same({ cpu = "0.5", mem = "0.1", gpu = "2" }, requests { cpu = 0.5, mem = 0.1, gpu = 2.0 })
    assert.same({ cpu = "0.3333333333333333", mem = "1e+20" }, requests { cpu = 1 / 3, mem = 1e20 })
  end)

  -- flytekit writes str(attribute); python3 -c 'print(str(1e-310), str(5e-324),
  -- str(2.2250738585072014e-308))' prints 1e-310 5e-324 2.2250738585072014e-308
  -- (a subnormal's shortest form is not its first 15 digits: a black-box tester
  -- found 9.99999999999997e-311)
  it("writes a subnormal number as Python's str does", function()
    assert.same({ cpu = "1e-310", mem = "5e-324", gpu = "2.2250738585072014e-308" },
                requests { cpu = 1e-310, mem = 5e-324, gpu = 2.2250738585072014e-308 })
  end)

  it("keeps quantity strings as given", function()
    local q = { cpu = "500m", mem = "4Gi", gpu = "1.5", ephemeral_storage = "1e3" }
    assert.same(q, requests(q))
    assert.same({ cpu = ".5", mem = "5.", gpu = "2E-1", ephemeral_storage = "1Ki" },
      requests { cpu = ".5", mem = "5.", gpu = "2E-1", ephemeral_storage = "1Ki" })
  end)

  -- apimachinery resource/suffix.go: "n" (10^-9) and "u" (10^-6) are decimal
  -- suffixes too, though quantity.go's grammar comment starts decimalSI at "m"
  -- (found by a black-box test against Kubernetes' grammar)
  it("takes the nano and micro suffixes, as Kubernetes parses them", function()
    assert.same({ cpu = "10n", mem = "5u" }, requests { cpu = "10n", mem = "5u" })
    local j = kfjob.TFJob { worker = { replicas = 1, requests = { cpu = "10n" }, limits = { cpu = "1u" } } }
    assert.equal(j, kfjob.decode("tensorflow", j:encode()))
    -- 10n <= 1u = 1000n: no "request over limit" warning
    for _, w in ipairs(j:lint { target = "operator", name = "x", image = "i" }) do
      assert.not_equal("worker.requests.cpu", w.path)
    end
    local over = kfjob.TFJob { worker = { replicas = 1, requests = { cpu = "2u" }, limits = { cpu = "1500n" } } }
    local found = false
    for _, w in ipairs(over:lint { target = "operator", name = "x", image = "i" }) do
      if w.path:find("requests.cpu", 1, true) or w.path:find("limits.cpu", 1, true) then found = true end
    end
    assert.is_true(found, "2u over 1500n is a request over its limit")
  end)

  -- BUG: -0.0 passes the "not negative" check and is formatted "-0" (kf_spec.c get_quantity).
  it("turns -0.0 into \"0\", a valid quantity", function()
    assert.same({ cpu = "0" }, requests { cpu = -0.0 })
  end)

  it("accepts 'memory' as an alias of 'mem'", function()
    assert.same({ mem = "4Gi" }, requests { memory = "4Gi" })
    assert.equal(kfjob.TFJob { worker = { replicas = 1, limits = { mem = "1Gi" } } },
      kfjob.TFJob { worker = { replicas = 1, limits = { memory = "1Gi" } } })
  end)

  it("reads back nil when not given and {} stays unset", function()
    assert.is_nil(kfjob.Worker {}.requests)
    assert.is_nil(kfjob.Worker { limits = {} }.limits)
  end)

  it("is emitted in the order CPU, MEMORY, GPU, EPHEMERAL_STORAGE whatever the table order", function()
    local job = kfjob.PyTorchJob { worker = { replicas = 1,
      requests = { ephemeral_storage = "1Gi", gpu = 1, memory = "2Gi", cpu = "500m" },
      limits = { gpu = 2, cpu = 1 } } }
    local entry = function(name, value) return msg(1, int(1, name), msg(2, value)) end
    local limit = function(name, value) return msg(2, int(1, name), msg(2, value)) end
    assert_bytes(msg(1, int(1, 1), msg(3,
        entry(1, "500m"), entry(3, "2Gi"), entry(2, "1"), entry(5, "1Gi"),
        limit(1, "1"), limit(2, "2")))
      .. msg(2, int(1, 1), NO_RESOURCES),
      job:encode())
  end)
end)

-- ---- group constructors and RunPolicy ---------------------------------------

describe("group constructors", function()
  local defaults = { Worker = 0, PS = 0, Chief = 0, Evaluator = 0, Master = 1, Launcher = 1 }

  for _, name in ipairs(GROUPS) do
    describe("kfjob." .. name, function()
      it("has defaults", function()
        local g = kfjob[name] {}
        assert.equal(defaults[name], g.replicas)
        assert.equal(name, g.kind)
        assert.is_nil(g.image)
        assert.equal("never", g.restart_policy)
        assert.equal(("kfjob.%s(replicas=%d)"):format(name, defaults[name]), tostring(g))
      end)

      it("reads back every field resolved", function()
        local g = kfjob[name] { replicas = defaults[name] == 1 and 1 or 0, image = "repo/img:1",
          requests = { cpu = 1 }, limits = { memory = "1Gi" }, restart_policy = "Always" }
        assert.equal("repo/img:1", g.image)
        assert.same({ cpu = "1" }, g.requests)
        assert.same({ mem = "1Gi" }, g.limits)
        assert.equal("always", g.restart_policy)
      end)

      it("copies another " .. name .. " object", function()
        local g = kfjob[name] { image = "a" }
        assert.equal("a", kfjob[name](g).image)
      end)
    end)
  end

  it("take a command only in MPI groups (Worker, Launcher)", function()
    assert.same({ "sshd", "-De" }, kfjob.Worker { command = { "sshd", "-De" } }.command)
    assert.same({ "mpirun" }, kfjob.Launcher { command = { "mpirun" } }.command)
    for _, name in ipairs { "PS", "Chief", "Evaluator", "Master" } do
      assert.has_error(function() kfjob[name] { command = { "x" } } end,
        ("kfjob.%s: command: only MPI and Horovod groups take a command"):format(name))
    end
  end)

  it("enforce per-group replica counts", function()
    assert.equal(1, kfjob.Chief { replicas = 1 }.replicas)
    assert.equal(1, kfjob.Evaluator { replicas = 1 }.replicas)
    assert.equal(1, kfjob.Master { replicas = 1 }.replicas)
    assert.equal(1000, kfjob.Worker { replicas = 1000 }.replicas)
    -- more than one chief or evaluator: a lint warning by target (R8, SPEC §11)
    assert.equal(2, kfjob.Chief { replicas = 2 }.replicas)
    assert.equal(2, kfjob.Evaluator { replicas = 2 }.replicas)
    assert.has_error(function() kfjob.Master { replicas = 0 } end, "kfjob.Master: replicas: must be 1 (got 0)")
    assert.has_error(function() kfjob.Launcher { replicas = 2 } end, "kfjob.Launcher: replicas: must be 1 (got 2)")
  end)
end)

describe("kfjob.RunPolicy", function()
  it("reads back every field; unset counts read 0", function()
    local rp = kfjob.RunPolicy { clean_pod_policy = "Running", ttl_seconds_after_finished = 600,
      active_deadline_seconds = 3600, backoff_limit = 3 }
    assert.equal("running", rp.clean_pod_policy)
    assert.equal(600, rp.ttl_seconds_after_finished)
    assert.equal(3600, rp.active_deadline_seconds)
    assert.equal(3, rp.backoff_limit)
    assert.equal(0, kfjob.RunPolicy {}.backoff_limit)
  end)

  it("is accepted by a job as an object or a table", function()
    local rp = kfjob.RunPolicy { backoff_limit = 2 }
    local a = kfjob.TFJob { worker = { replicas = 1 }, run_policy = rp }
    local b = kfjob.TFJob { worker = { replicas = 1 }, run_policy = { backoff_limit = 2 } }
    assert.equal(2, a.run_policy.backoff_limit)
    assert.equal(a, b)
  end)
end)

-- ---- job constructors ---------------------------------------------------------

describe("job constructors", function()
  describe("kfjob.TFJob", function()
    it("builds with defaults: ps, chief and evaluator 0, no run policy", function()
      local j = kfjob.TFJob { worker = { replicas = 2 } }
      assert.equal("TFJob", j.kind)
      assert.equal("tensorflow", j.task_type)
      assert.same({ 2, 0, 0, 0 }, { j.worker.replicas, j.ps.replicas, j.chief.replicas, j.evaluator.replicas })
      assert.is_nil(j.run_policy)
      assert.equal("kfjob.TFJob(worker=2, ps=0, chief=0, evaluator=0)", tostring(j))
    end)

    it("prints a run policy by its set fields, as groups and jobs print", function()
      local rp = kfjob.RunPolicy { backoff_limit = 3, clean_pod_policy = "all", ttl_seconds_after_finished = 0 }
      assert.equal("kfjob.RunPolicy(clean_pod_policy=all, ttl_seconds_after_finished=0, backoff_limit=3)",
        tostring(rp))
      assert.equal("kfjob.RunPolicy", getmetatable(rp))
      assert.equal("kfjob.Worker(replicas=2)", tostring(kfjob.Worker { replicas = 2 }))
    end)

    it("takes every field", function()
      local j = kfjob.TFJob(FULL.TFJob)
      assert.equal("ps:1", j.ps.image)
      assert.same({ mem = "2Gi" }, j.chief.limits)
      assert.same({ gpu = "1" }, j.evaluator.requests)
      assert.equal("all", j.run_policy.clean_pod_policy)
    end)

    it("accepts group objects", function()
      local j = kfjob.TFJob { worker = kfjob.Worker { replicas = 3 }, ps = kfjob.PS { replicas = 1 },
        chief = kfjob.Chief { replicas = 1 }, evaluator = kfjob.Evaluator { replicas = 1 } }
      assert.equal("kfjob.TFJob(worker=3, ps=1, chief=1, evaluator=1)", tostring(j))
    end)
  end)

  describe("kfjob.PyTorchJob", function()
    it("builds with a master of 1 replica", function()
      local j = kfjob.PyTorchJob { worker = { replicas = 4 } }
      assert.equal("PyTorchJob", j.kind)
      assert.equal("pytorch", j.task_type)
      assert.equal(1, j.master.replicas)
      assert.equal("kfjob.PyTorchJob(worker=4, master=1)", tostring(j))
    end)

    it("accepts master.replicas = 1 and group objects", function()
      local a = kfjob.PyTorchJob { worker = kfjob.Worker { replicas = 2 }, master = kfjob.Master { replicas = 1 } }
      assert.equal(a, kfjob.PyTorchJob { worker = { replicas = 2 }, master = {} })
    end)
  end)

  describe("kfjob.Elastic", function()
    it("defaults: nnodes 1, nproc_per_node 1, max_restarts 0, rdzv_backend c10d", function()
      local j = kfjob.Elastic {}
      -- max_restarts and rdzv_backend read their defaults; spec() holds them
      -- only when given (an operator manifest writes them only then)
      assert.same({ nnodes = 1, nproc_per_node = 1, worker = { restart_policy = "never" } }, j:spec())
      assert.equal(0, j.max_restarts)
      assert.equal("c10d", j.rdzv_backend)
      assert.equal("Elastic", j.kind)
      assert.equal("kfjob.Elastic(nnodes=1, nproc_per_node=1)", tostring(j))
    end)

    it("takes nnodes as an integer or \"MIN:MAX\"; the worker count follows the maximum", function()
      assert.equal(3, kfjob.Elastic { nnodes = 3 }.nnodes)
      assert.equal("2:4", kfjob.Elastic { nnodes = "2:4" }.nnodes)
      assert.equal(4, kfjob.Elastic { nnodes = "2:4" }.worker.replicas)
      assert.equal("kfjob.Elastic(nnodes=2:4, nproc_per_node=8)",
        tostring(kfjob.Elastic { nnodes = "2:4", nproc_per_node = 8 }))
    end)

    it("accepts every rendezvous backend", function()
      for _, b in ipairs { "c10d", "etcd", "etcd-v2" } do
        assert.equal(b, kfjob.Elastic { rdzv_backend = b }.rdzv_backend)
      end
    end)

    it("has task type python-task only for the integer nnodes = 1", function()
      assert.equal("python-task", kfjob.Elastic {}.task_type)
      assert.equal("python-task", kfjob.Elastic { nnodes = 1 }.task_type)
      assert.equal("pytorch", kfjob.Elastic { nnodes = 2 }.task_type)
      assert.equal("pytorch", kfjob.Elastic { nnodes = "2:4" }.task_type)
    end)

    -- BUG: the string forms leave the integer flag set (kf_spec.c parse_nnodes).
    it("has task type pytorch for nnodes = \"1\" and \"1:1\" (FACTS §2.4)", function()
      assert.equal("pytorch", kfjob.Elastic { nnodes = "1" }.task_type)
      assert.equal("pytorch", kfjob.Elastic { nnodes = "1:1" }.task_type)
      assert.are_not.equal(kfjob.Elastic { nnodes = 1 }, kfjob.Elastic { nnodes = "1" })
    end)

    it("takes a worker with image, resources and restart policy only", function()
      local w = kfjob.Elastic(FULL.Elastic).worker
      assert.same({ "pt:2", { cpu = "4" }, "on_failure" }, { w.image, w.requests, w.restart_policy })
      assert.has_error(function() kfjob.Elastic { worker = { replicas = 2 } } end,
        "kfjob.Elastic: worker.replicas: not settable here (an elastic job takes nnodes)")
    end)
  end)

  describe("kfjob.MPIJob", function()
    it("defaults: launcher 1, slots 1", function()
      local j = kfjob.MPIJob { worker = { replicas = 2 } }
      assert.same({ "MPIJob", "mpi", 1, 1 }, { j.kind, j.task_type, j.launcher.replicas, j.slots })
      assert.equal("kfjob.MPIJob(worker=2, launcher=1, slots=1)", tostring(j))
    end)

    it("takes commands on both groups", function()
      local j = kfjob.MPIJob(FULL.MPIJob)
      assert.same({ "/usr/sbin/sshd", "-De" }, j.worker.command)
      assert.same({ "mpirun", "python", "train.py" }, j.launcher.command)
      assert.equal(4, j.slots)
    end)
  end)

  describe("kfjob.HorovodJob", function()
    it("defaults as MPIJob plus verbose, log_level, discovery_script_path, elastic_timeout", function()
      local j = kfjob.HorovodJob { worker = { replicas = 2 } }
      assert.same({ "HorovodJob", "mpi" }, { j.kind, j.task_type })
      assert.same({
        worker = { replicas = 2, restart_policy = "never" }, launcher = { replicas = 1, restart_policy = "never" },
        slots = 1, verbose = false, log_level = "INFO",
        discovery_script_path = "/etc/mpi/discover_hosts.sh", elastic_timeout = 1200,
      }, j:spec())
      assert.equal("kfjob.HorovodJob(worker=2, launcher=1, slots=1)", tostring(j))
    end)

    it("takes the Horovod fields", function()
      local j = kfjob.HorovodJob { worker = { replicas = 2 }, verbose = true, log_level = "DEBUG",
        discovery_script_path = "/opt/discover.sh", elastic_timeout = 60 }
      assert.same({ true, "DEBUG", "/opt/discover.sh", 60 },
        { j.verbose, j.log_level, j.discovery_script_path, j.elastic_timeout })
    end)
  end)
end)

describe("deprecated counts", function()
  it("alone become the group's replicas", function()
    local j = kfjob.TFJob(COUNTS.TFJob)
    assert.same({ 4, 2, 1, 1 }, { j.worker.replicas, j.ps.replicas, j.chief.replicas, j.evaluator.replicas })
    assert.equal(kfjob.PyTorchJob { worker = { replicas = 10 } }, kfjob.PyTorchJob { num_workers = 10 })
    assert.equal(kfjob.MPIJob { worker = { replicas = 4 }, slots = 2 }, kfjob.MPIJob(COUNTS.MPIJob))
  end)

  it("read back resolved", function()
    assert.equal(4, kfjob.TFJob(COUNTS.TFJob).num_workers)
    assert.equal(3, kfjob.TFJob { worker = { replicas = 3 } }.num_workers)
  end)

  it("of 0 never conflict with the group's replicas", function()
    assert.equal(3, kfjob.TFJob { num_workers = 0, worker = { replicas = 3 } }.worker.replicas)
    assert.equal(2, kfjob.TFJob { num_workers = 2, worker = { replicas = 0 } }.worker.replicas)
  end)

  it("and the group's replicas both non-zero is an error naming both", function()
    assert.has_error(function() kfjob.TFJob { num_workers = 2, worker = { replicas = 3 } } end,
      "kfjob.TFJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)")
    assert.has_error(function() kfjob.MPIJob { num_workers = 2, worker = { replicas = 2 } } end,
      "kfjob.MPIJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)")
  end)
end)

-- ---- rules -----------------------------------------------------------------------

describe("rules", function()
  local cases = {
    { "PyTorch master = 1", "PyTorchJob", { worker = { replicas = 1 }, master = { replicas = 2 } },
      "kfjob.PyTorchJob: master.replicas: must be 0 or 1 (got 2)" },
    { "MPI launcher = 1", "MPIJob", { worker = { replicas = 1 }, launcher = { replicas = 0 } },
      "kfjob.MPIJob: launcher.replicas: must be 1 (got 0)" },
    { "Horovod launcher = 1", "HorovodJob", { worker = { replicas = 1 }, launcher = { replicas = 2 } },
      "kfjob.HorovodJob: launcher.replicas: must be 1 (got 2)" },
    { "elastic min >= 1", "Elastic", { nnodes = "0:2" }, "kfjob.Elastic: nnodes: needs 1 <= min <= max (got '0:2')" },
    { "elastic integer nnodes >= 1", "Elastic", { nnodes = 0 }, "kfjob.Elastic: nnodes: must be >= 1 (got 0)" },
    { "nproc_per_node >= 1", "Elastic", { nproc_per_node = 0 },
      "kfjob.Elastic: nproc_per_node: must be >= 1 (got 0)" },
    { "MPI slots >= 1", "MPIJob", { worker = { replicas = 1 }, slots = 0 },
      "kfjob.MPIJob: slots: must be >= 1 (got 0)" },
    { "Horovod slots >= 1", "HorovodJob", { worker = { replicas = 1 }, slots = 0 },
      "kfjob.HorovodJob: slots: must be >= 1 (got 0)" },
    { "command not in TFJob", "TFJob", { worker = { replicas = 1, command = { "x" } } },
      "kfjob.TFJob: worker.command: only MPI and Horovod groups take a command" },
    { "command not in PyTorchJob", "PyTorchJob", { worker = { replicas = 1 }, master = { command = { "x" } } },
      "kfjob.PyTorchJob: master.command: only MPI and Horovod groups take a command" },
    { "command not in Elastic", "Elastic", { worker = { command = { "x" } } },
      "kfjob.Elastic: worker.command: only MPI and Horovod groups take a command" },
    { "a Worker object with a command not in TFJob", "TFJob",
      { worker = kfjob.Worker { replicas = 1, command = { "x" } } },
      "kfjob.TFJob: worker.command: only MPI and Horovod groups take a command" },
    { "no PS in PyTorchJob", "PyTorchJob", { worker = { replicas = 1 }, ps = kfjob.PS {} },
      "kfjob.PyTorchJob: ps: unknown field" },
    { "a PS object is not a worker", "PyTorchJob", { worker = kfjob.PS { replicas = 2 } },
      "kfjob.PyTorchJob: worker: expected a kfjob.Worker or a table, got kfjob.PS" },
    { "a Master object is not a TF worker", "TFJob", { worker = kfjob.Master {} },
      "kfjob.TFJob: worker: expected a kfjob.Worker or a table, got kfjob.Master" },
    { "a Worker object is not a launcher", "MPIJob",
      { worker = { replicas = 1 }, launcher = kfjob.Worker { replicas = 1 } },
      "kfjob.MPIJob: launcher: expected a kfjob.Launcher or a table, got kfjob.Worker" },
    { "a group object is not a run policy", "TFJob", { worker = { replicas = 1 }, run_policy = kfjob.Chief {} },
      "kfjob.TFJob: run_policy: expected a kfjob.RunPolicy or a table, got kfjob.Chief" },
    { "no launcher in TFJob", "TFJob", { worker = { replicas = 1 }, launcher = {} },
      "kfjob.TFJob: launcher: unknown field" },
    { "no slots in PyTorchJob", "PyTorchJob", { worker = { replicas = 1 }, slots = 2 },
      "kfjob.PyTorchJob: slots: unknown field" },
    { "no Horovod fields in MPIJob", "MPIJob", { worker = { replicas = 1 }, verbose = true },
      "kfjob.MPIJob: verbose: unknown field" },
  }
  for _, c in ipairs(cases) do
    it(c[1], function()
      assert.has_error(function() kfjob[c[2]](c[3]) end, c[4])
    end)
  end

  -- SPEC §11 moved these from construction to the targets (R1, R3, R4, R8,
  -- R9): built, then refused when emitted for the default target flyte
  -- (error) or reported by lint (warning).
  local moved = {
    { "TFJob worker >= 1", "TFJob", { worker = { replicas = 0 } },
      "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "TFJob worker required", "TFJob", {}, "kfjob.TFJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "PyTorchJob worker required", "PyTorchJob", { master = {} },
      "kfjob.PyTorchJob: worker.replicas: must be >= 1 (got 0) (target flyte2)", "flyte2" },
    { "MPIJob worker >= 1", "MPIJob", { worker = { replicas = 0 } },
      "kfjob.MPIJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "HorovodJob worker required", "HorovodJob", { slots = 2 },
      "kfjob.HorovodJob: worker.replicas: must be >= 1 (got 0) (target flyte)" },
    { "evaluator <= 1", "TFJob", { worker = { replicas = 1 }, evaluator = { replicas = 2 } },
      { path = "evaluator.replicas", rule = "R8" } },
    { "chief <= 1", "TFJob", { worker = { replicas = 1 }, chief = { replicas = 2 } },
      { path = "chief.replicas", rule = "R8" } },
    { "elastic min <= max", "Elastic", { nnodes = "3:2" }, { path = "nnodes", rule = "R9" } },
  }
  for _, c in ipairs(moved) do
    it(c[1] .. " (by target)", function()
      local job = kfjob[c[2]](c[3])
      if type(c[4]) == "string" then
        assert.has_error(function() job:encode{ target = c[5] } end, c[4])
      else
        assert.is_true(job:check())
        local found
        for _, w in ipairs(job:lint()) do
          if w.path == c[4].path and w.rule == c[4].rule then found = w end
        end
        assert.is_table(found)
      end
    end)
  end

  it("accept the boundary values", function()
    assert.equal(1, kfjob.TFJob { worker = { replicas = 1 }, chief = { replicas = 1 },
      evaluator = { replicas = 1 } }.chief.replicas)
    assert.equal(2147483647, kfjob.TFJob { worker = { replicas = 2147483647 } }.worker.replicas)
    assert.equal(2, kfjob.TFJob { worker = { replicas = 2.0 } }.worker.replicas)
    assert.equal(1, kfjob.Elastic { nnodes = "1:1" }.worker.replicas)
    assert.equal(1, kfjob.MPIJob { worker = { replicas = 1 }, slots = 1 }.slots)
  end)
end)

-- ---- job objects -------------------------------------------------------------------

describe("job objects", function()
  local job = kfjob.TFJob(FULL.TFJob)

  describe("reads", function()
    it("give groups and policies resolved", function()
      assert.equal(4, job.worker.replicas)
      assert.equal("on_failure", job.worker.restart_policy)
      assert.same({ cpu = "0.5", mem = "1024", gpu = "8" }, job.worker.requests)
      assert.same({ cpu = "500m", mem = "4Gi", ephemeral_storage = "10Gi" }, job.worker.limits)
      assert.equal(5, job.run_policy.backoff_limit)
      assert.equal("Worker", job.worker.kind)
    end)

    it("give kind and task_type for every kind", function()
      for _, kind in ipairs(KINDS) do
        local j = kfjob[kind](FULL[kind])
        assert.equal(kind, j.kind)
        assert.equal(TASK_TYPE[kind], j.task_type)
      end
    end)

    it("of unknown fields raise, with a suggestion when one is close", function()
      assert.has_error(function() return job.wroker end, "kfjob.TFJob has no field 'wroker' (did you mean 'worker'?)")
      assert.has_error(function() return job.spce end, "kfjob.TFJob has no field 'spce' (did you mean 'spec'?)")
      assert.has_error(function() return job.zzz end, "kfjob.TFJob has no field 'zzz'")
      assert.has_error(function() return job.master end, "kfjob.TFJob has no field 'master'")
      assert.has_error(function() return job.worker.replcas end,
        "kfjob.Worker has no field 'replcas' (did you mean 'replicas'?)")
      assert.has_error(function() return job.run_policy.backof_limit end,
        "kfjob.RunPolicy has no field 'backof_limit' (did you mean 'backoff_limit'?)")
      assert.has_error(function() return kfjob.Elastic {}.slots end, "kfjob.Elastic has no field 'slots'")
    end)

    it("return copies: changing a read table changes nothing", function()
      job.worker.requests.cpu = "99"
      job:spec().worker.replicas = 99
      assert.equal("0.5", job.worker.requests.cpu)
      assert.equal(4, job.worker.replicas)
    end)

    it("do not see later changes to the constructor's table", function()
      local t = { worker = { replicas = 1 } }
      local j = kfjob.TFJob(t)
      t.worker.replicas = 9
      assert.equal(1, j.worker.replicas)
    end)
  end)

  describe("immutability", function()
    it("assignment to a job, group or policy raises", function()
      assert.has_error(function() job.worker = kfjob.Worker { replicas = 1 } end,
        "kfjob.TFJob is immutable (use :with{...} for a changed copy)")
      assert.has_error(function() job.foo = 1 end, "kfjob.TFJob is immutable (use :with{...} for a changed copy)")
      assert.has_error(function() job.worker.replicas = 3 end,
        "kfjob.Worker is immutable (use :with{...} for a changed copy)")
      assert.has_error(function() job.run_policy.backoff_limit = 1 end,
        "kfjob.RunPolicy is immutable (use :with{...} for a changed copy)")
    end)
  end)

  describe("spec()", function()
    it("returns the constructor shape, resolved", function()
      assert.same({
        worker = { replicas = 4, image = "tf:2", requests = { cpu = "0.5", mem = "1024", gpu = "8" },
          limits = { cpu = "500m", mem = "4Gi", ephemeral_storage = "10Gi" }, restart_policy = "on_failure" },
        ps = { replicas = 2, image = "ps:1", restart_policy = "always" },
        chief = { replicas = 1, limits = { mem = "2Gi" }, restart_policy = "never" },
        evaluator = { replicas = 1, requests = { gpu = "1" }, restart_policy = "never" },
        run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 600,
          active_deadline_seconds = 36000, backoff_limit = 5 },
      }, job:spec())
    end)

    it("resolves deprecated counts into groups", function()
      assert.same({ worker = { replicas = 10, restart_policy = "never" },
        master = { replicas = 1, restart_policy = "never" } }, kfjob.PyTorchJob(COUNTS.PyTorchJob):spec())
    end)

    for _, kind in ipairs(KINDS) do
      it("round-trips through the constructor: " .. kind, function()
        for _, t in ipairs { FULL[kind], COUNTS[kind] } do
          local j = kfjob[kind](t)
          assert.equal(j, kfjob[kind](j:spec()))
          assert.same(j:spec(), kfjob[kind](j:spec()):spec())
        end
      end)
    end
  end)

  describe("with()", function()
    local base = kfjob.TFJob { worker = { replicas = 2, image = "img", requests = { cpu = 1 } },
      chief = { replicas = 1 } }

    it("deep-merges nested tables", function()
      local j = base:with { worker = { replicas = 4, requests = { mem = "1Gi" } } }
      assert.same({ replicas = 4, image = "img", requests = { cpu = "1", mem = "1Gi" }, restart_policy = "never" },
        j:spec().worker)
      assert.equal(1, j.chief.replicas)
    end)

    it("takes dotted keys", function()
      assert.equal(base:with { worker = { replicas = 8 } }, base:with { ["worker.replicas"] = 8 })
      assert.same({ cpu = "1", mem = "2Gi" }, base:with { ["worker.requests.mem"] = "2Gi" }.worker.requests)
      assert.equal(3, base:with { ["run_policy.backoff_limit"] = 3 }.run_policy.backoff_limit)
    end)

    it("replaces lists and group objects instead of merging them", function()
      local m = kfjob.MPIJob { worker = { replicas = 2, command = { "a", "b" } } }
      assert.same({ "c" }, m:with { ["worker.command"] = { "c" } }.worker.command)
      assert.same({ "c" }, m:with { worker = { command = { "c" } } }.worker.command)
      assert.same({ replicas = 5, restart_policy = "never" },
        base:with { worker = kfjob.Worker { replicas = 5 } }:spec().worker)
    end)

    it("works for every kind", function()
      assert.equal("3:6", kfjob.Elastic(FULL.Elastic):with { nnodes = "3:6" }.nnodes)
      assert.equal("x", kfjob.Elastic(FULL.Elastic):with { ["worker.image"] = "x" }.worker.image)
      assert.equal(8, kfjob.MPIJob(FULL.MPIJob):with { slots = 8 }.slots)
      assert.equal(true, kfjob.HorovodJob(FULL.HorovodJob):with { verbose = true }.verbose)
      assert.equal("always", kfjob.PyTorchJob(FULL.PyTorchJob):with { ["master.restart_policy"] = "Always" }
        .master.restart_policy)
    end)

    it("with no overrides gives an equal job", function()
      assert.equal(base, base:with {})
    end)

    -- BUG: an empty table replaces the group (kf_spec.c merge_into) instead of merging.
    it("with an empty nested table changes nothing", function()
      assert.equal(base, base:with { worker = {} })
    end)

    it("leaves the original unchanged", function()
      local _ = base:with { ["worker.replicas"] = 7, worker = { image = "other" }, run_policy = { backoff_limit = 1 } }
      assert.same({ replicas = 2, image = "img", requests = { cpu = "1" }, restart_policy = "never" },
        base:spec().worker)
      assert.is_nil(base.run_policy)
    end)

    it("validates the result", function()
      assert.has_error(function() base:with { ["worker.replicas"] = -1 } end,
        "kfjob.TFJob: worker.replicas: must be >= 0 (got -1)")
      assert.has_error(function() base:with { ["worker.replcas"] = 3 } end,
        "kfjob.TFJob: worker.replcas: unknown field (did you mean 'replicas'?)")
      assert.has_error(function() base:with { worker = { requests = { cpu = -1 } } } end,
        "kfjob.TFJob: worker.requests.cpu: must not be negative")
      assert.has_error(function() base:with { ["worker.replicas.x"] = 3 } end,
        "kfjob.TFJob: worker.replicas: not a table, cannot set 'worker.replicas.x'")
      assert.has_error(function() base:with { num_workers = 3 } end,
        "kfjob.TFJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)")
      assert.has_error(function() base:with { "x" } end, "kfjob.TFJob: overrides: expected a table of fields")
      assert.has_error(function() base:with(5) end, "bad argument #1 to 'with' (table expected, got number)")
    end)
  end)

  describe("== and tostring", function()
    it("compare the resolved configuration", function()
      assert.equal(kfjob.TFJob { num_workers = 2 }, kfjob.TFJob { worker = { replicas = 2 } })
      assert.equal(kfjob.TFJob { worker = { replicas = 1, requests = { cpu = 1 } } },
        kfjob.TFJob { worker = kfjob.Worker { replicas = 1, requests = { cpu = "1" } }, ps = { replicas = 0 } })
      assert.equal(kfjob.PyTorchJob { worker = { replicas = 1, restart_policy = "OnFailure" } },
        kfjob.PyTorchJob { worker = { replicas = 1, restart_policy = 1 } })
    end)

    it("tell different jobs apart", function()
      local j = kfjob.TFJob { worker = { replicas = 1 } }
      assert.are_not.equal(j, j:with { ["worker.replicas"] = 2 })
      assert.are_not.equal(j, j:with { run_policy = {} })
      assert.are_not.equal(j, j:with { ["worker.image"] = "x" })
      assert.are_not.equal(j, kfjob.PyTorchJob { worker = { replicas = 1 } })
      assert.are_not.equal(kfjob.MPIJob { worker = { replicas = 1 } }, kfjob.HorovodJob { worker = { replicas = 1 } })
      assert.are_not.equal(kfjob.HorovodJob { worker = { replicas = 1 } },
        kfjob.HorovodJob { worker = { replicas = 1 }, verbose = true })
      assert.are_not.equal(kfjob.Elastic { nnodes = 2 }, kfjob.Elastic { nnodes = "1:2" })
    end)

    it("summarises each kind", function()
      assert.equal("kfjob.TFJob(worker=4, ps=2, chief=1, evaluator=1)", tostring(kfjob.TFJob(FULL.TFJob)))
      assert.equal("kfjob.PyTorchJob(worker=4, master=1)", tostring(kfjob.PyTorchJob(FULL.PyTorchJob)))
      assert.equal("kfjob.Elastic(nnodes=2:4, nproc_per_node=8)", tostring(kfjob.Elastic(FULL.Elastic)))
      assert.equal("kfjob.MPIJob(worker=2, launcher=1, slots=4)", tostring(kfjob.MPIJob(FULL.MPIJob)))
      assert.equal("kfjob.HorovodJob(worker=2, launcher=1, slots=2)", tostring(kfjob.HorovodJob(FULL.HorovodJob)))
    end)
  end)

  describe("versions()", function()
    it("is {0, 1} for jobs of counts only", function()
      for _, kind in ipairs(KINDS) do assert.same({ 0, 1 }, kfjob[kind](COUNTS[kind]):versions(), kind) end
    end)

    it("is {1} for jobs with per-group settings or a run policy", function()
      for _, kind in ipairs(KINDS) do assert.same({ 1 }, kfjob[kind](FULL[kind]):versions(), kind) end
      local w = { worker = { replicas = 1 } }
      assert.same({ 1 }, kfjob.TFJob(w):with { run_policy = {} }:versions())
      assert.same({ 1 }, kfjob.TFJob(w):with { ["ps.image"] = "x" }:versions())
      assert.same({ 1 }, kfjob.TFJob(w):with { ["chief.limits.gpu"] = 1 }:versions())
      assert.same({ 1 }, kfjob.PyTorchJob(w):with { ["master.restart_policy"] = "always" }:versions())
      assert.same({ 1 }, kfjob.Elastic { nnodes = 2, worker = { image = "x" } }:versions())
      assert.same({ 1 }, kfjob.HorovodJob(w):with { ["launcher.command"] = { "x" } }:versions())
    end)

    it("ignores defaults and the fields that never reach the wire", function()
      assert.same({ 0, 1 },
        kfjob.TFJob { worker = { replicas = 1, restart_policy = "never", requests = {} } }:versions())
      assert.same({ 0, 1 }, kfjob.HorovodJob { worker = { replicas = 1 }, verbose = true, slots = 4 }:versions())
      assert.same({ 0, 1 }, kfjob.Elastic { nnodes = "1:3", rdzv_backend = "etcd" }:versions())
    end)
  end)
end)

-- ---- encode ----------------------------------------------------------------------

describe("encode", function()
  -- Every replica group present with `resources {}`; zero values omitted.
  it("TFJob: every group, field order worker, ps, chief, run_policy, evaluator", function()
    local j = kfjob.TFJob { worker = { replicas = 2, image = "tf:2", restart_policy = "on_failure" },
      chief = { replicas = 1 }, run_policy = { clean_pod_policy = "running", active_deadline_seconds = 3600 } }
    local rp = msg(4, int(1, 1), int(3, 3600))
    assert_bytes(msg(1, int(1, 2), msg(2, "tf:2"), NO_RESOURCES, int(4, 1))
      .. msg(2, NO_RESOURCES) .. msg(3, int(1, 1), NO_RESOURCES) .. rp .. msg(5, NO_RESOURCES), j:encode())
    assert_bytes(msg(1, msg(5, int(1, 2), msg(2, "tf:2"), NO_RESOURCES, int(4, 1)))
      .. msg(2, msg(5, NO_RESOURCES)) .. msg(3, msg(5, int(1, 1), NO_RESOURCES)) .. rp
      .. msg(5, msg(5, NO_RESOURCES)), j:encode { replica_encoding = "common" })
    assert_bytes(int(1, 4) .. int(2, 2) .. int(3, 1) .. int(4, 1), kfjob.TFJob(COUNTS.TFJob):encode { version = 0 })
  end)

  it("PyTorchJob: the master always has replicas = 1", function()
    local j = kfjob.PyTorchJob { worker = { replicas = 4, limits = { gpu = 2 } },
      master = { restart_policy = "always" } }
    assert_bytes(msg(1, int(1, 4), msg(3, msg(2, int(1, 2), msg(2, "2"))))
      .. msg(2, int(1, 1), NO_RESOURCES, int(4, 2)),
      j:encode())
    assert_bytes(msg(1, int(1, 10), NO_RESOURCES) .. msg(2, int(1, 1), NO_RESOURCES),
      kfjob.PyTorchJob(COUNTS.PyTorchJob):encode())
    assert_bytes(int(1, 10), kfjob.PyTorchJob(COUNTS.PyTorchJob):encode { version = 0 })
  end)

  it("Elastic: the worker carries only what was given; no master; rdzv_backend defaults to c10d", function()
    local ec = msg(4, msg(1, "c10d"), int(2, 2), int(3, 4), int(4, 8), int(5, 3))
    local j = kfjob.Elastic(COUNTS.Elastic)
    assert_bytes(msg(1, int(1, 4)) .. ec, j:encode())
    assert_bytes(msg(1, msg(5, int(1, 4))) .. ec, j:encode { replica_encoding = "common" })
    assert_bytes(int(1, 4) .. msg(2, msg(1, "c10d"), int(2, 2), int(3, 4), int(4, 8), int(5, 3)),
      j:encode { version = 0 })
    assert_bytes(msg(1, int(1, 2), msg(2, "img"), int(4, 1)) .. msg(4, msg(1, "c10d"), int(2, 2), int(3, 2), int(4, 1)),
      kfjob.Elastic { nnodes = 2, worker = { image = "img", restart_policy = "on_failure" } }:encode())
  end)

  it("MPIJob: command after the flat fields, before common (field 6); slots always", function()
    local j = kfjob.MPIJob { worker = { replicas = 2, command = { "sshd", "-De" } }, slots = 2,
      run_policy = { backoff_limit = 3 } }
    local launcher, tail = msg(2, int(1, 1), NO_RESOURCES), msg(3, int(4, 3)) .. int(4, 2)
    assert_bytes(msg(1, int(1, 2), NO_RESOURCES, msg(5, "sshd"), msg(5, "-De")) .. launcher .. tail, j:encode())
    assert_bytes(msg(1, msg(5, "sshd"), msg(5, "-De"), msg(6, int(1, 2), NO_RESOURCES))
      .. msg(2, msg(6, int(1, 1), NO_RESOURCES)) .. tail, j:encode { replica_encoding = "common" })
    assert_bytes(int(1, 4) .. int(2, 1) .. int(3, 2), kfjob.MPIJob(COUNTS.MPIJob):encode { version = 0 })
  end)

  it("HorovodJob: the same message as MPIJob", function()
    local h = kfjob.HorovodJob { worker = { replicas = 2 }, slots = 2, verbose = true, elastic_timeout = 60 }
    assert.equal(kfjob.MPIJob { worker = { replicas = 2 }, slots = 2 }:encode(), h:encode())
    assert.equal(kfjob.MPIJob { worker = { replicas = 2 }, slots = 2 }:encode { version = 0 }, h:encode { version = 0 })
  end)

  it("omits proto3 zero values (counts 0, never, none)", function()
    assert_bytes(msg(1, int(1, 1), NO_RESOURCES) .. msg(2, NO_RESOURCES) .. msg(3, NO_RESOURCES)
      .. msg(4) .. msg(5, NO_RESOURCES),
      kfjob.TFJob { worker = { replicas = 1, restart_policy = "never" }, run_policy = { clean_pod_policy = "none" } }
      :encode())
    assert_bytes(int(1, 1), kfjob.TFJob { worker = { replicas = 1 } }:encode { version = 0 })
  end)

  -- BUG: opts.version must be an integer subtype; 1.0 raises "unsupported task_type_version 1.0".
  it("accepts an integral float version, as counts accept 2.0", function()
    local j = kfjob.TFJob { worker = { replicas = 1 } }
    assert.equal(j:encode(), j:encode { version = 1.0 })
  end)

  it("defaults to version 1, flat", function()
    local j = kfjob.TFJob(FULL.TFJob)
    assert.equal(j:encode { version = 1, replica_encoding = "flat" }, j:encode())
    assert.equal(j:encode(), j:encode {})
  end)

  describe("version 0 refuses what it cannot express, listing every field", function()
    local cases = {
      TFJob = "kfjob.TFJob: version 0 cannot express worker.image, worker.requests, worker.limits, "
        .. "worker.restart_policy, ps.image, ps.restart_policy, chief.limits, evaluator.requests, run_policy "
        .. "(use version 1)",
      PyTorchJob = "kfjob.PyTorchJob: version 0 cannot express worker.image, worker.limits, "
        .. "worker.restart_policy, master.image, master.restart_policy, run_policy (use version 1)",
      Elastic = "kfjob.Elastic: version 0 cannot express worker.image, worker.requests, worker.restart_policy, "
        .. "run_policy (use version 1)",
      MPIJob = "kfjob.MPIJob: version 0 cannot express worker.requests, worker.command, launcher.image, "
        .. "launcher.command, run_policy (use version 1); a v0 worker command travels in the TaskTemplate "
        .. "config, see task_template()",
      HorovodJob = "kfjob.HorovodJob: version 0 cannot express worker.command, launcher.limits, run_policy "
        .. "(use version 1); a v0 worker command travels in the TaskTemplate config, see task_template()",
    }
    for _, kind in ipairs(KINDS) do
      it(kind, function()
        local j = kfjob[kind](FULL[kind])
        assert.has_error(function() j:encode { version = 0 } end, cases[kind])
      end)
    end

    it("even an empty run policy", function()
      local j = kfjob.PyTorchJob { worker = { replicas = 1 }, run_policy = {} }
      assert.has_error(function() j:encode { version = 0 } end,
        "kfjob.PyTorchJob: version 0 cannot express run_policy (use version 1)")
    end)
  end)

  it("rejects bad options", function()
    local j = kfjob.TFJob { worker = { replicas = 1 } }
    local cases = {
      { { version = 2 }, "kfjob.encode: opts.version: unsupported task_type_version 2 (expected 0 or 1)" },
      { { version = -1 }, "kfjob.encode: opts.version: unsupported task_type_version -1 (expected 0 or 1)" },
      { { version = true }, "kfjob.encode: opts.version: expected 0 or 1, got boolean 'true'" },
      { { replica_encoding = "nested" },
        'kfjob.encode: opts.replica_encoding: expected "flat" or "common", got nested' },
      { { replica_encoding = 1 }, 'kfjob.encode: opts.replica_encoding: expected "flat" or "common", got 1' },
      { { version = 0, replica_encoding = "common" }, 'kfjob.encode: opts.replica_encoding: "common" needs version 1' },
      { { verison = 1 }, "kfjob.encode: opts.verison: unknown option (did you mean 'version'?)" },
      { { format = "json" }, "kfjob.encode: opts.format: unknown option" },
      { { 1 }, "kfjob.encode: options: keys must be strings" },
    }
    for _, c in ipairs(cases) do
      assert.has_error(function() j:encode(c[1]) end, c[2])
    end
    assert.has_error(function() j:encode(5) end, "bad argument #1 to 'encode' (table expected, got number)")
    assert.has_error(function() j.encode(kfjob.Worker {}) end,
      "bad argument #1 to 'encode' (kfjob job expected, got kfjob.Worker)")
  end)
end)

-- ---- decode ----------------------------------------------------------------------

describe("kfjob.decode", function()
  local function roundtrip(kind, t)
    local j = kfjob[kind](t)
    for _, v in ipairs(j:versions()) do
      for _, enc in ipairs(v == 1 and { "flat", "common" } or { "flat" }) do
        local opts = { version = v, replica_encoding = enc }
        local d, err = kfjob.decode(TASK_TYPE[kind], j:encode(opts), { version = v, kind = kind })
        assert.is_nil(err)
        assert.equal(j, d, ("%s v%d %s"):format(kind, v, enc))
        assert.equal(kind, d.kind)
      end
    end
  end

  for _, kind in ipairs(KINDS) do
    it("round-trips " .. kind .. " in v1 flat and common", function() roundtrip(kind, FULL[kind]) end)
    it("round-trips " .. kind .. " in v0, v1 flat and v1 common", function() roundtrip(kind, COUNTS[kind]) end)
  end

  it("round-trips every enum value and resource", function()
    for rp = 0, 2 do
      for cp = 0, 2 do
        roundtrip("TFJob", { worker = { replicas = 1, restart_policy = rp,
          requests = { cpu = "1", mem = "2Gi", gpu = "3", ephemeral_storage = "4Gi" },
          limits = { cpu = "5", mem = "6Gi", gpu = "7", ephemeral_storage = "8Gi" } },
          run_policy = { clean_pod_policy = cp } })
      end
    end
  end)

  it("picks the kind from the task type and the message", function()
    local pt = kfjob.PyTorchJob { worker = { replicas = 2 } }
    local el = kfjob.Elastic { nnodes = "2:3" }
    assert.equal("PyTorchJob", kfjob.decode("pytorch", pt:encode()).kind)
    assert.equal(el, kfjob.decode("pytorch", el:encode()))
    assert.equal(el, kfjob.decode("pytorch", el:encode { version = 0 }, { version = 0 }))
    assert.equal("MPIJob", kfjob.decode("mpi", kfjob.HorovodJob { worker = { replicas = 1 } }:encode()).kind)
    assert.equal("TFJob", kfjob.decode("tensorflow", kfjob.TFJob { worker = { replicas = 1 } }:encode()).kind)
  end)

  it("gives Horovod-only fields their defaults (they never reach the wire)", function()
    local h = kfjob.HorovodJob { worker = { replicas = 2 }, verbose = true, log_level = "DEBUG" }
    assert.equal(h:with { verbose = false, log_level = "INFO" },
      kfjob.decode("mpi", h:encode(), { kind = "HorovodJob" }))
  end)

  it("reads an elastic nnodes = 1 back as the pytorch form (python-task has no payload)", function()
    local d = kfjob.decode("pytorch", kfjob.Elastic { nnodes = 1 }:encode())
    assert.equal("pytorch", d.task_type)
    assert.equal("1", d.nnodes)
  end)

  it("accepts what the backend accepts: absent master/launcher, common over flat, unknown fields", function()
    assert.equal(kfjob.PyTorchJob { worker = { replicas = 1 } }, kfjob.decode("pytorch", msg(1, int(1, 1))))
    assert.equal(kfjob.MPIJob { worker = { replicas = 1 } }, kfjob.decode("mpi", msg(1, int(1, 1)) .. int(4, 1)))
    assert.equal(kfjob.TFJob { worker = { replicas = 2 } },
      kfjob.decode("tensorflow", msg(1, int(1, 1), msg(5, int(1, 2)))))
    assert.equal(kfjob.TFJob { worker = { replicas = 1 } }, kfjob.decode("tensorflow", msg(1, int(1, 1)) .. int(15, 1)))
  end)

  -- protobuf's parsing rules (encoding.md, "Last One Wins"; an embedded
  -- message given twice is merged: its lists joined), whichever of
  -- decode's two paths reads the bytes.  (Scalars set in only one of the
  -- occurrences: spec/pb_merge_spec.lua.)
  it("reads a field given twice as protobuf does: the last scalar, messages merged, lists joined", function()
    local entry = function(list, v) return msg(3, msg(list, int(1, 1), msg(2, v))) end   -- CPU
    assert.equal(kfjob.TFJob { worker = { replicas = 3 } },
      kfjob.decode("tensorflow", msg(1, int(1, 1), int(1, 3))))
    assert.equal(kfjob.TFJob { worker = { replicas = 1, requests = { cpu = "1" }, limits = { cpu = "2" } } },
      kfjob.decode("tensorflow", msg(1, int(1, 1), entry(1, "1")) .. msg(1, int(1, 1), entry(2, "2"))))
    assert.equal(kfjob.TFJob { worker = { replicas = 1 }, run_policy = { clean_pod_policy = "all", backoff_limit = 3 } },
      kfjob.decode("tensorflow", msg(1, int(1, 1)) .. msg(4, int(1, 2), int(4, 1)) .. msg(4, int(1, 2), int(4, 3))))
    assert.equal(kfjob.MPIJob { worker = { replicas = 1, command = { "a", "b", "c" } } },
      kfjob.decode("mpi", msg(1, int(1, 1), msg(5, "a")) .. int(4, 1) .. msg(1, int(1, 1), msg(5, "b"), msg(5, "c"))))
  end)

  it("reads an empty string as unset and common over the flat fields beside it, in any order", function()
    assert.equal(kfjob.TFJob { worker = { replicas = 1 } },
      kfjob.decode("tensorflow", msg(1, int(1, 1), msg(2, ""))))
    assert.equal(kfjob.TFJob { worker = { replicas = 2 } },
      kfjob.decode("tensorflow", msg(1, msg(5, int(1, 2)), int(1, 1), msg(2, "flat:1"))))
    assert.equal(kfjob.MPIJob { worker = { replicas = 2, command = { "x" } } },
      kfjob.decode("mpi", msg(1, msg(6, int(1, 2)), msg(5, "x")) .. int(4, 1)))
  end)

  describe("returns nil and a message for bad input", function()
    local WORKER1 = msg(1, int(1, 1))
    local cases = {
      { "truncated bytes", "tensorflow", kfjob.TFJob(FULL.TFJob):encode():sub(1, -2), nil,
        "kfjob.decode: malformed flyteidl.plugins.kubeflow.DistributedTensorflowTrainingTask message "
          .. "(truncated bytes, a bad tag or a wrong wire type)" },
      { "garbage", "mpi", "\255\255\255", nil,
        "kfjob.decode: malformed flyteidl.plugins.kubeflow.DistributedMPITrainingTask message "
          .. "(truncated bytes, a bad tag or a wrong wire type)" },
      { "wrong wire type (varint for a message)", "pytorch", int(1, 1), nil,
        "kfjob.decode: malformed flyteidl.plugins.kubeflow.DistributedPyTorchTrainingTask message "
          .. "(truncated bytes, a bad tag or a wrong wire type)" },
      { "wrong wire type in v0", "tensorflow", msg(1, int(1, 1)), { version = 0 },
        "kfjob.decode: malformed flyteidl.plugins.DistributedTensorflowTrainingTask message "
          .. "(truncated bytes, a bad tag or a wrong wire type)" },
      { "negative count", "tensorflow", msg(1, int(1, -1)), nil,
        "kfjob.decode: workerReplicas.replicas: must be >= 0 (got -1)" },
      { "two masters", "pytorch", WORKER1 .. msg(2, int(1, 2)), nil,
        "kfjob.decode: masterReplicas.replicas: must be 0 or 1 (got 2)" },
      { "two launchers", "mpi", WORKER1 .. msg(2, int(1, 2)) .. int(4, 1), nil,
        "kfjob.decode: launcherReplicas.replicas: must be 1 (got 2)" },
      { "slots 0", "mpi", WORKER1, nil, "kfjob.decode: slots: must be >= 1 (got 0)" },
      { "restart policy out of range", "tensorflow", msg(1, int(1, 1), int(4, 7)), nil,
        "kfjob.decode: workerReplicas.restartPolicy: unknown value 7" },
      { "clean pod policy out of range", "tensorflow", WORKER1 .. msg(4, int(1, 5)), nil,
        "kfjob.decode: runPolicy.cleanPodPolicy: unknown value 5" },
      { "unknown task type", "python-task", "", nil,
        "kfjob.decode: unknown task type 'python-task' (expected tensorflow, pytorch or mpi)" },
      { "version 2", "tensorflow", WORKER1, { version = 2 },
        "kfjob.decode: opts.version: unsupported task_type_version 2 (expected 0 or 1)" },
    }
    for _, c in ipairs(cases) do
      it(c[1], function()
        assert.same({ n = 2, nil, c[5] }, pack(kfjob.decode(c[2], c[3], c[4])))
      end)
    end
  end)

  it("raises for programmer errors (wrong argument types, unknown options)", function()
    -- Lua names the function 'decode' or 'kfjob.decode' depending on package.loaded.
    local function error_of(f)
      local ok, err = pcall(f)
      assert.is_false(ok)
      return err
    end
    assert.matches("bad argument #1 to '[%w.]*decode' %(string expected, got nil%)",
      error_of(function() kfjob.decode(nil, "") end))
    assert.matches("bad argument #2 to '[%w.]*decode' %(string expected, got table%)",
      error_of(function() kfjob.decode("mpi", {}) end))
    assert.has_error(function() kfjob.decode("mpi", "", { versoin = 1 }) end,
      "kfjob.decode: opts.versoin: unknown option (did you mean 'version'?)")
    assert.has_error(function() kfjob.decode("mpi", "", { kind = "TFJob" }) end,
      "kfjob.decode: opts.kind: 'TFJob' is not a kind of task type 'mpi'")
  end)
end)
