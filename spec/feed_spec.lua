-- Constructors read a plain table straight into the job (kf_feed_*) and
-- take the general path (a value tree, kf_job_from_spec) for anything
-- else.  Both must give the same job and the same first error.  Here a
-- table goes through the fed path and the same fields, with one group
-- passed as a kfjob object (which the fed path never takes),
-- through the general one.
local kfjob = require "kfjob"

local function same_job(a, b)
  assert.is_true(a == b)
  -- encode may refuse (a value the target cannot express): the same way
  assert.are.same({ pcall(a.encode, a) }, { pcall(b.encode, b) })
  assert.are.same(a:spec(), b:spec())
end

-- `t` with its run policy made by kfjob.RunPolicy, or else its worker
-- group by kfjob.Worker: the general path
local function via_tree(t)
  local u = {}
  for k, v in pairs(t) do u[k] = v end
  if t.run_policy then u.run_policy = kfjob.RunPolicy(t.run_policy)
  else u.worker = kfjob.Worker(t.worker) end
  return u
end

local CASES = {
  { "TFJob", {
      worker = { replicas = 8, image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 8, mem = "32Gi", gpu = 1 },
                 limits = { cpu = 16.5, memory = "64Gi", gpu = 1 },
                 restart_policy = "on_failure" },
      ps = { replicas = 2, requests = { cpu = "4", ephemeral_storage = 0.5 } },
      chief = { replicas = 1, restart_policy = "Always" },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 3600,
                     active_deadline_seconds = 86400, backoff_limit = 3 } } },
  { "TFJob", { worker = { replicas = 1 }, ps = {}, run_policy = {} } },
  { "TFJob", { worker = { replicas = 1 }, shared_memory = true, accelerator = "nvidia-tesla-t4" } },
  { "TFJob", { worker = { replicas = 2 }, shared_memory = "1Gi",
               accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" } } },
  { "PyTorchJob", {
      worker = { replicas = 3, image = "pt:2", requests = { cpu = "500m" } },
      master = { image = "pt:2", limits = { gpu = 2 } },
      run_policy = { clean_pod_policy = 2, backoff_limit = 0 } } },
  { "Elastic", { nnodes = "2:8", nproc_per_node = 8, max_restarts = 3,
                 rdzv_backend = "etcd-v2", worker = { image = "x:1" },
                 run_policy = { backoff_limit = 2 } } },
  { "Elastic", { nnodes = 1, nproc_per_node = "gpu", worker = { image = "x:1" },
                 run_policy = {} } },
  { "MPIJob", {
      worker = { replicas = 8, image = "x:1", requests = { cpu = 8, mem = "32Gi" },
                 command = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" } },
      launcher = { image = "x:1", command = { "mpirun" } }, slots = 8,
      run_policy = { backoff_limit = 3 } } },
  { "Elastic", { nnodes = 2.0, nproc_per_node = 4.0, run_policy = { clean_pod_policy = "CLEANPOD_POLICY_RUNNING" } } },
}

describe("constructors fed from a plain table", function()
  for i, c in ipairs(CASES) do
    it("case " .. i .. " (" .. c[1] .. ") gives the general path's job", function()
      local ctor = kfjob[c[1]]
      same_job(ctor(c[2]), ctor(via_tree(c[2])))
    end)
  end

  -- first errors that depend on more than one key or on the checks after
  -- the fields: the fed path must leave them to the general one
  local ERRORS = {
    { "TFJob", { worker = { replicas = 1, requests = { mem = "1Gi", memory = "2Gi" } } },
      "kfjob.TFJob: worker.requests: both 'mem' and 'memory' given (they are aliases)" },
    { "TFJob", { worker = { replicas = 1, image = "x:1", replcas = 2 } },
      "kfjob.TFJob: worker.replcas: unknown field (did you mean 'replicas'?)" },
    { "TFJob", { worker = { replicas = 1, requests = { cpu = "-1" } } },
      "kfjob.TFJob: worker.requests.cpu: '-1' is negative: Kubernetes refuses negative requests and limits (pod validation: must be greater than or equal to 0)" },
    { "TFJob", { worker = { replicas = 1, ["image\0x"] = "x:1" } },
      "kfjob.TFJob: worker: table keys must not contain NUL bytes" },
    { "TFJob", { worker = { replicas = 1 }, [1] = 2 },
      "kfjob.TFJob: table mixes list items and named fields" },
    { "TFJob", { worker = { replicas = 1, image = print } },
      "kfjob.TFJob: worker.image: unexpected function" },
    { "TFJob", { worker = { replicas = 1, image = { "a" } } },
      "kfjob.TFJob: worker.image: expected a string, got a list" },
    { "TFJob", { worker = { replicas = 1, command = { "a" } } },
      "kfjob.TFJob: worker.command: only MPI and Horovod groups take a command" },
    { "MPIJob", { worker = { replicas = 1, command = { "a", 2 } } },
      "kfjob.MPIJob: worker.command[2]: expected a string, got number" },
    { "MPIJob", { worker = { replicas = 1, command = {} } },
      "kfjob.MPIJob: worker.command: expected a non-empty list of strings, got an empty table" },
    { "MPIJob", { worker = { replicas = 1, command = { "a", nil, "c" } } },
      "kfjob.MPIJob: worker.command: list has holes" },
    { "TFJob", { num_workers = 2, worker = { replicas = 3 } },
      "kfjob.TFJob: num_workers: cannot be combined with worker.replicas (num_workers is deprecated)" },
  }
  for i, c in ipairs(ERRORS) do
    it("error " .. i .. " is the general path's", function()
      local ok, e = pcall(kfjob[c[1]], c[2])
      assert.is_false(ok)
      assert.are.equal(c[3], e)
    end)
  end
end)
