-- Conformance cases: constructor tables (SPEC §2) whose encodings are checked
-- against spec/conformance/flytekit_ref.py (reference protobuf runtime).
--
--   {name=, kind=, spec=, opts={version=, replica_encoding=}}   -> encode / to_json / decode
--   {name=, kind=, spec=, template={version=, id=, container=, config=, ...}}
--                                                               -> task_template (bytes and JSON)
--   {name=, kind=, spec=, taskspec={id=, container=, interface=, metadata=, ...}}
--                                                               -> task_spec (bytes, JSON, decode)
-- Optional `roundtrip = false` skips the decode equality check for a case.
-- Cases marked "FACTS §x" are flytekit's worked/test examples.

local V1, V1C, V0 = { version = 1 }, { version = 1, replica_encoding = "common" }, { version = 0 }

-- FACTS §2.2 TfJob worked example.
local tf_example = {
  worker = { replicas = 2, image = "tf:2",
    requests = { cpu = "2", mem = "4Gi", gpu = 1 },
    limits = { cpu = "4", mem = "4Gi", gpu = 1 },
    restart_policy = "on_failure" },
  chief = { replicas = 1 },
  ps = { replicas = 0 },
  run_policy = { clean_pod_policy = "running", active_deadline_seconds = 3600 },
}
-- SPEC §2.4: PyTorch on A100 nodes with a data volume, shared memory and a sidecar.
local pod_a100 = {
  worker = { replicas = 4, limits = { gpu = 8 } },
  master = { limits = { gpu = 8 } },
  shared_memory = true,
  accelerator = "nvidia-tesla-a100",
  requests = { cpu = 32, mem = "256Gi" },
  pod_template = {
    metadata = { labels = { team = "nlp" }, annotations = { ["example.com/cost-center"] = "42" } },
    spec = {
      tolerations = { { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" } },
      nodeSelector = { ["cloud.google.com/gke-accelerator"] = "nvidia-tesla-a100" },
      volumes = { { name = "data", persistentVolumeClaim = { claimName = "imagenet", readOnly = true } } },
      containers = {
        { name = "primary", volumeMounts = { { name = "data", mountPath = "/data", readOnly = true } },
          env = { { name = "NCCL_DEBUG", value = "INFO" } } },
        { name = "metrics", image = "prom/statsd-exporter:v0.26.0",
          ports = { { containerPort = 9102, name = "metrics" } } },
      },
      serviceAccountName = "trainer",
    },
  },
}
-- FACTS §2.5 MPIJob worked example.
local mpi_example = {
  launcher = { replicas = 1, requests = { cpu = "1" } },
  worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } },
  slots = 2,
  run_policy = { backoff_limit = 3 },
}
local tf_full = {
  worker = { replicas = 4, image = "registry.example/tf:2.15",
    requests = { cpu = 0.5, mem = 1024, gpu = 8, ephemeral_storage = "10Gi" },
    limits = { cpu = "500m", memory = "4Gi", gpu = 8, ephemeral_storage = 1073741824 },
    restart_policy = "OnFailure" },
  ps = { replicas = 2, image = "registry.example/ps:1", restart_policy = "always",
    requests = { cpu = 1.5 } },
  chief = { replicas = 1, restart_policy = "never", limits = { mem = "2Gi" } },
  evaluator = { replicas = 1, restart_policy = "RESTART_POLICY_ALWAYS",
    requests = { gpu = "1" }, limits = { gpu = 1 } },
  run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 600,
    active_deadline_seconds = 36000, backoff_limit = 5 },
}
local pt_full = {
  worker = { replicas = 8, image = "pt:2.1", restart_policy = "on_failure",
    requests = { cpu = 2, mem = "8Gi", gpu = 1, ephemeral_storage = "20Gi" },
    limits = { cpu = 2.5, mem = "8Gi", gpu = 1 } },
  master = { image = "pt:2.1-master", restart_policy = "Always",
    requests = { cpu = "250m", memory = "512Mi" } },
  run_policy = { clean_pod_policy = "CLEANPOD_POLICY_RUNNING", ttl_seconds_after_finished = 120 },
}
local el_full = {
  nnodes = "2:8", nproc_per_node = 4, max_restarts = 2, rdzv_backend = "etcd-v2",
  worker = { image = "pt:elastic", restart_policy = "on_failure",
    requests = { cpu = "4", mem = "16Gi", gpu = 4 }, limits = { gpu = 4 } },
  run_policy = { clean_pod_policy = "all", backoff_limit = 1 },
}
local mpi_full = {
  worker = { replicas = 3, image = "mpi:4", command = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" },
    requests = { cpu = 0.25, mem = "1Gi", gpu = 2, ephemeral_storage = "5Gi" },
    limits = { cpu = 1, mem = "1Gi", gpu = 2, ephemeral_storage = "5Gi" },
    restart_policy = "on_failure" },
  launcher = { image = "mpi:4-launcher", command = { "mpirun", "-np", "12", "python", "train.py" },
    requests = { cpu = "500m" }, restart_policy = "always" },
  slots = 4,
  run_policy = { clean_pod_policy = "running", ttl_seconds_after_finished = 3600,
    active_deadline_seconds = 7200, backoff_limit = 2 },
}
local sshd = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" }
-- strings the JSON and Struct writers must escape (or pass through): quote,
-- backslash, control characters, DEL, non-ASCII UTF-8
local escapes = { worker = { replicas = 2, image = "mpi:4",
  command = { 'say "hi"', "back\\slash", "new\nline\r", "tab\there\b\f", "bell\7\1\31", "del\127",
    "caf\195\169 \226\156\147 \240\159\154\128" } }, slots = 1 }
