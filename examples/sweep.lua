--- The bundled example sweep: fine-tuning BERT with a PyTorchJob over
-- 3 worker counts x 2 images x 2 GPU counts = 12 variants.
--
-- A config script: it returns the `name, job` iterator of
-- `kfjob.template.variants`.  Render it with
--
--     kfjob render examples/sweep.lua -o out/          # the CLI
--     lua5.4 examples/sweep_main.lua out/              # without the CLI
--
-- `--set key=value` values of the CLI arrive in the global table `params`:
-- `--set registry=ghcr.io/me --set prefix=exp7` changes the images and the
-- names.
--
-- `worker.replicas` names a field of the job, so it is applied as an
-- override; `tag` and `gpus` are not fields, so they are template variables
-- for the strings of the base.  A string that is exactly one placeholder
-- (`"${gpus}"`) takes the variable's value as it is (a number here).

local template = require "kfjob.template"

local p = params or {}

local image = "${registry}/bert-finetune:${tag}"

return template.variants({
  master = {
    image = image,
    requests = { cpu = 4, mem = "16Gi" },
  },
  worker = {
    image = image,
    requests = { cpu = 8, mem = "32Gi", gpu = "${gpus}" },
    limits = { cpu = 8, mem = "32Gi", gpu = "${gpus}" },
    restart_policy = "on_failure",
  },
  run_policy = {
    clean_pod_policy = "running",
    backoff_limit = 3,
    active_deadline_seconds = 86400,
  },
  shared_memory = true,   -- /dev/shm for the DataLoader workers
}, {
  ["worker.replicas"] = { 2, 4, 8 },
  tag = { "1.4.0", "1.5.0-rc1" },
  gpus = { 1, 2 },
}, {
  kind = "PyTorchJob",
  name = "${prefix}-${tag}-w${worker.replicas}-g${gpus}",
  vars = {
    registry = p.registry or "ghcr.io/acme",
    prefix = p.prefix or "bert",
  },
})
