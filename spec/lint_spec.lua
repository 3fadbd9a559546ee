-- Specs for job:lint (SPEC §2.3): valid configurations the Flyte backend or
-- the operator will not honour, or that are likely mistakes.

local kfjob = require "kfjob"

local error_of = require("util").error_of

-- path -> message of the warnings, and the paths in order.
local function paths(list)
  local out = {}
  for i, w in ipairs(list) do out[i] = w.path end
  return out
end
local function find(list, path)
  for _, w in ipairs(list) do if w.path == path then return w.message end end
end

describe("job:lint", function()
  it("a clean job has no warnings", function()
    assert.same({}, kfjob.TFJob{ worker = { replicas = 2, image = "tf:2" } }:lint())
    assert.same({}, kfjob.MPIJob{ worker = { replicas = 2, command = { "sshd" } } }:lint{ name = "ok" })
    -- an Elastic job's only warning: R10, its nproc_per_node goes to the
    -- deprecated elasticPolicy.nProcPerNode on Flyte (the operator takes spec.nprocPerNode)
    assert.same({ "nproc_per_node" },
                paths(kfjob.Elastic{ nnodes = "1:2", shared_memory = true }:lint{ name = "e" }))
  end)

  it("returns {path=, message=} tables", function()
    local w = kfjob.PyTorchJob{ num_workers = 2, shared_memory = true }:lint()
    assert.same({ { path = "num_workers", message = "deprecated: use worker.replicas" } }, w)
  end)

  describe("deprecated fields", function()
    it("every deprecated count in use, in field order", function()
      local w = kfjob.TFJob{ num_workers = 2, num_ps_replicas = 1, num_chief_replicas = 1,
                             num_evaluator_replicas = 1 }:lint()
      assert.same({ "num_workers", "num_ps_replicas", "num_chief_replicas", "num_evaluator_replicas" }, paths(w))
      assert.equal("deprecated: use ps.replicas", find(w, "num_ps_replicas"))
      w = kfjob.MPIJob{ num_workers = 2, num_launcher_replicas = 1 }:lint()
      assert.same({ "num_workers", "num_launcher_replicas" }, paths(w))
      assert.equal("deprecated: use launcher.replicas", find(w, "num_launcher_replicas"))
      assert.same({ "num_workers" }, paths(kfjob.HorovodJob{ num_workers = 4 }:lint()))
    end)

    it("current names are not flagged; spec() and with() move to them", function()
      local job = kfjob.TFJob{ num_workers = 2 }
      assert.same({}, kfjob.TFJob{ worker = { replicas = 2 } }:lint())
      assert.same({}, kfjob.TFJob(job:spec()):lint())
      assert.same({}, job:with{ ["worker.image"] = "x" }:lint())
    end)
  end)

  describe("run policy", function()
    -- The core must remember a field given as 0 (proto3 cannot): without
    -- that the rule cannot fire, and these specs say so.
    local probe = kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = { backoff_limit = 0 } }
    local supported = probe:spec().run_policy.backoff_limit ~= nil
    local why = "core does not keep run-policy fields given as 0 (kf_run_policy.zero, "
      .. "see the kfjob-rp-zero patch): lint rule cannot fire"

    it("fields set to 0 are dropped by the backend", function()
      if not supported then return pending(why) end
      local w = kfjob.TFJob{ worker = { replicas = 1 }, run_policy = {
        clean_pod_policy = "all", ttl_seconds_after_finished = 0, active_deadline_seconds = 0,
        backoff_limit = 0 } }:lint()
      assert.same({ "run_policy.ttl_seconds_after_finished", "run_policy.active_deadline_seconds",
                    "run_policy.backoff_limit" }, paths(w))
      assert.equal("0 is dropped by the backend (proto3 cannot send it): the operator's default applies",
                   find(w, "run_policy.backoff_limit"))
    end)

    it("unset fields and non-zero ones are fine", function()
      assert.same({}, kfjob.MPIJob{ worker = { replicas = 1 }, run_policy = { backoff_limit = 3 } }:lint())
      assert.same({}, kfjob.MPIJob{ worker = { replicas = 1 }, run_policy = {} }:lint())
    end)

    -- issue 44: backoffLimit 0 is no retries, unset the operator's default
    it("a zero survives spec() and with(), and equality tells it from unset", function()
      if not supported then return pending(why) end
      local job = kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = { backoff_limit = 0 },
                                    shared_memory = true }
      assert.same({ "run_policy.backoff_limit" }, paths(kfjob.PyTorchJob(job:spec()):lint()))
      assert.same({ "run_policy.backoff_limit" }, paths(job:with{ ["worker.replicas"] = 2 }:lint()))
      assert.are_not.equal(kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = {},
                                              shared_memory = true }, job)
    end)
  end)

  describe("GPU requests and limits", function()
    local function lint(req, lim)
      return kfjob.PyTorchJob{ worker = { replicas = 1, requests = req, limits = lim }, shared_memory = true }:lint()
    end

    -- Kubernetes gives a container's unset requests its limits (kubernetes
    -- pkg/apis/core/v1/defaults.go SetDefaults_Pod): a limit alone is the
    -- usual form (issue 39: one warning per group of every job of a sweep)
    it("a limit without a request is fine", function()
      assert.same({}, lint(nil, { gpu = 2 }))
    end)

    it("a request without a limit", function()
      assert.same({ { path = "worker.requests.gpu", message = "GPU request without a GPU limit: "
                      .. "Kubernetes needs both, the limit becomes 1 too" } }, lint({ gpu = 1 }))
    end)

    it("a request that differs from the limit", function()
      assert.same({ { path = "worker.requests.gpu", message = "1 differs from limits.gpu 2: "
                      .. "Kubernetes refuses the pod (GPU requests must equal limits)" } },
                  lint({ gpu = 1 }, { gpu = 2 }))
    end)

    it("equal requests and limits are fine, in any spelling", function()
      assert.same({}, lint({ gpu = 1 }, { gpu = "1" }))
      assert.same({}, lint({ gpu = "1000m" }, { gpu = 1 }))
    end)

    it("in every group, master and launcher included", function()
      local w = kfjob.MPIJob{ worker = { replicas = 1, requests = { gpu = 1 } },
                              launcher = { requests = { gpu = 1 } } }:lint()
      assert.same({ "worker.requests.gpu", "launcher.requests.gpu" }, paths(w))
      w = kfjob.Elastic{ nnodes = 2, shared_memory = true, worker = { limits = { gpu = 8 } } }:lint()
      assert.same({ "nproc_per_node" }, paths(w))
    end)
  end)

  describe("other resources", function()
    it("a request above its limit is lowered to it", function()
      local w = kfjob.TFJob{ worker = { replicas = 1, requests = { cpu = "2", mem = "2Gi" },
                                        limits = { cpu = "1500m", mem = "2048Mi" } } }:lint()
      assert.same({ { path = "worker.requests.cpu",
                      message = "2 exceeds limits.cpu 1500m: the backend lowers the request to the limit" } }, w)
    end)

    it("quantities of 0 are dropped by the backend", function()
      local w = kfjob.TFJob{ worker = { replicas = 1, requests = { cpu = 0, ephemeral_storage = "0Gi" },
                                        limits = { mem = "0" } } }:lint()
      assert.same({ "worker.requests.cpu", "worker.requests.ephemeral_storage", "worker.limits.mem" }, paths(w))
      assert.equal("0 is dropped by the backend: the same as leaving it unset", find(w, "worker.limits.mem"))
    end)
  end)

  describe("slots", function()
    local job = kfjob.MPIJob{ worker = { replicas = 2 }, slots = 4 }
    it("slots > 1 with task_type_version 1 (the default)", function()
      local msg = "Flyte's task_type_version 1 backend ignores slots (slotsPerWorker stays 1; "
        .. "only the launcher's -np uses 4); kfjob's manifest sets slotsPerWorker = 4"
      -- R11 with its Flyte source (docs/RULES.md: lint returns the rule id and source)
      local w = { path = "slots", message = msg, rule = "R11",
                  source = "flyteplugins mpi.go BuildResource (v1 slots never read)" }
      assert.same({ w }, job:lint())
      assert.same({ w }, job:lint{ version = 1 })
      assert.same({ "slots" }, paths(kfjob.HorovodJob{ worker = { replicas = 1 }, slots = 2 }:lint()))
    end)
    it("not with version 0 (the v0 backend reads slots), nor with slots = 1", function()
      assert.same({}, job:lint{ version = 0 })
      assert.same({}, kfjob.MPIJob{ worker = { replicas = 2 } }:lint())
    end)
  end)

  describe("opts.name", function()
    local job = kfjob.TFJob{ worker = { replicas = 16 } }
    it("a name that makes <name>-worker-<N> longer than 63 characters", function()
      -- "-worker-15" is 10 characters: 53 is the longest name that fits
      assert.same({}, job:lint{ name = ("a"):rep(53) })
      assert.same({ { path = "opts.name", message = "pod name '" .. ("a"):rep(54)
                      .. "-worker-15' has 64 characters: more than the 63 Kubernetes allows" } },
                  job:lint{ name = ("a"):rep(54) })
    end)
    it("counts the longest pod name of any group", function()
      local tf = kfjob.TFJob{ worker = { replicas = 2 }, evaluator = { replicas = 1 } }
      assert.equal("pod name '" .. ("a"):rep(52)
                   .. "-evaluator-0' has 64 characters: more than the 63 Kubernetes allows",
                   find(tf:lint{ name = ("a"):rep(52) }, "opts.name"))
    end)
    it("a name that is not a DNS-1035 label", function()
      assert.same({ { path = "opts.name", message = "'My_Job' is not a DNS-1035 label (lowercase letters, "
                      .. "digits and '-', starting with a letter and ending with a letter or digit)" } },
                  job:lint{ name = "My_Job" })
    end)
    it("no name, no name rule", function()
      assert.same({}, job:lint())
    end)
  end)

  describe("PyTorch images", function()
    it("a worker image without a master image splits the job", function()
      local job = kfjob.PyTorchJob{ worker = { replicas = 2, image = "pt:2" }, shared_memory = true }
      assert.same({ { path = "master.image", message = "unset: the master runs the task image while "
                      .. "the workers run 'pt:2'" } }, job:lint())
      assert.same({ { path = "master.image", message = "unset: the master runs the task image "
                      .. "'pt:1' while the workers run 'pt:2'" } }, job:lint{ image = "pt:1" })
    end)
    it("fine when the task image is the same, or the master has an image", function()
      assert.same({}, kfjob.PyTorchJob{ worker = { replicas = 2, image = "pt:2" }, shared_memory = true }:lint{ image = "pt:2" })
      assert.same({}, kfjob.PyTorchJob{ worker = { replicas = 2, image = "pt:2" }, shared_memory = true,
                                        master = { image = "pt:3" } }:lint())
      assert.same({}, kfjob.TFJob{ worker = { replicas = 2, image = "tf:2" } }:lint())
      assert.same({ "nproc_per_node" },   -- R10 only
                  paths(kfjob.Elastic{ nnodes = 2, shared_memory = true, worker = { image = "pt:2" } }:lint()))
    end)
  end)

  describe("pod settings", function()
    local SHM = "unset and no /dev/shm mount in pod_template: PyTorch DataLoader workers share tensors "
      .. "through /dev/shm, which container runtimes limit to 64Mi (flytekit mounts one by default); "
      .. "set shared_memory = true or a size"
    it("a PyTorchJob or Elastic job without shared memory", function()
      assert.same({ { path = "shared_memory", message = SHM } },
                  kfjob.PyTorchJob{ worker = { replicas = 2 } }:lint())
      assert.same({ "shared_memory", "nproc_per_node" }, paths(kfjob.Elastic{ nnodes = 2 }:lint()))
      assert.same({ "nproc_per_node" }, paths(kfjob.Elastic{ nnodes = 2, shared_memory = "8Gi" }:lint()))
    end)
    it("a /dev/shm mount on the template's primary container counts", function()
      local tmpl = { spec = { volumes = { { name = "shm", emptyDir = { medium = "Memory" } } },
        containers = { { name = "main", volumeMounts = { { name = "shm", mountPath = "/dev/shm" } } } } },
        primary_container_name = "main" }
      assert.same({}, kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = tmpl }:lint())
      -- on a sidecar it does not (a sidecar names its image)
      tmpl.primary_container_name = "other"
      tmpl.spec.containers[1].image = "img"
      assert.same({ "shared_memory" }, paths(kfjob.PyTorchJob{ worker = { replicas = 1 }, pod_template = tmpl }:lint()))
    end)
    it("other kinds need none", function()
      assert.same({}, kfjob.TFJob{ worker = { replicas = 1 } }:lint())
      assert.same({}, kfjob.MPIJob{ worker = { replicas = 1 } }:lint())
    end)
    it("an accelerator while no group limits GPUs", function()
      assert.same({ { path = "accelerator", message = "no group limits GPUs: the backend applies the "
        .. "accelerator's node affinity and toleration only to pods with a GPU limit, so "
        .. "'nvidia-tesla-a100' has no effect", rule = "R12",
        source = "flytek8s pod_helper.go ApplyGPUNodeSelectors" } },
        kfjob.TFJob{ worker = { replicas = 1 }, accelerator = "nvidia-tesla-a100" }:lint())
      -- a group's limit, a lone request (it becomes the limit), the task's, a sidecar's
      local ok = {
        { worker = { replicas = 1, limits = { gpu = 1 } } },
        { worker = { replicas = 1, requests = { gpu = 1 } } },
        { worker = { replicas = 1 }, limits = { gpu = 1 } },
        { worker = { replicas = 1 }, pod_template = { spec = { containers = {
            { name = "gpu-side", image = "x", resources = { limits = { ["nvidia.com/gpu"] = 1 } } } } } } },
      }
      for _, t in ipairs(ok) do
        t.accelerator = "nvidia-l4"
        local w = paths(kfjob.TFJob(t):lint())
        assert.is_nil(({ [w[1] or ""] = true, [w[2] or ""] = true }).accelerator)
      end
      -- a group of 0 replicas does not run
      assert.same({ "accelerator" }, paths(kfjob.TFJob{ worker = { replicas = 1 },
        ps = { replicas = 0, limits = { gpu = 1 }, requests = { gpu = 1 } }, accelerator = "nvidia-l4" }:lint()))
    end)
    it("GPU pods from a template without a GPU toleration (and no accelerator)", function()
      local msg = "GPU pods without a toleration for nvidia.com/gpu: GPU node pools are commonly tainted "
        .. "nvidia.com/gpu:NoSchedule, and the pods stay Pending there unless the cluster adds the "
        .. "toleration itself (the ExtendedResourceToleration admission plugin, which GKE enables)"
      local base = { worker = { replicas = 1, limits = { gpu = 1 }, requests = { gpu = 1 } } }
      local function lint(t)
        local x = {}
        for k, v in pairs(base) do x[k] = v end
        for k, v in pairs(t) do x[k] = v end
        return kfjob.TFJob(x):lint()
      end
      assert.same({ { path = "pod_template.spec.tolerations", message = msg } },
                  lint{ pod_template = { spec = { tolerations = { { key = "other", operator = "Exists" } } } } })
      assert.same({}, lint{ pod_template = { spec = { tolerations = {
        { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } } } } })
      assert.same({}, lint{ pod_template = { spec = { tolerations = { { operator = "Exists" } } } } })
      -- the accelerator brings its own toleration; no template, no rule
      assert.same({}, lint{ pod_template = { spec = {} }, accelerator = "nvidia-l4" })
      assert.same({}, lint{})
    end)
    it("come after slots, before opts", function()
      local w = kfjob.Elastic{ nnodes = 2, worker = { limits = { gpu = 1 }, requests = { gpu = 2 } },
                               accelerator = "a" }:lint{ name = ("n"):rep(70) }
      assert.same({ "worker.requests.gpu", "shared_memory", "opts.name", "nproc_per_node" }, paths(w))
    end)
  end)

  it("keeps a stable order: groups in field order, then run policy, slots, opts", function()
    local job = kfjob.MPIJob{ num_workers = 2, slots = 2,
      worker = { limits = { gpu = 1 }, requests = { cpu = 0 } },
      launcher = { requests = { gpu = 1 } } }
    local want = { "num_workers", "worker.requests.cpu", "launcher.requests.gpu",
                   "slots", "opts.name" }
    for _ = 1, 3 do assert.same(want, paths(job:lint{ name = ("n"):rep(60) })) end
  end)

  it("takes the manifest's options, so one table serves both", function()
    local opts = { name = "t", image = "i", namespace = "ns", env = { A = "1" }, labels = {}, version = 1 }
    assert.same({}, kfjob.TFJob{ worker = { replicas = 1 } }:lint(opts))
  end)

  it("rejects unknown options and bad values", function()
    local job = kfjob.TFJob{ worker = { replicas = 1 } }
    assert.equal("kfjob.lint: opts.nmae: unknown option (did you mean 'name'?)",
                 error_of(job.lint, job, { nmae = "x" }))
    assert.equal("kfjob.lint: opts.version: unsupported task_type_version 2 (expected 0 or 1)",
                 error_of(job.lint, job, { version = 2 }))
    assert.equal("kfjob.lint: opts.name: expected a string, got number", error_of(job.lint, job, { name = 1 }))
  end)
end)