local task_container = {
  image = "registry.example/train:v1",
  args = { "pyflyte-execute", "--inputs", "{{.input}}", "--output-prefix", "{{.outputPrefix}}",
    "--raw-output-data-prefix", "{{.rawOutputDataPrefix}}", "--resolver", "default",
    "--", "task-module", "train", "task-name", "fit" },
  env = { FLYTE_SDK_LOGGING_LEVEL = "20", A_FIRST = "1", zz_last = "z" },
}
local id = { project = "flytesnacks", domain = "development", name = "train.fit", version = "v1" }

return {
  -- TFJob -------------------------------------------------------------------
  { name = "tf_flytekit_example", kind = "TFJob", spec = tf_example, opts = V1 }, -- FACTS §2.2
  { name = "tf_flytekit_example_common", kind = "TFJob", spec = tf_example, opts = V1C },
  { name = "tf_deprecated_counts", kind = "TFJob", opts = V1, -- FACTS §2.2 test example
    spec = { num_workers = 10, num_ps_replicas = 1, num_chief_replicas = 1, num_evaluator_replicas = 1 } },
  { name = "tf_deprecated_counts_v0", kind = "TFJob", opts = V0,
    spec = { num_workers = 10, num_ps_replicas = 1, num_chief_replicas = 1, num_evaluator_replicas = 1 } },
  { name = "tf_v0_worker_chief", kind = "TFJob", opts = V0, -- FACTS §4.3 v0 equivalent
    spec = { worker = { replicas = 2 }, chief = { replicas = 1 }, ps = { replicas = 0 } } },
  { name = "tf_v0_all_counts", kind = "TFJob", opts = V0,
    spec = { worker = { replicas = 3 }, ps = { replicas = 2 }, chief = { replicas = 1 },
      evaluator = { replicas = 1 } } },
  { name = "tf_minimal", kind = "TFJob", spec = { worker = { replicas = 1 } }, opts = V1 },
  { name = "tf_minimal_common", kind = "TFJob", spec = { worker = { replicas = 1 } }, opts = V1C },
  { name = "tf_full", kind = "TFJob", spec = tf_full, opts = V1 },
  { name = "tf_full_common", kind = "TFJob", spec = tf_full, opts = V1C },
  { name = "tf_run_policy_empty", kind = "TFJob", opts = V1,
    spec = { worker = { replicas = 2 }, run_policy = {} } },
  { name = "tf_proto_numbers", kind = "TFJob", opts = V1,
    spec = { worker = { replicas = 2, restart_policy = 2 }, ps = { replicas = 1, restart_policy = 1 },
      run_policy = { clean_pod_policy = 2, ttl_seconds_after_finished = 86400 } } },
  { name = "tf_mixed_deprecated", kind = "TFJob", opts = V1,
    spec = { num_workers = 4, ps = { replicas = 1, image = "ps:1" }, num_chief_replicas = 1 } },

  -- PyTorchJob --------------------------------------------------------------
  { name = "pt_flytekit_example", kind = "PyTorchJob", opts = V1, -- FACTS §2.3
    spec = { worker = { replicas = 4, limits = { gpu = 2 } }, master = { restart_policy = "always" } } },
  { name = "pt_flytekit_example_common", kind = "PyTorchJob", opts = V1C,
    spec = { worker = { replicas = 4, limits = { gpu = 2 } }, master = { restart_policy = "always" } } },
  { name = "pt_num_workers", kind = "PyTorchJob", spec = { num_workers = 10 }, opts = V1 }, -- FACTS §2.3 minimal
  { name = "pt_num_workers_v0", kind = "PyTorchJob", spec = { num_workers = 10 }, opts = V0 },
  { name = "pt_v0_master_one", kind = "PyTorchJob", opts = V0,
    spec = { worker = { replicas = 3 }, master = { replicas = 1 } } },
  { name = "pt_full", kind = "PyTorchJob", spec = pt_full, opts = V1 },
  { name = "pt_full_common", kind = "PyTorchJob", spec = pt_full, opts = V1C },
  -- proto3 carries no 0: the decoded job has backoff_limit unset, which is
  -- not the job's backoff_limit = 0 (issue 44), so no == round trip
  { name = "pt_run_policy_zero", kind = "PyTorchJob", opts = V1, roundtrip = false,
    spec = { worker = { replicas = 2 }, run_policy = { clean_pod_policy = "none", backoff_limit = 0 } } },
  { name = "pt_run_policy_kube_spelling", kind = "PyTorchJob", opts = V1,
    spec = { worker = { replicas = 1, restart_policy = "Never" }, master = { replicas = 1 },
      run_policy = { clean_pod_policy = "All", active_deadline_seconds = 60 } } },

  -- Elastic -----------------------------------------------------------------
  { name = "el_flytekit_example", kind = "Elastic", opts = V1, -- FACTS §2.4
    spec = { nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 } },
  { name = "el_flytekit_test", kind = "Elastic", opts = V1, -- FACTS §2.4 test example
    spec = { nnodes = 2, nproc_per_node = 2, run_policy = { clean_pod_policy = "all",
      ttl_seconds_after_finished = 600, active_deadline_seconds = 36000 } } },
  { name = "el_int3", kind = "Elastic", spec = { nnodes = 3 }, opts = V1 },
  { name = "el_int3_common", kind = "Elastic", spec = { nnodes = 3 }, opts = V1C },
  { name = "el_full", kind = "Elastic", spec = el_full, opts = V1 },
  { name = "el_full_common", kind = "Elastic", spec = el_full, opts = V1C },
  { name = "el_image_only", kind = "Elastic", opts = V1,
    spec = { nnodes = "1:4", rdzv_backend = "etcd", worker = { image = "pt:elastic" } } },
  -- flytekit writes rdzv_backend always: decoded, c10d is the default not
  -- given, which is not the job's rdzv_backend given as c10d (==), so no
  -- == round trip; the bytes are those of the job without it
  { name = "el_run_policy_empty", kind = "Elastic", opts = V1, roundtrip = false,
    spec = { nnodes = 2, rdzv_backend = "c10d", run_policy = {} } },
  { name = "el_v0_example", kind = "Elastic", opts = V0,
    spec = { nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 } },
  { name = "el_v0_int3_etcd", kind = "Elastic", opts = V0,
    spec = { nnodes = 3, rdzv_backend = "etcd", nproc_per_node = 2 } },

  -- MPIJob ------------------------------------------------------------------
  { name = "mpi_flytekit_example", kind = "MPIJob", spec = mpi_example, opts = V1 }, -- FACTS §2.5
  { name = "mpi_flytekit_example_common", kind = "MPIJob", spec = mpi_example, opts = V1C },
  -- FACTS §2.5 test example, but with num_launcher_replicas = 1 (kfjob rejects != 1).
  { name = "mpi_deprecated_counts", kind = "MPIJob", opts = V1,
    spec = { num_workers = 10, num_launcher_replicas = 1, slots = 1 } },
  { name = "mpi_deprecated_counts_v0", kind = "MPIJob", opts = V0,
    spec = { num_workers = 10, num_launcher_replicas = 1, slots = 1 } },
  { name = "mpi_v0_defaults", kind = "MPIJob", spec = { worker = { replicas = 2 }, slots = 2 }, opts = V0 },
  { name = "mpi_minimal", kind = "MPIJob", spec = { worker = { replicas = 1 } }, opts = V1 },
  { name = "mpi_full", kind = "MPIJob", spec = mpi_full, opts = V1 },
  { name = "mpi_full_common", kind = "MPIJob", spec = mpi_full, opts = V1C },
  { name = "mpi_escapes", kind = "MPIJob", spec = escapes, opts = V1 },
  { name = "mpi_run_policy_empty", kind = "MPIJob", opts = V1,
    spec = { worker = { replicas = 2, command = { "sleep", "infinity" } }, launcher = { replicas = 1 },
      slots = 8, run_policy = {} } },

  -- HorovodJob (extra fields never reach the message) -----------------------
  { name = "hvd_flytekit_example", kind = "HorovodJob", opts = V1, -- FACTS §2.6
    spec = { worker = { replicas = 2 }, launcher = { replicas = 1 }, slots = 2 } },
  { name = "hvd_flytekit_test_run_policy", kind = "HorovodJob", opts = V1, -- FACTS §2.6 test example
    spec = { worker = { replicas = 1, command = sshd }, run_policy = { clean_pod_policy = "none",
      backoff_limit = 5, active_deadline_seconds = 100, ttl_seconds_after_finished = 100 } } },
  { name = "hvd_all_options", kind = "HorovodJob", opts = V1,
    spec = { worker = { replicas = 4, command = sshd, requests = { gpu = 1 } }, slots = 2,
      verbose = true, log_level = "DEBUG", discovery_script_path = "/opt/discover.sh", elastic_timeout = 600 } },
  { name = "hvd_all_options_common", kind = "HorovodJob", opts = V1C,
    spec = { worker = { replicas = 4, command = sshd, requests = { gpu = 1 } }, slots = 2,
      verbose = true, log_level = "DEBUG", discovery_script_path = "/opt/discover.sh", elastic_timeout = 600 } },
  { name = "hvd_v0", kind = "HorovodJob", opts = V0,
    spec = { worker = { replicas = 4 }, slots = 1, verbose = true } },

  -- TaskTemplate ------------------------------------------------------------
  { name = "tt_tf_example", kind = "TFJob", spec = tf_example,
    template = { version = 1, id = id, container = task_container, config = { team = "ml" } } },
  { name = "tt_tf_full_common", kind = "TFJob", spec = tf_full,
    template = { replica_encoding = "common", id = id } },
  { name = "tt_tf_v0", kind = "TFJob", spec = { worker = { replicas = 2 }, chief = { replicas = 1 } },
    template = { version = 0, id = id } },
  { name = "tt_pt_minimal", kind = "PyTorchJob", spec = { worker = { replicas = 2 } }, template = {} },
  { name = "tt_pt_v0_env", kind = "PyTorchJob", spec = { num_workers = 4 },
    template = { version = 0, container = { image = "pt:1", env = { WORLD = "4", B = "", A = "x y" } } } },
  { name = "tt_pt_partial_id", kind = "PyTorchJob", spec = pt_full,
    template = { id = { project = "p", name = "n" }, container = { image = "pt:2.1", args = { "train" } } } },
  { name = "tt_el_python_task", kind = "Elastic", spec = { nnodes = 1, nproc_per_node = 4 }, -- FACTS §2.4
    template = { version = 1, id = id, container = task_container } },
  { name = "tt_el_example", kind = "Elastic", spec = { nnodes = "2:4", nproc_per_node = 8, max_restarts = 3 },
    template = { version = 1, id = id, container = task_container } },
  { name = "tt_el_v0", kind = "Elastic", spec = { nnodes = 3, nproc_per_node = 2 },
    template = { version = 0, config = { primary_container_name = "primary" } } },
  { name = "tt_mpi_example", kind = "MPIJob", spec = mpi_example,  -- args wrapped in mpirun
    template = { id = id, container = { image = "registry.example/train:v1",
      args = { "python", "/opt/venv/bin/entrypoint.py" } } } },
  { name = "tt_mpi_no_wrap", kind = "MPIJob", spec = mpi_example,
    template = { id = id, wrap_launcher = false, container = { image = "registry.example/train:v1",
      args = { "mpirun", "--allow-run-as-root", "-np", "4", "python", "/opt/venv/bin/entrypoint.py" } } } },
  { name = "tt_mpi_v0_command", kind = "MPIJob",
    spec = { worker = { replicas = 2, command = sshd }, slots = 2 },
    template = { version = 0, id = id, config = { zeta = "1", alpha = "2" } } },
  { name = "tt_hvd_v0_command", kind = "HorovodJob",
    spec = { worker = { replicas = 2, command = sshd }, launcher = { replicas = 1 }, slots = 1, verbose = true },
    template = { version = 0 } },
  { name = "tt_hvd_escapes", kind = "HorovodJob", spec = { worker = { replicas = 2 }, slots = 2 },
    template = { container = { image = "hvd:1", command = { "sh", "-c" },
      env = { QUOTE = 'say "hi" \\ bye', UNICODE = "caf\195\169 \226\156\147 \240\159\154\128", TAB = "a\tb\nc" } } } },
  { name = "tt_mpi_escapes", kind = "MPIJob", spec = escapes, template = {} },
  { name = "tt_mpi_common_config", kind = "MPIJob", spec = mpi_full,
    template = { replica_encoding = "common", config = { k = "v", ["a.b"] = "c" } } },

  -- TaskTemplate with pod settings (SPEC §2.4) -------------------------------
  { name = "tt_pod_minimal", kind = "PyTorchJob", spec = { worker = { replicas = 2 }, pod_template = {} },
    template = {} },
  { name = "tt_pod_a100", kind = "PyTorchJob", spec = pod_a100,
    template = { id = id, container = task_container } },
  { name = "tt_pod_named_primary", kind = "TFJob",
    spec = { worker = { replicas = 2 }, pod_template = { primary_container_name = "trainer",
      spec = { containers = { { name = "trainer", env = { { name = "LOG", value = "debug" } } },
        { name = "sidecar", image = "busybox:1.36", args = { "sleep", "infinity" } } } } } },
    template = { container = { image = "tf:2", env = { B = "2", A = "1" } } } },
  { name = "tt_pod_labels_only", kind = "MPIJob",
    spec = { worker = { replicas = 2 }, pod_template = { metadata = { labels = { team = "ml", z = "1" },
      annotations = { ["example.com/owner"] = "me" } } } },
    template = { container = { image = "mpi:1", args = { "python", "t.py" } } } },
  { name = "tt_pod_task_resources", kind = "PyTorchJob",
    spec = { worker = { replicas = 2 }, requests = { cpu = 4, mem = "16Gi", ephemeral_storage = "20Gi" },
      limits = { gpu = 2, memory = "32Gi" },
      pod_template = { spec = { nodeSelector = { pool = "gpu" }, priorityClassName = "high" } } },
    template = { container = { image = "pt:2" } } },
  { name = "tt_pod_numbers", kind = "Elastic",
    spec = { nnodes = "2:4", pod_template = { spec = { terminationGracePeriodSeconds = 30,
      securityContext = { runAsUser = 1000, fsGroup = 2000.0, runAsNonRoot = true },
      tolerations = { { key = "gpu", operator = "Exists", effect = "NoExecute", tolerationSeconds = 60 } } } } },
    template = { version = 1, container = task_container } },
  { name = "tt_pod_with_config", kind = "HorovodJob",
    spec = { worker = { replicas = 2 }, slots = 2, pod_template = { spec = { schedulerName = "volcano" } } },
    template = { config = { team = "ml" }, container = { image = "hvd:1" } } },
  { name = "tt_shm_true", kind = "PyTorchJob", spec = { worker = { replicas = 2 }, shared_memory = true },
    template = { container = { image = "pt:2" } } },
  { name = "tt_shm_size", kind = "Elastic", spec = { nnodes = 2, shared_memory = "2Gi" },
    template = { id = id } },
  { name = "tt_accel_name", kind = "TFJob", spec = { worker = { replicas = 1 }, accelerator = "nvidia-l4" },
    template = { container = { image = "tf:2" } } },
  { name = "tt_accel_partition", kind = "MPIJob",
    spec = { worker = { replicas = 2 }, accelerator = { device = "nvidia-tesla-a100", partition_size = "1g.5gb" } },
    template = {} },
  { name = "tt_accel_unpartitioned", kind = "PyTorchJob",
    spec = { worker = { replicas = 2 }, accelerator = { device = "nvidia-tesla-a100", unpartitioned = true },
      shared_memory = true },
    template = { id = id } },
  { name = "tt_task_resources_container", kind = "TFJob",
    spec = { worker = { replicas = 2, requests = { cpu = 1 } }, requests = { cpu = 0.5, mem = 1024, gpu = 1,
      ephemeral_storage = "1Gi" }, limits = { cpu = "1", gpu = 1 } },
    template = { container = task_container } },
  { name = "tt_task_resources_no_container", kind = "MPIJob",
    spec = { worker = { replicas = 2 }, limits = { mem = "8Gi" } }, template = {} },
  { name = "tt_pod_python_task", kind = "Elastic",
    spec = { nnodes = 1, shared_memory = true, pod_template = { spec = { hostIPC = true } } },
    template = { container = { image = "pt:2" } } },

  -- TaskSpec (SPEC §3.4) ------------------------------------------------------
  { name = "ts_tf_minimal", kind = "TFJob", spec = { worker = { replicas = 2 } },
    taskspec = { id = id, container = { image = "tf:2" } } },
  { name = "ts_tf_example_all_simple", kind = "TFJob", spec = tf_example,
    taskspec = { id = id, container = task_container,
      interface = { inputs = { n = "integer", lr = "float", tag = "string", dry = "boolean",
        at = "datetime", budget = "duration", cfg = "struct", data = "file", ckpt = "directory" },
        outputs = { acc = "float" } } } },
  { name = "ts_tf_v0", kind = "TFJob", spec = { worker = { replicas = 2 }, chief = { replicas = 1 } },
    taskspec = { version = 0, id = id, container = { image = "tf:2", args = { "python", "t.py" } },
      metadata = { retries = 2 } } },
  { name = "ts_pt_nesting", kind = "PyTorchJob", spec = { worker = { replicas = 4 } },
    taskspec = { id = id, container = { image = "pt:2", args = { "train" } },
      interface = { inputs = { shards = { list = "file" }, weights = { map = "float" },
        grid = { list = { list = "integer" } }, deep = { map = { list = { map = "directory" } } } },
        outputs = { metrics = { map = "string" } } } } },
  { name = "ts_pt_metadata_all", kind = "PyTorchJob", spec = pt_full,
    taskspec = { id = id, container = { image = "pt:2.1", env = { B = "2", A = "1" }, args = { "train" } },
      metadata = { retries = 10, timeout = "1h30m", interruptible = true,
        cache = { version = "c1", serializable = true, ignore_inputs = { "seed", "lr" } },
        description = "Fine-tune on the nightly shard", tags = { team = "nlp", cost = "42" } },
      interface = { inputs = { seed = "integer", lr = "float" } } } },
  { name = "ts_pt_metadata_false", kind = "PyTorchJob", spec = { worker = { replicas = 1 } },
    taskspec = { id = id, container = { image = "pt:2" },
      metadata = { retries = 0, timeout = 0, interruptible = false, cache = { version = "2" } } } },
  { name = "ts_pt_timeout_seconds", kind = "PyTorchJob", spec = { worker = { replicas = 1 } },
    taskspec = { id = id, container = { image = "pt:2" }, metadata = { timeout = 7200 } } },
  { name = "ts_pt_v0", kind = "PyTorchJob", spec = { num_workers = 3 },
    taskspec = { version = 0, id = id, container = { image = "pt:1", args = { "train" } },
      interface = { outputs = { model = "directory" } } } },
  { name = "ts_el_example", kind = "Elastic", spec = { nnodes = "2:4", nproc_per_node = 8 },
    taskspec = { id = id, container = task_container, metadata = { timeout = "45m" },
      interface = { inputs = { epochs = "integer" }, outputs = { loss = { list = "float" } } } } },
  -- python-task: no custom to decode
  { name = "ts_el_python_task", kind = "Elastic", roundtrip = false, spec = { nnodes = 1, nproc_per_node = 4 },
    taskspec = { id = id, container = { image = "pt:2" } } },
  { name = "ts_el_v0", kind = "Elastic", spec = { nnodes = 3, nproc_per_node = 2 },
    taskspec = { version = 0, id = id, container = { image = "pt:2" } } },
  { name = "ts_mpi_example_wrapped", kind = "MPIJob", spec = mpi_example,
    taskspec = { id = id, container = { image = "registry.example/train:v1", args = { "python", "train.py" } },
      interface = { inputs = { lr = "float" } }, metadata = { retries = 3 } } },
  { name = "ts_mpi_no_args", kind = "MPIJob", spec = { worker = { replicas = 3 }, slots = 4 },
    taskspec = { id = id, container = { image = "mpi:1" } } },
  { name = "ts_mpi_no_wrap", kind = "MPIJob", spec = mpi_example,
    taskspec = { id = id, wrap_launcher = false, container = { image = "mpi:1", args = { "bash", "run.sh" } } } },
  { name = "ts_mpi_v0_worker_command", kind = "MPIJob",
    spec = { worker = { replicas = 2, command = sshd }, slots = 2 },
    taskspec = { version = 0, id = id, container = { image = "mpi:1", args = { "python", "t.py" } } } },
  { name = "ts_mpi_group_images", kind = "MPIJob",
    spec = { worker = { replicas = 2, image = "w:1" }, launcher = { replicas = 1, image = "l:1" } },
    taskspec = { id = id, container = { args = { "python", "t.py" } } } },
  { name = "ts_hvd_options", kind = "HorovodJob",
    spec = { worker = { replicas = 4, command = sshd }, slots = 2, verbose = true, log_level = "DEBUG",
      discovery_script_path = "/opt/discover.sh", elastic_timeout = 600 },
    taskspec = { id = id, container = { image = "hvd:1", args = { "python", "train.py", "--epochs", "3" } },
      metadata = { description = "Horovod \"elastic\" run \226\156\147" } } },
  { name = "ts_hvd_defaults_v0", kind = "HorovodJob", spec = { worker = { replicas = 2 }, slots = 1 },
    taskspec = { version = 0, id = id, container = { image = "hvd:1" } } },
  { name = "ts_pod_template", kind = "PyTorchJob", spec = pod_a100, roundtrip = false,
    taskspec = { id = id, container = task_container, config = { team = "ml" },
      interface = { inputs = { data = "directory" } } } },
  { name = "ts_tf_common", kind = "TFJob", spec = tf_full,
    taskspec = { replica_encoding = "common", id = id, container = { image = "tf:2" },
      metadata = { tags = { a = "1" } } } },
}
